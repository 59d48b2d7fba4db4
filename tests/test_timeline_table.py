"""The one committed timeline (``data/timeline.csv``) holds every line of the two tables it replaced, read from git
as they stood (Mastra's ``data/version_timeline.csv`` and the others' ``data/framework_timeline.csv``), with equal
values and nothing else; its release list keeps every release the old one listed; every stored behaviour reads back
as the typed value and writes back as the same text."""

from __future__ import annotations

import csv
import io
import json
import subprocess

import pytest

from probe_lib.core import paths
from probe_lib.core.behaviour import Behaviour
from probe_lib.history import framework_sweep, sweep, timeline
from probe_lib.history.release_map import ReleaseMap

#: The commit before the two tables became one.
BEFORE = "995eb89"


def _old(name: str) -> list[dict]:
    try:
        text = subprocess.run(
            ["git", "show", f"{BEFORE}:data/{name}"], cwd=paths.ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"the history before {BEFORE} is not here: {error}")
    return list(csv.DictReader(io.StringIO(text)))


def _new(path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def lines() -> list[dict]:
    return _new(timeline.TIMELINE_PATH)


def _measured_again(lines: list[dict], old: list[dict]) -> set[tuple[str, str]]:
    """The other frameworks' releases measured again since the merge, on purpose: those resolved as of a date before
    their registry date (the registry dates them after a later release of their line, 2026-12-05), those the old
    table recorded as failing to install that resolve now, and releases it did not list (bisection probes since)."""
    key = lambda line: (line["framework"], line["version"])  # noqa: E731
    earlier = {key(line) for line in lines if line["resolved_before"] and line["resolved_before"] < line["published"]}
    failed = {key(line) for line in old if line["kind"] == "install failed"}
    failing = {key(line) for line in lines if line["kind"] == "install failed"}
    return earlier | (failed - failing) | ({key(line) for line in lines} - {key(line) for line in old})


@pytest.mark.slow
def test_every_line_of_both_old_tables_is_in_the_timeline_with_equal_values_and_no_other(lines):
    others = _old("framework_timeline.csv")
    mastra = _old("version_timeline.csv")
    kept = [line for line in lines if line["framework"] != "mastra"]
    again = _measured_again(kept, others)
    assert 50 < len(again) < 70, sorted(again)  # 52 resolved earlier, 5 resolve now, 1 probe: no wholesale change
    same = [line for line in kept if (line["framework"], line["version"]) not in again]
    assert same == [line for line in others if (line["framework"], line["version"]) not in again], "in their order"
    # Mastra's releases swept since the merge (the registry served them later: 1.29.0 and 1.0.0-beta.19 so far) note
    # the day they were installed, which no old line does; the other lines are the old table's.
    listed = {line["version"] for line in mastra}
    later = {line["version"] for line in lines if line["framework"] == "mastra" and line["resolved_before"]}
    assert {line["version"] for line in lines if line["framework"] == "mastra"} - listed == later and len(later) < 10
    own = [line for line in lines if line["framework"] == "mastra" and line["version"] in listed]
    assert len(own) == len(mastra)
    for new, old in zip(own, mastra):
        kind = old["error_kind"] or timeline.SENT
        assert (new["version"], new["prerelease"], new["scenario"], new["kind"]) == (
            old["version"],
            old["prerelease"],
            old["scenario"],
            kind,
        )
        assert (new["outcome"], new["behaviour"]) == (old["outcome"], old["behaviour"])
        assert timeline.Line(**new).row().error_kind == old["error_kind"]
        assert new["published"] and new["role"] == "sample" and new["resolved_before"] == ""


@pytest.mark.slow
def test_every_old_release_is_listed_and_each_measured_mastra_version_too(lines):
    releases = _new(timeline.RELEASES_PATH)
    again = _measured_again([line for line in lines if line["framework"] != "mastra"], _old("framework_timeline.csv"))
    old = _old("framework_releases.csv")
    assert [r for r in releases if r["framework"] != "mastra"] == [
        {**r, "role": new["role"]} if (r["framework"], r["version"]) in again and not r["role"] else r
        for r, new in zip(old, [r for r in releases if r["framework"] != "mastra"], strict=True)
    ], "every old release listed, in order; only a release measured since takes a role"
    listed = {r["version"] for r in releases if r["framework"] == "mastra" and r["role"]}
    assert listed == {line["version"] for line in lines if line["framework"] == "mastra"}


@pytest.mark.slow
def test_every_stored_behaviour_reads_back_typed_and_writes_back_the_same_text(lines):
    for line in lines:
        behaviour = Behaviour.from_json(json.loads(line["behaviour"]))
        assert json.dumps(behaviour.to_json(), ensure_ascii=False, sort_keys=True) == line["behaviour"], line
        assert (behaviour.names is None) == ("names" not in json.loads(line["behaviour"]))


def test_a_stored_behaviour_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="unknown fields"):
        Behaviour.from_json({"names": [], "tool_choise": None})


@pytest.mark.slow
def test_a_mastra_sweep_writes_through_the_one_timeline_and_never_leaves_it_partial(tmp_path, monkeypatch):
    """``probe-lib sweep --version V --write`` on Mastra replaces V's lines in the one table, keeps every other line
    (of Mastra and of the others), and leaves out a scenario no other Mastra release holds (added to the catalogue
    since), so the timeline holds each scenario on every release or on none."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    for name in ("TIMELINE_PATH", "RELEASES_PATH"):
        copy = tmp_path / getattr(timeline, name).name
        copy.write_bytes(getattr(timeline, name).read_bytes())
        monkeypatch.setattr(timeline, name, copy)
    before = timeline.read(path=timeline.TIMELINE_PATH)
    again = sweep.Row("1.67.0", "single-rewrite", "0123456789", "", '{"names": ["search_web"]}')
    newer = sweep.Row("1.67.0", "a-scenario-added-since", "9876543210", "", '{"names": []}')
    mapped = ReleaseMap("mastra", ("1.67.0",), ("1.67.0",), {"1.67.0": [again, newer]}, (), 0)
    timeline.write(mapped, framework_sweep.subject("mastra"))
    after = timeline.read(path=timeline.TIMELINE_PATH)
    assert [line.row() for line in after if (line.framework, line.version) == ("mastra", "1.67.0")] == [again]
    untouched = [line for line in before if (line.framework, line.version) != ("mastra", "1.67.0")]
    assert [line for line in after if (line.framework, line.version) != ("mastra", "1.67.0")] == untouched


def test_a_cell_is_coloured_by_what_its_request_shows_before_the_capture_server_s_refusal_raised_after_it():
    """LlamaIndex raises the capture server's 400 after every request; its cell still shows T09's finding (the forced
    tool absent from the tools sent) and the round trip that ran, and a plain request with the refusal alone reads
    as sent, then threw."""
    from probe_lib.analysis import timeline as tables

    grid = tables.categories(tables.frame(timeline.read(["llama-index"])))
    assert grid.at["dot+forced", "0.14.25"] == "sent; forced tool not in tools"
    assert grid.at["legal+round-trip", "0.14.25"] == "sent; a tool ran"
    assert grid.at["dot+forced", "0.14.10"] == "sent, then threw"  # it forced search.web, which it sent


def test_a_bare_string_tool_choice_naming_no_tool_sent_is_coloured_as_the_forced_tool_not_in_tools():
    """LangChain from 0.3.9 sends the name it forces as a bare string (T03): the chart says so, as notebook 12's."""
    from probe_lib.analysis import timeline as tables

    grid = tables.categories(tables.frame(timeline.read(["langchain"])))
    assert grid.at["unregistered-choice+forced", "0.3.9"] == "sent; forced tool not in tools"
    assert grid.at["unregistered-choice+forced", "0.3.7"] == "sent; forced tool not in tools"  # the object form
