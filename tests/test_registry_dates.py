"""A release the registry dates after a later release of its own line is found, and every since-when verdict that
names one says so: on made-up release lists where the answer is known, and on the committed timeline (T18 names two
Claude Agent SDK releases the npm registry dates months after 0.1.11)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from probe_lib.analysis import timeline as tables
from probe_lib.claims import framework_ranges, ledger
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import Verdict
from probe_lib.history import timeline as committed


def _releases(*dated: tuple[str, str], framework: str = "ai-sdk") -> list[committed.Release]:
    return [committed.Release(framework, "ai", version, "no", f"{day}T00:00:00Z", "") for version, day in dated]


def test_a_release_dated_after_a_later_release_of_its_line_is_found_with_the_earliest_such():
    releases = _releases(
        ("3.1.0", "2024-05-01"), ("3.1.1", "2024-09-01"), ("3.1.2", "2024-06-01"), ("3.1.3", "2024-05-20")
    )
    found = committed.backdated(releases)
    assert set(found) == {("ai-sdk", "3.1.1"), ("ai-sdk", "3.1.2")}
    assert found[("ai-sdk", "3.1.1")].successor.version == "3.1.3", "the earliest dated of the later ones"
    assert str(found[("ai-sdk", "3.1.1")]) == "3.1.1 2024-09-01 (3.1.3: 2024-05-20)"


def test_dates_in_order_and_a_fix_on_an_older_line_are_not_flagged():
    in_order = _releases(("3.1.0", "2024-05-01"), ("3.1.1", "2024-05-02"), ("3.2.0", "2024-06-01"))
    assert committed.backdated(in_order) == {}
    backport = _releases(("3.1.0", "2024-05-01"), ("3.2.0", "2024-06-01"), ("3.1.1", "2024-07-01"))
    assert committed.backdated(backport) == {}, "3.1.1 after 3.2.0 is a fix on the older line, not a wrong date"


def test_prereleases_neither_are_flagged_nor_flag_others():
    releases = [
        *_releases(("3.1.0", "2024-09-01")),
        committed.Release("ai-sdk", "ai", "3.1.1-beta.0", "yes", "2024-05-01T00:00:00Z", ""),
    ]
    assert committed.backdated(releases) == {}


@pytest.fixture(scope="module")
def claude() -> Timeline:
    return framework_ranges.timelines({"claude-agent-sdk"})["claude-agent-sdk"]


def _verdict(claim_id: str, timeline: Timeline) -> Verdict:
    return ledger.judge(next(c for c in ledger.load_claims() if c.id == claim_id), timeline)


def test_a_verdict_naming_backdated_releases_says_so_and_one_without_them_does_not(claude):
    assert {"0.1.9", "0.1.10"} <= set(claude.backdated)
    verdict = _verdict("T18", claude)
    assert verdict.status == "confirmed"
    caveat = verdict.evidence.partition("; the registry dates ")[2]
    assert caveat.startswith("0.1.9 2026-03-21 (0.1.11: 2025-10-08), 0.1.10 2026-08-19 (0.1.11: 2025-10-08) after")
    undated = _verdict("T18", replace(claude, backdated={}))
    assert "registry dates" not in undated.evidence and verdict.evidence.startswith(undated.evidence)


def test_a_version_is_named_only_whole(claude):
    """``0.1.1`` inside ``0.1.10`` or ``0.1.10.`` at a sentence's end: only the whole version counts."""
    one = next(iter(claude.backdated.values()))
    timeline = replace(claude, backdated={"0.1.1": one})
    assert timeline.dates_caveat("from 0.1.10 and 0.1.100 on") == ""
    assert timeline.dates_caveat("up to 0.1.1.") != ""


def test_mastra_verdicts_carry_no_such_caveat():
    """Mastra's served releases are resolved as of the day they are installed, not of their registry date."""
    releases = committed.read_releases()
    assert any(framework == "mastra" for framework, _ in committed.backdated(releases))
    table = tables.frame(committed.read(["mastra"]))
    assert Timeline.of(table).backdated == {}


def test_a_release_resolved_before_its_successor_came_out_carries_no_caveat(monkeypatch):
    """The caveat follows the date each release was resolved as of, as its lines note it: 0.1.10 resolved as of a
    day before 0.1.11 was published (as a bound would resolve it) is no longer named; 0.1.9 still is."""
    lines = committed.read(["claude-agent-sdk"])
    bounded = [
        replace(line, resolved_before="2025-10-01T00:00:00Z")
        if (line.framework, line.version) == ("claude-agent-sdk", "0.1.10")
        else line
        for line in lines
    ]
    monkeypatch.setattr(
        committed, "read", lambda frameworks, path=None: [line for line in bounded if line.framework in frameworks]
    )
    served = [release.version for release in committed.read_releases() if release.framework == "claude-agent-sdk"]
    timeline = Timeline.of(tables.frame(bounded), releases=served)
    assert "0.1.9" in timeline.backdated and "0.1.10" not in timeline.backdated
    caveat = _verdict("T18", timeline).evidence.partition("; the registry dates ")[2]
    assert caveat.startswith("0.1.9 2026-03-21 (0.1.11: 2025-10-08) after") and "0.1.10 2026" not in caveat
