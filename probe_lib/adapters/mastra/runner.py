"""Run scenarios on the real ``@mastra/core``: Node runners per pinned version, against the capture server.

``run(scenarios, version)`` is the whole instrument: it scripts the capture server for each scenario, sends the
batch to long-lived Node processes (``harness/runner.cjs``; one per worker, each running many scenarios at once),
and joins each runner's report with the request bodies the server captured for that scenario.
"""

from __future__ import annotations

import collections
import json
import queue
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from probe_lib.adapters import install
from probe_lib.capture import CaptureServer
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.scenarios import Scenario
from probe_lib.providers import lint

RESULT_MARK = "\x1eRESULT "
COLLISION_ID = "AGENT_TOOL_NAME_COLLISION"
_COLLISION_TEXT = "Two or more tools resolve to the same name "
#: What runner.cjs says when a scenario asks for a built-in tool its @mastra/core version does not export.
_MISSING_BUILTIN_TEXT = "does not export the built-in tool"


class HarnessError(RuntimeError):
    """The Node runner itself failed (not a scenario inside it); the message carries its last stderr lines."""


@dataclass(frozen=True)
class Outcome:
    """What one scenario did on one ``@mastra/core`` version, as measured."""

    scenario: Scenario
    version: str
    #: JSON bodies of the chat-completions requests Mastra sent, in arrival order.
    requests: tuple[dict, ...]
    #: The error ``generate()``/``stream()`` raised and its ``cause`` chain, outermost first (empty: none).
    error: tuple[dict, ...]
    #: Tool executions: ``{"key", "id", "args"}`` for each time a probe tool's ``execute`` ran.
    executions: tuple[dict, ...]
    #: ``toolName`` of each tool call / tool result the result or stream reported.
    tool_names: tuple[str, ...]
    result_tool_names: tuple[str, ...]
    #: The caller's tools record after the turn: its keys and its tools' ids (before and after).
    keys_after: tuple[str, ...]
    ids_before: tuple[str, ...]
    ids_after: tuple[str, ...]
    #: key -> safe name, when the scenario applied the boundary normaliser.
    mapping: dict[str, str] | None = None
    stream_errors: tuple[tuple[dict, ...], ...] = ()
    text: str | None = None
    elapsed_ms: float = field(default=0.0, compare=False)

    @property
    def wire_names(self) -> list[str] | None:
        """Tool names in the first request's ``tools`` list (``[]`` when it sent none; ``None``: no request)."""
        if not self.requests:
            return None
        return [_tool_name(tool) for tool in self.requests[0].get("tools") or []]

    @property
    def tool_choice(self) -> object:
        """``tool_choice`` exactly as the first request sent it (``None`` when absent or no request)."""
        return self.requests[0].get("tool_choice") if self.requests else None

    @property
    def forced_name(self) -> str | None:
        """The function the first request's ``tool_choice`` forces (``None``: no request, or no tool named)."""
        return lint.forced_name(self.requests[0]) if self.requests else None

    @property
    def tool_replies(self) -> list[dict]:
        """The ``role: "tool"`` messages of the follow-up (second) request; ``[]`` when none was sent."""
        if len(self.requests) < 2:
            return []
        return [message for message in self.requests[1]["messages"] if message.get("role") == "tool"]

    @property
    def lacks_builtins(self) -> bool:
        """True when the scenario could not run because this version exports no such built-in tool."""
        return any(_MISSING_BUILTIN_TEXT in link["message"] for link in self.error)

    @property
    def error_ids(self) -> list[str]:
        return [link["id"] for link in self.error if link.get("id")]

    @property
    def collision_name(self) -> str | None:
        """The name of an ``AGENT_TOOL_NAME_COLLISION`` anywhere in the error chain."""
        for link in self.error:
            details = link.get("details") or {}
            if link.get("id") == COLLISION_ID or link.get("message", "").startswith(_COLLISION_TEXT):
                if details.get("toolName") is not None:
                    return details["toolName"]
        return None

    def result_json(self) -> dict:
        """The ``normalise --json`` shape, measured: names on the wire (plus ``tool_choice``), or the error."""
        name = self.collision_name
        if name is not None:
            return {"error": {"kind": "collision", "name": name}}
        if self.requests:
            return {"names": self.wire_names, "tool_choice": self.tool_choice}
        innermost = self.error[-1]["message"] if self.error else "no request was sent and no error was raised"
        return {"error": {"kind": "crash", "message": innermost}}


def _tool_name(tool: dict) -> str:
    """A tool's name in Chat Completions (``function.name``) or Responses (``name``) shape."""
    return tool["function"]["name"] if "function" in tool else tool["name"]


class Runner:
    """One long-lived Node process running scenarios against one pinned ``@mastra/core`` version."""

    def __init__(self, version: str, *, concurrency: int = 16) -> None:
        self.version = install.check_version(version)
        self.concurrency = concurrency
        self._process: subprocess.Popen[str] | None = None
        self._results: queue.Queue[dict | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)

    def __enter__(self) -> Runner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        command = [
            install.node_executable(),
            str(paths.HARNESS / "runner.cjs"),
            str(install.modules_dir()),
            self.version,
            str(self.concurrency),
        ]
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="surrogateescape", bufsize=1,
        )
        threading.Thread(target=self._read_results, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self._next(timeout=60.0)  # the runner's "ready" line: @mastra/core has loaded

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
        """Send scenario (or ``format``) requests; return the runner's results by id."""
        assert self._process is not None and self._process.stdin is not None, "start() the runner first"
        writer = threading.Thread(target=self._write, args=(requests,), daemon=True)
        writer.start()
        results: dict[str, dict] = {}
        while len(results) < len(requests):
            result = self._next(timeout=timeout)
            results[result["id"]] = result
        writer.join()
        return results

    def format(self, records: Sequence[Sequence[str]]) -> list[dict]:
        """The real ``Agent.formatTools`` on each record, without a request: ``names`` or ``error`` per record."""
        reply = self.exchange([{"op": "format", "id": "format", "records": [list(keys) for keys in records]}], timeout=600)
        return reply["format"]["results"]

    def turn(self, scenario: Scenario, server: CaptureServer, scenario_id: str) -> Outcome:
        """One scenario on this (already started, warm) runner, captured by ``server`` under ``scenario_id``."""
        server.script(scenario_id, scenario.replies)
        request = {**scenario.to_json(server.scenario_url(scenario_id)), "id": scenario_id}
        report = self.exchange([request], timeout=scenario.timeout_ms / 1000 + 30)[scenario_id]
        return _outcome(scenario, self.version, report, server.take(scenario_id))

    def _write(self, requests: Sequence[dict]) -> None:
        stdin = self._process.stdin
        for request in requests:
            stdin.write(json.dumps(request, ensure_ascii=True) + "\n")  # ASCII escapes keep lone surrogates intact
        stdin.flush()

    def _next(self, *, timeout: float) -> dict:
        try:
            result = self._results.get(timeout=timeout)
        except queue.Empty:
            raise HarnessError(f"@mastra/core {self.version} runner gave no result for {timeout:.0f} s") from None
        if result is None:
            raise HarnessError(f"@mastra/core {self.version} runner exited: " + " | ".join(self._stderr)[-2000:])
        return result

    def _read_results(self) -> None:
        for line in self._process.stdout:
            if line.startswith(RESULT_MARK):
                self._results.put(json.loads(line[len(RESULT_MARK):]))
        self._results.put(None)

    def _drain_stderr(self) -> None:
        for line in self._process.stderr:  # Mastra logs every failed turn; an undrained pipe would block Node
            self._stderr.append(line.rstrip())


def run(
    scenarios: Iterable[Scenario],
    version: str,
    *,
    server: CaptureServer | None = None,
    workers: int = 1,
    concurrency: int = 16,
) -> list[Outcome]:
    """Run ``scenarios`` on ``version`` and return one ``Outcome`` each, in the given order.

    ``workers`` Node processes share the batch (Mastra's ``generate()`` costs ~13 ms of CPU, so one process
    tops out near 75 turns/s); each runs ``concurrency`` turns at once. A scenario that throws or hangs is an
    ``Outcome`` with its error, never a failed batch.
    """
    scenarios = list(scenarios)
    names = [scenario.name for scenario in scenarios]
    if len(set(names)) != len(names):
        raise InputError("scenario names must be unique within one run")
    if server is None:
        with CaptureServer() as own_server:
            return run(scenarios, version, server=own_server, workers=workers, concurrency=concurrency)
    ids = [f"{version}-{index}" for index in range(len(scenarios))]
    for scenario_id, scenario in zip(ids, scenarios):
        server.script(scenario_id, scenario.replies)
    requests = [
        {**scenario.to_json(server.scenario_url(scenario_id)), "id": scenario_id}
        for scenario_id, scenario in zip(ids, scenarios)
    ]
    timeout = max((scenario.timeout_ms for scenario in scenarios), default=10_000) / 1000 + 30
    shares = [requests[worker::workers] for worker in range(workers)]
    reports: dict[str, dict] = {}
    errors: list[BaseException] = []

    def run_share(share: list[dict]) -> None:
        try:
            with Runner(version, concurrency=concurrency) as runner:
                reports.update(runner.exchange(share, timeout=timeout))
        except BaseException as error:  # re-raised below, in the caller's thread
            errors.append(error)

    threads = [threading.Thread(target=run_share, args=(share,)) for share in shares if share]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [_outcome(scenario, version, reports[scenario_id], server.take(scenario_id)) for scenario_id, scenario in zip(ids, scenarios)]


def _outcome(scenario: Scenario, version: str, report: dict, captures: list) -> Outcome:
    observed = report.get("observed") or {}
    chat = [capture.body for capture in captures if capture.path.endswith("/chat/completions") and isinstance(capture.body, dict)]
    return Outcome(
        scenario=scenario,
        version=version,
        requests=tuple(chat),
        error=tuple(report.get("error") or ()),
        executions=tuple(report.get("executions") or ()),
        tool_names=tuple(observed.get("toolNames") or ()),
        result_tool_names=tuple(observed.get("resultToolNames") or ()),
        keys_after=tuple(report.get("keysAfter") or ()),
        ids_before=tuple(report.get("idsBefore") or ()),
        ids_after=tuple(report.get("idsAfter") or ()),
        mapping=report.get("mapping"),
        stream_errors=tuple(tuple(chain) for chain in observed.get("streamErrors") or ()),
        text=observed.get("text"),
        elapsed_ms=report.get("elapsedMs", 0.0),
    )


def format_records(records: Sequence[Sequence[str]], version: str) -> list[dict]:
    """The real ``Agent.formatTools`` on many records in one Node process (function level, no request)."""
    with Runner(version) as runner:
        return runner.format(records)
