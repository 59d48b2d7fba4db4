"""An adapter for any framework probed by tool keys alone: tools registered under keys, maybe one forced, one turn.

The same steps as Mastra's runner, for every other framework: script the capture server for each scenario, send
the batch to the framework's runner child (:mod:`probe_lib.process.lines`), and join each report with the model
calls the server captured for that scenario. A framework adapter is then a :class:`KeyedAdapter` with its pins and
the wire format it speaks by default: small, and alike.

Each request line a runner receives is ``{"id", "url", "keys", "toolChoice" (a key or null), "timeoutMs"}``; each
result is ``{"id", "error": [{"name", "message"}…] | null, "executions": [{"key", "args"}…], "timedOut"}``. A
runner whose release cannot force a tool says why in its ready line (``"cannotForce"``), and the session then
marks the scenarios forcing one "not applicable" rather than send them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace

from probe_lib.capture import Capture, CaptureServer
from probe_lib.core.outcome import Failure, Outcome
from probe_lib.core.scenarios import Scenario, check_unique_names
from probe_lib.frameworks.base import register
from probe_lib.frameworks.pinned import PinnedReleases
from probe_lib.install.pins import Pins
from probe_lib.install.releases import Unsupported, refuse_unsupported
from probe_lib.process.lines import LinesChild

#: Error names that mean the framework could not reach the capture server, not that it refused anything.
_NETWORK = re.compile(r"connect|ECONNREFUSED|fetch failed|timed? ?out", re.IGNORECASE)


def not_applicable_reason(scenario: Scenario) -> str | None:
    """Why ``scenario`` needs more than keys and a forced key (sub-agents, toolsets …), or ``None``."""
    extras = {
        "agents": scenario.agents,
        "workflows": scenario.workflows,
        "toolsets": scenario.toolsets,
        "client tools": scenario.client_tools,
        "active tools": scenario.active_tools,
        "the remedy": scenario.remedy,
        "built-in tools": any(
            spec.builtin or spec.hang or (spec.id not in (None, spec.key)) for spec in scenario.tools
        ),
        f"Mastra's {scenario.wire} provider path": scenario.wire != "chat",
    }
    used = [name for name, value in extras.items() if value]
    if used:
        return f"this adapter registers plain tools under keys only; the scenario also uses {', '.join(used)}"
    choice = scenario.tool_choice
    if choice is not None and not isinstance(choice, str) and choice.get("type") != "tool":
        return f"tool choice {choice!r} is not a forced tool"
    return None


def forced_key(scenario: Scenario) -> str | None:
    """The key a scenario forces (its ``{"type": "tool", "toolName": KEY}``), or ``None``."""
    choice = scenario.tool_choice
    return choice.get("toolName") if isinstance(choice, dict) else None


@dataclass
class KeyedAdapter(PinnedReleases):
    """A framework run by its own runner child on pinned releases, probed by keys."""

    name: str
    pins: Pins
    #: The wire format the adapter configures the framework to speak.
    wire: str = "chat-completions"
    #: Why the framework cannot be probed here at all (``None``: it can); every run is then "not applicable".
    unavailable: str | None = None
    #: Why the framework cannot force a tool (``None``: it can); a scenario forcing one is then "not applicable".
    cannot_force: str | None = None
    #: Why a release cannot force a tool although later ones can (``releases.since(...)``; ``None``: every release
    #: that runs can); a scenario forcing one is then "not applicable" on that release.
    forcing: Unsupported | None = None
    concurrency: int = 8
    extra: dict = field(default_factory=dict)
    #: Tells the model calls a framework makes of its own, outside the probe's turn, by their body (``None``: it
    #: makes none): they get the capture server's refusal, never a reply scripted for the turn, and are listed in
    #: an outcome's ``unrouted``, not its ``requests``.
    own_call: Callable[[dict], bool] | None = None

    def name_rule(self, version: str | None = None) -> None:
        """None: the kit has no Python model of a keyed framework's renaming."""
        return None

    def is_installed(self, version: str) -> bool:
        """True when a run can go ahead here (an unavailable framework's runs need nothing: they are not applicable)."""
        return self.unavailable is not None or self.pins.is_installed(version)

    def install(self, version: str) -> None:
        if self.unavailable is None:
            self.pins.install(version)

    def install_extras(self, *, quiet: bool = True) -> None:
        """Nothing: a keyed framework is measured with its pins alone."""

    def run(
        self, scenarios: Iterable[Scenario], version: str, *, server: CaptureServer | None = None, workers: int = 1
    ) -> list[Outcome]:
        self.check_version(version)
        if server is None:
            with CaptureServer() as own_server:
                return self.run(scenarios, version, server=own_server, workers=workers)
        with self.session(version) as session:
            return session.run(scenarios, server)

    def stream(
        self, scenarios: Sequence[Scenario], version: str, *, server: CaptureServer, **limits: int | None
    ) -> Iterator[Outcome]:
        """:meth:`run`'s outcomes, yielded once the whole batch is in (one runner child: the ``limits`` of a pool
        of Node runners, ``workers`` and ``node_heap_mib``, do not apply)."""
        yield from self.run(scenarios, version, server=server)

    def session(self, version: str) -> closing[KeyedSession]:
        """One runner child for several runs (its start, loading the framework, is most of a small run's cost);
        ``ReleaseUnsupported`` at once for a release the harness cannot run."""
        session = KeyedSession(self, self.check_version(version))
        if self.unavailable is None:
            refuse_unsupported(self.pins.unsupported, version)
        return closing(session)

    def cannot_force_on(self, version: str) -> str | None:
        """Why ``version`` cannot force a tool (the framework never can, or this release cannot), or ``None``."""
        return self.cannot_force or (self.forcing(version) if self.forcing is not None else None)

    def classify(self, error: Sequence[dict], sent: bool, timed_out: bool) -> Failure | None:
        """A refusal before sending, or a crash."""
        if not error:
            return None if sent else Failure("crash", "no request was sent and no error was raised")
        if sent:
            return None  # it sent its request, then stopped on the scripted answer: measured, not failed
        message = error[0]["message"]
        if timed_out or any(_NETWORK.search(f"{link['name']} {link['message']}") for link in error):
            return Failure("crash", message)
        return Failure("rejected", message)

    def in_turn(self, body: object) -> bool:
        """True for a model call of the probe's turn (see :attr:`own_call`)."""
        return self.own_call is None or not (isinstance(body, dict) and self.own_call(body))

    def _outcome(self, scenario: Scenario, version: str, report: dict, captures: list[Capture]) -> Outcome:
        calls = [c for c in captures if c.wire is not None and isinstance(c.body, dict) and self.in_turn(c.body)]
        error = tuple(report.get("error") or ())
        return Outcome(
            scenario=scenario,
            framework=self.name,
            version=version,
            requests=tuple(c.body for c in calls),
            error=error,
            executions=tuple(report.get("executions") or ()),
            tool_names=tuple(report.get("toolNames") or ()),
            result_tool_names=(),
            keys_after=(),
            ids_before=(),
            ids_after=(),
            failure=self.classify(error, bool(calls), bool(report.get("timedOut"))),
            wire=calls[0].wire if calls else self.wire,
            unrouted=tuple(
                {"method": c.method, "path": c.path, "status": c.status}
                for c in captures
                if c.wire is None or (isinstance(c.body, dict) and not self.in_turn(c.body))
            ),
            elapsed_ms=report.get("elapsedMs", 0.0),
        )

    def _not_applicable(self, scenario: Scenario, version: str, reason: str) -> Outcome:
        """The outcome of a scenario never sent: nothing reported or captured, and ``reason``."""
        nothing = self._outcome(scenario, version, {}, [])
        return replace(nothing, failure=Failure("not applicable", reason))


class KeyedSession:
    """Runs on one framework version through one runner child, started at the first scenario that can run."""

    def __init__(self, adapter: KeyedAdapter, version: str, command: list[str] | None = None) -> None:
        self.adapter, self.version = adapter, version
        #: The runner's command line (default: the release's, :meth:`Pins.command`; a patched copy's,
        #: :mod:`probe_lib.repro.patches`).
        self.command = command
        self._child: LinesChild | None = None

    def run(
        self, scenarios: Iterable[Scenario], server: CaptureServer, options: Mapping[str, dict] | None = None
    ) -> list[Outcome]:
        """One outcome per scenario, in order (see :meth:`KeyedAdapter.run`); ``options`` (scenario name -> request
        fields) gives a scenario framework options of its own that no :class:`Scenario` field says (the Claude
        Agent SDK's ``allowedTools``)."""
        adapter, version = self.adapter, self.version
        scenarios = list(scenarios)
        check_unique_names(scenarios)
        reasons = {
            s.name: adapter.unavailable
            or not_applicable_reason(s)
            or (adapter.cannot_force_on(version) if forced_key(s) else None)
            for s in scenarios
        }
        if any(reasons[s.name] is None and forced_key(s) for s in scenarios):
            if (cannot := self._started().ready.get("cannotForce")) is not None:
                reasons.update({s.name: cannot for s in scenarios if reasons[s.name] is None and forced_key(s)})
        # Ids as a one-run session had them (an error text quoting a URL keeps them); a run takes its own captures,
        # so the next run of the session can use them again.
        runnable = [(f"{adapter.name}-{version}-{n}", s) for n, s in enumerate(scenarios) if reasons[s.name] is None]
        reports: dict[str, dict] = {}
        if runnable:
            for scenario_id, scenario in runnable:
                server.script(scenario_id, scenario.replies, answers=adapter.in_turn)
            requests = [
                {
                    "id": scenario_id,
                    "url": server.scenario_url(scenario_id),
                    "keys": [t.key for t in scenario.tools],
                    "toolChoice": forced_key(scenario),
                    "timeoutMs": scenario.timeout_ms,
                    "maxSteps": scenario.max_steps,
                    **adapter.extra,
                    **(options or {}).get(scenario.name, {}),
                }
                for scenario_id, scenario in runnable
            ]
            timeout = max(scenario.timeout_ms for _, scenario in runnable) / 1000 + 30
            try:
                reports = self._started().exchange(requests, timeout=timeout)
            except BaseException:
                self.close()  # a runner that failed is not reused: the session's next run starts another
                raise
        ids = {scenario.name: scenario_id for scenario_id, scenario in runnable}
        return [
            adapter._outcome(s, version, reports[ids[s.name]], server.take(ids[s.name]))
            if s.name in ids
            else adapter._not_applicable(s, version, reasons[s.name])
            for s in scenarios
        ]

    def _started(self) -> LinesChild:
        if self._child is None:
            command = [*(self.command or self.adapter.pins.command(self.version)), str(self.adapter.concurrency)]
            child = LinesChild(command, f"{self.adapter.name} {self.version}")
            child.start()
            self._child = child
        return self._child

    def close(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None


def adapter(**fields) -> KeyedAdapter:
    """Build and register a :class:`KeyedAdapter` (what each framework folder's ``__init__`` calls)."""
    return register(KeyedAdapter(**fields))
