"""A long-lived child process that takes JSON requests on stdin and answers JSON results on stdout, with a watchdog.

Every framework harness (Node or Python) speaks the same protocol: one JSON object per line in, each carrying an
``id``; one ``RESULT_MARK``-prefixed JSON line out per request, carrying the same ``id`` (a first ``{"ready": …}``
line says the framework has loaded). Anything else the framework prints is ignored, and stderr is drained into a
short tail that error messages quote. No wait is unbounded: a child that says nothing for ``timeout`` seconds is
killed and reported as a ``HarnessError``.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import threading
from typing import Mapping, Sequence

from probe_lib.core.errors import HarnessError, StateError

RESULT_MARK = "\x1eRESULT "


class LinesChild:
    """One child process speaking the JSON-lines protocol; use it as a context manager."""

    def __init__(
        self, command: Sequence[str], label: str, *, env: Mapping[str, str] | None = None, ready_timeout: float = 120.0
    ) -> None:
        self.command = list(command)
        self.label = label
        self.env = dict(env or {})
        self.ready_timeout = ready_timeout
        self.ready: dict = {}
        self._process: subprocess.Popen[str] | None = None
        self._results: queue.Queue[dict | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)

    def __enter__(self) -> LinesChild:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self._process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="surrogateescape", bufsize=1, env={**os.environ, **self.env},
        )
        threading.Thread(target=self._read_results, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.ready = self._next(timeout=self.ready_timeout)

    def close(self) -> None:
        if self._process is None:
            return
        if self._process.stdin:
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
            raise StateError(f"the {self.label} runner is not started: use it as a context manager")
        writer = threading.Thread(target=self._write, args=(requests,), daemon=True)
        writer.start()
        results: dict[str, dict] = {}
        try:
            while len(results) < len(requests):
                result = self._next(timeout=timeout)
                results[result["id"]] = result
        except HarnessError:
            self._process.kill()  # the watchdog: a silent child is ended, never waited on forever
            raise
        writer.join()
        return results

    def _write(self, requests: Sequence[dict]) -> None:
        stdin = self._process.stdin
        try:
            for request in requests:
                stdin.write(json.dumps(request, ensure_ascii=True) + "\n")  # ASCII escapes keep lone surrogates
            stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the child died; _next reports it with its stderr

    def _next(self, *, timeout: float) -> dict:
        try:
            result = self._results.get(timeout=timeout)
        except queue.Empty:
            raise HarnessError(f"{self.label} runner gave no result for {timeout:.0f} s") from None
        if result is None:
            raise HarnessError(f"{self.label} runner exited: " + " | ".join(self._stderr)[-2000:])
        return result

    def _read_results(self) -> None:
        for line in self._process.stdout:
            if line.startswith(RESULT_MARK):
                self._results.put(json.loads(line[len(RESULT_MARK):]))
        self._results.put(None)

    def _drain_stderr(self) -> None:
        for line in self._process.stderr:  # frameworks log failed turns; an undrained pipe would block the child
            self._stderr.append(line.rstrip())
