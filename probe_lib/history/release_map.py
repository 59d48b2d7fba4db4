"""A framework's releases mapped without installing them all: the first runnable and the newest release of each
minor series measured, then each change seen between two adjacent samples bisected to the two adjacent releases it
lies between.

The samples are the oldest release of the range, the oldest the harness runs, and the newest of each minor series
(``MAJOR.MINOR``; with prereleases in the range, a series' prereleases sort before its first release). Between two
adjacent samples that ran, every scenario whose behaviour differs is bisected (:func:`probe_lib.history.bisect.bisect`)
over the releases between them; when the release found to be the first with the change still differs from the later
sample, the bisection goes on from there, so two changes within one interval are both found. Every change point is
thus confirmed by both adjacent releases (adjacent among those that ran: a release that could not run between them
is named). A change that reverts within one interval between samples is not seen: sampling trades that for installs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from probe_lib.capture import CaptureServer
from probe_lib.core.progress import QUIET, Stages
from probe_lib.history import bisect, sweep


def samples(subject: sweep.Subject, chosen: Sequence[str]) -> list[str]:
    """The oldest of ``chosen`` (oldest first), the oldest the harness runs, and the newest of each of its minor
    series, in order: a range that opens on releases older than the harness's API still has its first runnable
    release measured, so a change between it and its series' newest is bisected."""
    if not chosen:
        return []
    newest = {subject.series(version): version for version in chosen}
    first_runnable = next((version for version in chosen if subject.runs(version)), chosen[0])
    return sorted({chosen[0], first_runnable, *newest.values()}, key=subject.sort_key)


@dataclass(frozen=True)
class ReleaseMap:
    """What mapping one framework's releases found: every row measured, the samples, the change points."""

    framework: str
    #: Every release in the range, oldest first.
    chosen: tuple[str, ...]
    samples: tuple[str, ...]
    #: Every row of every release measured (sampled or probed by a bisection), by release.
    rows: dict[str, list[sweep.Row]]
    #: One per change point found, each between two adjacent releases that ran.
    changes: tuple[bisect.Boundary, ...]
    #: Releases this run installed (measured, not read from the cache, and not installed before).
    installs: int

    @property
    def measured(self) -> list[str]:
        """The releases with rows, oldest first."""
        return [version for version in self.chosen if version in self.rows]

    def role(self, version: str) -> str:
        """How ``version`` came to be measured: ``sample`` or ``bisection`` (``""``: not measured)."""
        return "sample" if version in self.samples else "bisection" if version in self.rows else ""

    def to_text(self) -> str:
        lines = [
            f"{self.framework}: {len(self.chosen)} releases in range, {len(self.samples)} sampled, "
            f"{len(self.rows)} measured, {self.installs} installed by this run; {len(self.changes)} change points"
        ]
        for change in self.changes:
            after = change.after or change.before  # a change point always has its first release
            lines.append(
                f"  {change.scenario}: {change.before.version} -> {after.version} "
                f"({change.before.error_kind or 'sent'} {change.before.outcome} -> "
                f"{after.error_kind or 'sent'} {after.outcome})"
            )
        unrunnable = [v for v in self.measured if sweep.could_not_run(self.rows[v])]
        if unrunnable:
            kinds = {v: self.rows[v][0].error_kind for v in unrunnable}
            lines.append("  could not run: " + ", ".join(f"{v} ({kind})" for v, kind in kinds.items()))
        return "\n".join(lines)


def map_releases(
    subject: sweep.Subject,
    chosen: Sequence[str],
    *,
    every: bool = False,
    retry_failed: bool = False,
    stages: Stages = QUIET,
) -> ReleaseMap:
    """:func:`samples` of ``chosen`` (with ``every``, all of them) measured, and each change between adjacent samples
    that ran bisected; ``retry_failed`` measures again a release cached as one that could not run or crashed on a
    scenario."""
    chosen = sorted(dict.fromkeys(chosen), key=subject.sort_key)
    picked = list(chosen) if every else samples(subject, chosen)
    what = "every release" if every else "the first it runs and the newest of each minor series"
    with CaptureServer() as server:
        prober = bisect.Prober(subject, server, retry_failed=retry_failed)
        with stages.stage(f"measuring {subject.package} ({what})", len(picked)) as step:
            for version in picked:
                rows = prober(version)
                step(f"{version}: {rows[0].error_kind if sweep.could_not_run(rows) else 'measured'}")
        ran = [v for v in picked if not sweep.could_not_run(prober.rows[v])]
        pairs = list(zip(ran, ran[1:]))
        changes: list[bisect.Boundary] = []
        with stages.stage(f"bisecting changes between {len(pairs)} adjacent samples", len(pairs)) as step:
            for low, high in pairs:
                found = _changes_between(subject, chosen, low, high, prober)
                changes += found
                step(f"{low}..{high}: {len(found)} change points ({prober.installs} installed so far)")
    return ReleaseMap(
        subject.framework,
        tuple(chosen),
        tuple(picked),
        {v: prober.rows[v] for v in chosen if v in prober.rows},
        tuple(sorted(changes, key=lambda c: (chosen.index(c.before.version), c.scenario))),
        prober.installs,
    )


def _changes_between(
    subject: sweep.Subject, chosen: Sequence[str], low: str, high: str, prober: bisect.Prober
) -> list[bisect.Boundary]:
    """Every change point between samples ``low`` and ``high`` (both ran), one bisection per change of a scenario."""
    span = chosen[chosen.index(low) : chosen.index(high) + 1]
    target = {r.scenario: r.outcome for r in prober(high)}
    found = []
    for scenario in sorted({r.scenario for r in prober(low)} | set(target)):
        start = low
        while bisect.scenario_row(prober(start), scenario).outcome != target.get(scenario):
            inside = span[span.index(start) :]
            change = bisect.bisect(scenario, inside, subject=subject, prober=prober)
            if change.after is None:  # the ends of what is left alike: a release in between could not run
                break
            found.append(change)
            start = change.after.version
    return found
