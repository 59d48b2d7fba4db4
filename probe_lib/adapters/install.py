"""Install the pinned ``@mastra/core`` versions (``npm ci``) into a cache outside the source tree.

The harness's ``package.json`` pins each version under an npm alias (``mastra-1.67.0`` ->
``@mastra/core@1.67.0``) so that all of them live in one ``node_modules``; ``package-lock.json`` pins the rest.
The install folder is named after the lockfile's hash, so changing a pin installs afresh and never mixes trees.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from probe_lib.core import paths
from probe_lib.core.errors import BrowserMissing, InputError, InstallFailed, NodeMissing

NODE_HELP = (
    "Node.js 20+ and npm are needed to run the real @mastra/core: install them (e.g. `apt-get install nodejs npm` "
    "or from nodejs.org), or run from recorded captures with --recorded"
)

_ALIAS_PREFIX = "mastra-"

#: The version the article measured: the default everywhere a single version is shown.
ARTICLE_VERSION = "1.67.0"


@cache
def pinned_versions() -> tuple[str, ...]:
    """The ``@mastra/core`` versions the harness pins, oldest first."""
    manifest = json.loads((paths.HARNESS / "package.json").read_text())
    versions = [name.removeprefix(_ALIAS_PREFIX) for name in manifest["dependencies"] if name.startswith(_ALIAS_PREFIX)]
    return tuple(sorted(versions, key=lambda v: tuple(int(part) for part in v.split("."))))


def check_version(version: str) -> str:
    """Return ``version`` if the harness pins it, else raise ``InputError`` listing the pinned ones."""
    if version not in pinned_versions():
        raise InputError(f"@mastra/core {version} is not pinned; choose one of {', '.join(pinned_versions())}")
    return version


def install_dir(harness: Path = paths.HARNESS) -> Path:
    """Where ``npm ci`` installs ``harness``' current lockfile (the main harness, or ``paths.MCP_HARNESS``)."""
    digest = hashlib.sha256((harness / "package-lock.json").read_bytes()).hexdigest()[:16]
    return paths.CACHE / "node" / digest


def node_executable() -> str:
    """The ``node`` on PATH, or ``NodeMissing``."""
    node = shutil.which("node")
    if node is None:
        raise NodeMissing(f"node was not found on PATH. {NODE_HELP}")
    return node


def node_available() -> bool:
    """True when Node.js is on PATH and the harness is installed (so live probes can run)."""
    return shutil.which("node") is not None and (install_dir() / "node_modules" / ".package-lock.json").exists()


def modules_dir(harness: Path = paths.HARNESS) -> Path:
    """The installed ``node_modules`` of ``harness``, or ``NodeMissing`` saying to run ``probe-lib setup``."""
    node_executable()
    modules = install_dir(harness) / "node_modules"
    if not (modules / ".package-lock.json").exists():
        raise NodeMissing(f"the pinned packages of {harness.name}/ are not installed in {modules}: run `probe-lib setup`")
    return modules


BROWSER_HELP = "install Debian's Chromium (`apt-get install chromium`, as root), or run `probe-lib setup --with-browser`"


def browser_executable() -> str | None:
    """Debian's Chromium, used by the tests to load the HTML report in a real browser."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def install_browser() -> str:
    """Install Debian's Chromium with apt-get unless it is present; return its path."""
    if browser_executable() is None:
        apt = shutil.which("apt-get")
        if apt is None or os.geteuid() != 0:
            raise BrowserMissing(f"Chromium is missing and cannot be installed here: {BROWSER_HELP}")
        for command in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", "chromium"]):
            if subprocess.run(command, capture_output=True, text=True).returncode != 0:
                raise BrowserMissing(f"`{' '.join(command)}` failed: {BROWSER_HELP}")
    return browser_executable()


def install(*, quiet: bool = True, harness: Path = paths.HARNESS) -> Path:
    """Run ``npm ci`` for ``harness``' pinned lockfile unless that exact tree is installed; return ``node_modules``."""
    target = install_dir(harness)
    modules = target / "node_modules"
    if (modules / ".package-lock.json").exists():
        return modules
    node_executable()
    npm = shutil.which("npm")
    if npm is None:
        raise NodeMissing(f"npm was not found on PATH. {NODE_HELP}")
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(harness / name, staging / name)
    command = [npm, "ci", "--no-audit", "--no-fund", "--engine-strict=false"]
    completed = subprocess.run(command, cwd=staging, capture_output=quiet, text=True)
    if completed.returncode != 0:
        tail = (completed.stderr or "").strip().splitlines()[-1:] or ["see npm's output above"]
        raise InstallFailed(f"`npm ci` failed in {staging}: {tail[0]}")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)  # atomic: a half-finished install is never mistaken for a whole one
    return modules
