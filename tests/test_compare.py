"""probe_lib.study.compare's comparison against a baseline target, on the recorded captures of every pinned Mastra.

What differs is read here from the recorded request bodies (``outcome.requests``) and error chains, never from the
comparison's own output: 1.0.4 sends the tools under ``toolChoice: 'none'``, ignores ``activeTools`` and throws on
a call by an unknown name; 1.67.0 is the baseline; 1.71.0 behaves as it does.
"""

from __future__ import annotations

import pytest

from probe_lib.adapters import mastra
from probe_lib.present import charts
from probe_lib.study import compare, evidence, sources, tidy

EV = evidence.gather("1.67.0", sources.RECORDED)
OUTCOMES = [outcome for measured in EV.by_version.values() for outcome in measured.values()]
FRAME = tidy.frame(OUTCOMES, ["recorded"] * len(OUTCOMES))
BASELINE = "mastra@1.67.0"
VERSUS = compare.against(FRAME, BASELINE).set_index(["scenario", "target"])["versus"]


def names_sent(body: dict) -> list[str]:
    """Tool names of a request body read by hand: Chat Completions nests them under ``function``, the others not."""
    return [tool["function"]["name"] if "function" in tool else tool["name"] for tool in body.get("tools") or []]


def sent_the_same(version: str, scenario: str) -> bool:
    """The turn sent the same bodies' tools and tool_choice, as many requests, and raised the same, as on 1.67.0."""
    mine, base = EV.by_version[version][scenario], EV.by_version["1.67.0"][scenario]
    bodies = [(names_sent(b), b.get("tool_choice")) for b in mine.requests[:1]]
    return (
        bodies == [(names_sent(b), b.get("tool_choice")) for b in base.requests[:1]]
        and len(mine.requests) == len(base.requests)
        and [link["message"] for link in mine.error] == [link["message"] for link in base.error]
    )


@pytest.mark.parametrize("version", mastra.ADAPTER.versions())
def test_a_turn_differs_from_the_baseline_exactly_when_its_bodies_or_errors_do(version):
    for scenario, outcome in EV.by_version[version].items():
        versus = VERSUS[scenario, f"mastra@{version}"]
        if version == "1.67.0":
            assert versus == "baseline"
        elif outcome.not_applicable:
            assert versus == "feature missing", scenario
        else:
            assert (versus == "same as baseline") == sent_the_same(version, scenario), (scenario, versus)


def test_the_differences_on_1_0_4_are_the_ones_the_bodies_show():
    differs = {scenario for (scenario, target), versus in VERSUS.items() if versus == "differs"}
    assert differs == {
        "choice-none",
        "active-tools-by-key",
        "active-tools-by-wire-name",
        "call-by-key",
        "remedy-active-tools",
    }
    old, base = EV.by_version["1.0.4"]["choice-none"].requests[0], EV.by_version["1.67.0"]["choice-none"].requests[0]
    assert (names_sent(old), old["tool_choice"], names_sent(base)) == (["search_web"], "none", [])
    changed = compare.differences(FRAME, BASELINE, "mastra@1.0.4").set_index(["scenario", "key", "what"])
    assert changed.loc[("choice-none", "search.web", "wire_name"), "mastra@1.0.4"] == "search_web"
    calls = len(EV.by_version["1.0.4"]["call-by-key"].requests), len(EV.by_version["1.67.0"]["call-by-key"].requests)
    assert changed.loc[("call-by-key", "search.web", "requests")].tolist() == [str(calls[1]), str(calls[0])]


def test_versus_grid_is_coloured_by_the_comparison_and_labelled_with_what_was_sent():
    categories, labels = compare.versus_grid(FRAME, BASELINE)
    assert categories.columns.tolist() == [f"mastra@{v}" for v in EV.by_version]
    assert set(categories.stack()) <= set(charts.VERSUS_COLOURS)
    assert categories.loc["choice-none", "mastra@1.0.4"] == VERSUS["choice-none", "mastra@1.0.4"] == "differs"
    body = EV.by_version["1.67.0"]["choice-by-key"].requests[0]
    assert (
        labels.loc["choice-by-key", BASELINE] == f"{names_sent(body)[0]} -> {body['tool_choice']['function']['name']}"
    )
    assert labels.loc["collision-dot-space", BASELINE] == "error: collision"
    assert labels.loc["choice-none", BASELINE] == "no tools"
