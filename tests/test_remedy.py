"""The boundary normaliser: legal, unique, deterministic names; the JavaScript copy gives the same mapping."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import clashing_records, js_strings, long_keys, records, unpair_surrogates

from probe_lib.core import paths
from probe_lib.frameworks.mastra.normaliser import INHERITED_NAMES, MAX_NAME_LENGTH, normalise, rewrite
from probe_lib.frameworks.mastra.remedy import (
    MIN_MAX_LENGTH,
    apply_to_active_tools,
    apply_to_tool_choice,
    fnv1a32,
    rename_tools,
    safe_tool_names,
)
from probe_lib.providers import check_name

REMEDY_JS = paths.HARNESS / "remedy.cjs"

#: Records mixing unicode, long and colliding keys, as the remedy meets them.
key_sets = st.one_of(clashing_records, records(max_size=10), records(st.one_of(long_keys, js_strings()), max_size=6))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(keys=key_sets)
def test_every_safe_name_is_legal_unique_and_left_alone_by_formatTools(keys: list[str]) -> None:
    mapping = safe_tool_names(keys)
    assert list(mapping) == keys
    names = list(mapping.values())
    assert len(set(names)) == len(names)
    for name in names:
        assert check_name(name, "openai") == [], name
        assert check_name(name, "gemini") == [] and check_name(name, "bedrock") == [], name
        assert len(name) <= MAX_NAME_LENGTH and name not in INHERITED_NAMES
        assert rewrite(name) == name
    # Registered under the safe names, Mastra sends every tool, under exactly those names.
    result = normalise(names)
    assert result.error is None and result.names == names


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(keys=key_sets, seed=st.randoms(use_true_random=False))
def test_the_mapping_depends_only_on_the_set_of_keys(keys: list[str], seed: random.Random) -> None:
    shuffled = list(keys)
    seed.shuffle(shuffled)
    assert safe_tool_names(shuffled) == safe_tool_names(keys)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(keys=key_sets)
def test_legal_keys_keep_their_names_and_cut_keys_always_carry_a_hash(keys: list[str]) -> None:
    mapping = safe_tool_names(keys)
    for key, name in mapping.items():
        if key and rewrite(key) == key and key not in INHERITED_NAMES:
            assert name == key
        if len(key) > MAX_NAME_LENGTH:
            assert name[-9] == "_" and all(char in "0123456789abcdef" for char in name[-8:])


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(keys=records(st.one_of(long_keys, js_strings(min_size=1)), max_size=6), limit=st.integers(MIN_MAX_LENGTH, 40))
def test_a_smaller_limit_is_honoured(keys: list[str], limit: int) -> None:
    names = list(safe_tool_names(keys, max_length=limit).values())
    assert all(len(name) <= limit for name in names)
    assert len(set(names)) == len(names)


def test_a_cut_name_does_not_change_when_other_keys_arrive() -> None:
    long_key = "composio_GITHUB_ADD_CUSTOM_LABELS_TO_A_SELF_HOSTED_RUNNER_FOR_AN_ORGANIZATION"
    alone = safe_tool_names([long_key])[long_key]
    crowded = safe_tool_names([long_key, long_key[:63], long_key + "_2", "search.web"])[long_key]
    assert alone == crowded


def test_readable_rewrites_are_kept_unless_another_key_needs_them() -> None:
    assert safe_tool_names(["search.web"]) == {"search.web": "search_web"}
    both = safe_tool_names(["search.web", "search_web"])
    assert both["search_web"] == "search_web"
    assert both["search.web"].startswith("search_web_") and both["search.web"] != "search_web"
    # Neither key is legal: neither keeps the shared name.
    neither = safe_tool_names(["search.web", "search web"])
    assert len(set(neither.values())) == 2 and "search_web" not in neither.values()


def test_prototype_names_are_never_produced() -> None:
    mapping = safe_tool_names(["__proto__", "..proto..", "__defineGetter__"])
    assert not set(mapping.values()) & INHERITED_NAMES


def test_fnv1a32_matches_the_published_test_vectors() -> None:
    # FNV-1a 32 of "" is the offset basis; of the bytes "foobar" it is 0xbf9cf968. The remedy hashes UTF-16LE
    # bytes, so "foobar" is fed as the three code units whose little-endian bytes spell it.
    assert fnv1a32("") == "811c9dc5"
    assert fnv1a32("\u6f66\u626f\u7261") == "bf9cf968"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="appears twice"):
        safe_tool_names(["a", "a"])
    with pytest.raises(ValueError, match="at least"):
        safe_tool_names(["a"], max_length=MIN_MAX_LENGTH - 1)


def test_tool_choice_and_active_tools_follow_the_renamed_keys() -> None:
    tools, mapping = rename_tools({"search.web": "S", "get_weather": "W"})
    assert tools == {"search_web": "S", "get_weather": "W"}
    assert apply_to_tool_choice({"type": "tool", "toolName": "search.web"}, mapping) == {
        "type": "tool",
        "toolName": "search_web",
    }
    assert apply_to_tool_choice("required", mapping) == "required"
    assert apply_to_tool_choice({"type": "tool", "toolName": "search_web"}, mapping)["toolName"] == "search_web"
    assert apply_to_active_tools(["search.web", "get_weather"], mapping) == ["search_web", "get_weather"]
    with pytest.raises(KeyError, match="not one of the renamed keys"):
        apply_to_active_tools(["nope"], mapping)


# ---- the JavaScript copy -------------------------------------------------------------------------------------

#: Reads {"sets": [[key, ...], ...], "limits": [n, ...]} on stdin; prints each mapping as [[key, name], ...].
NODE_SCRIPT = """
const remedy = require(process.argv[1]);
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const mappings = input.sets.map((keys, i) => [...remedy.safeToolNames(keys, input.limits[i])]);
const { tools, mapping } = remedy.renameTools({ 'search.web': 1, ['a'.repeat(70)]: 2 });
const helpers = {
  tools,
  choice: remedy.applyToToolChoice({ type: 'tool', toolName: 'search.web' }, mapping),
  active: remedy.applyToActiveTools(['search.web'], mapping),
  inherited: [...remedy.INHERITED_NAMES].sort(),
};
process.stdout.write(JSON.stringify({ mappings, helpers }));
"""


def curated_sets() -> list[list[str]]:
    """Unicode, long and colliding keys, drawn from a fixed seed so every run sends the same sets."""
    rng = random.Random(20261130)
    alphabet = ["a", "Z", "_", "-", "9", ".", " ", "/", ":", "é", "ß", "中", "😀", "\U0001f680", "\ud800", "\udfff"]
    sets = [
        ["search.web", "search_web", "search web", "searchweb"],
        ["", "_", "__", "__proto__", "..proto..", "__lookupSetter__"],
        ["x" * 63, "x" * 64, "x" * 65, "x" * 64 + "y", "1" + "x" * 70],
        ["😀", "😀😀", "\ud83d", "\ude00", "a\ude00\ud83db", "a😀b"],
        ["4294967294", "0", "007", "-1", "1e3"],
    ]
    for _ in range(300):
        size = rng.randint(1, 8)
        keys = set()
        while len(keys) < size:
            length = rng.choice([1, 3, 8, 40, 62, 63, 64, 80])
            # Unpaired, so each Python string is exactly one JavaScript string (a pair would fuse into one char).
            keys.add(unpair_surrogates("".join(rng.choice(alphabet) for _ in range(length))))
        sets.append(sorted(keys))
    return sets


@pytest.mark.node
def test_javascript_and_python_give_identical_mappings() -> None:
    node = shutil.which("node")
    if node is None:
        message = "Node.js is not installed; the JavaScript remedy cannot be compared"
        if os.environ.get("PROBE_LIB_ALLOW_NO_NODE") == "1":
            pytest.skip(message)
        pytest.fail(message)
    sets = curated_sets()
    limits = [MAX_NAME_LENGTH if number % 3 else 10 + number % 50 for number in range(len(sets))]
    payload = json.dumps({"sets": sets, "limits": limits})  # ensure_ascii: lone surrogates travel as \\uXXXX
    done = subprocess.run(
        [node, "-e", NODE_SCRIPT, str(REMEDY_JS)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    for keys, limit, mapping in zip(sets, limits, output["mappings"], strict=True):
        assert [tuple(pair) for pair in mapping] == list(safe_tool_names(keys, limit).items()), keys

    helpers = output["helpers"]
    tools, mapping = rename_tools({"search.web": 1, "a" * 70: 2})
    assert helpers["tools"] == tools
    assert helpers["choice"] == apply_to_tool_choice({"type": "tool", "toolName": "search.web"}, mapping)
    assert helpers["active"] == apply_to_active_tools(["search.web"], mapping)
    assert helpers["inherited"] == sorted(INHERITED_NAMES)
