"""The fixed scenarios behind every claim of the ledger: recorded per version, rerun live by ``reproduce``.

Each scenario is one agent turn that isolates one behaviour. Names are stable: the ledger, the notebooks and
the recordings in ``data/captures/`` refer to scenarios by name.
"""

from __future__ import annotations

from probe_lib.core.scenarios import BUILTIN_IDS, Scenario, ToolSpec, named, tools
from probe_lib.wire.replies import TextReply, ToolCall, ToolCallsReply

#: The article's running example: a weather tool whose id is ``get-weather``, registered under ``search.web``.
WEATHER = ToolSpec("search.web", id="get-weather")
#: Keys whose rewrite shows every rule at once (substitution, prefix, cut at 63, an untouched key in third place).
AWKWARD_KEYS = ("search.web", "9lives", "weather-EU", "my tool", "ns:read/file", "1" + "a" * 62, "b" * 70)

_CALL_AND_FINISH = 2  # steps: the model's tool call, then its final text


def _round_trip(name: str, called: str, method: str = "generate") -> Scenario:
    """The scripted model calls ``called`` with city Paris, then answers ``done``."""
    return Scenario(
        name=name,
        tools=(WEATHER,),
        replies=(ToolCallsReply((ToolCall(called, {"city": "Paris"}, id="call_probe_1"),)), TextReply("done")),
        max_steps=_CALL_AND_FINISH,
        method=method,
    )


def scenarios() -> list[Scenario]:
    """Every catalogued scenario, in a stable order."""
    builtins_by_export = tuple(ToolSpec(export, builtin=export) for export in BUILTIN_IDS)
    builtins_by_id = tuple(ToolSpec(tool_id, builtin=export) for export, tool_id in BUILTIN_IDS.items())
    return [
        # The key rule (documented) and where it quietly stops holding.
        Scenario("key-not-id", tools=(WEATHER,), instructions="Always call the get-weather tool."),
        Scenario("docs-legal-keys", tools=(
            ToolSpec("weatherTool", id="weather-tool"), ToolSpec("weather-tool", id="weather-tool-2"),
            ToolSpec("my-custom-name", id="weather-tool-3"),
        )),
        Scenario("builtins-by-export", tools=builtins_by_export),
        Scenario("builtins-by-id", tools=builtins_by_id),
        # The rewrite rules.
        Scenario("rewrite-rules", tools=tools(*AWKWARD_KEYS)),
        Scenario("single-rewrite", tools=(WEATHER,)),
        Scenario("emoji-key", tools=tools("weather😀", "plain")),
        Scenario("length-64", tools=tools("a" * 64, "c" * 63)),
        Scenario("integer-keys", tools=tools("b", "42", "7", "x.y")),
        # Collisions, including the ones no second tool causes.
        Scenario("collision-dot-space", tools=tools("search.web", "search web")),
        Scenario("collision-long", tools=tools("t" * 63 + "_one", "t" * 63 + "_two")),
        Scenario("collision-proto", tools=tools("..proto..")),
        Scenario("empty-key", tools=tools("", "ok")),
        Scenario("proto-key", tools=tools("__proto__", "plain")),
        # toolChoice and activeTools.
        *(Scenario(f"choice-{mode}", tools=(WEATHER,), tool_choice=mode) for mode in ("auto", "required", "none")),
        Scenario("choice-by-key", tools=(WEATHER,), tool_choice=named("search.web")),
        Scenario("choice-by-id", tools=(WEATHER,), tool_choice=named("get-weather")),
        Scenario("choice-by-wire-name", tools=(WEATHER,), tool_choice=named("search_web")),
        Scenario("choice-legal-key", tools=(ToolSpec("search_web", id="get-weather"),), tool_choice=named("search_web")),
        Scenario("choice-by-key-stream", tools=(WEATHER,), tool_choice=named("search.web"), method="stream"),
        Scenario("active-tools-by-key", tools=(WEATHER, ToolSpec("plain")), active_tools=("search.web",)),
        Scenario("active-tools-by-wire-name", tools=(WEATHER, ToolSpec("plain")), active_tools=("search_web",)),
        # The round trip: the scripted model calls the tool back.
        _round_trip("call-by-wire-name", "search_web"),
        _round_trip("call-by-id", "get-weather"),
        _round_trip("call-by-key", "search.web"),
        _round_trip("call-by-wire-name-stream", "search_web", method="stream"),
        Scenario(
            "docs-builtin-example", tools=(ToolSpec("submitPlanTool", builtin="submitPlanTool"),), method="stream",
            replies=(ToolCallsReply((ToolCall("submitPlanTool", {"title": "t", "plan": "p"}, id="call_probe_1"),)), TextReply("done")),
        ),
        # Other sources of tools.
        Scenario("sub-agents-workflows", tools=tools("plain"), agents=(ToolSpec("research.bot"),),
                 workflows=(ToolSpec("etl.job"),)),
        Scenario("toolsets", toolsets={"my.set": (ToolSpec("set.tool"),), "other": (ToolSpec("plain"),)}),
        Scenario("client-tools", tools=tools("plain"), client_tools=(ToolSpec("client.tool"),)),
        # The remedy: a boundary normaliser applied to keys, toolChoice and activeTools together.
        Scenario("remedy-choice-by-key", tools=(WEATHER, ToolSpec("search web")), tool_choice=named("search.web"),
                 remedy=True),
        Scenario("remedy-active-tools", tools=(WEATHER, ToolSpec("plain")), active_tools=("search.web",), remedy=True),
    ]


def by_name() -> dict[str, Scenario]:
    return {scenario.name: scenario for scenario in scenarios()}
