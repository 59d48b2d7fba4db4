"""What a sweep measures on any framework's releases: its own scenarios, or the scenarios of a file.

:func:`subject` picks the :class:`ScenarioSweep` for ``probe-lib sweep --framework NAME``: for
Mastra its scenario catalogue (:func:`probe_lib.frameworks.mastra.catalogue.scenarios`, the article's scenarios), for
every other framework the matrix's probes (:mod:`probe_lib.measure.matrix_runs`: the names sent, the forced tool,
the round trip, the collisions), each run as the matrix runs them, one warm session per release. :func:`from_file`
makes one of a scenario file's scenarios. The releases are those the framework's adapter says its registry serves
(``Adapter.served``), installed through it on first use; a release the harness cannot run (``ReleaseUnsupported``)
or whose install failed is a row of its own kind, never a behaviour.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator, Sequence
from pathlib import Path

from probe_lib import frameworks
from probe_lib.capture import CaptureServer
from probe_lib.core import paths
from probe_lib.core.errors import ProbeError, ReleaseUnsupported
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import ROUND_TRIP, Scenario
from probe_lib.frameworks import mastra
from probe_lib.frameworks.base import Adapter, Session
from probe_lib.frameworks.mastra import catalogue
from probe_lib.history import sweep
from probe_lib.history.bisect import ALL
from probe_lib.inputs import scenario_files
from probe_lib.install.releases import Releases
from probe_lib.measure import matrix_runs

#: The kinds of a release's one row when it could not run: the harness does not support it, its install failed,
#: or it failed to start or run.
UNSUPPORTED = "release unsupported"
#: The row kind of a round trip the plain run gave no name to call (it sent no tool for the first key).
NO_ROUND_TRIP = "not applicable"
#: How many more times a scenario that crashed before sending anything is run before its crash counts.
STALL_RETRIES = 2


class ScenarioSweep:
    """``scenarios`` on releases of one framework through its adapter; with ``round_trips``, the matrix's round
    trips after them (each calls the first key by the name the plain run sent)."""

    def __init__(self, framework: str, scenarios: Sequence[Scenario], *, round_trips: bool = False) -> None:
        #: The framework (an adapter's name), the registry package whose releases are swept, and its registry.
        self.framework = framework
        self.adapter: Adapter = frameworks.get(framework)
        self.package: str = self.adapter.package
        self.registry: str = self.adapter.registry
        self._releases = Releases(self.package, self.registry, framework)
        self.scenarios = tuple(scenarios)
        self.round_trips = round_trips

    def served(self) -> tuple[str, ...]:
        """Every release the registry serves, oldest first, prereleases included."""
        return self.adapter.served()

    def is_prerelease(self, version: str) -> bool:
        return self._releases.is_prerelease(version)

    def sort_key(self, version: str) -> tuple:
        """Oldest first, as the registry orders its versions (semver on npm, PEP 440 on PyPI)."""
        return self._releases.sort_key(version)

    def series(self, version: str) -> tuple:
        """The minor series ``version`` belongs to (its major and minor numbers)."""
        return self._releases.series(version)

    def published(self, version: str) -> str:
        """When the registry published ``version`` (ISO 8601 UTC)."""
        return self.adapter.published(version)

    def resolved_before(self, version: str) -> str | None:
        """The date ``version``'s dependencies were resolved as of (``None``: not noted)."""
        return self.adapter.resolved_before(version)

    def check(self, version: str) -> str:
        """``version`` if it can be swept (served or pinned), else ``InputError`` saying how to list them."""
        return self.adapter.check_version(version)

    def scenario_names(self) -> tuple[str, ...]:
        """The scenarios each release's rows are named by (what ``bisect`` accepts)."""
        names = [scenario.name for scenario in self.scenarios]
        return tuple(names + [name + ROUND_TRIP for name in self._round_tripped()])

    def _round_tripped(self) -> list[str]:
        """The plain scenarios that get a round trip (the matrix's probes, when ``round_trips``)."""
        named = {scenario.name for scenario in self.scenarios}
        return [probe.name for probe in matrix_runs.PROBES if probe.name in named] if self.round_trips else []

    @functools.cached_property
    def _digest(self) -> str:
        return sweep.digest(self.scenarios, self._harness())

    def digest(self) -> str:
        """What the cached results were measured under (:func:`~probe_lib.history.sweep.digest`): another digest's
        are not reused. Taken once, from the code this run started with: an edit to the adapter during a sweep would
        otherwise file the later releases' results under another digest than the earlier ones'."""
        return self._digest

    def _harness(self) -> Iterator[bytes]:
        """What makes this framework's outcomes besides the scenarios: its name, its adapter's code and runner
        files (its runner's folder, else its adapter class's, not its pins' installs; and the module of every class
        of the kit the adapter is or inherits from, not their folders: ``frameworks/`` holds the registry every new
        framework is added to), the shared child loop and the round trip."""
        yield f"{self.framework} round trips: {self.round_trips}".encode()
        yield inspect.getsource(type(self.adapter)).encode()
        yield inspect.getsource(matrix_runs.Probe).encode()
        pins = getattr(self.adapter, "pins", None)  # its runner, shared by an adapter's variants
        root = pins.harness.parent if pins is not None else Path(inspect.getfile(type(self.adapter))).parent
        own = sorted(p for p in [*root.glob("*.py"), *root.glob("harness/*.*")] if p.is_file())
        kit = {
            Path(inspect.getfile(cls)) for cls in type(self.adapter).__mro__ if cls.__module__.startswith("probe_lib.")
        }
        for path in [*own, *sorted(kit - set(own))]:  # sorted: a set of paths iterates in a per-process order
            yield path.read_bytes()
        for path in sorted(paths.SHARED_HARNESS.glob("lines.*")):
            yield path.read_bytes()

    def runs(self, version: str) -> bool:
        """False for a release the harness refuses before installing it (older than every API era it supports)."""
        return self.adapter.unsupported(version) is None

    def is_installed(self, version: str) -> bool:
        return self.adapter.is_installed(version)

    def install(self, version: str) -> None:
        """Install ``version`` into the kit's cache (a no-op when it is there)."""
        self.adapter.install(version)

    def rows(self, version: str, server: CaptureServer) -> list[sweep.Row]:
        """The scenarios on installed ``version``, one row each (a scenario it refuses or crashes on too)."""
        with self.adapter.session(version) as session:
            probed = _without_stalls(session, self.scenarios, server)
            trips = matrix_runs.round_trips(probed) if self.round_trips else []
            outcomes = probed + (_without_stalls(session, trips, server) if trips else [])
        rows = [sweep.row(outcome) for outcome in outcomes]
        made = {outcome.scenario.name for outcome in outcomes}
        missing = [name + ROUND_TRIP for name in self._round_tripped() if name + ROUND_TRIP not in made]
        unsent = "the plain run sent no tool for the first key"
        return rows + [sweep.error_row(version, name, NO_ROUND_TRIP, unsent) for name in missing]

    def failed(self, version: str, error: ProbeError) -> sweep.Row:
        """The one row of ``version`` when it could not be installed or run (``error`` says why)."""
        if isinstance(error, ReleaseUnsupported):
            return sweep.error_row(version, sweep.WHOLE_VERSION, UNSUPPORTED, str(error))
        return sweep.failed_row(version, error)


def _without_stalls(session: Session, scenarios: Sequence[Scenario], server: CaptureServer) -> list[Outcome]:
    """``scenarios`` run in ``session``; one that crashed before sending anything (a turn cut by its watchdog, or a
    connection to the capture server that timed out) is run again up to :data:`STALL_RETRIES` times, and the last
    outcome kept. Such crashes came and went on the same release during sweeps, on other scenarios each time, and
    are not the release's behaviour until they recur. A scenario is run again at its place in the list (the ones
    before it with it, their outcomes dropped): a run numbers its scenarios, and an error text that quotes the
    capture server's URL quotes that number."""
    outcomes = session.run(scenarios, server) if scenarios else []  # one per scenario, in order
    for _ in range(STALL_RETRIES):
        for n in [n for n, outcome in enumerate(outcomes) if _crashed_unsent(outcome)]:
            outcomes[n] = session.run(scenarios[: n + 1], server)[-1]
    return outcomes


def _crashed_unsent(outcome: Outcome) -> bool:
    return outcome.failure is not None and outcome.failure.kind == "crash" and not outcome.requests


def subject(framework: str) -> ScenarioSweep:
    """What ``probe-lib sweep --framework NAME`` measures: Mastra's catalogue, or the matrix's probes."""
    if framework == mastra.ADAPTER.name:
        return ScenarioSweep(framework, catalogue.scenarios())
    return ScenarioSweep(framework, matrix_runs.scenarios(), round_trips=True)


def from_file(framework: str, path: str | Path) -> ScenarioSweep:
    """The scenarios of the file at ``path`` (``scenario_files`` YAML or JSON) on ``framework``'s releases."""
    return ScenarioSweep(framework, scenario_files.load(path))


def for_bisect(framework: str, scenario: str) -> tuple[ScenarioSweep, str]:
    """What ``probe-lib bisect SCENARIO --framework NAME`` probes, and the scenario it follows: a scenario file's
    scenarios together (:data:`~probe_lib.history.bisect.ALL`) when ``scenario`` names a ``.yaml``/``.yml``/``.json``
    file, else that scenario of the framework's own subject (Mastra's catalogue, the matrix's probes)."""
    path = Path(scenario)
    if path.suffix in (".yaml", ".yml", ".json"):
        return from_file(framework, path), ALL
    return subject(framework), scenario
