"""The capture server's memory, without sockets: each scenario's scripted replies, and every request it recorded.

A :class:`RecordStore` is what :class:`~probe_lib.capture.server.CaptureServer` serves over HTTP, usable (and
tested) on its own: :meth:`~RecordStore.script` a scenario's replies, :meth:`~RecordStore.commit` each request as
it arrives (a model call takes the scenario's next reply), then read the records back with
:meth:`~RecordStore.records` or :meth:`~RecordStore.take`. Records are kept in arrival order, with secret headers
redacted (:mod:`probe_lib.core.credentials`: headers and URL parameters); it is safe to use from several
threads.
"""

from __future__ import annotations

import dataclasses
import heapq
import json
import os
import re
import stat
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from probe_lib.core import credentials
from probe_lib.core.errors import StoreFailed
from probe_lib.wire.replies import DEFAULT_REPLY, ErrorReply, Reply, TextReply, ToolCallsReply

#: Headers dropped as noise: ``host`` carries the ephemeral port, which changes every run.
DROPPED_HEADERS = frozenset({"host"})
#: Scenario ids travel in URL paths, so they are limited to characters no client re-encodes or resolves
#: (a leading ``.`` would let ``.`` and ``..`` be collapsed by a URL parser).
SCENARIO_ID = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9._~-]*")


@dataclass(frozen=True)
class Capture:
    """One request as the server received it.

    ``body`` is the parsed JSON, or ``None`` when there was none, it was not JSON (then ``raw`` holds the text,
    cut at the server's ``RAW_LIMIT`` characters) or it was too large (then ``raw`` is ``None`` too). ``status``
    is the HTTP status the server answered with.
    """

    seq: int
    scenario: str
    method: str
    path: str
    headers: dict[str, str]
    body: object | None
    raw: str | None
    status: int
    #: The wire format of a model call (``chat-completions`` …), ``None`` for a request on any other route.
    wire: str | None = None

    def to_json(self) -> dict:
        """The record as a JSON object, the body shared, not copied (``dataclasses.asdict`` copies it recursively,
        which fails on a body nested a few hundred levels deep)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


@dataclass
class _Scenario:
    records: list[Capture] = field(default_factory=list)
    replies: deque[Reply] = field(default_factory=deque)
    #: Which model-call bodies take a scripted reply (``None``: every one); the others get ``DEFAULT_REPLY``.
    answers: Callable[[object], bool] | None = None
    completions: int = 0


def check_scenario_id(scenario_id: str) -> str:
    """Return ``scenario_id`` if it can stand in a URL path unchanged, else raise ``ValueError``."""
    if not isinstance(scenario_id, str) or not SCENARIO_ID.fullmatch(scenario_id):
        raise ValueError(
            f"scenario id {scenario_id!r} must be letters, digits, '_', '-', '~' or '.', not starting with '.'"
        )
    return scenario_id


def clean_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers as recorded: names lower-cased, repeats joined, credentials redacted, ``host`` dropped."""
    cleaned: dict[str, str] = {}
    for name, value in headers:
        name = name.lower()
        if name in DROPPED_HEADERS:
            continue
        if name in credentials.HEADERS:
            value = credentials.MARK
        cleaned[name] = f"{cleaned[name]}, {value}" if name in cleaned else value
    return cleaned


class RecordStore:
    """Scripted replies and records, per scenario.

    Args:
        on_record: called with each new record, in order, on the thread that committed it (the CLI writes JSON
            lines). An ``OSError`` from it (a full disk) fails the store: that commit and every later one raise
            :class:`~probe_lib.core.errors.StoreFailed`, so no record after a lost one is written.
        keep_records: ``False`` hands each record only to ``on_record`` and keeps none, so memory stays bounded
            however long the store is used (``records()`` and ``take()`` then return nothing).
    """

    def __init__(self, *, on_record: Callable[[Capture], None] | None = None, keep_records: bool = True) -> None:
        self._on_record = on_record
        self._keep_records = keep_records
        self._lock = threading.Lock()
        self._scenarios: dict[str, _Scenario] = {}
        self._seq = 0
        self._failure: StoreFailed | None = None

    @property
    def failure(self) -> StoreFailed | None:
        """Why the store stopped taking records (``on_record`` raised ``OSError``), or ``None`` while it works."""
        return self._failure

    def script(
        self, scenario_id: str, replies: Iterable[Reply], *, answers: Callable[[object], bool] | None = None
    ) -> None:
        """Set the replies the scenario's next model calls get, one each, in order (replacing any left).

        ``answers`` picks the model calls that take them by their parsed body (default: every one); any other gets
        ``DEFAULT_REPLY``, so calls a framework makes of its own (the old Claude CLI's warmups, arriving in any
        order) cannot take a reply scripted for the turn.
        """
        queue = deque(replies)
        for reply in queue:
            if not isinstance(reply, (ErrorReply, ToolCallsReply, TextReply)):
                raise TypeError(f"{reply!r} is not an ErrorReply, ToolCallsReply or TextReply")
        with self._lock:
            state = self._scenarios.setdefault(check_scenario_id(scenario_id), _Scenario())
            state.replies, state.answers = queue, answers

    def records(self, scenario: str | None = None) -> list[Capture]:
        """A copy of the records of one scenario, or of all, in arrival order."""
        with self._lock:
            if scenario is not None:
                state = self._scenarios.get(scenario)
                return list(state.records) if state else []
            lists = [state.records for state in self._scenarios.values()]
            return list(heapq.merge(*lists, key=lambda capture: capture.seq))

    def take(self, scenario: str) -> list[Capture]:
        """Return the scenario's records and forget them with its script, so long batches stay small in memory."""
        with self._lock:
            state = self._scenarios.pop(scenario, None)
        return state.records if state else []

    def commit(
        self,
        scenario: str,
        method: str,
        path: str,
        headers: Iterable[tuple[str, str]],
        body: object | None,
        raw: str | None,
        status: int | None,
        wire: str | None,
    ) -> tuple[Capture, Reply | None, int]:
        """Record a request answered with ``status``; ``status=None`` marks a model call, answered by the
        scenario's next scripted reply (``DEFAULT_REPLY`` once none is left), whose status is recorded.

        Returns the record, the reply (for a model call) and the scenario's count of model calls so far. Raises
        :class:`~probe_lib.core.errors.StoreFailed` once ``on_record`` has failed.
        """
        reply: Reply | None = None
        with self._lock:
            if self._failure is not None:
                raise self._failure
            state = self._scenarios.setdefault(scenario, _Scenario())
            if status is None:
                answered = state.replies and (state.answers is None or state.answers(body))
                reply = state.replies.popleft() if answered else DEFAULT_REPLY
                state.completions += 1
                status = reply.status if isinstance(reply, ErrorReply) else 200
            capture = Capture(
                self._seq, scenario, method, credentials.path(path), clean_headers(headers), body, raw, status, wire
            )
            self._seq += 1
            if self._keep_records:
                state.records.append(capture)
            completions = state.completions
        if self._on_record is not None:
            try:
                self._on_record(capture)
            except OSError as error:
                with self._lock:
                    self._failure = StoreFailed(f"record {capture.seq} could not be written: {error.strerror or error}")
                raise self._failure from error
        return capture, reply, completions


class JsonLines:
    """An ``on_record`` that appends each record to an open file descriptor as one JSON line, whole or not at all.

    A write cut short (a full disk) is truncated back to the end of the last whole line before its ``OSError``
    is raised, so a regular file holds only whole records; a pipe keeps what it was sent.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        #: Records written whole so far.
        self.written = 0

    def __call__(self, capture: Capture) -> None:
        # backslashreplace: a lone surrogate in a body is written as its \u escape, so the line stays JSON
        line = (json.dumps(capture.to_json(), ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")
        info = os.fstat(self._fd)
        start = info.st_size if stat.S_ISREG(info.st_mode) else None
        unwritten = memoryview(line)
        try:
            while unwritten:
                unwritten = unwritten[os.write(self._fd, unwritten) :]
        except OSError:
            if start is not None:
                os.ftruncate(self._fd, start)
            raise
        self.written += 1
