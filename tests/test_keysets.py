"""The key-set catalogue: deterministic, well-formed records, every family present, each set doing its job."""

from __future__ import annotations

import json
import re
import string
import subprocess
import sys

import pytest

from probe_lib.core.naming import js_length
from probe_lib.core.paths import ROOT
from probe_lib.frameworks.mastra import normaliser as RULE
from probe_lib.frameworks.mastra.normaliser import MAX_NAME_LENGTH, is_array_index, normalise
from probe_lib.inputs import keysets
from probe_lib.inputs.keysets import FAMILIES, SWEEP_LENGTHS, KeySet, by_name, catalogue, random_sets

CATALOGUE = catalogue(RULE)
LEGAL_KEY = re.compile(r"[a-zA-Z_][a-zA-Z0-9_\-]{0,62}")
SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def keys_of(name: str) -> tuple[str, ...]:
    return by_name(name, RULE).keys


def test_the_catalogue_is_the_same_on_every_call_for_a_seed():
    assert catalogue(RULE, 0) == CATALOGUE
    assert catalogue(RULE, 7) == catalogue(RULE, 7)


def test_the_seed_changes_only_the_random_sets():
    fixed = [keyset for keyset in CATALOGUE if keyset.family != "random"]
    other = catalogue(RULE, 1)
    assert [keyset for keyset in other if keyset.family != "random"] == fixed
    for mine, theirs in zip(random_sets(RULE, 0), random_sets(RULE, 1)):
        assert mine.name == theirs.name and mine.keys != theirs.keys


def test_random_sets_do_not_depend_on_the_interpreters_hash_seed():
    script = (
        "import json; from probe_lib.inputs.keysets import random_sets as r; "
        "from probe_lib.frameworks.mastra import normaliser; print(json.dumps([k.keys for k in r(normaliser, 3)]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, check=True, cwd=ROOT, env={"PYTHONHASHSEED": seed}
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == [list(keyset.keys) for keyset in random_sets(RULE, 3)]


def test_names_are_unique_and_start_with_a_known_family():
    names = [keyset.name for keyset in CATALOGUE]
    assert len(set(names)) == len(names)
    assert {keyset.family for keyset in CATALOGUE} == set(FAMILIES)


@pytest.mark.parametrize("keyset", CATALOGUE, ids=lambda keyset: keyset.name)
def test_each_set_is_a_record_of_distinct_keys_with_a_one_line_description(keyset):
    assert keyset.keys and len(set(keyset.keys)) == len(keyset.keys)
    assert keyset.description and "\n" not in keyset.description
    assert not any(SURROGATE_PAIR.search(key) for key in keyset.keys), "a surrogate pair is one astral char in JS"


@pytest.mark.parametrize("keyset", CATALOGUE, ids=lambda keyset: keyset.name)
def test_a_set_raises_exactly_when_its_name_says_so(keyset):
    assert (normalise(keyset.keys).error is not None) == keyset.expects_error


def test_a_key_set_refuses_repeated_keys_and_unknown_families():
    with pytest.raises(ValueError, match="repeats"):
        KeySet("article-x", "d", ("a", "a"))
    with pytest.raises(ValueError, match="family"):
        KeySet("nonsense-x", "d", ("a",))


def test_by_name_finds_a_set_and_lists_the_names_when_it_cannot():
    assert by_name("article-capture", RULE) == CATALOGUE[0]
    with pytest.raises(KeyError, match="article-capture"):
        by_name("no-such-set", RULE)


# -- the article ------------------------------------------------------------------------------------------------


def test_the_article_rewrites_put_the_one_legal_key_third():
    keys = keys_of("article-rewrites")
    assert keys[2] == "weather-EU" and keys[0] == "search.web"
    assert [key for key in keys if LEGAL_KEY.fullmatch(key)] == ["weather-EU"]
    assert any(key[0].isdigit() and len(key) == MAX_NAME_LENGTH for key in keys)
    assert any(key[0].isdigit() and len(key) < MAX_NAME_LENGTH for key in keys)


def test_the_article_collisions_and_builtins_are_its_own_keys():
    assert keys_of("article-collision-dot-space") == ("search.web", "search web")
    assert keys_of("article-builtins-by-export") == ("askUserTool", "submitPlanTool", "taskWriteTool", "webFetchTool")
    assert keys_of("article-builtins-by-id") == ("ask_user", "submit_plan", "task_write", "web_fetch")
    first, second = keys_of("article-collision-long")
    assert len(first) > MAX_NAME_LENGTH and len(second) > MAX_NAME_LENGTH
    assert first[:MAX_NAME_LENGTH] == second[:MAX_NAME_LENGTH] and first != second
    assert [len(key) for key in keys_of("article-legal-64")] == [64]


# -- characters -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "characters", "position"),
    [("ascii-punctuation-inside", string.punctuation, 1), ("ascii-punctuation-leading", string.punctuation, 0)],
)
def test_one_key_per_ascii_punctuation_character(name, characters, position):
    assert [key[position] for key in keys_of(name)] == list(characters)


def test_every_ascii_whitespace_character_appears_inside_and_first():
    keys = keys_of("ascii-whitespace")
    assert sorted(key[1] for key in keys if key[0] == "a") == sorted(string.whitespace)
    assert sorted(key[0] for key in keys if key[0] != "a") == sorted(string.whitespace)


def test_the_unicode_sets_hold_each_named_trap():
    text = "".join(keys_of("unicode-letters"))
    for char in ("é", "ß", "\u212a", "\u0131"):
        assert char in text
    assert re.search("[\u0400-\u04ff]", text) and re.search("[\u4e00-\u9fff]", text)
    assert any("\u0301" in key for key in keys_of("unicode-combining"))
    astral = "".join(keys_of("unicode-astral"))
    assert "\u200d" in astral and re.search("[\U0001f1e6-\U0001f1ff]{2}", astral)
    assert sum(js_length(key) - len(key) for key in keys_of("unicode-astral")) >= 8
    assert all(re.search("[\ud800-\udfff]", key) for key in keys_of("unicode-lone-surrogates"))


# -- lengths, MCP, integers, collisions, random -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["length-sweep", "length-sweep-leading-digit", "length-sweep-astral-tail"])
def test_the_sweeps_have_exactly_61_to_66_utf16_units(name):
    assert [js_length(key) for key in keys_of(name)] == list(SWEEP_LENGTHS) == [61, 62, 63, 64, 65, 66]


def test_the_sweep_variants_differ_in_the_way_their_names_say():
    assert all(LEGAL_KEY.fullmatch(key[:MAX_NAME_LENGTH]) for key in keys_of("length-sweep"))
    assert all(key[0].isdigit() for key in keys_of("length-sweep-leading-digit"))
    assert all(key.endswith("\U0001f600") for key in keys_of("length-sweep-astral-tail"))


@pytest.mark.parametrize(
    ("name", "separator"),
    [("mcp-dot", "."), ("mcp-colon", ":"), ("mcp-slash", "/"), ("mcp-mastra", "_"), ("mcp-double-underscore", "__")],
)
def test_mcp_sets_use_one_separator_each(name, separator):
    assert keys_of(name)[0] == f"server{separator}tool"
    assert all(separator in key for key in keys_of(name))


def test_the_integer_like_keys_are_the_listed_ones_with_both_kinds():
    keys = keys_of("integer-like")
    assert set(keys) == {"0", "42", "4294967294", "4294967295", "007", "-1", "1.5"}
    assert [key for key in keys if is_array_index(key)] == ["42", "0", "4294967294"]  # not in numeric order


def test_the_collision_family_covers_each_kind_of_clash():
    collisions = {keyset.name: keyset.keys for keyset in CATALOGUE if keyset.family == "collision"}
    assert ("..proto..",) in collisions.values() and ("..defineGetter..",) in collisions.values()
    assert ("a.b", "a_b") in collisions.values()
    assert any(len(keys) == 2 and min(map(len, keys)) > MAX_NAME_LENGTH for keys in collisions.values())
    assert keys_of("crash-empty-key")[-1] == ""


def test_random_sets_mix_alphabets_and_lengths():
    mixed, ascii_only, long = (by_name(name, RULE).keys for name in ("random-mixed", "random-ascii", "random-long"))
    assert all(len(keys) == 12 for keys in (mixed, ascii_only, long))
    assert any(not key.isascii() for key in mixed) and any(js_length(key) > len(key) for key in mixed)
    assert all(key.isascii() for key in ascii_only)
    assert all(js_length(key) >= 58 for key in long)
    assert len({js_length(key) for key in mixed}) > 6


def test_every_family_has_a_generator_in_the_catalogue():
    generators = [keysets.article_sets, keysets.ascii_sets, keysets.unicode_sets, keysets.length_sets,
                  keysets.mcp_sets, keysets.integer_sets, keysets.prototype_sets, keysets.collision_sets,
                  keysets.crash_sets]  # fmt: skip
    fixed = [keyset for generator in generators for keyset in generator()]
    assert fixed + random_sets(RULE, 0) == CATALOGUE
