"""Invariants of the formatTools model over generated keys and records (see ``strategies``).

Where a property needs the expected name, it comes from :func:`reference_name`, a separate statement of the
rules over explicit UTF-16 code units, not from the model.
"""

from __future__ import annotations

import re
import string

from hypothesis import find, given
from hypothesis import strategies as st
from strategies import (
    LEGAL_CHARS,
    LEGAL_KEY,
    clashing_records,
    integer_like_keys,
    js_strings,
    keys,
    legal_keys,
    long_keys,
    records,
)

from probe_lib.core.naming import Part, js_length
from probe_lib.frameworks.mastra.normaliser import (
    INHERITED_NAMES,
    MAX_NAME_LENGTH,
    VANISHING_KEYS,
    Collision,
    Crash,
    enumeration_order,
    explain,
    is_array_index,
    normalise,
    parts,
    rewrite,
)

WIRE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_-]{0,62}")
LEGAL_FIRST = string.ascii_letters + "_"
#: Characters formatTools keeps but not first: a key starting with one gets a "_" in front.
NOT_FIRST = string.digits + "-"


def utf16_units(text: str) -> list[int]:
    encoded = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(encoded[i : i + 2], "little") for i in range(0, len(encoded), 2)]


def reference_name(key: str) -> str:
    """The rules restated over UTF-16 units: substitute, prefix, cut."""
    substituted = "".join(chr(unit) if unit < 128 and chr(unit) in LEGAL_CHARS else "_" for unit in utf16_units(key))
    prefixed = substituted if substituted[0] in LEGAL_FIRST else "_" + substituted
    return prefixed[:MAX_NAME_LENGTH]


any_key = st.one_of(keys, long_keys, integer_like_keys)


@given(any_key)
def test_every_name_is_a_legal_tool_name(key):
    assert WIRE_NAME.fullmatch(rewrite(key))


@given(any_key)
def test_rewrite_equals_the_utf16_restatement_of_the_rules(key):
    assert rewrite(key) == reference_name(key)


@given(any_key)
def test_the_parts_of_a_rewrite_are_the_key_and_join_into_its_name(key):
    """What the explorer highlights: each key character once, in order, with what it became (a kept character is
    itself), after a ``_`` added in front exactly when the key starts with a digit or ``-``."""
    split = parts(key)
    assert "".join(part.key for part in split) == key
    assert "".join(part.name for part in split)[:MAX_NAME_LENGTH] == reference_name(key)
    for part in (part for part in split if part.key):
        assert part.name == part.key if part.key in LEGAL_CHARS else part.name == "_" * js_length(part.key)
    prefixed = key[0] in NOT_FIRST
    assert [part for part in split if not part.key] == ([Part("", "_")] if prefixed else [])
    assert not prefixed or split[0] == Part("", "_")


@given(any_key)
def test_explain_names_each_rule_the_rewrite_shows(key):
    words = explain(key)
    units = js_length(key) + (key[0] in NOT_FIRST)
    assert ("illegal characters → _" in words) == any(char not in LEGAL_CHARS for char in key)
    assert ("_ prefixed (first character not a letter or _)" in words) == (key[0] in NOT_FIRST)
    assert any(w.startswith(f"cut to {MAX_NAME_LENGTH} (lost ") for w in words) == (units > MAX_NAME_LENGTH)


def test_explain_says_the_empty_key_crashes():
    assert explain("") == ("empty key: formatTools reads key[0].match and crashes",)


@given(any_key)
def test_rewrite_is_idempotent(key):
    name = rewrite(key)
    assert rewrite(name) == name


@given(any_key)
def test_name_length_is_key_length_plus_prefix_capped_at_63(key):
    (row,) = normalise([key]).rows
    full = js_length(key) + row.prefixed
    assert len(row.name) == min(MAX_NAME_LENGTH, full)
    assert row.truncated == (full > MAX_NAME_LENGTH)
    assert len(row.lost) == max(0, full - MAX_NAME_LENGTH)


@given(any_key)
def test_flags_explain_the_rewrite(key):
    (row,) = normalise([key]).rows
    assert row.rewritten == (row.substituted or row.prefixed or row.truncated)
    assert row.prefixed == (key[0] in string.digits + "-")  # the only legal characters that cannot start a name
    assert row.substituted == any(unit >= 128 or chr(unit) not in LEGAL_CHARS for unit in utf16_units(key))


def reference_enumeration(record: list[str]) -> list[str]:
    """``Object.keys`` order, derived apart from the model: ECMAScript's array indices (canonical numeric strings
    below 2**32 - 1) ascending, then every other key in insertion order."""

    def is_index(key: str) -> bool:
        return key.isascii() and key.isdecimal() and str(int(key)) == key and int(key) < 2**32 - 1

    return sorted(filter(is_index, record), key=int) + [key for key in record if not is_index(key)]


@given(legal_keys)
def test_legal_keys_are_untouched(key):
    assert LEGAL_KEY.fullmatch(key)
    (row,) = normalise([key]).rows
    assert (row.name, row.substituted, row.prefixed, row.truncated, row.lost) == (key, False, False, False, "")


@given(records())
def test_legal_keys_keep_their_order_and_come_before_every_rewritten_key(record):
    result = normalise(record)
    legal = [key for key in record if LEGAL_KEY.fullmatch(key) and key not in VANISHING_KEYS]
    rewritten = [key for key in reference_enumeration(record) if not LEGAL_KEY.fullmatch(key)]
    if result.error is None:
        assert result.names == legal + [reference_name(key) for key in rewritten]


@given(records())
def test_names_are_distinct_and_positions_a_permutation_when_nothing_raises(record):
    result = normalise(record)
    if result.error is None:
        assert len(set(result.names)) == len(result.names)
        on_wire = sorted(row.position_after for row in result.rows if row.position_after is not None)
        assert on_wire == list(range(len(result.names)))
        assert [row.position_before for row in result.rows] == list(range(len(record)))


@given(st.one_of(records(), clashing_records))
def test_an_error_happens_exactly_when_two_names_meet_an_inherited_name_or_the_empty_key(record):
    result = normalise(record)
    names = [row.name for row in result.rows]
    clash = (
        "" in record
        or len(set(names)) < len(names)
        or any(row.rewritten and row.name in INHERITED_NAMES for row in result.rows)
    )
    assert (result.error is not None) == clash
    assert (result.names is None) == clash


@given(clashing_records)
def test_a_collision_names_the_rewrite_of_its_key_and_a_real_holder(record):
    error = normalise(record).error
    if isinstance(error, Collision):
        assert error.name == rewrite(error.key) != error.key
        if error.holder is None:
            assert error.name in INHERITED_NAMES
        else:
            assert error.holder in record and error.holder != error.key
            assert error.holder == error.name or rewrite(error.holder) == error.name
    elif isinstance(error, Crash):
        assert error.key == ""


@given(records(legal_keys, min_size=0, max_size=6))
def test_the_empty_key_crashes_a_record_of_legal_keys(record):
    assert normalise(record + [""]).error.kind == "crash"


@given(records(min_size=1))
def test_a_repeated_key_is_refused(record):
    try:
        normalise(record + [record[0]])
    except ValueError:
        return
    raise AssertionError("a repeated key must raise ValueError")


@given(st.lists(st.one_of(integer_like_keys, legal_keys), unique=True, max_size=10))
def test_enumeration_lists_indices_ascending_then_the_rest_in_insertion_order(record):
    order = enumeration_order(record)
    indices = [key for key in record if is_array_index(key)]
    assert sorted(order) == sorted(record)
    assert order[: len(indices)] == sorted(indices, key=int)
    assert order[len(indices) :] == [key for key in record if not is_array_index(key)]


@given(st.integers(0, 2**32 + 10))
def test_array_indices_stop_at_2_to_the_32_minus_2(number):
    assert is_array_index(str(number)) == (number <= 2**32 - 2)
    assert not is_array_index("0" + str(number))


@given(js_strings())
def test_js_length_counts_utf16_units(text):
    assert js_length(text) == len(utf16_units(text))


def test_the_clashing_strategy_reaches_collisions_prototype_names_and_crashes():
    """Guards the properties above against a strategy that never produces what they check."""
    assert isinstance(find(clashing_records, lambda r: isinstance(normalise(r).error, Collision)), list)
    assert find(clashing_records, lambda r: getattr(normalise(r).error, "holder", "x") is None)
    assert find(clashing_records, lambda r: isinstance(normalise(r).error, Crash)) == [""]
