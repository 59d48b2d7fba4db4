"""The ledger's version-range claims (V…): each holds on the measured timeline and gives way to its counterfactual.

The timeline is Mastra's lines of the committed ``data/timeline.csv`` (measured on every served stable
version) with the pinned versions' recordings laid over it. A counterfactual edits one measured behaviour into what
the claim says never happened (the rewrite on a version before its stated arrival, a forced tool that matches …);
the check must then refute the claim and name that version.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from probe_lib.analysis import timeline
from probe_lib.claims import ledger, registry
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import MASTRA, Verdict
from probe_lib.core.behaviour import Behaviour
from probe_lib.core.target import version_key
from probe_lib.frameworks import mastra

#: The version-range claims, each judged once on Mastra's timeline.
RANGE_CLAIMS = registry.ids("timeline", MASTRA)


@pytest.fixture(scope="module")
def laid_over(recorded_catalogue) -> pd.DataFrame:
    """The committed summary, prereleases included, with the pins' recordings laid over it (notebook 13's table)."""
    return timeline.laid_over_summary(recorded_catalogue)


@pytest.fixture(scope="module")
def measured(laid_over) -> Timeline:
    return Timeline.of(laid_over)


def judge(claim_id: str, evidence: Timeline) -> Verdict:
    return ledger.judge(next(c for c in ledger.load_claims() if c.id == claim_id), evidence)


def edited(evidence: Timeline, version: str, scenario: str, **changes) -> Timeline:
    """The timeline with one version's behaviour on one scenario changed (and judged expressible); a prerelease's
    in the prereleases kept apart."""
    prerelease = "-" in version
    table = (evidence.prereleases if prerelease else evidence.table).copy()
    where = table.index[(table["version"] == version) & (table["scenario"] == scenario)]
    assert len(where) == 1, f"the timeline has no single row for {version} {scenario}"
    behaviour = Behaviour.from_json({**table.at[where[0], "behaviour"].to_json(), **changes})
    table.at[where[0], "behaviour"] = behaviour
    table.at[where[0], "error_kind"] = ""
    if prerelease:
        return replace(evidence, prereleases=table)
    return replace(evidence, table=table)


def forced(name: str) -> dict:
    return {"type": "function", "function": {"name": name}}


COUNTERFACTUALS = {
    "V01 rewrite before 0.13.2": ("V01", "0.13.1", "single-rewrite", {"names": ["search_web"]}, "already on 0.13.1"),
    "V01 verbatim again later": ("V01", "1.71.0", "single-rewrite", {"names": ["search.web"]}, "not on 1.71.0"),
    "V01 altered but not rewritten before 0.13.2": (
        "V01",
        "0.12.0",
        "single-rewrite",
        {"names": ["search-web"]},
        "not sent verbatim on 0.12.0",
    ),
    "V02 passthrough fixed": ("V02", "1.71.0", "choice-by-key", {"tool_choice": forced("search_web")}, "1.71.0"),
    "V02 nothing forced": ("V02", "1.20.0", "choice-by-key", {"tool_choice": "auto"}, "forces None"),
    "V02 the key sent too": (
        "V02",
        "1.20.0",
        "choice-by-key",
        {"names": ["search_web", "search.web"]},
        "search.web is among the tools sent",
    ),
    "V03 honoured on 1.0.4": ("V03", "1.0.4", "active-tools-by-key", {"names": ["search_web"]}, "1.0.4"),
    "V03 the key selecting its tool": (
        "V03",
        "1.20.0",
        "active-tools-by-key",
        {"names": ["search_web"]},
        "where honoured, active-tools-by-key did not send [] on 1.20.0",
    ),
    "V03 the wire name selecting nothing": (
        "V03",
        "0.21.0",
        "active-tools-by-wire-name",
        {"names": []},
        "where honoured, active-tools-by-wire-name did not send ['search_web'] on 0.21.0",
    ),
    "V03 the wire name filtering where activeTools is ignored": (
        "V03",
        "1.0.4",
        "active-tools-by-wire-name",
        {"names": ["search_web"]},
        "active-tools-by-wire-name left plain out on 1.0.4",
    ),
    "V04 tools again on 1.20.0": (
        "V04",
        "1.20.0",
        "choice-none",
        {"names": ["search_web"], "tool_choice": "none"},
        "1.20.0",
    ),
    "V05 built-ins before 1.42.0": (
        "V05",
        "1.41.0",
        "builtins-by-export",
        {"names": ["askUserTool"]},
        "already on 1.41.0",
    ),
    "V05 five built-ins at first": (
        "V05",
        "1.42.0",
        "builtins-by-export",
        {"names": ["askUserTool", "submitPlanTool", "taskCheckTool", "taskCompleteTool", "taskWriteTool"]},
        "sent 1.42.0 (5)",
    ),
    "V05 a first built-in lost later": (
        "V05",
        "1.60.0",
        "builtins-by-export",
        {
            "names": [
                "askUserTool",
                "submitPlanTool",
                "taskCheckTool",
                "taskCompleteTool",
                "taskWriteTool",
                "webFetchTool",
                "extraTool",
            ]
        },
        "were not all sent on 1.60.0",
    ),
    "V05 built-ins exported but not sent before 1.42.0": (
        "V05",
        "1.30.0",
        "builtins-by-export",
        {"names": [], "requests": 1},
        "1.30.0 could register built-ins",
    ),
    "V05 webFetchTool before 1.54.0": (
        "V05",
        "1.53.0",
        "builtins-by-export",
        {"names": ["webFetchTool"]},
        "already on 1.53.0",
    ),
    "V06 a later beta honours activeTools": (
        "V06",
        "1.0.0-beta.11",
        "active-tools-by-key",
        {"names": ["search_web"]},
        "1.0.0-beta.11",
    ),
    "V06 an early beta ignores activeTools": (
        "V06",
        "1.0.0-beta.5",
        "active-tools-by-key",
        {"names": ["plain", "search_web"]},
        "1.0.0-beta.5",
    ),
    "V06 an early beta sends the key it keeps": (
        "V06",
        "1.0.0-beta.5",
        "active-tools-by-key",
        {"names": ["search_web"]},
        "still sends tools on 1.0.0-beta.5",
    ),
    "V06 beta.20 sends search_web": ("V06", "1.0.0-beta.20", "rewrite-rules", {"names": ["search_web"]}, "beta.21"),
    "V06 1.0.4 drops search_web": ("V06", "1.0.4", "rewrite-rules", {"names": ["plain"]}, "1.0.4"),
    "V06 beta.21 sends the toolset's tool": (
        "V06",
        "1.0.0-beta.21",
        "toolsets",
        {"names": ["plain", "set_tool"]},
        "toolsets sends no set_tool on 1.0.0-beta.20",
    ),
    "V06 beta.20 drops an eighth scenario's tool": (
        "V06",
        "1.0.0-beta.20",
        "single-rewrite",
        {"names": []},
        "1.0.0-beta.20 also leaves ['search_web'] out of single-rewrite's request",
    ),
    "V06 beta.21 sends the workflow's tool": (
        "V06",
        "1.0.0-beta.21",
        "sub-agents-workflows",
        {"names": ["plain", "workflow-etl_job"]},
        "sub-agents-workflows sends no workflow-etl_job on 1.0.0-beta.20",
    ),
    "V06 beta.20 loses another tool too": (
        "V06",
        "1.0.0-beta.20",
        "client-tools",
        {"names": []},
        "leaves ['client_tool', 'plain'] out of client-tools's request, not ['client_tool']",
    ),
    "V06 beta.5 drops the client tool": (
        "V06",
        "1.0.0-beta.5",
        "client-tools",
        {"names": ["plain"]},
        "client-tools sends no client_tool on 1.0.0-beta.5",
    ),
}


@pytest.mark.parametrize("claim_id", sorted(RANGE_CLAIMS))
def test_each_range_claim_is_confirmed_on_the_measured_timeline(claim_id, measured):
    verdict = judge(claim_id, measured)
    assert verdict.status == "confirmed", verdict.evidence
    assert verdict.version == measured.span


@pytest.mark.parametrize("case", sorted(COUNTERFACTUALS))
def test_a_range_claim_is_refuted_by_one_version_behaving_otherwise(case, measured):
    claim_id, version, scenario, changes, reason = COUNTERFACTUALS[case]
    verdict = judge(claim_id, edited(measured, version, scenario, **changes))
    assert (verdict.status, reason in verdict.evidence) == ("refuted", True), verdict.evidence


def test_every_range_claim_has_a_counterfactual():
    assert {case.split()[0] for case in COUNTERFACTUALS} == set(RANGE_CLAIMS)


@pytest.mark.parametrize("beta", ["1.0.0-beta.11", "1.0.0-beta.5"])
def test_v06_counts_the_betas_it_names(beta, measured):
    """V06 says 16 betas, ten of them after beta.9: one beta fewer in the timeline, early or late, refutes it."""
    fewer = measured.prereleases[measured.prereleases["version"] != beta]
    verdict = judge("V06", replace(measured, prereleases=fewer))
    assert verdict.status == "refuted" and "15 betas measured" in verdict.evidence, verdict


def test_v03_names_1_0_4_the_one_stable_1_0_release_swept(measured):
    """V03 says 1.0.4 is the one stable 1.0 release swept: a second one in the timeline, behaving as 1.0.4 does,
    refutes it."""
    second = measured.table[measured.table["version"] == "1.0.4"].assign(version="1.0.5")
    verdict = judge("V03", replace(measured, table=pd.concat([measured.table, second], ignore_index=True)))
    assert verdict.status == "refuted" and "1.0.4 alone" in verdict.evidence and "1.0.5" in verdict.evidence, verdict


def test_a_boundary_the_timeline_did_not_measure_is_not_testable(measured):
    table = measured.table[measured.table["version"] != "0.13.2"]
    verdict = judge("V01", replace(measured, table=table, prereleases=None))
    assert verdict.status == "not testable" and "0.13.2" in verdict.evidence


def test_the_ledger_judges_each_range_claim_once_in_the_timeline_column(measured, recorded_catalogue):
    recorded = recorded_catalogue
    table = ledger.ledger(recorded, {measured.framework: measured})
    ranges = table[table["claim"].isin(RANGE_CLAIMS)]
    assert len(ranges) == len(RANGE_CLAIMS) and set(ranges["version"]) == {measured.span}
    assert list(ledger.status_matrix(table).columns) == [*recorded, measured.span]


def test_a_scenario_measured_only_on_the_pins_has_no_change_points_beside_its_unmeasured_versions(measured):
    """``legal-keys-interleaved`` joined the catalogue after the last sweep: the timeline holds it on the pinned
    versions alone, the chart leaves the other cells empty and marks no change beside them (it behaves alike on
    all three pins), and the change-point table compares only the versions that measured it."""
    from probe_lib.present import timeline as timeline_chart

    scenario = "legal-keys-interleaved"
    lines = measured.table[measured.table["scenario"] == scenario]
    assert tuple(lines["version"]) == tuple(mastra.ADAPTER.versions())
    grid = timeline.categories(measured.table)
    assert grid.loc[scenario].isna().sum() == grid.shape[1] - len(mastra.ADAPTER.versions())
    figure = timeline_chart.timeline(grid, timeline.colours(grid), "t", timeline.change_points(measured.table))
    row = list(grid.index).index(scenario)
    segments = figure.axes[0].collections[-1].get_segments()
    assert not [s for s in segments if s[0][1] == row]
    assert timeline.change_points(measured.table).query("scenario == @scenario").empty


def test_since_when_a_scenario_measured_only_on_the_pins_behaves_alike_stops_at_the_gap(laid_over):
    """The unswept versions between two pins break the run: ``same since`` is the pin itself, not an older one."""
    at = timeline.at_version(laid_over, "1.67.0").set_index("scenario")
    assert at.at["legal-keys-interleaved", "same since"] == "1.67.0"
    assert at.at["legal-keys-interleaved", "measured on"] == f"3 of {len(timeline.versions(laid_over))} versions"
    # A scenario swept on every version: since its last change point at or before 1.67.0 among the versions that
    # ran (1.67.0-alpha.4 could not be installed: a gap, not the start of a run).
    ran = laid_over[laid_over["error_kind"] != timeline.COULD_NOT_RUN]
    changes = timeline.change_points(ran).query("scenario == 'single-rewrite'")
    last = [after for after in changes["after"] if version_key(after) <= version_key("1.67.0")][-1]
    assert at.at["single-rewrite", "same since"] == last
    lines = laid_over.set_index(["scenario", "version"])
    assert lines.at[("single-rewrite", "1.67.0-alpha.4"), "error_kind"] == timeline.COULD_NOT_RUN
    assert version_key(last) < version_key("1.67.0-alpha.4"), "the gap would not have shown"
    assert (
        at.at["single-rewrite", "measured on"]
        == f"{len(ran['version'].unique())} of {len(timeline.versions(laid_over))} versions"
    )


def test_v05_reads_why_each_version_before_1_42_0_cannot_register_the_built_ins(measured):
    """V05 says each stable version before 1.42.0 that ran exports none, or no Agent class: one unable for another
    reason refutes it."""
    table = measured.table.copy()
    (at,) = table.index[(table["version"] == "1.30.0") & (table["scenario"] == "builtins-by-export")]
    behaviour = table.at[at, "behaviour"].to_json()
    behaviour["error"] = {**behaviour["error"], "message": "@mastra/core <version> cannot load its tools module"}
    table.at[at, "behaviour"] = Behaviour.from_json(behaviour)
    verdict = judge("V05", replace(measured, table=table))
    assert verdict.status == "refuted" and "1.30.0 could not register built-ins for another reason" in verdict.evidence
    assert "107 versions (0.2.0 to 1.41.0) export no built-in tools" in judge("V05", measured).evidence
