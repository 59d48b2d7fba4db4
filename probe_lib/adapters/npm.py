"""Install a Node harness package (``package.json`` + committed ``package-lock.json``) into the kit's cache.

Each harness folder installs on its own with ``npm ci``, into ``<cache>/node/<folder name>-<lockfile hash>/``: one
entry per framework version, so adding a version installs that version alone, and changing a lockfile installs
afresh beside the old entry rather than mixing trees. npm's own download cache is shared by every entry,
and identical files of all entries are hard links into one store (:mod:`probe_lib.adapters.linkstore`).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from probe_lib.adapters import linkstore
from probe_lib.core import paths
from probe_lib.core.errors import InstallFailed, NodeMissing

NODE_HELP = (
    "Node.js 20+ and npm are needed to run the real frameworks: install them (e.g. `apt-get install nodejs npm` "
    'or from nodejs.org), or read recorded captures instead (the notebooks\' `measurements = "recorded"`, '
    "`reproduce --recorded`)"
)
#: npm writes this last, so its presence marks a complete ``node_modules``.
_COMPLETE_MARK = ".package-lock.json"


def node_executable() -> str:
    """The ``node`` on PATH, or ``NodeMissing``."""
    node = shutil.which("node")
    if node is None:
        raise NodeMissing(f"node was not found on PATH. {NODE_HELP}")
    return node


def npm_executable() -> str:
    """The ``npm`` on PATH, or ``NodeMissing``."""
    found = shutil.which("npm")
    if found is None:
        raise NodeMissing(f"npm was not found on PATH. {NODE_HELP}")
    return found


def install_dir(harness: Path) -> Path:
    """Where ``npm ci`` installs the harness package in folder ``harness``."""
    digest = hashlib.sha256((harness / "package-lock.json").read_bytes()).hexdigest()[:16]
    return paths.CACHE / "node" / f"{harness.name}-{digest}"


def is_installed(harness: Path) -> bool:
    return (install_dir(harness) / "node_modules" / _COMPLETE_MARK).exists()


def modules_dir(harness: Path, help_text: str) -> Path:
    """The installed ``node_modules`` of ``harness``, or ``NodeMissing`` carrying ``help_text``."""
    node_executable()
    modules = install_dir(harness) / "node_modules"
    if not (modules / _COMPLETE_MARK).exists():
        raise NodeMissing(f"{help_text} is not installed in {modules}: run `probe-lib setup`")
    return modules


def install(harness: Path, *, quiet: bool = True) -> Path:
    """Run ``npm ci`` for ``harness`` unless that exact lockfile is installed; return its ``node_modules``."""
    target = install_dir(harness)
    modules = target / "node_modules"
    if (modules / _COMPLETE_MARK).exists():
        return modules
    node_executable()
    npm = npm_executable()
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)  # the kit's own leftover from an interrupted install
    staging.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(harness / name, staging / name)
    # No install scripts: the runners need only JavaScript, and old versions' scripts fetch binaries from outside npm.
    command = [npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--engine-strict=false", "--ignore-scripts"]
    completed = subprocess.run(command, cwd=staging, capture_output=quiet, text=True, timeout=900)
    if completed.returncode != 0:
        lines = [
            line for line in (completed.stderr or "").strip().splitlines() if "complete log of this run" not in line
        ]
        tail = lines[-1:] or ["see npm's output above"]
        raise InstallFailed(f"`npm ci` failed in {staging}: {tail[0]}")
    linkstore.prune(staging / "node_modules")  # source maps and type declarations: never read by a runner
    linkstore.share(staging / "node_modules")  # unchanged dependencies cost no new bytes across versions
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)  # atomic: a half-finished install is never mistaken for a whole one
    return modules
