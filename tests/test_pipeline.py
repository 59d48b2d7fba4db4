"""The ordered pipeline on its own, on real child processes (a few lines of Python speaking the JSON-lines protocol,
no framework): results in batch order however they finish, never too far ahead, a dead child's finished results
kept, and a request that cannot be built raised, not hung on."""

from __future__ import annotations

import sys
import threading

import pytest

from probe_lib.core.errors import HarnessError
from probe_lib.process import pipeline
from probe_lib.process.lines import LinesChild

#: A child that answers each request after the pause it asks for (so results finish out of order), or exits.
CHILD = r"""
import json, os, sys, threading, time
lock = threading.Lock()
def emit(result):
    with lock:
        sys.stdout.write("\x1eRESULT " + json.dumps(result) + "\n")
        sys.stdout.flush()
def answer(request):
    time.sleep(request["pause"])
    if request["exit"]:
        sys.stderr.write("exiting as asked\n")
        sys.stderr.flush()
        os._exit(3)
    emit({"id": request["id"], "position": request["position"]})
emit({"ready": True})
for line in sys.stdin:
    threading.Thread(target=answer, args=(json.loads(line),)).start()
"""


def children(count: int) -> list[LinesChild]:
    return [LinesChild([sys.executable, "-c", CHILD], f"child {n}") for n in range(count)]


def run(count: int, *, exit_at: int | None = None, ahead: int = 12, furthest: list[int] | None = None):
    """The batch's results, with the highest position requested so far checked against those handed over."""
    handed = [0]

    def request(position: int) -> dict:
        if furthest is not None:
            furthest.append(position - handed[0])
        pause = 0.05 if position % 3 == 0 else 0.0  # every third finishes after the ones sent after it
        return {"id": f"r{position}", "position": position, "pause": pause, "exit": position == exit_at}

    results = []
    for result in pipeline.in_order(children(3), count, request, in_flight=4, ahead=ahead, timeout=30):
        results.append(result)
        handed[0] += 1
    return results


@pytest.mark.slow
def test_results_come_back_in_batch_order_and_never_further_ahead_than_the_bound():
    furthest: list[int] = []
    results = run(300, ahead=12, furthest=furthest)
    assert [result["position"] for result in results] == list(range(300))
    assert len(furthest) == 300 and max(furthest) <= 12


def test_a_child_that_dies_keeps_what_finished_and_the_batch_raises_after_the_last_result():
    seen = []
    with pytest.raises(HarnessError, match=r"exited \(exit status 3; last stderr: exiting as asked\)"):
        for result in pipeline.in_order(
            children(3),
            200,
            lambda n: {"id": f"r{n}", "position": n, "pause": 0.01, "exit": n == 50},
            in_flight=4,
            ahead=24,
            timeout=30,
        ):
            seen.append(result)
    assert len(seen) == 200, "every position is handed over, as a result or as None, before the error"
    assert seen[50] is None and 0 < seen.count(None) <= 4, "only what the dead child had out is lost"
    assert all(result is None or result["position"] == n for n, result in enumerate(seen))


def test_a_request_that_cannot_be_built_is_raised_and_every_child_ended():
    started = children(2)

    def request(position: int) -> dict:
        if position == 30:
            raise ValueError("no request for 30")
        return {"id": f"r{position}", "position": position, "pause": 0.0, "exit": False}

    outcome: list[BaseException] = []

    def consume() -> None:
        try:
            list(pipeline.in_order(started, 100, request, in_flight=4, ahead=16, timeout=30))
        except BaseException as error:
            outcome.append(error)

    consumer = threading.Thread(target=consume)
    consumer.start()
    consumer.join(timeout=60)
    assert not consumer.is_alive(), "the batch hung on a writer that failed"
    assert [str(error) for error in outcome] == ["no request for 30"]
    assert all(child.pid is None for child in started), "every child was closed"
