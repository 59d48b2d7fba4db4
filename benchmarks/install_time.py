"""pip against uv installing one framework's lock into a fresh environment: cold (empty download cache) and warm.

The kit makes one Python environment per framework release (:mod:`probe_lib.install.pyvenv`), so a timeline of
one framework is dozens of environments of mostly the same distributions. For one pin's ``requirements.lock``
(default the smallest and the largest pins' locks), each installer makes two environments one after the other with
a download cache of its own, new for the run: the first cold, the second warm. Printed side by side: wall time,
each environment's bytes on disk, and the bytes the warm one *added* to the disk (uv hard-links files from its
cache, pip copies them), with the load average, and the ratios pip/uv. Both install ``--no-deps`` from PyPI (pip
``--isolated``, so no local index or constraint file of this machine takes part).

    .venv/bin/python benchmarks/install_time.py [--framework NAME ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probe_lib import frameworks
from probe_lib.install import disk_usage, pyvenv

DEFAULT = ("openai", "crewai")
SECONDS = 900


def run(command: list[str]) -> float:
    """Seconds ``command`` took; its error output when it fails."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=SECONDS)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} … failed: {done.stderr.strip()[-400:]}")
    return time.perf_counter() - started


def pip_install(lock: Path, env: Path, cache: Path) -> float:
    python = str(env / "bin" / "python")
    seconds = run([sys.executable, "-m", "venv", "--without-pip", str(env)])
    pip = [sys.executable, "-m", "pip", "--isolated", "--python", python, "install", "--quiet"]
    return seconds + run([*pip, "--cache-dir", str(cache), "--no-deps", "-r", str(lock)])


def uv_install(lock: Path, env: Path, cache: Path) -> float:
    uv, shared = pyvenv.uv_executable(), ["--cache-dir", str(cache), "--quiet"]
    seconds = run([uv, "venv", *shared, "--python", sys.executable, str(env)])
    install = [uv, "pip", "install", *shared, "--python", str(env / "bin" / "python"), "--link-mode", "hardlink"]
    return seconds + run([*install, "--no-deps", "-r", str(lock)])


def measure(installer, lock: Path, folder: Path) -> dict[str, float]:
    """Cold and warm seconds, each environment's bytes, and the bytes the warm one added (hard links once)."""
    cache, cold_env, warm_env = folder / "cache", folder / "cold", folder / "warm"
    cold = installer(lock, cold_env, cache)
    before = disk_usage.size([cache, cold_env])
    warm = installer(lock, warm_env, cache)
    added = disk_usage.size([cache, cold_env, warm_env]) - before
    return {"cold": cold, "warm": warm, "env": disk_usage.size([warm_env]), "added": added}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", action="append", help=f"a Python framework's newest pin (default {DEFAULT})")
    names = parser.parse_args().framework or list(DEFAULT)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for name in names:
        pins = frameworks.get(name).pins
        lock = pins.folder(pins.versions()[-1]) / pyvenv.LOCK
        count = sum(1 for line in lock.read_text().splitlines() if "==" in line and not line.startswith("#"))
        with tempfile.TemporaryDirectory(prefix="probe-lib-install-time-") as tmp:
            figures = {}
            for label, installer in (("pip", pip_install), ("uv", uv_install)):
                figures[label] = measure(installer, lock, Path(tmp) / label)
                print(f"  {name} {label} done, load average {os.getloadavg()[0]:.1f}", flush=True)
        pip, uv = figures["pip"], figures["uv"]
        print(f"{name} {pins.versions()[-1]} ({count} distributions), load average {os.getloadavg()[0]:.1f}:")
        print(f"  {'':14}{'pip':>10}{'uv':>10}{'pip/uv':>8}")
        for key, label in (("cold", "cold"), ("warm", "warm")):
            print(f"  {label + ' (s)':14}{pip[key]:10.1f}{uv[key]:10.1f}{pip[key] / uv[key]:8.1f}")
        for key, label in (("env", "env on disk"), ("added", "warm added")):
            ratio = f"{pip[key] / uv[key]:8.1f}" if uv[key] else f"{'inf':>8}"
            print(f"  {label:14}{disk_usage.shown(int(pip[key])):>10}{disk_usage.shown(int(uv[key])):>10}{ratio}")


if __name__ == "__main__":
    main()
