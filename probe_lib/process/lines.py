"""A long-lived child process that takes JSON requests on stdin and answers JSON results on stdout, with a watchdog.

Every framework harness (Node or Python, Mastra's included) speaks the same protocol: one JSON object per line in,
each carrying an ``id``; one ``RESULT_MARK``-prefixed JSON line out per request, carrying the same ``id`` (a first
``{"ready": …}`` line says the framework has loaded). Anything else the framework prints is ignored, and stderr is
drained into a short tail. No wait is unbounded: a child that says nothing for ``timeout`` seconds is killed and
reported as a ``HarnessError`` that quotes its "last words" (exit status or signal, last stderr lines). Every result
received stays readable in ``finished`` after a failure, so a broken batch keeps what did finish.
"""

from __future__ import annotations

import collections
import json
import queue
import signal
import subprocess
import threading
from collections.abc import Sequence
from contextlib import suppress

from probe_lib.core.errors import HarnessError, StateError

RESULT_MARK = "\x1eRESULT "
#: How long a dead child's stderr is read on after its exit, for its last words (a process it started may hold it).
_DRAIN_SECONDS = 10
#: How many of a dead child's last stderr lines its error quotes.
_LAST_WORDS_LINES = 3


class LinesChild:
    """One child process speaking the JSON-lines protocol; use it as a context manager.

    ``label`` names the child in error messages (``"@mastra/core 1.67.0"``, ``"openai 1.2.3"``).
    """

    def __init__(self, command: Sequence[str], label: str, *, ready_timeout: float = 120.0) -> None:
        self.command = list(command)
        self.label = label
        self.ready_timeout = ready_timeout
        self.ready: dict = {}
        #: Every result received, by id; still readable after the child failed, so a batch keeps them.
        self.finished: dict[str, dict] = {}
        self._process: subprocess.Popen[str] | None = None
        self._results: queue.Queue[dict | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        self._stderr_drained = threading.Event()

    def __enter__(self) -> LinesChild:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The child's process id while it is started (what a caller signals or watches), else ``None``."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start the child and wait for its ready line; a child that fails to get ready is closed, not left behind."""
        self._process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="surrogateescape",
            bufsize=1,
        )
        threading.Thread(target=self._read_results, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        try:
            self.ready = self.next_result(timeout=self.ready_timeout)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._process is None:
            return
        with suppress(OSError):  # a dead child's pipe is broken; there is nothing left to flush
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def exchange(self, requests: Sequence[dict], *, timeout: float) -> dict[str, dict]:
        """Send ``requests``; return the child's results by id. ``timeout`` bounds the wait for each next result."""
        if self._process is None or self._process.stdin is None:
            raise StateError(f"the {self.label} runner is not started: use it as a context manager, or call start()")
        writer = threading.Thread(target=self._send_all, args=(requests,), daemon=True)
        writer.start()
        results: dict[str, dict] = {}
        try:
            while len(results) < len(requests):
                result = self.next_result(timeout=timeout)
                results[result["id"]] = self.finished[result["id"]] = result
        except BaseException:
            # Killed first (the watchdog, or any other failure): a writer blocked on the full pipe of a child that
            # stopped reading is freed by it, and close() cannot then hang flushing into that pipe.
            self.kill()
            raise
        writer.join()
        return results

    def send(self, request: dict) -> bool:
        """Write one request line; ``False`` when the child takes no more (it died or was closed: the reader of its
        results says why)."""
        process = self._process
        if process is None:
            return False
        try:
            process.stdin.write(json.dumps(request, ensure_ascii=True) + "\n")  # ASCII escapes keep lone surrogates
            process.stdin.flush()
        except (OSError, ValueError):  # a broken pipe (it died), or its stdin closed
            return False
        return True

    def _send_all(self, requests: Sequence[dict]) -> None:
        for request in requests:
            if not self.send(request):
                return

    def next_result(self, *, timeout: float) -> dict:
        """The next result the child sends, waiting at most ``timeout`` seconds; a child that sends none in that
        time, or exits, raises ``HarnessError`` quoting its last words (``kill()`` a stalled one)."""
        try:
            result = self._results.get(timeout=timeout)
        except queue.Empty:
            raise HarnessError(
                f"{self.label} runner gave no result for {timeout:.0f} s, so it was stopped ({self._last_words()})"
            ) from None
        if result is None:
            with suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)  # its exit status says how it died
            # Its last words may still be in the pipe when its exit is seen (a loaded machine, or a process it left
            # holding stderr): read them to the end first, bounded in case that process lives on.
            self._stderr_drained.wait(timeout=_DRAIN_SECONDS)
            raise HarnessError(f"{self.label} runner exited ({self._last_words()})")
        return result

    def kill(self) -> None:
        """Kill the child now (it stalled, or its batch was given up); this frees a writer blocked on its full
        pipe. ``close()`` still reaps it."""
        process = self._process
        if process is not None:
            process.kill()

    @property
    def stderr_tail(self) -> tuple[str, ...]:
        """The last lines (up to 40) the child wrote on stderr, kept after it died: what a caller reads to name a
        known way of dying (V8 at its heap cap, say)."""
        return tuple(self._stderr)

    def _last_words(self) -> str:
        """How the process ended (if it has) and the last lines it wrote on stderr, on one line."""
        code = self._process.poll()
        status = [] if code is None else [f"exit status {code}" if code >= 0 else f"killed by {_signal_name(-code)}"]
        tail = [line.strip() for line in self._stderr if line.strip()][-_LAST_WORDS_LINES:]
        words = " | ".join(tail)[-300:]
        return "; ".join(status + [f"last stderr: {words}" if words else "no stderr output"])

    def _read_results(self) -> None:
        for line in self._process.stdout:
            if line.startswith(RESULT_MARK):
                try:
                    result = json.loads(line[len(RESULT_MARK) :])
                except ValueError:  # cut short: the child died writing it, which the None below reports
                    self._stderr.append(f"(its last result line was cut short after {len(line):,} characters)")
                    break
                self._results.put(result)
        self._results.put(None)

    def _drain_stderr(self) -> None:
        try:
            for line in self._process.stderr:  # frameworks log failed turns; an undrained pipe would block the child
                self._stderr.append(line.rstrip())
        finally:
            self._stderr_drained.set()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
