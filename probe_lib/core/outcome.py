"""What one scenario did on one target, as measured: the requests on the wire, the error, what the tools saw.

Every adapter returns ``Outcome`` objects, and everything downstream (claims, tables, charts, recordings) reads
them; request bodies are read through their wire format (:mod:`probe_lib.wire`), never by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from probe_lib import wire
from probe_lib.core import credentials, paths
from probe_lib.core.behaviour import Behaviour, Raised
from probe_lib.core.scenarios import PROBE_DESCRIPTION, Scenario
from probe_lib.core.target import Target
from probe_lib.wire.replies import ErrorReply, ToolCallsReply

FailureKind = Literal["collision", "rejected", "crash", "not applicable"]


#: The message of the capture server's deliberate 400 (its scripted ``ErrorReply``): proof that a request went
#: out, not an error of the framework's.
CAPTURED = ErrorReply().message


def is_capture_reply(message: str) -> bool:
    """The capture server's refusal, bare (1.x) or inside a wrapper's text (0.20's ``API error: 400 - {body}``, the
    Claude Code CLI's ``Claude Code returned an error result: API Error: 400 captured``)."""
    return (
        message == CAPTURED or f'"message": "{CAPTURED}"' in message or message.endswith(f"API Error: 400 {CAPTURED}")
    )


def readable(message: str) -> str:
    """An error message as an outcome shows it: without the stack some versions append (0.21-0.24 put it inside the
    message), and with the kit's cache folder, where every version is installed, named ``<cache>``: a machine's paths
    and line numbers are incidental, not measurements; any credential it quotes redacted."""
    return credentials.text(message.split("\n    at ", 1)[0].replace(str(paths.cache()), "<cache>"))


def quoted(text: str, limit: int) -> str:
    """``text`` as evidence or a table quotes it: whole, or cut to ``limit`` characters ending in "…" (a reader
    sees that more was said; the recording has it whole)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def called_name(outcome: Outcome) -> str:
    """The tool name a round trip's scripted model called."""
    return next(reply.calls[0].name for reply in outcome.scenario.replies if isinstance(reply, ToolCallsReply))


@dataclass(frozen=True)
class Failure:
    """Why a turn sent nothing or stopped, in the adapter's judgement.

    ``collision``: two names became one (``name`` says which); ``rejected``: the framework refused a name or an
    option before sending; ``crash``: anything else that raised; ``not applicable``: the target cannot express the
    scenario (a feature it lacks), with ``message`` saying why.
    """

    kind: FailureKind
    message: str
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", credentials.text(self.message))  # a framework's words may quote one


@dataclass(frozen=True)
class Outcome:
    """What one scenario did on one target."""

    scenario: Scenario
    framework: str
    version: str
    #: JSON bodies of the model calls sent, in arrival order, all in wire format ``wire``.
    requests: tuple[dict, ...]
    #: The error the turn raised and its ``cause`` chain, outermost first (empty: none).
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
    failure: Failure | None = None
    wire: str = wire.CHAT_COMPLETIONS.name
    #: Requests on routes no wire format owns: ``{"method", "path", "status"}``, kept so none goes unseen.
    unrouted: tuple[dict, ...] = ()
    #: Every record the framework wrote to its logger during the turn, in order: ``{"level", "component",
    #: "message", "args"}``, or ``{"level": "exception", "message", "error"}`` for an exception it tracked.
    logs: tuple[dict, ...] = ()
    #: What the installed package says of itself, for scenarios that ask (``Scenario.report_package`` or
    #: ``all_builtins``): ``{"builtins": {export: id}, "formatToolsSource": str}``; for ``Scenario.docs_sections``,
    #: ``{"docs": {heading: [{"file": path in the package, "text": the section}, ...]}}``; for
    #: ``Scenario.docs_mentions``, ``{"mentions": {text: [{"file", "line", "text", "code"}, ...]}}``.
    package: dict | None = None
    #: Mastra's own lookup surfaces, for scenarios that ask (``Scenario.lookups``): per method
    #: (``"Mastra.getTool"`` …), ``None`` where the version has none; a finder's answer to each string,
    #: ``{"found": "mastra:KEY" | "agent:KEY" | "agent" | None, "id"}``, ``{"returned": None}`` or ``{"error": ID,
    #: "message"}``; a listing's entries as ``[key, id]``.
    surfaces: dict | None = None
    elapsed_ms: float = field(default=0.0, compare=False)

    def __post_init__(self) -> None:
        # The error chains are a framework's words, which may quote a credential (an SDK's "404 for url ...?key=").
        object.__setattr__(self, "error", _redacted(self.error))
        object.__setattr__(self, "stream_errors", tuple(_redacted(chain) for chain in self.stream_errors))

    @property
    def target(self) -> Target:
        return Target(self.framework, self.version)

    @property
    def _format(self) -> wire.WireFormat:
        return wire.BY_NAME[self.wire]

    @property
    def registered_keys(self) -> list[str]:
        """The keys the tools were registered under, in order: the scenario's, then the built-ins the package
        exported (``Scenario.all_builtins``), under their export names or their ids."""
        keys = [spec.key for spec in self.scenario.tools]
        builtins = (self.package or {}).get("builtins", {}) if self.scenario.all_builtins else {}
        return keys + list(builtins if self.scenario.all_builtins == "export" else builtins.values())

    def log_records(self, *levels: str) -> list[dict]:
        """The logger records at ``levels`` ("debug", "info", "warn", "error", "exception"; none given: all)."""
        return [record for record in self.logs if not levels or record["level"] in levels]

    @property
    def wire_names(self) -> list[str] | None:
        """Tool names in the first request's tools (``[]`` when it sent none; ``None``: no request)."""
        return self._format.tool_names(self.requests[0]) if self.requests else None

    @property
    def tool_choice(self) -> object:
        """The first request's tool choice exactly as sent (``None`` when absent or no request)."""
        return self.requests[0].get("tool_choice") if self.requests else None

    @property
    def forced_name(self) -> str | None:
        """The function the first request forces (``None``: no request, or no tool named)."""
        return self._format.forced_name(self.requests[0]) if self.requests else None

    @property
    def tool_replies(self) -> list[dict]:
        """The tool results the follow-up (second) request carries back to the model; ``[]`` when none was sent."""
        return self._format.tool_results(self.requests[1]) if len(self.requests) > 1 else []

    @property
    def own_errors(self) -> list[str]:
        """The error chain's messages other than the capture server's reply (empty: the turn raised nothing of its
        own)."""
        return [link["message"] for link in self.error if not is_capture_reply(link["message"])]

    @property
    def error_ids(self) -> list[str]:
        return [link["id"] for link in self.error if link.get("id")]

    @property
    def collision_name(self) -> str | None:
        """The name two keys became, when the turn failed on a collision."""
        return self.failure.name if self.failure and self.failure.kind == "collision" else None

    @property
    def not_applicable(self) -> bool:
        """True when the target cannot express this scenario (e.g. a built-in tool its version does not export)."""
        return self.failure is not None and self.failure.kind == "not applicable"

    def result_json(self) -> dict:
        """The ``probe --json`` shape: names on the wire (plus ``tool_choice``), or the failure."""
        if self.collision_name is not None:
            return {"error": {"kind": "collision", "name": self.collision_name}}
        if self.requests:
            return {"names": self.wire_names, "tool_choice": self.tool_choice}
        if self.failure is not None:
            return {"error": {"kind": self.failure.kind, "message": self.failure.message}}
        return {"error": {"kind": "crash", "message": "no request was sent and no error was raised"}}

    def behaviour(self) -> Behaviour:
        """What the turn did, comparable across versions: what :meth:`result_json` reports (with a failure judged
        after a request went out, such as built-ins the version lacks), how many requests and tool executions, and
        :attr:`own_errors`; every message :func:`readable`."""
        failure = self.failure
        if self.collision_name is not None:
            error: Raised | None = Raised("collision", name=self.collision_name)
        elif failure is not None:
            error = Raised(failure.kind, readable(failure.message))
        elif not self.requests:
            error = Raised("crash", "no request was sent and no error was raised")
        else:
            error = None
        sent = bool(self.requests) and self.collision_name is None
        names = self.wire_names if sent else None
        return Behaviour(
            names=None if names is None else tuple(names),
            tool_choice=self.tool_choice if sent else None,
            requests=len(self.requests),
            executions=len(self.executions),
            errors=tuple(readable(message) for message in self.own_errors),
            error=error,
            surfaces=self.surfaces,
        )


def _redacted(chain: Sequence[dict]) -> tuple[dict, ...]:
    """An error chain with every credential its messages quote redacted (:func:`probe_lib.core.credentials.text`)."""
    return tuple(
        {**link, "message": credentials.text(link["message"])} if isinstance(link.get("message"), str) else link
        for link in chain
    )


def wire_names_by_key(keys: Sequence[str], outcome: Outcome) -> dict[str, str]:
    """Which name each key went out as, in ``outcome``'s first request (a key whose tool was not sent has none).

    Read from the tools' descriptions when each names a distinct key (``PROBE_DESCRIPTION`` and the key): exact,
    whatever the framework did to names and order, and a dropped tool is seen as such. Otherwise (the raw SDK and
    the Python frameworks that describe a tool by its function's docstring, all of which send names verbatim) a
    guess from the names alone: position by position when every pair still looks alike and no unchanged key moved
    (the framework kept the order); otherwise unchanged keys keep their names and the rewritten keys pair, in
    order, with the new names (Mastra moves those last).
    """
    names = outcome.wire_names or []
    described = (
        [_described_key(text) for text in wire.tool_descriptions(outcome.requests[0])] if outcome.requests else []
    )
    if len(described) == len(names) and set(described) <= set(keys) and len(set(described)) == len(described):
        return dict(zip(described, names))
    moved = any(name in keys and keys.index(name) != position for position, name in enumerate(names))
    if not moved and all(SequenceMatcher(None, key, name).ratio() >= 0.5 for key, name in zip(keys, names)):
        return dict(zip(keys, names))
    rewritten = dict(zip([key for key in keys if key not in names], [name for name in names if name not in keys]))
    return {key: rewritten.get(key, key) for key in keys}


def _described_key(description: str | None) -> str | None:
    """The key a probe tool's description names, or ``None``."""
    if description is not None and description.startswith(PROBE_DESCRIPTION):
        return description.removeprefix(PROBE_DESCRIPTION)
    return None
