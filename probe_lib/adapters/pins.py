"""A framework's pinned releases: one folder each, ``<adapter folder>/harness/<label>-<version>/``, and its runtime.

A Node pin folder holds ``package.json`` + ``package-lock.json`` (installed by :mod:`probe_lib.adapters.npm`); a
Python pin folder holds ``requirements.lock`` (installed by :mod:`probe_lib.adapters.pyvenv`). The harness folder
also holds the framework's runner (``runner.mjs`` or ``runner.py``), which speaks :mod:`probe_lib.adapters.lines`
and loads the shared child-side loop from ``probe_lib/adapters/harness/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from probe_lib.adapters import npm, pyvenv
from probe_lib.core.errors import InputError, NodeMissing, SetupError
from probe_lib.core.paths import SHARED_HARNESS
from probe_lib.core.target import version_key

Runtime = Literal["node", "python"]


@dataclass(frozen=True)
class Pins:
    """The pinned releases of one framework, and how to start its runner on one of them."""

    label: str
    harness: Path
    runtime: Runtime

    @property
    def _lock(self) -> str:
        return "package-lock.json" if self.runtime == "node" else pyvenv.LOCK

    def versions(self) -> tuple[str, ...]:
        prefix = self.label + "-"
        found = (
            folder.name.removeprefix(prefix)
            for folder in self.harness.iterdir()
            if folder.name.startswith(prefix) and (folder / self._lock).exists()
        )
        return tuple(sorted(found, key=version_key))

    def check(self, version: str) -> str:
        if version not in self.versions():
            raise InputError(f"{self.label} {version!r} is not pinned; choose one of {', '.join(self.versions())}")
        return version

    def folder(self, version: str) -> Path:
        return self.harness / f"{self.label}-{self.check(version)}"

    def is_installed(self, version: str) -> bool:
        if self.runtime == "python":
            return pyvenv.is_installed(self.folder(version))
        try:
            npm.node_executable()
        except NodeMissing:
            return False
        return npm.is_installed(self.folder(version))

    def install(self, version: str) -> None:
        if self.runtime == "python":
            pyvenv.install(self.folder(version))
        else:
            npm.install(self.folder(version))

    def command(self, version: str) -> list[str]:
        """The command line that starts this framework's runner on ``version``."""
        if self.runtime == "node":
            modules = npm.modules_dir(self.folder(version), f"{self.label} {version}")
            return [npm.node_executable(), str(self.harness / "runner.mjs"), str(modules), version]
        if not pyvenv.is_installed(self.folder(version)):
            raise SetupError(f"{self.label} {version} is not installed: run `probe-lib setup --framework {self.label}`")
        python = pyvenv.python_executable(self.folder(version))
        return [str(python), "-I", str(self.harness / "runner.py"), str(SHARED_HARNESS), version]
