"""Run scenarios on the real ``@mastra/core``: Node runners per version (pinned or served), against the capture server.

``run(scenarios, version)`` is the whole instrument: it scripts the capture server for each scenario, sends the
batch to long-lived Node processes (``harness/runner.cjs``; one per worker, each running many scenarios at once),
and joins each runner's report with the request bodies the server captured for that scenario.
"""

from __future__ import annotations

import threading
from typing import Iterable, Sequence

from probe_lib import wire
from probe_lib.adapters import npm
from probe_lib.adapters.lines import LinesChild
from probe_lib.adapters.mastra import versions
from probe_lib.capture import Capture, CaptureServer
from probe_lib.core import paths
from probe_lib.core.errors import HarnessError, InputError, WorkersFailed
from probe_lib.core.outcome import Failure, Outcome
from probe_lib.core.scenarios import Scenario

FRAMEWORK = "mastra"
COLLISION_ID = "AGENT_TOOL_NAME_COLLISION"
_COLLISION_TEXT = "Two or more tools resolve to the same name "
#: The capture server's body limit when ``run`` starts its own server; 30,000 keys make a ~9 MiB request.
DEFAULT_MAX_BODY_BYTES = 8 * 2**20
#: Watchdog: a runner that sends no result for this long past the longest scenario timeout is hung.
STALL_SLACK_SECONDS = 30.0


class BodyTooLarge(InputError):
    """Mastra sent a request larger than the capture server accepts: the kit's own limit, not a Mastra failure."""


class BatchIncomplete(HarnessError):
    """A runner died or stopped answering mid-batch. ``outcomes`` keeps, in batch order, every scenario that
    finished; ``None`` marks one that never did."""

    def __init__(self, message: str, outcomes: list[Outcome | None]) -> None:
        super().__init__(message)
        self.outcomes = outcomes
#: The wire format each ``Scenario.wire`` path speaks, for an outcome that sent no request (a collision, say).
_WIRE_OF_PATH = {"chat": wire.CHAT_COMPLETIONS.name, "responses": wire.RESPONSES.name,
                 "messages": wire.ANTHROPIC_MESSAGES.name}
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


def _lacks_builtins(scenario: Scenario, version: str, report: dict) -> Failure | None:
    """A scenario that registers every built-in cannot be expressed on a version that exports none."""
    if scenario.all_builtins and not (report.get("package") or {}).get("builtins"):
        return Failure("not applicable", f"@mastra/core {version} exports no built-in tools")
    return None


class Runner(LinesChild):
    """One long-lived Node process running scenarios against one ``@mastra/core`` version (installed on first use).

    The JSON-lines plumbing (watchdog, last words, ``finished`` kept after a failure) is :class:`LinesChild`'s.
    """

    def __init__(self, version: str, *, concurrency: int = 16) -> None:
        self.version = versions.check(version)
        self.concurrency = concurrency
        super().__init__([], f"@mastra/core {self.version}", ready_timeout=60.0)

    def start(self) -> None:
        """Install the version if needed (here, not in ``__init__``), then start its runner."""
        self.command = [
            npm.node_executable(),
            str(paths.HARNESS / "runner.cjs"),
            str(versions.modules_dir(self.version)),
            self.version,
            str(self.concurrency),
        ]
        super().start()

    def format(self, records: Sequence[Sequence[str]]) -> list[dict]:
        """The real ``Agent.formatTools`` on each record, without a request: ``{"names": [...]}`` per record, or
        ``{"error": {"kind": "collision", "name": ...}}`` / ``{"error": {"kind": "crash", "message": ...}}``."""
        reply = self.exchange([{"op": "format", "id": "format", "records": [list(keys) for keys in records]}], timeout=600)
        return [_format_result(result) for result in reply["format"]["results"]]

    def package_facts(self) -> dict:
        """What the installed package says of itself: its built-in tools (export -> id) and ``formatTools``' source."""
        reply = self.exchange([{"op": "package", "id": "package"}], timeout=60)["package"]
        return {"builtins": reply["builtins"], "formatToolsSource": reply["formatToolsSource"]}

    def turn(self, scenario: Scenario, server: CaptureServer, scenario_id: str) -> Outcome:
        """One scenario on this (already started, warm) runner, captured by ``server`` under ``scenario_id``."""
        server.script(scenario_id, scenario.replies)
        request = {**scenario.to_json(server.scenario_url(scenario_id)), "id": scenario_id}
        report = self.exchange([request], timeout=scenario.timeout_ms / 1000 + 30)[scenario_id]
        return _outcome(scenario, self.version, report, server.take(scenario_id))


def run(
    scenarios: Iterable[Scenario],
    version: str,
    *,
    server: CaptureServer | None = None,
    workers: int = 1,
    concurrency: int = 16,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> list[Outcome]:
    """Run ``scenarios`` on ``version`` and return one ``Outcome`` each, in the given order.

    ``workers`` Node processes share the batch (Mastra's ``generate()`` costs ~13 ms of CPU, so one process
    tops out near 75 turns/s); each runs ``concurrency`` turns at once. A scenario that throws or hangs is an
    ``Outcome`` with its error, never a failed batch. A runner that dies or sends nothing for the longest
    scenario timeout plus ``STALL_SLACK_SECONDS`` is killed, and the batch raises ``BatchIncomplete`` holding
    every scenario that did finish. A request over ``max_body_bytes`` (of ``server``, when given) raises
    ``BodyTooLarge``, naming the kit's limit.
    """
    versions.check(version)  # here, not in a worker thread, so a wrong version is the caller's InputError
    scenarios = list(scenarios)
    names = [scenario.name for scenario in scenarios]
    if len(set(names)) != len(names):
        raise InputError("scenario names must be unique within one run")
    if server is None:
        with CaptureServer(max_body_bytes=max_body_bytes) as own_server:
            return run(scenarios, version, server=own_server, workers=workers, concurrency=concurrency)
    ids = [f"{version}-{index}" for index in range(len(scenarios))]
    for scenario_id, scenario in zip(ids, scenarios):
        server.script(scenario_id, scenario.replies)
    requests = [
        {**scenario.to_json(server.scenario_url(scenario_id)), "id": scenario_id}
        for scenario_id, scenario in zip(ids, scenarios)
    ]
    timeout = max((scenario.timeout_ms for scenario in scenarios), default=0) / 1000 + STALL_SLACK_SECONDS
    shares = [requests[worker::workers] for worker in range(workers)]
    reports: dict[str, dict] = {}
    errors: list[BaseException] = []

    def run_share(share: list[dict]) -> None:
        runner = Runner(version, concurrency=concurrency)
        try:
            with runner:
                runner.exchange(share, timeout=timeout)
        except BaseException as error:  # re-raised below, in the caller's thread
            errors.append(error)
        reports.update(runner.finished)  # a failed runner's finished results are kept too

    threads = [threading.Thread(target=run_share, args=(share,)) for share in shares if share]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcomes: list[Outcome | None] = []
    too_large: list[str] = []
    for scenario_id, scenario in zip(ids, scenarios):
        captures = server.take(scenario_id)  # taken even when unfinished, so a shared server forgets the script
        if any(capture.status == 413 for capture in captures):
            too_large.append(scenario.name)
        outcomes.append(_outcome(scenario, version, reports[scenario_id], captures) if scenario_id in reports else None)
    if too_large:
        raise BodyTooLarge(
            f"{len(too_large):,} scenario(s) (first: {too_large[0]}) sent a request body over the kit's capture "
            f"limit of {server.max_body_bytes / 2**20:g} MiB (not a Mastra failure): raise it (probe --max-body-mb; "
            "CaptureServer(max_body_bytes=...)) or send fewer keys per tool set")
    if errors:
        error = errors[0] if len(errors) == 1 else WorkersFailed(errors)
        if not all(isinstance(each, HarnessError) for each in errors):
            raise error
        done = sum(outcome is not None for outcome in outcomes)
        raise BatchIncomplete(f"{error}; {done:,} of {len(outcomes):,} scenarios finished", outcomes) from error
    return outcomes


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
        failure=classify(error, bool(calls)) or _lacks_builtins(scenario, version, report),
        wire=calls[0].wire if calls else _WIRE_OF_PATH[scenario.wire],
        unrouted=tuple({"method": c.method, "path": c.path, "status": c.status} for c in captures if c.wire is None),
        logs=tuple(report.get("logs") or ()),
        package=report.get("package"),
        elapsed_ms=report.get("elapsedMs", 0.0),
    )


def _format_result(result: dict) -> dict:
    """One ``format`` result, its error chain judged by :func:`classify` like a scenario's."""
    if "names" in result:
        return result
    failure = classify(result["error"], sent_requests=False)
    detail = {"name": failure.name} if failure.kind == "collision" else {"message": failure.message}
    return {"error": {"kind": failure.kind, **detail}}
def package_facts(version: str) -> dict:
    """Built-in tool ids and the normaliser's source text, read from the installed ``@mastra/core`` ``version``."""
    with Runner(version) as runner:
        return runner.package_facts()


def format_records(records: Sequence[Sequence[str]], version: str) -> list[dict]:
    """The real ``Agent.formatTools`` on many records in one Node process (function level, no request)."""
    with Runner(version) as runner:
        return runner.format(records)
