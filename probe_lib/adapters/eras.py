"""The releases of a framework its runner cannot run: those older than the first API era the runner supports, or
in a gap between two eras, each with why.

A runner branches on its version argument for the eras it supports; the releases listed here are refused with
:class:`~probe_lib.core.errors.ReleaseUnsupported` before anything is installed or measured, so an API the harness
does not speak is never counted as the framework's behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from probe_lib.core.errors import InputError, ReleaseUnsupported


@dataclass(frozen=True)
class Unsupported:
    """The releases from ``since`` (``None``: the first) up to ``until`` (excluded) of a package, and why the
    harness cannot run them (``"predates Chat Completions"``)."""

    until: str
    why: str
    since: str | None = None

    def covers(self, version: Version) -> bool:
        return (self.since is None or version >= Version(self.since)) and version < Version(self.until)


@dataclass(frozen=True)
class Eras:
    """Which releases of ``package`` (the registry package a version names) a framework's runner cannot run."""

    package: str
    unsupported: tuple[Unsupported, ...] = ()

    def check(self, version: str) -> str:
        """``version``, unless a range of :attr:`unsupported` covers it: then ``ReleaseUnsupported`` in one line."""
        try:
            parsed = Version(version)
        except InvalidVersion:
            raise InputError(f"{self.package} version {version!r} is not a PEP 440 version") from None
        for gap in self.unsupported:
            if gap.covers(parsed):
                raise ReleaseUnsupported(
                    f"{self.package} {version} {gap.why} (the harness needs {self.package}>={gap.until})"
                )
        return version
