"""The claims ledger: every claim of the article and every finding of ours, judged on measured outcomes.

``data/claims.csv`` lists the claims (paraphrased, with the article section or finding they come from and the
notebook that shows them). Each claim has one check, and :data:`CHECKS` and :data:`RANGE_CHECKS` are the one
registry of them, assembled from the modules that write them: :mod:`~probe_lib.claims.mastra` (each judged on one
``@mastra/core`` version's outcomes), :mod:`~probe_lib.claims.frameworks` (each other framework's, on its matrix
runs), :mod:`~probe_lib.claims.ranges` (judged once, on the timeline of every swept version) and
:mod:`~probe_lib.claims.framework_ranges` (each other framework's since-when claims, judged once on its committed
timeline). A check reads the
outcomes of one version (live or recorded) and returns a :data:`~probe_lib.claims.verdict.Status` and one line of
evidence.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from probe_lib.claims import framework_ranges, frameworks, mastra, ranges
from probe_lib.claims.framework_ranges import FrameworkRangeCheck
from probe_lib.claims.ranges import RangeCheck
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import MASTRA, Check, Quantified, Verdict
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.study.collection import MATRIX
from probe_lib.study.evidence import CheckError, Evidence
from probe_lib.study.matrix_runs import by_target
from probe_lib.study.measurement import Measurement

CLAIMS_PATH = paths.DATA / "claims.csv"


@dataclass(frozen=True)
class Claim:
    id: str
    origin: Literal["article", "finding"]
    section: str
    statement: str
    notebook: str


#: Claim id -> its check on one version's outcomes: Mastra's, then each other framework's.
CHECKS: dict[str, Check] = {**mastra.CHECKS, **{claim_id: check for claim_id, (_, check) in frameworks.CHECKS.items()}}
#: Claim id -> its check on a :class:`~probe_lib.claims.since.Timeline` (since when, until when).
RANGE_CHECKS: dict[str, RangeCheck] = dict(ranges.CHECKS)
#: Claim id -> its check on one other framework's committed timeline.
FRAMEWORK_RANGE_CHECKS: dict[str, FrameworkRangeCheck] = {
    claim_id: check for claim_id, (_, check) in framework_ranges.CHECKS.items()
}
#: Claim id -> what its quantifying word ranges over, for every claim whose statement has one.
QUANTIFIED: dict[str, Quantified] = {**mastra.QUANTIFIED, **frameworks.QUANTIFIED, **ranges.QUANTIFIED}
#: Claim id -> the framework whose outcomes its check reads (the adapter name: ``mastra``, ``crewai`` …).
FRAMEWORKS: dict[str, str] = {
    **{claim_id: MASTRA for claim_id in [*mastra.CHECKS, *ranges.CHECKS]},
    **{claim_id: framework for claim_id, (framework, _) in frameworks.CHECKS.items()},
    **{claim_id: framework for claim_id, (framework, _) in framework_ranges.CHECKS.items()},
}


def load_claims() -> list[Claim]:
    """The ledger's claims, each with its check; raises ``InputError`` if the file drifts from the registry."""
    with CLAIMS_PATH.open(newline="", encoding="utf-8") as handle:
        claims = [Claim(**row) for row in csv.DictReader(handle)]
    ids = [claim.id for claim in claims]
    if len(set(ids)) != len(ids):
        raise InputError(f"{CLAIMS_PATH.name}: claim ids repeat")
    checked = [*mastra.CHECKS, *frameworks.CHECKS, *ranges.CHECKS, *framework_ranges.CHECKS]
    if sorted(ids) != sorted(checked):
        odd = sorted({claim_id for claim_id in ids + checked if ids.count(claim_id) != checked.count(claim_id)})
        raise InputError(
            f"{CLAIMS_PATH.name} and the checks disagree on claims {odd}: each claim needs one check "
            "(in probe_lib.claims.mastra, frameworks, ranges or framework_ranges)"
        )
    return claims


def judge(claim: Claim, evidence: Evidence | Timeline) -> Verdict:
    """Run one claim's check; a check whose evidence lacks what it needs is reported as failed, with the reason."""
    is_range = isinstance(evidence, Timeline)
    checks = CHECKS if not is_range else FRAMEWORK_RANGE_CHECKS if claim.id in FRAMEWORK_RANGE_CHECKS else RANGE_CHECKS
    try:
        status, text = checks[claim.id](evidence)
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
    pin_sources: Mapping[str, str] | None = None,
    timeline_source: str = "unstated",
    framework_timelines: Mapping[str, Timeline] | None = None,
) -> pd.DataFrame:
    """One row per (claim, version): the claim, the framework it is about, where it comes from, its status and one
    line of evidence.

    ``by_version`` holds Mastra's outcomes per pinned version. A version-range claim is judged once, on
    ``timeline``, in a row whose version is the timeline's span; without a timeline those claims are left out.
    ``by_target`` (``framework@version`` -> outcomes, the framework matrix) judges every other framework's claims
    on each of that framework's targets, with ``sources`` saying how each target was measured; without it, those
    claims are left out. ``pin_sources`` (Mastra's version -> how its outcomes were measured) and
    ``timeline_source`` fill the other rows' ``source`` column; a row they do not name says ``unstated``.
    ``framework_timelines`` (framework -> its committed timeline) judges the other frameworks' release-range claims,
    each once; without that framework's timeline they are left out.
    """
    rows = []
    for claim in load_claims():
        framework = FRAMEWORKS[claim.id]
        if claim.id in RANGE_CHECKS:
            judged = [(timeline, timeline_source)] if timeline is not None else []
        elif claim.id in FRAMEWORK_RANGE_CHECKS:
            own = (framework_timelines or {}).get(framework)
            judged = [(own, framework_ranges.source())] if own is not None else []
        elif framework == MASTRA:
            judged = [
                (Evidence(v, outcomes, by_version), (pin_sources or {}).get(v, "unstated"))
                for v, outcomes in by_version.items()
            ]
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


def framework_ledger(measured: Sequence[Measurement]) -> pd.DataFrame:
    """The ledger's claims about the frameworks other than Mastra, judged on the matrix's and the Claude Agent SDK's
    list probes (``measured``, each target's measurement of a collection). One row per claim and target, with its
    framework, source (how the target's matrix measurement was made), verdict and evidence."""
    sources = {str(m.target): m.source for m in measured if m.collection == MATRIX.name}
    table = ledger({}, by_target=by_target(o for m in measured for o in m.outcomes), sources=sources)
    return table[["claim", "framework", "version", "source", "statement", "status", "evidence"]]


def framework_range_ledger(timelines: Mapping[str, Timeline]) -> pd.DataFrame:
    """The other frameworks' release-range claims, each judged on its framework's committed timeline (one row each,
    with its framework, span, source, verdict and evidence)."""
    table = ledger({}, framework_timelines=timelines)
    return table[["claim", "framework", "version", "source", "statement", "status", "evidence"]]


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


def verdicts(evidence: Evidence | Timeline, claim_ids: Iterable[str]) -> pd.DataFrame:
    """The named claims judged on ``evidence``: a small table a notebook shows before asserting; its last column
    names what the verdicts were judged on (version and source, or the timeline's span)."""
    by_id = {claim.id: claim for claim in load_claims()}
    judged = [(by_id[claim_id], judge(by_id[claim_id], evidence)) for claim_id in claim_ids]
    return pd.DataFrame(
        {
            "claim": [claim.id for claim, _ in judged],
            "statement": [claim.statement for claim, _ in judged],
            "status": [verdict.status for _, verdict in judged],
            "evidence": [verdict.evidence for _, verdict in judged],
            "judged on": [evidence.label] * len(judged),
        }
    )


#: The article's claims the kit measured otherwise on the pinned versions, each with why in a few words: a notebook's
#: closing check passes them (``assert_claims(table, REFUTED_AS_MEASURED)``) and stops on any other refutation.
REFUTED_AS_MEASURED = {
    "A04": "an emoji becomes two underscores, one per UTF-16 unit (F01)",
    "A08": "1.0.4 also logs the collision at error level; elsewhere it is refined: the caller finds the id only as "
    "its cause's code (F05)",
    "A09": "one rewritten key is refused beside a legal key it lands on, or alone on __proto__ (F17, F04)",
    "A22": "the valid key __proto__ is never offered (F06)",
    "A24": "the shipped docs also give toolChoice 'auto' and 'none', though no example names a tool (F19)",
}


def assert_claims(table: pd.DataFrame, explained: Mapping[str, str] | None = None) -> None:
    """Stop the notebook if a claim was refuted or its check failed, unless the notebook explains why; else say in
    words what was checked.

    ``explained`` maps claim ids to the notebook's explanation of an expected refutation.
    """
    explained = explained or {}
    broken = table[table["status"].isin(["refuted", "failed"]) & ~table["claim"].isin(list(explained))]
    if not broken.empty:
        lines = "; ".join(f"{row.claim} {row.status}: {row.evidence}" for row in broken.itertuples())
        raise AssertionError(f"claims did not hold: {lines}")
    counts = table["status"].value_counts()
    refuted = sorted(set(table.loc[table["status"] == "refuted", "claim"]))
    expected = "; ".join(f"{claim} refuted, as expected: {explained[claim]}" for claim in refuted)
    print(
        f"Checked {len(table)} verdicts ({', '.join(sorted(set(table['claim'])))}): "
        + (f"{expected}; no other refuted and no check failed" if refuted else "none refuted and no check failed")
        + f" ({', '.join(f'{n} {status}' for status, n in counts.items())})."
    )
