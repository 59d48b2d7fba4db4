"""A Python model of how ``@mastra/core`` turns the keys of a tools record into the names on the wire.

The real normaliser is ``Agent.formatTools()`` (identical in 1.0.4, 1.67.0 and 1.71.0), running in V8 over a
plain object built from the caller's record. Four JavaScript facts shape its output, and this model
reproduces each:

* **Strings are UTF-16.** ``key.length`` and ``/[^a-zA-Z0-9_\\-]/g`` work per code unit, so an astral character
  (an emoji) counts as two and becomes two underscores; a lone surrogate counts as one.
* **Object key order.** ``Object.keys`` lists array-index keys ("0" … "4294967294") first, in ascending numeric
  order, then the other keys in insertion order. Valid keys stay where they are; each rewritten key is deleted
  and re-added, so rewritten names move to the end, in that enumeration order.
* **Property lookup walks the prototype.** The collision test is ``if (tools[newKey])``, so a rewrite onto a
  name that ``Object.prototype`` carries (``__proto__``, ``__defineGetter__`` …) is a collision with no second tool.
* **An empty key crashes.** ``key[0]`` is ``undefined`` and ``undefined.match`` throws a ``TypeError``.
* **``__proto__`` vanishes.** A key ``__proto__`` is legal, so formatTools keeps it, but the record is later
  copied by assignment, where ``copy["__proto__"] = tool`` sets a prototype instead of a key: the tool never
  reaches the wire (measured on every pinned version).

The model agreed with the real package on 21,000 adversarial records per pinned version (``tests/test_differential.py``:
1,000 real requests, 20,000 direct ``formatTools()`` calls); if they ever disagree, the model is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from probe_lib.core.naming import Collision, Crash, Part, Result, Rules

#: formatTools cuts every rewritten name to this many UTF-16 code units (OpenAI documents 64; data/provider_rules.csv).
MAX_NAME_LENGTH = 63

#: The characters formatTools keeps; it replaces every other UTF-16 code unit with ``_``.
_LEGAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
#: A key that formatTools leaves alone: legal characters, legal first character, at most 63 long.
_UNTOUCHED_KEY = re.compile(r"[a-zA-Z_][a-zA-Z0-9_\-]{0,62}")
#: Byte table for ``bytes.translate``: each legal ASCII character stays, every other byte becomes ``_``.
_SUBSTITUTION = bytes(code if chr(code) in _LEGAL_CHARS else ord("_") for code in range(256))
#: A code point outside the BMP: two UTF-16 code units in JavaScript (a lone surrogate is one, so not matched).
_ASTRAL_CHAR = re.compile("[\U00010000-\U0010ffff]")
_LEGAL_FIRST_CHAR = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")

#: Names on ``Object.prototype`` that a rewrite can produce (a rewrite always holds or starts with ``_``).
INHERITED_NAMES = frozenset(
    {"__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"}
)

#: Legal keys that formatTools keeps but that never reach the wire (see the module docstring).
VANISHING_KEYS = frozenset({"__proto__"})

#: What V8 says when formatTools reads ``key[0].match`` of the empty key.
EMPTY_KEY_CRASH = "Cannot read properties of undefined (reading 'match')"

_MAX_ARRAY_INDEX = 2**32 - 2

#: How messages and charts name this rule (the module satisfies :class:`probe_lib.core.naming.NameRule`).
LABEL = "formatTools"


def as_sent(format_tools_result: dict) -> dict:
    """Agent.formatTools' own result (``names`` or ``error``) as it reaches the wire: vanishing keys removed."""
    if "names" not in format_tools_result:
        return format_tools_result
    return {"names": [name for name in format_tools_result["names"] if name not in VANISHING_KEYS]}


def is_array_index(key: str) -> bool:
    """True when V8 enumerates ``key`` before string keys: a canonical integer from 0 to 2**32 - 2."""
    return key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) <= _MAX_ARRAY_INDEX


def enumeration_order(keys: Sequence[str]) -> list[str]:
    """The order ``Object.keys`` returns for a record whose keys were inserted in ``keys`` order."""
    indices = sorted((key for key in keys if is_array_index(key)), key=int)
    if not indices:
        return list(keys)
    return indices + [key for key in keys if not is_array_index(key)]


def _substitute(key: str) -> str:
    """Replace each illegal UTF-16 code unit with ``_`` (so an astral character becomes ``__``)."""
    if key.isascii():
        units = key.encode("ascii")
    else:  # every non-ASCII code unit is illegal: an astral character is two, any other (a lone surrogate too) one
        units = _ASTRAL_CHAR.sub("__", key).encode("ascii", "replace")
    return units.translate(_SUBSTITUTION).decode("ascii")


def rewrite(key: str) -> str:
    """The name formatTools gives ``key`` on its own (no collision check; ``""`` has no rewrite)."""
    if not key:
        raise ValueError("the empty key has no rewrite: formatTools crashes on it")
    return _apply_rules(key)[0]


def parts(key: str) -> tuple[Part, ...]:
    """``key`` as formatTools rewrites it alone, before the cut: each character kept or replaced (an illegal UTF-16
    unit by one ``_``, so an astral character by two), after the ``_`` it adds when the first is not legal."""
    written = tuple(Part(char, _substitute(char)) for char in key)
    if written and written[0].name[0] not in _LEGAL_FIRST_CHAR:
        return (Part("", "_"), *written)
    return written


def explain(key: str) -> tuple[str, ...]:
    """The rules formatTools applies to ``key`` alone, each in a few words."""
    if not key:
        return ("empty key: formatTools reads key[0].match and crashes",)
    _, substituted, prefixed, truncated, lost = _apply_rules(key)
    fired = (
        (substituted, "illegal characters → _"),
        (prefixed, "_ prefixed (first character not a letter or _)"),
        (truncated, f"cut to {MAX_NAME_LENGTH} (lost {lost!r})"),  # lost holds legal characters only
    )
    return tuple(words for applies, words in fired if applies)


def normalise(keys: Iterable[str]) -> Result:
    """Model ``Agent.formatTools()`` on a tools record whose keys were registered in ``keys`` order.

    Raises ``ValueError`` for a repeated key: a JavaScript object cannot hold one key twice.
    """
    keys = tuple(keys)
    if len(set(keys)) != len(keys):
        seen: set[str] = set()
        repeated = next(key for key in keys if key in seen or seen.add(key))
        raise ValueError(f"key {repeated!r} is registered twice; a tools record holds each key once")

    rules = {key: _apply_rules(key) for key in keys}
    # Only rewritten keys (and the empty key, which crashes) change the record; the others keep their place.
    rewritten = [key for key in keys if not key or rules[key][0] != key]
    taken = dict(zip(keys, keys))  # the live record: name -> the key that holds it
    moved: list[str] = []
    error: Collision | Crash | None = None
    for key in enumeration_order(rewritten):
        if not key:
            error = Crash(EMPTY_KEY_CRASH, key)
            break
        name = rules[key][0]
        if name in taken or name in INHERITED_NAMES:
            error = Collision(name, key, taken.get(name))
            break
        del taken[key]
        taken[name] = key
        moved.append(key)

    wire_order: tuple[int, ...] = ()
    if error is None:
        before = {key: position for position, key in enumerate(keys)}
        kept = [position for position, key in enumerate(keys) if rules[key][0] == key and key not in VANISHING_KEYS]
        wire_order = (*kept, *(before[key] for key in moved))
    return Result(keys, error, tuple(rules.values()), wire_order)


def _apply_rules(key: str) -> Rules:
    """``(name, substituted, prefixed, truncated, lost)`` for one key, as formatTools would rewrite it alone."""
    if not key or _UNTOUCHED_KEY.fullmatch(key):
        return key, False, False, False, ""
    substituted = _substitute(key)
    prefixed = substituted[0] not in _LEGAL_FIRST_CHAR
    full = "_" + substituted if prefixed else substituted
    return full[:MAX_NAME_LENGTH], substituted != key, prefixed, len(full) > MAX_NAME_LENGTH, full[MAX_NAME_LENGTH:]
