"""The first served version where one scenario's behaviour changed, found by bisection over the sweep's cache.

A probe of a version is a sweep of that one version (:func:`probe_lib.study.sweep.sweep`), so it is cached and
shared with later sweeps, and a version already measured costs no install. Within each interval the probe prefers
a version already measured or installed near the middle (the middle half of the interval), else the midpoint, so a
bisection over ~140 versions needs about seven installs. Bisection assumes one change between the two ends: a
behaviour that changed and changed back between probes is not seen (the full sweep sees it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from probe_lib.adapters.mastra import catalogue, versions
from probe_lib.capture import CaptureServer
from probe_lib.core.errors import InputError
from probe_lib.core.progress import QUIET, Stages
from probe_lib.study import sweep


@dataclass(frozen=True)
class Boundary:
    """Where ``scenario`` changed: the last version with the old behaviour and the first with the new."""

    scenario: str
    before: sweep.Row
    after: sweep.Row | None
    installs: int
    probes: int

    def to_text(self) -> str:
        if self.after is None:
            return (
                f"{self.scenario}: no change between the ends ({self.before.version} ... ); "
                f"outcome {self.before.outcome} {self.before.behaviour}"
            )
        return (
            f"{self.scenario}: changed between {self.before.version} and {self.after.version}\n"
            f"  {self.before.version}: {self.before.error_kind or 'sent'} {self.before.behaviour}\n"
            f"  {self.after.version}: {self.after.error_kind or 'sent'} {self.after.behaviour}\n"
            f"  ({self.probes} versions probed, {self.installs} installed)"
        )


def _outcome_row(rows: Sequence[sweep.Row], scenario: str) -> sweep.Row:
    """The scenario's row, or the version's failure row when it could not run at all."""
    return next((r for r in rows if r.scenario == scenario), rows[0])


def bisect(scenario: str, chosen: Sequence[str], *, stages: Stages = QUIET) -> Boundary:
    """The first version in ``chosen`` (semver order) whose ``scenario`` behaviour differs from the first's."""
    if scenario not in catalogue.by_name():
        raise InputError(f"no scenario {scenario!r} in the catalogue; choose one of {', '.join(catalogue.by_name())}")
    if len(chosen) < 2:
        raise InputError("bisect needs at least two versions to compare; widen --since/--until")
    installs = probes = 0
    known: dict[int, sweep.Row] = {}

    with CaptureServer() as server:

        def probe(index: int) -> sweep.Row:
            nonlocal installs, probes
            if index not in known:
                version = chosen[index]
                installs += sweep.cached(version) is None and not versions.is_installed(version)
                probes += 1
                rows = sweep.sweep([version], server=server, stages=stages)
                known[index] = _outcome_row(rows, scenario)
            return known[index]

        low, high = 0, len(chosen) - 1
        first = probe(low)
        if probe(high).outcome == first.outcome:
            return Boundary(scenario, first, None, installs, probes)
        while high - low > 1:  # invariant: low behaves like the first version, high does not
            index = _next_probe(chosen, low, high)
            if probe(index).outcome == first.outcome:
                low = index
            else:
                high = index
        return Boundary(scenario, known[low], known[high], installs, probes)


def _next_probe(chosen: Sequence[str], low: int, high: int) -> int:
    middle = (low + high) // 2
    quarter = max(1, (high - low) // 4)
    window = range(max(low + 1, middle - quarter), min(high - 1, middle + quarter) + 1)
    cheap = [i for i in window if sweep.cached(chosen[i]) is not None or versions.is_installed(chosen[i])]
    return min(cheap, key=lambda i: abs(i - middle)) if cheap else middle
