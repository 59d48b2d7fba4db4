"""probe_lib.analysis.measured on the recorded captures: every table must say what the captured request bodies say.

Expected values are read here straight from the recorded bodies (``outcome.requests[n]``), the recorded error
chains and executions, never from the helpers' own output. 1.0.4 is the version without built-in tools and whose
``activeTools`` is ignored; 1.67.0 is the article's; 1.71.0 the newest.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from probe_lib.analysis import measured
from probe_lib.frameworks import mastra
from probe_lib.present import charts
from probe_lib.tables.evidence import Evidence

VERSIONS = mastra.ADAPTER.versions()


@pytest.fixture(scope="module")
def recorded_evidence(recorded_catalogue):
    return {version: Evidence(version, recorded_catalogue[version], recorded_catalogue) for version in VERSIONS}


CHOICES = [
    "choice-auto",
    "choice-required",
    "choice-none",
    "choice-by-key",
    "choice-by-id",
    "choice-by-wire-name",
    "choice-legal-key",
    "choice-by-key-stream",
    "active-tools-by-key",
    "active-tools-by-wire-name",
]
ROUND_TRIPS = ["call-by-wire-name", "call-by-wire-name-stream", "call-by-id", "call-by-key"]
ERRORS = ["collision-dot-space", "collision-long", "collision-proto", "empty-key", "proto-key", "single-rewrite"]
REMEDY_PAIRS = [
    "collision-dot-space",
    "choice-by-key",
    "remedy-choice-by-key",
    "active-tools-by-key",
    "remedy-active-tools",
]

by_version = pytest.mark.parametrize("version", VERSIONS)


# -- reading the recorded bodies directly ----------------------------------------------------------------------


def names_sent(body: dict) -> list[str]:
    """Function names in a request body's ``tools`` (Chat Completions shape, as Mastra sends it)."""
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def forced_in(body: dict) -> str | None:
    choice = body.get("tool_choice")
    return choice["function"]["name"] if isinstance(choice, dict) else None


def first(ev: Evidence, name: str) -> dict:
    return ev[name].requests[0]


def tool_messages(body: dict) -> list[dict]:
    return [message for message in body["messages"] if message.get("role") == "tool"]


def values(column: pd.Series) -> list:
    """A column's values with missing ones as ``None`` (pandas stores a missing string as NaN)."""
    return [None if not isinstance(value, (list, tuple)) and pd.isna(value) else value for value in column]


# -- the small readings -------------------------------------------------------------------------------------------


def test_letter_run_shows_one_repeated_letter_as_letter_and_count():
    assert measured.letter_run("a" * 64) == "a × 64"
    assert measured.letter_run("search_web") == "search_web"
    assert measured.letter_run("") == ""


def test_letter_run_shows_the_shape_of_a_long_key_so_a_lost_character_shows():
    key = "1" + "a" * 62  # the rewrite-rules scenario's key: the _ prefix pushes it to 64, the cut takes one a
    name = "_1" + "a" * 61
    assert (measured.letter_run(key), measured.letter_run(name)) == ("1 + a × 62", "_1 + a × 61")
    assert measured.letter_run("t" * 63 + "_one") == "t × 63 + _one"
    assert measured.letter_run("aaaaaaa") == "aaaaaaa", "a run shorter than 8 reads better as it is"


# -- 01 ---------------------------------------------------------------------------------------------------------


@by_version
def test_offered_grid_marks_a_key_or_id_offered_exactly_when_the_request_lists_it(version, recorded_evidence):
    ev = recorded_evidence[version]
    short = {
        "docs-legal-keys": "docs",
        "key-not-id": "probe",
        "builtins-by-export": "by export",
        "builtins-by-id": "by id",
    }
    scenarios = [name for name in short if ev[name].registered_keys]
    assert ("builtins-by-id" in scenarios) == (version != "1.0.4")
    grid, labels = charts.offered_grid(ev, scenarios, short)
    expected_rows = [f"{short[name]}: {key}" for name in scenarios for key in ev[name].registered_keys]
    assert grid.index.tolist() == labels.index.tolist() == expected_rows
    for name in scenarios:  # each tool against the name sent in its place (none of these keys is rewritten)
        for key, tool_id, sent in zip(ev[name].registered_keys, ev[name].ids_before, names_sent(first(ev, name))):
            row = f"{short[name]}: {key}"
            assert labels.loc[row, "name on the wire"] == sent
            assert grid.loc[row, "registered key"] == ("offered to the model" if key == sent else "not offered")
            assert grid.loc[row, "tool id"] == ("offered to the model" if tool_id == sent else "not offered")
    assert grid.loc["probe: search.web"].tolist() == ["not offered", "not offered", "sent"]
    assert set(grid.stack()) <= set(charts.OFFERED_COLOURS)


# -- 02-04 ------------------------------------------------------------------------------------------------------


@by_version
@pytest.mark.parametrize("scenario", ["rewrite-rules", "integer-keys", "proto-key"])
def test_wire_order_is_the_registration_order_beside_the_first_requests_order(version, scenario, recorded_evidence):
    outcome = recorded_evidence[version][scenario]
    table = measured.wire_order(outcome, record_order=True)
    assert table["registered (in order)"].tolist() == [spec.key for spec in outcome.scenario.tools]
    assert table["Object.keys() of the record"].tolist() == list(outcome.keys_after)
    assert table["on the wire (in order)"].dropna().tolist() == names_sent(outcome.requests[0])


@by_version
def test_wire_order_labels_runs_of_one_letter(version, recorded_evidence):
    outcome = recorded_evidence[version]["length-64"]
    table = measured.wire_order(outcome, label=measured.letter_run)
    assert table["on the wire (in order)"].tolist() == [f"{n[0]} × {len(n)}" for n in names_sent(outcome.requests[0])]
    assert table["registered (in order)"].tolist() == ["a × 64", "c × 63"]


# -- 05 ---------------------------------------------------------------------------------------------------------


@by_version
def test_error_chains_have_one_row_per_recorded_link(version, recorded_evidence):
    outcome = recorded_evidence[version]["collision-dot-space"]
    assert not outcome.requests  # refused before any request
    chain = measured.error_chains(recorded_evidence[version], ["collision-dot-space"])
    assert chain["link"].tolist() == list(range(len(outcome.error)))
    assert values(chain["id"]) == [link["id"] for link in outcome.error]
    assert values(chain["code"]) == [link["code"] for link in outcome.error]
    assert chain["code"].iloc[-1] == "AGENT_TOOL_NAME_COLLISION", "the caller's cause keeps the collision's id as code"
    assert chain["name"].tolist() == [link["name"] for link in outcome.error]
    assert chain["message"].tolist() == [link["message"] for link in outcome.error]
    assert values(chain["details.toolName"]) == [(link["details"] or {}).get("toolName") for link in outcome.error]
    assert chain["id"].iloc[0] == "AGENT_GENERATE_FAILED" and chain["details.toolName"].iloc[-1] == "search_web"


@by_version
def test_error_chains_and_their_grid_cover_every_link_of_every_scenario(version, recorded_evidence):
    ev = recorded_evidence[version]
    chains = measured.error_chains(ev, ERRORS)
    assert len(chains) == sum(len(ev[name].error) for name in ERRORS)
    grid, labels = charts.error_grid(ev, ERRORS)
    assert grid.index.tolist() == ERRORS
    assert grid.columns.tolist() == ["error generate() rejects with", "its cause"]
    for name in ERRORS:
        for position, link in enumerate(ev[name].error):
            coded = link["code"] and f"{link['code']} (as code)"
            assert grid.iloc[ERRORS.index(name), position] == (link["id"] or coded or "no id")
            assert link["message"] in labels.iloc[ERRORS.index(name), position]
    assert labels.loc["proto-key", "its cause"] is None or pd.isna(labels.loc["proto-key", "its cause"])


# -- 06 ---------------------------------------------------------------------------------------------------------


@by_version
def test_choice_table_reads_tools_and_tool_choice_from_each_first_request(version, recorded_evidence):
    ev = recorded_evidence[version]
    table = measured.choice_table(ev, CHOICES)
    for name in CHOICES:
        body = first(ev, name)
        forced = forced_in(body)
        assert table.loc[name, "tools sent"] == names_sent(body), name
        sent_choice = f"function {forced}" if forced else json.dumps(body.get("tool_choice"))
        assert table.loc[name, "tool_choice sent"] == sent_choice
        assert table.loc[name, "forced tool is in tools"] == (None if forced is None else forced in names_sent(body))
        assert table.loc[name, "method"] == ev[name].scenario.method
    assert table.loc["choice-by-key", "option given"] == "toolChoice 'search.web'"
    assert table.loc["active-tools-by-key", "option given"] == "activeTools ['search.web']"


def test_choice_table_on_1_0_4_shows_active_tools_ignored(recorded_evidence):
    ev = recorded_evidence["1.0.4"]
    table = measured.choice_table(ev, ["active-tools-by-key", "active-tools-by-wire-name"])
    for name in table.index:  # both selections sent every registered tool
        assert sorted(names_sent(first(ev, name))) == ["plain", "search_web"]
        assert sorted(table.loc[name, "tools sent"]) == ["plain", "search_web"]


def test_choice_table_on_1_67_0_shows_active_tools_by_key_sending_no_tools(recorded_evidence):
    ev = recorded_evidence["1.67.0"]
    assert names_sent(first(ev, "active-tools-by-key")) == []
    assert measured.choice_table(ev, ["active-tools-by-key"]).loc["active-tools-by-key", "tools sent"] == []


@by_version
def test_lint_findings_flag_exactly_the_requests_forcing_an_absent_tool(version, recorded_evidence):
    ev = recorded_evidence[version]
    findings = measured.lint_findings(ev, CHOICES, provider="openai")
    forcing = {name: forced_in(first(ev, name)) for name in CHOICES}
    expected = {
        name for name, forced in forcing.items() if forced is not None and forced not in names_sent(first(ev, name))
    }
    assert set(findings.loc[findings["code"] == "choice-not-in-tools", "scenario"]) == expected
    assert expected == {"choice-by-key", "choice-by-id", "choice-by-key-stream"}
    mismatch = findings[(findings["scenario"] == "choice-by-key") & (findings["code"] == "choice-not-in-tools")]
    assert mismatch["suggestion"].tolist() == names_sent(first(ev, "choice-by-key"))  # the rewritten name


@by_version
def test_choice_grid_colours_follow_the_bodies(version, recorded_evidence):
    ev = recorded_evidence[version]
    grid, labels = charts.choice_grid(ev, CHOICES)
    assert grid.index.tolist() == labels.index.tolist() == CHOICES
    for name in CHOICES:
        body = first(ev, name)
        assert grid.loc[name, "tools sent"] == ("tools sent" if names_sent(body) else "no tools sent")
        forced = forced_in(body)
        expected = (
            "no tool forced"
            if forced is None
            else "forced tool offered"
            if forced in names_sent(body)
            else "forced tool not offered"
        )
        assert grid.loc[name, "tool_choice sent"] == expected
        assert (grid.loc[name, "lint"] == "mismatch flagged") == (expected == "forced tool not offered")
        emptied = names_sent(body) == [] and ev[name].scenario.tool_choice != "none"  # 'none' asks for no tools
        assert (grid.loc[name, "lint"] == "no tools to offer") == emptied, "an empty tools list is not clean"
    assert grid.loc["active-tools-by-key", "lint"] == ("clean" if version == "1.0.4" else "no tools to offer")
    assert labels.loc["choice-by-key", "lint"].startswith("choice-not-in-tools")
    assert set(grid.stack()) <= set(charts.CHOICE_COLOURS)


# -- 07 ---------------------------------------------------------------------------------------------------------


@by_version
def test_round_trip_reports_executions_and_the_follow_up_tool_messages(version, recorded_evidence):
    ev = recorded_evidence[version]
    table = measured.round_trip(ev, ROUND_TRIPS)
    for name in ROUND_TRIPS:
        outcome = ev[name]
        replies = tool_messages(outcome.requests[1]) if len(outcome.requests) > 1 else []
        assert table.loc[name, "requests"] == len(outcome.requests)
        assert table.loc[name, "under tool_call_id"] == (", ".join(m["tool_call_id"] for m in replies) or None)
        assert table.loc[name, "execute ran with"] == (
            ", ".join(json.dumps(x["args"]) for x in outcome.executions) or "did not run"
        )
        assert table.loc[name, "toolName reported"] == (", ".join(outcome.tool_names) or "none")
        if replies:
            assert table.loc[name, "model got back"] == " ".join(m["content"] for m in replies)
            echoed = [c["function"]["name"] for m in outcome.requests[1]["messages"] for c in m.get("tool_calls") or []]
            assert len(echoed) == 1  # the model's one call is echoed in the follow-up
    assert table.loc["call-by-wire-name", "execute ran with"] == '{"city": "Paris"}'
    assert table.loc["call-by-key", "execute ran with"] == "did not run"


def test_round_trip_on_1_0_4_call_by_key_throws_without_a_follow_up(recorded_evidence):
    ev = recorded_evidence["1.0.4"]
    outcome = ev["call-by-key"]
    assert len(outcome.requests) == 1 and outcome.error[0]["message"] == "Tool search.web not found"
    table = measured.round_trip(ev, ["call-by-key"])
    assert table.loc["call-by-key", "model got back"] == "(no follow-up) generate() threw: Tool search.web not found"
    assert table.loc["call-by-key", "under tool_call_id"] is None


@by_version
def test_round_trip_grid_categories_follow_executions_and_replies(version, recorded_evidence):
    ev = recorded_evidence[version]
    grid, labels = charts.round_trip_grid(ev, ROUND_TRIPS)
    for name in ROUND_TRIPS:
        outcome = ev[name]
        replies = tool_messages(outcome.requests[1]) if len(outcome.requests) > 1 else []
        assert grid.loc[name, "execute ran with"] == ("tool ran" if outcome.executions else "tool did not run")
        assert grid.loc[name, "model got back"] == (
            "tool result" if outcome.executions else "told the tool was not found" if replies else "turn failed"
        )
        assert all(len(line) <= 30 for line in labels.loc[name, "model got back"].splitlines())
    assert set(grid.stack()) <= set(charts.ROUND_TRIP_COLOURS)


# -- 08 ---------------------------------------------------------------------------------------------------------


# -- 09 ---------------------------------------------------------------------------------------------------------


@by_version
def test_remedy_table_reads_mapping_and_bodies(version, recorded_evidence):
    ev = recorded_evidence[version]
    table = measured.remedy_table(ev, REMEDY_PAIRS)
    assert not ev["collision-dot-space"].requests
    assert table.loc["collision-dot-space", ["tools sent", "tool_choice sent"]].tolist() == ["no request"] * 2
    remedied = first(ev, "remedy-choice-by-key")
    assert table.loc["remedy-choice-by-key", "tools sent"] == names_sent(remedied)
    assert table.loc["remedy-choice-by-key", "tool_choice sent"] == f"function {forced_in(remedied)}"
    assert forced_in(remedied) in names_sent(remedied)
    assert table.loc["remedy-active-tools", "mapping applied"] == ev["remedy-active-tools"].mapping
    assert table.loc["collision-dot-space", "option given"] == "-"


@by_version
def test_remedy_outcomes_follow_the_bodies(version, recorded_evidence):
    ev = recorded_evidence[version]
    outcome = measured.remedy_outcomes(ev, REMEDY_PAIRS)
    assert outcome["collision-dot-space"] == "refused (collision)"
    assert outcome["choice-by-key"] == "forced tool not offered"
    assert outcome["remedy-choice-by-key"] == "consistent"
    selected = ev["remedy-active-tools"].mapping["search.web"]
    sent = names_sent(first(ev, "remedy-active-tools"))
    assert outcome["remedy-active-tools"] == (
        "selects what it names" if sent == [selected] else "does not select what it names"
    )
    assert (outcome["remedy-active-tools"] == "selects what it names") == (version != "1.0.4")  # 1.0.4 ignores it
    by_key = names_sent(first(ev, "active-tools-by-key"))
    expected = "selects no tool at all" if not by_key else "does not select what it names"
    assert outcome["active-tools-by-key"] == expected


@by_version
def test_remedy_grid(version, recorded_evidence):
    ev = recorded_evidence[version]
    grid, labels = charts.remedy_grid(ev, REMEDY_PAIRS)
    assert grid.loc["collision-dot-space", "tools sent"] == "nothing sent"
    assert labels.loc["remedy-choice-by-key", "tools sent"] == "\n".join(names_sent(first(ev, "remedy-choice-by-key")))
    assert set(grid.stack()) <= set(charts.REMEDY_COLOURS)
