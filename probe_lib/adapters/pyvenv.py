"""Install a Python framework from a committed lock file into a virtual environment of its own in the kit's cache.

Each pin folder holds ``requirements.lock`` (every distribution pinned with ``==``, written by ``pip freeze``); it
installs with ``python -m venv --without-pip`` and the kit's own ``pip --python … install --no-deps -r`` into
``<cache>/python/<folder name>-<lock hash>/``, so frameworks whose dependencies clash (pydantic, httpx, openai
versions) never share an environment and a changed lock installs afresh beside the old one. pip's own download cache
is shared by every entry.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from probe_lib.adapters import cache
from probe_lib.core import paths
from probe_lib.core.errors import InstallFailed

LOCK = "requirements.lock"
#: Written last, so its presence marks a complete environment.
_COMPLETE_MARK = ".probe-lib-complete"


def install_dir(pin: Path) -> Path:
    """Where the environment for pin folder ``pin`` lives."""
    digest = hashlib.sha256((pin / LOCK).read_bytes()).hexdigest()[:16]
    return paths.cache() / "python" / f"{pin.name}-{digest}"


def python_executable(pin: Path) -> Path:
    return install_dir(pin) / "bin" / "python"


def _is_complete(target: Path) -> bool:
    return (target / _COMPLETE_MARK).exists()


def is_installed(pin: Path) -> bool:
    return _is_complete(install_dir(pin))


def install(pin: Path, *, quiet: bool = True) -> Path:
    """Create the environment of ``pin`` unless that exact lock is installed; return its Python. Safe to run in
    several processes at once (:mod:`probe_lib.adapters.cache`): one installs, the others wait."""
    cache.publish(install_dir(pin), _is_complete, lambda staging: _create(pin, staging, quiet))
    return python_executable(pin)


def _create(pin: Path, staging: Path, quiet: bool) -> None:
    """The environment, built in ``staging``: renamed into place later, its scripts name the wrong folder, so entry
    points break; the kit runs ``python`` only."""
    python = str(staging / "bin" / "python")
    steps = [
        [sys.executable, "-m", "venv", "--without-pip", str(staging)],  # the kit's own pip installs into it
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--disable-pip-version-check"]
        + ["--no-deps", "-r", str(pin / LOCK)],
    ]
    for command in steps:
        completed = subprocess.run(command, capture_output=quiet, text=True, timeout=900)
        if completed.returncode != 0:
            tail = (completed.stderr or "").strip().splitlines()[-1:] or ["see its output above"]
            raise InstallFailed(f"`{' '.join(command[:4])} …` failed for {pin.name}: {tail[0]}")
    (staging / _COMPLETE_MARK).write_text(pin.name + "\n", encoding="utf-8")
