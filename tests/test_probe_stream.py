"""``probe`` streams: each result is printed as it finishes, memory stays bounded, and nothing changes on the wire.

All on the real @mastra/core 1.67.0 through the real capture server. The output is compared byte for byte with
what the kit printed before streaming (its source at ``BEFORE_STREAMING``, taken from git, run by the suite's first
run and its output kept), on the same input.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from probe_lib.capture import CaptureServer
from probe_lib.cli.keys import NOT_RUN
from probe_lib.core import files, paths, scenarios
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import runner
from probe_lib.inputs.keysets import adversarial_records
from probe_lib.present import staleness

VERSION = "1.67.0"
#: main just before ``probe`` streamed: it held every outcome and printed them all at the end.
BEFORE_STREAMING = "f2e8f80"
pytestmark = pytest.mark.node


def probe(stdin: Path, *flags: str, source: Path = paths.ROOT, timeout: float = 900) -> subprocess.CompletedProcess:
    """``probe-lib probe --json`` of the package under ``source`` (this checkout by default) on ``stdin``."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    with stdin.open() as handle:
        return subprocess.run(
            [sys.executable, "-m", "probe_lib", "probe", "--json", "--mastra", VERSION, *flags],
            stdin=handle,
            capture_output=True,
            env=env,
            cwd=source,
            timeout=timeout,
        )


def kit_before_streaming(into: Path) -> Path:
    """The kit's package and data at ``BEFORE_STREAMING``, unpacked into ``into`` (skips if git cannot give it)."""
    archive = subprocess.run(
        ["git", "-C", str(paths.ROOT), "archive", BEFORE_STREAMING, "probe_lib", "data"], capture_output=True
    )
    if archive.returncode != 0:
        pytest.skip(f"this checkout has no commit {BEFORE_STREAMING} to compare with (a shallow clone or an export)")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def printed_before_streaming(records: Path, into: Path) -> bytes:
    """What the kit at ``BEFORE_STREAMING`` printed for ``records`` on ``VERSION``. That kit installs the release
    from its own lock, so under one Node and one Python it prints the same bytes for the same input: the suite's
    first run keeps them (in ``conftest._kept_release_cache``, under all four and the digest of the input) and later
    runs read them."""
    from conftest import _kept_release_cache

    digest = hashlib.sha256(records.read_bytes()).hexdigest()[:16]
    under = f"node-{staleness.node_version()}-python-{platform.python_version()}"
    kept = _kept_release_cache() / "printed-before-streaming" / f"{BEFORE_STREAMING}-{VERSION}-{under}-{digest}.json"
    if kept.is_file():
        return kept.read_bytes()
    before = probe(records, source=kit_before_streaming(into))
    assert before.returncode == 0, before.stderr[-500:]
    kept.parent.mkdir(parents=True, exist_ok=True)
    files.write_atomically(kept, lambda partial: partial.write_bytes(before.stdout))
    return before.stdout


@pytest.mark.slow
def test_probe_prints_byte_for_byte_what_it_printed_before_streaming(node_modules, tmp_path):
    records = tmp_path / "records.json"
    records.write_text(json.dumps(adversarial_records(seed=1, count=1_000)))
    before = printed_before_streaming(records, tmp_path / "before")
    now = probe(records)
    assert now.returncode == 0, now.stderr[-500:]
    assert now.stdout == before
    results = json.loads(now.stdout)
    assert len(results) == 1_000 and sum("names" in result for result in results) > 500


@pytest.mark.slow
def test_a_batch_never_runs_further_ahead_of_the_reader_than_its_bound(node_modules, monkeypatch):
    """The reader takes each outcome slowly; the runners may not capture a scenario more than ``AHEAD_PER_TURN x
    workers x concurrency`` positions past the last outcome handed over, so nothing piles up in memory."""
    monkeypatch.setattr(runner, "AHEAD_PER_TURN", 2)
    workers, concurrency = 2, 4
    bound = 2 * workers * concurrency
    furthest, handed = [-1], [0]
    overshoot = []

    def on_record(capture) -> None:
        position = int(capture.scenario.rsplit("-", 1)[1])
        furthest[0] = max(furthest[0], position)
        overshoot.append(position - handed[0])

    batch = [scenarios.for_keys(f"set-{n}", [f"k{n}", f"x.{n}"]) for n in range(300)]
    with CaptureServer(on_record=on_record) as server:
        for number, outcome in enumerate(
            mastra.stream(batch, VERSION, server=server, workers=workers, concurrency=concurrency)
        ):
            assert outcome.scenario.name == f"set-{number}" and outcome.wire_names == [f"k{number}", f"x_{number}"]
            handed[0] = number + 1
            if number % 50 == 0:
                time.sleep(1)  # a slow reader: the runners must wait for it, not run on
        assert not server.records(), "every scenario's requests were taken from the server as it finished"
    assert furthest[0] == 299 and len(overshoot) == 300
    assert max(overshoot) <= bound, f"a scenario ran {max(overshoot)} positions ahead of the reader (bound {bound})"


@pytest.mark.slow
def test_a_runner_at_the_heap_cap_is_named_as_the_kits_limit_with_the_flag_that_raises_it(node_modules, tmp_path):
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps([[f"key.{n}" for n in range(30_000)], ["a"]]))  # 30,000 tools need > 320 MiB
    done = probe(keys, "--node-heap-mb", "192", "--max-body-mb", "16", "--workers", "1")
    stderr = done.stderr.decode()
    assert done.returncode == 1 and stderr.count("\n") == 1, stderr
    assert "kit's Node heap cap of 192 MiB" in stderr and "--node-heap-mb" in stderr and "crash" not in stderr
    assert json.loads(done.stdout)[0] == NOT_RUN


@pytest.mark.slow
def test_a_body_over_the_limit_mid_batch_keeps_every_result_before_it(node_modules, tmp_path):
    records = [[f"k{n}", f"x.{n}"] for n in range(40)] + [[f"key.{n}" for n in range(5_000)]] + [["a"]] * 3
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(records))  # the 41st record sends ~1.5 MB of tools
    done = probe(keys, "--max-body-mb", "1")
    stderr = done.stderr.decode()
    assert done.returncode == 1 and stderr.count("\n") == 1, stderr
    assert "kit's capture limit of 1 MiB" in stderr and "--max-body-mb" in stderr and "PARTIAL" in stderr
    results = json.loads(done.stdout)
    assert len(results) == 44
    assert all(results[n]["names"] == [f"k{n}", f"x_{n}"] for n in range(40))
    assert all(result["error"]["kind"] == "not-run" for result in results[40:])


@pytest.mark.slow
def test_a_batch_done_before_its_second_runner_is_ready_is_complete(node_modules):
    """Two tiny sets on two runners: one runner often answers both before the other has loaded @mastra/core, and
    ending that idle runner must not turn a complete batch into a failed one."""
    batch = [scenarios.for_keys(f"set-{n}", [f"x.{n}"]) for n in range(2)]
    for _ in range(3):
        outcomes = mastra.run(batch, VERSION, workers=2)
        assert [outcome.wire_names for outcome in outcomes] == [["x_0"], ["x_1"]]


def test_a_batch_of_key_sets_builds_each_scenario_when_read_and_reads_like_the_list_it_replaces():
    key_sets = [["a", "x.y"], ["b"], []]
    lazy = scenarios.KeySets(key_sets, scenarios.named("x.y"))
    eager = [
        scenarios.for_keys(f"probe-{number}", keys, scenarios.named("x.y"), logs=False)
        for number, keys in enumerate(key_sets)
    ]
    assert len(lazy) == 3 and list(lazy) == eager and lazy[-1] == eager[-1]
    assert lazy[0] is not lazy[0], "built on each read, never kept"
    with pytest.raises(IndexError):
        lazy[3]
    with pytest.raises(TypeError, match="by position"):
        lazy[0:2]
