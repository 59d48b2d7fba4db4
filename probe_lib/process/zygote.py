"""Python processes forked from one warm process instead of started cold: each skips the imports its parent made.

A notebook's kernel spends about 2 s of CPU importing ipykernel, pandas and matplotlib before its first cell, and a
report starts seventeen kernels. A :class:`Zygote` is a process that imports such modules once and then forks a
child per request, which runs a module as ``python -m`` would (``ipykernel_launcher``), with the arguments,
environment and working folder asked for: every child shares those imports, copy-on-write.

Each child leads a session of its own (as ``jupyter_client`` starts a kernel), with a standard input already at its
end (as a kernel's), and is tied to whoever asked for it by the connection it was asked on: :class:`Forked` answers
like :class:`subprocess.Popen` (``pid``, ``poll``, ``wait``, signals) from what the zygote says there, and when
that connection closes first (its asker ended, however) the zygote kills the child's group. The zygote ends, killing
the children it still has, when the process that started it closes it or ends, or when it is sent SIGTERM or
SIGHUP; a child is killed by the kernel as the zygote ends however it ends (``PR_SET_PDEATHSIG``). It runs in its
own empty folder, so nothing in its starter's folder changes what it imports, and only its starter's user can ask:
the socket lies in that folder, which only that user may enter.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import runpy
import select
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

#: How long the zygote's preparation may take, and how long it may take to answer a request, before it has failed.
START_SECONDS = 120
ASK_SECONDS = 10


class Forked:
    """A child of the zygote, seen from the process that asked for it: the parts of :class:`subprocess.Popen`
    ``jupyter_client`` uses. Its exit code (negative: the signal that ended it) is what the zygote reaped, or -9
    when the zygote ended first (its children are killed with it)."""

    stdin = stdout = stderr = None

    def __init__(self, connection: socket.socket, pid: int, said: bytearray) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._connection = connection
        self._said = said  # what the zygote has said past the pid: the exit, when the child ended at once

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(BlockingIOError):
                self._ended(socket.MSG_DONTWAIT)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._connection.settimeout(timeout)
            try:
                self._ended()
            except (TimeoutError, BlockingIOError):
                raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout or 0) from None
            finally:
                if self.returncode is None:
                    self._connection.settimeout(None)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:  # once reaped, its pid may be another process's
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _ended(self, flags: int = 0) -> None:
        line = _line(self._connection, self._said, flags)
        # Closed without a word: the zygote ended, and the kernel killed the child as it did (PR_SET_PDEATHSIG).
        self.returncode = json.loads(line)["exit"] if line else -signal.SIGKILL
        self._connection.close()


class Zygote:
    """A running zygote that has run the script ``prepare`` (whose imports are what its children share), with the
    environment of the process that started it. As a context manager it is the one :func:`running` gives, in this
    process and in those it forks, until the block ends and it is closed. Raises :class:`RuntimeError` if the
    preparation fails or takes more than START_SECONDS."""

    def __init__(self, prepare: Path) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="probe-lib-zygote-"))  # mode 0700: this user's alone
        self.address = self._folder / "socket"
        self.environment = dict(os.environ)
        ready, told = os.pipe()
        command = [sys.executable, "-m", __name__, str(self.address), str(told), str(prepare)]
        try:
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, pass_fds=(told,), cwd=self._folder)
        except BaseException:
            os.close(ready)
            self._folder.rmdir()
            raise
        finally:
            os.close(told)
        self.pid = self._process.pid
        with os.fdopen(ready, "rb") as said:  # a line once it listens, after its preparation; nothing if it failed
            try:
                answered = bool(select.select([said], [], [], START_SECONDS)[0])
                started = answered and said.readline() == b"ready\n"
            except BaseException:  # Ctrl-C while it prepares
                self._end(at_once=True)
                raise
        if not started:
            self._end(at_once=not answered)
            why = f"exit code {self._process.returncode}" if answered else f"not ready after {START_SECONDS} s"
            raise RuntimeError(f"the zygote running {prepare.name} failed ({why})")

    def spawn(self, module: str, argv: Sequence[str], env: Mapping[str, str], cwd: str | os.PathLike[str]) -> Forked:
        """A child that runs ``module`` as ``python -m module *argv`` would, with ``env`` in ``cwd``; raises
        :class:`OSError` if the zygote does not answer."""
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.settimeout(ASK_SECONDS)
            connection.connect(str(self.address))
            request = {"module": module, "argv": list(argv), "env": dict(env), "cwd": os.fspath(cwd)}
            connection.sendall(json.dumps(request).encode() + b"\n")
            said = bytearray()
            line = _line(connection, said)
            if not line:
                raise ConnectionError("the zygote closed the connection without forking")
            connection.settimeout(None)
            return Forked(connection, json.loads(line)["pid"], said)
        except BaseException:
            connection.close()
            raise

    def close(self) -> None:
        """End the zygote and remove its folder. A word on its input ends it: the processes forked from this one
        hold that input open too."""
        with contextlib.suppress(OSError):
            self._process.stdin.write(b"end\n")  # type: ignore[union-attr]
            self._process.stdin.close()  # type: ignore[union-attr]
        self._end(at_once=False)

    def _end(self, at_once: bool) -> None:
        try:
            self._process.wait(0 if at_once else ASK_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        with contextlib.suppress(OSError):  # the zygote removes its socket as it ends
            self.address.unlink(missing_ok=True)
            self._folder.rmdir()

    def __enter__(self) -> Zygote:
        global _running
        self._outer, _running = _running, self
        return self

    def __exit__(self, *exc_info: object) -> None:
        global _running
        _running = self._outer
        self.close()


_running: Zygote | None = None


def running() -> Zygote | None:
    """The zygote this process (or the process it was forked from) started and has not closed, if any."""
    return _running


def _line(connection: socket.socket, said: bytearray, flags: int = 0) -> bytes:
    """The next line ``connection`` says (empty: it closed first), taken from ``said`` and what arrives after it;
    what arrives past the line stays in ``said``, and so does a part line when ``recv`` raises (``MSG_DONTWAIT``
    with nothing more there: :class:`BlockingIOError`)."""
    while b"\n" not in said:
        chunk = connection.recv(65536, flags)
        if not chunk:
            said.clear()
            return b""
        said += chunk
    line, _, rest = bytes(said).partition(b"\n")
    said[:] = rest
    return line


# The zygote's side.


def _serve(listener: socket.socket, signalled: int) -> None:
    """Fork a child per request until the owner says so or goes; tell each asker its child's pid, then its exit code;
    kill a child's group when its asker's connection closes first."""
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "ask")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "owner")  # a word, or closed by all who hold it
    selector.register(os.pidfd_open(os.getppid()), selectors.EVENT_READ, "owner")  # or the owner is gone
    selector.register(signalled, selectors.EVENT_READ, "owner")  # or SIGTERM or SIGHUP came
    askers: dict[int, socket.socket] = {}  # child's pid (not reaped yet, so its own) -> the connection it was asked on
    try:
        while True:
            for key, _ in selector.select():
                if key.data == "owner":
                    return
                if key.data == "ask":
                    with contextlib.suppress(OSError):  # one request that fails (a full process table) is its own
                        _ask(listener, askers, selector)
                    continue
                what, pid = key.data
                if pid not in askers:  # ended and left at once: reaped already
                    continue
                selector.unregister(key.fileobj)
                if what == "left":  # the asker closed its end (it never writes again): its child goes too
                    _kill_group(pid)
                    continue
                os.close(key.fd)
                connection = askers.pop(pid)
                _, status = os.waitpid(pid, 0)
                with contextlib.suppress(OSError):
                    connection.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                with contextlib.suppress(KeyError):
                    selector.unregister(connection)
                connection.close()
    finally:
        for pid in askers:
            _kill_group(pid)


def _ask(listener: socket.socket, askers: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    """Take one request: fork its child and watch it and its asker (an asker given no pid starts its own)."""
    connection, _ = listener.accept()
    pid = _fork(connection, [listener, *askers.values()], selector)
    if pid is None:
        connection.close()
        return
    askers[pid] = connection
    try:
        selector.register(os.pidfd_open(pid), selectors.EVENT_READ, ("ended", pid))
    except OSError:
        del askers[pid]
        _kill_group(pid)
        os.waitpid(pid, 0)
        connection.close()
        raise
    selector.register(connection, selectors.EVENT_READ, ("left", pid))


def _kill_group(pid: int) -> None:
    """Kill a child (not reaped yet, so its pid is still its own) and the group it leads, if it has made it yet."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _fork(connection: socket.socket, others: list[socket.socket], selector: selectors.BaseSelector) -> int | None:
    """Read a request from ``connection`` and fork its child, answering its pid (``None``: no request came, or no
    process could be made); the child never returns. Only the owner's own processes can connect, each sending its
    request at once."""
    zygote = os.getpid()
    try:
        connection.settimeout(ASK_SECONDS)
        request = json.loads(_line(connection, bytearray()))
        connection.settimeout(None)
        pid = os.fork()
    except (OSError, ValueError):
        return None
    if pid:
        with contextlib.suppress(OSError):  # an asker gone already: its connection's end kills the child
            connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        return pid
    code = 1
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # killed as the zygote ends, however it ends
        if os.getppid() != zygote:  # it ended before that
            os._exit(code)
        for stop in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(stop, signal.SIG_DFL)
        os.close(signal.set_wakeup_fd(-1))
        for key in selector.get_map().values():  # the zygote's own ends
            if isinstance(key.fileobj, int) and key.fd != sys.stdin.fileno():
                os.close(key.fd)
        selector.close()
        for held in (connection, *others):
            held.close()
        ended, end = os.pipe()  # a standard input at its end, as jupyter_client gives a kernel
        os.dup2(ended, 0)
        os.close(ended)
        os.close(end)
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = os.getcwd()  # as `python -m` sets it
        sys.argv = ["-m", *request["argv"]]
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as ended_with:
        code = ended_with.code if isinstance(ended_with.code, int) else int(ended_with.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


#: prctl(2)'s option that has the kernel signal a process when its parent ends.
_PR_SET_PDEATHSIG = 1


def _main(address: str, told: int, prepare: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is its owner's to handle; the zygote ends with it
    # SIGTERM and SIGHUP (a closed terminal, a cancelled job) only write to a pipe the loop watches, which then ends
    # the children first: no signal lands mid-fork or mid-answer.
    signalled, told_signalled = os.pipe()
    os.set_blocking(told_signalled, False)
    signal.set_wakeup_fd(told_signalled)
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, lambda signum, frame: None)
    try:
        runpy.run_path(prepare, run_name="__zygote__")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(address)
        listener.listen(64)
        os.write(told, b"ready\n")
        os.close(told)
        _serve(listener, signalled)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(address)
            os.rmdir(os.path.dirname(address))


if __name__ == "__main__":
    _main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
