"""Warm runners for one scenario at a time (the explorer runs each edit of its keys): one capture server, and one
adapter session (:meth:`~probe_lib.frameworks.base.Adapter.session`) per target, started on its first run and kept,
since starting a runner costs a second or more; a runner that fails is replaced on the next run.

Whoever makes a pool closes it (:meth:`SessionPool.close`, or ``contextlib.closing``); one still open when it is
collected or the process ends is closed by its own finalizer, so no runner outlives the kernel that started it.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import ExitStack

from probe_lib.capture import CaptureServer
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.core.target import Target
from probe_lib.frameworks import base as registry
from probe_lib.frameworks.base import Session


class SessionPool:
    """Runs serialised through warm sessions (a runner serves one batch at a time), started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[Target, Session] = {}
        self._server: CaptureServer | None = None
        self._open: ExitStack | None = None
        #: Closes ``_open`` once: on :meth:`close`, when the pool is collected, or at exit.
        self._closer: weakref.finalize | None = None

    def run(self, target: Target, scenario: Scenario) -> Outcome:
        """The outcome of ``scenario`` on ``target``, through the pool's capture server."""
        with self._lock:
            if self._open is None:
                self._open = ExitStack()
                self._closer = weakref.finalize(self, self._open.close)  # holds the stack, not the pool
            if self._server is None:
                self._server = self._open.enter_context(CaptureServer())
            session = self._sessions.get(target)
            if session is None:
                adapter = registry.get(target.framework)
                session = self._sessions[target] = self._open.enter_context(adapter.session(target.version))
            return session.run([scenario], self._server)[0]

    def running(self) -> list[Target]:
        """Targets with a warm session (read without the lock, which a run holds: ``dict.copy`` is atomic)."""
        return list(self._sessions.copy())

    def close(self) -> None:
        """Stop every runner and the capture server; a later run starts them again."""
        with self._lock:
            if self._closer is not None:
                self._closer()
            self._open = self._closer = self._server = None
            self._sessions.clear()
