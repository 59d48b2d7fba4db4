"""A claim that says "never", "every", "all", "only", "settles" or "identical" needs a check that reads every case
the word ranges over.

Each such claim declares its cases where its check is registered (``quantified=``). The guard
runs every declared check on the recordings with its evidence instrumented: a Mastra or framework check's outcome
mappings record each scenario (or probe) looked up, a version-range check's timeline records each version's line
whose behaviour it read. Wherever the check confirms or refines its claim, every declared case must have been read:
a check that skips one (as F07's did with ``call-by-key``) fails here, which the last tests show on checks written
to skip one case.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace

import pytest

from probe_lib.analysis import timeline
from probe_lib.claims import ledger, registry
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import MASTRA
from probe_lib.core.behaviour import Behaviour
from probe_lib.core.target import version_key
from probe_lib.frameworks.mastra import catalogue
from probe_lib.measure import matrix_runs
from probe_lib.tables.evidence import Evidence

QUANTIFIER = re.compile(r"\b(never|every|all|only|settles|identical)\b", re.IGNORECASE)
#: Verdicts that assert the claim holds, so must rest on every case.
ASSERTING = {"confirmed", "refined"}
#: Claim id -> its declared cases, for every claim registered with some.
QUANTIFIED = {claim_id: entry.quantified for claim_id, entry in registry.checks().items() if entry.quantified}


class Reads(Mapping):
    """One target's outcomes that note, in ``read``, each (target, scenario) a check looks up."""

    def __init__(self, target: str, outcomes: Mapping, read: set) -> None:
        self.target, self.outcomes, self.read = target, outcomes, read

    def __getitem__(self, scenario: str):
        self.read.add((self.target, scenario))
        return self.outcomes[scenario]

    def __iter__(self) -> Iterator[str]:
        return iter(self.outcomes)

    def __len__(self) -> int:
        return len(self.outcomes)


class WatchedBehaviour:
    """A timeline line's behaviour that notes, in ``read``, its (version, scenario) whenever a check reads any of it."""

    def __init__(self, behaviour: Behaviour, line: tuple[str, str], read: set) -> None:
        self._behaviour, self._line, self._read = behaviour, line, read

    def __getattr__(self, name: str):
        self._read.add(self._line)
        return getattr(self._behaviour, name)

    def items(self):
        self._seen()
        return super().items()


@pytest.fixture(scope="module")
def pinned(recorded_catalogue) -> dict:
    return recorded_catalogue


@pytest.fixture(scope="module")
def by_target(recorded_matrix, recorded_lists) -> dict:
    return matrix_runs.by_target(recorded_matrix + recorded_lists)


@pytest.fixture(scope="module")
def measured(pinned) -> Timeline:
    return Timeline.of(timeline.laid_over_summary(pinned))


def claim(claim_id: str) -> ledger.Claim:
    return next(c for c in ledger.load_claims() if c.id == claim_id)


def unread_cases(claim_id: str, pinned, by_target, measured) -> dict[str, list]:
    """Judged version or target -> the declared cases its check did not read although it confirmed or refined."""
    declared = QUANTIFIED[claim_id]
    missing = {}
    if registry.checks()[claim_id].kind == "timeline":
        read: set = set()
        table = measured.table.copy()
        table["behaviour"] = [
            WatchedBehaviour(line.behaviour, (line.version, line.scenario), read) for line in table.itertuples()
        ]
        verdict = ledger.judge(claim(claim_id), replace(measured, table=table))
        if verdict.status in ASSERTING:
            cases = {
                (line.version, line.scenario)
                for line in table.itertuples()
                if line.scenario in declared.scenarios and not timeline.sent_nothing(line)
            }
            if cases - read:
                missing[measured.span] = sorted(cases - read)
        return missing
    framework = registry.checks()[claim_id].framework
    runs = pinned if framework == MASTRA else by_target
    judged = [t for t in runs if framework == MASTRA or t.partition("@")[0] == framework]
    for target in judged:
        read = set()
        watched = {t: Reads(t, outcomes, read) for t, outcomes in runs.items()}
        verdict = ledger.judge(claim(claim_id), Evidence(target, watched[target], watched))
        if verdict.status not in ASSERTING:
            continue
        on = runs if declared.every_target else [target]
        cases = {(t, scenario) for t in on for scenario in declared.scenarios if scenario in runs[t]}
        if cases - read:
            missing[target] = sorted(cases - read)
    return missing


def test_every_quantifying_claim_declares_the_cases_it_ranges_over():
    quantifying = {c.id for c in ledger.load_claims() if QUANTIFIER.search(c.statement)}
    assert quantifying - set(QUANTIFIED) == set(), "quantifying claims without a declaration"
    assert set(QUANTIFIED) - quantifying == set(), "declarations for claims that no longer quantify"


def test_each_declared_case_is_a_case_the_kit_measures(by_target, measured):
    scenarios = set(catalogue.by_name())
    probes = {name for outcomes in by_target.values() for name in outcomes}
    swept = set(measured.table["scenario"])
    for claim_id, declared in QUANTIFIED.items():
        known = {"timeline": swept, "version": scenarios, "target": probes}[registry.checks()[claim_id].kind]
        assert declared.scenarios and set(declared.scenarios) <= known, (claim_id, set(declared.scenarios) - known)


@pytest.mark.parametrize("claim_id", sorted(QUANTIFIED))
def test_a_quantifying_check_reads_every_case_wherever_it_confirms(claim_id, pinned, by_target, measured):
    assert unread_cases(claim_id, pinned, by_target, measured) == {}


# -- the guard can fail: checks written to skip one case ------------------------------------------------------------


def _replace_check(monkeypatch, claim_id: str, check) -> None:
    """Register ``check`` in place of ``claim_id``'s for this test, with the claim's declaration kept."""
    monkeypatch.setitem(registry.CHECKS, claim_id, dataclasses.replace(registry.checks()[claim_id], check=check))


def test_the_guard_fails_a_toolname_check_that_skips_the_call_by_key(pinned, by_target, measured, monkeypatch):
    """F07's check before this guard: it read the wire-name, stream and id calls, never ``call-by-key``."""

    def without_call_by_key(e: Evidence):
        for scenario in ("call-by-wire-name", "call-by-wire-name-stream", "call-by-id", "docs-builtin-example"):
            e[scenario]
        return "confirmed", "toolName is the called name"

    _replace_check(monkeypatch, "F07", without_call_by_key)
    missing = unread_cases("F07", pinned, by_target, measured)
    assert set(missing) == set(pinned)
    assert all(cases == [(version, "call-by-key")] for version, cases in missing.items())


def test_the_guard_fails_a_range_check_that_skips_the_versions_before_the_change(
    pinned, by_target, measured, monkeypatch
):
    """A V01 check that looks only from 0.13.2 on leaves every earlier version unread."""

    def from_the_change_on(t: Timeline):
        lines = t.table[t.table["scenario"] == "single-rewrite"]
        for line in lines.itertuples():
            if version_key(line.version) >= version_key("0.13.2"):
                _ = line.behaviour.names
        return "confirmed", "search_web from 0.13.2 on"

    _replace_check(monkeypatch, "V01", from_the_change_on)
    missing = unread_cases("V01", pinned, by_target, measured)
    unread_versions = {version for version, _ in missing[measured.span]}
    assert "0.13.1" in unread_versions and "0.13.2" not in unread_versions


def test_the_guard_fails_a_matrix_claim_that_reads_one_framework(pinned, by_target, measured, monkeypatch):
    """X12 ranges over every framework of the matrix: a check reading LlamaIndex's runs alone is caught."""

    def llama_index_alone(e: Evidence):
        for scenario in e.outcomes:
            e[scenario]
        return "confirmed", "LlamaIndex forces an absent tool"

    _replace_check(monkeypatch, "X12", llama_index_alone)
    missing = unread_cases("X12", pinned, by_target, measured)
    assert missing and all(all(t.partition("@")[0] != "llama-index" for t, _ in cases) for cases in missing.values())
