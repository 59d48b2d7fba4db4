"""Tool sets per second on the wire through the real ``@mastra/core``: the ``probe`` CLI beside the article's method.

Each tool set is one ``generate()`` turn whose request the capture server records. The CLI (``probe-lib probe
--json``, timed as a whole process: Python start, Node runners starting and loading @mastra/core, 10,000 turns,
JSON out) is set beside the article's method, one fresh ``node`` process per tool set, timed on a few sets and
extrapolated. Targets for 10,000 tool sets through the CLI: >= 150 tool sets/s, and the whole process tree (Python,
capture server, Node runners) under 500 MiB at its peak, sampled from /proc every 50 ms: its resident pages
counted once (the sum of PSS; the two runners share Node's own ~40 MiB of code), with the plain sum of RSS beside it
(which counts those pages once per runner) and each process's own peak (its kernel high-water mark). On a shared
machine the wall-clock rate follows others' load, so the CLI run also reports the CPU seconds its whole tree
spent per 1,000 sets and the ceiling that implies on idle CPUs (CPUs / CPU per set), with the load average during
the run. Then the library path alone, with the CPU each side spends per turn, which says where the time goes.

``--ratio ROUNDS`` measures instead what the kit costs beside Mastra itself: in each round, alternating, bare turns
(``bare_turns.cjs``: one Node process per CPU, 16 turns at once, nothing of the kit in the turn) and ``probe`` on
the same key sets, each timed as whole processes (start-up included, as a user waits for it), printing both rates,
their ratio, the CPU per set of each and the load. Target: probe >= 0.90 of bare.

    .venv/bin/python benchmarks/wire_throughput.py [--mastra VERSION] [--sets N] [--article-sets N] [--memory-sets N]
    .venv/bin/python benchmarks/wire_throughput.py --ratio 3 --sets 3000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from probe_lib.capture import CaptureServer
from probe_lib.core import paths, scenarios
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import versions
from probe_lib.inputs.keysets import adversarial_records
from probe_lib.install import npm

TARGET_SETS_PER_S = 150.0
TARGET_TREE_MIB = 500.0
TARGET_RATIO = 0.90
BARE_TURNS = Path(__file__).with_name("bare_turns.cjs")

#: Run in a fresh interpreter so its peaks are this batch's alone: the library path of ``probe`` (one capture
#: server in this process, the runners as its children), reporting peak RSS and CPU for each side.
_MEMORY = """
import json, resource, sys, time
from probe_lib.frameworks import mastra
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


def _process_table() -> dict[int, tuple[int, int, int, str]]:
    """Every process now: pid -> (parent pid, RSS KiB, peak RSS KiB, label), from /proc."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                argv = cmdline.read().split(b"\0")
        except OSError:  # the process ended while we looked
            continue
        rss, peak = (int(fields.get(name, "0 kB").split()[0]) for name in ("VmRSS", "VmHWM"))
        label = "Node runner" if any(arg.endswith(b"runner.cjs") for arg in argv) else "Python (CLI + capture server)"
        table[int(entry.name)] = (int(fields["PPid"]), rss, peak, label)
    return table


def _pss_kib(pid: int) -> int:
    """The process's proportional set size (KiB): its private pages, plus its share of each page it shares."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            return next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
    except (OSError, StopIteration):  # ended while we looked
        return 0


def tree(root: int, table: dict[int, tuple[int, int, int, str]]) -> list[int]:
    """``root`` and all its descendants in ``table``."""
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, row in table.items() if row[0] in frontier and pid not in found]
        found += frontier
    return [pid for pid in found if pid in table]


@dataclass
class TreeRun:
    """What one CLI run cost: wall and CPU seconds, memory, and how busy the machine was meanwhile."""

    seconds: float
    stdout: str
    #: CPU seconds (user + system) of the process and every descendant it waited for (the Node runners).
    cpu_seconds: float
    #: The largest sum of the tree's RSS seen in one 50 ms sample (a page the runners share, such as Node's own
    #: code, counts once per process).
    tree_peak_mib: float
    #: The largest sum of the tree's PSS in one sample: each shared page split among the processes mapping it, so
    #: the sum counts every resident page of the tree once (what it holds in RAM).
    tree_peak_pss_mib: float
    #: Each process's own peak RSS (the kernel's high-water mark), by pid: (label, MiB).
    process_peaks: dict[int, tuple[str, float]] = field(default_factory=dict)
    load_average: float = 0.0


def cli_run(records: list[list[str]], version: str, extra: Sequence[str] = (), *, sampled: bool = True) -> TreeRun:
    """``probe-lib probe --json`` on ``records`` as one process, sampled every 50 ms while it runs (its memory and
    the load). Unsampled, it is timed as :func:`bare_run` times bare turns: the sampler reads every process's
    memory map on the same CPUs, which slowed ``probe`` by about 5% beside bare turns that nothing sampled."""
    stdin = json.dumps(records)
    peak, peak_pss, process_peaks, loads, done = [0], [0], {}, [], threading.Event()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "probe", "--json", "--mastra", version, *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def sample() -> None:
        while not done.wait(0.05):
            table = _process_table()
            members = tree(process.pid, table)
            peak[0] = max(peak[0], sum(table[pid][1] for pid in members))
            peak_pss[0] = max(peak_pss[0], sum(map(_pss_kib, members)))
            for pid in members:  # an ended process (a zombie) has no peak or command line left: keep the last
                if table[pid][2]:
                    process_peaks[pid] = (table[pid][3], table[pid][2] / 1024)
            loads.append(os.getloadavg()[0])

    sampler = threading.Thread(target=sample, daemon=True)
    if sampled:
        sampler.start()
    stdout, stderr = process.communicate(stdin)
    seconds = time.perf_counter() - started
    done.set()
    if sampled:
        sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"probe failed ({process.returncode}): {stderr.strip()[-500:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return TreeRun(
        seconds, stdout, cpu, peak[0] / 1024, peak_pss[0] / 1024, process_peaks, sum(loads) / max(1, len(loads))
    )


def article_run(records: list[list[str]], version: str) -> tuple[float, list[list[str] | None]]:
    """Mean wall seconds of one fresh ``node`` process running one turn, and the wire names each sent."""
    command = [
        npm.node_executable(),
        str(paths.HARNESS / "runner.cjs"),
        str(versions.PINS.modules(version)),
        version,
        "1",
    ]
    seconds, names = [], []
    with CaptureServer() as server:
        for number, keys in enumerate(records):
            scenario_id = f"article-{number}"
            server.script(scenario_id, ())
            line = json.dumps(
                {**scenarios.for_keys(scenario_id, keys).to_json(server.scenario_url(scenario_id)), "id": scenario_id},
                ensure_ascii=True,
            )
            started = time.perf_counter()
            subprocess.run(command, input=line + "\n", capture_output=True, text=True, check=True)
            seconds.append(time.perf_counter() - started)
            chats = [capture.body for capture in server.take(scenario_id) if capture.path.endswith("/chat/completions")]
            names.append([tool["function"]["name"] for tool in chats[0].get("tools") or []] if chats else None)
    return sum(seconds) / len(seconds), names


def judge(rate: float) -> str:
    return "met" if rate >= TARGET_SETS_PER_S else "MISSED"


def judge_memory(mib: float) -> str:
    return "met" if mib < TARGET_TREE_MIB else "MISSED"


def memory_run(version: str, count: int) -> dict:
    """Wall time, peak RSS and CPU of ``count`` turns through the library, the Python and the Node side apart."""
    completed = subprocess.run(
        [sys.executable, "-c", _MEMORY, version, str(count)], capture_output=True, text=True, check=True, cwd=paths.ROOT
    )
    return json.loads(completed.stdout)


def cli_rows(run: TreeRun, sets: int) -> list[tuple[str, str, str, str]]:
    """The CLI run's figures: wall rate with the load beside it, CPU per 1,000 sets and the ceiling it implies on
    idle cores (the load-independent speed figure), the tree's peak and each process's own peak."""
    cpus = os.cpu_count() or 1
    rate, cpu_per_1000 = sets / run.seconds, run.cpu_seconds / sets * 1000
    ceiling = cpus * 1000 / cpu_per_1000
    goal = f">= {TARGET_SETS_PER_S:.0f} sets/s"
    rows = [
        (
            f"CLI probe --json, {sets:,} sets, wall clock",
            f"{rate:,.0f} sets/s",
            goal,
            f"{judge(rate)} (load {run.load_average:.1f})",
        ),
        ("  CPU, whole process tree, per 1,000 sets", f"{cpu_per_1000:,.1f} s", "", "-"),
        (f"  ceiling on {cpus} idle CPUs: {cpus} / CPU per set", f"{ceiling:,.0f} sets/s", goal, judge(ceiling)),
        (
            "  peak memory, whole tree, each page once (PSS)",
            f"{run.tree_peak_pss_mib:,.0f} MiB",
            f"< {TARGET_TREE_MIB:.0f} MiB",
            judge_memory(run.tree_peak_pss_mib),
        ),
        (
            "  peak RSS summed over the tree's processes",
            f"{run.tree_peak_mib:,.0f} MiB",
            f"< {TARGET_TREE_MIB:.0f} MiB",
            judge_memory(run.tree_peak_mib),
        ),
    ]
    for pid, (label, mib) in sorted(run.process_peaks.items()):
        rows.append((f"    peak RSS, {label} (pid {pid})", f"{mib:,.0f} MiB", "", "-"))
    return rows


def ratio_keysets(count: int) -> list[list[str]]:
    """Three tools a set, one legal key and two Mastra rewrites (a dot, a leading digit), as in issue 42's runs."""
    return [[f"srv.tool{n}", f"{n % 10}th{n}", f"ok_{n}"] for n in range(count)]


@dataclass
class Side:
    """One timed run of ``sets`` key sets: wall seconds and the CPU seconds of every process it started."""

    sets: int
    seconds: float
    cpu_seconds: float

    @property
    def rate(self) -> float:
        return self.sets / self.seconds

    @property
    def cpu_ms_per_set(self) -> float:
        return self.cpu_seconds / self.sets * 1000


def bare_run(records: list[list[str]], version: str) -> Side:
    """``records`` split over one ``bare_turns.cjs`` process per CPU, run at once, timed from start to the last exit."""
    cpus = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for number in range(cpus):
            file = Path(folder) / f"keysets-{number}.json"
            file.write_text(json.dumps(records[number::cpus]))
            files.append(file)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        processes = [
            subprocess.Popen(
                [npm.node_executable(), str(BARE_TURNS), str(versions.PINS.modules(version)), version, str(file), "16"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for file in files
        ]
        outputs = [process.communicate() for process in processes]
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for process, (_, stderr) in zip(processes, outputs):
        if process.returncode != 0:
            raise SystemExit(f"bare_turns.cjs failed ({process.returncode}): {stderr.strip()[-500:]}")
    said = [json.loads(stdout) for stdout, _ in outputs]
    turns = sum(counts["turns"] for counts in said)
    sent = sum(counts["requests"] for counts in said)
    if sent != turns:  # a turn that failed before sending would be timed as one that sent
        raise SystemExit(f"bare_turns.cjs sent {sent} requests for {turns} turns on @mastra/core {version}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return Side(turns, seconds, cpu)


def ratio_rounds(version: str, sets: int, rounds: int) -> None:
    """Alternate bare turns and ``probe`` on the same key sets; print each round and the medians beside the target."""
    records = ratio_keysets(sets)
    print(
        f"{'round':<6} {'bare sets/s':>12} {'probe sets/s':>13} {'ratio':>6} {'bare CPU/set':>13} "
        f"{'probe CPU/set':>14} {'CPU ratio':>10} {'load':>5}"
    )
    ratios, cpu_ratios = [], []
    for number in range(1, rounds + 1):
        bare = bare_run(records, version)
        tree_run = cli_run(records, version, sampled=False)
        probe = Side(sets, tree_run.seconds, tree_run.cpu_seconds)
        ratios.append(probe.rate / bare.rate)
        cpu_ratios.append(bare.cpu_ms_per_set / probe.cpu_ms_per_set)
        print(
            f"{number:<6} {bare.rate:>12,.1f} {probe.rate:>13,.1f} {ratios[-1]:>6.2f} {bare.cpu_ms_per_set:>10.1f} ms "
            f"{probe.cpu_ms_per_set:>11.1f} ms {cpu_ratios[-1]:>10.2f} {os.getloadavg()[0]:>5.1f}"
        )
    wall, cpu = statistics.median(ratios), statistics.median(cpu_ratios)
    print(
        f"median ratio, probe / bare: wall {wall:.2f}, CPU {cpu:.2f}; target >= {TARGET_RATIO:.2f}: "
        f"{'met' if min(wall, cpu) >= TARGET_RATIO else 'MISSED'} (load {os.getloadavg()[0]:.1f} at the end)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mastra",
        default=mastra.ADAPTER.versions()[-1],
        metavar="VERSION",
        help="pinned @mastra/core version (default: the newest)",
    )
    parser.add_argument("--sets", type=int, default=10_000, help="tool sets through the CLI (default 10,000)")
    parser.add_argument(
        "--article-sets", type=int, default=10, help="fresh Node processes to time (default 10; 0 skips)"
    )
    parser.add_argument(
        "--memory-sets", type=int, default=10_000, help="tool sets for the library run (default 10,000; 0 skips)"
    )
    parser.add_argument(
        "--ratio", type=int, default=0, metavar="ROUNDS", help="alternate bare turns and probe ROUNDS times, then stop"
    )
    args = parser.parse_args()
    version = mastra.ADAPTER.check_version(args.mastra)
    print(f"@mastra/core {version}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    if args.ratio:
        ratio_rounds(version, args.sets, args.ratio)
        return

    records = adversarial_records(seed=1, count=args.sets)
    cli = cli_run(records, version)
    rows = cli_rows(cli, args.sets)
    goal = f">= {TARGET_SETS_PER_S:.0f} sets/s"
    if args.article_sets:
        cli_results = json.loads(cli.stdout)
        article_seconds, article_names = article_run(records[: args.article_sets], version)
        for number, names in enumerate(article_names):
            cli_names = cli_results[number].get("names")
            if names != cli_names:
                raise SystemExit(f"tool set {number}: one process per set sent {names}, the CLI reported {cli_names}")
        article_rate = 1 / article_seconds
        rows.append(
            (
                f"article: fresh node per set ({args.article_sets} timed)",
                f"{article_rate:,.2f} sets/s",
                f"{args.sets:,} sets: {args.sets * article_seconds / 60:,.0f} min",
                f"CLI {args.sets / cli.seconds / article_rate:,.0f}x",
            )
        )
    if args.memory_sets:
        memory = memory_run(version, args.memory_sets)
        library_rate = args.memory_sets / memory["wall"]
        node_ms, python_ms = (memory[side] / args.memory_sets * 1000 for side in ("node_cpu", "python_cpu"))
        ceiling = (os.cpu_count() or 1) * 1000 / (node_ms + python_ms)
        rows += [
            (
                f"library, {args.memory_sets:,} sets, 2 runners",
                f"{library_rate:,.0f} sets/s",
                goal,
                judge(library_rate),
            ),
            ("  peak RSS, largest Node runner", f"{memory['node_rss_kib'] / 1024:,.0f} MiB", "", "-"),
            ("  peak RSS, Python process + capture server", f"{memory['python_rss_kib'] / 1024:,.0f} MiB", "", "-"),
            ("  CPU per turn, Node runners (@mastra/core)", f"{node_ms:.1f} ms", "", "-"),
            ("  CPU per turn, Python (server, orchestration)", f"{python_ms:.1f} ms", "", "-"),
            (f"  ceiling: {os.cpu_count()} CPUs / CPU per turn", f"{ceiling:,.0f} sets/s", goal, judge(ceiling)),
        ]
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"{'figure':<52} {'value':>14}  {'anchor/target':<24} verdict")
    for figure, value, target, verdict in rows:
        print(f"{figure:<52} {value:>14}  {target:<24} {verdict}")


if __name__ == "__main__":
    main()
