"""Scenario files: the catalogue lives in one, round-trips through the format unchanged, and bad files are one line."""

from __future__ import annotations

import dataclasses
import json

import jsonschema
import pytest
import yaml

from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.scenarios import Scenario, ToolSpec, json_name, named, tools
from probe_lib.core.target import baseline
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import catalogue
from probe_lib.inputs import scenario_files
from probe_lib.measure.measurement import outcome_to_json
from probe_lib.wire.replies import ErrorReply, TextReply, ToolCall, ToolCallsReply


def _mcp_client_keys(record: str) -> list[str]:
    """The keys the real @mastra/mcp client built for one served tool set, as its recording holds them."""
    document = json.loads((paths.CAPTURES / "mcp-mastra.json").read_text(encoding="utf-8"))
    (keys,) = [entry["client keys"] for entry in document["tool sets"] if entry["record"] == record]
    return keys


def _catalogue_as_python() -> list[Scenario]:
    """The catalogue as ``catalogue.py`` built it in Python before it moved into ``catalogue.yaml`` (copied verbatim,
    with the scenarios issue 9 added), so the move is checked against what the recordings were made from, not
    against the file itself. The imported tool set's keys are read from the MCP recording they were copied from."""
    weather = ToolSpec("search.web", id="get-weather")
    awkward = ("search.web", "9lives", "weather-EU", "my tool", "ns:read/file", "1" + "a" * 62, "b" * 70)
    docs_key_examples = (
        ("weatherTool", "weather-tool"),
        ("weather-tool", "weather-tool"),
        ("my-custom-name", "weather-tool"),
    )

    def round_trip(name: str, called: str, method: str = "generate") -> Scenario:
        return Scenario(
            name=name,
            tools=(weather,),
            method=method,
            max_steps=2,
            replies=(ToolCallsReply((ToolCall(called, {"city": "Paris"}, id="call_probe_1"),)), TextReply("done")),
        )

    return [
        Scenario("package-facts", report_package=True),
        Scenario("docs-shipped", docs_sections=("Control `toolName` in stream responses", "Built-in tools")),
        Scenario("docs-tool-choice", docs_mentions=("toolChoice",)),
        Scenario("key-not-id", tools=(weather,), instructions="Always call the get-weather tool."),
        Scenario("instructions-name-key", tools=(weather,), instructions="Always call the search.web tool."),
        Scenario(
            "docs-legal-keys",
            tools=(
                ToolSpec("weatherTool", id="weather-tool"),
                ToolSpec("weather-tool", id="weather-tool-2"),
                ToolSpec("my-custom-name", id="weather-tool-3"),
            ),
        ),
        Scenario("docs-key-examples", tools=tuple(ToolSpec(key, id=tool_id) for key, tool_id in docs_key_examples)),
        Scenario("builtins-by-export", all_builtins="export"),
        Scenario("builtins-by-id", all_builtins="id"),
        Scenario("rewrite-rules", tools=tools(*awkward)),
        Scenario(
            "legal-keys-interleaved",
            tools=tools("x.one", "alpha", "two words", "beta-2", "ns:read", "Gamma_3", "last.key", "omega"),
        ),
        Scenario("single-rewrite", tools=(weather,)),
        Scenario("emoji-key", tools=tools("weather😀", "plain")),
        Scenario("unicode-keys", tools=tools("caf\u00e9", "a\u00b7b", "weather\U0001f600")),
        Scenario("length-64", tools=tools("a" * 64, "c" * 63)),
        Scenario("length-issue-6302", tools=tools("m" * 67)),
        Scenario("integer-keys", tools=tools("b", "42", "7", "x.y")),
        Scenario("collision-dot-space", tools=tools("search.web", "search web")),
        Scenario("collision-long", tools=tools("t" * 63 + "_one", "t" * 63 + "_two")),
        Scenario("collision-64th-unit", tools=tools("a" * 63 + "x", "a" * 63 + "y")),
        Scenario("collision-64th-unit-utf16", tools=tools("a" * 62 + "\U0001f600", "a" * 62 + "\U0001f601")),
        Scenario("collision-proto", tools=tools("..proto..")),
        Scenario("collision-onto-legal-key", tools=tools("search.web", "search_web")),
        Scenario("collision-onto-legal-key-first", tools=tools("search_web", "search.web")),
        Scenario("empty-key", tools=tools("", "ok")),
        Scenario("proto-key", tools=tools("__proto__", "plain")),
        *(Scenario(f"choice-{mode}", tools=(weather,), tool_choice=mode) for mode in ("auto", "required", "none")),
        Scenario("choice-by-key", tools=(weather,), tool_choice=named("search.web")),
        Scenario("choice-by-id", tools=(weather,), tool_choice=named("get-weather")),
        Scenario("choice-by-wire-name", tools=(weather,), tool_choice=named("search_web")),
        Scenario(
            "choice-legal-key", tools=(ToolSpec("search_web", id="get-weather"),), tool_choice=named("search_web")
        ),
        Scenario("choice-by-key-stream", tools=(weather,), tool_choice=named("search.web"), method="stream"),
        Scenario("shared-record", tools=(weather,), shared_by=2),
        Scenario("active-tools-by-key", tools=(weather, ToolSpec("plain")), active_tools=("search.web",)),
        Scenario("active-tools-by-wire-name", tools=(weather, ToolSpec("plain")), active_tools=("search_web",)),
        round_trip("call-by-wire-name", "search_web"),
        round_trip("call-by-id", "get-weather"),
        round_trip("call-by-key", "search.web"),
        round_trip("call-by-wire-name-stream", "search_web", method="stream"),
        Scenario(
            "docs-builtin-example",
            tools=(ToolSpec("submitPlanTool", builtin="submitPlanTool"),),
            method="stream",
            replies=(
                ToolCallsReply((ToolCall("submitPlanTool", {"title": "t", "plan": "p"}, id="call_probe_1"),)),
                TextReply("done"),
            ),
        ),
        Scenario(
            "sub-agents-workflows",
            tools=tools("plain"),
            agents=(ToolSpec("research.bot"),),
            workflows=(ToolSpec("etl.job"),),
        ),
        Scenario("toolsets", toolsets={"my.set": (ToolSpec("set.tool"),), "other": (ToolSpec("plain"),)}),
        Scenario("client-tools", tools=tools("plain"), client_tools=(ToolSpec("client.tool"),)),
        Scenario(
            "mcp-set-cut-collision", tools=tools(*_mcp_client_keys("aws-cloudwatch-applicationsignals awslabs/mcp"))
        ),
        Scenario(
            "remedy-choice-by-key",
            tools=(weather, ToolSpec("search web")),
            tool_choice=named("search.web"),
            remedy=True,
        ),
        Scenario("remedy-active-tools", tools=(weather, ToolSpec("plain")), active_tools=("search.web",), remedy=True),
        *[
            scenario
            for path in ("responses", "messages")
            for scenario in (  # the router's other paths (issue 11)
                Scenario(f"rewrite-rules-{path}", tools=tools(*awkward), wire=path),
                Scenario(f"choice-by-key-{path}", tools=(weather,), tool_choice=named("search.web"), wire=path),
                Scenario(f"collision-dot-space-{path}", tools=tools("search.web", "search web"), wire=path),
            )
        ],
        *[  # Mastra's own lookup surfaces (issue 26): the tool on the Mastra instance, on the agent, on both
            Scenario(
                name,
                tools=agent_level,
                mastra_tools=mastra_level,
                agent_key="weather.agent",
                agent_id="weather-agent",
                lookups=("search.web", "get-weather", "search_web", "weather.agent", "weather-agent", "weather_agent"),
            )
            for name, agent_level, mastra_level in (
                ("lookup-mastra-tool", (), (weather,)),
                ("lookup-agent-tool", (weather,), ()),
                ("lookup-both", (weather,), (weather,)),
            )
        ],
    ]


def test_the_catalogue_file_holds_exactly_the_scenarios_the_recordings_were_made_from():
    assert catalogue.scenarios() == _catalogue_as_python()
    # The runner sees the same input lines too (the form the recordings' scenarios were sent in).
    url = "http://127.0.0.1:1/v1"
    assert [s.to_json(url) for s in catalogue.scenarios()] == [s.to_json(url) for s in _catalogue_as_python()]


def test_the_catalogue_round_trips_through_the_format():
    scenarios = catalogue.scenarios()
    text = scenario_files.dump(scenarios)
    assert scenario_files.parse(text) == scenarios
    assert scenario_files.parse(json.dumps(scenario_files.to_document(scenarios)), is_json=True) == scenarios


def test_every_scenario_field_can_be_written_in_a_file():
    """A field added to Scenario must get a file field too, or files could not say everything a scenario holds."""
    written = set(scenario_files.SCHEMA["$defs"]["ScenarioEntry"]["properties"])
    assert written == {json_name(field.name) for field in dataclasses.fields(Scenario)}
    assert "maxSteps" in written and "max_steps" not in written


def test_every_field_other_than_defaults_survives_a_round_trip():
    scenario = Scenario(
        "all-fields",
        tools=(ToolSpec("a.b", id="x", hang=True), ToolSpec("submitPlanTool", builtin="submitPlanTool")),
        agents=(ToolSpec("ag.ent"),),
        workflows=(ToolSpec("work.flow", id="wf"),),
        toolsets={"s.1": (ToolSpec("t.1"),)},
        client_tools=(ToolSpec("c.1"),),
        tool_choice="required",
        active_tools=("a.b",),
        method="stream",
        max_steps=3,
        remedy=True,
        instructions="be brief",
        timeout_ms=2500,
        logs=False,
        replies=(
            ErrorReply(429, "slow down"),
            ToolCallsReply((ToolCall("a_b", "{bad json", id="c9"),)),
            TextReply("ok"),
        ),
    )
    assert scenario_files.parse(scenario_files.dump([scenario])) == [scenario]


@pytest.mark.node
def test_round_tripped_scenarios_measure_as_recorded(node_modules, capture_server, recorded_catalogue):
    """A few catalogue scenarios, dumped to a file and read back, do on the real package what the recording says."""
    version = baseline("mastra").version
    wanted = ["rewrite-rules", "integer-keys", "choice-by-key-stream", "call-by-wire-name", "toolsets"]
    round_tripped = scenario_files.parse(scenario_files.dump([catalogue.by_name()[name] for name in wanted]))
    live = mastra.run(round_tripped, version, server=capture_server)
    recorded = recorded_catalogue[version]
    assert [outcome_to_json(o) for o in live] == [outcome_to_json(recorded[name]) for name in wanted]


# -- malformed files: each is one line naming the file, the scenario and the field -----------------------------------

GOOD = "scenarios:\n  - name: first\n    tools: [a.b]\n"

MALFORMED = {
    "wrong type": (
        GOOD + "  - name: second\n    maxSteps: two\n",
        "scenario 'second' (number 2): field 'maxSteps'",
        'Input should be a valid integer, not "two"',
    ),
    "unquoted number key": (
        "scenarios:\n  - name: n\n    tools: [b, 42]\n",
        "scenario 'n' (number 1): field 'tools[1]'",
        "quote it",
    ),
    "unknown scenario field": (
        GOOD + "    toolchoice: auto\n",
        "scenario 'first' (number 1): field 'toolchoice'",
        "unknown field; known: activeTools",
    ),
    "unknown tool field": (
        "scenarios:\n  - name: t\n    tools: [{key: a, idd: b}]\n",
        "scenario 't' (number 1): field 'tools[0].idd'",
        "unknown field; known: builtin, hang, id, key",
    ),
    "tool without key": (
        "scenarios:\n  - name: t\n    tools: [{id: b}]\n",
        "scenario 't' (number 1): field 'tools[0]'",
        "'key' is required",
    ),
    "bad toolChoice": (
        GOOD + "    toolChoice: {type: tool, name: a.b}\n",
        "scenario 'first' (number 1): field 'toolChoice",
        "",
    ),
    "bad method": (
        GOOD + "    method: call\n",
        "scenario 'first' (number 1): field 'method'",
        "Input should be 'generate' or 'stream', not \"call\"",
    ),
    "bad reply": (
        GOOD + "    replies: [{txt: hi}]\n",
        "scenario 'first' (number 1): field 'replies[0]'",
        'unknown reply kind "txt"',
    ),
    "duplicate name": (
        GOOD + "  - name: other\n  - name: first\n",
        "scenario 'first' (number 3): field 'name'",
        "duplicate name, scenario number 1 has it already",
    ),
    "a number for a field name, beside one named like a form": (
        "scenarios:\n  - name: t\n    tools: [{key: k, 0: x, mapping: []}]\n",
        "scenario 't' (number 1): field 'tools[0].0'",
        "a field name must be text, not 0; known: builtin, hang, id, key",
    ),
    "a Python-style field name": (
        GOOD + "    tool_choice: auto\n",
        "scenario 'first' (number 1): field 'tool_choice'",
        "toolChoice, tools, toolsets, wire, workflows",  # the whole list, to its end
    ),
    "field given twice": (
        GOOD + "    tools: [c]\n",
        "scenario 'first' (number 1): field 'tools' is given twice in one mapping",
        "(line 4)",
    ),
    "a builtin with hang": (
        "scenarios:\n  - name: b\n    tools: [{key: ask, builtin: askUserTool, hang: true}]\n",
        "scenario 'b' (number 1): field 'tools[0]'",
        "a builtin tool takes no id or hang",  # it ran at once, and was recorded as hanging
    ),
    "a builtin with its own id": (
        "scenarios:\n  - name: b\n    tools: [{key: ask, builtin: askUserTool, id: mine}]\n",
        "scenario 'b' (number 1): field 'tools[0]'",
        "a builtin tool takes no id or hang",
    ),
    "an empty builtin": (
        "scenarios:\n  - name: b\n    tools: [{key: ask, builtin: ''}]\n",
        "scenario 'b' (number 1): field 'tools[0].builtin'",
        "String should have at least 1 character",  # it ran as a plain probe tool
    ),
    "a key registered twice": (
        "scenarios:\n  - name: k\n    tools: [search.web, plain, search.web]\n",
        "scenario 'k' (number 1): field 'tools'",
        'the list: key "search.web" appears twice; a tools record holds each key once',  # the first tool vanished
    ),
    "no scenarios": ("description: nothing\n", "'scenarios' is required", ""),
    "unknown top field": (GOOD + "senarios: []\n", "field 'senarios'", "unknown field; known: description, scenarios"),
    "empty name": ("scenarios:\n  - name: ''\n", "field 'name'", "String should have at least 1 character"),
    "toolset named by a number": (
        "scenarios:\n  - name: s\n    toolsets: {1: [x]}\n",
        "scenario 's' (number 1): field 'toolsets.1'",
        "Input should be a valid string, not 1 (quote it",
    ),
    "a list, not a mapping": ("- name: a\n", "the top level must be a mapping with a 'scenarios' list, not list", ""),
    "not YAML": ("scenarios: [\n", "not valid YAML", ""),
    "empty file": ("", "the file is empty", ""),
}


@pytest.mark.parametrize("case", MALFORMED, ids=str)
def test_a_malformed_file_is_one_line_naming_file_scenario_and_field(case, tmp_path):
    text, where, what = MALFORMED[case]
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        scenario_files.load(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert where in message and what in message, message


#: Malformed files whose fault a JSON Schema cannot see: a reply's form, a duplicate name, YAML itself, a key
#: that JSON could not hold.
_BEYOND_A_SCHEMA = {
    "bad reply",
    "duplicate name",
    "field given twice",
    "not YAML",
    "toolset named by a number",
    "a builtin with hang",
    "a builtin with its own id",
    "a key registered twice",
}


def test_an_editor_checking_against_the_published_schema_agrees_with_the_reader():
    """The schema published for editors accepts the kit's own files and refuses each malformed file above that a
    schema can judge."""
    validator = jsonschema.Draft202012Validator(scenario_files.SCHEMA)
    validator.check_schema(scenario_files.SCHEMA)
    assert validator.is_valid(scenario_files.to_document(catalogue.scenarios()))
    assert validator.is_valid(yaml.safe_load((paths.DATA / "scenarios" / "example.yaml").read_text(encoding="utf-8")))
    judged = [case for case in MALFORMED if case not in _BEYOND_A_SCHEMA]
    accepted = [case for case in judged if validator.is_valid(yaml.safe_load(MALFORMED[case][0]))]
    assert not accepted and len(judged) == len(MALFORMED) - len(_BEYOND_A_SCHEMA)


def test_a_malformed_json_file_is_one_line_too(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text('{"scenarios": [{"name": "j", "tools": ["a", 7]}]}', encoding="utf-8")
    with pytest.raises(
        InputError,
        match=r"mine\.json: scenario 'j' \(number 1\): field 'tools\[1\]': Input should be a key string or a \{key, "
        r"id, builtin, hang\} mapping, not 7",
    ):
        scenario_files.load(path)
    path.write_text('{"scenarios": [{"name": "j", "toolChoice": {"type": "tool", "toolName": 5}}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"toolName': Input should be a valid string, not 5$"):
        scenario_files.load(path)  # no word of YAML's numbers in a JSON file
    path.write_text('{"scenarios": [{"name": "j", "tools": ["a"], "tools": ["b"]}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r'mine\.json writes the field "tools" twice in one object; keep one'):
        scenario_files.load(path)  # as the same file in YAML is; JSON alone would keep the last
    path.write_text('{"scenarios": [', encoding="utf-8")
    with pytest.raises(InputError, match=r"mine\.json is not JSON \(Expecting value at line 1"):
        scenario_files.load(path)


def test_a_10_mb_file_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text(GOOD + "# " + "x" * 10_000_000 + "\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        scenario_files.load(path)
    assert str(raised.value) == (
        f"{path}: 10.0 MB is too big for a scenario file (at most 1 MB); split it, or generate scenarios in Python"
    )


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(InputError, match=r"cannot read scenario file .*nope\.yaml: No such file"):
        scenario_files.load(tmp_path / "nope.yaml")


def test_the_shipped_example_file_is_valid():
    scenarios = scenario_files.load(paths.DATA / "scenarios" / "example.yaml")
    assert len({s.name for s in scenarios}) == len(scenarios) >= 2
