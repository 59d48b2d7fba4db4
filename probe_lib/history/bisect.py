"""The first release where one scenario's behaviour changed, found by bisection over the sweep's cache.

A probe of a release is a sweep of that one release (:func:`probe_lib.history.sweep.sweep`) of a subject
(:class:`~probe_lib.history.framework_sweep.ScenarioSweep`: Mastra's catalogue, a framework's matrix probes, a scenario
file), so it is cached and shared with later sweeps, and a release already measured costs no install. Within each
interval the probe prefers a release already measured or installed near the middle (the middle half of the interval),
else the midpoint, so a bisection over ~140 releases needs about seven installs. A release that cannot run (unsupported
by the harness, its install failed) is no behaviour: it is set aside and the bisection goes on over the others, so the
two releases it ends on are the nearest that ran. Bisection assumes one change between the two ends: a behaviour that
changed and changed back between probes is not seen (the full sweep sees it).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from probe_lib.capture import CaptureServer
from probe_lib.core.errors import InputError
from probe_lib.core.progress import QUIET, Stages
from probe_lib.history import sweep


@dataclass(frozen=True)
class Boundary:
    """Where ``scenario`` changed: the last release with the old behaviour and the first with the new (``None``: the
    two ends behave alike), how many releases were probed and installed, and those that could not run."""

    framework: str
    scenario: str
    before: sweep.Row
    after: sweep.Row | None
    installs: int
    probes: int
    could_not_run: tuple[sweep.Row, ...] = field(default=())

    def to_text(self) -> str:
        skipped = (
            f"; could not run: {', '.join(f'{r.version} ({r.error_kind})' for r in self.could_not_run)}"
            if self.could_not_run
            else ""
        )
        counts = f"({self.probes} releases probed, {self.installs} installed{skipped})"
        if self.after is None:
            return (
                f"{self.framework} {self.scenario}: no change between the ends ({self.before.version} ... ); "
                f"outcome {self.before.outcome} {self.before.behaviour}\n  {counts}"
            )
        return (
            f"{self.framework} {self.scenario}: changed between {self.before.version} and {self.after.version}\n"
            f"  {self.before.version}: {self.before.error_kind or 'sent'} {self.before.behaviour}\n"
            f"  {self.after.version}: {self.after.error_kind or 'sent'} {self.after.behaviour}\n"
            f"  {counts}"
        )

    def to_json(self) -> dict:
        """One object: the framework and scenario, ``last_before`` and ``first_with`` (versions; ``first_with`` is
        ``None`` when nothing changed), both behaviours, the installs and probes, the releases that could not run."""

        def behaviour(row: sweep.Row | None) -> dict | None:
            return (
                None
                if row is None
                else {"outcome": row.outcome, "error_kind": row.error_kind, "behaviour": row.behaviour}
            )

        return {
            "framework": self.framework,
            "scenario": self.scenario,
            "last_before": self.before.version,
            "first_with": self.after.version if self.after is not None else None,
            "before": behaviour(self.before),
            "after": behaviour(self.after),
            "installs": self.installs,
            "probes": self.probes,
            "could_not_run": {r.version: r.error_kind for r in self.could_not_run},
        }


#: The "scenario" that is every scenario of a release together (a scenario file's): it changes when any does.
ALL = "*all*"
#: An unknown scenario's error names this many of the known ones: the rest would pass the error line's length.
_NAMES_SHOWN = 8


def scenario_row(rows: Sequence[sweep.Row], scenario: str) -> sweep.Row:
    """The scenario's row (for :data:`ALL`, one row of every scenario's behaviour), or the release's one row when it
    could not run at all."""
    if scenario == ALL and not sweep.could_not_run(rows):
        behaviours = {r.scenario: json.loads(r.behaviour) for r in rows}
        text = json.dumps(behaviours, ensure_ascii=False, sort_keys=True)
        outcome = hashlib.sha256(" ".join(r.outcome for r in rows).encode()).hexdigest()[:10]
        return sweep.Row(rows[0].version, ALL, outcome, ",".join(sorted({r.error_kind for r in rows} - {""})), text)
    return next((r for r in rows if r.scenario == scenario), rows[0])


class Prober:
    """Probes releases of one subject through one capture server, counting probes and installs, each release once
    (with ``retry_failed``, a release cached as one that could not run or crashed on a scenario is measured again)."""

    def __init__(
        self, subject: sweep.Subject, server: CaptureServer, stages: Stages = QUIET, *, retry_failed: bool = False
    ) -> None:
        self.subject, self.server, self.stages, self.retry_failed = subject, server, stages, retry_failed
        self.installs = self.probes = 0
        self.rows: dict[str, list[sweep.Row]] = {}

    def __call__(self, version: str) -> list[sweep.Row]:
        """Every row of ``version`` (its one row when it could not run), measured now unless cached."""
        if version not in self.rows:
            self.installs += sweep.cached(version, self.subject) is None and not self.subject.is_installed(version)
            self.probes += 1
            self.rows[version] = sweep.sweep(
                [version], subject=self.subject, server=self.server, stages=self.stages, retry_failed=self.retry_failed
            )
        return self.rows[version]


def bisect(
    scenario: str,
    chosen: Sequence[str],
    *,
    subject: sweep.Subject,
    stages: Stages = QUIET,
    prober: Prober | None = None,
) -> Boundary:
    """The first release in ``chosen`` (semver order) whose ``scenario`` behaves otherwise than the first that ran."""
    if len(chosen) < 2:
        raise InputError("bisect needs at least two versions to compare; widen --since/--until")
    if prober is None:
        with CaptureServer() as server:
            return bisect(scenario, chosen, subject=subject, stages=stages, prober=Prober(subject, server, stages))
    installs, probes = prober.installs, prober.probes
    candidates = list(chosen)
    unrunnable: list[sweep.Row] = []

    def probe(index: int) -> sweep.Row | None:
        """The scenario's row on ``candidates[index]``; ``None`` (and set aside) when that release could not run."""
        rows = prober(candidates[index])
        if sweep.could_not_run(rows):
            unrunnable.append(rows[0])
            del candidates[index]
            return None
        return scenario_row(rows, scenario)

    def boundary(before: sweep.Row, after: sweep.Row | None) -> Boundary:
        return Boundary(
            subject.framework,
            scenario,
            before,
            after,
            prober.installs - installs,
            prober.probes - probes,
            tuple(sorted(unrunnable, key=lambda r: chosen.index(r.version))),
        )

    if scenario != ALL and scenario not in (names := subject.scenario_names()):
        close = difflib.get_close_matches(scenario, names, n=3)
        hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        shown = ", ".join(names[:_NAMES_SHOWN])
        more = (
            f" and {len(names) - _NAMES_SHOWN} more (see probe-lib bisect --help)" if len(names) > _NAMES_SHOWN else ""
        )
        raise InputError(
            f"no scenario {scenario!r} among {subject.framework}'s {len(names)} swept scenarios; {hint}"
            f"choose one of {shown}{more}"
        )
    first = _runnable_end(probe, candidates, 0)
    last = _runnable_end(probe, candidates, -1)
    if first is None or last is None or first.version == last.version:
        raise InputError(f"fewer than two releases of {subject.package} in the range could run; widen --since/--until")
    if last.outcome == first.outcome:
        return boundary(first, None)
    low, high = 0, len(candidates) - 1
    before, after = first, last
    while high - low > 1:  # invariant: low behaves like the first release, high does not
        index = _next_probe(subject, candidates, low, high)
        row = probe(index)
        if row is None:  # set aside: the releases after it moved down by one
            high -= 1
        elif row.outcome == first.outcome:
            low, before = index, row
        else:
            high, after = index, row
    return boundary(before, after)


def _runnable_end(probe, candidates: list[str], end: int) -> sweep.Row | None:
    """The row of the first (``end=0``) or last (``-1``) candidate that runs, setting aside those that do not."""
    while candidates:
        row = probe(0 if end == 0 else len(candidates) - 1)
        if row is not None:
            return row
    return None


def _next_probe(subject: sweep.Subject, chosen: Sequence[str], low: int, high: int) -> int:
    middle = (low + high) // 2
    quarter = max(1, (high - low) // 4)
    window = range(max(low + 1, middle - quarter), min(high - 1, middle + quarter) + 1)
    cheap = [i for i in window if sweep.cached(chosen[i], subject) is not None or subject.is_installed(chosen[i])]
    return min(cheap, key=lambda i: abs(i - middle)) if cheap else middle
