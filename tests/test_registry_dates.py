"""A release the registry dates after a later release of its own line is found and resolved as of that later
release's date, its late requirements named outright (on made-up listings where the answer is known, and on real
releases of the npm registry and PyPI); its sweep results are cached apart from those of the registry's date; and
a since-when verdict naming a release still resolved as of its late date says so (T17 names two Claude Agent SDK
releases the npm registry dates months after 0.2.54)."""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import replace
from datetime import timedelta

import pytest

from probe_lib import frameworks
from probe_lib.analysis import timeline as tables
from probe_lib.claims import framework_ranges, ledger
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import Verdict
from probe_lib.core import paths
from probe_lib.history import framework_sweep, sweep
from probe_lib.history import timeline as committed
from probe_lib.install import releases as releases_module
from probe_lib.install.releases import RESOLUTION, Releases, parse_time


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


def _verdict(claim_id: str, timeline: Timeline) -> Verdict:
    return ledger.judge(next(c for c in ledger.load_claims() if c.id == claim_id), timeline)


def _claude_resolved_as_of_their_own_dates(monkeypatch, versions: set[str]) -> Timeline:
    """The Claude Agent SDK's committed timeline with ``versions`` resolved as of their registry dates (as an earlier
    kit resolved them), the rest as committed."""
    lines = [
        replace(line, resolved_before=line.published) if line.version in versions else line
        for line in committed.read(["claude-agent-sdk"])
    ]
    monkeypatch.setattr(
        committed, "read", lambda frameworks, path=None: [line for line in lines if line.framework in frameworks]
    )
    served = [release.version for release in committed.read_releases() if release.framework == "claude-agent-sdk"]
    return Timeline.of(tables.frame(lines), releases=served)


def test_the_committed_timeline_resolves_every_release_dated_late_as_of_the_earlier_date():
    """Every measured release the registry dates after a later release of its line was measured resolved as of that
    release's date: no verdict carries the caveat (T18 names 0.1.0, which the registry dates after 0.1.11)."""
    timelines = framework_ranges.timelines()
    assert all(timeline.backdated == {} for timeline in timelines.values())
    late = committed.backdated(committed.read_releases())
    for line in committed.read([name for name in timelines if name != "mastra"]):
        if (found := late.get((line.framework, line.version))) is not None:
            assert line.resolved_before == found.successor.published, (line.framework, line.version)


def test_a_verdict_naming_releases_resolved_as_of_a_late_date_says_so_and_one_without_them_does_not(monkeypatch):
    claude = _claude_resolved_as_of_their_own_dates(monkeypatch, {"0.2.49", "0.2.50"})
    assert {"0.2.49", "0.2.50"} <= set(claude.backdated)
    verdict = _verdict("T17", claude)
    assert verdict.status == "confirmed"
    caveat = verdict.evidence.partition("; the registry dates ")[2]
    assert caveat.startswith("0.2.49 2026-05-14 (0.2.54: 2026-02-25), 0.2.50 2026-03-21 (0.2.54: 2026-02-25) after")
    undated = _verdict("T17", replace(claude, backdated={}))
    assert "registry dates" not in undated.evidence and verdict.evidence.startswith(undated.evidence)


def test_a_version_is_named_only_whole(monkeypatch):
    """``0.1.1`` inside ``0.1.10`` or ``0.1.10.`` at a sentence's end: only the whole version counts."""
    claude = _claude_resolved_as_of_their_own_dates(monkeypatch, {"0.2.49"})
    timeline = replace(claude, backdated={"0.1.1": claude.backdated["0.2.49"]})
    assert timeline.dates_caveat("from 0.1.10 and 0.1.100 on") == ""
    assert timeline.dates_caveat("up to 0.1.1.") != ""


def test_mastra_verdicts_carry_no_such_caveat():
    """Mastra's served releases are resolved as of the day they are installed, not of their registry date."""
    releases = committed.read_releases()
    assert any(framework == "mastra" for framework, _ in committed.backdated(releases))
    table = tables.frame(committed.read(["mastra"]))
    assert Timeline.of(table).backdated == {}


def test_a_release_resolved_before_its_successor_came_out_carries_no_caveat(monkeypatch):
    """The caveat follows the date each release was resolved as of, as its lines note it: 0.2.50 resolved as of
    0.2.54's date (as committed) is not named; 0.2.49 resolved as of its own late date is."""
    timeline = _claude_resolved_as_of_their_own_dates(monkeypatch, {"0.2.49"})
    assert "0.2.49" in timeline.backdated and "0.2.50" not in timeline.backdated
    caveat = _verdict("T17", timeline).evidence.partition("; the registry dates ")[2]
    assert caveat.startswith("0.2.49 2026-05-14 (0.2.54: 2026-02-25) after") and "0.2.50 2026" not in caveat


def _listed(private_cache, package: str, days: dict[str, str], **made) -> Releases:
    """``package`` as if its registry listed the versions of ``days`` on those days (or at the times of ``dated``),
    its listing kept in the cache where a real one is kept."""
    releases = Releases(package, made.get("registry", "npm"), made.get("label", "made-up"))
    listing = private_cache / "releases" / releases.registry / f"{package}.json"
    listing.parent.mkdir(parents=True, exist_ok=True)
    dated = made.get("dated") or {v: f"{day}T00:00:00Z" for v, day in days.items()}
    listing.write_text(json.dumps(dated), encoding="utf-8")
    return releases


def test_a_release_dated_after_a_later_release_of_its_line_is_resolved_as_of_that_release(private_cache):
    releases = _listed(
        private_cache, "made-up-a", {"3.1.0": "2024-05-01", "3.1.1": "2024-09-01", "3.1.2": "2024-05-20"}
    )
    assert releases.resolved_before("3.1.1") == "2024-05-20T00:00:00Z", "the later release's date, not its own"
    assert "after 3.1.2 of its own line (2024-05-20T00:00:00Z)" in releases.bound("3.1.1")
    assert releases.resolved_before("3.1.0") == "2024-05-01T01:00:00Z", "in order: its own date and the margin"
    assert releases.resolved_before("3.1.2") == "2024-05-20T01:00:00Z"


@pytest.mark.slow
@pytest.mark.node
def test_an_exact_dependency_the_registry_dates_late_is_named_outright_for_its_dependant_only(private_cache):
    """Measured on the registry: @openai/agents 0.16.1 requires @openai/agents-core at exactly 0.16.1, which the
    registry dates nearly four days after it (as docs/frameworks.md says), so resolving as of its own day failed
    ("cannot be resolved as of its day").
    ai 3.1.0 is dated after 3.1.28 and requires @ai-sdk/provider-utils 0.0.5, dated later still, while the
    @ai-sdk/openai beside it asks for another version: that one is not overridden."""
    agents = frameworks.get("openai-agents-js").pins
    folder = agents.folder("0.16.1")
    resolution = json.loads((folder / RESOLUTION).read_text(encoding="utf-8"))
    assert "@openai/agents-core@0.16.1" in resolution["named_outright"]
    assert "@openai/agents-core@0.16.1" in json.loads((folder / "package.json").read_text())["overrides"]
    assert _locked(folder)["node_modules/@openai/agents-core"] == "0.16.1"
    core = Releases("@openai/agents-core", "npm", "openai-agents-core")
    late = parse_time(core.published("0.16.1")) - parse_time(agents.releases.published("0.16.1"))
    assert timedelta(days=3.5) <= late < timedelta(days=4), late
    assert "is dated nearly four days after it" in (paths.ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")

    ai = frameworks.get("ai-sdk").pins
    folder = ai.folder("3.1.0")
    resolution = json.loads((folder / RESOLUTION).read_text(encoding="utf-8"))
    published = ai.releases.published("3.1.0")
    assert resolution["resolved_before"] == ai.releases.published("3.1.28") < published
    assert resolution["published"] == published and "after 3.1.28 of its own line" in resolution["bound"]
    locked = _locked(folder)
    assert locked["node_modules/ai"] == "3.1.0", "the release itself, which the earlier bound filters out"
    assert locked["node_modules/ai/node_modules/@ai-sdk/provider-utils"] == "0.0.5"
    assert locked["node_modules/@ai-sdk/provider-utils"] != "0.0.5", "@ai-sdk/openai keeps the version it asks for"


def _locked(folder) -> dict[str, str]:
    packages = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    return {path: entry.get("version") for path, entry in packages.items() if path}


@pytest.mark.node
def test_a_release_resolved_earlier_than_its_registry_date_is_cached_apart(private_cache):
    """Rows an earlier kit cached for ai 3.1.0 (resolved as of its registry date) are not read for it now; a release
    resolved as of its own date (3.1.28) is read where it always was."""
    subject = framework_sweep.subject("ai-sdk")
    folder = sweep.cache_dir(subject)
    (folder / sweep.RESOLVED_EARLIER).mkdir(parents=True)

    def plant(path, version: str, outcome: str) -> None:
        row = sweep.Row(version, "legal", outcome, "", "{}")
        path.write_text(json.dumps([row.__dict__]), encoding="utf-8")

    plant(folder / "3.1.0.json", "3.1.0", "as of its registry date")
    plant(folder / sweep.RESOLVED_EARLIER / "3.1.0.json", "3.1.0", "as of 3.1.28's")
    plant(folder / "3.1.28.json", "3.1.28", "as of its own")
    assert [row.outcome for row in sweep.cached("3.1.0", subject)] == ["as of 3.1.28's"]
    assert [row.outcome for row in sweep.cached("3.1.28", subject)] == ["as of its own"]
    assert [(row.version, row.outcome) for row in sweep.all_cached(subject)] == [
        ("3.1.0", "as of 3.1.28's"),
        ("3.1.28", "as of its own"),
    ]


@pytest.mark.slow
def test_a_pypi_release_dated_late_is_let_in_by_name_and_the_rest_resolved_as_of_the_bound(private_cache):
    """No PyPI release is so dated (docs/frameworks.md's table), so one is made so: smolagents 1.21.1's listed date
    moved after 1.21.2's. uv filters by the real upload times: the release must be let in by name, and the rest is
    resolved as of 1.21.2's date."""
    real = Releases("smolagents", "pypi", "smolagents").listing()
    moved = {**real, "1.21.1": "2025-09-30T00:00:00Z"}
    releases = _listed(private_cache, "smolagents", {}, registry="pypi", label="smolagents-moved", dated=moved)
    assert releases.resolved_before("1.21.1") == real["1.21.2"]
    folder = releases.generate("1.21.1", {"smolagents": "==1.21.1"})
    resolution = json.loads((folder / RESOLUTION).read_text(encoding="utf-8"))
    assert resolution["named_outright"] == {"smolagents": "1.21.1, uploaded 2025-09-30T00:00:00Z"}
    lock = (folder / "requirements.lock").read_text(encoding="utf-8")
    assert "smolagents==1.21.1" in lock and f"as of {real['1.21.2']}" in lock.splitlines()[0]


@pytest.mark.slow
@pytest.mark.node
def test_a_bounded_release_gets_the_platform_binary_published_in_its_own_release_job(private_cache):
    """The Claude Agent SDK 0.3.219 is dated after 0.3.220, so it is resolved as of 0.3.220's date, which leaves out
    its linux-x64 binary (an optional dependency at its own version, dated three seconds after it): without that
    binary the release cannot run. The binary fitting this machine is named outright, the other platforms' are not."""
    pins = frameworks.get("claude-agent-sdk").pins
    folder = pins.folder("0.3.219")
    named = json.loads((folder / RESOLUTION).read_text(encoding="utf-8"))["named_outright"]
    assert set(named) == {"@anthropic-ai/claude-agent-sdk@0.3.219", "@anthropic-ai/claude-agent-sdk-linux-x64@0.3.219"}
    assert _locked(folder)["node_modules/@anthropic-ai/claude-agent-sdk-linux-x64"] == "0.3.219"


def test_a_platform_package_fits_this_machine_by_its_os_cpu_and_libc_fields():
    assert releases_module._fits_here({})
    here = {"os": [sys.platform], "cpu": ["x64" if platform.machine() == "x86_64" else platform.machine()]}
    assert releases_module._fits_here(here)
    assert not releases_module._fits_here({**here, "os": ["win32"]})
    assert not releases_module._fits_here({**here, "os": [f"!{sys.platform}"]})
    assert not releases_module._fits_here({**here, "cpu": ["s390x"]})
    assert releases_module._fits_here({"os": ["!win32"]}), "a list that only excludes admits the others"


#: npm 10's words for a version ``--before`` filtered out: its hint on two lines after the one that says what failed.
NPM_10_NOTARGET = """npm error code ETARGET
npm error notarget No matching version found for @openai/agents-core@>=0.16.1 <0.17 with a date before 8/16/2026.
npm error notarget In most cases you or one of your dependencies are requesting
npm error notarget a package version that doesn't exist.
npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log"""


def test_npm_saying_no_version_as_of_the_date_is_read_on_npm_10_as_on_11():
    said = releases_module.last_line(NPM_10_NOTARGET)
    assert said.startswith("npm error notarget No matching version found for @openai/agents-core@")
    found = releases_module._NOT_AS_OF.search(said)
    assert (found["name"], found["spec"]) == ("@openai/agents-core", ">=0.16.1 <0.17")


def test_a_package_of_the_harness_with_no_version_as_of_the_date_is_read_with_the_harness_spec():
    """npm names no spec when every version of a package the harness asks for itself is dated later (ai 4.0.0 as of
    2024-12-12 and @ai-sdk/openai-compatible): the spec is the harness's; a package it does not ask for is not read."""
    said = releases_module.last_line(
        "npm error code ENOVERSIONS\nnpm error No versions available for @ai-sdk/openai-compatible"
    )
    asked = {"ai": "4.0.0", "@ai-sdk/openai-compatible": "0.x"}
    assert releases_module._refused_as_of(said, asked) == {"name": "@ai-sdk/openai-compatible", "spec": "0.x"}
    assert releases_module._refused_as_of(said, {"ai": "4.0.0"}) is None


def test_pypi_dates_no_release_of_a_swept_package_after_a_later_release_of_its_line_as_the_docs_say():
    """docs/frameworks.md says so of every swept PyPI package (not only the releases measured): held to the committed
    release list, which a sweep writes from the registry's listing."""
    said = "PyPI dates no release of the swept packages after a later release of its line"
    assert said in " ".join((paths.ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8").split())
    late = committed.backdated(committed.read_releases())
    on_pypi = sorted(key for key in late if framework_sweep.subject(key[0]).registry == "pypi")
    assert not on_pypi, on_pypi
    assert any(framework_sweep.subject(framework).registry == "npm" for framework, _ in late), "the check reads dates"
