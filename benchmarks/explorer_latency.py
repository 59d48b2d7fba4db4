"""How long the explorer keeps a reader waiting after the last keystroke (the debounce comes on top).

For tool sets of 10, 100 and 1,000 keys: ``explore`` plus the HTML rendering on the Python model, on a cold live
run (Node starts and loads @mastra/core) and on a warm one (the runner kept by a ``SessionPool``). Then each other
installed framework's newest pin, cold and warm, on 100 keys: the pool keeps every framework's runner (its adapter's
session). Targets: the model and a warm live run answer a 100-key set within 300 ms (typing feels live), a cold
start within 5 s.

    .venv/bin/python benchmarks/explorer_latency.py [--mastra VERSION]
"""

from __future__ import annotations

import argparse
import time
from contextlib import closing

from probe_lib import frameworks
from probe_lib.core import target
from probe_lib.frameworks import mastra
from probe_lib.frameworks.session_pool import SessionPool
from probe_lib.present import explorer, explorer_html

TARGET_WARM_S = 0.3
TARGET_COLD_S = 5.0
SIZES = (10, 100, 1_000)


def timed(keys: list[str], source: str, pool: SessionPool) -> float:
    """Seconds for one exploration and its rendering."""
    started = time.perf_counter()
    explorer_html.render(explorer.explore(keys, source, pool=pool))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mastra", default=target.baseline("mastra").version)
    version = mastra.ADAPTER.check_version(parser.parse_args().mastra)
    model = explorer.ExplorerSource("mastra", None).label
    live = explorer.ExplorerSource("mastra", version).label
    with closing(SessionPool()) as pool:
        cold = timed(["search.web", "a"], live, pool)
        print(f"cold live run (Node starts):  {cold:7.3f} s   target <= {TARGET_COLD_S} s")
        for size in SIZES:
            keys = [f"tool.{number}" if number % 2 else f"tool_{number}" for number in range(size)]
            best_model = min(timed(keys, model, pool) for _ in range(3))
            best_live = min(timed(keys, live, pool) for _ in range(3))
            goal = f"   target <= {TARGET_WARM_S} s" if size == 100 else ""
            print(f"{size:>5} keys: model {best_model:7.3f} s, warm live {best_live:7.3f} s{goal}")
        keys = [f"tool.{number}" if number % 2 else f"tool_{number}" for number in range(100)]
        for name in frameworks.names():
            adapter = frameworks.get(name)
            newest = adapter.versions()[-1]
            if name == "mastra" or not adapter.is_installed(newest):
                continue
            source = explorer.ExplorerSource(name, newest).label
            cold = timed(keys, source, pool)
            warm = min(timed(keys, source, pool) for _ in range(3))
            print(f"{source:>36}, 100 keys: cold {cold:7.3f} s, warm {warm:7.3f} s   target <= {TARGET_WARM_S} s warm")


if __name__ == "__main__":
    main()
