"""``process.forked.each``: one call per item in a forked worker of its own, with real processes. A worker leaves
nothing running behind it, whether its call returned or was stopped while a child it started still ran (as a
notebook's kernel that is still starting when Ctrl-C comes)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from processes import child_pids

from probe_lib.process import forked


def started_a_child(pid_file: Path, then_wait: bool) -> int:
    """Start a child that would run for a minute, note its pid, and return it (or wait to be stopped)."""
    child = subprocess.Popen(["sleep", "60"])
    pid_file.write_text(str(child.pid))
    if then_wait:
        time.sleep(60)
    return child.pid


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_answers_come_back_in_item_order_and_a_calls_exception_is_raised_here():
    assert forked.each(pow, [(2, 10), (3, 2), (5, 1)], slots=2, names=["a", "b", "c"]) == [1024, 9, 5]
    with pytest.raises(ZeroDivisionError):
        forked.each(divmod, [(1, 0)], slots=1, names=["zero"])


def test_a_child_left_running_by_a_call_that_returned_is_ended_with_its_worker(tmp_path):
    [pid] = forked.each(started_a_child, [(tmp_path / "pid", False)], slots=1, names=["leaver"])
    assert not running(pid)


def test_a_worker_stopped_while_its_child_runs_ends_the_child_first(tmp_path):
    pid_file = tmp_path / "pid"

    def stop_the_worker() -> None:
        while not (pid_file.exists() and pid_file.read_text()):
            time.sleep(0.05)
        time.sleep(0.2)
        child = int(pid_file.read_text())
        worker = int(Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert worker in child_pids(os.getpid())
        os.kill(worker, signal.SIGINT)

    stopper = threading.Thread(target=stop_the_worker)
    stopper.start()
    with pytest.raises(RuntimeError, match=r"the worker running stopped ended without an answer \(exit code 0\)"):
        forked.each(started_a_child, [(pid_file, True)], slots=1, names=["stopped"])
    stopper.join()
    assert not running(int(pid_file.read_text())), "the worker's child outlived it"
