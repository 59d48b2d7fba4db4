"""The sweep's costs beside its targets: cold time and disk per version (extrapolated to every stable version),
a warm rerun, and the installs one bisection needs.

    .venv/bin/python benchmarks/sweep.py [--cold VERSION ...] [--bisect SCENARIO]

``--cold`` installs and measures the given not-yet-installed versions (default: none) and extrapolates their time
and the disk only they hold (``du`` counts a hard-linked file once) to every stable served version not installed
yet; without it the disk figure extrapolates the average of the versions installed so far. Choose neighbours of
installed versions for ``--cold``: a full sweep installs each version next to its neighbours. The warm
rerun sweeps every version already cached. ``--bisect`` runs one real bisection over every stable version.
"""

from __future__ import annotations

import argparse
import subprocess
import time

from probe_lib.capture import CaptureServer
from probe_lib.frameworks.mastra.versions import PINS
from probe_lib.history import bisect, sweep
from probe_lib.install import linkstore

COLD_TARGET_MIN = 60.0
DISK_TARGET_GB = 5.0
WARM_TARGET_S = 120.0
BISECT_TARGET_INSTALLS = 8


def disk_mb(*folders) -> float:
    """Bytes on disk under ``folders`` counted once per inode (hard links into the store are not counted twice)."""
    existing = [str(f) for f in folders if f.exists()]
    if not existing:
        return 0.0
    out = subprocess.run(["du", "-scm", *existing], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1].split()[0])


def unique_mb(folder, others) -> float:
    """Bytes only ``folder`` holds: ``du`` counts each inode at its first sighting, so ``folder`` goes last."""
    existing = [str(f) for f in others if f.exists() and f != folder]
    out = subprocess.run(["du", "-sm", *existing, str(folder)], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1].split()[0])


def _served_installs() -> list[str]:
    return [
        v
        for v in PINS.releases.served()
        if not PINS.releases.is_prerelease(v) and PINS.is_installed(v) and v not in PINS.versions()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", nargs="*", default=[], metavar="VERSION", help="versions to install and measure now")
    parser.add_argument("--bisect", metavar="SCENARIO", help="run one bisection over every stable version")
    args = parser.parse_args()
    stable = [v for v in PINS.releases.served() if not PINS.releases.is_prerelease(v)]
    rows = []
    store = linkstore.default_store()
    cold_seconds, cold_mb = [], []
    for version in args.cold:
        started = time.perf_counter()
        with CaptureServer() as server:
            sweep.measure(version, server)
        cold_seconds.append(time.perf_counter() - started)
        others = [PINS.install_dir(v) for v in _served_installs()]
        cold_mb.append(unique_mb(PINS.install_dir(version), others))
        print(
            f"cold {version}: {cold_seconds[-1]:.0f} s (install and catalogue), {cold_mb[-1]:.0f} MB of its own on disk"
        )
    installed = _served_installs()
    if installed:
        shared = disk_mb(*(PINS.install_dir(v) for v in installed), store)
        alone = sum(disk_mb(PINS.install_dir(v)) for v in installed)  # each tree as if it stood alone
        rows.append(
            (f"disk per version, shared store ({len(installed)} installed)", shared / len(installed), "MB", "-", "-")
        )
        rows.append(("disk per version, each tree alone (naive)", alone / len(installed), "MB", "-", "-"))
        per_version = sum(cold_mb) / len(cold_mb) if cold_mb else shared / len(installed)
        total_gb = (shared + per_version * (len(stable) - len(installed))) / 1024
        rows.append(
            (
                f"disk, all {len(stable)} stable versions (extrapolated)",
                total_gb,
                "GB",
                f"<= {DISK_TARGET_GB:.0f}",
                "ok" if total_gb <= DISK_TARGET_GB else "MISSED",
            )
        )
    if cold_seconds:
        total_min = sum(cold_seconds) / len(cold_seconds) * len(stable) / 60
        rows.append(
            (
                f"cold sweep, all {len(stable)} stable versions (extrapolated)",
                total_min,
                "min",
                f"<= {COLD_TARGET_MIN:.0f}",
                "ok" if total_min <= COLD_TARGET_MIN else "MISSED",
            )
        )
    cached = [r.version for r in sweep.all_cached()]
    started = time.perf_counter()
    sweep.sweep(set(cached))
    warm = time.perf_counter() - started
    rows.append(
        (
            f"warm rerun ({len(set(cached))} cached versions)",
            warm,
            "s",
            f"<= {WARM_TARGET_S:.0f}",
            "ok" if warm <= WARM_TARGET_S else "MISSED",
        )
    )
    if args.bisect:
        boundary = bisect.bisect(args.bisect, stable)
        print(boundary.to_text())
        rows.append(
            (
                f"installs in one bisection ({args.bisect})",
                boundary.installs,
                "installs",
                f"<= {BISECT_TARGET_INSTALLS}",
                "ok" if boundary.installs <= BISECT_TARGET_INSTALLS else "MISSED",
            )
        )
    print(f"{'figure':<58} {'value':>8} {'unit':<8} {'target':<8} verdict")
    for figure, value, unit, target, verdict in rows:
        print(f"{figure:<58} {value:>8.1f} {unit:<8} {target:<8} {verdict}")


if __name__ == "__main__":
    main()
