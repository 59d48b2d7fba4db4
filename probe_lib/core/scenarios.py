"""What one agent turn against the capture server looks like: the tools, the call options and the scripted model.

A ``Scenario`` is plain data. ``probe_lib.adapters.mastra`` sends it to the Node runner (``harness/runner.cjs``),
which builds a real ``Agent`` from it and calls ``generate()`` or ``stream()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping, Sequence

from probe_lib.wire.replies import Reply

#: The built-in tools ``@mastra/core/tools`` exports (from 1.67.0 on), with the id each carries.
BUILTIN_IDS: Mapping[str, str] = {
    "askUserTool": "ask_user",
    "submitPlanTool": "submit_plan",
    "taskWriteTool": "task_write",
    "webFetchTool": "web_fetch",
}

ToolChoice = Literal["auto", "required", "none"] | Mapping[str, str] | None


@dataclass(frozen=True)
class ToolSpec:
    """A tool registered under ``key``: a probe tool with ``id`` (default: the key), or a built-in export."""

    key: str
    id: str | None = None
    #: The export name of a built-in tool (``askUserTool`` …); ``id`` is then the built-in's own.
    builtin: str | None = None
    #: A probe tool whose ``execute`` never returns, so a turn that calls it can only end by its timeout.
    hang: bool = False

    def to_json(self) -> dict:
        fields = (("key", self.key), ("id", self.id), ("builtin", self.builtin), ("hang", self.hang or None))
        return {name: value for name, value in fields if value is not None}


def named(tool_name: str) -> dict[str, str]:
    """A ``toolChoice`` forcing one tool by name, in the AI SDK's form."""
    return {"type": "tool", "toolName": tool_name}


def tools(*keys: str) -> tuple[ToolSpec, ...]:
    """Probe tools registered under ``keys`` (each tool's id is its key)."""
    return tuple(ToolSpec(key) for key in keys)


@dataclass(frozen=True)
class Scenario:
    """One agent turn: what is registered, how it is called, and how the scripted model answers."""

    name: str
    tools: tuple[ToolSpec, ...] = ()
    #: Sub-agents (``agents`` config) and workflows, registered under ``ToolSpec.key``.
    agents: tuple[ToolSpec, ...] = ()
    workflows: tuple[ToolSpec, ...] = ()
    #: ``toolsets`` call option: toolset name -> its tools.
    toolsets: Mapping[str, tuple[ToolSpec, ...]] = field(default_factory=dict)
    client_tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = None
    active_tools: tuple[str, ...] | None = None
    method: Literal["generate", "stream"] = "generate"
    #: Replies the capture server gives, one per request; then the article's 400 "captured".
    replies: tuple[Reply, ...] = ()
    max_steps: int = 1
    #: Apply the boundary normaliser (``harness/remedy.cjs``) to keys, toolChoice and activeTools first.
    remedy: bool = False
    instructions: str = "p"
    timeout_ms: int = 10_000

    def to_json(self, url: str) -> dict:
        """The runner's input line; ``url`` is the capture server's base URL for this scenario."""
        data: dict = {
            "id": self.name,
            "url": url,
            "tools": [spec.to_json() for spec in self.tools],
            "method": self.method,
            "maxSteps": self.max_steps,
            "instructions": self.instructions,
            "timeoutMs": self.timeout_ms,
        }
        optional = {
            "agents": [spec.to_json() for spec in self.agents] or None,
            "workflows": [spec.to_json() for spec in self.workflows] or None,
            "toolsets": {name: [spec.to_json() for spec in specs] for name, specs in self.toolsets.items()} or None,
            "clientTools": [spec.to_json() for spec in self.client_tools] or None,
            "toolChoice": self.tool_choice,
            "activeTools": list(self.active_tools) if self.active_tools is not None else None,
            "remedy": self.remedy or None,
        }
        data.update({name: value for name, value in optional.items() if value is not None})
        return data


def for_keys(name: str, keys: Sequence[str], tool_choice: ToolChoice = None) -> Scenario:
    """The scenario behind ``probe``: one probe tool per key, one ``generate()`` turn."""
    return Scenario(name=name, tools=tools(*keys), tool_choice=tool_choice)
