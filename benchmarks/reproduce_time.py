"""Wall time and CPU of ``probe-lib reproduce``, side by side: a full warm build (every notebook executed), a
rebuild with nothing changed, and a rebuild after one notebook's markdown changed (each rebuild measures live
again and re-executes only the notebooks whose inputs changed). Targets: nothing changed <= 40% of the full build's
wall time, one notebook changed <= 50%. Each build is split into reproduce's own stages, timed from the progress
lines it prints. The load average is printed with each build, since others' work on a shared machine lengthens
every wall time; the CPU seconds of the whole process tree (kernels and Node runners included) do not depend on it.
A fresh clone running the README's main command is ``benchmarks/first_run.py``'s (cold, or ``--warm``).

    .venv/bin/python benchmarks/reproduce_time.py
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from probe_lib.core import paths

NOTHING_CHANGED_TARGET = 0.40
ONE_NOTEBOOK_TARGET = 0.50
#: The notebook whose markdown the third build changes (restored afterwards, byte for byte).
EDITED = paths.NOTEBOOKS / "04-ordering-shift.ipynb"
#: A progress line that ends a stage: "executing notebooks: 11/11 10-mcp-tool-sets".
STAGE_DONE = re.compile(r"(?P<stage>[^:]+): (?P<done>\d+)/(?P=done)\b")


@dataclass(frozen=True)
class Build:
    wall: float
    cpu: float
    load: float
    stages: list[tuple[str, float]]
    summary: str


def children_cpu() -> float:
    """CPU seconds (user + system) of every process this one has waited for, their own children included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(out: Path, *extra: str) -> Build:
    """Run ``reproduce --out out`` and time it and each stage it reports on stderr."""
    command = [sys.executable, "-m", "probe_lib", "reproduce", "--out", str(out), *extra]
    cpu_before = children_cpu()
    started = last = time.perf_counter()
    stages = []
    process = subprocess.Popen(command, cwd=paths.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stderr:
        done = STAGE_DONE.match(line)
        if done:
            now = time.perf_counter()
            stages.append((done["stage"], now - last))
            last = now
    stdout = process.stdout.read()
    if process.wait(timeout=1800) != 0:
        raise SystemExit(f"{' '.join(command)} failed with exit code {process.returncode}:\n{stdout}")
    wall = time.perf_counter() - started
    summary = next((line for line in stdout.splitlines() if line.startswith("notebooks:")), "")
    return Build(wall, children_cpu() - cpu_before, os.getloadavg()[0], stages, summary)


def edited_markdown(path: Path) -> bytes:
    """``path`` with one sentence added to its first markdown cell; returns its original bytes."""
    original = path.read_bytes()
    notebook = nbformat.reads(original.decode("utf-8"), as_version=4)
    cell = next(cell for cell in notebook.cells if cell.cell_type == "markdown")
    cell.source += "\n\n(A sentence added by benchmarks/reproduce_time.py.)"
    nbformat.write(notebook, path)
    return original


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    cpus = os.cpu_count() or 1
    print(f"{cpus} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report"
        builds = {"full warm build": build(report, "--force"), "nothing changed": build(report)}
        original = edited_markdown(EDITED)
        try:
            builds[f"{EDITED.stem}'s markdown changed"] = build(report)
        finally:
            EDITED.write_bytes(original)
    full = builds["full warm build"]
    targets = [None, NOTHING_CHANGED_TARGET, ONE_NOTEBOOK_TARGET]
    print(f"{'build':<34} {'wall s':>7} {'CPU s':>7} {'load':>5} {'of full':>8}  target")
    for (name, run), target in zip(builds.items(), targets, strict=True):
        share = run.wall / full.wall
        verdict = "" if target is None else f"<= {target:.0%}: {'met' if share <= target else 'MISSED'}"
        print(f"{name:<34} {run.wall:>7.1f} {run.cpu:>7.1f} {run.load:>5.1f} {share:>8.0%}  {verdict}")
    for name, run in builds.items():
        print(f"\n{name}: {run.summary}")
        for stage, seconds in run.stages:
            print(f"  {stage:<64} {seconds:>6.1f} s")


if __name__ == "__main__":
    main()
