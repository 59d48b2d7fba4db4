"""The claims ledger: every claim of the article and every finding of ours, judged on measured outcomes.

``data/claims.csv`` lists the claims (paraphrased, with the article section or finding they come from and the
notebook that shows them). Each claim has one check, registered under its id with :func:`check`, with the
framework it is about (``probe_lib.study.mastra_checks`` for Mastra, ``probe_lib.study.framework_checks`` for the
frameworks of the matrix, judged on each one's matrix outcomes). A check reads the outcomes of one version (live
or recorded) and returns a status and one line of evidence: confirmed (holds as stated), refined (holds with a
qualification measured here), refuted (measured otherwise), not testable (the version lacks the feature), or
failed (the evidence lacks what the check needs: a defect of the kit or of the recording, never of the framework).

This module knows nothing about any framework: outcomes are whatever objects the adapter's checks read.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Generic, Literal, TypeVar

import pandas as pd

from probe_lib.core import paths
from probe_lib.core.errors import InputError

CLAIMS_PATH = paths.DATA / "claims.csv"
Status = Literal["confirmed", "refined", "refuted", "not testable", "failed"]
STATUSES: tuple[Status, ...] = ("confirmed", "refined", "refuted", "not testable", "failed")

OutcomeT = TypeVar("OutcomeT")


@dataclass(frozen=True)
class Claim:
    id: str
    origin: Literal["article", "finding"]
    section: str
    statement: str
    notebook: str


@dataclass(frozen=True)
class Verdict:
    claim: str
    version: str
    status: Status
    evidence: str


class CheckError(Exception):
    """The evidence lacks what a check needs (a scenario, a request, an error); the claim is judged "failed"."""


@dataclass(frozen=True)
class Evidence(Generic[OutcomeT]):
    """What a check may read: the outcomes of one version by scenario name, and of every version measured."""

    version: str
    outcomes: Mapping[str, OutcomeT]
    by_version: Mapping[str, Mapping[str, OutcomeT]]
    #: How the outcomes were obtained ("live", "recorded" …), for titles and tables that must name their source.
    source: str = "unstated"

    @property
    def label(self) -> str:
        """``@mastra/core <version>, <source>``: what a chart title or verdict table says it shows."""
        return f"@mastra/core {self.version}, {self.source}"

    def __getitem__(self, scenario: str) -> OutcomeT:
        try:
            return self.outcomes[scenario]
        except KeyError:
            raise CheckError(f"scenario {scenario!r} was not measured on {self.version}") from None


Check = Callable[[Evidence], tuple[Status, str]]
#: Claim id -> its check; filled by the adapters' check modules as they are imported.
CHECKS: dict[str, Check] = {}
#: Claim id -> the framework whose outcomes its check reads (the adapter name: ``mastra``, ``crewai`` …).
FRAMEWORKS: dict[str, str] = {}
#: The framework whose pinned versions :func:`ledger`'s ``by_version`` holds.
MASTRA = "mastra"
#: The modules whose import registers the checks of data/claims.csv; :func:`load_claims` imports them all, so
#: whoever reads the ledger judges every claim.
CHECK_MODULES = ("probe_lib.study.mastra_checks", "probe_lib.study.framework_checks", "probe_lib.analysis.timeline")


@dataclass(frozen=True)
class Timeline:
    """What a version-range claim is judged on: one table of many versions' outcomes, and the span it covers."""

    #: The versions covered, as the ledger's version column shows them (e.g. ``0.1.0..1.71.0 (141 versions)``).
    span: str
    table: object

    @property
    def label(self) -> str:
        """What a verdict table says these verdicts were judged on."""
        return f"the timeline of {self.span}"


RangeCheck = Callable[[Timeline], tuple[Status, str]]
#: Claim id -> its check, for claims about a range of versions (since when, until when); judged once per ledger.
RANGE_CHECKS: dict[str, RangeCheck] = {}


def _registrar(registry: dict, claim_id: str, framework: str) -> Callable:
    def register(function: Callable) -> Callable:
        if claim_id in CHECKS or claim_id in RANGE_CHECKS:
            known = (CHECKS | RANGE_CHECKS)[claim_id]
            raise ValueError(f"claim {claim_id} already has a check: {getattr(known, '__qualname__', '?')}")
        registry[claim_id] = function
        FRAMEWORKS[claim_id] = framework
        return function

    return register


def check(claim_id: str, framework: str = MASTRA) -> Callable[[Check], Check]:
    """Register the decorated function as the check of ``claim_id``, judged on each version of ``framework`` (one
    check per claim)."""
    return _registrar(CHECKS, claim_id, framework)


def range_check(claim_id: str) -> Callable[[RangeCheck], RangeCheck]:
    """Register the decorated function as the check of ``claim_id``, judged once on a :class:`Timeline` of Mastra."""
    return _registrar(RANGE_CHECKS, claim_id, MASTRA)


def load_claims() -> list[Claim]:
    """The ledger's claims, each with a registered check; raises ``InputError`` if the file drifts."""
    for module in CHECK_MODULES:  # imported here, not above: they sit in layers above this one
        import_module(module)
    with CLAIMS_PATH.open(newline="", encoding="utf-8") as handle:
        claims = [Claim(**row) for row in csv.DictReader(handle)]
    ids = [claim.id for claim in claims]
    if len(set(ids)) != len(ids):
        raise InputError(f"{CLAIMS_PATH.name}: claim ids repeat")
    missing = sorted(set(ids) ^ set(CHECKS) ^ set(RANGE_CHECKS))
    if missing:
        raise InputError(
            f"{CLAIMS_PATH.name} and the registered checks disagree on claims {missing}: each claim needs one check "
            f"(checks are registered by importing {', '.join(CHECK_MODULES)})"
        )
    return claims


def judge(claim: Claim, evidence: Evidence | Timeline) -> Verdict:
    """Run one claim's check; a check whose evidence lacks what it needs is reported as failed, with the reason."""
    is_range = isinstance(evidence, Timeline)
    try:
        status, text = (RANGE_CHECKS if is_range else CHECKS)[claim.id](evidence)
    except CheckError as error:
        status, text = "failed", f"check could not run: {error}"
    return Verdict(claim.id, evidence.span if is_range else evidence.version, status, text)


def claims_of(framework: str) -> list[Claim]:
    """The claims whose checks read ``framework``'s outcomes."""
    return [claim for claim in load_claims() if FRAMEWORKS[claim.id] == framework]


def ledger(
    by_version: Mapping[str, Mapping[str, object]],
    timeline: Timeline | None = None,
    *,
    by_target: Mapping[str, Mapping[str, object]] | None = None,
    sources: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per (claim, version): the claim, the framework it is about, where it comes from, its status and one
    line of evidence.

    ``by_version`` holds Mastra's outcomes per pinned version. A version-range claim is judged once, on
    ``timeline``, in a row whose version is the timeline's span; without a timeline those claims are left out.
    ``by_target`` (``framework@version`` -> outcomes, the framework matrix) judges every other framework's claims
    on each of that framework's targets, with ``sources`` saying how each target was measured; without it, those
    claims are left out.
    """
    rows = []
    for claim in load_claims():
        framework = FRAMEWORKS[claim.id]
        if claim.id in RANGE_CHECKS:
            judged = [(timeline, "unstated")] if timeline is not None else []
        elif framework == MASTRA:
            judged = [(Evidence(v, outcomes, by_version), "unstated") for v, outcomes in by_version.items()]
        else:
            judged = []
            for target, outcomes in (by_target or {}).items():
                name, _, version = target.partition("@")
                if name == framework:
                    source = (sources or {}).get(target, "unstated")
                    judged.append((Evidence(version, outcomes, by_target, source), source))
        for evidence, source in judged:
            verdict = judge(claim, evidence)
            rows.append(
                {
                    "claim": claim.id,
                    "framework": framework,
                    "origin": claim.origin,
                    "section": claim.section,
                    "statement": claim.statement,
                    "notebook": claim.notebook,
                    "version": verdict.version,
                    "source": source,
                    "status": verdict.status,
                    "evidence": verdict.evidence,
                }
            )
    return pd.DataFrame(rows)


def status_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Mastra's claims as rows, versions as columns (in the ledger's order), statuses as cells: the ledger at a glance.

    A version-range claim has one status, in its span's column; its other cells are empty (NaN). The other
    frameworks' claims are not in it (each has its own versions).
    """
    table = table[table["framework"] == MASTRA]
    return table.pivot(index="claim", columns="version", values="status").reindex(columns=table["version"].unique())


def statuses_with_statements(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`status_matrix` with each claim's statement and notebook beside its statuses, so a reader sees what
    was judged before how it fared."""
    info = table.drop_duplicates("claim").set_index("claim")[["statement", "notebook"]]
    return info.join(status_matrix(table), how="inner")
