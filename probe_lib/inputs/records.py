"""Reading tools records (lists of keys): from JSON, shared by every command that takes them, and from the text a
reader types into the explorer (notebook 11), which is never refused but said what was wrong with it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from probe_lib.core import json_input
from probe_lib.core.errors import InputError

#: The most keys one exploration takes: a table of more cannot be read by eye (notebook 10 covers whole corpora).
MAX_KEYS = 1_000


def parse_records(text: str | bytes) -> tuple[list[list[str]], bool]:
    """Parse a JSON array of keys (one record) or an array of such arrays (a batch).

    Returns ``(records, is_batch)``. Raises ``InputError`` naming the first thing that is wrong.
    """
    data = json_input.loads(text, "input")
    if not isinstance(data, list):
        raise InputError(f"input must be a JSON array of keys or of arrays of keys, not {type(data).__name__}")
    is_batch = any(isinstance(item, list) for item in data)
    records = data if is_batch else [data]
    for number, record in enumerate(records):
        where = f"record {number}" if is_batch else "the record"
        if not isinstance(record, list):
            raise InputError(f"{where} is {type(record).__name__}; a batch must hold only arrays of keys")
        check_record(record, where)
    return records, is_batch


def check_record(keys: list, where: str = "the record") -> None:
    """Raise ``InputError`` unless ``keys`` are distinct strings (a JavaScript object holds each key once)."""
    seen: set[str] = set()
    for position, key in enumerate(keys):
        if not isinstance(key, str):
            raise InputError(f"{where}: key {position} is {json_input.quote(key)}, not a string")
        if key in seen:
            raise InputError(f"{where}: key {json_input.quote(key)} appears twice; a tools record holds each key once")
        seen.add(key)


@dataclass(frozen=True)
class KeyInput:
    """Keys in registration order, and what was wrong with the text they came from (one sentence each)."""

    keys: tuple[str, ...]
    notes: tuple[str, ...] = ()


def shown(text: str) -> str:
    """``text`` with lone surrogates and control characters as ``\\uXXXX`` escapes, safe to send to a browser."""
    return "".join(
        f"\\u{ord(char):04x}" if 0xD800 <= ord(char) <= 0xDFFF or (not char.isprintable() and char != " ") else char
        for char in text
    )


def parse_keys(text: str) -> KeyInput:
    """Keys from a text box: one key per line, or a JSON array of strings (for keys that hold a line break, the
    empty key, or a lone surrogate written as ``"\\ud800"``).

    Never raises for bad text: empty lines are skipped, repeated keys keep their first line, more than
    ``MAX_KEYS`` keys are cut, and each of these is said in ``notes``.
    """
    if not isinstance(text, str):
        raise InputError(f"keys must be text, not {type(text).__name__}")
    notes: list[str] = []
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except json.JSONDecodeError as error:
            note = f"the keys look like a JSON array but are not JSON ({error.msg} at column {error.colno})"
            return KeyInput((), (f"{note}; fix it, or write one key per line",))
        if not isinstance(parsed, list) or not all(isinstance(key, str) for key in parsed):
            return KeyInput((), ('a JSON array of keys must hold strings only, e.g. ["search.web", ""]',))
        lines = list(enumerate(parsed, start=1))
        where = "item"
    else:
        raw = text.split("\n")
        if any(line.endswith("\r") for line in raw):
            notes.append(
                "Windows line ends (\\r\\n) were read as line ends; write a JSON array for a key ending in \\r"
            )
        raw = [line.removesuffix("\r") for line in raw]
        lines = [(number, line) for number, line in enumerate(raw, start=1) if line != ""]
        empty = len(raw) - len(lines) - (1 if text.endswith("\n") or not text else 0)  # a cleared box: no line
        if empty > 0:
            notes.append(
                f"{empty} empty line(s) skipped; to register the empty key (it crashes formatTools), "
                'write the keys as a JSON array, e.g. ["a", ""]'
            )
        where = "line"
    return checked_keys(lines, where, notes)


def checked_keys(numbered: Sequence[tuple[int, str]], where: str = "item", notes: Sequence[str] = ()) -> KeyInput:
    """Keys as a tools record can hold them: repeats dropped (first kept), at most ``MAX_KEYS``, and a note for
    each of these and for lone surrogates. ``numbered`` pairs each key with its line or item number."""
    notes = list(notes)
    first_at: dict[str, int] = {}
    repeats: list[str] = []
    for number, key in numbered:
        if not isinstance(key, str):
            raise InputError(f"{where} {number} is {type(key).__name__}, not text; keys are strings")
        if key in first_at:
            repeats.append(f"{shown(key)!r} ({where} {number} repeats {where} {first_at[key]})")
        else:
            first_at[key] = number
    if repeats:
        shown_repeats = "; ".join(repeats[:5]) + (f"; and {len(repeats) - 5} more" if len(repeats) > 5 else "")
        notes.append(f"a tools record holds each key once, so later copies were dropped: {shown_repeats}")
    keys = tuple(first_at)
    if len(keys) > MAX_KEYS:
        notes.append(
            f"{len(keys):,} keys given; the explorer takes the first {MAX_KEYS:,} (for whole corpora use "
            "probe_lib.analysis.tables.rewrites, as notebook 10 does)"
        )
        keys = keys[:MAX_KEYS]
    lone = [key for key in keys if any(0xD800 <= ord(char) <= 0xDFFF for char in key)]
    if lone:
        notes.append(
            f"{len(lone)} key(s) hold a lone surrogate, shown as \\udXXX: JavaScript strings can hold one, "
            "so the key is kept and measured as it is"
        )
    return KeyInput(keys, tuple(notes))


def keys_as_text(keys: Sequence[str]) -> str:
    """The text ``parse_keys`` reads back as exactly ``keys``: lines when they can carry them, else a JSON array."""
    lines = "\n".join(keys)
    if keys and all(key and "\n" not in key and "\r" not in key for key in keys) and not lines.strip().startswith("["):
        return lines
    return json.dumps(list(keys))
