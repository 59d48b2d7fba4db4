"""The claims ledger: every claim of the article and every finding of ours, judged on measured outcomes.

``data/claims.csv`` lists the claims (paraphrased, with the article section or finding they come from and the
notebook that shows them). Each claim has one check, registered where it is written
(:mod:`~probe_lib.claims.registry`) by the modules that write them: :mod:`~probe_lib.claims.mastra` (each judged on
one ``@mastra/core`` version's outcomes), :mod:`~probe_lib.claims.frameworks` (each other framework's, on its matrix
targets), :mod:`~probe_lib.claims.ranges` (judged once, on the timeline of every swept version) and
:mod:`~probe_lib.claims.framework_ranges` (each other framework's since-when claims, judged once on its committed
timeline). A check reads its evidence (live or recorded) and returns a
:data:`~probe_lib.claims.verdict.Status` and one line of evidence.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import pandas as pd

from probe_lib.claims import registry
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import MASTRA, Verdict
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.measure.collection import MATRIX
from probe_lib.measure.matrix_runs import by_target
from probe_lib.measure.measurement import Measurement
from probe_lib.tables.evidence import CheckError, Evidence

CLAIMS_PATH = paths.DATA / "claims.csv"
#: The ledger's columns, in order: the claim, the framework it is about, where it comes from, what it was judged on
#: and the verdict.
_COLUMNS = "claim framework origin section statement notebook version source status evidence".split()
#: Those that the other frameworks' ledgers show.
_FRAMEWORK_COLUMNS = ["claim", "framework", "version", "source", "statement", "status", "evidence"]


@dataclass(frozen=True)
class Claim:
    id: str
    origin: Literal["article", "finding"]
    section: str
    statement: str
    notebook: str


def load_claims() -> list[Claim]:
    """The ledger's claims; raises ``InputError`` if the file drifts from the registered checks."""
    with CLAIMS_PATH.open(newline="", encoding="utf-8") as handle:
        claims = [Claim(**row) for row in csv.DictReader(handle)]
    ids = [claim.id for claim in claims]
    if len(set(ids)) != len(ids):
        raise InputError(f"{CLAIMS_PATH.name}: claim ids repeat")
    if odd := sorted(set(ids) ^ set(registry.checks())):
        raise InputError(
            f"{CLAIMS_PATH.name} and the checks disagree on claims {odd}: each claim needs one check "
            "(registered in probe_lib.claims.mastra, frameworks, ranges or framework_ranges)"
        )
    return claims


def judge(claim: Claim, evidence: Evidence | Timeline) -> Verdict:
    """Run one claim's check; a check whose evidence lacks what it needs is reported as failed, with the reason."""
    registered = registry.checks()[claim.id]
    try:
        status, text = registered.check(evidence)
    except CheckError as error:
        status, text = "failed", f"check could not run: {error}"
    if registered.kind == "timeline" and status == "confirmed":
        text += evidence.dates_caveat(text)
    version = evidence.span if registered.kind == "timeline" else evidence.version
    return Verdict(claim.id, version, status, text)


def ledger(
    by_version: Mapping[str, Mapping[str, object]],
    timelines: Mapping[str, Timeline] | None = None,
    *,
    by_target: Mapping[str, Mapping[str, object]] | None = None,
    sources: Mapping[str, str] | None = None,
    pin_sources: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per (claim, version): the claim, the framework it is about, where it comes from, its status and one
    line of evidence.

    ``by_version`` holds Mastra's outcomes per pinned version, ``pin_sources`` how each was measured (a version it
    does not name says ``unstated``). A since-when claim, whatever its framework, is judged once on that
    framework's timeline in ``timelines`` (framework -> :class:`~probe_lib.claims.since.Timeline`), in a row whose
    version is the timeline's span and whose source is the timeline's; without that framework's timeline it is left
    out. ``by_target`` (``framework@version`` -> outcomes, the framework matrix) judges every other framework's
    claims on each of that framework's targets, with ``sources`` saying how each target was measured; without it,
    those claims are left out.
    """
    rows = []
    for claim in load_claims():
        registered = registry.checks()[claim.id]
        kind, framework = registered.kind, registered.framework
        if kind == "timeline":
            own = (timelines or {}).get(framework)
            judged = [(own, own.source)] if own is not None else []
        elif kind == "version":
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
            row = {**asdict(claim), **asdict(verdict), "framework": framework, "source": source}
            rows.append({column: row[column] for column in _COLUMNS})
    return pd.DataFrame(rows)


def framework_ledger(measured: Sequence[Measurement]) -> pd.DataFrame:
    """The ledger's claims about the frameworks other than Mastra, judged on the matrix's and the Claude Agent SDK's
    list probes (``measured``, each target's measurement of a collection). One row per claim and target, with its
    framework, source (how the target's matrix measurement was made), verdict and evidence."""
    sources = {str(m.target): m.source for m in measured if m.collection == MATRIX.name}
    table = ledger({}, by_target=by_target(o for m in measured for o in m.outcomes), sources=sources)
    return table[_FRAMEWORK_COLUMNS]


def framework_range_ledger(timelines: Mapping[str, Timeline]) -> pd.DataFrame:
    """The other frameworks' release-range claims, each judged on its framework's committed timeline (one row each,
    with its framework, span, source, verdict and evidence)."""
    table = ledger({}, timelines)
    return table[_FRAMEWORK_COLUMNS]


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


def verdicts(evidence: Evidence | Timeline, notebook: str) -> pd.DataFrame:
    """The claims ``data/claims.csv`` files under ``notebook`` that ``evidence`` can judge (a timeline: the claims on
    that framework's timeline; else the others), judged on it: a small table a notebook shows
    before asserting; its last column names what the verdicts were judged on (version and source, or the timeline's
    span)."""
    registered = registry.checks()
    on_timeline = isinstance(evidence, Timeline)
    claims = [
        claim
        for claim in load_claims()
        if claim.notebook == notebook
        and (registered[claim.id].kind == "timeline") == on_timeline
        and (not on_timeline or registered[claim.id].framework == evidence.framework)
    ]
    if not claims:
        raise InputError(f"{CLAIMS_PATH.name} files no claim under the notebook {notebook!r}")
    judged = [(claim, judge(claim, evidence)) for claim in claims]
    return pd.DataFrame(
        {
            "claim": [claim.id for claim, _ in judged],
            "statement": [claim.statement for claim, _ in judged],
            "status": [verdict.status for _, verdict in judged],
            "evidence": [verdict.evidence for _, verdict in judged],
            "judged on": [evidence.label] * len(judged),
        }
    )


def assert_claims(table: pd.DataFrame) -> None:
    """Stop the notebook if a claim's check failed, or a claim was refuted unless its refutation is expected
    (registered with ``refuted_as_measured``, the reason, and its evidence matches ``refuted_when``); else say in
    words what was checked."""
    registered = registry.checks()
    expected = {claim_id: entry.refuted_as_measured for claim_id, entry in registered.items() if entry.refuted_when}
    unexpected = pd.Series(
        [
            row.status == "refuted"
            and (row.claim not in expected or not re.search(registered[row.claim].refuted_when, row.evidence))
            for row in table.itertuples()
        ],
        index=table.index,
        dtype=bool,
    )
    broken = table[(table["status"] == "failed") | unexpected]
    if not broken.empty:
        lines = "; ".join(f"{row.claim} {row.status}: {row.evidence}" for row in broken.itertuples())
        raise AssertionError(f"claims did not hold: {lines}")
    counts = table["status"].value_counts()
    refuted = sorted(set(table.loc[table["status"] == "refuted", "claim"]))
    excused = "; ".join(f"{claim} refuted, as expected: {expected[claim]}" for claim in refuted)
    print(
        f"Checked {len(table)} verdicts ({', '.join(sorted(set(table['claim'])))}): "
        + (f"{excused}; no other refuted and no check failed" if refuted else "none refuted and no check failed")
        + f" ({', '.join(f'{n} {status}' for status, n in counts.items())})."
    )
