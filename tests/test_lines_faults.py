"""Every framework's runner child gains the watchdog Mastra's had: killed mid-batch, its finished results are kept.

The fault is real: the raw ``openai`` SDK's Python runner (the baseline adapter) is sent SIGKILL by the capture
server once it has recorded part of a batch; what it had answered before must stay readable, each result matching
the request the server captured for it.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading

import pytest

from probe_lib.capture import CaptureServer
from probe_lib.core.errors import HarnessError
from probe_lib.core.scenarios import for_keys
from probe_lib.frameworks import openai as openai_adapter
from probe_lib.process.lines import LinesChild

BATCH = 600


def _command() -> list[str]:
    version = openai_adapter.PINS.versions()[-1]
    if not openai_adapter.PINS.is_installed(version):
        message = f"openai {version} is not installed: run `probe-lib setup --framework openai`"
        if os.environ.get("PROBE_LIB_ALLOW_NO_NODE") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return [*openai_adapter.PINS.command(version), "8"]


@pytest.mark.slow
def test_a_python_runner_killed_mid_batch_keeps_its_finished_results():
    child_box: list[LinesChild] = []
    seen, faulted = [0], threading.Event()

    def on_record(capture) -> None:
        seen[0] += 1
        if seen[0] == 40:
            os.kill(child_box[0].pid, signal.SIGKILL)
            faulted.set()

    with CaptureServer(on_record=on_record) as server:
        requests = []
        for n in range(BATCH):
            scenario = for_keys(f"set-{n}", [f"k{n}", f"x.{n}"])
            server.script(f"s{n}", scenario.replies)
            requests.append(
                {
                    "id": f"s{n}",
                    "url": server.scenario_url(f"s{n}"),
                    "keys": [f"k{n}", f"x.{n}"],
                    "toolChoice": None,
                    "timeoutMs": 10_000,
                }
            )
        child = LinesChild(_command(), "openai test")
        child_box.append(child)
        with child, pytest.raises(HarnessError) as caught:
            child.exchange(requests, timeout=60)
        assert faulted.is_set()
        message = str(caught.value)
        assert message.startswith("openai test runner exited (killed by SIGKILL") and "\n" not in message
        finished = child.finished
        assert 0 < len(finished) < BATCH, "the kill came after 40 requests of 600, so some but not all finished"
        for scenario_id, result in finished.items():
            n = int(scenario_id[1:])
            assert result["id"] == scenario_id  # its turn ended on the capture server's scripted 400: measured
            sent = [c.body for c in server.take(scenario_id) if c.wire == "chat-completions"]
            assert [tool["function"]["name"] for tool in sent[0]["tools"]] == [f"k{n}", f"x.{n}"]
    assert child.pid is None, "closed after the failure"


def test_a_runner_that_exits_before_ready_quotes_its_exit_status_and_stderr():
    with pytest.raises(HarnessError) as caught:
        with LinesChild(
            ["python3", "-c", "import sys; sys.stderr.write('boom: no framework here\\n'); sys.exit(3)"], "broken"
        ):
            pass
    assert str(caught.value) == "broken runner exited (exit status 3; last stderr: boom: no framework here)"


@pytest.mark.slow
def test_a_python_turn_cut_by_its_watchdog_says_so():
    """A provider that accepts the connection and never answers: the turn is cut at its ``timeoutMs`` and says so
    in words (the watchdog's own ``TimeoutError`` has an empty message, which read as a crash with no message)."""
    with socket.create_server(("127.0.0.1", 0)) as silent, LinesChild(_command(), "openai test") as child:
        request = {
            "id": "stalled",
            "url": f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
            "keys": ["plain"],
            "toolChoice": None,
            "timeoutMs": 1500,
        }
        result = child.exchange([request], timeout=30)["stalled"]
    assert result["timedOut"] is True
    assert result["error"] == [{"name": "TimeoutError", "message": "turn timed out after 1500 ms"}]


#: A child that gets ready, then exits at once, while a process it started says its last words on the stderr they
#: share half a second later (as a loaded machine delays the drain of a child's own last line).
_LATE_WORDS = r"""
import os, sys, time
sys.stdout.write("\x1eRESULT " + '{"ready": true}' + "\n"); sys.stdout.flush()
sys.stdin.readline()
if os.fork() == 0:
    os.close(1)
    time.sleep(0.5)
    sys.stderr.write("exiting as asked\n"); sys.stderr.flush()
    os._exit(0)
os._exit(3)
"""


def test_a_dead_child_s_last_stderr_words_are_read_before_its_exit_is_reported():
    with LinesChild([sys.executable, "-c", _LATE_WORDS], "late words") as child:
        child.send({"id": "1"})
        with pytest.raises(HarnessError, match=r"exit status 3; last stderr: exiting as asked"):
            child.next_result(timeout=30)
