"""The real-@mastra/core harness as an instrument: one bad scenario never costs the batch, bad input is one line.

Everything runs the real Node runner against the real capture server; the only stand-ins are an empty ``PATH``
and an empty install folder, which is how a machine without Node or without ``probe-lib setup`` looks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from processes import child_pids
from test_cli_junk import run_main

from probe_lib.core.errors import InputError, NodeMissing
from probe_lib.core.scenarios import Scenario, ToolSpec, tools
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import Runner
from probe_lib.inputs.keysets import adversarial_records
from probe_lib.install import npm
from probe_lib.wire.replies import TextReply, ToolCall, ToolCallsReply

VERSION = mastra.ADAPTER.versions()[-1]
HANG_MS = 1500


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``probe-lib ARGS`` in this process (:func:`run_main`, byte streams as a pipe's): these tests read its exit code
    and output, which a separate process would add only its start-up to."""
    code, stdout, stderr = run_main(list(args), stdin.encode("utf-8"))
    return subprocess.CompletedProcess(["probe-lib", *args], code, stdout, stderr)


@pytest.mark.slow
@pytest.mark.node
def test_a_throwing_and_a_hanging_scenario_leave_the_batch_intact(node_modules, capture_server):
    batch = [
        Scenario("before", tools=tools("search.web")),
        Scenario("throws", tools=(ToolSpec("x", builtin="noSuchTool"),)),
        Scenario(
            "hangs",
            tools=(ToolSpec("stuck", hang=True),),
            max_steps=2,
            timeout_ms=HANG_MS,
            replies=(ToolCallsReply((ToolCall("stuck", {"city": "Paris"}),)), TextReply("never reached")),
        ),
        Scenario("after", tools=tools("plain", "a b")),
    ]
    # One turn at a time: "after" can only run once the hanging turn has given its slot back.
    outcomes = {o.scenario.name: o for o in mastra.run(batch, VERSION, server=capture_server, concurrency=1)}

    assert outcomes["before"].result_json() == {"names": ["search_web"], "tool_choice": "auto"}
    assert outcomes["after"].result_json() == {"names": ["plain", "a_b"], "tool_choice": "auto"}
    thrown = outcomes["throws"]
    assert thrown.requests == ()
    assert "does not export the built-in tool noSuchTool" in thrown.error[0]["message"]
    hung = outcomes["hangs"]
    assert [e["args"] for e in hung.executions] == [{"city": "Paris"}], "the hanging tool must have been called"
    assert len(hung.requests) == 1, "the turn never got to send the tool result back"
    # The runner's own per-scenario watchdog cut it (the batch's would have raised HarnessError instead).
    assert hung.error[0]["message"] == f"scenario timed out after {HANG_MS} ms"


def test_an_unknown_version_lists_the_pinned_ones_and_how_to_see_the_served():
    with pytest.raises(InputError) as raised:
        mastra.run([Scenario("any")], "0.0.1")
    message = str(raised.value)
    assert "'0.0.1' is neither pinned" in message and "probe-lib versions" in message
    assert all(version in message for version in mastra.ADAPTER.versions())


def test_runner_without_node_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    needed = r"Node\.js \(the kit is measured on 20\) and npm are needed.*install"
    with pytest.raises(NodeMissing, match=rf"node was not found on PATH\. {needed}"):
        Runner(VERSION).start()


def test_runner_without_setup_says_to_run_it(monkeypatch, tmp_path):
    if shutil.which("node") is None:
        pytest.skip("needs node on PATH to get past the node check")
    monkeypatch.setattr(npm, "install_dir", lambda harness: tmp_path / "empty")
    with pytest.raises(NodeMissing, match=r"not installed in .*empty.*: run `probe-lib setup --framework mastra`"):
        with Runner(VERSION):
            pass


@pytest.mark.slow
@pytest.mark.node
def test_probe_cli_batch_matches_normalise_plus_tool_choice(node_modules):
    records = adversarial_records(seed=7, count=60) + [["search.web", "plain"], ["", "x"], ["a b", "a.b"]]
    batch = json.dumps(records)
    probed = _cli("probe", "--json", "--mastra", VERSION, stdin=batch)
    assert probed.returncode == 0, probed.stderr
    modelled = _cli("normalise", "--json", stdin=batch)
    assert modelled.returncode == 0, modelled.stderr

    real, model = json.loads(probed.stdout), json.loads(modelled.stdout)
    assert len(real) == len(model) == len(records)
    for keys, real_result, model_result in zip(records, real, model):
        expected = {**model_result, "tool_choice": "auto"} if "names" in model_result else model_result
        assert real_result == expected, f"keys={json.dumps(keys)}"
    assert {next(iter(result)) for result in real} == {"names", "error"}


@pytest.mark.parametrize(
    ("args", "stdin", "names"),
    [
        (("probe", "--json", "--mastra", VERSION), "not json", "JSON"),
        (("probe", "--json", "--mastra", "0.0.1", "a"), "", "'0.0.1' is neither pinned"),
    ],
    ids=["malformed-stdin", "unknown-version"],
)
def test_probe_cli_bad_input_is_one_line_and_exit_2(args, stdin, names):
    completed = _cli(*args, stdin=stdin)
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert len(completed.stderr.splitlines()) == 1 and completed.stderr.startswith("probe-lib probe: ")
    assert names in completed.stderr


def test_probe_cli_without_node_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    completed = _cli("probe", "--json", "a.b")
    assert (completed.returncode, completed.stdout) == (2, "")
    assert (
        completed.stderr.startswith("probe-lib probe: node was not found on PATH") and completed.stderr.count("\n") == 1
    )


@pytest.mark.parametrize(
    ("script", "said"),
    [("exec /bin/sleep 30", r"did not answer within 1 s"), ("echo broken >&2; exit 3", r"failed \(broken\)")],
    ids=["hangs", "fails"],
)
def test_a_node_that_cannot_name_its_version_is_one_line(monkeypatch, tmp_path, script, said):
    """A live report names the Node.js it ran on; a ``node`` that hangs or fails on ``--version`` is one line."""
    node = tmp_path / "node"
    node.write_text(f"#!/bin/sh\n{script}\n")
    node.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(npm, "NODE_VERSION_SECONDS", 1)
    needed = r"Node\.js \(the kit is measured on 20\)"
    with pytest.raises(NodeMissing, match=rf"^`{node} --version` {said}\. {needed}") as raised:
        npm.node_version()
    assert "\n" not in str(raised.value)


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["mastra", "ai-sdk"])
def test_a_session_runs_on_one_warm_runner_and_closes_it(framework, node_modules, capture_server):
    from probe_lib import frameworks

    adapter = frameworks.get(framework)
    version = adapter.versions()[-1]
    before = child_pids(os.getpid())
    with adapter.session(version) as session:
        [first] = session.run([Scenario("first", tools=tools("search.web", "a"))], capture_server)
        runners = child_pids(os.getpid()) - before
        [second] = session.run([Scenario("second", tools=tools("b"))], capture_server)
        assert child_pids(os.getpid()) - before == runners and len(runners) == 1, (
            "the second run reused the first's runner"
        )
    assert not child_pids(os.getpid()) - before, "closing the session ends its runner"
    sent = [[tool["function"]["name"] for tool in outcome.requests[0]["tools"]] for outcome in (first, second)]
    assert sent[1] == ["b"] and sent[0] in (["a", "search_web"], ["search.web", "a"])  # Mastra rewrites; ai-sdk not


@pytest.mark.slow
def test_a_mastra_session_restarts_its_runner_for_a_run_that_needs_a_larger_heap(node_modules, capture_server):
    def heap_caps() -> dict[int, int]:
        """Each child's ``--max-old-space-size``, by pid."""
        caps = {}
        for pid in child_pids(os.getpid()):
            for arg in open(f"/proc/{pid}/cmdline", "rb").read().decode().split("\0"):
                if arg.startswith("--max-old-space-size="):
                    caps[pid] = int(arg.split("=")[1])
        return caps

    with mastra.ADAPTER.session(mastra.ADAPTER.versions()[-1]) as session:
        session.run([Scenario("small", tools=tools("a"))], capture_server)
        [(small_pid, small_cap)] = heap_caps().items()
        [big] = session.run([Scenario("big", tools=tools(*(f"k{n}" for n in range(4_000))))], capture_server)
        [(big_pid, big_cap)] = heap_caps().items()
    assert big_pid != small_pid and big_cap > small_cap
    assert len(big.requests[0]["tools"]) == 4_000
