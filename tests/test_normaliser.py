"""Each formatTools rule on hand-picked keys, with expectations worked out by hand from the stated rules.

Rules: every UTF-16 unit outside a-zA-Z0-9_- becomes ``_``; a ``_`` goes in front when the first character (after
substitution) is not a letter or ``_``; the result is cut to 63 units; rewritten keys move to the end, in
JavaScript's enumeration order (array indices first, ascending); two keys on one name, or a name that
``Object.prototype`` carries, raise a collision; the empty key crashes; a kept ``__proto__`` never reaches the wire.
"""

from __future__ import annotations

import pytest

from probe_lib.core.naming import js_length
from probe_lib.frameworks.mastra.normaliser import (
    EMPTY_KEY_CRASH,
    Collision,
    Crash,
    enumeration_order,
    is_array_index,
    normalise,
    rewrite,
)


def only_row(key: str):
    (row,) = normalise([key]).rows
    return row


# -- substitution -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("search.web", "search_web"),
        ("search web", "search_web"),
        ("github:list issues", "github_list_issues"),
        ("a/b\\c", "a_b_c"),
        ("a\tb\nc", "a_b_c"),
        ("a..b", "a__b"),
        ("é", "_"),
        ("café", "caf_"),
        ("straße", "stra_e"),
        ("поиск", "_____"),
        ("検索", "__"),
        ("\u212aelvin", "_elvin"),  # Kelvin sign: no case folding, it is not ASCII K
        ("\u0131ndex", "_ndex"),  # dotless i
        ("cafe\u0301", "cafe_"),  # the combining mark is its own unit
        ("\U0001f600", "__"),  # one emoji, two UTF-16 units
        ("a\U0001f600b", "a__b"),
        ("\U0001f1eb\U0001f1f7", "____"),  # a flag is two astral regional indicators
        ("a\U0001f468\u200d\U0001f469b", "a_____b"),  # emoji, ZWJ, emoji
        ("\ud800", "_"),  # a lone surrogate is one unit
        ("a\udfffb", "a_b"),
    ],
)
def test_each_illegal_unit_becomes_one_underscore(key, name):
    assert rewrite(key) == name
    row = only_row(key)
    assert (row.name, row.substituted, row.prefixed, row.truncated, row.lost) == (name, True, False, False, "")


@pytest.mark.parametrize("key", ["weatherTool", "weather-tool", "weather-EU", "_private", "a", "A-1_b", "x" * 63])
def test_legal_keys_are_sent_as_registered(key):
    row = only_row(key)
    assert (row.name, row.rewritten, row.substituted, row.prefixed, row.truncated) == (key, False, False, False, False)


# -- prefix -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "name", "substituted"),
    [
        ("1abc", "_1abc", False),
        ("2fa-check", "_2fa-check", False),
        ("9", "_9", False),
        ("-x", "_-x", False),
        ("1.5", "_1_5", True),
        ("-1", "_-1", False),
    ],
)
def test_a_first_character_that_is_not_a_letter_or_underscore_gets_a_prefix(key, name, substituted):
    row = only_row(key)
    assert (row.name, row.prefixed, row.substituted) == (name, True, substituted)


@pytest.mark.parametrize(
    ("key", "name"),
    [(".x", "_x"), (" tool", "_tool"), ("\U0001f600x", "__x"), ("٣d", "_d")],  # ٣: an Arabic-Indic digit, not ASCII
)
def test_a_substituted_first_character_is_already_an_underscore_so_no_prefix(key, name):
    row = only_row(key)
    assert (row.name, row.substituted, row.prefixed) == (name, True, False)


# -- truncation -------------------------------------------------------------------------------------------------


def test_64_legal_characters_are_cut_to_63():
    row = only_row("x" * 64)
    assert (row.name, row.truncated, row.lost, row.substituted, row.prefixed) == ("x" * 63, True, "x", False, False)


def test_63_legal_characters_are_kept():
    assert rewrite("x" * 63) == "x" * 63


def test_a_63_character_key_starting_with_a_digit_loses_its_last_character_to_the_prefix():
    key = "1" + "a" * 61 + "z"
    row = only_row(key)
    assert (row.name, row.prefixed, row.truncated, row.lost) == ("_1" + "a" * 61, True, True, "z")


def test_a_62_character_key_starting_with_a_digit_fits_with_its_prefix():
    row = only_row("1" + "a" * 61)
    assert (row.name, row.truncated) == ("_1" + "a" * 61, False)


def test_the_cut_counts_utf16_units_and_can_split_an_emoji():
    row = only_row("a" * 62 + "\U0001f600")
    assert (row.name, row.truncated, row.lost) == ("a" * 62 + "_", True, "_")


def test_32_emoji_are_64_units_and_are_cut_to_63_underscores():
    row = only_row("\U0001f600" * 32)
    assert (row.name, row.truncated, row.lost) == ("_" * 63, True, "_")


def test_the_cut_comes_after_substitution_and_prefix():
    key = "1." + "b" * 70
    assert rewrite(key) == "_1_" + "b" * 60
    assert only_row(key).lost == "b" * 10


# -- order ------------------------------------------------------------------------------------------------------


def test_array_indices_are_enumerated_first_and_rewritten_keys_move_to_the_end():
    assert normalise(["b.x", "42", "a", "7"]).names == ["a", "_7", "_42", "b_x"]


def test_a_legal_key_registered_third_comes_back_first():
    result = normalise(["search.web", "2fa", "weather-EU"])
    assert result.names == ["weather-EU", "search_web", "_2fa"]
    assert [row.position_after for row in result.rows] == [1, 2, 0]
    assert [row.position_before for row in result.rows] == [0, 1, 2]


def test_legal_keys_keep_their_relative_order():
    assert normalise(["z", "a.b", "m", "c d", "b"]).names == ["z", "m", "b", "a_b", "c_d"]


def test_integer_like_keys_that_are_not_indices_stay_in_insertion_order():
    result = normalise(["4294967295", "007", "42", "-1", "0", "1.5", "4294967294"])
    assert result.names == ["_0", "_42", "_4294967294", "_4294967295", "_007", "_-1", "_1_5"]


@pytest.mark.parametrize(
    ("key", "index"),
    [
        ("0", True),
        ("42", True),
        ("4294967294", True),
        ("4294967295", False),
        ("007", False),
        ("00", False),
        ("-1", False),
        ("1.5", False),
        ("1e3", False),
        (" 1", False),
        ("٣", False),
        ("", False),
    ],
)
def test_array_index_is_a_canonical_integer_up_to_2_to_the_32_minus_2(key, index):
    assert is_array_index(key) is index


def test_enumeration_order_puts_indices_first_in_numeric_order():
    assert enumeration_order(["b", "10", "2", "a", "007", "0"]) == ["0", "2", "10", "b", "a", "007"]


@pytest.mark.parametrize(
    ("text", "length"),
    [("abc", 3), ("é", 1), ("\U0001f600", 2), ("\ud800", 1), ("\U0001f468\u200d\U0001f469\u200d\U0001f467", 8)],
)
def test_js_length_counts_utf16_units(text, length):
    assert js_length(text) == length


# -- errors -----------------------------------------------------------------------------------------------------


def test_dot_and_space_collide_on_one_name():
    result = normalise(["search.web", "search web"])
    assert result.error == Collision("search_web", "search web", "search.web")
    assert result.names is None
    assert result.to_json() == {"error": {"kind": "collision", "name": "search_web"}}


def test_two_long_keys_sharing_63_characters_collide():
    shared = "m" * 63
    assert normalise([shared + "1", shared + "22"]).error == Collision(shared, shared + "22", shared + "1")


def test_a_key_collides_with_the_legal_key_it_rewrites_onto():
    assert normalise(["a.b", "a_b"]).error == Collision("a_b", "a.b", "a_b")


def test_an_array_index_is_rewritten_first_so_it_is_the_one_that_collides():
    assert normalise(["_42", "42"]).error == Collision("_42", "42", "_42")


@pytest.mark.parametrize(
    ("key", "name"),
    [("..proto..", "__proto__"), ("..defineGetter..", "__defineGetter__"), ("  lookupSetter  ", "__lookupSetter__")],
)
def test_a_lone_key_rewriting_onto_an_object_prototype_name_collides_with_nothing(key, name):
    assert normalise([key]).error == Collision(name, key, None)


def test_the_empty_key_crashes():
    result = normalise([""])
    assert result.error == Crash(EMPTY_KEY_CRASH, "")
    assert result.to_json() == {"error": {"kind": "crash", "message": EMPTY_KEY_CRASH}}


def test_the_first_error_in_enumeration_order_wins():
    assert isinstance(normalise(["a.b", "a b", ""]).error, Collision)
    assert isinstance(normalise(["", "a.b", "a b"]).error, Crash)


def test_rows_after_an_error_still_describe_each_keys_rewrite():
    rows = normalise(["a.b", "a b", "1x"]).rows
    assert [(row.name, row.position_after) for row in rows] == [("a_b", None), ("a_b", None), ("_1x", None)]


def test_a_kept_proto_key_never_reaches_the_wire():
    result = normalise(["a", "__proto__", "b.c"])
    assert result.error is None
    assert result.names == ["a", "b_c"]
    assert [row.position_after for row in result.rows] == [0, None, 1]


def test_a_repeated_key_is_refused():
    with pytest.raises(ValueError, match="twice"):
        normalise(["a", "b", "a"])


def test_the_empty_key_has_no_rewrite():
    with pytest.raises(ValueError):
        rewrite("")


def test_a_clean_record_serialises_its_names():
    assert normalise(["x.y", "z"]).to_json() == {"names": ["z", "x_y"]}
