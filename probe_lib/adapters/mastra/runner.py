"""Run scenarios on the real ``@mastra/core``: Node runners per version (pinned or served), against the capture server.

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
from typing import Iterable, Sequence

from probe_lib import wire
from probe_lib.adapters import npm
from probe_lib.adapters.mastra import versions
from probe_lib.capture import Capture, CaptureServer
from probe_lib.core import paths
from probe_lib.core.errors import HarnessError, InputError, StateError, WorkersFailed
from probe_lib.core.outcome import Failure, Outcome
from probe_lib.core.scenarios import Scenario

FRAMEWORK = "mastra"
RESULT_MARK = "\x1eRESULT "
COLLISION_ID = "AGENT_TOOL_NAME_COLLISION"
_COLLISION_TEXT = "Two or more tools resolve to the same name "
#: The error name runner.cjs gives a scenario its version cannot express (a built-in it lacks, no Agent at all, ...).
NOT_APPLICABLE = "NotApplicable"


def classify(error: Sequence[dict], sent_requests: bool) -> Failure | None:
    """Mastra's error chain, judged once: a tool-name collision, a scenario this version cannot express, or a crash.

    A turn that sent its requests and then stopped on the capture server's scripted error has no failure.
    """
    for link in error:
        details = link.get("details") or {}
        is_collision = link.get("id") == COLLISION_ID or link.get("message", "").startswith(_COLLISION_TEXT)
        if is_collision and details.get("toolName") is not None:
            return Failure("collision", link["message"], details["toolName"])
    missing = next((link["message"] for link in error if link.get("name") == NOT_APPLICABLE), None)
    if missing is not None:
        return Failure("not applicable", missing)
    if not sent_requests:
        return Failure("crash", error[-1]["message"] if error else "no request was sent and no error was raised")
    return None


class Runner:
    """One long-lived Node process running scenarios against one ``@mastra/core`` version (installed on first use)."""

    def __init__(self, version: str, *, concurrency: int = 16) -> None:
        self.version = versions.check(version)
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
            npm.node_executable(),
            str(paths.HARNESS / "runner.cjs"),
            str(versions.modules_dir(self.version)),
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
        if self._process is None or self._process.stdin is None:
            raise StateError("the runner is not started: use it as a context manager, or call start() first")
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
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise WorkersFailed(errors)
    return [_outcome(scenario, version, reports[scenario_id], server.take(scenario_id)) for scenario_id, scenario in zip(ids, scenarios)]


def _outcome(scenario: Scenario, version: str, report: dict, captures: list[Capture]) -> Outcome:
    observed = report.get("observed") or {}
    calls = [capture for capture in captures if capture.wire is not None and isinstance(capture.body, dict)]
    error = tuple(report.get("error") or ())
    return Outcome(
        scenario=scenario,
        framework=FRAMEWORK,
        version=version,
        requests=tuple(capture.body for capture in calls),
        error=error,
        executions=tuple(report.get("executions") or ()),
        tool_names=tuple(observed.get("toolNames") or ()),
        result_tool_names=tuple(observed.get("resultToolNames") or ()),
        keys_after=tuple(report.get("keysAfter") or ()),
        ids_before=tuple(report.get("idsBefore") or ()),
        ids_after=tuple(report.get("idsAfter") or ()),
        mapping=report.get("mapping"),
        stream_errors=tuple(tuple(chain) for chain in observed.get("streamErrors") or ()),
        text=observed.get("text"),
        failure=classify(error, bool(calls)),
        wire=calls[0].wire if calls else wire.CHAT_COMPLETIONS.name,
        unrouted=tuple({"method": c.method, "path": c.path, "status": c.status} for c in captures if c.wire is None),
        elapsed_ms=report.get("elapsedMs", 0.0),
    )


def format_records(records: Sequence[Sequence[str]], version: str) -> list[dict]:
    """The real ``Agent.formatTools`` on many records in one Node process (function level, no request)."""
    with Runner(version) as runner:
        return runner.format(records)
