"""``@mastra/core`` behind the framework seam: its pinned versions, its install, its runner and its name rule."""

from __future__ import annotations

from typing import Iterable

from probe_lib.adapters import npm
from probe_lib.adapters.base import register
from probe_lib.adapters.mastra import normaliser, runner, versions
from probe_lib.capture import CaptureServer
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario


class Mastra:
    name = runner.FRAMEWORK
    name_rule = normaliser

    def versions(self) -> tuple[str, ...]:
        return versions.pinned()

    def check_version(self, version: str) -> str:
        return versions.check(version)

    def is_installed(self, version: str) -> bool:
        return versions.is_installed(version)

    def can_run(self, version: str) -> bool:
        """Installed, or served and installable on first use."""
        return versions.can_run(version)

    def install(self, version: str) -> None:
        npm.install(versions.harness(version))

    def run(
        self, scenarios: Iterable[Scenario], version: str, *, server: CaptureServer | None = None, workers: int = 1
    ) -> list[Outcome]:
        return runner.run(scenarios, version, server=server, workers=workers)


ADAPTER: Mastra = register(Mastra())
