"""Served versions, the sweep, bisection and the timeline: measured on real @mastra/core versions of three eras.

The reduced sweep runs the catalogue live (not from the sweep's cache) on one 0.x version before the normaliser,
one 0.x after it and one 1.x, and must equal Mastra's lines of the committed ``data/timeline.csv`` for those versions.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from test_cli_junk import run_main

from probe_lib.analysis import timeline
from probe_lib.cli import shell
from probe_lib.core import paths
from probe_lib.core.errors import InputError, InstallFailed, NodeMissing
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import catalogue, versions
from probe_lib.history import bisect, framework_sweep, sweep
from probe_lib.history import timeline as committed_timeline
from probe_lib.install import linkstore
from probe_lib.present import timeline as timeline_chart

#: One version of each era: 0.x before the normaliser (measured: it first appears in 0.13.2), 0.x after, 1.x.
ERAS = ("0.12.1", "0.13.2", "1.0.4")


def test_an_unknown_version_says_how_to_list_the_served_ones():
    with pytest.raises(
        InputError,
        match=r"'0\.0\.1' is neither pinned .* nor served by npm; list the served ones with `probe-lib versions",
    ):
        versions.PINS.check("0.0.1")


@pytest.mark.node
def test_a_served_unpinned_version_is_accepted_and_its_harness_lives_in_the_cache(node_modules):
    assert "0.13.0" not in versions.PINS.versions()
    assert versions.PINS.check("0.13.0") == "0.13.0"
    folder = versions.PINS.folder("0.13.0")
    assert folder.is_relative_to(paths.cache()) and (folder / "package-lock.json").exists()
    assert '"mastra-0.13.0": "npm:@mastra/core@0.13.0"' in (folder / "package.json").read_text()


#: Ranges that select no version, each with what the one line must say; neither command may start measuring.
IMPOSSIBLE_RANGES = {
    "reversed": (["--since", "1.71.0", "--until", "1.0.4"], "--since 1.71.0 is later than --until 1.0.4; swap them"),
    "unserved end": (["--since", "0.0.1"], "--since: @mastra/core '0.0.1' is neither pinned"),
    "not a version": (["--until", "1.x"], "--until: version '1.x' is not MAJOR.MINOR.PATCH"),
    "prereleases only": (
        ["--since", "1.1.0-alpha.2", "--until", "1.1.0-alpha.2"],
        "npm serves no stable @mastra/core version from 1.1.0-alpha.2 to 1.1.0-alpha.2; add --prereleases",
    ),
}


@pytest.mark.parametrize("command", [["sweep"], ["bisect", "rewrite-rules"]], ids=lambda command: command[0])
@pytest.mark.parametrize("case", IMPOSSIBLE_RANGES, ids=str)
def test_an_impossible_range_is_one_line_and_exit_2(command, case):
    flags, fragment = IMPOSSIBLE_RANGES[case]
    code, stdout, stderr = run_main([*command, *flags])
    assert (code, stdout) == (2, "")
    assert stderr.startswith(f"probe-lib {command[0]}: ") and stderr.count("\n") == 1
    assert fragment in stderr


@pytest.fixture(scope="module")
def committed() -> dict[tuple[str, str], sweep.Row]:
    """The summary's stable versions (the prereleases, 1.0.0-beta.20 and beta.21 dropping a tool among them, are
    claim V06's and tests/test_framework_sweep.py's)."""
    return {(row.version, row.scenario): row for row in committed_timeline.rows("mastra", prereleases=False)}


def _swept(rows: dict[str, sweep.Row], committed) -> dict[str, sweep.Row]:
    """``rows`` (scenario -> row) without the scenarios catalogued after the last sweep, which the summary holds on
    no version (the next `probe-lib sweep --write` adds them)."""
    summarised = {scenario for _, scenario in committed}
    return {scenario: row for scenario, row in rows.items() if scenario in summarised}


@pytest.mark.slow
def test_a_scenario_the_summary_lacks_it_lacks_on_every_version(committed):
    """The summary is never partial: a catalogue scenario is swept on every version it holds, or on none."""
    held = {version: {scenario for v, scenario in committed if v == version} for version, _ in committed}
    whole = {version for version, scenarios in held.items() if sweep.WHOLE_VERSION not in scenarios}
    assert len({frozenset(held[version]) for version in whole}) == 1


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", ERAS)
def test_reduced_sweep_equals_the_committed_summary(version, committed, node_modules, capture_server):
    # live: the sweep's result cache is neither read nor written
    rows = sweep.measure(version, capture_server, framework_sweep.subject("mastra"))
    expected = {scenario: row for (v, scenario), row in committed.items() if v == version}
    assert expected, f"the committed summary has no rows for {version}"
    assert _swept({row.scenario: row for row in rows}, committed) == expected


@pytest.mark.parametrize("version", versions.PINS.versions())
def test_a_pinned_versions_recordings_reduce_to_its_committed_summary_rows(version, committed, recorded_catalogue):
    """The reduction (``Outcome.behaviour``, masked and digested) read off the recordings, without Node.js."""
    recorded = recorded_catalogue[version].values()
    rows = [sweep.row(outcome) for outcome in recorded]
    expected = {s: r for (v, s), r in committed.items() if v == version}
    assert rows and _swept({row.scenario: row for row in rows}, committed) == expected


def test_the_summary_shows_the_normaliser_arriving_in_the_0_13_series():
    table = timeline.stable(timeline.frame(committed_timeline.read(["mastra"])))
    first = timeline.first_with_normaliser(table)
    assert first is not None and first.startswith("0.13."), first
    before = table[(table["scenario"] == "single-rewrite") & (table["version"] == "0.12.1")]
    assert before["behaviour"].iloc[0].names == ("search.web",), "0.12.1 sends the key verbatim"


@pytest.mark.slow
def test_change_points_name_adjacent_measured_versions_on_each_side():
    table = timeline.stable(timeline.frame(committed_timeline.read(["mastra"])))
    measured = timeline.versions(table)
    changes = timeline.change_points(table)
    assert len(changes) > 0
    grid = timeline.categories(table)
    for change in changes.itertuples():
        assert measured.index(change.after) == measured.index(change.before) + 1
        cells = grid.at[change.scenario, change.before], grid.at[change.scenario, change.after]
        if cells == ("not applicable", "not applicable"):  # one grey for both: the behaviours behind it differ
            assert change.became.startswith("not applicable: ") and change.differs_in != "error kind"
    figure = timeline_chart.timeline(grid, timeline.colours(grid), "t", changes)
    (bars,) = [lines for lines in figure.axes[0].collections if tuple(lines.get_colors()[0]) == (0, 0, 0, 1)]
    drawn = {(round(x), round(y)) for (x, y), _bottom in bars.get_segments()}
    rows, columns = list(grid.index), list(grid.columns)
    assert drawn == {(columns.index(c.after), rows.index(c.scenario)) for c in changes.itertuples()}, (
        "a black bar at every change point, within one colour's kind too, and nowhere else"
    )
    assert "black bar: the behaviour changed here" in repr(figure)
    kinds = {kind for kind in grid.to_numpy().ravel() if isinstance(kind, str)}
    assert kinds <= set(timeline.BEHAVIOUR_COLOURS) and all(f"{kind}" in repr(figure) for kind in kinds), (
        "each colour is named in the legend in words"
    )
    holed = grid.copy()
    holed.iloc[0, 0] = None  # a scenario not measured on a version (newer than the sweep, measured on the pins)
    assert "white: not measured on this version" not in repr(figure)
    holed_figure = timeline_chart.timeline(holed, timeline.colours(holed), "t", changes)
    assert "white: not measured on this version" in repr(holed_figure)


@pytest.mark.slow
@pytest.mark.node
def test_bisect_finds_the_normaliser_between_two_consecutive_served_versions(node_modules):
    chosen = ["0.12.1", "0.13.0", "0.13.1", "0.13.2"]
    boundary = bisect.bisect("single-rewrite", chosen, subject=framework_sweep.subject("mastra"))
    assert (boundary.before.version, boundary.after.version) == ("0.13.1", "0.13.2")
    assert (
        '"names": ["search.web"]' in boundary.before.behaviour and '"names": ["search_web"]' in boundary.after.behaviour
    )
    assert boundary.probes <= 2 + math.ceil(math.log2(len(chosen) - 1)), "the two ends, then halving"
    assert boundary.installs <= boundary.probes


def test_bisect_refuses_a_misspelled_scenario_before_measuring_and_names_the_nearest():
    said = r"^no scenario 'choice-by-kee' among mastra's \d+ swept scenarios; did you mean 'choice-by-key'"
    with pytest.raises(InputError, match=said) as refused:
        bisect.bisect("choice-by-kee", ["0.12.1", "0.13.2"], subject=framework_sweep.subject("mastra"))
    message = str(refused.value)  # whole within the error line's length, where the list of 57 was cut mid-name
    assert len(message) < shell.MESSAGE_CHARS and message.endswith(" more (see probe-lib bisect --help)"), message


def test_the_store_shares_identical_files_and_keeps_different_ones_apart(tmp_path):
    store = tmp_path / "store"
    for tree, text in (("a", "same"), ("b", "same"), ("c", "other")):
        (tmp_path / tree / "pkg").mkdir(parents=True)
        (tmp_path / tree / "pkg" / "index.js").write_text(text)
        (tmp_path / tree / "pkg" / "index.js.map").write_text("{}")
        linkstore.prune(tmp_path / tree)
        linkstore.share(tmp_path / tree, store)
    inode = {tree: (tmp_path / tree / "pkg" / "index.js").stat().st_ino for tree in "abc"}
    assert inode["a"] == inode["b"] != inode["c"]
    assert not list(tmp_path.glob("*/pkg/*.map")), "source maps are pruned"
    assert (tmp_path / "b" / "pkg" / "index.js").read_text() == "same"
    (tmp_path / "c" / "pkg" / "index.js").unlink()
    assert linkstore.collect(store) == len("other") and len(list(store.glob("*/*"))) == 1


def test_each_swept_versions_name_rule_predicts_the_names_it_sent(committed):
    """Per target: from the normaliser's first release the model predicts the names sent; before it, every name sent
    is a key as given (so a 0.12.x outcome is never tabulated against the 1.x model's rewrites)."""
    scenarios = catalogue.by_name()
    checked = set()
    for (version, name), row in committed.items():
        scenario, sent = scenarios.get(name), json.loads(row.behaviour).get("names")
        if scenario is None or sent is None or not _plain_keys(scenario):
            continue
        keys = [spec.key for spec in scenario.tools]
        rule = mastra.ADAPTER.name_rule(version)
        if rule is None:
            assert set(sent) <= set(keys), f"{version} {name}: sent {sent} for keys {keys}"
        else:
            predicted = {row.name for row in rule.normalise(keys).rows if row.position_after is not None}
            assert set(sent) == predicted, f"{version} {name}: sent {sent}, the model predicts {sorted(predicted)}"
        checked.add(rule is None)
    assert checked == {True, False}, "versions before and after the normaliser were both checked"


def _plain_keys(scenario) -> bool:
    """Tools registered by key alone, on the chat path, all of them offered to the model."""
    extras = scenario.agents or scenario.workflows or scenario.toolsets or scenario.client_tools or scenario.remedy
    builtins = scenario.all_builtins or any(spec.builtin for spec in scenario.tools)
    offered = not scenario.active_tools and scenario.tool_choice != "none"
    return not extras and not builtins and offered and scenario.wire == "chat"


def test_a_failed_release_keeps_no_path_of_this_machine():
    """npm names its log under the home folder: the row keeps ``~`` for it, as ``<cache>`` and ``<version>``."""
    error = InstallFailed(f"npm ci failed for 9.9.9 in {paths.cache()}/x; log: {Path.home()}/.npm/_logs/1-debug.log")
    behaviour = json.loads(sweep.failed_row("9.9.9", error).behaviour)
    assert behaviour == {
        "error": {
            "kind": "install failed",
            "message": "npm ci failed for <version> in <cache>/x; log: ~/.npm/_logs/1-debug.log",
        }
    }


def test_no_committed_timeline_line_names_a_folder_of_the_machine_that_swept_it():
    text = committed_timeline.TIMELINE_PATH.read_text(encoding="utf-8")
    assert not re.findall(r"(?<![\w.~<>])/(?:root|home|Users|tmp|work)/", text)


def test_a_home_of_slash_leaves_a_failure_message_whole(monkeypatch):
    """A home folder of ``/`` (some containers' users) is not masked: replacing it would turn every slash into ``~``."""
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: Path("/")))
    error = InstallFailed("npm ci failed for 9.9.9: see /var/log/npm.log")
    message = json.loads(sweep.failed_row("9.9.9", error).behaviour)["error"]["message"]
    assert message == "npm ci failed for <version>: see /var/log/npm.log"


@pytest.mark.parametrize("subject", [framework_sweep.subject("mastra")], ids=["mastra"])
def test_node_missing_from_path_stops_the_sweep_and_caches_nothing(subject, monkeypatch, tmp_path):
    """What the machine lacks is this run's error, never the release's result: a later run with Node.js must
    measure the release, not read "run failed" from the cache."""
    version = mastra.ADAPTER.versions()[-1]  # installed by setup: the run, not the install, meets the missing node
    monkeypatch.setattr(sweep, "cache_dir", lambda subject: tmp_path / "sweep")  # the machine's own cache untouched
    monkeypatch.setenv("PATH", str(tmp_path))  # no node, no npm
    with pytest.raises(NodeMissing, match="node was not found on PATH"):
        sweep.sweep([version], subject=subject)
    assert sweep.cached(version, subject) is None
