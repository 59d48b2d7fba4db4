"""probe_lib.tables.compare's comparison against a baseline target, on the recorded captures of every pinned Mastra.

What differs is read here from the recorded request bodies (``outcome.requests``) and error chains, never from the
comparison's own output: 1.0.4 sends the tools under ``toolChoice: 'none'``, ignores ``activeTools`` and throws on
a call by an unknown name; 1.67.0 is the baseline; 1.71.0 behaves as it does.
"""

from __future__ import annotations

import pytest

from probe_lib.frameworks import mastra
from probe_lib.present import charts
from probe_lib.tables import compare, tidy

BASELINE = "mastra@1.67.0"


@pytest.fixture(scope="module")
def recorded_frame(recorded_catalogue):
    outcomes = [outcome for measured in recorded_catalogue.values() for outcome in measured.values()]
    return tidy.frame(outcomes, ["recorded"] * len(outcomes))


@pytest.fixture(scope="module")
def versus_baseline(recorded_frame):
    return compare.against(recorded_frame, BASELINE).set_index(["scenario", "target"])["versus"]


def names_sent(body: dict) -> list[str]:
    """Tool names of a request body read by hand: Chat Completions nests them under ``function``, the others not."""
    return [tool["function"]["name"] if "function" in tool else tool["name"] for tool in body.get("tools") or []]


def sent_the_same(by_version, version: str, scenario: str) -> bool:
    """The turn sent the same bodies' tools and tool_choice, as many requests, and raised the same, as on 1.67.0."""
    mine, base = by_version[version][scenario], by_version["1.67.0"][scenario]
    bodies = [(names_sent(b), b.get("tool_choice")) for b in mine.requests[:1]]
    return (
        bodies == [(names_sent(b), b.get("tool_choice")) for b in base.requests[:1]]
        and len(mine.requests) == len(base.requests)
        and [link["message"] for link in mine.error] == [link["message"] for link in base.error]
    )


@pytest.mark.parametrize("version", mastra.ADAPTER.versions())
def test_a_turn_differs_from_the_baseline_exactly_when_its_bodies_or_errors_do(
    version, recorded_catalogue, versus_baseline
):
    for scenario, outcome in recorded_catalogue[version].items():
        versus = versus_baseline[scenario, f"mastra@{version}"]
        if version == "1.67.0":
            assert versus == "baseline"
        elif outcome.not_applicable:
            assert versus == "feature missing", scenario
        else:
            same = sent_the_same(recorded_catalogue, version, scenario)
            assert (versus == "same as baseline") == same, (scenario, versus)


def test_the_differences_on_1_0_4_are_the_ones_the_bodies_show(recorded_catalogue, recorded_frame, versus_baseline):
    differs = {scenario for (scenario, target), versus in versus_baseline.items() if versus == "differs"}
    assert differs == {
        "choice-none",
        "active-tools-by-key",
        "active-tools-by-wire-name",
        "call-by-key",
        "remedy-active-tools",
    }
    old = recorded_catalogue["1.0.4"]["choice-none"].requests[0]
    base = recorded_catalogue["1.67.0"]["choice-none"].requests[0]
    assert (names_sent(old), old["tool_choice"], names_sent(base)) == (["search_web"], "none", [])
    changed = compare.differences(recorded_frame, BASELINE, "mastra@1.0.4").set_index(["scenario", "key", "what"])
    assert changed.loc[("choice-none", "search.web", "wire_name"), "mastra@1.0.4"] == "search_web"
    calls = [len(recorded_catalogue[v]["call-by-key"].requests) for v in ("1.0.4", "1.67.0")]
    assert changed.loc[("call-by-key", "search.web", "requests")].tolist() == [str(calls[1]), str(calls[0])]


def test_versus_grid_is_coloured_by_the_comparison_and_labelled_with_what_was_sent(
    recorded_catalogue, recorded_frame, versus_baseline
):
    categories, labels = compare.versus_grid(recorded_frame, BASELINE)
    assert categories.columns.tolist() == [f"mastra@{v}" for v in recorded_catalogue]
    assert set(categories.stack()) <= set(charts.VERSUS_COLOURS)
    assert categories.loc["choice-none", "mastra@1.0.4"] == versus_baseline["choice-none", "mastra@1.0.4"] == "differs"
    body = recorded_catalogue["1.67.0"]["choice-by-key"].requests[0]
    assert (
        labels.loc["choice-by-key", BASELINE] == f"{names_sent(body)[0]} -> {body['tool_choice']['function']['name']}"
    )
    assert labels.loc["collision-dot-space", BASELINE] == "error: collision"
    assert labels.loc["choice-none", BASELINE] == "no tools"
