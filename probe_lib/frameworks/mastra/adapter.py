"""``@mastra/core`` behind the framework seam: its pinned versions, its installs (the MCP client's harness beside
them), its runner (streamed) and its name rule on each version."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import closing

from probe_lib.capture import CaptureServer
from probe_lib.core import paths
from probe_lib.core.naming import NameRule
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, check_unique_names
from probe_lib.core.target import version_key
from probe_lib.frameworks.base import register
from probe_lib.frameworks.mastra import normaliser, runner, versions
from probe_lib.frameworks.pinned import PinnedReleases
from probe_lib.install import npm

#: The first release whose ``formatTools`` rewrites keys (the sweep's ``single-rewrite`` scenario: 0.13.1 sends
#: ``search.web`` verbatim, 0.13.2 sends ``search_web``; claim V01 checks it); earlier releases send keys as given.
NORMALISER_SINCE = "0.13.2"


class Mastra(PinnedReleases):
    name = runner.FRAMEWORK
    pins = versions.PINS

    def name_rule(self, version: str | None = None) -> NameRule | None:
        """The model of 1.x's ``formatTools`` (:mod:`~probe_lib.frameworks.mastra.normaliser`) from
        ``NORMALISER_SINCE`` on; before it, none: those versions send keys verbatim."""
        verbatim = version is not None and version_key(version) < version_key(NORMALISER_SINCE)
        return None if verbatim else normaliser

    def install_extras(self, *, quiet: bool = True) -> None:
        """The real ``@mastra/mcp`` client notebook 10 measures, in its own harness (its own pinned core)."""
        npm.install(paths.MCP_HARNESS, quiet=quiet)

    def run(
        self, scenarios: Iterable[Scenario], version: str, *, server: CaptureServer | None = None, workers: int = 1
    ) -> list[Outcome]:
        return runner.run(scenarios, version, server=server, workers=workers)

    #: Each outcome as its turn ends, from ``workers`` Node runners each capped at ``node_heap_mib``.
    stream = staticmethod(runner.stream)

    def session(self, version: str) -> closing[MastraSession]:
        """One warm runner for several runs (each run is sent to it at once; :meth:`run` spreads a big batch over
        workers instead)."""
        return closing(MastraSession(self.check_version(version)))


class MastraSession:
    """Runs on one ``@mastra/core`` version through one runner, started at the first run with the heap cap that
    run needs (:func:`runner.heap_cap`), and started again for a run that needs more."""

    def __init__(self, version: str) -> None:
        self.version = version
        self._runner: runner.Runner | None = None

    def run(self, scenarios: Iterable[Scenario], server: CaptureServer) -> list[Outcome]:
        scenarios = list(scenarios)
        check_unique_names(scenarios)
        cap = runner.heap_cap(scenarios)
        if self._runner is not None and self._runner.heap_mib < cap:
            self.close()
        if self._runner is None:
            started = runner.Runner(self.version, heap_mib=cap)
            started.start()
            self._runner = started
        try:
            return self._runner.turns(scenarios, server)
        except BaseException:
            self.close()  # a runner that failed is not reused: the session's next run starts another
            raise

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


ADAPTER: Mastra = register(Mastra())
