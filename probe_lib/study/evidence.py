"""What a notebook calls first: the measured outcomes it shows, and its claims asserted on them.

A notebook names where its outcomes come from in its ``parameters`` cell (``measurements``), parsed into a
:class:`probe_lib.study.sources.Source`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Mapping

import pandas as pd

from probe_lib.adapters import mastra
from probe_lib.adapters.mastra import Outcome
from probe_lib.study import (
    framework_checks,  # noqa: F401  (registers the other frameworks' checks)
    ledger,
    mastra_checks,  # noqa: F401  (registers Mastra's checks into the ledger)
    notebook,
)
from probe_lib.study.ledger import Evidence
from probe_lib.study.sources import LIVE, RecordedFallback, Source


def measure_all(source: Source = LIVE, versions: Iterable[str] | None = None) -> dict[str, dict[str, Outcome]]:
    """The catalogue's outcomes on each version (default: every pinned one), saying what it does as it starts
    and showing a banner for any version it shows from recordings instead; pandas is set to show text whole."""
    versions = tuple(versions or mastra.ADAPTER.versions())
    notebook.show_text_whole()
    live = source.announce(versions)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordedFallback)  # the banner above said it
        by_version = {version: source.catalogue(version) for version in versions}
    if live:
        notebook.announce(f"Measured live in {time.perf_counter() - started:.0f} s.")
    return by_version


def gather(version: str, source: Source = LIVE, versions: Iterable[str] | None = None) -> Evidence:
    """``Evidence`` for one version, with every pinned version measured alongside (for cross-version claims);
    says what it measures as it starts (see ``measure_all``). ``version`` may be any served one: it is measured on
    its own and kept out of the cross-version claims."""
    mastra.ADAPTER.check_version(version)
    by_version = measure_all(source, versions)
    shown = by_version[version] if version in by_version else source.catalogue(version)
    return Evidence(version, shown, by_version, source.label(version))


def verdicts(evidence: Evidence, claim_ids: Iterable[str]) -> pd.DataFrame:
    """The named claims judged on ``evidence``: a small table a notebook shows before asserting; its last column
    names what the verdicts were judged on (version and source)."""
    by_id = {claim.id: claim for claim in ledger.load_claims()}
    rows = []
    for claim_id in claim_ids:
        verdict = ledger.judge(by_id[claim_id], evidence)
        rows.append(
            {
                "claim": claim_id,
                "statement": by_id[claim_id].statement,
                "status": verdict.status,
                "evidence": verdict.evidence,
                "judged on": evidence.label,
            }
        )
    return pd.DataFrame(rows)


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
    print(
        f"Checked {len(table)} verdicts ({', '.join(sorted(set(table['claim'])))}): none refuted and no check failed "
        f"({', '.join(f'{n} {status}' for status, n in counts.items())})."
    )
