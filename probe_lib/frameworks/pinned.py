"""The release methods every adapter the kit ships takes from its :class:`~probe_lib.install.pins.Pins`.

A module of its own, apart from the registry in :mod:`probe_lib.frameworks.base`: a sweep's digest reads the code of
each class an adapter inherits from the kit, and registering a framework must not move every framework's digest.
"""

from __future__ import annotations

from pathlib import Path

from probe_lib.install.pins import Pins
from probe_lib.install.releases import Registry, unsupported_reason


class PinnedReleases:
    """An :class:`~probe_lib.frameworks.base.Adapter`'s release methods, for one whose releases are a
    :class:`~probe_lib.install.pins.Pins` (every framework the kit ships)."""

    name: str
    pins: Pins

    @property
    def package(self) -> str:
        return self.pins.package

    @property
    def registry(self) -> Registry:
        return self.pins.registry

    def versions(self) -> tuple[str, ...]:
        return self.pins.versions()

    def served(self, *, refresh: bool = False) -> tuple[str, ...]:
        return self.pins.releases.served(refresh=refresh)

    def published(self, version: str) -> str:
        return self.pins.releases.published(version)

    def resolved_before(self, version: str) -> str | None:
        return self.pins.resolved_before(version)

    def check_version(self, version: str) -> str:
        return self.pins.check(version, self.name)

    def is_installed(self, version: str) -> bool:
        return self.pins.is_installed(version)

    def installed(self) -> dict[str, Path]:
        """Every release installed in the cache (pinned or served) and where."""
        return {
            version: self.pins.install_dir(version) for version in self.pins.known() if self.pins.is_installed(version)
        }

    def can_run(self, version: str) -> bool:
        """Installed, or a served release that installs on first use (its runtime's installer is here)."""
        return self.is_installed(version) or (version not in self.versions() and self.pins.can_install())

    def unsupported(self, version: str) -> str | None:
        return unsupported_reason(self.pins.unsupported, version)

    def install(self, version: str) -> None:
        self.pins.install(version)
