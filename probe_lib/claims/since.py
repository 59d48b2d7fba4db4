"""What every since-when claim is judged on, whatever its framework: one framework's lines of the timeline, as
:func:`probe_lib.analysis.timeline.frame` tabulates them, named by the releases they span.

Mastra's version-range claims (:mod:`probe_lib.claims.ranges`) read its committed lines with the pinned versions'
measurements laid over them, every served version measured, and its prereleases apart; the other frameworks'
(:mod:`probe_lib.claims.framework_ranges`) read their committed lines with the list of every release of the swept
range, of which the sweep measured a sample and the bisections' probes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from probe_lib.analysis.timeline import prereleases, stable, versions


@dataclass(frozen=True)
class Timeline:
    """One framework's timeline: its lines, the span the ledger's version column shows, every release of its swept
    range (empty: every version measured), and its prereleases' lines apart (``None``: kept among the others, or none
    measured)."""

    framework: str
    table: pd.DataFrame
    #: As the ledger's version column shows it (e.g. ``0.1.0..1.71.0 (141 versions; 44 prereleases apart)``).
    span: str
    releases: tuple[str, ...] = ()
    prereleases: pd.DataFrame | None = None

    @classmethod
    def of(cls, table: pd.DataFrame, *, releases: Sequence[str] = ()) -> Timeline:
        """One framework's timeline from its :func:`~probe_lib.analysis.timeline.frame`.

        Without ``releases`` (Mastra: every served version measured) its stable versions, with the prereleases
        apart: the range claims name stable releases, and a prerelease (a ``0.0.0-…`` snapshot sorts before 0.1.0
        though it was built from a later branch) is no point on that line; only a claim about the prereleases
        themselves (V06) reads them. With ``releases`` (every release of the swept range, of which some were
        measured), every measured line, prereleases included, named by the range and how many were measured.
        """
        (framework,) = table["framework"].unique()
        if releases:
            span = f"{releases[0]}..{releases[-1]} ({len(releases)} releases, {len(versions(table))} measured)"
            return cls(framework, table, span, tuple(releases))
        left_out = prereleases(table)
        apart = table[table["version"].isin(left_out)].reset_index(drop=True) if left_out else None
        table = stable(table)
        measured = versions(table)
        skipped = f"; {len(left_out)} prereleases apart" if left_out else ""
        return cls(framework, table, f"{measured[0]}..{measured[-1]} ({len(measured)} versions{skipped})", (), apart)

    @property
    def label(self) -> str:
        """What a verdict table says these verdicts were judged on."""
        return f"the {self.framework} timeline of {self.span}"
