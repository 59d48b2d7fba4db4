"""A newcomer's first run: the README's main command in a fresh clone with every cache empty, timed stage by stage.

The command is read from the README (the code block that makes ``.venv`` and ends in ``reproduce``) and run one
``&&`` part at a time in a ``git clone`` of this repository's committed HEAD, so what is timed is what a reader
pastes: make the venv, bootstrap uv, install the locked environment, ``probe-lib setup``, ``probe-lib reproduce``
(its own stages split out from the progress lines it prints). Cold means every cache a first run fills starts
empty: pip's (``PIP_CACHE_DIR``), npm's (``npm_config_cache``), the kit's (``PROBE_LIB_CACHE``), uv's and every other
tool's under ``XDG_CACHE_HOME``, and matplotlib's font cache (``MPLCONFIGDIR``). ``--warm`` keeps this machine's
caches instead (a developer's second clone). Printed: each stage's wall time with the load average as it ended, the
total beside the 150 s target and its ratio to it; others' work on a shared machine lengthens every wall time, so
read the figures with the load beside them.

    .venv/bin/python benchmarks/first_run.py [--warm]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import suppress
from pathlib import Path

from reproduce_time import STAGE_DONE

from probe_lib.core import paths

#: The README's promise for this command, wall clock, install included.
TARGET_SECONDS = 150
#: How long any one part may take before the run is called stuck.
PART_SECONDS = 1800
#: The caches a first run fills, each pointed at an empty folder of its own when cold.
COLD_CACHES = ("PIP_CACHE_DIR", "npm_config_cache", "PROBE_LIB_CACHE", "XDG_CACHE_HOME", "MPLCONFIGDIR")


def readme_main_command(readme: Path = paths.ROOT / "README.md") -> str:
    """The README's main command: the line of a code block that makes ``.venv`` and runs ``reproduce``."""
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("python3 -m venv .venv") and line.rstrip().endswith("probe-lib reproduce"):
            return line.strip()
    raise SystemExit(f"{readme} has no line starting `python3 -m venv .venv` and ending `probe-lib reproduce`")


def run_part(part: str, clone: Path, env: dict[str, str]) -> tuple[float, list[tuple[str, float]]]:
    """Run one ``&&`` part in ``clone``; its wall time and, for ``reproduce``, the stages its progress lines end.
    A part still running after ``PART_SECONDS`` is killed with every process it started (its own process group:
    a child left holding the output pipe would keep the read below waiting), as is one left when this one stops."""
    started = last = time.perf_counter()
    stages = []
    process = subprocess.Popen(
        part, shell=True, executable="/bin/bash", cwd=clone, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    stuck = threading.Event()
    watchdog = threading.Timer(PART_SECONDS, lambda: (stuck.set(), _kill_group(process)))
    watchdog.start()
    said = []
    try:
        for line in process.stdout:
            said.append(line)
            done = STAGE_DONE.match(line)
            if done:
                now = time.perf_counter()
                stages.append((done["stage"], now - last))
                last = now
        process.wait()
    finally:
        watchdog.cancel()
        _kill_group(process)
        process.wait()
    if process.returncode != 0:
        why = f"was stuck past {PART_SECONDS} s" if stuck.is_set() else f"failed with exit code {process.returncode}"
        raise SystemExit(f"`{part}` {why}:\n{''.join(said[-20:])}")
    return time.perf_counter() - started, stages


def _kill_group(process: subprocess.Popen) -> None:
    with suppress(ProcessLookupError):  # the group's every process has ended
        os.killpg(process.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", action="store_true", help="keep this machine's caches (default: all empty)")
    args = parser.parse_args()
    command = readme_main_command()
    caches = "warm" if args.warm else "cold"
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; caches {caches}")
    print(f"README main command: {command}")
    with tempfile.TemporaryDirectory(prefix="probe-lib-first-run-") as scratch:
        clone = Path(scratch) / "clone"
        subprocess.run(["git", "clone", "-q", str(paths.ROOT), str(clone)], check=True)
        env = {**os.environ}
        env.pop("VIRTUAL_ENV", None)
        if not args.warm:
            for name in COLD_CACHES:
                (Path(scratch) / name).mkdir()
                env[name] = str(Path(scratch) / name)
        else:
            env.pop("PROBE_LIB_CACHE", None)
        rows = []
        for part in command.split(" && "):
            seconds, stages = run_part(part, clone, env)
            rows.append((part, seconds, os.getloadavg()[0], stages))
            print(f"  done in {seconds:6.1f} s (load {rows[-1][2]:.1f}): {part}", flush=True)
    total = sum(seconds for _, seconds, _, _ in rows)
    print(f"\n{'stage':<100} {'wall s':>7} {'load':>5}")
    for part, seconds, load, stages in rows:
        shown = part if len(part) <= 100 else part[:97] + "..."
        print(f"{shown:<100} {seconds:>7.1f} {load:>5.1f}")
        for stage, stage_seconds in stages:
            print(f"    {stage:<96} {stage_seconds:>7.1f}")
    verdict = "met" if total <= TARGET_SECONDS else "MISSED"
    print(
        f"{'total':<100} {total:>7.1f} {os.getloadavg()[0]:>5.1f}\n"
        f"target {TARGET_SECONDS} s: {verdict} ({total / TARGET_SECONDS:.2f} of it); "
        f"load average (1, 5, 15 min) at the end: {', '.join(f'{load:.1f}' for load in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
