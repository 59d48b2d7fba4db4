"""What a notebook calls first: the measured outcomes it shows, and its claims asserted on them.

A notebook names where its outcomes come from in its ``parameters`` cell:

* ``"live"``: run the catalogue on the real ``@mastra/core`` now (falls back to the recordings, loudly, when
  Node.js or the installed harness is missing);
* ``"recorded"``: the recordings shipped in ``data/captures/``;
* a folder path: measurement files written by ``probe-lib reproduce``, so that every notebook of one report is
  judged on one and the same live measurement.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

from probe_lib.adapters import mastra, npm
from probe_lib.adapters.mastra import Outcome
from probe_lib.core.errors import InputError
from probe_lib.study import claims, recordings
from probe_lib.study.claims import Evidence


class RecordedFallback(UserWarning):
    """A notebook asked for live outcomes but Node.js or the harness is missing, so it shows recordings."""


def measure(version: str, source: str = "live") -> dict[str, Outcome]:
    """The catalogue's outcomes on ``version`` by scenario name, from ``source`` (see the module docstring)."""
    mastra.ADAPTER.check_version(version)
    if source == "live":
        if mastra.ADAPTER.can_run(version):  # a served, unpinned version installs on first use
            return recordings.outcomes(version, live=True)
        warnings.warn(
            f"Node.js or the pinned @mastra/core is missing: showing RECORDED outcomes of {version} "
            f"(data/captures), not a live measurement. {npm.NODE_HELP}", RecordedFallback, stacklevel=2,
        )
        return recordings.outcomes(version, live=False)
    if source == "recorded":
        return recordings.outcomes(version, live=False)
    folder = Path(source)
    path = folder / recordings.recording_path(version).name
    if not path.exists():
        raise InputError(f"measurements {source!r} hold no file for @mastra/core {version}; use 'live', 'recorded' or a reproduce folder")
    return recordings.outcomes_from_file(path)


def source_of(folder: Path, version: str) -> str:
    """How the measurement in a reproduce folder was made ("live" or "recorded"), as ``reproduce`` noted it."""
    return json.loads((folder / recordings.recording_path(version).name).read_text())["source"]


def gather(version: str, source: str = "live", versions: Iterable[str] | None = None) -> Evidence:
    """``Evidence`` for one version, with every pinned version measured alongside (for cross-version claims)."""
    by_version = {v: measure(v, source) for v in (versions or mastra.ADAPTER.versions())}
    shown = by_version[version] if version in by_version else measure(version, source)  # any served version
    return Evidence(version, shown, by_version)


def verdicts(evidence: Evidence, claim_ids: Iterable[str]) -> pd.DataFrame:
    """The named claims judged on ``evidence``: a small table a notebook shows before asserting."""
    by_id = {claim.id: claim for claim in claims.load_claims()}
    rows = []
    for claim_id in claim_ids:
        verdict = claims.judge(by_id[claim_id], evidence)
        rows.append({"claim": claim_id, "statement": by_id[claim_id].statement, "status": verdict.status,
                     "evidence": verdict.evidence})
    return pd.DataFrame(rows)


def assert_claims(table: pd.DataFrame, explained: Mapping[str, str] | None = None) -> None:
    """Stop the notebook if a claim was refuted or its check failed, unless the notebook explains why.

    ``explained`` maps claim ids to the notebook's explanation of an expected refutation.
    """
    explained = explained or {}
    broken = table[table["status"].isin(["refuted", "failed"]) & ~table["claim"].isin(list(explained))]
    if not broken.empty:
        lines = "; ".join(f"{row.claim} {row.status}: {row.evidence}" for row in broken.itertuples())
        raise AssertionError(f"claims did not hold: {lines}")
