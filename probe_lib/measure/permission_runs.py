"""The Claude Agent SDK's tool lists probed: ``allowedTools``, ``disallowedTools`` and a subagent's ``tools``, each
naming one custom tool four ways, run live on the SDK's pin and kept in
``data/captures/lists/`` (their collection, :data:`probe_lib.measure.collection.LISTS`).

The SDK offers a tool registered under key ``search.web`` in its in-process MCP server ``probe`` as
``mcp__probe__search_web`` (the matrix's ``dot`` probe). Each run here registers ``search.web`` and ``plain``, names
``search.web`` in one list in one spelling (its registered key, the key's rewrite without the prefix, the prefix on
the unrewritten key, or the name on the wire) and scripts the model to call the name on the wire; a subagent run
first has the main agent start subagent ``helper`` through the SDK's ``Agent`` tool. The lists are the SDK's own
options, so they travel as request fields of its runner (``frameworks/claude_agent_sdk/harness/runner.mjs``) beside
the scenario. The recording keeps every request, so :mod:`probe_lib.analysis.permissions` reads what each list did
without the SDK installed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from probe_lib import frameworks
from probe_lib.capture import CaptureServer
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, for_keys
from probe_lib.wire.replies import ToolCall, ToolCallsReply

FRAMEWORK = "claude-agent-sdk"
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
        """The runner's request fields for this list: the main agent is granted every probe tool (``mcp__probe``)
        unless ``allowedTools`` is what is measured; a subagent run grants the ``Agent`` tool and the spelling
        measured, so only a subagent holding the tool can run it."""
        if self.list == "allowedTools":
            return {"allowedTools": [self.named]}
        if self.list == "disallowedTools":
            return {"allowedTools": ["mcp__probe"], "disallowedTools": [self.named]}
        agent = {"description": "looks things up", "prompt": SUBAGENT_PROMPT, "tools": [self.named]}
        return {"builtins": ["Agent"], "allowedTools": ["Agent", self.named], "agents": {SUBAGENT: agent}}


PROBES = tuple(ListProbe(kind, spelling) for kind in LISTS for spelling in SPELLINGS)


def probe_of(outcome: Outcome) -> ListProbe | None:
    """The list probe ``outcome`` is a run of (``None``: it is another scenario's run)."""
    return next((probe for probe in PROBES if probe.name == outcome.scenario.name), None)


def scenarios() -> list[Scenario]:
    return [probe.scenario() for probe in PROBES]


def pinned_version() -> str:
    """The SDK version the list probes run on: its newest pin, the matrix target they are judged with."""
    return frameworks.get(FRAMEWORK).versions()[-1]


def measure(version: str, server: CaptureServer) -> list[Outcome]:
    """Every list probe, live, on ``version`` of the SDK."""
    with frameworks.get(FRAMEWORK).session(version) as session:
        return session.run(scenarios(), server, {probe.name: probe.options() for probe in PROBES})
