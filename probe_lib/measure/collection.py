"""Collections: named sets of scenarios and how to run them on a target; each measured into one file per target.

The kit's collections are the catalogue (:data:`CATALOGUE`, Mastra's article scenarios on its pins), the framework
matrix's probes (:data:`MATRIX`, on every registered framework's pins) and the Claude Agent SDK's list probes
(:data:`LISTS`). A user's scenario file is measured as its own collection, named after the file, by
:meth:`probe_lib.measure.sources.Source.outcomes` (``probe-lib run FILE --out``). A measurement of a collection on a
target is :class:`~probe_lib.measure.measurement.Measurement`, kept at
``data/captures/<collection>/<framework>-<version>.json``; where it comes from (live now or recorded) is
:mod:`probe_lib.measure.sources`.

The MCP tool sets (``data/captures/mcp-mastra.json``, :mod:`probe_lib.frameworks.mastra.mcp`) are not a collection:
what is measured there is the tool names the real ``@mastra/mcp`` client builds from each server's listed tools, one
table row per tool set, and no scenario is run on a framework target, so there is no outcome to keep.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from probe_lib import frameworks
from probe_lib.capture import CaptureServer
from probe_lib.core import paths
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.core.target import Target
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import catalogue
from probe_lib.measure import matrix_runs, measurement, permission_runs
from probe_lib.measure.measurement import Made, Measurement

#: Runners sharing one target's batch of any scenarios: two, the cores this kit is sized for.
LIVE_WORKERS = 2


@dataclass(frozen=True)
class Collection:
    """A named set of scenarios (``scenarios()``), the targets it is measured on by default (``targets()``) and how
    it runs on one target through a capture server (``run``: the outcomes, in the order a file keeps them).
    ``parallel``: targets measured at once (each target's runner is its own process)."""

    name: str
    scenarios: Callable[[], Sequence[Scenario]]
    targets: Callable[[], Sequence[Target]]
    run: Callable[[Target, CaptureServer], list[Outcome]]
    parallel: int = field(default=1, compare=False)

    def measure(
        self, targets: Sequence[Target], step: Callable[[Target], None] = lambda target: None
    ) -> list[Measurement]:
        """This collection measured live now on each of ``targets``, in order, through one capture server,
        :attr:`parallel` targets at once; ``step`` is told of each target as it ends. A target that fails raises
        here once those already running have ended; none is started after it."""
        with CaptureServer() as server, ThreadPoolExecutor(self.parallel, thread_name_prefix=self.name) as pool:
            futures = {pool.submit(self._measure, target, server): target for target in targets}
            try:
                for future in as_completed(futures):
                    future.result()
                    step(futures[future])
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
        by_target = {target: future.result() for future, target in futures.items()}
        return [by_target[target] for target in targets]

    def _measure(self, target: Target, server: CaptureServer) -> Measurement:
        outcomes = tuple(self.run(target, server))  # first: a served release's environment is resolved as it installs
        return Measurement(self.name, target, Made.now(target), outcomes)


def _pins(framework: str) -> Callable[[], list[Target]]:
    return lambda: [Target(framework, version) for version in frameworks.get(framework).versions()]


CATALOGUE = Collection(
    "catalogue",
    catalogue.scenarios,
    _pins(mastra.ADAPTER.name),
    lambda target, server: mastra.run(catalogue.scenarios(), target.version, server=server, workers=LIVE_WORKERS),
)
MATRIX = Collection(
    "matrix",
    matrix_runs.scenarios,
    lambda: [Target(name, version) for name, version in matrix_runs.targets()],
    lambda target, server: matrix_runs.measure_target(target.framework, target.version, server),
    parallel=matrix_runs.PARALLEL_TARGETS,
)
#: Judged with the SDK's newest pin, the matrix target it is measured on.
LISTS = Collection(
    "lists",
    permission_runs.scenarios,
    lambda: [Target(permission_runs.FRAMEWORK, permission_runs.pinned_version())],
    lambda target, server: permission_runs.measure(target.version, server),
)


def record(collection: Collection, targets: Sequence[Target] | None = None) -> list[Path]:
    """Measure ``collection`` live on ``targets`` (default: all of its own) and write each into ``data/captures/``,
    noting the runtime and day it ran on; returns the files written."""
    measured = collection.measure(list(collection.targets() if targets is None else targets))
    return [measurement.write(measurement.path(paths.CAPTURES, m.collection, m.target), m) for m in measured]
