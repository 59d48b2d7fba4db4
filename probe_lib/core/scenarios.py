"""What one agent turn against the capture server looks like: the tools, the call options and the scripted model.

A ``Scenario`` is plain data. ``probe_lib.frameworks.mastra`` sends it to the Node runner (``harness/runner.cjs``),
which builds a real ``Agent`` from it and calls ``generate()`` or ``stream()``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal

from probe_lib.core.errors import InputError
from probe_lib.wire.replies import Reply

#: A ``toolChoice`` that forces no one tool.
ChoiceMode = Literal["auto", "required", "none"]
ToolChoice = ChoiceMode | Mapping[str, str] | None
Method = Literal["generate", "stream"]
#: The provider paths (see ``Scenario.wire``).
Wire = Literal["chat", "responses", "messages"]
#: How every built-in tool is registered: under its export name or its id.
AllBuiltins = Literal["export", "id"]


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


#: What every runner's probe tool says of itself, before its key, where the framework takes a description
#: (``harness/lines.*``): how a captured tool is traced back to its key whatever its wire name.
PROBE_DESCRIPTION = "probe tool "


def check_unique_names(scenarios: Sequence[Scenario]) -> None:
    """``InputError`` unless every scenario of one run has its own name (outcomes are told apart by it)."""
    counts = Counter(scenario.name for scenario in scenarios)  # not names.count: quadratic on a 10,000-set batch
    duplicated = sorted(name for name, count in counts.items() if count > 1)
    if duplicated:
        raise InputError(f"scenario names must be unique within one run; given twice: {', '.join(duplicated)}")


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
    method: Method = "generate"
    #: Replies the capture server gives, one per request; then the article's 400 "captured".
    replies: tuple[Reply, ...] = ()
    max_steps: int = 1
    #: Apply the boundary normaliser (``harness/remedy.cjs``) to keys, toolChoice and activeTools first.
    remedy: bool = False
    #: Also register every built-in tool the package exports, under its export name or its id (the runner reads
    #: them from the installed package and reports them in ``Outcome.package``).
    all_builtins: AllBuiltins | None = None
    #: Report what the package says of itself (built-ins, ``formatTools``' source) in ``Outcome.package``.
    report_package: bool = False
    #: Report the sections of the docs the installed package ships (its README and ``dist/docs``) headed by these
    #: texts, in ``Outcome.package["docs"]``: per heading, each page holding it and the section's text.
    docs_sections: tuple[str, ...] = ()
    #: Report every line of those docs that names one of these texts, in ``Outcome.package["mentions"]``: per text,
    #: each line with its page, its number and whether it lies in a code block.
    docs_mentions: tuple[str, ...] = ()
    #: How many agents are built on the very same tools record; each runs one turn, in order.
    shared_by: int = 1
    instructions: str = "p"
    #: The provider path the model speaks: ``chat`` (an OpenAI-compatible Chat Completions model, the default), or
    #: the model router's own providers, ``responses`` (``openai/...``: the OpenAI Responses API) and ``messages``
    #: (``anthropic/...``: Anthropic Messages), each of which may name tools in its own way.
    wire: Wire = "chat"
    #: Mastra's own lookup surfaces (``Outcome.surfaces``): the agent is registered on a ``Mastra`` instance under
    #: ``agent_key`` (default: its id), with ``mastra_tools`` registered on that instance, and every lookup method
    #: of both is asked for each string of ``lookups`` before the turn runs.
    lookups: tuple[str, ...] = ()
    mastra_tools: tuple[ToolSpec, ...] = ()
    agent_key: str | None = None
    #: The agent's own id (default ``probe``).
    agent_id: str | None = None
    #: Report every record the framework writes to its logger (``Outcome.logs``); ``False`` keeps only the
    #: exceptions it tracks, which the collision check reads: ``probe``'s batch prints no logs, and copying each
    #: record (Mastra's error record repeats the whole request body) was a tenth of the kit's work in a turn.
    logs: bool = True
    #: The runner's watchdog for one turn. A turn takes well under a second alone; on a loaded 2-core machine
    #: 16 concurrent turns were seen to pass 10 s, so the default leaves room (a hang still ends).
    timeout_ms: int = 30_000

    def changed(self, tool: Callable[[ToolSpec], Any] = ToolSpec.to_json, keep: Sequence[str] = ()) -> dict[str, Any]:
        """Each field that differs from its default (and ``name``, and those named in ``keep``), under its JSON
        name, in JSON form, each tool as ``tool`` writes it: what a scenario file writes down and the runner reads."""
        return {
            json_name(attribute): _as_json(getattr(self, attribute), tool)
            for attribute, default in DEFAULTS.items()
            if default is _REQUIRED or attribute in keep or getattr(self, attribute) != default
        }

    def to_json(self, url: str) -> dict:
        """The runner's input line; ``url`` is the capture server's base URL for this scenario. The runner reads the
        fields it always needs, and the others where they differ from the default; the replies are the capture
        server's."""
        fields = self.changed(keep=_RUNNER_ALWAYS)
        fields.pop("replies", None)
        return {"id": fields.pop("name"), "url": url} | fields


def json_name(attribute: str) -> str:
    """A ``Scenario`` attribute's name in JSON (scenario files, the runner's input): ``max_steps`` -> ``maxSteps``."""
    first, *rest = attribute.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _as_json(value: Any, tool: Callable[[ToolSpec], Any]) -> Any:
    """A field's value in JSON: each tool as ``tool`` writes it, replies in their JSON form, sequences as lists."""
    if isinstance(value, ToolSpec):
        return tool(value)
    if isinstance(value, Reply):
        return value.to_json()
    if isinstance(value, tuple | list):
        return [_as_json(item, tool) for item in value]
    if isinstance(value, Mapping):
        return {name: _as_json(item, tool) for name, item in value.items()}
    return value


_REQUIRED = object()
#: Each attribute's default (``_REQUIRED`` for ``name``): a file leaves a field at its default out, and the runner's
#: input every field but those of ``_RUNNER_ALWAYS``.
DEFAULTS = {
    each.name: each.default
    if each.default is not MISSING
    else each.default_factory()
    if each.default_factory is not MISSING
    else _REQUIRED
    for each in fields(Scenario)
}
#: What the runner's input holds even at its default.
_RUNNER_ALWAYS = ("tools", "method", "max_steps", "instructions", "timeout_ms")


def for_keys(name: str, keys: Sequence[str], tool_choice: ToolChoice = None, *, logs: bool = True) -> Scenario:
    """The scenario behind ``probe``: one probe tool per key, one ``generate()`` turn."""
    return Scenario(name=name, tools=tools(*keys), tool_choice=tool_choice, logs=logs)


#: The scenario-name suffixes of a framework-matrix probe's forced run and of its round trip (the matrix builds
#: them, the ledger's framework claims read them).
FORCED = "+forced"
ROUND_TRIP = "+round-trip"


class KeySets(Sequence[Scenario]):
    """:func:`for_keys` over many key sets (``probe``'s batch, which prints no logs: each scenario keeps only the
    logged exceptions its judgement reads), each scenario built when it is read: a batch holds
    its keys, not a ``Scenario`` per set (16 MiB for 10,000 sets of about 11 keys)."""

    def __init__(self, key_sets: Sequence[Sequence[str]], tool_choice: ToolChoice = None) -> None:
        self._key_sets, self._tool_choice = key_sets, tool_choice

    def __len__(self) -> int:
        return len(self._key_sets)

    def __getitem__(self, index: int) -> Scenario:  # type: ignore[override]  # no slices: a batch is read by position
        if not isinstance(index, int):
            raise TypeError(f"KeySets is read by position, not by {type(index).__name__}")
        number = range(len(self))[index]  # IndexError past the end, as a list; a negative index counts from it
        return for_keys(f"probe-{number}", self._key_sets[number], self._tool_choice, logs=False)
