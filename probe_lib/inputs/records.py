"""Reading tools records (lists of keys) from JSON, shared by every command that takes them."""

from __future__ import annotations

from probe_lib.core import json_input
from probe_lib.core.errors import InputError


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
