"""Python processes forked from one warm process instead of started cold: each skips the imports its parent made.

A notebook's kernel spends about 2 s of CPU importing ipykernel, pandas and matplotlib before its first cell, and a
report starts seventeen kernels. A :class:`Zygote` is a process that imports such modules once and then forks a
child per request, which runs a module as ``python -m`` would (``ipykernel_launcher``), with the arguments,
environment and working folder asked for: every child shares those imports, copy-on-write.

The process tree keeps ends that are known. Each child leads a session of its own (as ``jupyter_client`` starts a
kernel), and it is tied to whoever asked for it by the connection it was asked on: :class:`Forked` answers like
:class:`subprocess.Popen` (``pid``, ``poll``, ``wait``, signals) from what the zygote says there, and when that
connection closes first (its asker ended, however) the zygote kills the child's group. The zygote ends, killing any
child left, when the process that started it closes it or ends. Only that process's user can ask: the socket lies in
a folder only that user may enter.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

#: How long the zygote's imports may take, and how long it may take to answer a request, before it counts as failed.
START_SECONDS = 120
ASK_SECONDS = 10


class Forked:
    """A child of the zygote, seen from the process that asked for it: the parts of :class:`subprocess.Popen`
    ``jupyter_client`` uses. Its exit code (negative: the signal that ended it) is what the zygote reaped."""

    stdin = stdout = stderr = None

    def __init__(self, connection: socket.socket, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._connection = connection
        self._said = b""

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
            except TimeoutError:
                raise subprocess.TimeoutExpired(f"forked child {self.pid}", timeout or 0) from None
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
        self._said, line = _line(self._connection, self._said, flags)
        # Nothing said and the connection closed: the zygote was killed, and its children with it.
        self.returncode = json.loads(line)["exit"] if line else -signal.SIGKILL
        self._connection.close()


class Zygote:
    """A running zygote that has run the script ``prepare`` (whose imports are what its children share), with the
    environment of the process that started it. As a context manager it is the one :func:`running` gives, in this
    process and in those it forks, until the block ends and it is closed."""

    def __init__(self, prepare: Path) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="probe-lib-zygote-"))  # mode 0700: this user's alone
        self.address = self._folder / "socket"
        self.environment = dict(os.environ)
        ready, told = os.pipe()
        command = [sys.executable, "-m", __name__, str(self.address), str(told), str(prepare)]
        try:
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, pass_fds=(told,))
        except BaseException:
            self._folder.rmdir()
            raise
        finally:
            os.close(told)
        self.pid = self._process.pid
        with os.fdopen(ready, "rb") as said:  # a line once it listens, after its imports; nothing if it failed
            try:
                started = said.readline() == b"ready\n"
            except BaseException:  # Ctrl-C while it prepares
                self.close()
                raise
        if not started:
            self.close()
            raise RuntimeError(f"the zygote running {prepare.name} failed (exit code {self._process.poll()})")

    def spawn(self, module: str, argv: Sequence[str], env: Mapping[str, str], cwd: str | os.PathLike[str]) -> Forked:
        """A child that runs ``module`` as ``python -m module *argv`` would, with ``env`` in ``cwd``."""
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.settimeout(ASK_SECONDS)
            connection.connect(str(self.address))
            request = {"module": module, "argv": list(argv), "env": dict(env), "cwd": os.fspath(cwd)}
            connection.sendall(json.dumps(request).encode() + b"\n")
            said, line = _line(connection, b"")
            connection.settimeout(None)
            forked = Forked(connection, json.loads(line)["pid"])
            forked._said = said  # the exit, when the child ended at once
            return forked
        except BaseException:
            connection.close()
            raise

    def close(self) -> None:
        """End the zygote and remove its socket. A word on its input ends it: the processes forked from this one
        hold that input open too."""
        with contextlib.suppress(OSError):
            self._process.stdin.write(b"end\n")  # type: ignore[union-attr]
            self._process.stdin.close()  # type: ignore[union-attr]
        try:
            self._process.wait(ASK_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
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


def _line(connection: socket.socket, said: bytes, flags: int = 0) -> tuple[bytes, bytes]:
    """``(what is left, the next line)`` read from ``connection`` after ``said``; the line is empty when the
    connection closed first. With ``MSG_DONTWAIT``, raises :class:`BlockingIOError` when no whole line is there."""
    while b"\n" not in said:
        chunk = connection.recv(65536, flags)
        if not chunk:
            return b"", b""
        said += chunk
    line, _, rest = said.partition(b"\n")
    return rest, line


# The zygote's side.


def _serve(listener: socket.socket) -> None:
    """Fork a child per request until standard input closes; tell each asker its child's pid, then its exit code;
    kill a child's group when its asker's connection closes first."""
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "ask")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "owner")  # a word, or closed by all who hold it
    selector.register(os.pidfd_open(os.getppid()), selectors.EVENT_READ, "owner")  # or the owner is gone
    askers: dict[int, socket.socket] = {}  # child's pid -> the connection it was asked on
    while True:
        for key, _ in selector.select():
            if key.data == "owner":
                for pid in askers:
                    _kill_group(pid)
                return
            if key.data == "ask":
                connection, _ = listener.accept()
                pid = _fork(connection, [listener, *askers.values()], selector)
                askers[pid] = connection
                selector.register(os.pidfd_open(pid), selectors.EVENT_READ, ("ended", pid))
                selector.register(connection, selectors.EVENT_READ, ("left", pid))
                continue
            what, pid = key.data
            selector.unregister(key.fileobj)
            if what == "left":  # the asker closed its end (it never writes again): its child goes too
                _kill_group(pid)
                continue
            os.close(key.fd)
            _, status = os.waitpid(pid, 0)
            connection = askers.pop(pid)
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            with contextlib.suppress(KeyError):
                selector.unregister(connection)
            connection.close()


def _kill_group(pid: int) -> None:
    """Kill a child (not reaped yet, so its pid is still its own) and the group it leads, if it has made it yet."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _fork(connection: socket.socket, others: list[socket.socket], selector: selectors.BaseSelector) -> int:
    """Read a request from ``connection`` and fork its child, answering its pid; the child never returns."""
    connection.settimeout(ASK_SECONDS)
    _, line = _line(connection, b"")
    connection.settimeout(None)
    request = json.loads(line)
    pid = os.fork()
    if pid:
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        return pid
    code = 1
    try:
        for key in selector.get_map().values():  # the other children's ends are the zygote's alone
            if isinstance(key.fileobj, int) and key.fd != sys.stdin.fileno():
                os.close(key.fd)
        for held in (connection, *others):
            held.close()
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ["JPY_PARENT_PID"] = str(os.getppid())  # ipykernel's poller: end if the zygote ends
        sys.path[0] = os.getcwd()  # as `python -m` sets it
        sys.argv = ["-m", *request["argv"]]
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as ended:
        code = ended.code if isinstance(ended.code, int) else int(ended.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _main(address: str, told: int, prepare: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is its owner's to handle; the zygote ends with it
    runpy.run_path(prepare, run_name="__zygote__")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    os.write(told, b"ready\n")
    os.close(told)
    _serve(listener)


if __name__ == "__main__":
    _main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
