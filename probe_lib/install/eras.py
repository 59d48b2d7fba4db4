"""Releases a framework's runner cannot run that are not simply the oldest ones: a gap between two API eras it
supports (:func:`probe_lib.install.releases.since` refuses the oldest), and several such refusals as one.

A runner branches on its version argument for the eras it supports; what these refuse raises
:class:`~probe_lib.core.errors.ReleaseUnsupported` before anything is installed or measured, so an API the harness
does not speak is never counted as the framework's behaviour.
"""

from __future__ import annotations

from packaging.version import Version

from probe_lib.install.releases import Unsupported


def between(package: str, since: str, until: str, why: str) -> Unsupported:
    """An :data:`Unsupported` refusing the PyPI releases from ``since`` up to ``until`` (excluded)."""

    def unsupported(version: str) -> str | None:
        inside = Version(since) <= Version(version) < Version(until)
        return f"{package} {version} {why} (needs {package}>={until})" if inside else None

    return unsupported


def either(*refusals: Unsupported) -> Unsupported:
    """An :data:`Unsupported` refusing what any of ``refusals`` refuses, with the first one's reason."""

    def unsupported(version: str) -> str | None:
        return next((reason for refusal in refusals if (reason := refusal(version)) is not None), None)

    return unsupported
