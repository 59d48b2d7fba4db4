"""A framework's releases as the kit runs them: its pinned folders, ``<adapter folder>/harness/<label>-<version>/``
by default (:attr:`Pins.layout`), any other served release's folder generated in the cache, and how to start its
runner on one.

A Node folder holds ``package.json`` + ``package-lock.json`` (installed by :mod:`probe_lib.install.npm`); a
Python folder holds ``requirements.lock`` (installed by :mod:`probe_lib.install.pyvenv`). A served release that is
not pinned gets its folder generated on first use from what :attr:`Pins.requires` says it needs, its lock resolved
as of its publication (or of a later release of its line that the registry dates before it; ``@mastra/core``'s as
of that day: :mod:`probe_lib.install.releases`). The harness folder also holds the framework's runner
(``runner.mjs`` or ``runner.py``), which speaks :mod:`probe_lib.process.lines` and loads the shared child-side loop
from ``probe_lib/frameworks/harness/``.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from probe_lib.core import paths
from probe_lib.core.errors import InputError, InstallFailed, NodeMissing, SetupError
from probe_lib.core.paths import SHARED_HARNESS
from probe_lib.install import npm, pyvenv
from probe_lib.install.cache import Installer
from probe_lib.install.releases import Registry, Releases, Resolution, Unsupported, refuse_unsupported

Runtime = Literal["node", "python"]
#: What a served release's harness installs: package -> npm range, or distribution (extras included) -> PEP 440
#: specifier (``""``: any), each resolved as of :attr:`Pins.resolution`.
Requires = Callable[[str], Mapping[str, str]]
#: What an installed Node release lacks that it needs on this machine, given its version and ``node_modules``, in
#: words ("needs X, which ..."), or ``None``.
Lacks = Callable[[str, Path], str | None]


@dataclass(frozen=True)
class Pins:
    """The releases of one framework the kit runs (pinned, or served and generated), and how to start its runner."""

    label: str
    harness: Path
    runtime: Runtime
    #: The registry package the versions name (``ai``, ``langchain-openai``).
    package: str
    #: Python: the extras the package installs with (``[openai]``).
    extras: str = ""
    #: Python: the distributions installed beside it, at the newest version the day of the release allows.
    companions: tuple[str, ...] = ()
    #: What a served, unpinned release installs, for a framework whose eras need different packages (default: the
    #: package at that version, with its extras and companions; for Node also every other dependency of the newest
    #: pin, at the range the release itself declares for it, else any version).
    requires: Requires | None = None
    #: Why a release cannot run under this harness (default: every release can be tried).
    unsupported: Unsupported | None = None
    #: Node: what an install can lack although npm completed it (a platform binary its day's lock could not
    #: resolve); such a release counts as not installed, and installing it fails (``InstallFailed``).
    lacks: Lacks | None = None
    #: Where a pinned release's folder is, under :attr:`harness`; its last part names a generated one too.
    layout: str = "{label}-{version}"
    resolution: Resolution = "as-of-publication"

    @property
    def _installer(self) -> Installer:
        return npm.INSTALLER if self.runtime == "node" else pyvenv.INSTALLER

    @property
    def registry(self) -> Registry:
        return "npm" if self.runtime == "node" else "pypi"

    @property
    def releases(self) -> Releases:
        name = Path(self.layout).name
        return Releases(self.package, self.registry, self.label, folder_name=name, resolution=self.resolution)

    @property
    def _setup(self) -> str:
        """The command that installs the pins."""
        return f"probe-lib setup --framework {self.label}"

    def _pinned(self, version: str) -> Path:
        return self.harness / self.layout.format(label=self.label, version=version)

    def versions(self) -> tuple[str, ...]:
        """The pinned versions, oldest first."""
        pattern = self.layout.format(label=self.label, version="*")
        prefix = Path(pattern).name.removesuffix("*")
        found = (
            folder.name.removeprefix(prefix)
            for folder in self.harness.glob(pattern)
            if not folder.name.startswith(".") and (folder / self._installer.lock).exists()
        )
        return tuple(sorted(found, key=self.releases.sort_key))

    def list_help(self, framework: str) -> str:
        return f"list the served ones with `probe-lib versions --framework {framework}`"

    def check(self, version: str, framework: str | None = None) -> str:
        """``version`` if it is pinned or served, else ``InputError`` saying how to list them."""
        if version in self.versions():
            return version
        releases = self.releases
        releases.check_form(version)
        pinned = ", ".join(self.versions())
        try:
            served = releases.is_served(version)
        except (NodeMissing, InstallFailed) as error:
            raise InputError(
                f"{self.package} {version!r} is not pinned ({pinned}) and the served releases could not be listed "
                f"({error})"
            ) from None
        if not served:
            raise InputError(
                f"{self.package} {version!r} is neither pinned ({pinned}) nor served by {self.registry}; "
                f"{self.list_help(framework or self.label)}"
            )
        return version

    def _requires(self, version: str) -> Mapping[str, str]:
        if self.requires is not None:
            return self.requires(version)
        if self.runtime == "python":
            return {f"{self.package}{self.extras}": f"=={version}", **dict.fromkeys(self.companions, "")}
        newest = self._pinned(self.versions()[-1]) / "package.json"
        companions = json.loads(newest.read_text(encoding="utf-8"))["dependencies"]
        declared = self.releases.declared(version)
        return {name: version if name == self.package else declared.get(name, "*") for name in companions}

    def folder(self, version: str) -> Path:
        """The harness folder of ``version``: its pin, else the one generated in the cache (resolved on first use)."""
        if self.check(version) in self.versions():
            return self._pinned(version)
        return self.releases.generate(version, self._requires(version))

    def resolved_before(self, version: str) -> str | None:
        """The date the environment of ``version`` was resolved as of (``None``: a pin, its committed lock, or a
        release resolved as of its generation, not generated yet)."""
        return None if version in self.versions() else self.releases.resolved_before(version)

    def _existing_folder(self, version: str) -> Path | None:
        """The folder of ``version`` if it needs no resolving now (a pin, or a served release generated before)."""
        if version in self.versions():
            return self._pinned(version)
        return self.releases.generated(version) if self.releases.is_generated(version) else None

    def install_dir(self, version: str) -> Path | None:
        """Where ``version`` is (or would be) installed in the cache; ``None`` for a served release not generated."""
        folder = self._existing_folder(version)
        if folder is None:
            return None
        return self._installer.install_dir(folder)

    def known(self) -> tuple[str, ...]:
        """The pinned releases and the served ones generated in the cache."""
        return tuple(dict.fromkeys((*self.versions(), *self.releases.generated_versions())))

    def is_installed(self, version: str) -> bool:
        folder = self._existing_folder(version)
        if folder is None:
            return False
        if self.runtime == "python":
            return self._installer.is_installed(folder)
        try:
            npm.node_executable()
        except NodeMissing:
            return False
        return self._installer.is_installed(folder) and self._lacking(version, folder) is None

    def _lacking(self, version: str, folder: Path) -> str | None:
        """What the completed Node install of ``version`` in ``folder`` lacks (:attr:`lacks`), or ``None``."""
        if self.lacks is None:
            return None
        return self.lacks(version, npm.install_dir(folder) / "node_modules")

    def can_install(self) -> bool:
        """True when a served release could be installed here now (Node.js and npm on PATH, for Node)."""
        return self.runtime == "python" or (shutil.which("node") is not None and shutil.which("npm") is not None)

    def install(self, version: str) -> None:
        """Install ``version`` (a no-op when it is there): ``ReleaseUnsupported`` for one the harness cannot run,
        ``InstallFailed`` when its resolution or install fails. A served release says so on stderr, in one line."""
        refuse_unsupported(self.unsupported, version)
        if self.is_installed(version):
            return
        folder = self._existing_folder(version)
        if folder is None or not self._installer.is_installed(folder):
            if self.check(version) not in self.versions():
                before = self.resolved_before(version)
                as_of = f" (resolved as of {before})" if before is not None else ""
                print(f"installing {self.package} {version}{as_of} into {paths.cache()} (first use)", file=sys.stderr)
            folder = self.folder(version)
            self._installer.install(folder)
        if self.runtime == "node" and (lacking := self._lacking(version, folder)) is not None:
            published = self.releases.published(version)
            raise InstallFailed(f"{self.package} {version} {lacking} ({published}): it cannot be measured")

    def _ready(self, version: str) -> Path:
        """The folder of ``version``: a pin's as it is, a served release's installed now (``ReleaseUnsupported``
        when the harness cannot run it)."""
        refuse_unsupported(self.unsupported, version)
        if version not in self.versions():
            self.install(version)
        return self.folder(version)

    def modules(self, version: str) -> Path:
        """The ``node_modules`` of ``version`` (:meth:`_ready`; a pin must be set up)."""
        return npm.modules_dir(self._ready(version), f"{self.label} {version}", self._setup)

    def command(self, version: str) -> list[str]:
        """The command line that starts this framework's runner on ``version`` (:meth:`_ready`; a pin must be set
        up)."""
        if self.runtime == "node":
            return [npm.node_executable(), str(self.harness / "runner.mjs"), str(self.modules(version)), version]
        folder = self._ready(version)
        if not self._installer.is_installed(folder):
            raise SetupError(f"{self.label} {version} is not installed: run `{self._setup}`")
        python = pyvenv.python_executable(folder)
        return [str(python), "-I", str(self.harness / "runner.py"), str(SHARED_HARNESS), version]
