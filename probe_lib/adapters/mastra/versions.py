"""The ``@mastra/core`` versions the kit pins, and where each is installed.

Each pinned version is one harness folder, ``harness/versions/<version>/``: a ``package.json`` naming
``@mastra/core`` under the alias ``mastra-<version>`` (the name ``runner.cjs`` loads), and its committed lockfile.
Each installs on its own into the kit's cache (:mod:`probe_lib.adapters.npm`), so adding a version installs one.
"""

from __future__ import annotations

from pathlib import Path

from probe_lib.adapters import npm
from probe_lib.core import paths
from probe_lib.core.errors import InputError, NodeMissing
from probe_lib.core.target import version_key

VERSIONS_DIR = paths.HARNESS / "versions"


def pinned() -> tuple[str, ...]:
    """The pinned versions, oldest first."""
    folders = (folder.name for folder in VERSIONS_DIR.iterdir() if (folder / "package-lock.json").exists())
    return tuple(sorted(folders, key=version_key))


def check(version: str) -> str:
    """``version`` if the kit pins it, else ``InputError`` listing the pinned ones."""
    if version not in pinned():
        raise InputError(f"@mastra/core {version!r} is not pinned; choose one of {', '.join(pinned())}")
    return version


def harness(version: str) -> Path:
    return VERSIONS_DIR / check(version)


def is_installed(version: str) -> bool:
    """True when Node.js is on PATH and ``version`` is installed, so it can run live."""
    try:
        npm.node_executable()
    except NodeMissing:
        return False
    return npm.is_installed(harness(version))


def modules_dir(version: str) -> Path:
    """The installed ``node_modules`` holding ``mastra-<version>``, or ``NodeMissing`` saying what to run."""
    return npm.modules_dir(harness(version), f"@mastra/core {version}")
