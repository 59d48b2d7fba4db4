"""The Claude Agent SDK's tool lists, measured: ``allowedTools``, ``disallowedTools`` and a subagent's ``tools``,
each naming one custom tool four ways.

The SDK offers a tool registered under key ``search.web`` in its in-process MCP server ``probe`` as
``mcp__probe__search_web`` (the matrix's ``dot`` probe). Each run here registers ``search.web`` and ``plain``, names
``search.web`` in one list in one spelling (its registered key, the key's rewrite without the prefix, the prefix on
the unrewritten key, or the name on the wire) and scripts the model to call the name on the wire; a subagent run
first has the main agent start subagent ``helper`` through the SDK's ``Agent`` tool. What the list did is read off
the wire: the tools the request offers (the subagent's own request, for its list), whether ``search.web`` ran, and
what the CLI answered the model's call with. ``data/captures/claude-agent-sdk-permissions.json`` keeps every
request, so all of it reads without the SDK installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from probe_lib import adapters
from probe_lib.capture import CaptureServer
from probe_lib.core import files, paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, for_keys
from probe_lib.inputs import scenario_files
from probe_lib.study.recordings import outcome_from_json, outcome_to_json
from probe_lib.wire.replies import ToolCall, ToolCallsReply

FRAMEWORK = "claude-agent-sdk"
RECORDING = paths.CAPTURES / "claude-agent-sdk-permissions.json"
KEYS = ("search.web", "plain")
#: The name the SDK sends ``search.web`` under (measured: the matrix's ``dot`` probe, claim X22).
WIRE_NAME = "mcp__probe__search_web"
#: Each way a caller may spell the tool in a list.
SPELLINGS = {
    "registered key": "search.web",
    "rewritten key": "search_web",
    "prefixed key": "mcp__probe__search.web",
    "name on the wire": WIRE_NAME,
}
LISTS = ("allowedTools", "disallowedTools", "subagent tools")
SUBAGENT = "helper"
#: The subagent's system prompt: how its requests are told from the main agent's.
SUBAGENT_PROMPT = "You are the probe's helper subagent."
_CALL = ToolCallsReply((ToolCall(WIRE_NAME, {"city": "Paris"}),))
_START_SUBAGENT = ToolCallsReply(
    (
        ToolCall(
            "Agent",
            {
                "subagent_type": SUBAGENT,
                "description": "look it up",
                "prompt": "look it up",
                "run_in_background": False,
            },
        ),
    )
)


@dataclass(frozen=True)
class ListProbe:
    """One list naming ``search.web`` one way."""

    list: str
    spelling: str

    @property
    def name(self) -> str:
        return f"{self.list}={self.spelling}"

    @property
    def named(self) -> str:
        return SPELLINGS[self.spelling]

    def scenario(self) -> Scenario:
        plain = for_keys(self.name, KEYS)
        if self.list == "subagent tools":
            return replace(plain, replies=(_START_SUBAGENT, _CALL), max_steps=3)
        return replace(plain, replies=(_CALL,))

    def options(self) -> dict:
        """The runner's request fields for this list (``harness/runner.mjs``): the main agent is granted every
        probe tool (``mcp__probe``) unless ``allowedTools`` is what is measured; a subagent run grants the
        ``Agent`` tool and the spelling measured, so only a subagent holding the tool can run it."""
        if self.list == "allowedTools":
            return {"allowedTools": [self.named]}
        if self.list == "disallowedTools":
            return {"allowedTools": ["mcp__probe"], "disallowedTools": [self.named]}
        agent = {"description": "looks things up", "prompt": SUBAGENT_PROMPT, "tools": [self.named]}
        return {"builtins": ["Agent"], "allowedTools": ["Agent", self.named], "agents": {SUBAGENT: agent}}


PROBES = tuple(ListProbe(kind, spelling) for kind in LISTS for spelling in SPELLINGS)


def scenarios() -> list[Scenario]:
    return [probe.scenario() for probe in PROBES]


def measure(version: str | None = None) -> list[Outcome]:
    """Every list probe, live, on ``version`` (default: the pinned one) of the SDK."""
    adapter = adapters.get(FRAMEWORK)
    version = version or adapter.versions()[-1]
    with CaptureServer() as server, adapter.session(version) as session:
        return session.run(scenarios(), server, {probe.name: probe.options() for probe in PROBES})


def write(outcomes: Sequence[Outcome], path: Path = RECORDING, source: str = "live") -> Path:
    """A recording of the list probes (deterministic: probe order, keys sorted, timings dropped); ``source`` says
    whether they were measured now or copied from the recording."""
    order = {probe.name: number for number, probe in enumerate(PROBES)}
    ordered = sorted(outcomes, key=lambda outcome: (outcome.version, order[outcome.scenario.name]))
    document = {
        "source": source,
        "scenarios": scenario_files.to_document(scenarios()),
        "outcomes": [outcome_to_json(outcome) for outcome in ordered],
    }
    return files.write_json(path, document)


def read(path: Path = RECORDING) -> list[Outcome]:
    if not path.exists():
        raise InputError(f"no recording at {path}: run `probe-lib setup --framework {FRAMEWORK}`, then record it")
    by_name = {scenario.name: scenario for scenario in scenarios()}
    return [outcome_from_json(entry, by_name) for entry in json.loads(path.read_text(encoding="utf-8"))["outcomes"]]


def measure_or_read(live: bool = True) -> tuple[list[Outcome], str]:
    """The list probes, measured now when ``live`` and the SDK is installed (as the framework matrix measures its
    target then), else as recorded; with which (``"live"`` or ``"recorded"``)."""
    adapter = adapters.get(FRAMEWORK)
    return (measure(), "live") if live and adapter.is_installed(adapter.versions()[-1]) else (read(), "recorded")


def load(measurements: str) -> list[Outcome]:
    """As :func:`probe_lib.analysis.matrix.load` reads the matrix: ``"live"`` (measured now where the SDK is
    installed, else the recording), ``"recorded"``, or a reproduce folder's file (else the recording)."""
    if measurements == "live":
        return measure_or_read()[0]
    folder_file = Path(measurements) / RECORDING.name
    return read(folder_file if measurements != "recorded" and folder_file.exists() else RECORDING)


def _is_subagent(request: dict) -> bool:
    return SUBAGENT_PROMPT in json.dumps(request.get("system"), ensure_ascii=False)


def _tool_names(request: dict) -> list[str]:
    return [tool["name"] for tool in request.get("tools", []) if isinstance(tool, dict) and "name" in tool]


def offered(outcome: Outcome) -> list[str] | None:
    """The tools of the request whose list was set: the main agent's first, or the subagent's first (``None``: no
    subagent request was sent)."""
    probe = _probe(outcome)
    if probe.list != "subagent tools":
        return _tool_names(outcome.requests[0]) if outcome.requests else None
    started = [request for request in outcome.requests if _is_subagent(request)]
    return _tool_names(started[0]) if started else None


def answer(outcome: Outcome) -> str | None:
    """What the CLI told the model of its call by ``search.web``'s wire name: the first tool result a later request
    of that conversation carries (the subagent's when one started, else the main agent's; ``None``: none)."""
    subagent = _probe(outcome).list == "subagent tools" and any(_is_subagent(r) for r in outcome.requests)
    for request in outcome.requests[1:]:
        if subagent and not _is_subagent(request):
            continue
        for message in request.get("messages", []):
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = block.get("content")
                    if isinstance(text, list):
                        text = " ".join(part.get("text", "") for part in text if isinstance(part, dict))
                    return str(text)
    return None


def ran(outcome: Outcome) -> bool:
    """Whether the tool registered as ``search.web`` executed."""
    return any(execution["key"] == "search.web" for execution in outcome.executions)


def _probe(outcome: Outcome) -> ListProbe:
    return next(probe for probe in PROBES if probe.name == outcome.scenario.name)


def table(outcomes: Iterable[Outcome]) -> pd.DataFrame:
    """One row per list probe: the list, how it named the tool, what the request offered, whether the tool the
    caller meant ran, and what the model was told."""
    rows = []
    for outcome in outcomes:
        probe = _probe(outcome)
        names = offered(outcome)
        rows.append(
            {
                "target": str(outcome.target),
                "list": probe.list,
                "spelling": probe.spelling,
                "named": probe.named,
                "offered": names,
                "offers the tool": None if names is None else WIRE_NAME in names,
                "search.web ran": ran(outcome),
                "answer": answer(outcome),
                "requests": len(outcome.requests),
                "side requests": len(outcome.unrouted),
            }
        )
    return pd.DataFrame(rows)
