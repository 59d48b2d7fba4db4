"""A Node runner that dies or stops answering mid-batch never hangs the batch and never loses finished results.

The faults are real: the runner process is sent SIGKILL (dies) or SIGSTOP (stops reading and answering, so its
stdin pipe fills and the writer blocks) while the real @mastra/core is working through a batch.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from processes import child_pids

from probe_lib.capture import CaptureServer
from probe_lib.core import scenarios
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import runner

VERSION = "1.67.0"
pytestmark = pytest.mark.node


def runner_pids(parent: int) -> set[int]:
    """Node runner processes whose parent is ``parent``."""
    return child_pids(parent, b"runner.cjs")


def batch(count: int, timeout_ms: int = 10_000) -> list[scenarios.Scenario]:
    """``count`` tool sets of one legal key and one dotted key (``["k7", "x.7"]``)."""
    return [
        dataclasses.replace(scenarios.for_keys(f"set-{n}", [f"k{n}", f"x.{n}"]), timeout_ms=timeout_ms)
        for n in range(count)
    ]


def fault_after(records: int, fault: signal.Signals) -> tuple[CaptureServer, threading.Event]:
    """A capture server that sends ``fault`` to this process's runners once it has recorded ``records`` requests."""
    seen, done = [0], threading.Event()

    def on_record(capture) -> None:
        seen[0] += 1
        if seen[0] == records:
            for pid in runner_pids(os.getpid()):
                os.kill(pid, fault)
            done.set()

    return CaptureServer(on_record=on_record), done


@pytest.mark.slow
def test_a_runner_killed_mid_batch_ends_the_batch_with_its_finished_outcomes(node_modules):
    server, faulted = fault_after(40, signal.SIGKILL)
    with server, pytest.raises(mastra.BatchIncomplete) as caught:
        mastra.run(batch(2_000), VERSION, server=server, workers=1)
    assert faulted.is_set()
    message = str(caught.value)
    assert "killed by SIGKILL" in message and "of 2,000 scenarios finished" in message and "\n" not in message
    outcomes = caught.value.outcomes
    assert len(outcomes) == 2_000 and None in outcomes
    finished = [(n, outcome) for n, outcome in enumerate(outcomes) if outcome is not None]
    assert finished, "requests were answered before the kill, so some outcomes must be kept"
    for n, outcome in finished:  # formatTools moves the rewritten key last and replaces the dot
        assert outcome.scenario.name == f"set-{n}" and outcome.wire_names == [f"k{n}", f"x_{n}"]
    assert not runner_pids(os.getpid())


@pytest.mark.slow
def test_a_runner_that_stops_answering_is_detected_even_with_its_stdin_pipe_full(node_modules, monkeypatch):
    monkeypatch.setattr(runner, "STALL_SLACK_SECONDS", 2.0)  # the watchdog: 1 s scenario timeout + 2 s
    server, faulted = fault_after(40, signal.SIGSTOP)
    started = time.monotonic()
    with server, pytest.raises(mastra.BatchIncomplete) as caught:
        mastra.run(batch(3_000, timeout_ms=1_000), VERSION, server=server, workers=1)  # ~1 MB of requests
    assert faulted.is_set()
    assert time.monotonic() - started < 60, "the watchdog fired late"
    assert "gave no result for 3 s" in str(caught.value)
    assert sum(outcome is not None for outcome in caught.value.outcomes) < 3_000
    assert not runner_pids(os.getpid()), "the stopped runner must be killed, not left behind"


@pytest.mark.slow
def test_probe_cli_prints_partial_results_marked_and_exits_1_when_its_runner_is_killed(node_modules, tmp_path):
    records = tmp_path / "records.json"
    records.write_text(json.dumps([[f"k{n}", f"x.{n}"] for n in range(3_000)]))
    with records.open() as stdin:
        process = subprocess.Popen(
            [sys.executable, "-m", "probe_lib", "probe", "--json", "--workers", "1"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not runner_pids(process.pid):
        time.sleep(0.1)
    pids = runner_pids(process.pid)
    assert pids, "probe never started its runner"
    time.sleep(3)  # let it get through part of the batch
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 1
    assert stderr.count("\n") == 1 and "killed by SIGKILL" in stderr and "PARTIAL" in stderr
    results = json.loads(stdout)
    assert len(results) == 3_000
    not_run = [result for result in results if result.get("error", {}).get("kind") == "not-run"]
    assert not_run, "the kill came mid-batch, so some records cannot have finished"
    for n, result in enumerate(results):
        assert result in not_run or result["names"] == [f"k{n}", f"x_{n}"]


@pytest.mark.slow
@pytest.mark.parametrize(("limit_mb", "fits"), [(1, False), (4, True)])
def test_a_request_over_the_kits_body_limit_names_that_limit_and_the_flag_raises_it(
    node_modules, tmp_path, limit_mb, fits
):
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps([f"key.{n}" for n in range(5_000)]))  # ~1.5 MB of tools in one request
    with keys.open() as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "probe_lib", "probe", "--json", "--max-body-mb", str(limit_mb)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if fits:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["names"][:2] == ["key_0", "key_1"]
    else:
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr.count("\n") == 1 and "kit's capture limit of 1 MiB" in done.stderr
        assert "--max-body-mb" in done.stderr and "crash" not in done.stderr


def test_a_lookup_arriving_while_a_turn_imports_an_es_module_waits_for_it_instead_of_crashing(capture_server):
    """1.0.4's ``/mastra`` entry require()s p-map, which its agent loop import()s: Node.js throws ("Cannot require()
    ES Module ... not yet fully loaded") when the require() meets that import in flight, as three lookups of a live
    report did once. Here p-map loads slowly (tests/esm) and the lookup's line reaches the runner while the first
    turn's import is pending; the runner loads the entry once no turn is in flight, and both turns run."""
    from probe_lib.core import paths
    from probe_lib.frameworks.mastra import catalogue, versions
    from probe_lib.install import npm

    by_name = {scenario.name: scenario for scenario in catalogue.scenarios()}
    lines = [
        json.dumps({**by_name[name].to_json(capture_server.scenario_url(f"esm-{n}")), "id": n})
        for n, name in enumerate(["key-not-id", "lookup-mastra-tool"])
    ]
    hooks = os.path.join(os.path.dirname(__file__), "esm", "register_slow_p_map.mjs")
    modules = versions.PINS.modules("1.0.4")
    command = [npm.node_executable(), f"--import={hooks}", str(paths.HARNESS / "runner.cjs"), str(modules)]
    with subprocess.Popen([*command, "1.0.4", "16"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as node:
        assert '"ready":true' in node.stdout.readline()
        for line in lines:
            node.stdin.write(line + "\n")
            node.stdin.flush()
            time.sleep(0.5)  # the first turn is inside its agent loop, importing p-map, when the lookup arrives
        node.stdin.close()
        results = {}
        for _ in lines:
            line = node.stdout.readline()
            result = json.loads(line[line.index("{") :])
            results[result["id"]] = result
    assert "p-map" not in json.dumps(results[1].get("error")), results[1]["error"]
    assert results[1]["surfaces"], results[1]
