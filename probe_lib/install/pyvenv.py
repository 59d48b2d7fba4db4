"""Install a Python framework from a committed lock file into a virtual environment of its own in the kit's cache.

Each pin folder (or a served release's folder generated in the cache, :mod:`probe_lib.install.releases`) holds
``requirements.lock``, every distribution pinned with ``==``; it installs with uv (``uv venv``, then ``uv pip install
--no-deps -r``; uv comes from PyPI with the kit) into ``<cache>/python/<folder name>-<lock hash>/``, so frameworks
whose dependencies clash (pydantic, httpx, openai versions) never share an environment and a changed lock installs
afresh beside the old one. uv's cache is the kit's (``<cache>/uv``), on the same file system as every environment,
so a distribution unpacked once is hard-linked into every environment that holds it (``benchmarks/install_time.py``
measures it beside pip).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from uv import find_uv_bin

from probe_lib.core import paths
from probe_lib.install import cache

LOCK = "requirements.lock"
#: Written last, so its presence marks a complete environment.
_COMPLETE_MARK = ".probe-lib-complete"


def uv_executable() -> str:
    """The uv that installed with the kit."""
    return find_uv_bin()


def uv_cache() -> Path:
    """uv's download and unpack cache, shared by every environment of the kit's cache (hard links need one file
    system)."""
    return paths.cache() / "uv"


def python_executable(pin: Path) -> Path:
    return install_dir(pin) / "bin" / "python"


def _create(pin: Path, staging: Path, quiet: bool) -> None:
    """The environment, built in ``staging`` for the Python the kit runs on: renamed into place later, its scripts
    name the wrong folder, so entry points break; the kit runs ``python`` only."""
    uv = uv_executable()
    shared = ["--cache-dir", str(cache.folder(uv_cache())), "--quiet"]
    steps = [
        [uv, "venv", *shared, "--python", sys.executable, str(staging)],
        [uv, "pip", "install", *shared, "--python", str(staging / "bin" / "python"), "--link-mode", "hardlink"]
        + ["--no-deps", "-r", str(pin / LOCK)],
    ]
    for command in steps:
        completed = subprocess.run(command, capture_output=quiet, text=True, timeout=900)
        if completed.returncode != 0:
            tail = (completed.stderr or "").strip().splitlines()[-1:] or ["see its output above"]
            raise cache.install_failure(f"`uv {' '.join(command[1:3])}`", pin.name, completed, tail[0])
    (staging / _COMPLETE_MARK).write_text(pin.name + "\n", encoding="utf-8")


#: One environment per lock, made by uv.
INSTALLER = cache.Installer("python", LOCK, _COMPLETE_MARK, _create)
#: Where the environment for a pin folder lives.
install_dir = INSTALLER.install_dir
