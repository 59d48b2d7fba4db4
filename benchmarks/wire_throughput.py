"""Tool sets per second on the wire through the real ``@mastra/core``: the ``probe`` CLI beside the article's method.

Each tool set is one ``generate()`` turn whose request the capture server records. The CLI (``probe-lib probe
--json``, timed as a whole process: Python start, Node runners starting and loading @mastra/core, 2,000 turns,
JSON out) is set beside the article's method, one fresh ``node`` process per tool set, timed on a few sets and
extrapolated. Target: >= 100 tool sets/s. Then peak RSS for 10,000 tool sets, the Node runners and the Python
process (with the capture server in it) apart, and the CPU each spends per turn, which says where the time goes;
CPUs / CPU per turn is the ceiling an otherwise idle machine would reach (others' load lowers the measured rates).

    .venv/bin/python benchmarks/wire_throughput.py [--mastra VERSION] [--sets N] [--article-sets N] [--memory-sets N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from probe_lib.adapters import mastra, npm
from probe_lib.adapters.mastra import versions
from probe_lib.capture import CaptureServer
from probe_lib.core import paths, scenarios
from probe_lib.inputs.keysets import adversarial_records

TARGET_SETS_PER_S = 100.0

#: Run in a fresh interpreter so its peaks are this batch's alone: the library path of ``probe`` (one capture
#: server in this process, the runners as its children), reporting peak RSS and CPU for each side.
_MEMORY = """
import json, resource, sys, time
from probe_lib.adapters import mastra
from probe_lib.core import scenarios
from probe_lib.inputs.keysets import adversarial_records
records = adversarial_records(seed=2, count=int(sys.argv[2]))
batch = [scenarios.for_keys(f"set-{number}", keys) for number, keys in enumerate(records)]
started = time.perf_counter()
outcomes = mastra.run(batch, sys.argv[1], workers=2)
wall = time.perf_counter() - started
own, nodes = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "wall": wall, "python_rss_kib": own.ru_maxrss, "node_rss_kib": nodes.ru_maxrss,
    "python_cpu": own.ru_utime + own.ru_stime, "node_cpu": nodes.ru_utime + nodes.ru_stime,
}))
"""


def cli_run(records: list[list[str]], version: str) -> tuple[float, list[dict]]:
    """Wall seconds of ``probe-lib probe --json`` on ``records`` as one process, and its results."""
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "probe_lib", "probe", "--json", "--mastra", version],
        input=json.dumps(records), capture_output=True, text=True, check=True,
    )
    return time.perf_counter() - started, json.loads(completed.stdout)


def article_run(records: list[list[str]], version: str) -> tuple[float, list[list[str] | None]]:
    """Mean wall seconds of one fresh ``node`` process running one turn, and the wire names each sent."""
    command = [npm.node_executable(), str(paths.HARNESS / "runner.cjs"), str(versions.modules_dir(version)), version, "1"]
    seconds, names = [], []
    with CaptureServer() as server:
        for number, keys in enumerate(records):
            scenario_id = f"article-{number}"
            server.script(scenario_id, ())
            line = json.dumps({**scenarios.for_keys(scenario_id, keys).to_json(server.scenario_url(scenario_id)),
                               "id": scenario_id}, ensure_ascii=True)
            started = time.perf_counter()
            subprocess.run(command, input=line + "\n", capture_output=True, text=True, check=True)
            seconds.append(time.perf_counter() - started)
            chats = [capture.body for capture in server.take(scenario_id) if capture.path.endswith("/chat/completions")]
            names.append([tool["function"]["name"] for tool in chats[0].get("tools") or []] if chats else None)
    return sum(seconds) / len(seconds), names


def judge(rate: float) -> str:
    return "met" if rate >= TARGET_SETS_PER_S else "MISSED"


def memory_run(version: str, count: int) -> dict:
    """Wall time, peak RSS and CPU of ``count`` turns through the library, the Python and the Node side apart."""
    completed = subprocess.run(
        [sys.executable, "-c", _MEMORY, version, str(count)],
        capture_output=True, text=True, check=True, cwd=paths.ROOT,
    )
    return json.loads(completed.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mastra", default=mastra.ADAPTER.versions()[-1], metavar="VERSION",
                        help="pinned @mastra/core version (default: the newest)")
    parser.add_argument("--sets", type=int, default=2_000, help="tool sets through the CLI (default 2,000)")
    parser.add_argument("--article-sets", type=int, default=10, help="fresh Node processes to time (default 10)")
    parser.add_argument("--memory-sets", type=int, default=10_000, help="tool sets for the memory run (default 10,000)")
    args = parser.parse_args()
    version = mastra.ADAPTER.check_version(args.mastra)
    print(f"@mastra/core {version}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    records = adversarial_records(seed=1, count=args.sets)
    cli_seconds, cli_results = cli_run(records, version)
    article_seconds, article_names = article_run(records[:args.article_sets], version)
    for number, names in enumerate(article_names):
        cli_names = cli_results[number].get("names")
        if names != cli_names:
            raise SystemExit(f"tool set {number}: one process per set sent {names}, the CLI reported {cli_names}")
    memory = memory_run(version, args.memory_sets)

    cli_rate, article_rate = args.sets / cli_seconds, 1 / article_seconds
    library_rate = args.memory_sets / memory["wall"]
    node_ms, python_ms = (memory[side] / args.memory_sets * 1000 for side in ("node_cpu", "python_cpu"))
    ceiling = (os.cpu_count() or 1) * 1000 / (node_ms + python_ms)
    goal = f">= {TARGET_SETS_PER_S:.0f} sets/s"
    rows = [
        (f"CLI probe --json, {args.sets:,} sets, whole process", f"{cli_rate:,.0f} sets/s", goal, judge(cli_rate)),
        (f"article: fresh node per set ({args.article_sets} timed)", f"{article_rate:,.2f} sets/s",
         f"{args.sets:,} sets: {args.sets * article_seconds / 60:,.0f} min", f"CLI {cli_rate / article_rate:,.0f}x"),
        (f"library, {args.memory_sets:,} sets, 2 runners", f"{library_rate:,.0f} sets/s", goal, judge(library_rate)),
        ("  peak RSS, largest Node runner", f"{memory['node_rss_kib'] / 1024:,.0f} MiB", "", "-"),
        ("  peak RSS, Python process + capture server", f"{memory['python_rss_kib'] / 1024:,.0f} MiB", "", "-"),
        ("  CPU per turn, Node runners (@mastra/core)", f"{node_ms:.1f} ms", "", "-"),
        ("  CPU per turn, Python (server, orchestration)", f"{python_ms:.1f} ms", "", "-"),
        (f"  ceiling: {os.cpu_count()} CPUs / CPU per turn", f"{ceiling:,.0f} sets/s", goal, judge(ceiling)),
    ]
    print(f"{'figure':<52} {'value':>14}  {'anchor/target':<24} verdict")
    for figure, value, target, verdict in rows:
        print(f"{figure:<52} {value:>14}  {target:<24} {verdict}")


if __name__ == "__main__":
    main()
