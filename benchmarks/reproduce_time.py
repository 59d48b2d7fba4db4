"""Wall time of ``probe-lib reproduce``: warm (this checkout, everything installed) and cold (a fresh clone
running the README's main command, with the pip and npm caches warm). Target: warm <= 90 s on 2 cores.

    .venv/bin/python benchmarks/reproduce_time.py [--skip-cold]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probe_lib.core import paths

WARM_TARGET_S = 90.0
README_MAIN = (
    "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/probe-lib setup && .venv/bin/probe-lib reproduce"
)


def timed(command: list[str] | str, cwd: Path, **kwargs) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, **kwargs)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-cold", action="store_true", help="only the warm run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        warm = timed([sys.executable, "-m", "probe_lib", "reproduce", "--out", str(Path(scratch) / "report")], paths.ROOT)
        rows = [("reproduce, warm", warm, f"<= {WARM_TARGET_S:.0f} s", "ok" if warm <= WARM_TARGET_S else "MISSED")]
        if not args.skip_cold:
            clone = Path(scratch) / "clone"
            subprocess.run(["git", "clone", "-q", str(paths.ROOT), str(clone)], check=True)
            cold = timed(README_MAIN, clone, shell=True, executable="/bin/bash")
            rows.append(("README main command, fresh clone (caches warm)", cold, "(no target)", "-"))
    print(f"{'figure':<48} {'seconds':>8}  {'target':<10} verdict")
    for figure, seconds, target, verdict in rows:
        print(f"{figure:<48} {seconds:>8.1f}  {target:<10} {verdict}")


if __name__ == "__main__":
    main()
