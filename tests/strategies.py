"""Hypothesis strategies for tools records as JavaScript sees them: UTF-16 strings, distinct keys and the traps.

Python strings are sequences of code points and JavaScript strings of UTF-16 units; the two agree as long as a
string never holds a high surrogate directly followed by a low one (JavaScript would read that pair as one
astral character, so two Python-distinct keys could be one JavaScript key). Every strategy here keeps that.
"""

from __future__ import annotations

import re
import string

from hypothesis import strategies as st

LEGAL_CHARS = string.ascii_letters + string.digits + "_-"
#: Every ASCII character formatTools replaces: punctuation but _ and -, whitespace, and a few controls.
ILLEGAL_ASCII = "".join(sorted(set(string.punctuation + string.whitespace + "\x00\x1b\x7f") - set("_-")))
#: A key formatTools leaves alone.
LEGAL_KEY = re.compile(r"[a-zA-Z_][a-zA-Z0-9_\-]{0,62}")

_SURROGATE_PAIR = re.compile("([\ud800-\udbff])(?=[\udc00-\udfff])")


def unpair_surrogates(text: str) -> str:
    """``text`` with an ``x`` after every high surrogate that a low one follows, so no pair can form."""
    return _SURROGATE_PAIR.sub(r"\1x", text)


#: One UTF-16-relevant character: legal ASCII, illegal ASCII, other BMP, astral, or a lone surrogate.
js_chars = st.one_of(
    st.sampled_from(LEGAL_CHARS),
    st.sampled_from(ILLEGAL_ASCII),
    st.characters(min_codepoint=0x80, max_codepoint=0xFFFF, exclude_categories=["Cs"]),
    st.characters(min_codepoint=0x10000),
    st.integers(0xD800, 0xDFFF).map(chr),
)


def js_strings(min_size: int = 0, max_size: int = 80) -> st.SearchStrategy[str]:
    """Strings of ``min_size`` to about ``max_size`` code points mixing every kind of :data:`js_chars`."""
    return st.lists(js_chars, min_size=min_size, max_size=max_size).map("".join).map(unpair_surrogates)


#: Keys formatTools never rewrites.
legal_keys = st.from_regex(LEGAL_KEY, fullmatch=True)

#: Decimal strings, some array indices (0 … 2**32 - 2) and some near misses (leading zero, sign, fraction).
integer_like_keys = st.one_of(
    st.integers(0, 2**32 + 5).map(str),
    st.integers(-(10**12), -1).map(str),
    st.sampled_from(["0", "42", "4294967294", "4294967295", "007", "00", "-0", "1.5", "1e3", "+1", " 1", "٣"]),
)

#: Keys around and beyond the 63-unit cut: legal, digit-first, and with illegal or astral characters.
long_keys = st.one_of(
    st.text(alphabet=LEGAL_CHARS, min_size=60, max_size=90),
    st.builds(
        lambda digit, rest: digit + rest,
        st.sampled_from(string.digits),
        st.text(alphabet=LEGAL_CHARS, min_size=58, max_size=70),
    ),  # fmt: skip
    js_strings(min_size=55, max_size=90),
)

#: Any non-empty key.
keys = st.one_of(legal_keys, js_strings(min_size=1), integer_like_keys, long_keys)

#: Keys built to rewrite onto one another or onto an ``Object.prototype`` name.
collision_prone_keys = st.one_of(
    st.builds(
        lambda head, separator, tail: head + separator + tail,
        st.sampled_from(["a", "b", "1", "_1", "x" * 62]),
        st.sampled_from([".", " ", ":", "_", "..", "__", "\U0001f600", "é", "-"]),
        st.sampled_from(["x", "y", ""]),
    ),
    st.sampled_from(["..proto..", "__proto__", "..defineGetter..", "  lookupSetter  ", "constructor", "42", "_42"]),
)


def records(elements: st.SearchStrategy[str] = keys, min_size: int = 0, max_size: int = 12) -> st.SearchStrategy:
    """Tools records: lists of distinct keys in registration order."""
    return st.lists(elements, min_size=min_size, max_size=max_size, unique=True)


#: Records that often collide, sometimes with the empty key too.
clashing_records = records(st.one_of(collision_prone_keys, keys, st.just("")), max_size=8)
