"""Run scenarios on the real ``@mastra/core``: Node runners per version (pinned or served), against the capture server.

``run(scenarios, version)`` is the whole instrument: it scripts the capture server for each scenario, sends the
batch to long-lived Node processes (``harness/runner.cjs``; one per worker, each running many scenarios at once),
and joins each runner's report with the request bodies the server captured for that scenario.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, closing
from pathlib import Path

from probe_lib import wire
from probe_lib.capture import Capture, CaptureServer
from probe_lib.capture.server import MAX_BODY_BYTES
from probe_lib.core import paths
from probe_lib.core.errors import HarnessError, InputError
from probe_lib.core.outcome import Failure, Outcome, readable
from probe_lib.core.scenarios import Scenario, check_unique_names
from probe_lib.frameworks.mastra import versions
from probe_lib.install import npm
from probe_lib.process import pipeline
from probe_lib.process.lines import LinesChild

FRAMEWORK = "mastra"
COLLISION_ID = "AGENT_TOOL_NAME_COLLISION"
#: The refusal's text, which 0.21-0.24 throw as a plain Error whose message is "Error: ", the text and its stack.
_COLLISION_TEXT = re.compile(r'(?:Error: )?Two or more tools resolve to the same name "(?P<name>[^"]*)"')
#: Watchdog: a runner that sends no result for this long past the longest scenario timeout is hung.
STALL_SLACK_SECONDS = 30.0
#: V8's old-space cap for the runners ``run`` starts, in MiB, before the allowance for the largest tool set.
#: Uncapped, V8 lets a busy runner's heap pass 450 MiB before it collects, though its live data stays near 85 MiB
#: (measured over 2,000 turns of up to 23 keys, flat: no leak); capped, it collects sooner and memory is bounded.
#: Measured on 1,000 turns: uncapped 358 MiB peak RSS; 192: 232 MiB; 128: 215 MiB, at the same CPU per turn.
NODE_HEAP_MIB = 192
#: V8's young generation (``--max-semi-space-size``, MiB; Node's default is 16) for the same runners: 8 took
#: another ~20 MiB off a runner's peak for ~4% more CPU per turn.
NODE_SEMI_SPACE_MIB = 8
#: Added to the cap per tool of the largest scenario: one 30,000-key tool set reached 666 MiB uncapped, and slowed
#: past the watchdog (garbage collection near the cap) at 596 MiB.
NODE_HEAP_KIB_PER_TOOL = 32
#: How far ahead of the oldest outcome not yet yielded the batch may run, per concurrent turn.
AHEAD_PER_TURN = 4
#: What V8 prints on stderr when a process reaches its heap cap (then it aborts).
_HEAP_EXHAUSTED = "JavaScript heap out of memory"


class BodyTooLarge(InputError):
    """Mastra sent a request larger than the capture server accepts: the kit's own limit, not a Mastra failure."""


class BatchIncomplete(HarnessError):
    """A runner died or stopped answering mid-batch. ``outcomes`` keeps, in batch order, every scenario that
    finished; ``None`` marks one that never did."""

    def __init__(self, message: str, outcomes: list[Outcome | None]) -> None:
        super().__init__(message)
        self.outcomes = outcomes


#: The wire format each ``Scenario.wire`` path speaks, for an outcome that sent no request (a collision, say).
_WIRE_OF_PATH = {
    "chat": wire.CHAT_COMPLETIONS.name,
    "responses": wire.RESPONSES.name,
    "messages": wire.ANTHROPIC_MESSAGES.name,
}
#: The error name runner.cjs gives a scenario its version cannot express (a built-in it lacks, no Agent at all, ...).
NOT_APPLICABLE = "NotApplicable"


def classify(error: Sequence[dict], sent_requests: bool, logs: Sequence[dict] = ()) -> Failure | None:
    """Mastra's error chain, judged once for every era: a tool-name collision, a scenario this version cannot
    express, or a crash; every message :func:`readable` (no stack, no cache path).

    The collision reaches the caller in three forms: an error whose ``details.toolName`` names it (0.13-0.19 and 1.x,
    a MastraError with the collision id or, wrapped, its text); ``Unknown error`` (0.20.x), whose turn logged that
    MastraError as an exception (``logs``, the turn's logger records); a plain Error carrying the refusal's text and
    its stack (0.21-0.24). A turn that sent
    its requests and then stopped on the capture server's scripted error has no failure.
    """
    logged = [link for record in logs if record.get("level") == "exception" for link in record.get("error") or ()]
    for link in [*error, *logged]:
        name = (link.get("details") or {}).get("toolName")
        if name is not None and (link.get("id") == COLLISION_ID or _COLLISION_TEXT.match(link.get("message", ""))):
            return Failure("collision", readable(link["message"]), name)
    for link in error:
        if text := _COLLISION_TEXT.match(link.get("message", "")):
            return Failure("collision", readable(link["message"]).removeprefix("Error: "), text["name"])
    missing = next((link["message"] for link in error if link.get("name") == NOT_APPLICABLE), None)
    if missing is not None:
        return Failure("not applicable", readable(missing))
    if not sent_requests:
        message = readable(error[-1]["message"]) if error else "no request was sent and no error was raised"
        return Failure("crash", message)
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

    def __init__(
        self, version: str, *, concurrency: int = 16, heap_mib: int | None = None, modules: Path | None = None
    ) -> None:
        self.version = versions.PINS.check(version)
        self.concurrency = concurrency
        #: The ``node_modules`` to run (default: the version's install; a patched copy, :mod:`probe_lib.repro`).
        self.modules = modules
        #: V8's old-space cap for this runner (``--max-old-space-size``, with a smaller young generation);
        #: ``None`` leaves Node's defaults.
        self.heap_mib = heap_mib
        super().__init__([], f"@mastra/core {self.version}", ready_timeout=60.0)

    def start(self) -> None:
        """Install the version if needed (here, not in ``__init__``), then start its runner."""
        self.command = [
            npm.node_executable(),
            *(
                [f"--max-old-space-size={self.heap_mib}", f"--max-semi-space-size={NODE_SEMI_SPACE_MIB}"]
                if self.heap_mib
                else []
            ),
            str(paths.HARNESS / "runner.cjs"),
            str(self.modules or versions.PINS.modules(self.version)),
            self.version,
            str(self.concurrency),
        ]
        super().start()

    def format(self, records: Sequence[Sequence[str]]) -> list[dict]:
        """The real ``Agent.formatTools`` on each record, without a request: ``{"names": [...]}`` per record, or
        ``{"error": {"kind": "collision", "name": ...}}`` / ``{"error": {"kind": "crash", "message": ...}}``."""
        reply = self.exchange(
            [{"op": "format", "id": "format", "records": [list(keys) for keys in records]}], timeout=600
        )
        return [_format_result(result) for result in reply["format"]["results"]]

    def turns(self, scenarios: Sequence[Scenario], server: CaptureServer) -> list[Outcome]:
        """Scenarios on this started (warm) runner, all sent at once; one outcome each, in order."""
        ids = [_scenario_id(self.version, index) for index in range(len(scenarios))]
        requests = [_request(server, scenario, scenario_id) for scenario, scenario_id in zip(scenarios, ids)]
        reports = self.exchange(requests, timeout=_stall_seconds(scenarios)) if requests else {}
        return [
            _outcome(scenario, self.version, reports[scenario_id], server.take(scenario_id))
            for scenario, scenario_id in zip(scenarios, ids)
        ]


def _scenario_id(version: str, index: int) -> str:
    """The capture server's scenario id of a batch's ``index``-th scenario (the runner scrubs it from its logs)."""
    return f"{version}-{index}"


def _request(server: CaptureServer, scenario: Scenario, scenario_id: str) -> dict:
    """Script ``scenario``'s replies on ``server`` under ``scenario_id``; the runner's input line for it."""
    server.script(scenario_id, scenario.replies)
    return {**scenario.to_json(server.scenario_url(scenario_id)), "id": scenario_id}


def _stall_seconds(scenarios: Sequence[Scenario]) -> float:
    """The watchdog: how long a runner may send nothing before it counts as hung."""
    return max((scenario.timeout_ms for scenario in scenarios), default=0) / 1000 + STALL_SLACK_SECONDS


def run(
    scenarios: Iterable[Scenario],
    version: str,
    *,
    server: CaptureServer | None = None,
    workers: int = 1,
    concurrency: int = 16,
    max_body_bytes: int = MAX_BODY_BYTES,
    node_heap_mib: int | None = None,
    modules: Path | None = None,
) -> list[Outcome]:
    """Run ``scenarios`` on ``version`` and return one ``Outcome`` each, in the given order.

    :func:`stream`, collected: ``workers`` Node processes share the batch (Mastra's ``generate()`` costs ~13 ms of
    CPU, so one process tops out near 75 turns/s); each runs ``concurrency`` turns at once. A scenario that throws
    or hangs is an ``Outcome`` with its error, never a failed batch. A runner that dies or sends nothing for the
    longest scenario timeout plus ``STALL_SLACK_SECONDS`` is killed, and the batch raises ``BatchIncomplete``
    holding, in order, every scenario that did finish. A request over ``max_body_bytes`` (of ``server``, when
    given) raises ``BodyTooLarge``, and a runner that reaches its heap cap (``node_heap_mib``; by default
    :func:`heap_cap`) is reported as ``NodeHeapExhausted``: each names the kit's limit and how to raise it.
    """
    outcomes: list[Outcome | None] = []
    try:
        for outcome in stream(
            scenarios,
            version,
            server=server,
            workers=workers,
            concurrency=concurrency,
            max_body_bytes=max_body_bytes,
            node_heap_mib=node_heap_mib,
            modules=modules,
        ):
            outcomes.append(outcome)
    except BatchIncomplete as error:
        error.outcomes = outcomes
        raise
    return outcomes  # type: ignore[return-value]  # None only ever comes before BatchIncomplete


def stream(
    scenarios: Iterable[Scenario],
    version: str,
    *,
    server: CaptureServer | None = None,
    workers: int = 1,
    concurrency: int = 16,
    max_body_bytes: int = MAX_BODY_BYTES,
    node_heap_mib: int | None = None,
    modules: Path | None = None,
) -> Iterator[Outcome | None]:
    """Run ``scenarios`` on ``version`` and yield one ``Outcome`` each, in the given order, as they finish.

    Through :func:`pipeline.in_order` (memory bounded: at most ``workers * concurrency * AHEAD_PER_TURN``
    scenarios out at once, each outcome built as it is yielded, its requests taken from the server then, and not
    kept). When a runner fails the others carry on; each scenario that could not finish is yielded as ``None``, and
    after the last one ``BatchIncomplete`` is raised (its ``outcomes`` empty: they were yielded). A request refused
    as too large stops the batch with ``BodyTooLarge`` in its scenario's turn, after every earlier outcome. The
    version, the names and the server are checked on the call, before anything runs.
    """
    versions.PINS.check(version)  # here, not in a worker thread, so a wrong version is the caller's InputError
    scenarios = scenarios if isinstance(scenarios, Sequence) else list(scenarios)  # KeySets stays lazy
    check_unique_names(scenarios)
    count, heap_mib = len(scenarios), node_heap_mib or heap_cap(scenarios)

    def outcomes(server: CaptureServer | None) -> Iterator[Outcome | None]:
        finished = 0
        with ExitStack() as ending:  # on a BodyTooLarge below, or a caller stopping early: runners end, then server
            if server is None:
                server = ending.enter_context(CaptureServer(max_body_bytes=max_body_bytes))
            reports = pipeline.in_order(
                [
                    Runner(version, concurrency=concurrency, heap_mib=heap_mib, modules=modules)
                    for _ in range(min(workers, count))
                ],
                count,
                lambda index: _request(server, scenarios[index], _scenario_id(version, index)),
                in_flight=2 * concurrency,  # a runner never waits for work, and never holds much
                ahead=max(1, workers) * concurrency * AHEAD_PER_TURN,
                timeout=_stall_seconds(scenarios),
                name_error=_named,
            )
            ending.enter_context(closing(reports))
            try:
                for index, report in enumerate(reports):
                    captures = server.take(_scenario_id(version, index))  # also forgets an unfinished one's script
                    if any(capture.status == 413 for capture in captures):  # raised in its turn, after earlier ones
                        raise BodyTooLarge(
                            f"scenario {scenarios[index].name} sent a request body over the kit's capture limit of "
                            f"{server.max_body_bytes / 2**20:g} MiB (not a Mastra failure): raise it (probe "
                            "--max-body-mb; CaptureServer(max_body_bytes=...)) or send fewer keys per tool set"
                        )
                    outcome = None if report is None else _outcome(scenarios[index], version, report, captures)
                    finished += outcome is not None
                    yield outcome
            except HarnessError as error:  # raised after the last outcome: a runner failed, some did not finish
                raise BatchIncomplete(f"{error}; {finished:,} of {count:,} scenarios finished", []) from error

    return outcomes(server)


def heap_cap(scenarios: Sequence[Scenario]) -> int:
    """The runners' heap cap (MiB) for a batch: ``NODE_HEAP_MIB`` and room for its largest tool set."""
    largest = max(map(_tool_count, scenarios), default=0)
    return NODE_HEAP_MIB + largest * NODE_HEAP_KIB_PER_TOOL // 1024


def _tool_count(scenario: Scenario) -> int:
    toolsets = sum(len(tools) for tools in scenario.toolsets.values())
    registered = len(scenario.tools) + len(scenario.mastra_tools) + len(scenario.agents) + len(scenario.workflows)
    return registered + len(scenario.client_tools) + toolsets


class NodeHeapExhausted(HarnessError):
    """A runner reached the kit's Node heap cap: the kit's limit, not a Mastra failure."""


def _named(runner: Runner, error: BaseException) -> BaseException:
    """A runner killed by V8 at the heap cap is the kit's limit, said so with how to raise it."""
    if not isinstance(error, HarnessError) or not any(_HEAP_EXHAUSTED in line for line in runner.stderr_tail):
        return error
    return NodeHeapExhausted(
        f"a @mastra/core {runner.version} runner reached the kit's Node heap cap of {runner.heap_mib} MiB (not a "
        f"Mastra failure): raise it (probe --node-heap-mb {2 * runner.heap_mib}; run(node_heap_mib=...)) or send "
        "fewer keys per tool set"
    )


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
        failure=classify(error, bool(calls), report.get("logs") or ()) or _lacks_builtins(scenario, version, report),
        wire=calls[0].wire if calls else _WIRE_OF_PATH[scenario.wire],
        unrouted=tuple({"method": c.method, "path": c.path, "status": c.status} for c in captures if c.wire is None),
        logs=tuple(report.get("logs") or ()),
        package=report.get("package"),
        surfaces=report.get("surfaces"),
        elapsed_ms=report.get("elapsedMs", 0.0),
    )


def _format_result(result: dict) -> dict:
    """One ``format`` result, its error chain judged by :func:`classify` like a scenario's."""
    if "names" in result:
        return result
    failure = classify(result["error"], sent_requests=False)
    detail = {"name": failure.name} if failure.kind == "collision" else {"message": failure.message}
    return {"error": {"kind": failure.kind, **detail}}


def format_records(records: Sequence[Sequence[str]], version: str) -> list[dict]:
    """The real ``Agent.formatTools`` on many records in one Node process (function level, no request)."""
    with Runner(version) as runner:
        return runner.format(records)
