"""The zygote that forks warm Python processes (the notebooks' kernels): a real zygote, real forked children, and the
process tree left clean however the asker or the zygote ends."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import stat
import time
from pathlib import Path

import psutil
import pytest

from probe_lib.process import zygote

#: A module a child runs: it says what it was given and what it found imported, then waits for a file to appear.
CHILD = """
import json, os, sys, time
from pathlib import Path
said = {"argv": sys.argv[1:], "cwd": os.getcwd(), "marker": os.environ.get("MARKER"),
        "prepared": "prepared_marker" in sys.modules, "session": os.getsid(0) == os.getpid(), "stdin": sys.stdin.read()}
Path("said.json").write_text(json.dumps(said))
while not Path("go").exists():
    time.sleep(0.05)
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "child.py").write_text(CHILD, encoding="utf-8")
    (tmp_path / "prepared_marker.py").write_text("", encoding="utf-8")
    (tmp_path / "prepare.py").write_text(
        f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport prepared_marker\n", encoding="utf-8"
    )
    return tmp_path


def said(folder: Path) -> dict:
    deadline = time.monotonic() + 30
    while not (folder / "said.json").exists():
        assert time.monotonic() < deadline, "the child never ran"
        time.sleep(0.05)
    time.sleep(0.1)  # written whole
    return json.loads((folder / "said.json").read_text(encoding="utf-8"))


def gone(pid: int, seconds: float = 10) -> bool:
    """Whether ``pid`` has ended (or is a zombie no one has reaped yet) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_a_child_runs_its_module_with_what_it_was_asked_for_and_shares_the_prepared_imports(folder):
    with zygote.Zygote(folder / "prepare.py") as warm:
        assert zygote.running() is warm
        assert stat.S_IMODE(warm.address.parent.stat().st_mode) == 0o700, "another user could ask it for a process"
        child = warm.spawn("child", ["3", "more"], {**os.environ, "MARKER": "m"}, folder)
        assert child.poll() is None
        expected = {
            "argv": ["3", "more"],
            "cwd": str(folder),
            "marker": "m",
            "prepared": True,
            "session": True,
            "stdin": "",
        }
        assert said(folder) == expected
        assert child.poll() is None, "it waits for its file"
        (folder / "go").touch()
        assert child.wait(30) == 3 and child.poll() == 3
    assert zygote.running() is None
    assert not warm.address.parent.exists(), "the zygote's socket was left behind"


def test_a_signalled_child_reports_the_signal_and_is_not_signalled_again(folder):
    with zygote.Zygote(folder / "prepare.py") as warm:
        child = warm.spawn("child", ["0"], dict(os.environ), folder)
        said(folder)
        child.send_signal(signal.SIGTERM)
        assert child.wait(30) == -signal.SIGTERM
        child.kill()  # reaped: its pid may already be another process's, so nothing is sent


def test_a_child_whose_asker_dies_is_killed_and_the_zygote_goes_on(folder):
    """The asker (a forked process, as each notebook's worker is) is killed while its child runs: the zygote kills
    the child's group, and still answers the next asker."""
    fork = multiprocessing.get_context("fork")
    pids = fork.Queue()
    with zygote.Zygote(folder / "prepare.py") as warm:

        def ask() -> None:
            child = warm.spawn("child", ["0"], dict(os.environ), folder)
            pids.put(child.pid)
            time.sleep(600)

        asker = fork.Process(target=ask, daemon=True)
        asker.start()
        try:
            orphan = pids.get(timeout=30)
            said(folder)
        finally:
            asker.kill()
            asker.join()
        assert gone(orphan), "the child of a dead asker runs on"
        (folder / "said.json").unlink()
        (folder / "go").touch()
        assert warm.spawn("child", ["5"], dict(os.environ), folder).wait(30) == 5


def test_a_child_whose_handle_is_dropped_is_killed(folder):
    """A child's connection is its lifeline: an asker that lets go of the handle lets go of the child."""
    with zygote.Zygote(folder / "prepare.py") as warm:
        pid = warm.spawn("child", ["0"], dict(os.environ), folder).pid
        assert gone(pid)


def test_the_zygote_ends_when_its_owner_does_though_its_forks_hold_its_input(folder):
    """Closed, it ends at once, though a process forked from its owner still holds its input open; and it ends with
    an owner that is killed, taking its children along."""
    fork = multiprocessing.get_context("fork")
    with zygote.Zygote(folder / "prepare.py"):
        holder = fork.Process(target=time.sleep, args=(600,), daemon=True)
        holder.start()
        started = time.monotonic()
    try:
        assert time.monotonic() - started < zygote.ASK_SECONDS, "the zygote waited for a fork of its owner"
    finally:
        holder.kill()
        holder.join()

    pids = fork.Queue()

    def own() -> None:
        warm = zygote.Zygote(folder / "prepare.py")
        child = warm.spawn("child", ["0"], dict(os.environ), folder)
        pids.put((warm.pid, child.pid))
        time.sleep(600)

    owner = fork.Process(target=own, daemon=True)
    owner.start()
    try:
        zygote_pid, child_pid = pids.get(timeout=60)
        said(folder)
    finally:
        owner.kill()
        owner.join()
    assert gone(zygote_pid) and gone(child_pid), "the zygote or its child outlived its owner"


def test_closing_the_zygote_ends_the_children_it_still_has(folder):
    with zygote.Zygote(folder / "prepare.py") as warm:
        child = warm.spawn("child", ["0"], dict(os.environ), folder)
        said(folder)
        keeper = psutil.Process(child.pid)
    assert gone(keeper.pid), "a child outlived its zygote"


def test_a_zygote_whose_preparation_fails_says_so(tmp_path):
    (tmp_path / "prepare.py").write_text("raise SystemExit(7)\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"^the zygote running prepare.py failed \(exit code 7\)$"):
        zygote.Zygote(tmp_path / "prepare.py")
    assert zygote.running() is None


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP], ids=lambda stop: stop.name)
def test_a_zygote_told_to_stop_ends_its_children_first(folder, stop):
    """A cancelled job or a closed terminal signals the whole process group: the zygote kills its children (each in
    a session of its own, where the signal does not reach) before it ends."""
    with zygote.Zygote(folder / "prepare.py") as warm:
        child = warm.spawn("child", ["0"], dict(os.environ), folder)
        said(folder)
        os.kill(warm.pid, stop)
        assert child.wait(30) == -signal.SIGKILL
        assert gone(warm.pid)


def test_a_connection_that_asks_nothing_is_dropped_and_the_zygote_goes_on(folder):
    with zygote.Zygote(folder / "prepare.py") as warm:
        for request in (b"", b"not json\n"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as idle:
                idle.connect(str(warm.address))
                idle.sendall(request)
                idle.shutdown(socket.SHUT_WR)
                assert idle.recv(100) == b"", "the zygote answered a request it could not read"
        (folder / "go").touch()
        assert warm.spawn("child", ["4"], dict(os.environ), folder).wait(30) == 4
