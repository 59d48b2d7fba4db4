"""A boundary normaliser: give every tool key a provider-legal, unique name before it reaches Mastra.

Mastra rewrites illegal keys but not a named ``toolChoice`` or ``activeTools``, so they stop matching. Renaming the
keys first, with names formatTools leaves alone, and mapping ``toolChoice`` and ``activeTools`` through the same
mapping keeps all three in step. ``probe_lib/frameworks/mastra/harness/remedy.cjs`` is the same algorithm in
JavaScript, and a test holds the two equal.

The algorithm, which depends only on the set of keys (not their order):

1. **Candidate.** Each code point (as JavaScript iterates them: a surrogate pair is one) outside ``a-zA-Z0-9_-``
   becomes ``_``; a first character that is not a letter or ``_`` gets a ``_`` prefix; the result is cut to
   ``max_length``. A legal key within the limit is its own candidate.
2. **Keep.** A key keeps its candidate when no other key has the same candidate and the candidate is not a name
   ``Object.prototype`` carries (``__proto__`` would vanish; see ``normaliser.INHERITED_NAMES``), and the cut
   removed nothing. Where several keys share a candidate, the one whose candidate is itself keeps it.
3. **Suffix.** Every other key (cut, clashing or reserved) gets ``candidate[:max_length - 9] + "_" + hash``, with
   ``hash`` the 8-hex-digit FNV-1a 32 of the key's UTF-16LE bytes; keys are suffixed in UTF-16 order, and a name
   already taken is re-hashed with ``"\\0" + n`` appended to the key (n = 1, 2 …).

So a cut key's name never depends on the other keys, and a readable name (``search.web`` -> ``search_web``) is
kept unless another key needs it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TypeVar

from probe_lib.frameworks.mastra.normaliser import INHERITED_NAMES, MAX_NAME_LENGTH

T = TypeVar("T")

#: Room for ``"_" + 8 hex digits`` and at least one character before it.
MIN_MAX_LENGTH = 10
_SUFFIX_LENGTH = 9

_ILLEGAL = re.compile(r"[^a-zA-Z0-9_\-]")
_LEGAL_FIRST = re.compile(r"[a-zA-Z_]")
_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def fnv1a32(text: str) -> str:
    """FNV-1a (32 bits) of ``text``'s UTF-16LE bytes, as 8 hex digits (lone surrogates hash as themselves)."""
    value = _FNV_OFFSET
    for byte in text.encode("utf-16-le", "surrogatepass"):
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return f"{value:08x}"


def _as_javascript(key: str) -> str:
    """``key`` as JavaScript reads it: a high surrogate followed by a low one is one (astral) character."""
    return key.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _uncut(key: str) -> str:
    """``key`` with illegal code points replaced and a legal first character ensured, before the cut."""
    name = _ILLEGAL.sub("_", _as_javascript(key))
    return name if _LEGAL_FIRST.match(name) else "_" + name


def candidate(key: str, max_length: int = MAX_NAME_LENGTH) -> str:
    """The legal name ``key`` maps to before uniqueness is considered (step 1)."""
    return _uncut(key)[:max_length]


def _utf16_order(key: str) -> bytes:
    """Sort key that orders strings as JavaScript does (by UTF-16 code units)."""
    return key.encode("utf-16-be", "surrogatepass")


def safe_tool_names(keys: Iterable[str], max_length: int = MAX_NAME_LENGTH) -> dict[str, str]:
    """Map each key to a unique name that every ``a-zA-Z0-9_-`` provider and formatTools accept unchanged.

    Returns ``{key: safe name}`` in the order of ``keys``. Raises ``ValueError`` for a repeated key or a
    ``max_length`` below ``MIN_MAX_LENGTH``.
    """
    keys = list(keys)
    if max_length < MIN_MAX_LENGTH:
        raise ValueError(f"max_length {max_length} leaves no room for a hash suffix; use at least {MIN_MAX_LENGTH}")
    if len(set(keys)) != len(keys):
        repeated = next(key for key, count in Counter(keys).items() if count > 1)
        raise ValueError(f"key {repeated!r} appears twice; a tools record holds each key once")

    uncut = {key: _uncut(key) for key in keys}
    candidates = {key: name[:max_length] for key, name in uncut.items()}
    shared = Counter(candidates.values())
    names: dict[str, str] = {}
    for key, name in candidates.items():
        unique = shared[name] == 1 or name == key
        if unique and len(uncut[key]) <= max_length and name not in INHERITED_NAMES:
            names[key] = name

    taken = set(names.values())
    for key in sorted((key for key in keys if key not in names), key=_utf16_order):
        stem = candidates[key][: max_length - _SUFFIX_LENGTH]
        attempt = 0
        while True:
            name = f"{stem}_{fnv1a32(key if attempt == 0 else key + chr(0) + str(attempt))}"
            if name not in taken:
                break
            attempt += 1
        names[key] = name
        taken.add(name)
    return {key: names[key] for key in keys}


def rename_tools(tools: Mapping[str, T], max_length: int = MAX_NAME_LENGTH) -> tuple[dict[str, T], dict[str, str]]:
    """A tools record under safe keys, and the mapping ``{old key: safe key}`` to apply to toolChoice and
    activeTools."""
    mapping = safe_tool_names(tools, max_length)
    return {mapping[key]: tool for key, tool in tools.items()}, mapping


def _safe(name: str, mapping: Mapping[str, str]) -> str:
    if name in mapping:
        return mapping[name]
    if name in mapping.values():
        return name  # already a safe name
    raise KeyError(f"tool {name!r} is not one of the renamed keys; register it first, or pass the mapping that has it")


def apply_to_tool_choice(choice: object, mapping: Mapping[str, str]) -> object:
    """``toolChoice`` with a named tool (``{"type": "tool", "toolName": key}``) renamed; other choices unchanged."""
    if isinstance(choice, Mapping) and choice.get("type") == "tool" and isinstance(choice.get("toolName"), str):
        return {**choice, "toolName": _safe(choice["toolName"], mapping)}
    return choice


def apply_to_active_tools(active: Iterable[str], mapping: Mapping[str, str]) -> list[str]:
    """An ``activeTools`` list with each key renamed (raises ``KeyError`` for a name the mapping does not know)."""
    return [_safe(name, mapping) for name in active]
