"""Keys per second of the Python model (``normaliser.normalise``) against the real ``Agent.formatTools`` in V8.

Both sides get the same 200,000 keys (10,000 records of 20 distinct keys) and produce the same thing, the names
on the wire or the error (``normalise(keys).to_json()`` against the runner's ``format`` op). Two workloads:
adversarial keys from the differential tests (most are rewritten) and legal keys (the fast path). The real side
is timed three ways: inside V8 (the runner's own clock around the formatTools loop), a warm round trip (JSON to
and from an already-started runner) and end to end (``mastra.format_records``: start Node, load @mastra/core,
transfer, format). Target: model/real >= 1.0 against V8 in-process. Then the peak memory of the model on
1,000,000 keys, each side in a process of its own.

    .venv/bin/python benchmarks/model_throughput.py [--mastra VERSION] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable

from probe_lib.core import paths
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra.normaliser import VANISHING_KEYS, normalise
from probe_lib.inputs.keysets import ALPHABETS, adversarial_key
from probe_lib.install import npm

LEGAL = ALPHABETS["legal"]

RECORDS, KEYS_PER_RECORD = 10_000, 20
MEMORY_RECORDS = 50_000  # x 20 keys = 1,000,000
TARGET_RATIO = 1.0
#: How the real side is timed, fastest scope first.
REAL_WAYS = {
    "in_v8": "in V8 (formatTools loop only)",
    "warm": "warm runner round trip (+JSON, pipes)",
    "cold": "end to end (+Node start, load)",
}

#: Run in a fresh interpreter: builds the 1,000,000 keys, then reports the model's traced peak while it keeps
#: every ``Result`` (as ``normalise --json`` does before printing) and the process's peak RSS.
_MODEL_MEMORY = """
import json, resource, sys, tracemalloc
sys.path.insert(0, sys.argv[1])  # the benchmarks folder
import model_throughput as bench
from probe_lib.frameworks.mastra.normaliser import normalise
records = bench.records_of(bench.adversarial_key, seed=1, count=bench.MEMORY_RECORDS)
tracemalloc.start()
results = [normalise(keys) for keys in records]
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"traced": peak, "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

#: The same 1,000,000 keys through the real formatTools; Node's peak RSS is this process's largest child's.
_REAL_MEMORY = """
import json, resource, sys
sys.path.insert(0, sys.argv[1])  # the benchmarks folder
import model_throughput as bench
from probe_lib.frameworks import mastra
records = bench.records_of(bench.adversarial_key, seed=1, count=bench.MEMORY_RECORDS)
mastra.format_records(records, sys.argv[2])
print(json.dumps({"rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def legal_key(rng: random.Random) -> str:
    """A key formatTools leaves alone: snake_case-like, 3 to 40 characters."""
    return rng.choice("abcdefghij_") + "".join(rng.choices(LEGAL, k=rng.randint(2, 39)))


def records_of(draw: Callable[[random.Random], str], seed: int, count: int = RECORDS) -> list[list[str]]:
    """``count`` records of 20 distinct keys, each drawn by ``draw``."""
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        keys: dict[str, None] = {}
        while len(keys) < KEYS_PER_RECORD:
            keys[draw(rng)] = None
        records.append(list(keys))
    return records


def best_seconds(action: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` wall-clock runs (the least disturbed by other load on the machine)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def real_json(result: dict) -> dict:
    """The runner's result as the model states it: a kept ``__proto__`` never reaches the wire."""
    if "names" in result:
        return {"names": [name for name in result["names"] if name not in VANISHING_KEYS]}
    return result


def throughput(records: list[list[str]], version: str, repeat: int) -> dict[str, float]:
    """Seconds for the model and for the real formatTools (three ways) on ``records``; checks they agree."""
    keys = sum(map(len, records))
    model = best_seconds(lambda: [normalise(record).to_json() for record in records], repeat)
    request = [{"op": "format", "id": "format", "records": records}]
    in_v8, warm = [], []
    with mastra.Runner(version) as runner:
        runner.exchange(request, timeout=600)  # let V8 compile formatTools before timing it
        for _ in range(repeat):
            started = time.perf_counter()
            reply = runner.exchange(request, timeout=600)["format"]
            warm.append(time.perf_counter() - started)
            in_v8.append(reply["elapsedMs"] / 1000)
    agree = sum(normalise(record).to_json() == real_json(result) for record, result in zip(records, reply["results"]))
    if agree != len(records):
        raise SystemExit(f"the model disagrees with @mastra/core {version} on {len(records) - agree} records")
    print(f"model and @mastra/core {version} agree on all {len(records):,} records ({keys:,} keys)")
    cold = best_seconds(lambda: mastra.format_records(records, version), max(1, repeat // 2))
    return {"keys": keys, "model": model, "in_v8": min(in_v8), "warm": min(warm), "cold": cold}


def memory(version: str) -> tuple[dict, dict]:
    """The model's and the real formatTools' peaks on 1,000,000 keys, each measured in a fresh process."""
    outputs = []
    for script, extra in ((_MODEL_MEMORY, []), (_REAL_MEMORY, [version])):
        completed = subprocess.run(
            [sys.executable, "-c", script, str(paths.ROOT / "benchmarks"), *extra],
            capture_output=True,
            text=True,
            check=True,
            cwd=paths.ROOT,
        )
        outputs.append(json.loads(completed.stdout))
    return outputs[0], outputs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mastra",
        default=mastra.ADAPTER.versions()[-1],
        metavar="VERSION",
        help="pinned @mastra/core version (formatTools is identical in all of them)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the fastest counts (default 5)")
    args = parser.parse_args()
    version = mastra.ADAPTER.check_version(args.mastra)

    node = subprocess.run([npm.node_executable(), "--version"], capture_output=True, text=True).stdout.strip()
    print(
        f"@mastra/core {version}, Node {node}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat} runs"
    )
    rows: list[tuple[str, str, str, str]] = []
    for workload, records in (
        ("adversarial", records_of(adversarial_key, seed=0)),
        ("legal", records_of(legal_key, seed=0)),
    ):
        print(f"{workload} workload:", end=" ", flush=True)
        figures = throughput(records, version, args.repeat)
        keys, model = figures["keys"], figures["model"]
        rows.append((f"{workload}: model, normalise().to_json()", f"{keys / model:,.0f} keys/s", "", "-"))
        for way, label in REAL_WAYS.items():
            ratio = figures[way] / model
            verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
            rows.append(
                (
                    f"{workload}: real, {label}",
                    f"{keys / figures[way]:,.0f} keys/s",
                    f"model/real >= {TARGET_RATIO:.1f}",
                    f"{ratio:.2f}x {verdict}",
                )
            )

    model_memory, real_memory = memory(version)
    rows.append(
        ("1,000,000 keys: model, traced peak (Results kept)", f"{model_memory['traced'] / 2**20:,.0f} MiB", "", "-")
    )
    rows.append(
        (
            "1,000,000 keys: model process, peak RSS (+keys)",
            f"{model_memory['rss_kib'] / 1024:,.0f} MiB",
            f"< Node's {real_memory['rss_kib'] / 1024:,.0f} MiB",
            "met" if model_memory["rss_kib"] < real_memory["rss_kib"] else "MISSED",
        )
    )

    print(f"{'figure':<58} {'value':>18}  {'anchor/target':<22} verdict")
    for figure, value, target, verdict in rows:
        print(f"{figure:<58} {value:>18}  {target:<22} {verdict}")


if __name__ == "__main__":
    main()
