"""Sweeping and bisecting any framework's releases: sampling on real served lists, bisection from the command line,
a sweep interrupted by Ctrl-C and resumed (two runs at once), and the since-when claims against their counterfactuals.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from processes import as_at_a_terminal

from probe_lib.analysis import timeline
from probe_lib.claims import framework_ranges, ledger, registry, since
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import MASTRA
from probe_lib.core.behaviour import Behaviour
from probe_lib.core.errors import ReleaseUnsupported
from probe_lib.frameworks import base
from probe_lib.frameworks.mastra import catalogue
from probe_lib.history import framework_sweep, release_map, sweep
from probe_lib.history import timeline as committed

#: Releases of AutoGen (PyPI, PEP 440 order) that run under the harness: its pin and the two before it.
AUTOGEN = ("0.7.3", "0.7.4", "0.7.5")
#: The other frameworks' since-when claims, each judged once on its framework's committed timeline.
FRAMEWORK_RANGE_CLAIMS = registry.ids("timeline") - registry.ids(framework=MASTRA)


@pytest.mark.parametrize("framework", ["mastra", "autogen", "ai-sdk"])
def test_samples_are_the_oldest_the_first_runnable_and_the_newest_of_each_minor_series(framework):
    """On the registry's real list: every minor series is sampled once, by its newest release, plus the oldest and
    the oldest the harness runs (ai before 3.1.0 is older than every era of its runner)."""
    subject = framework_sweep.subject(framework)
    chosen = sweep.selected(subject=subject, prereleases=True)
    picked = release_map.samples(subject, chosen)
    by_series = defaultdict(list)
    for version in chosen:
        by_series[subject.series(version)].append(version)
    first_runnable = next(version for version in chosen if subject.runs(version))
    assert first_runnable == ("3.1.0" if framework == "ai-sdk" else chosen[0])
    assert picked[0] == chosen[0] and first_runnable in picked and picked == sorted(picked, key=subject.sort_key)
    assert set(picked) - {chosen[0], first_runnable} <= {versions[-1] for versions in by_series.values()}
    assert {versions[-1] for versions in by_series.values()} <= set(picked)
    assert len(picked) < len(chosen), "sampling installs fewer releases than the range holds"


def test_a_release_that_cannot_run_is_a_row_of_its_own_kind_never_a_behaviour():
    subject = framework_sweep.subject("autogen")
    row = subject.failed("0.2.0", ReleaseUnsupported("autogen-agentchat 0.2.0 predates the harness's API"))
    assert (row.scenario, row.error_kind) == (sweep.WHOLE_VERSION, framework_sweep.UNSUPPORTED)
    assert sweep.could_not_run([row])
    rows = [row, *[sweep.Row("0.7.5", name, "x", "", "{}") for name in ("legal", "dot")]]
    table = timeline.frame([committed.Line.of("autogen", r, prerelease=False) for r in rows])
    assert set(table[table["version"] == "0.2.0"]["error_kind"]) == {timeline.COULD_NOT_RUN}


def test_a_sweep_files_every_release_under_the_digest_of_the_code_it_started_with(monkeypatch):
    """An adapter edited while a sweep runs changes the digest of a new sweep, not of the running one (measured: a
    claude-agent-sdk sweep filed one release under a second digest after its adapter was edited mid-run)."""
    subject = framework_sweep.subject("autogen")
    started = subject.digest()
    monkeypatch.setattr(framework_sweep.ScenarioSweep, "_harness", lambda self: iter([b"the adapter, edited"]))
    assert subject.digest() == started
    assert framework_sweep.subject("autogen").digest() != started


def test_the_mastra_sweep_also_takes_its_digest_once(monkeypatch):
    """The same for Mastra's catalogue: a scenario added mid-sweep changes the next sweep's digest only."""
    subject = framework_sweep.subject("mastra")
    started = subject.digest()
    scenarios = catalogue.scenarios()
    monkeypatch.setattr(catalogue, "scenarios", lambda: scenarios[:-1])
    assert subject.digest() == started
    assert framework_sweep.subject("mastra").digest() != started


@pytest.mark.slow
@pytest.mark.node
def test_bisect_json_names_the_last_release_before_and_the_first_with_the_change(node_modules):
    """The normaliser's arrival (claim V01) from the command line: two installs at most."""
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", "bisect", "single-rewrite", "--since", "0.13.1", "--until", "0.13.2"]
        + ["--json"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert {"last_before", "first_with", "before", "after", "installs", "probes"} <= set(found)
    assert (found["framework"], found["last_before"], found["first_with"]) == ("mastra", "0.13.1", "0.13.2")
    assert json.loads(found["before"]["behaviour"])["names"] == ["search.web"]
    assert json.loads(found["after"]["behaviour"])["names"] == ["search_web"]
    assert found["probes"] == 2 and found["installs"] <= 2
    assert "sweeping @mastra/core" in done.stderr, "progress on stderr"


#: Sweeps a scenario file on AutoGen's releases; with INTERRUPT set, Ctrl-C reaches it once the first is stored.
_SWEEP = textwrap.dedent(
    """
    import os, signal, sys
    from probe_lib.core.progress import Stages
    from probe_lib.history import framework_sweep, sweep
    subject = framework_sweep.from_file("autogen", sys.argv[1])
    def measured(version, rows):
        if os.environ.get("INTERRUPT"):
            os.kill(os.getpid(), signal.SIGINT)
    rows = sweep.sweep(sys.argv[2:], subject=subject, stages=Stages(), measured=measured)
    print(len({row.version for row in rows}))
    """
)


@pytest.mark.slow
def test_an_interrupted_sweep_leaves_the_cache_usable_and_two_resumed_runs_share_it(tmp_path):
    """Ctrl-C after the first release: its results are kept whole, nothing half-written; then two runs at once
    resume, each reading it from the cache, and both end with the same, whole results."""
    scenarios = tmp_path / "probe.yaml"  # a file of its own: its results are in no cache yet
    scenarios.write_text(
        f"scenarios:\n  - name: resume-{os.getpid()}-{tmp_path.name}\n    tools: [search.web, plain]\n"
    )
    command = [sys.executable, "-c", _SWEEP, str(scenarios), *AUTOGEN]
    interrupted = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "INTERRUPT": "1"},
        preexec_fn=as_at_a_terminal,
    )
    assert interrupted.returncode != 0 and "KeyboardInterrupt" in interrupted.stderr
    subject = framework_sweep.from_file("autogen", scenarios)
    folder = sweep.cache_dir(subject)
    assert sorted(path.name for path in folder.iterdir()) == [f"{AUTOGEN[0]}.json"], "one release, no partial file"
    first = sweep.cached(AUTOGEN[0], subject)
    resumed = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=900) for run in resumed]
    assert [run.returncode for run in resumed] == [0, 0], [err[-500:] for _, err in outputs]
    assert all(out.strip() == str(len(AUTOGEN)) for out, _ in outputs)
    assert all(f"{AUTOGEN[0]}: cached" in err for _, err in outputs), [err[-800:] for _, err in outputs]
    assert sweep.cached(AUTOGEN[0], subject) == first
    assert sorted(path.name for path in folder.iterdir()) == sorted(f"{v}.json" for v in AUTOGEN)
    assert all(not sweep.could_not_run(sweep.cached(v, subject)) for v in AUTOGEN)


@pytest.fixture(scope="module")
def mastra_timeline(recorded_catalogue) -> Timeline:
    return Timeline.of(timeline.laid_over_summary(recorded_catalogue))


def test_the_range_claims_judge_stable_versions_and_keep_the_prereleases_apart(mastra_timeline):
    assert not [v for v in timeline.versions(mastra_timeline.table) if "-" in v]
    assert mastra_timeline.prereleases is not None
    assert "prereleases apart" in mastra_timeline.span


@pytest.fixture(scope="module")
def framework_timelines() -> dict[str, Timeline]:
    return framework_ranges.timelines()


def _judge(claim_id: str, evidence: Timeline) -> tuple[str, str]:
    verdict = ledger.judge(next(c for c in ledger.load_claims() if c.id == claim_id), evidence)
    return verdict.status, verdict.evidence


def _edited(evidence: Timeline, version: str, scenario: str, **changes) -> Timeline:
    """The timeline with one release's behaviour on one probe changed."""
    table = evidence.table.copy()
    where = table.index[(table["version"] == version) & (table["scenario"] == scenario)]
    assert len(where) == 1, f"no single line for {version} {scenario}"
    table.at[where[0], "behaviour"] = Behaviour.from_json({**table.at[where[0], "behaviour"].to_json(), **changes})
    return replace(evidence, table=table)


@pytest.mark.parametrize("claim_id", sorted(FRAMEWORK_RANGE_CLAIMS))
def test_each_framework_range_claim_holds_on_its_committed_timeline(claim_id, framework_timelines):
    status, evidence = _judge(claim_id, framework_timelines[registry.checks()[claim_id].framework])
    assert status == "confirmed", evidence


#: A forced run that forces the rewritten name search_web instead of the key search.web.
FORCES_THE_WIRE_NAME = {"tool_choice": {"type": "function", "function": {"name": "search_web"}}}


def _refusal(message: str) -> dict:
    return {"error": {"kind": "rejected", "message": message}}


FRAMEWORK_COUNTERFACTUALS = {
    "T01 0.6.1 already refuses": (
        "T01",
        "0.6.1",
        "unregistered-choice+forced",
        _refusal("tool_choice references 'missing' but it's not in the provided tools"),
        "0.6.1 did not",
    ),
    "T01 the newest sends it": ("T01", "0.7.5", "unregistered-choice+forced", _refusal("other"), "0.7.5"),
    "T03 0.3.7 sends the bare name": (
        "T03",
        "0.3.7",
        "unregistered-choice+forced",
        {"tool_choice": "missing"},
        "0.3.7",
    ),
    "T03 the newest sends the object": (
        "T03",
        "1.7.4",
        "unregistered-choice+forced",
        {"tool_choice": {"function": {"name": "missing"}, "type": "function"}},
        "1.7.4",
    ),
    "T03 a release inside the range sends the bare name": (
        "T03",
        "0.1.25",
        "unregistered-choice+forced",
        {"tool_choice": "missing"},
        "0.1.25 did not",
    ),
    "T03 a release between 0.3.9 and the newest sends the object": (
        "T03",
        "1.2.2",
        "unregistered-choice+forced",
        {"tool_choice": {"function": {"name": "missing"}, "type": "function"}},
        "1.2.2 did not",
    ),
    "T02 a release rewrites the key": ("T02", "0.9.3", "dot", {"names": ["search_web", "plain"]}, "dot changes"),
    "T06 0.0.6 already sends it": (
        "T06",
        "0.0.6",
        "unregistered-choice+forced",
        _refusal("another refusal"),
        "0.0.6 did not",
    ),
    "T06 0.0.7 refuses it": (
        "T06",
        "0.0.7",
        "unregistered-choice+forced",
        {**_refusal("Tool choice was specified, but the only provided tool was plain."), "requests": 0},
        "0.0.7 did not",
    ),
    "T23 0.1.5 already sends the forced dot probe": (
        "T23",
        "0.1.5",
        "dot+forced",
        {
            "names": ["search.web", "plain"],
            "tool_choice": {"type": "function", "function": {"name": "search.web"}},
            "requests": 1,
            "error": None,
        },
        "0.1.5 did not",
    ),
    "T23 0.1.6 refuses a forced probe besides the dot's": (
        "T23",
        "0.1.6",
        "emoji+forced",
        {
            **_refusal("When specifying `tool_choice`, you must provide exactly one tool. Received 2 tools."),
            "requests": 0,
        },
        "emoji+forced: 0.1.6 did not",
    ),
    "T23 a later release forces a tool it does not send": (
        "T23",
        "1.6.0",
        "legal+forced",
        {"tool_choice": {"type": "function", "function": {"name": "missing"}}},
        "legal+forced: 1.6.0 did not",
    ),
    "T07 0.5.4 forces the wire name": (
        "T07",
        "0.5.4",
        "dot+forced",
        {"tool_choice": {"name": "search_web", "type": "function"}},
        "0.5.4 did not",
    ),
    "T07 the newest sends it": ("T07", "0.20.0", "dot+forced", _refusal("another refusal"), "0.20.0"),
    "T08 0.14.3 sends both": ("T08", "0.14.3", "collision", {"names": ["search_web", "search_web"]}, "0.14.3 did not"),
    "T08 0.14.2 sends one": ("T08", "0.14.2", "collision", {"names": ["search_web"]}, "0.14.2 did not"),
    "T09 0.14.10 already renames": (
        "T09",
        "0.14.10",
        "dot+forced",
        {"names": ["search_web", "plain"]},
        "0.14.10 did not",
    ),
    "T09 the newest forces the wire name": ("T09", "0.14.25", "dot+forced", FORCES_THE_WIRE_NAME, "0.14.25"),
    "T10 0.14.12 runs the call": ("T10", "0.14.12", "dot+round-trip", {"executions": 1}, "0.14.12 did not"),
    "T10 0.14.10 runs nothing": ("T10", "0.14.10", "dot+round-trip", {"executions": 0}, "0.14.10 did not"),
    "T11 a release rewrites the key": ("T11", "1.50.2", "dot", {"names": ["search_web", "plain"]}, "dot changes"),
    "T12 1.93.0 forces the wire name": ("T12", "1.93.0", "dot+forced", FORCES_THE_WIRE_NAME, "1.93.0 did not"),
    "T12 1.92.0 forces already": ("T12", "1.92.0", "dot+forced", {"requests": 1}, "1.92.0 did not"),
    "T13 1.93.0 sends it": ("T13", "1.93.0", "unregistered-choice+forced", {"requests": 1}, "1.93.0 did not"),
    "T13 1.92.0 sends it": ("T13", "1.92.0", "unregistered-choice+forced", {"requests": 1}, "1.92.0 did not"),
    "T14 1.10.0 numbers it already": (
        "T14",
        "1.10.0",
        "collision",
        {"names": ["search_web", "search_web_2"]},
        "1.10.0 did not",
    ),
    "T14 the newest sends two alike": (
        "T14",
        "1.15.30",
        "collision",
        {"names": ["search_web", "search_web"]},
        "1.15.30",
    ),
    "T15 1.10.1 cuts at 64": ("T15", "1.10.1", "length-70", {"names": ["b" * 64, "plain"]}, "1.10.1 did not"),
    "T15 1.10.0 adds the digest": (
        "T15",
        "1.10.0",
        "length-70",
        {"names": ["b" * 55 + "_b9444034", "plain"]},
        "1.10.0 did not",
    ),
    "T16 0.2.81 sends the dot probe the other way round already": (
        "T16",
        "0.2.81",
        "dot",
        {"names": ["mcp__probe__plain", "mcp__probe__search_web"]},
        "0.2.81 did not",
    ),
    "T16 the newest sends registration order": (
        "T16",
        "0.3.334",
        "dot",
        {"names": ["mcp__probe__search_web", "mcp__probe__plain"]},
        "0.3.334",
    ),
    "T17 0.2.50 sends both": (
        "T17",
        "0.2.50",
        "collision",
        {"names": ["mcp__probe__search_web", "mcp__probe__search_web"]},
        "0.2.50 did not",
    ),
    "T17 the newest sends both": (
        "T17",
        "0.3.334",
        "collision",
        {"names": ["mcp__probe__search_web", "mcp__probe__search_web"]},
        "0.3.334",
    ),
    "T18 0.0.4 runs the call": ("T18", "0.0.4", "dot+round-trip", {"executions": 1}, "0.0.4 did not"),
    "T18 the newest runs nothing": ("T18", "0.3.334", "dot+round-trip", {"executions": 0}, "0.3.334"),
    "T18 the legal key's call ran already": ("T18", "0.0.4", "legal+round-trip", {"executions": 1}, "0.0.4 did not"),
    "T19 a release rewrites the key": ("T19", "0.9.3", "dot", {"names": ["search_web", "plain"]}, "dot changes"),
    "T20 0.5.4 forces the wire name": ("T20", "0.5.4", "dot+forced", FORCES_THE_WIRE_NAME, "0.5.4 did not"),
    "T20 the newest sends it": ("T20", "0.20.0", "dot+forced", _refusal("another refusal"), "0.20.0"),
    "T21 0.0.2 runs the call": ("T21", "0.0.2", "dot+round-trip", {"executions": 1}, "0.0.2 did not"),
    "T21 0.0.3 runs nothing": ("T21", "0.0.3", "dot+round-trip", {"executions": 0}, "0.0.3 did not"),
    "T21 the legal key's call runs nothing": ("T21", "0.0.3", "legal+round-trip", {"executions": 0}, "0.0.3 did not"),
    "T22 a release forces the rewritten name": (
        "T22",
        "2.0.1",
        "dot+forced",
        {"tool_choice": {"type": "function", "name": "search_web"}},
        "dot+forced changes",
    ),
    "T05 3.1.15 already sends auto": ("T05", "3.1.15", "dot", {"tool_choice": "auto"}, "3.1.15 did not"),
    "T05 the newest sends none": ("T05", "7.0.173", "dot", {"tool_choice": None}, "7.0.173"),
    "T04 a release forces the rewritten name": (
        "T04",
        "0.4.9",
        "dot+forced",
        FORCES_THE_WIRE_NAME,
        "dot+forced changes",
    ),
}


@pytest.mark.parametrize("case", sorted(FRAMEWORK_COUNTERFACTUALS))
def test_a_framework_range_claim_is_refuted_by_one_release_behaving_otherwise(case, framework_timelines):
    claim_id, version, scenario, changes, reason = FRAMEWORK_COUNTERFACTUALS[case]
    evidence = _edited(framework_timelines[registry.checks()[claim_id].framework], version, scenario, **changes)
    status, text = _judge(claim_id, evidence)
    assert status == "refuted" and reason in text, text


def test_up_to_means_every_release_that_ran_before_the_change_point(framework_timelines):
    """T03 said "up to 0.3.7" of the object form; 0.0.4 and 0.0.6 refused the forced name instead (T06). Judged
    from the oldest release that ran, as its first wording asked, the check refutes it; from 0.0.7, its wording now,
    it holds."""
    check = since.changed_at(
        "unregistered-choice+forced",
        "0.3.7",
        "0.3.9",
        since.sends_choice({"function": {"name": "missing"}, "type": "function"}),
        since.sends_choice("missing"),
    )
    status, evidence = check(framework_timelines["langchain"])
    assert status == "refuted" and evidence.startswith("0.0.4 did not"), evidence
    status, evidence = _judge("T03", framework_timelines["langchain"])
    assert status == "confirmed" and evidence.startswith("the 11 releases that ran from 0.0.7 to 0.3.7 send"), evidence


def test_a_change_point_s_evidence_names_the_releases_between_its_ends_that_could_not_run(framework_timelines):
    """0.3.8 lies between T03's ends and could not run: 0.3.9 is the next release that ran, not the next served; T05
    has none between, and its second stretch ends at the newest release that ran."""
    evidence = _judge("T03", framework_timelines["langchain"])[1]
    between = "from 0.3.9, the next release that ran (0.3.8, between them, could not), to the newest that ran, 1.7.4,"
    assert between in evidence
    assert "next release served" not in evidence
    evidence = _judge("T05", framework_timelines["ai-sdk"])[1]
    assert "the 13 releases that ran from 3.1.16, the next release served, to the newest that ran, 7.0.173, send" in (
        evidence
    )


def test_a_claim_naming_the_next_release_served_is_refuted_by_one_between_that_could_not_run(framework_timelines):
    """T03's ends have 0.3.8 between them, which could not run: judged as a claim that says 0.3.9 is the next release
    served (``next_served``), the same change point is refuted; T03 does not say so, and holds."""
    was = since.sends_choice({"function": {"name": "missing"}, "type": "function"})
    became = since.sends_choice("missing")
    check = since.changed_at(
        "unregistered-choice+forced", "0.3.7", "0.3.9", was, became, since="0.0.7", next_served=True
    )
    status, evidence = check(framework_timelines["langchain"])
    assert status == "refuted" and evidence == "0.3.9 is not the next release served: 0.3.8 (could not run) lie between"
    assert _judge("T03", framework_timelines["langchain"])[0] == "confirmed"


def test_a_claim_that_says_no_release_lies_between_its_ends_is_checked_so():
    """ "the release before it" and "the next release served" say no release lies between a change point's ends, not
    even one that could not run: such a claim's check refutes one there (``next_served``, whose effect the test above
    shows), and a claim that does not say it leaves the flag off (T01 and T05 said it and were checked without)."""
    says = {
        claim.id
        for claim in ledger.load_claims()
        if re.search(r"the (release before it|next release served)", claim.statement)
    }
    flagged = {
        claim_id for claim_id, registered in registry.CHECKS.items() if getattr(registered.check, "next_served", False)
    }
    assert says == flagged
    assert {"T01", "T05"} <= says


def test_a_claim_on_the_tools_sent_alone_is_blind_to_how_often_the_request_went_out(framework_timelines):
    """The Claude Code CLI sends the refused request once on 0.2.83 and three times on 0.3.334: T16 judged on every
    wire field is refuted by that; on the tools sent (``TOOLS_SENT``) it is not, whatever the count."""
    claude = framework_timelines["claude-agent-sdk"]
    was, became = (
        since.names(["mcp__probe__search_web", "mcp__probe__plain"]),
        since.names(["mcp__probe__plain", "mcp__probe__search_web"]),
    )
    status, text = since.changed_at("dot", "0.2.81", "0.2.83", was, became)(claude)
    assert status == "refuted" and "the newest measured release, 0.3.334, behaves otherwise" in text, text
    on_tools = since.changed_at("dot", "0.2.81", "0.2.83", was, became, on=since.TOOLS_SENT)
    assert on_tools(claude)[0] == "confirmed"
    assert on_tools(_edited(claude, "0.3.334", "dot", requests=7))[0] == "confirmed"


@pytest.mark.parametrize("claim_id", ["T02", "T04", "T11", "T19", "T22"])
def test_an_unchanged_claim_counts_its_releases_and_its_sample(claim_id, framework_timelines):
    """T02's "26 releases measured" and the like are read: a measured release dropped from the span, or one that
    ran turned into one that could not, refutes the count; with the counts made to fit, the newest of a minor series
    left unmeasured still refutes the sample the statement names ("the newest of each minor series")."""
    swept = framework_timelines[registry.checks()[claim_id].framework]
    table = swept.table
    runs = timeline.versions(table[table["error_kind"] != timeline.COULD_NOT_RUN])
    span = swept.releases[swept.releases.index(runs[0]) : swept.releases.index(runs[-1]) + 1]
    series = framework_sweep.subject(swept.framework).series
    newest = [v for v, after in zip(span, [*span[1:], None]) if after is None or series(after) != series(v)]
    inner = next(v for v in newest[len(newest) // 2 :] if v in runs[1:-1])  # a series' newest, neither end
    dropped = replace(swept, table=table[table["version"] != inner])
    status, text = _judge(claim_id, dropped)
    assert status == "refuted" and "releases ran of the" in text, text
    unran = table.copy()
    unran.loc[unran["version"] == inner, "error_kind"] = timeline.COULD_NOT_RUN
    status, text = _judge(claim_id, replace(swept, table=unran))
    assert status == "refuted" and "releases ran of the" in text, text
    measured = sum(v in set(dropped.table["version"]) for v in span)
    fitted = since.unchanged(runs[0], runs[-1], {}, ran=len(runs) - 1, measured=measured)
    status, text = fitted(dropped)
    assert status == "refuted" and f"the newest of a minor series was not measured: {inner}" in text, text
    assert since.unchanged(runs[0], runs[-1], {}, ran=len(runs), measured=measured + 1)(swept)[0] == ("confirmed")


def test_a_change_point_with_a_release_unmeasured_between_its_ends_is_refuted(framework_timelines):
    autogen = framework_timelines["autogen"]
    at = autogen.releases.index("0.6.2")
    gap = replace(autogen, releases=(*autogen.releases[:at], "0.6.1.post1", *autogen.releases[at:]))
    status, text = _judge("T01", gap)
    assert status == "refuted" and "0.6.1.post1" in text, text


def test_every_framework_range_claim_has_a_counterfactual():
    assert {case.split()[0] for case in FRAMEWORK_COUNTERFACTUALS} == set(FRAMEWORK_RANGE_CLAIMS)


def test_writing_some_releases_keeps_every_other_release_of_the_framework(tmp_path, monkeypatch):
    """``sweep --framework NAME --version V --write`` replaces V's lines and keeps the rest of NAME's history (the
    paths are read at each call: the copies stand in for the committed files)."""
    for name in ("TIMELINE_PATH", "RELEASES_PATH"):
        copy = tmp_path / getattr(committed, name).name
        copy.write_bytes(getattr(committed, name).read_bytes())
        monkeypatch.setattr(committed, name, copy)
    before_all, listed = (
        committed.read(path=committed.TIMELINE_PATH),
        committed.read_releases(committed.RELEASES_PATH),
    )
    before = [line for line in before_all if line.framework == "langchain"]
    subject = framework_sweep.subject("langchain")
    again = sweep.Row("0.2.14", "dot", "0123456789", "", '{"names": ["search.web", "plain"]}')
    committed.write(release_map.ReleaseMap("langchain", ("0.2.14",), ("0.2.14",), {"0.2.14": [again]}, (), 0), subject)
    after = committed.read(["langchain"], path=committed.TIMELINE_PATH)
    assert [line for line in after if line.version != "0.2.14"] == [line for line in before if line.version != "0.2.14"]
    assert [line.row() for line in after if line.version == "0.2.14"] == [again]
    assert [line.version for line in after] == sorted((line.version for line in after), key=subject.sort_key)
    releases = committed.read_releases(committed.RELEASES_PATH)
    assert [(r.framework, r.version) for r in releases] == [(r.framework, r.version) for r in listed]
    others = [line for line in before_all if line.framework != "langchain"]
    assert [line for line in committed.read(path=committed.TIMELINE_PATH) if line.framework != "langchain"] == others


def test_releases_measured_again_one_by_one_keep_the_role_they_were_measured_under(tmp_path, monkeypatch):
    """``sweep --version V --write`` measures V again: a bisection probe stays one (the docs count samples and probes),
    and a release listed but never measured gets this run's role."""
    for name in ("TIMELINE_PATH", "RELEASES_PATH"):
        copy = tmp_path / getattr(committed, name).name
        copy.write_bytes(getattr(committed, name).read_bytes())
        monkeypatch.setattr(committed, name, copy)
    listed = {r.version: r.role for r in committed.read_releases(committed.RELEASES_PATH) if r.framework == "langchain"}
    assert (listed["0.0.6"], listed["0.0.2"]) == ("bisection", "")
    sent = '{"names": ["search.web", "plain"]}'
    rows = {v: [sweep.Row(v, "dot", "0123456789", "", sent)] for v in ("0.0.2", "0.0.6")}
    mapped = release_map.ReleaseMap("langchain", ("0.0.2", "0.0.6"), ("0.0.2", "0.0.6"), rows, (), 0)
    committed.write(mapped, framework_sweep.subject("langchain"), roles_kept=True)
    roles = {r.version: r.role for r in committed.read_releases(committed.RELEASES_PATH) if r.framework == "langchain"}
    assert (roles["0.0.6"], roles["0.0.2"]) == ("bisection", "sample")
    lines = committed.read(["langchain"], path=committed.TIMELINE_PATH)
    assert {(line.version, line.role) for line in lines if line.version in rows} == {
        ("0.0.6", "bisection"),
        ("0.0.2", "sample"),
    }


def test_a_write_waits_for_another_processs_rewrite_of_the_timeline(tmp_path, monkeypatch):
    """While another writer holds the timeline's lock, a write neither reads nor replaces the file; once the lock is
    released it lays its release over what the other wrote."""
    import threading

    from probe_lib.install import cache

    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    for name in ("TIMELINE_PATH", "RELEASES_PATH"):
        copy = tmp_path / getattr(committed, name).name
        copy.write_bytes(getattr(committed, name).read_bytes())
        monkeypatch.setattr(committed, name, copy)
    subject = framework_sweep.subject("langchain")
    again = sweep.Row("0.2.14", "dot", "0123456789", "", '{"names": ["search.web", "plain"]}')
    mapped = release_map.ReleaseMap("langchain", ("0.2.14",), ("0.2.14",), {"0.2.14": [again]}, (), 0)
    with cache.rewriting(committed.TIMELINE_PATH):
        writer = threading.Thread(target=committed.write, args=(mapped, subject))
        writer.start()
        writer.join(timeout=1)
        assert writer.is_alive(), "the write went ahead while the lock was held"
        text = committed.TIMELINE_PATH.read_text(encoding="utf-8")  # the holder's own rewrite: no autogen
        kept = [line for line in text.splitlines(keepends=True) if not line.startswith("autogen,")]
        committed.TIMELINE_PATH.write_text("".join(kept), encoding="utf-8")
    writer.join(timeout=60)
    lines = committed.read(path=committed.TIMELINE_PATH)
    assert not [line for line in lines if line.framework == "autogen"], "the write laid itself over a stale read"
    assert [line.row() for line in lines if (line.framework, line.version) == ("langchain", "0.2.14")] == [again]


class StallingFirst:
    """A real session of the raw ``openai`` runner whose first run of ``stalled`` is cut by its watchdog before
    it can send (a 1 ms turn): a stall of this run, not the release, as sweeps met them under load."""

    def __init__(self, session, stalled: str, times: int) -> None:
        self.session, self.stalled, self.left, self.runs = session, stalled, times, []

    def run(self, scenarios, server):
        scenarios = list(scenarios)
        self.runs.append([scenario.name for scenario in scenarios])
        if self.left and scenarios[-1].name == self.stalled:
            self.left -= 1
            scenarios = [replace(s, timeout_ms=1) if s.name == self.stalled else s for s in scenarios]
        return self.session.run(scenarios, server)


@pytest.mark.parametrize("stalls", [1, framework_sweep.STALL_RETRIES + 1])
def test_a_crash_before_sending_counts_only_when_it_recurs_on_every_retry(stalls, capture_server):
    from probe_lib.core.scenarios import for_keys
    from probe_lib.frameworks import openai as openai_adapter

    version = openai_adapter.PINS.versions()[-1]
    scenarios = [for_keys("legal", ["get_weather"]), for_keys("dot", ["search.web", "plain"])]
    with openai_adapter.ADAPTER.session(version) as real:
        session = StallingFirst(real, "dot", stalls)
        outcomes = framework_sweep._without_stalls(session, scenarios, capture_server)
    legal, dot = outcomes
    assert (legal.scenario.name, dot.scenario.name) == ("legal", "dot")
    assert legal.failure is None and legal.requests
    retried = session.runs[1:]
    if stalls <= framework_sweep.STALL_RETRIES:
        assert retried == [["legal", "dot"]] * stalls, "run again at its place, until it sent"
        assert dot.failure is None and [t["function"]["name"] for t in dot.requests[0]["tools"]] == [
            "search.web",
            "plain",
        ]
        # The error text quotes the URL of the scenario's place in the list, as on a run without a stall.
        assert "/s/openai-" in dot.error[-1]["message"] and f"-{version}-1/" in dot.error[-1]["message"]
    else:
        assert retried == [["legal", "dot"]] * framework_sweep.STALL_RETRIES
        assert dot.failure.kind == "crash" and not dot.requests
        assert dot.failure.message == "turn timed out after 1 ms"


def test_retry_failed_measures_again_a_release_that_crashed_on_a_scenario():
    sent, crashed = sweep.Row("1.0", "dot", "a", "", "{}"), sweep.Row("1.0", "dot", "b", "crash", "{}")
    whole = sweep.Row("1.0", sweep.WHOLE_VERSION, "c", "install failed", "{}")
    assert not sweep.to_retry([sent]) and sweep.to_retry([sent, crashed]) and sweep.to_retry([whole])


@pytest.mark.parametrize(
    ("claim_id", "oldest"), [("T14", "1.9.3"), ("T09", "0.11.5"), ("T05", "3.1.0"), ("T23", "0.0.4")]
)
def test_a_claim_naming_the_oldest_release_that_ran_is_refuted_when_an_older_one_ran(
    claim_id, oldest, framework_timelines
):
    """T05, T09, T14 and T23 start "from X, the oldest release that ran": a release older than X that ran refutes them.
    Here the release named as the oldest is marked as one that could not run, so the next one is the oldest."""
    measured = framework_timelines[registry.checks()[claim_id].framework]
    table = measured.table.copy()
    table.loc[table["version"] == oldest, "error_kind"] = timeline.COULD_NOT_RUN
    status, text = _judge(claim_id, replace(measured, table=table))
    assert status == "refuted" and f"not {oldest}" in text, text


def test_the_digest_moves_only_when_it_is_meant_to():
    """A subject's digest names the cache folder its results are kept in: code that moves it orphans every machine's
    cached sweeps, and twice a change meant to alter nothing did (an edit to the adapters, ec2afa0, reverted; a class
    renamed in ``sweep.row``'s source, 3ed1a7d, reverted). When a change to what makes an outcome is meant (a new
    reduction, a runner's new behaviour), update these values in its commit and say that the cached sweeps will be
    measured again. Mastra's catalogue and one matrix framework: the reduction and the shared files are in both."""
    assert {name: framework_sweep.subject(name).digest() for name in ("mastra", "openai")} == {
        "mastra": "2305ad81ea45",
        "openai": "44ded9aea7a9",
    }


@pytest.mark.parametrize("name", sorted(base.names()))
def test_the_digest_covers_the_adapter_s_runner_and_every_class_it_inherits_from_the_kit(name):
    """A digest once read the adapter's own folder, found by the framework's name: the Claude Agent SDK's, which
    subclasses the keyed adapter from another folder, never read ``keyed.py``, and a variant sharing another
    framework's runner (``openai-responses``, the ``-chat`` ones) never read that runner, so an edit to either left
    their cached sweeps in use. The registry every new framework is added to is not read: while it was, adding a
    framework would have moved every framework's digest."""
    subject = framework_sweep.subject(name)
    read = set(subject._harness())
    inherited = [cls for cls in type(subject.adapter).__mro__ if cls.__module__.startswith("probe_lib.")]
    assert inherited and all(Path(inspect.getfile(cls)).read_bytes() in read for cls in inherited)
    assert Path(inspect.getfile(base)).read_bytes() not in read
    if (pins := getattr(subject.adapter, "pins", None)) is not None:
        runners = sorted(pins.harness.glob("runner.*"))
        assert runners and all(runner.read_bytes() in read for runner in runners)


def test_t23_reads_every_forced_probe_of_two_keys_as_its_statement_counts_them(framework_timelines):
    """T23 says "each of the ten forced probes that register two keys": the dot probe and the others the matrix
    has, and a count the matrix's probes keep."""
    (statement,) = [claim.statement for claim in ledger.load_claims() if claim.id == "T23"]
    count = {9: "nine", 10: "ten", 11: "eleven"}[1 + len(framework_ranges.TWO_KEYS_FORCED)]
    assert f"each of the {count} forced probes that register two keys" in statement
    status, text = _judge("T23", framework_timelines["langchain"])
    assert status == "confirmed" and text.endswith(", ".join(f"{p}+forced" for p in framework_ranges.TWO_KEYS_FORCED))
