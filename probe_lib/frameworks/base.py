"""The framework seam: what the kit needs of each agent framework, and the registry that finds one by name.

An adapter registers tools under given keys, optionally forces one, runs one turn per scenario against the capture
server and returns :class:`~probe_lib.core.outcome.Outcome` objects; everything above it (recordings, ledger,
tables, notebooks, the command line) is the same for every framework: what one framework does differently (its
name rule on each version, streaming its outcomes, what it installs beside its pins) is a method of its adapter.
Adapters register themselves here, as papermill's engines do, and a third-party package can add one through the
``probe_lib.frameworks`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Literal, Protocol

from probe_lib.capture import CaptureServer
from probe_lib.core.errors import InputError
from probe_lib.core.naming import NameRule
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.core.target import Target

ENTRY_POINT_GROUP = "probe_lib.frameworks"
#: The adapters the kit ships; each registers itself when imported.
BUILTIN_MODULES = (
    "probe_lib.frameworks.mastra",
    "probe_lib.frameworks.openai",
    "probe_lib.frameworks.ai_sdk",
    "probe_lib.frameworks.openai_agents_js",
    "probe_lib.frameworks.langchain_js",
    "probe_lib.frameworks.openai_agents",
    "probe_lib.frameworks.pydantic_ai",
    "probe_lib.frameworks.langchain",
    "probe_lib.frameworks.llama_index",
    "probe_lib.frameworks.smolagents",
    "probe_lib.frameworks.autogen",
    "probe_lib.frameworks.crewai",
    "probe_lib.frameworks.claude_agent_sdk",
)


class Adapter(Protocol):
    """One agent framework, measured on the wire."""

    #: The name targets use (``mastra`` in ``mastra@1.67.0``).
    name: str
    #: The registry package the versions name (``@mastra/core``, ``ai``, ``langchain-openai`` …).
    package: str
    #: Where that package is served.
    registry: Literal["npm", "pypi"]

    def name_rule(self, version: str | None = None) -> NameRule | None:
        """The framework's own rewrite of tool names on ``version`` as a Python model (``None``: that version sends
        keys verbatim, or the kit has no model); no version: the model of its newest pinned version."""

    def versions(self) -> tuple[str, ...]:
        """The versions the kit pins for this framework, oldest first."""

    def served(self, *, refresh: bool = False) -> tuple[str, ...]:
        """Every release the registry serves of :attr:`package`, oldest first, prereleases included (kept in the
        kit's cache, listed again when a version is asked for that the list lacks)."""

    def published(self, version: str) -> str:
        """When ``version`` was published, ISO 8601 UTC (``2025-03-04T12:00:00Z``)."""

    def resolved_before(self, version: str) -> str | None:
        """The date the environment of ``version`` is resolved as of (ISO 8601 UTC), or ``None`` for an environment
        installed from a committed lock (a pin)."""

    def check_version(self, version: str) -> str:
        """``version`` if the kit pins it or the registry serves it, else ``InputError`` naming how to list them."""

    def is_installed(self, version: str) -> bool:
        """True when ``version`` can run here now (its runtime and its packages are installed)."""

    def installed(self) -> dict[str, Path]:
        """Every release installed in the kit's cache (pinned or served), and the folder it is installed in."""

    def can_run(self, version: str) -> bool:
        """True when ``version`` can run here now or after installing it on first use."""

    def unsupported(self, version: str) -> str | None:
        """Why the harness cannot run ``version`` at all (older than every API it supports), or ``None``: what a
        sweep records for that release instead of installing it."""

    def install(self, version: str) -> None:
        """Install ``version`` into the kit's cache (a no-op when it is there), a served release on first use (its
        harness folder generated in the cache, resolved as its pins say); raises
        :class:`~probe_lib.core.errors.ReleaseUnsupported` for a release the harness cannot run and ``SetupError``
        (``InstallFailed``) if it cannot install."""

    def install_extras(self, *, quiet: bool = True) -> None:
        """Install what the kit measures this framework with beyond its pinned versions (``setup`` calls it
        beside them; a no-op for most), ``quiet`` hiding the installer's output; raises ``SetupError`` if it cannot."""

    def run(
        self, scenarios: Iterable[Scenario], version: str, *, server: CaptureServer | None = None, workers: int = 1
    ) -> list[Outcome]:
        """One outcome per scenario, in order; a scenario the framework refuses or crashes on is an outcome too."""

    def stream(
        self,
        scenarios: Sequence[Scenario],
        version: str,
        *,
        server: CaptureServer,
        workers: int = 1,
        node_heap_mib: int | None = None,
    ) -> Iterator[Outcome | None]:
        """As :meth:`run`, but each outcome yielded in order as soon as the adapter has it (Mastra's as each turn
        ends, so memory stays bounded however long the batch; others' once the batch is done). ``node_heap_mib``
        caps each Node runner's heap where the adapter has them (``None``: its default). ``None`` marks a scenario
        a failed runner never finished, after which :class:`~probe_lib.core.errors.HarnessError` says why."""

    def session(self, version: str) -> AbstractContextManager[Session]:
        """A runner kept for several runs on ``version`` (started once: loading a framework is most of a small
        run's cost), closed when the context ends."""


class Session(Protocol):
    """Runs on one framework version through one warm runner (:meth:`Adapter.session`)."""

    def run(self, scenarios: Iterable[Scenario], server: CaptureServer) -> list[Outcome]:
        """As :meth:`Adapter.run`, on this session's runner."""


_REGISTRY: dict[str, Adapter] = {}


def register(adapter: Adapter) -> Adapter:
    """Make ``adapter`` findable by its name (registering a name twice replaces the first)."""
    _REGISTRY[adapter.name] = adapter
    return adapter


def _load_entry_points() -> None:
    for module in BUILTIN_MODULES:
        import_module(module)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in _REGISTRY:
            register(entry.load())


def names() -> list[str]:
    """Every registered framework, in name order."""
    _load_entry_points()
    return sorted(_REGISTRY)


def get(name: str) -> Adapter:
    """The adapter registered as ``name``; ``InputError`` lists the known ones."""
    if name not in _REGISTRY:
        _load_entry_points()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"no framework adapter named {name!r}; known: {', '.join(names())}") from None


def check_target(target: Target) -> Target:
    """``target`` if its framework is registered and pins or serves its version; else ``InputError`` saying what is
    known."""
    get(target.framework).check_version(target.version)
    return target


def install_all(adapter: Adapter, *, quiet: bool = True) -> None:
    """Install ``adapter``'s pinned versions and its extras at once, each in a thread of its own (each cache entry
    installs under a lock of its own, and npm's and uv's download caches take concurrent installs): the installers
    mostly wait on the network, so three pins take about as long as the slowest. Every install runs to its end;
    then the first failure, in the pins' order, is raised."""
    with ThreadPoolExecutor(max_workers=len(adapter.versions()) + 1) as pool:
        installs = [pool.submit(adapter.install, version) for version in adapter.versions()]
        installs.append(pool.submit(adapter.install_extras, quiet=quiet))
    for install in installs:
        install.result()
