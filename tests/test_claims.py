"""Every check of the ledger can fail, for the reason its claim names.

Each claim has a counterfactual: a copy of a real recorded outcome (``data/captures``) edited into what Mastra
would have done if the claim were wrong (a rewritten tool_choice, tools kept in registration order, a warning
logged, a different error text ...), never built by asking the Python model. The check must move away from its
recorded verdict to the expected one, and its evidence must give the targeted reason; a check that merely breaks
("failed") does not count.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, datetime

import nbformat
import pandas as pd
import pytest

from probe_lib.analysis import timeline
from probe_lib.claims import ledger, ranges, registry
from probe_lib.claims import mastra as claims_mastra
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import MASTRA, STATUSES, Verdict
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Failure
from probe_lib.core.scenarios import ToolSpec
from probe_lib.core.target import Target, baseline
from probe_lib.frameworks import mastra
from probe_lib.install import npm
from probe_lib.measure import measurement
from probe_lib.measure.collection import CATALOGUE, LISTS, MATRIX
from probe_lib.measure.matrix_runs import by_target
from probe_lib.measure.measurement import Made
from probe_lib.measure.sources import RECORDED
from probe_lib.report.build import measure_all
from probe_lib.tables.evidence import Evidence

VERSION = baseline("mastra").version
OLDEST = mastra.ADAPTER.versions()[0]


@pytest.fixture(scope="module")
def recorded(recorded_catalogue):
    return recorded_catalogue


def judge(claim_id: str, version: str, by_version) -> Verdict:
    claim = next(c for c in ledger.load_claims() if c.id == claim_id)
    return ledger.judge(claim, Evidence(version, by_version[version], by_version))


# -- edits of recorded outcomes ----------------------------------------------------------------------------------


def first_request(edit: Callable[[dict], None]):
    def apply(outcome):
        body = copy.deepcopy(outcome.requests[0])
        edit(body)
        return dataclasses.replace(outcome, requests=(body, *outcome.requests[1:]))

    return apply


def set_choice(name):
    return first_request(lambda body: body.update(tool_choice={"type": "function", "function": {"name": name}}))


def set_tool_names(names):
    return first_request(lambda body: body.update(tools=[{"type": "function", "function": {"name": n}} for n in names]))


def _mentions(outcome, lines):
    mentions = {"toolChoice": lines(outcome.package["mentions"]["toolChoice"])}
    return dataclasses.replace(outcome, package={**outcome.package, "mentions": mentions})


def only_required_in_docs(outcome):
    """The docs mentions without the lines giving toolChoice 'auto' or 'none', as if only 'required' were shown."""
    other_form = re.compile(r"""toolChoice\s*[:=]\s*['"](auto|none)['"]""")
    return _mentions(outcome, lambda lines: [line for line in lines if not other_form.search(line["text"])])


def docs_example(text):
    """The docs mentions with one more code line, ``text``, in a page of its own."""
    return lambda outcome: _mentions(
        outcome, lambda lines: [*lines, {"file": "dist/docs/example.md", "line": 1, "text": text.strip(), "code": True}]
    )


def replace_name(old, new):
    def edit(body):
        for tool in body["tools"]:
            if tool["function"]["name"] == old:
                tool["function"]["name"] = new

    return first_request(edit)


def add_log(level, message):
    return lambda o: dataclasses.replace(
        o, logs=(*o.logs, {"level": level, "component": "AGENT", "message": message, "args": []})
    )


def answer(method, query, found):
    """A lookup scenario's ``method`` answering ``query`` with the registration ``found`` (None: not found)."""

    def apply(outcome):
        surfaces = copy.deepcopy(outcome.surfaces)
        surfaces[method][query] = {"found": found, "id": "get-weather"} if found else {"error": "NOT_FOUND"}
        return dataclasses.replace(outcome, surfaces=surfaces)

    return apply


def fields(**changes):
    return lambda o: dataclasses.replace(o, **changes)


def first_sentence_only(o):
    return dataclasses.replace(o, error=tuple({**link, "message": link["message"].split(". ")[0]} for link in o.error))


def unwrapped_collision(o):
    """generate() rejecting with formatTools' own MastraError (id and details kept), not a wrapper."""
    return dataclasses.replace(o, error=({**o.error[-1], "class": "MastraError", "id": "AGENT_TOOL_NAME_COLLISION"},))


def thrown_not_logged(o):
    """formatTools' own MastraError reaching the caller, and no logger record of it."""
    return dataclasses.replace(unwrapped_collision(o), logs=tuple(r for r in o.logs if r["level"] != "exception"))


def forget_collision_id(o):
    """The collision as a plain Error everywhere: no MastraError with AGENT_TOOL_NAME_COLLISION in chain or logs."""

    def plain(link: dict) -> dict:
        return {**link, "class": "Error", "id": None, "code": None}

    logs = tuple(
        {**r, "error": [plain(link) for link in r["error"]]} if r["level"] == "exception" else r for r in o.logs
    )
    return dataclasses.replace(o, error=tuple(plain(link) for link in o.error), logs=logs)


def package_edit(edit: Callable[[dict], None]):
    def apply(outcome):
        package = copy.deepcopy(outcome.package)
        edit(package)
        return dataclasses.replace(outcome, package=package)

    return apply


def slice_at_64(package):
    package["formatToolsSource"] = package["formatToolsSource"].replace("slice(0, 63)", "slice(0, 64)")


def an_extra_statement(package):
    package["formatToolsSource"] = package["formatToolsSource"].replace(
        "return tools;", "console.warn(tools);\n\t\treturn tools;"
    )


def rename_docs_builtin(package):
    package["builtins"]["askUserTool"] = "ask-user"


def docs_edit(heading, old, new):
    """The shipped docs section ``heading`` (``docs-shipped``) with ``old`` written as ``new``."""

    def edit(package):
        (page,) = package["docs"][heading]
        assert old in page["text"], f"{old!r} is not in the recorded section {heading!r}"
        page["text"] = page["text"].replace(old, new, 1)

    return package_edit(edit)


def no_docs_section(package):
    package["docs"] = {heading: [] for heading in package["docs"]}


KEY_RULE, BUILTINS = "Control `toolName` in stream responses", "Built-in tools"
#: The awslabs applicationsignals set's first 63 shared characters (the collision F18 reads).
APPLICATIONSIGNALS_63 = "aws-cloudwatch-applicationsignals_batch_delete_instrumentations"


def swap_names(key_a, key_b):
    """The tools registered under ``key_a`` and ``key_b`` (told apart by their descriptions) swap wire names."""

    def edit(body):
        tools = {
            tool["function"]["description"].removeprefix("probe tool "): tool["function"] for tool in body["tools"]
        }
        tools[key_a]["name"], tools[key_b]["name"] = tools[key_b]["name"], tools[key_a]["name"]

    return first_request(edit)


def like(version, scenario):
    """The outcome ``scenario`` had on ``version`` (recorded), as if measured on the version being edited."""
    recorded = RECORDED.measurement(CATALOGUE, Target("mastra", version)).by_name()[scenario]
    return lambda o: dataclasses.replace(recorded, version=o.version)


def sent_like(version, scenario):
    """What ``scenario`` sent on ``version`` (recorded: a request, no error of Mastra's own), as the edited
    scenario's outcome: its keys stay the ones it registered."""
    return lambda o: dataclasses.replace(like(version, scenario)(o), scenario=o.scenario)


# claim -> (version judged, verdict recorded there, {scenario: edit}, verdict expected after the edit,
# reason in evidence)
COUNTERFACTUALS = {
    "A01": (
        VERSION,
        "confirmed",
        {"docs-key-examples": set_tool_names(["weather-tool"] * 3)},
        "refuted",
        "not as the keys",
    ),
    "A02": (
        VERSION,
        "confirmed",
        {"key-not-id": set_tool_names(["get-weather"])},
        "refuted",
        "the tool's id get-weather was offered",
    ),
    "A03": (
        VERSION,
        "confirmed",
        {"builtins-by-export": package_edit(rename_docs_builtin)},
        "refuted",
        "the docs' table does not match",
    ),
    "A04": (
        VERSION,
        "refuted",
        {"rewrite-rules": replace_name("my_tool", "my__tool")},
        "refuted",
        "not one underscore per character",
    ),
    "A05": (
        VERSION,
        "confirmed",
        {"rewrite-rules": replace_name("_1" + "a" * 61, "_1" + "a" * 62)},
        "refuted",
        "not prefixed then cut to 63",
    ),
    "A06": (
        VERSION,
        "confirmed",
        {"length-64": add_log("warn", "tool name cut to 63 characters")},
        "refuted",
        "the cut was not silent",
    ),
    "A07": (
        VERSION,
        "confirmed",
        {"rewrite-rules": set_tool_names(["search_web", "_9lives", "weather-EU"])},
        "refuted",
        "did not go out first",
    ),
    "A08": (
        VERSION,
        "refined",
        {"collision-long": first_sentence_only},
        "refuted",
        "error text is not the article's, in full",
    ),
    "A09": (
        VERSION,
        "refuted",
        {"single-rewrite": add_log("warn", "tool key search.web renamed to search_web")},
        "refuted",
        "not silent",
    ),
    "A10": (
        VERSION,
        "confirmed",
        {"choice-by-key": set_choice("search_web")},
        "refuted",
        "tool_choice was not sent as 'search.web'",
    ),
    "A11": (
        VERSION,
        "confirmed",
        {"choice-by-id": set_choice("search_web")},
        "refuted",
        "tool_choice was not sent as 'get-weather'",
    ),
    "A12": (VERSION, "confirmed", {"call-by-wire-name": fields(executions=())}, "refuted", "execute ran []"),
    "A13": (
        VERSION,
        "confirmed",
        {"key-not-id": fields(keys_after=("search_web",))},
        "refuted",
        "the caller's record was renamed",
    ),
    "A14": (
        OLDEST,
        "refined",
        {"package-facts": package_edit(slice_at_64)},
        "refuted",
        "formatTools' constants differ",
    ),
    "A22": (
        VERSION,
        "refuted",
        {"proto-key": set_tool_names(["__proto__", "plain"])},
        "confirmed",
        "every valid key of docs-key-examples",
    ),
    "A23": (
        VERSION,
        "confirmed",
        {"key-not-id": first_request(lambda body: body.update(tool_choice="required"))},
        "refuted",
        "key-not-id, request 1: no toolChoice set, tools ['search_web'], yet tool_choice 'required'",
    ),
    "A24": (VERSION, "refuted", {"docs-tool-choice": only_required_in_docs}, "confirmed", "only 'required'"),
    "F19": (
        VERSION,
        "confirmed",
        {"docs-tool-choice": docs_example(" toolChoice: { type: 'tool', toolName: 'search.web' },")},
        "refuted",
        "a shipped example gives toolChoice an object",
    ),
    "A15": (VERSION, "confirmed", {"choice-legal-key": set_tool_names(["search-web"])}, "refuted", "absent"),
    "A16": (
        VERSION,
        "confirmed",
        {"collision-64th-unit-utf16": fields(error=(), requests=({"tools": []},))},
        "refuted",
        "no collision",
    ),
    "A17": (
        VERSION,
        "confirmed",
        {"shared-record": fields(keys_after=("search_web",))},
        "refuted",
        "the shared record was renamed",
    ),
    "A18": (
        VERSION,
        "confirmed",
        {"length-issue-6302": set_tool_names(["m" * 67])},
        "refuted",
        "went out as lengths [67]",
    ),
    "F01": (
        VERSION,
        "confirmed",
        {"emoji-key": set_tool_names(["plain", "weather_"])},
        "refuted",
        "did not go out as weather__",
    ),
    "F02": (
        VERSION,
        "confirmed",
        {"integer-keys": set_tool_names(["b", "_42", "_7", "x_y"])},
        "refuted",
        "not first in numeric order",
    ),
    "F03": (
        VERSION,
        "confirmed",
        {"empty-key": fields(error=(), requests=({"tools": []},))},
        "refuted",
        "a request went out",
    ),
    "F04": (
        VERSION,
        "confirmed",
        {"collision-proto": fields(error=(), requests=({"tools": []},))},
        "refuted",
        "not refused as a collision on __proto__",
    ),
    "F05": (
        VERSION,
        "confirmed",
        {
            "collision-dot-space": lambda o: dataclasses.replace(
                o, error=({**o.error[0], "id": "AGENT_TOOL_NAME_COLLISION"}, *o.error[1:])
            )
        },
        "refuted",
        "the caller's error chain carries ids",
    ),
    "F06": (
        VERSION,
        "confirmed",
        {"proto-key": set_tool_names(["__proto__", "plain"])},
        "refuted",
        "registered __proto__ and plain, sent",
    ),
    "F07": (
        VERSION,
        "confirmed",
        {"call-by-wire-name": fields(tool_names=("search.web",))},
        "refuted",
        "toolName is not the name the model called",
    ),
    "F08": (
        VERSION,
        "confirmed",
        {"call-by-key": fields(executions=({"key": "search.web", "id": "get-weather", "args": {}},))},
        "refuted",
        "the model called the key search.web and the tool ran",
    ),
    "F09": (
        VERSION,
        "confirmed",
        {"active-tools-by-key": add_log("warn", "activeTools names no registered tool")},
        "refuted",
        "not silently",
    ),
    "F10": (
        VERSION,
        "confirmed",
        {"toolsets": set_tool_names(["plain", "my_set_set_tool"])},
        "refuted",
        "toolset my.set with tool set.tool",
    ),
    "F11": (
        VERSION,
        "confirmed",
        {"choice-by-key-stream": set_choice("search_web")},
        "refuted",
        "stream(): tool_choice was not sent",
    ),
    "F12": (
        OLDEST,
        "confirmed",
        {name: like(VERSION, name) for name in ("choice-none", "active-tools-by-key", "call-by-key")},
        "refuted",
        "oldest version behaves like",
    ),
    "F13": (VERSION, "confirmed", {"remedy-choice-by-key": set_choice("search.web")}, "refuted", "remedied: tools"),
    "F14": (
        VERSION,
        "confirmed",
        {"rewrite-rules-messages": first_request(lambda body: body["tools"][0].update(name="ns.read"))},
        "refuted",
        "messages: the rewrite-rules keys went out as ['ns.read'",
    ),
    "F15": (
        VERSION,
        "confirmed",
        {
            "choice-by-key-responses": first_request(
                lambda body: body.update(tool_choice={"type": "function", "name": "search_web"})
            )
        },
        "refuted",
        "responses: tool_choice was not sent as 'search.web'",
    ),
    "F16": (
        VERSION,
        "confirmed",
        {"lookup-mastra-tool": answer("Mastra.getTool", "get-weather", "mastra:search.web")},
        "refuted",
        "getTool on a Mastra-level tool: ['mastra:search.web', 'mastra:search.web', None]",
    ),
    "A19": (
        VERSION,
        "confirmed",
        {"instructions-name-key": set_tool_names(["search.web"])},
        "refuted",
        "instructions-name-key: the prompt names search.web, and the request offers it",
    ),
    "A20": (
        VERSION,
        "confirmed",
        {"docs-shipped": docs_edit(KEY_RULE, "the **object key** you use", "the **tool id** you give")},
        "refuted",
        "does not say",
    ),
    "A21": (
        VERSION,
        "confirmed",
        {"docs-shipped": docs_edit(BUILTINS, "`ask_user`", "`ask-user`")},
        "refuted",
        "does not map the article's exports to its ids",
    ),
    "F17": (
        VERSION,
        "confirmed",
        {"collision-onto-legal-key-first": fields(failure=Failure("crash", "TypeError: boom"))},
        "refuted",
        "['search_web', 'search.web'] ended as",
    ),
    "F18": (
        VERSION,
        "confirmed",
        {"mcp-set-cut-collision": fields(failure=Failure("collision", "...", name=APPLICATIONSIGNALS_63[:-1]))},
        "refuted",
        f"not a collision on {APPLICATIONSIGNALS_63}",
    ),
}

#: Edits that must move a claim from one qualified verdict to another (not only away from "confirmed").
FURTHER = {
    "A08 id found nowhere": (
        "A08",
        VERSION,
        {"collision-dot-space": forget_collision_id},
        "refuted",
        "anywhere the package exposes it",
    ),
    "A08 the cause's code lost": (
        "A08",
        VERSION,
        {
            scenario: lambda o: dataclasses.replace(o, error=tuple({**link, "code": None} for link in o.error))
            for scenario in ("collision-dot-space", "collision-long")
        },
        "refuted",
        "it reaches only the agent's logger.trackException",
    ),
    "F05 no code on the cause": (
        "F05",
        VERSION,
        {"collision-dot-space": lambda o: dataclasses.replace(o, error=tuple({**x, "code": None} for x in o.error))},
        "refuted",
        "no plain Error in the cause chain carries AGENT_TOOL_NAME_COLLISION as its code",
    ),
    "F05 the outer error no MastraError": (
        "F05",
        VERSION,
        {
            "collision-dot-space": lambda o: dataclasses.replace(
                o, error=({**o.error[0], "class": "Error"}, *o.error[1:])
            )
        },
        "refuted",
        "the error generate() rejects with is no MastraError",
    ),
    "F05 the outer error carries the code": (
        "F05",
        VERSION,
        {
            "collision-dot-space": lambda o: dataclasses.replace(
                o, error=({**o.error[0], "code": "AGENT_TOOL_NAME_COLLISION"}, *o.error[1:])
            )
        },
        "refuted",
        "carries AGENT_TOOL_NAME_COLLISION as its code",
    ),
    "F05 the code deeper than the direct cause": (
        "F05",
        VERSION,
        {
            "collision-dot-space": lambda o: dataclasses.replace(
                o, error=(o.error[0], {**o.error[1], "code": None}, {**o.error[1], "message": "deeper"})
            )
        },
        "refuted",
        "is not the code of the direct cause alone, a plain Error with no id",
    ),
    "F05 the cause carrying an id": (
        "F05",
        VERSION,
        {"collision-dot-space": lambda o: dataclasses.replace(o, error=(o.error[0], {**o.error[1], "id": "SOME_ID"}))},
        "refuted",
        "is not the code of the direct cause alone",
    ),
    "F05 the cause a TypeError": (
        "F05",
        VERSION,
        {
            "collision-dot-space": lambda o: dataclasses.replace(
                o, error=(o.error[0], {**o.error[1], "class": "TypeError"})
            )
        },
        "refuted",
        "is not the code of the direct cause alone",
    ),
    "A08 1.0.4 with no id in the caller's chain": (
        "A08",
        OLDEST,
        {
            scenario: lambda o: dataclasses.replace(o, error=tuple({**link, "code": None} for link in o.error))
            for scenario in ("collision-dot-space", "collision-long")
        },
        "refuted",
        "the caller's chain does not carry the id",
    ),
    "A08 caller sees the id": (
        "A08",
        VERSION,
        {"collision-dot-space": thrown_not_logged, "collision-long": thrown_not_logged},
        "confirmed",
        "the caller's error is a MastraError",
    ),
    "A04 emoji as one underscore": (
        "A04",
        VERSION,
        {"unicode-keys": replace_name("weather__", "weather_")},
        "confirmed",
        "weather😀 -> weather_",
    ),
    "A23 a request offering no tools names a tool choice": (
        "A23",
        VERSION,
        {"key-not-id": first_request(lambda body: body.update(tools=[]))},
        "refuted",
        "tools [], yet tool_choice 'auto' (not None)",
    ),
    "A05 an integer key sent without its underscore": (
        "A05",
        VERSION,
        {"integer-keys": replace_name("_42", "42")},
        "refuted",
        "the keys 7 and 42 went out as",
    ),
    "A14 an extra statement": (
        "A14",
        mastra.ADAPTER.versions()[-1],
        {"package-facts": package_edit(an_extra_statement)},
        "refined",
        "+console.warn(tools)",
    ),
    "A01 an id offered in place of its key": (
        "A01",
        VERSION,
        {"docs-legal-keys": set_tool_names(["weatherTool", "weather-tool-2", "my-custom-name"])},
        "refuted",
        "the tools' ids ['weather-tool-2'] were offered",
    ),
    "A04 two keys' names swapped": (
        "A04",
        VERSION,
        {"rewrite-rules": swap_names("search.web", "my tool")},
        "refuted",
        "key by key",
    ),
    "A07 legal keys reordered among themselves": (
        "A07",
        VERSION,
        {
            "legal-keys-interleaved": set_tool_names(
                ["beta-2", "alpha", "Gamma_3", "omega", "x_one", "two_words", "ns_read", "last_key"]
            )
        },
        "refuted",
        "did not go out first in their relative order",
    ),
    "A07 rewritten keys reordered after interleaved legal ones": (
        "A07",
        VERSION,
        {
            "legal-keys-interleaved": set_tool_names(
                ["alpha", "beta-2", "Gamma_3", "omega", "two_words", "x_one", "ns_read", "last_key"]
            )
        },
        "refuted",
        "the rewritten ones did not follow in registration order",
    ),
    "A05 a recorded key starting with a hyphen": (
        "A05",
        VERSION,
        {
            "proto-key": lambda outcome: dataclasses.replace(
                outcome, scenario=dataclasses.replace(outcome.scenario, tools=(ToolSpec("-lead"),))
            )
        },
        "refuted",
        "a recorded key starts with a hyphen: ['-lead']",
    ),
    "A19 the tool sent unrenamed": (
        "A19",
        VERSION,
        {"instructions-name-key": set_tool_names(["search_web_2"])},
        "refuted",
        "not the renamed tool search_web alone",
    ),
    "A07 integer-like keys in registration order among the rewritten": (
        "A07",
        VERSION,
        {"integer-keys": set_tool_names(["b", "_42", "_7", "x_y"])},
        "refuted",
        "the integer-like keys did not come first",
    ),
    "F03 a TypeError from elsewhere": (
        "F03",
        VERSION,
        {
            "empty-key": fields(
                error=(
                    {"name": "MastraError", "message": "failed", "id": "AGENT_GENERATE_FAILED"},
                    {"name": "TypeError", "message": "x is not a function", "id": None},
                )
            )
        },
        "refuted",
        "is not formatTools' key[0].match",
    ),
    "F03 the TypeError thrown bare": (
        "F03",
        VERSION,
        {"empty-key": fields(error=({"name": "TypeError", "message": "reading 'match'", "id": None},))},
        "refuted",
        "did not fail with AGENT_GENERATE_FAILED",
    ),
    "F13 another offered tool forced": (
        "F13",
        VERSION,
        {"remedy-choice-by-key": lambda o: set_choice("other")(set_tool_names(["other", "plain"])(o))},
        "refuted",
        "is not the name the mapping gives search.web",
    ),
    "F09 no tools, with an error": (
        "F09",
        VERSION,
        {"active-tools-by-key": fields(error=({"name": "Error", "message": "boom", "id": None, "class": "Error"},))},
        "refuted",
        "sent no tools, with an error: ",
    ),
    "F07 a call by the key reported under another name": (
        "F07",
        VERSION,
        {"call-by-key": fields(tool_names=("search_web",))},
        "refuted",
        "'call-by-key': ('search_web',)",
    ),
    "F07 a throwing call that still reports a name": (
        "F07",
        OLDEST,
        {"call-by-key": fields(tool_names=("get-weather",))},
        "refuted",
        "'call-by-key': ('get-weather',)",
    ),
    "F07 a call by wire name that throws and reports nothing": (
        "F07",
        VERSION,
        {"call-by-wire-name": fields(tool_names=(), error=({"name": "Error", "message": "boom", "id": None},))},
        "refuted",
        "'call-by-wire-name': ()",
    ),
    "F09 the 1.0 series applying activeTools": (
        "F09",
        OLDEST,
        {"active-tools-by-key": like(VERSION, "active-tools-by-key")},
        "refuted",
        "1.0.4 applied activeTools",
    ),
    "F12 one scenario like the baseline on the oldest": (
        "F12",
        OLDEST,
        {"choice-none": like(VERSION, "choice-none")},
        "refuted",
        f"oldest version behaves like {VERSION} in choice-none",
    ),
    "F13 the 1.0 series selecting one tool": (
        "F13",
        OLDEST,
        {"remedy-active-tools": like(VERSION, "remedy-active-tools")},
        "refuted",
        "not every tool",
    ),
    "F16 a wire name found": (
        "F16",
        VERSION,
        {"lookup-both": answer("Mastra.getToolById", "search_web", "agent:search.web")},
        "refuted",
        "the wire names: ['Mastra.getToolById(search_web)']",
    ),
    "F16 the agent's tool found by its key": (
        "F16",
        OLDEST,
        {"lookup-agent-tool": answer("Mastra.getTool", "search.web", "agent:search.web")},
        "refuted",
        "getTool / getToolById on an agent-level tool",
    ),
    "F16 the Mastra-level tool sent": (
        "F16",
        VERSION,
        {"lookup-mastra-tool": set_tool_names(["search_web"])},
        "refuted",
        "the agent's request (tools sent): [['search_web'], ['search_web']]",
    ),
    "A19 the prompt rewritten with the key": (
        "A19",
        VERSION,
        {
            "key-not-id": first_request(
                lambda body: body["messages"][0].update(content="Always call the search_web tool.")
            )
        },
        "refuted",
        "key-not-id: the instructions 'Always call the get-weather tool.' went out as system messages",
    ),
    "A20 an example returning the id": (
        "A20",
        VERSION,
        {"docs-shipped": docs_edit(KEY_RULE, 'toolName: "my-custom-name"', 'toolName: "weather-tool"')},
        "refuted",
        "return toolNames ['weatherTool', 'weather-tool', 'weather-tool']",
    ),
    "A20 docs without the section": (
        "A20",
        VERSION,
        {"docs-shipped": package_edit(no_docs_section)},
        "not testable",
        "have no section headed 'Control `toolName` in stream responses'",
    ),
    "A21 a table id no export carries": (
        "A21",
        mastra.ADAPTER.versions()[-1],
        {"docs-shipped": docs_edit(BUILTINS, "`task_check`", "`task_checks`")},
        "refuted",
        "'taskCheckTool': ('task_checks', 'task_check')",
    ),
    "A21 the two names sentence gone": (
        "A21",
        VERSION,
        {"docs-shipped": docs_edit(BUILTINS, "Each tool has two names", "Each tool has one name")},
        "refuted",
        "does not say 'Each tool has two names",
    ),
    "F17 a single rewrite onto a legal key sent": (
        "F17",
        OLDEST,
        {"collision-onto-legal-key": sent_like(OLDEST, "single-rewrite")},
        "refuted",
        "Mastra did not refuse",
    ),
    "F11 generate() forcing otherwise than stream()": (
        "F11",
        VERSION,
        {"choice-by-key": set_choice("plain")},
        "refuted",
        "generate() ",
    ),
    "F19 another string form given": (
        "F19",
        VERSION,
        {"docs-tool-choice": docs_example(" toolChoice: 'any',")},
        "refuted",
        "the shipped docs give toolChoice other values: 'any'",
    ),
    "F18 the imported set sent": (
        "F18",
        VERSION,
        {"mcp-set-cut-collision": sent_like(VERSION, "single-rewrite")},
        "refuted",
        "went out as ['search_web']; Mastra did not refuse",
    ),
    "A08 logged at error level": (
        "A08",
        VERSION,
        {
            "collision-dot-space": thrown_not_logged,
            "collision-long": lambda o: add_log("error", 'Two or more tools resolve to the same name "x"')(
                thrown_not_logged(o)
            ),
        },
        "refuted",
        "also logged at error level",
    ),
    "A08 thrown to the caller and tracked by the logger": (
        "A08",
        VERSION,
        {"collision-dot-space": unwrapped_collision, "collision-long": unwrapped_collision},
        "confirmed",
        "the agent's logger.trackException is handed it too",
    ),
    "F08 the key's call neither answered nor thrown": (
        "F08",
        OLDEST,
        {"call-by-key": fields(error=())},
        "refuted",
        "neither a 'not found' reply nor an error",
    ),
    "F08 1.0.4 answering the key's call instead of throwing": (
        "F08",
        OLDEST,
        {"call-by-key": like(VERSION, "call-by-key")},
        "refuted",
        "the statement says throw, but the model was told",
    ),
    "F08 a pin from 1.67.0 on throwing on the key's call": (
        "F08",
        VERSION,
        {"call-by-key": like(OLDEST, "call-by-key")},
        "refuted",
        "the statement says reply, but generate() threw",
    ),
    "A09 every single rewrite sent": (
        "A09",
        VERSION,
        {
            scenario: sent_like(VERSION, "single-rewrite")
            for scenario in ("collision-onto-legal-key", "collision-onto-legal-key-first", "collision-proto")
        },
        "confirmed",
        "and each of collision-onto-legal-key",
    ),
}


def _edited(recorded, version, edits):
    outcomes = dict(recorded[version])
    for scenario, edit in edits.items():
        outcomes[scenario] = edit(outcomes[scenario])
    return {**recorded, version: outcomes}


@pytest.mark.parametrize("claim_id", sorted(COUNTERFACTUALS))
def test_check_holds_on_the_recording_and_gives_way_to_its_counterfactual(claim_id, recorded):
    version, before, edits, after, reason = COUNTERFACTUALS[claim_id]
    assert judge(claim_id, version, recorded).status == before
    verdict = judge(claim_id, version, _edited(recorded, version, edits))
    assert (verdict.status, reason in verdict.evidence) == (after, True), verdict.evidence


@pytest.mark.parametrize("case", sorted(FURTHER))
def test_check_moves_between_qualified_verdicts_for_the_measured_reason(case, recorded):
    claim_id, version, edits, after, reason = FURTHER[case]
    verdict = judge(claim_id, version, _edited(recorded, version, edits))
    assert (verdict.status, reason in verdict.evidence) == (after, True), verdict.evidence


def test_every_claim_has_exactly_one_registered_check_and_every_check_a_claim_and_a_counterfactual():
    loaded = ledger.load_claims()
    assert sorted(claim.id for claim in loaded) == sorted(registry.checks())
    # the range claims: test_timeline_claims; the other frameworks' claims: test_framework_claims and
    # test_framework_sweep
    assert registry.ids("version") == set(COUNTERFACTUALS)
    assert registry.ids("version") | registry.ids("timeline", MASTRA) == registry.ids(framework=MASTRA)
    assert {claim.origin for claim in loaded} == {"article", "finding"}
    assert sum(claim.origin == "article" for claim in loaded) >= 18


def test_a_claim_without_a_check_or_a_check_without_a_claim_stops_the_ledger(monkeypatch):
    monkeypatch.delitem(registry.checks(), "A01")
    with pytest.raises(InputError, match=r"disagree on claims \['A01'\]: each claim needs one check"):
        ledger.load_claims()
    monkeypatch.setitem(registry.checks(), "Z99", registry.checks()["A10"])  # a check data/claims.csv does not list
    with pytest.raises(InputError, match=r"disagree on claims \['A01', 'Z99'\]"):
        ledger.load_claims()


def test_a_claim_registered_twice_is_refused_where_the_second_is_written():
    with pytest.raises(ValueError, match="claim A10 has two checks: _choice_by_key and _choice_by_id"):
        registry.claim("A10")(claims_mastra._choice_by_id)
    assert registry.checks()["A10"].check is claims_mastra._choice_by_key


def test_a_notebook_gets_the_claims_filed_under_it_judged_and_a_notebook_without_claims_is_refused(recorded):
    ev = Evidence(VERSION, recorded[VERSION], recorded)
    table = ledger.verdicts(ev, notebook="05-collisions")
    filed = [claim for claim in ledger.load_claims() if claim.notebook == "05-collisions"]
    assert table["claim"].tolist() == [claim.id for claim in filed] and len(filed) > 1
    assert table["status"].tolist() == [ledger.judge(claim, ev).status for claim in filed]
    with pytest.raises(InputError, match="claims.csv files no claim under the notebook '00-primer'"):
        ledger.verdicts(ev, notebook="00-primer")


def test_a_check_whose_evidence_is_missing_is_reported_as_failed_with_the_reason(recorded):
    outcomes = {name: outcome for name, outcome in recorded[VERSION].items() if name != "choice-by-key"}
    verdict = judge("A10", VERSION, {**recorded, VERSION: outcomes})
    assert verdict.status == "failed" and "'choice-by-key' was not measured" in verdict.evidence


def test_f17_stops_when_its_two_scenarios_register_their_keys_in_one_order(recorded):
    """F17 says 'whichever of the two is registered first': its two scenarios must register the keys in opposite
    orders, or the clause rests on nothing the check read."""
    outcome = recorded[VERSION]["collision-onto-legal-key-first"]
    same = recorded[VERSION]["collision-onto-legal-key"].scenario
    edited = {**recorded[VERSION], "collision-onto-legal-key-first": dataclasses.replace(outcome, scenario=same)}
    verdict = judge("F17", VERSION, {**recorded, VERSION: edited})
    assert verdict.status == "failed" and "must register their keys in opposite orders" in verdict.evidence


def test_f17_stops_when_proto_is_not_registered_alone(recorded):
    outcome = recorded[VERSION]["collision-proto"]
    beside = dataclasses.replace(outcome.scenario, tools=(*outcome.scenario.tools, ToolSpec("plain")))
    edited = {**recorded[VERSION], "collision-proto": dataclasses.replace(outcome, scenario=beside)}
    verdict = judge("F17", VERSION, {**recorded, VERSION: edited})
    assert verdict.status == "failed" and "must register ..proto.. alone" in verdict.evidence


def test_f18_stops_on_a_tool_set_that_is_not_the_servers_38(recorded):
    """F18 speaks of the awslabs server's 38 tools: a scenario registering another number is a broken input, judged
    failed with the count, not a verdict on Mastra."""
    outcome = recorded[VERSION]["mcp-set-cut-collision"]
    fewer = dataclasses.replace(outcome.scenario, tools=outcome.scenario.tools[1:])
    edited = {**recorded[VERSION], "mcp-set-cut-collision": dataclasses.replace(outcome, scenario=fewer)}
    verdict = judge("F18", VERSION, {**recorded, VERSION: edited})
    assert verdict.status == "failed" and "registers 37 tools; F18 speaks of the server's 38" in verdict.evidence


def test_a_check_that_breaks_for_another_reason_raises(recorded):
    """Only a lack of evidence becomes "failed"; a defect in a check is not hidden in the ledger."""
    outcome = recorded[VERSION]["call-by-wire-name"]
    follow_up = {**outcome.requests[1], "messages": [{"role": "tool", "content": "{}"}]}  # no tool_call_id at all
    broken = dataclasses.replace(outcome, requests=(outcome.requests[0], follow_up))
    with pytest.raises(KeyError):
        judge("A12", VERSION, {**recorded, VERSION: {**recorded[VERSION], "call-by-wire-name": broken}})


def test_ledger_covers_every_claim_on_every_version(recorded):
    table = ledger.ledger(recorded)  # no timeline and no matrix: the range and other frameworks' claims are left out
    assert len(table) == len(registry.ids("version")) * len(recorded)
    assert set(table["status"]) <= set(STATUSES) - {"failed"}
    assert not table["evidence"].str.strip().eq("").any()


@pytest.mark.parametrize("claim_id", ["A06", "A18"])
def test_a_length_claim_reads_openais_documented_row_and_refutes_on_another_limit(claim_id, recorded, monkeypatch):
    """A06 and A18 name OpenAI's documented rule (64): read as 128, like the observed rows, each refutes."""
    real = claims_mastra.providers.get_rule
    read = []

    def at_128(provider, variant):
        read.append((provider, variant))
        return dataclasses.replace(real(provider, variant), max_length=128)

    monkeypatch.setattr(claims_mastra.providers, "get_rule", at_128)
    verdict = judge(claim_id, VERSION, recorded)
    assert verdict.status == "refuted" and "allows 128 characters" in verdict.evidence, verdict.evidence
    assert set(read) == {("openai", "documented")}


def _unnamed_sources(table) -> list[str]:
    """The rows whose ``source`` does not say live or recorded first (``claim@version``)."""
    named = table["source"].str.fullmatch(r"(live|recorded)(, .+)?")
    return [f"{row.claim}@{row.version}" for row in table[~named].itertuples()]


def _report_ledger(tmp_path, drop: str | None = None):
    """The ledger as ``reproduce --recorded`` builds it, from measurement files written into ``tmp_path``;
    ``drop`` leaves that Mastra version's source out."""
    written = {m.target.version: m for m in measure_all(tmp_path, RECORDED)}
    by_version = {v: m.by_name() for v, m in written.items()}
    pins = {v: m.source for v, m in written.items() if v != drop}
    measured = RECORDED.measurements(MATRIX) + RECORDED.measurements(LISTS)
    return ledger.ledger(
        by_version,
        {MASTRA: ranges.timeline(by_version)},
        by_target=by_target(o for m in measured for o in m.outcomes),
        sources={str(m.target): m.source for m in measured},
        pin_sources=pins,
    )


@pytest.mark.slow
def test_every_ledger_row_says_how_it_was_measured(tmp_path):
    """Each row's source names live or recorded; a Mastra row also its package version and what the file notes of
    Node.js and the date, a version-range row the committed summary it was judged on."""
    table = _report_ledger(tmp_path)
    assert _unnamed_sources(table) == []
    pinned = table[(table["framework"] == "mastra") & table["version"].isin(mastra.ADAPTER.versions())]
    for row in pinned.itertuples():
        target = Target("mastra", row.version)
        noted = measurement.read(measurement.path(paths.CAPTURES, CATALOGUE.name, target)).made
        assert row.source == f"recorded, {target}, {noted.runtime}, {noted.on}"
    ranged = table[table["claim"].isin(registry.ids("timeline", MASTRA))]
    assert len(ranged) == len(registry.ids("timeline", MASTRA))
    assert ranged["source"].str.startswith("recorded, Mastra's lines of the committed data/timeline.csv (0.").all()


def test_a_mastra_row_without_its_source_is_caught(tmp_path):
    """Counterfactual: leaving one pin's source out leaves its rows unstated, and the check names them."""
    version = mastra.ADAPTER.versions()[0]
    unnamed = _unnamed_sources(_report_ledger(tmp_path, drop=version))
    assert unnamed and all(row.endswith(f"@{version}") for row in unnamed)


def test_the_overview_notebooks_ledger_says_how_each_row_was_measured(tmp_path):
    """Notebook 00 builds its ledger from its own source (each measurement's ``source``): on the recordings, each
    Mastra row names the same source as the report's ledger, each V row the committed summary, and none is
    unstated."""
    measured = RECORDED.measurements(CATALOGUE)
    by_version = {m.target.version: m.by_name() for m in measured}
    table = ledger.ledger(
        by_version, {MASTRA: ranges.timeline(by_version)}, pin_sources={m.target.version: m.source for m in measured}
    )
    assert _unnamed_sources(table) == []
    report = _report_ledger(tmp_path)
    mastra_rows = ["claim", "version", "source"]
    assert table[mastra_rows].values.tolist() == report[report["framework"] == "mastra"][mastra_rows].values.tolist()


def test_the_overview_notebook_passes_its_sources_to_the_ledger(recorded_catalogue):
    """Counterfactual of the above: the notebook's own call, without its sources, leaves rows unstated."""
    cell = nbformat.read(paths.NOTEBOOKS / "00-overview.ipynb", as_version=4).cells[2].source
    assert "pin_sources={m.target.version: m.source for m in measured}" in cell
    assert '{"mastra": pl.ranges.timeline(by_version)}' in cell
    by_version = recorded_catalogue
    bare = ledger.ledger(by_version, {MASTRA: Timeline.of(timeline.laid_over_summary(by_version))})
    assert _unnamed_sources(bare) and set(bare["source"]) == {"unstated"}


def test_a_live_source_names_the_node_and_the_day_it_measures_on(node_modules):
    """What notebook 00's ledger says of a live row: live, the version, this machine's Node.js and today (UTC)."""
    target = Target("mastra", mastra.ADAPTER.versions()[0])
    said = Made.now(target).text(target)
    node, today = npm.node_version(), datetime.now(UTC).date().isoformat()
    assert said == f"live, {target}, Node.js {node}, {today}"
    assert node.startswith("v") and said != RECORDED.measurement(CATALOGUE, target).source


def test_a_notebook_stops_on_a_refuted_claim_unless_its_refutation_is_registered_as_expected(capsys):
    table = pd.DataFrame(
        [
            {
                "claim": "A04",
                "status": "refuted",
                "evidence": "one underscore per UTF-16 code unit, so a character outside the BMP becomes two: x",
            },
            {"claim": "A05", "status": "confirmed", "evidence": "prefixed, then cut"},
        ]
    )
    ledger.assert_claims(table)
    said = capsys.readouterr().out
    expected = registry.checks()["A04"].refuted_as_measured
    assert f"A04 refuted, as expected: {expected}; no other refuted" in said and "none refuted" not in said
    table.loc[1, "status"] = "refuted"
    with pytest.raises(AssertionError, match="claims did not hold: A05 refuted: prefixed, then cut$"):
        ledger.assert_claims(table)


@pytest.mark.parametrize(
    ("claim_id", "evidence"),
    [("A04", "not one underscore per character (nor per UTF-16 unit)"), ("A08", "Mastra did not refuse")],
)
def test_an_expected_refutation_for_another_reason_stops_the_notebook(claim_id, evidence):
    """A claim registered as refuted as measured is excused only when its evidence is the refutation registered: a
    release that refutes it otherwise (the collision's wording changed, say) stops the notebook."""
    table = pd.DataFrame([{"claim": claim_id, "status": "refuted", "evidence": evidence}])
    with pytest.raises(AssertionError, match=f"claims did not hold: {claim_id} refuted: "):
        ledger.assert_claims(table)


def test_an_expected_refutation_needs_the_pattern_of_its_evidence():
    with pytest.raises(ValueError, match="needs both its reason and its evidence's pattern"):
        registry.register("Z98", lambda e: ("confirmed", ""), refuted_as_measured="a reason")
    assert "Z98" not in registry.CHECKS


def test_a_failed_check_stops_the_notebook_even_for_a_claim_expected_refuted():
    """An expected refutation excuses a refutation only: the check of such a claim that failed to run is no verdict."""
    table = pd.DataFrame([{"claim": "A04", "status": "failed", "evidence": "KeyError: 'emoji-key'"}])
    assert registry.checks()["A04"].refuted_as_measured
    with pytest.raises(AssertionError, match="claims did not hold: A04 failed: KeyError"):
        ledger.assert_claims(table)


def test_the_refutations_the_notebooks_expect_are_measured_ones(recorded):
    """``refuted_as_measured`` excuses exactly the article claims refuted on the recordings of some pinned version:
    one that held again everywhere would stop being excused by a stale reason, and one refuted anew is not
    excused."""
    articles = {claim.id for claim in ledger.load_claims() if claim.origin == "article"}
    refuted = {
        version: {
            claim_id
            for claim_id in registry.ids(framework=MASTRA) & articles
            if judge(claim_id, version, recorded).status == "refuted"
        }
        for version in mastra.ADAPTER.versions()
    }
    assert set().union(*refuted.values()) == {c for c, entry in registry.checks().items() if entry.refuted_as_measured}


def test_a_docs_line_passing_toolchoice_on_from_a_variable_is_named_and_writes_no_form(recorded_catalogue):
    """F19 names a code line giving toolChoice a variable (it writes no value); A24 does not count it as a form."""
    recorded = {version: dict(outcomes) for version, outcomes in recorded_catalogue.items()}
    docs, forms = recorded[VERSION]["docs-tool-choice"], judge("A24", VERSION, recorded).evidence
    lines = {"toolChoice: choiceOf(step),": True, "toolChoice": True, "toolChoice: 'required',": False}
    for text, named in lines.items():
        recorded[VERSION]["docs-tool-choice"] = docs_example(text)(docs)
        f19 = judge("F19", VERSION, recorded)
        assert f19.status == "confirmed" and ("example.md:1" in f19.evidence.split("pass toolChoice on")[-1]) == named
        assert (judge("A24", VERSION, recorded).evidence == forms) == named, text
