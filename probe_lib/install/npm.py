"""Install a Node harness package (``package.json`` + committed ``package-lock.json``) into the kit's cache.

Each harness folder installs on its own with ``npm ci``, into ``<cache>/node/<folder name>-<lockfile hash>/``: one
entry per framework version, so adding a version installs that version alone, and changing a lockfile installs
afresh beside the old entry rather than mixing trees. npm's own download cache is shared by every entry,
and identical files of all entries are hard links into one store (:mod:`probe_lib.install.linkstore`).
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Literal

from probe_lib.core.errors import NodeMissing
from probe_lib.install import cache, linkstore

NODE_HELP = (
    "Node.js (the kit is measured on 20) and npm are needed to run the Node.js frameworks: install them (e.g. "
    "`apt-get install nodejs npm` or from nodejs.org), or read recorded captures instead (the notebooks' "
    '`measurements = "recorded"`, `reproduce --recorded`)'
)

#: npm's names of architectures (a package's ``cpu`` field) where Python's ``platform.machine()`` differs.
_NPM_CPUS = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "armv7l": "arm", "i686": "ia32"}
#: This machine as npm names it in a package's ``os`` and ``cpu`` fields (``linux``, ``x64`` …).
OS = sys.platform
CPU = _NPM_CPUS.get(platform.machine().lower(), platform.machine().lower())


def executable(program: Literal["node", "npm"]) -> str:
    """``program`` on PATH, or ``NodeMissing`` saying how to get Node.js."""
    found = shutil.which(program)
    if found is None:
        raise NodeMissing(f"{program} was not found on PATH. {NODE_HELP}")
    return found


def node_executable() -> str:
    """The ``node`` on PATH, or ``NodeMissing``."""
    return executable("node")


#: How long ``node --version`` may take before the kit gives up on naming the version.
NODE_VERSION_SECONDS = 10


def node_version() -> str:
    """The ``node`` on PATH's version as it prints it (``v20.20.2``), for a live measurement file to name;
    ``NodeMissing`` in one line when that ``node`` does not answer ``--version`` in time or fails."""
    node = node_executable()
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=NODE_VERSION_SECONDS)
    except subprocess.TimeoutExpired:
        raise NodeMissing(f"`{node} --version` did not answer within {NODE_VERSION_SECONDS} s. {NODE_HELP}") from None
    if done.returncode != 0 or not done.stdout.strip():
        said = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise NodeMissing(f"`{node} --version` failed ({said}). {NODE_HELP}")
    return done.stdout.strip()


def modules_dir(harness: Path, what: str, setup: str = "probe-lib setup") -> Path:
    """The installed ``node_modules`` of ``harness``, or ``NodeMissing`` naming ``what`` and the ``setup`` command
    that installs it."""
    node_executable()
    target = install_dir(harness)
    if not INSTALLER.is_complete(target):
        raise NodeMissing(f"{what} is not installed in {target / 'node_modules'}: run `{setup}`")
    return target / "node_modules"


def install(harness: Path, *, quiet: bool = True) -> Path:
    """Run ``npm ci`` for ``harness`` unless that exact lockfile is installed; return its ``node_modules``.
    Safe to run in several processes at once (:mod:`probe_lib.install.cache`): one installs, the others wait."""
    return INSTALLER.install(harness, quiet=quiet) / "node_modules"


def error_reason(stderr: str | None) -> str:
    """The line of npm's error output that says what went wrong: its first message, not the usage text or the
    pointer to its log that follow it (``npm ci`` on a lockfile out of sync ends with "Run "npm help ci" ..."), nor
    a warning before it (an old release's "npm warn EBADENGINE Unsupported engine")."""
    errors = [line for line in (stderr or "").splitlines() if not line.startswith("npm warn")]
    lines = [line.removeprefix("npm error").strip() for line in errors]
    said = [line for line in lines if line and not line.startswith("code ") and "complete log of this run" not in line]
    return said[0] if said else "see npm's output above"


def _npm_ci(harness: Path, staging: Path, quiet: bool) -> None:
    node_executable()
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(harness / name, staging / name)
    # No install scripts: the runners need only JavaScript, and old versions' scripts fetch binaries from outside npm.
    # Not --prefer-offline: for a lock entry without a tarball URL npm reads the package's metadata, and a stale
    # cached copy lacking the locked version failed 1.1.0's install ("No matching version found for
    # pkce-challenge@5.0.2", measured) where the registry's own serves it.
    command = ["ci", "--no-audit", "--no-fund", "--engine-strict=false", "--ignore-scripts"]
    completed = subprocess.run([executable("npm"), *command], cwd=staging, capture_output=quiet, text=True, timeout=900)
    if completed.returncode != 0:
        raise cache.install_failure("`npm ci`", harness.name, completed, error_reason(completed.stderr))
    linkstore.prune(staging / "node_modules")  # source maps and type declarations: never read by a runner
    linkstore.share(staging / "node_modules")  # unchanged dependencies cost no new bytes across versions


#: ``npm ci`` of a harness folder; npm writes ``node_modules/.package-lock.json`` last, so it marks a whole tree.
INSTALLER = cache.Installer("node", "package-lock.json", "node_modules/.package-lock.json", _npm_ci)
#: Where ``npm ci`` installs the harness package in a folder. :func:`modules_dir` looks it up here, so a test that
#: replaces it moves what runners load; installing goes through :data:`INSTALLER`.
install_dir = INSTALLER.install_dir
is_installed = INSTALLER.is_installed
