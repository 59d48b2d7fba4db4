"""Every framework adapter the kit ships, run on a reduced catalogue against the real framework and the capture server.

Expectations are written out from each framework's documented or source-read behaviour (tools sent verbatim or
rewritten by a stated rule, a forced tool checked or not), never taken from the kit's own model. The frameworks are
installed by `probe-lib setup --all-frameworks` (what .ci/run calls); a missing one fails the run unless
PROBE_LIB_ALLOW_NO_NODE=1, like the Mastra tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from probe_lib import frameworks
from probe_lib.analysis import matrix
from probe_lib.core.scenarios import Scenario, for_keys, named
from probe_lib.core.target import Target
from probe_lib.frameworks.keyed import KeyedAdapter
from probe_lib.install.pins import Pins
from probe_lib.measure import matrix_runs
from probe_lib.measure.collection import MATRIX
from probe_lib.measure.measurement import outcome_to_json
from probe_lib.wire.replies import ToolCall, ToolCallsReply

#: The adapters whose runner is not Mastra's; each must run here (the Claude Agent SDK, which prefixes every name
#: and also asks for tunnels to other hosts, in tests/test_claude_agent_sdk.py).
KEYED = [
    name for name in frameworks.names() if isinstance(frameworks.get(name), KeyedAdapter) and name != "claude-agent-sdk"
]
#: Frameworks that send each key as given and force a tool by its key unchanged.
VERBATIM = {
    "openai",
    "openai-responses",
    "ai-sdk",
    "langchain-js",
    "langchain",
    "openai-agents",
    "openai-agents-chat",
    "pydantic-ai",
}
#: OpenAI Agents JS makes every tool name with `name.replace(/[^a-zA-Z0-9]/g, '_')` (agents-core utils/tools).
AGENTS_JS = {"openai-agents-js", "openai-agents-js-chat"}
#: LlamaIndex sends `re.sub(r"[^a-zA-Z0-9_-]", "_", name)` (core/tools/types.py) but a forced name as given.
LLAMA_INDEX = {"llama-index"}
#: Refusals of an illegal name, in the framework's words: smolagents wants a Python identifier (tools.py,
#: `is_valid_name`); AutoGen's OpenAI client checks `[a-zA-Z0-9_-]` (autogen_ext/models/openai/_utils.py).
REFUSES_ILLEGAL = {"smolagents": "Invalid Tool name 'search.web'", "autogen": "Invalid name: search.web"}
#: Frameworks that refuse to force a name no registered tool has.
CHECK_FORCED = AGENTS_JS | {"pydantic-ai", "autogen"}
#: CrewAI converts tools with `sanitize_tool_name` (lower case, `[^a-z0-9]+` to `_`; utilities/string_utils.py) and
#: its native OpenAI provider always sends `tool_choice: "auto"`, so it cannot force a tool.
CREWAI = {"crewai"}


def _installed(adapter) -> str:
    version = adapter.versions()[-1]
    if not adapter.is_installed(version):
        message = f"{adapter.name} {version} is not installed: run `probe-lib setup --framework {adapter.name}`"
        if os.environ.get("PROBE_LIB_ALLOW_NO_NODE") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return version


def _called_back(name: str, keys: list[str], called: str) -> Scenario:
    """``keys`` registered, the model calling ``called`` (the name the framework is expected to send)."""
    return replace(for_keys(name, keys), replies=(ToolCallsReply((ToolCall(called, {"city": "Paris"}),)),))


def _reduced(adapter) -> list[Scenario]:
    scenarios = [
        for_keys("legal-plain", ["get_weather", "lookup_user"]),
        for_keys("legal", ["get_weather", "lookup_user"], named("get_weather")),
        for_keys("dot", ["search.web", "plain"]),
        for_keys("dot+forced", ["search.web", "plain"], named("search.web")),
        for_keys("unregistered", ["plain"], named("missing")),
        _called_back("legal+round-trip", ["get_weather", "lookup_user"], "get_weather"),
    ]
    if adapter.name not in REFUSES_ILLEGAL:  # the dotted key's name as it goes out (checked by the dot run)
        scenarios.append(
            _called_back(
                "dot+round-trip", ["search.web", "plain"], "search.web" if adapter.name in VERBATIM else "search_web"
            )
        )
    return scenarios


@pytest.mark.slow
@pytest.mark.parametrize("name", KEYED)
def test_framework_on_the_wire(name, capture_server):
    """One runner start per framework (the costly part), then every check on its outcomes."""
    adapter = frameworks.get(name)
    version = _installed(adapter)
    outcomes = {
        outcome.scenario.name: outcome for outcome in adapter.run(_reduced(adapter), version, server=capture_server)
    }
    for check in (
        _requests_arrive_in_the_adapters_wire_format_on_known_routes,
        _legal_keys_go_out_as_given_and_a_forced_one_is_among_them,
        _a_dotted_key_follows_the_frameworks_rule,
        _forcing_a_rewritten_key,
        _a_forced_name_no_tool_has,
        _a_call_by_the_wire_name,
    ):
        check(adapter, outcomes)


def test_every_framework_of_the_issue_is_registered():
    named_in_issue = {
        "mastra",
        "ai-sdk",
        "openai-agents-js",
        "langchain-js",
        "openai",
        "openai-agents",
        "pydantic-ai",
        "langchain",
        "llama-index",
        "smolagents",
        "autogen",
        "crewai",
    }
    assert named_in_issue <= set(frameworks.names())


def _requests_arrive_in_the_adapters_wire_format_on_known_routes(adapter, outcomes):
    legal = outcomes["legal-plain"]
    assert legal.requests, legal.error
    assert legal.wire == adapter.wire
    assert legal.unrouted == ()


def _legal_keys_go_out_as_given_and_a_forced_one_is_among_them(adapter, outcomes):
    assert outcomes["legal-plain"].wire_names == ["get_weather", "lookup_user"]
    legal = outcomes["legal"]
    if adapter.name in CREWAI:
        assert legal.failure.kind == "not applicable" and "force" in legal.failure.message
        return
    assert legal.wire_names == ["get_weather", "lookup_user"]
    assert legal.forced_name == "get_weather"
    assert legal.failure is None


def _a_dotted_key_follows_the_frameworks_rule(adapter, outcomes):
    names = outcomes["dot"].wire_names
    if adapter.name in REFUSES_ILLEGAL:
        assert names is None and outcomes["dot"].failure.kind == "rejected"
        assert REFUSES_ILLEGAL[adapter.name] in outcomes["dot"].failure.message
    elif adapter.name in VERBATIM:
        assert names == ["search.web", "plain"]
    elif adapter.name in AGENTS_JS | LLAMA_INDEX | CREWAI:
        assert names == ["search_web", "plain"]
    else:
        pytest.fail(f"no written expectation for {adapter.name}: add it here")


def _forcing_a_rewritten_key(adapter, outcomes):
    """Verbatim frameworks force the key that is in tools; Agents JS rewrites the tool, then refuses the choice;
    LlamaIndex rewrites the tool and forces the key anyway, a name its own request does not list."""
    forced = outcomes["dot+forced"]
    if adapter.name in CREWAI:
        assert forced.failure.kind == "not applicable"
    elif adapter.name in VERBATIM:
        assert forced.forced_name == "search.web" and "search.web" in forced.wire_names
    elif adapter.name in LLAMA_INDEX:
        assert forced.forced_name == "search.web" and forced.wire_names == ["search_web", "plain"]
    elif adapter.name in REFUSES_ILLEGAL:
        assert forced.requests == () and REFUSES_ILLEGAL[adapter.name] in forced.failure.message
    else:
        assert forced.requests == () and forced.failure.kind == "rejected"
        assert 'toolChoice="search.web" does not match any available tool' in forced.failure.message


def _a_forced_name_no_tool_has(adapter, outcomes):
    """The raw SDK, LangChain and others send it anyway; Agents JS, pydantic-ai and AutoGen refuse before sending."""
    unregistered = outcomes["unregistered"]
    if adapter.name in CREWAI:
        assert unregistered.failure.kind == "not applicable"
    elif adapter.name in CHECK_FORCED:
        assert unregistered.requests == () and unregistered.failure.kind == "rejected"
        assert "missing" in unregistered.failure.message
    else:
        assert unregistered.requests and unregistered.failure is None
        assert "missing" in json.dumps(unregistered.tool_choice)


def _a_call_by_the_wire_name(adapter, outcomes):
    """A legal key's name runs its tool everywhere; the dotted key's name as sent runs its tool, except under
    LlamaIndex, whose tool lookup (``acall_tool_with_selection``) uses the name as registered and raises KeyError."""
    assert [run["key"] for run in outcomes["legal+round-trip"].executions] == ["get_weather"], outcomes[
        "legal+round-trip"
    ].error
    if adapter.name in REFUSES_ILLEGAL:
        return
    dot = outcomes["dot+round-trip"]
    if adapter.name in LLAMA_INDEX:
        assert dot.executions == () and "search_web" in dot.error[0]["message"], dot.error
    else:
        assert [run["key"] for run in dot.executions] == ["search.web"], dot.error


def test_the_matrix_pairs_a_rewritten_name_with_its_key_by_the_tool_description(recorded_matrix):
    """CrewAI sends search.web and search_web as search_web and search_web_2: the descriptions say search_web is
    search.web's tool and search_web_2 the other's, while a pairing by names alone guessed the reverse."""
    crewai = matrix.table(recorded_matrix).query("target.str.startswith('crewai@') and probe == 'collision'").iloc[0]
    assert crewai["names"] == ["search_web", "search_web_2"]
    assert crewai["how"] == '"search.web" → "search_web"; "search_web" → "search_web_2"', crewai["how"]
    assert crewai["round trip called"] == "search_web" and crewai["round trip ran"] == ["search.web"]


def test_the_recorded_matrix_has_a_round_trip_wherever_the_key_went_out(recorded_matrix):
    recorded = matrix.table(recorded_matrix)
    sent = recorded["names verdict"].isin(["verbatim", "reordered", "rewritten", "duplicated"])
    # A dropped tool leaves a round trip only when the first key's tool is the one kept (the Claude Agent SDK's).
    dropped = recorded["names verdict"] == "dropped"
    assert recorded.loc[sent, "round trip"].isin(["right tool", "wrong tool", "not executed"]).all()
    assert recorded.loc[dropped, "round trip"].isin(["right tool", "wrong tool", "not executed", "not sent"]).all()
    assert set(recorded.loc[~sent & ~dropped, "round trip"]) <= set(matrix.REFUSALS) | {"not sent"}
    assert set(recorded.loc[recorded["round trip"] == "right tool", "target"]) >= {
        f"{name}@{frameworks.get(name).versions()[-1]}" for name in VERBATIM
    }


def test_an_unavailable_framework_is_recorded_not_dropped(capture_server, tmp_path):
    unavailable = KeyedAdapter(
        name="unavailable-probe",
        pins=Pins("x", tmp_path, "python", package="x"),
        wire="chat-completions",
        unavailable="cannot be installed here: its wheel needs a compiler",
    )
    (tmp_path / "x-1.0.0").mkdir()
    (tmp_path / "x-1.0.0" / "requirements.lock").write_text("x==1.0.0\n")
    [outcome] = unavailable.run([for_keys("p", ["a"])], "1.0.0", server=capture_server)
    assert outcome.failure.kind == "not applicable" and "compiler" in outcome.failure.message
    assert outcome.result_json() == {"error": {"kind": "not applicable", "message": outcome.failure.message}}


def test_cli_probe_framework_answers_per_key_set():
    _installed(frameworks.get("openai-agents-js"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "probe_lib",
            "probe",
            "--framework",
            "openai-agents-js",
            "--json",
            "--tool-choice",
            "x.y",
        ],
        input=json.dumps([["a", "x.y"], ["a"]]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    first, second = json.loads(done.stdout)
    assert first["error"]["kind"] == "rejected" and "x_y" in first["error"]["message"]
    assert second["error"]["kind"] == "rejected"


def test_the_recorded_matrix_covers_every_registered_target(recorded_matrix):
    recorded = matrix.table(recorded_matrix)
    assert set(recorded["target"]) == {f"{name}@{version}" for name, version in matrix_runs.targets()}
    assert set(recorded["probe"]) == {probe.name for probe in matrix_runs.PROBES}


def test_a_mastra_provider_path_is_not_applicable_to_a_keyed_framework_rather_than_run_as_chat(capture_server):
    adapter = frameworks.get("openai")
    version = _installed(adapter)
    [outcome] = adapter.run(
        [Scenario("p", tools=for_keys("p", ["a"]).tools, wire="messages")], version, server=capture_server
    )
    assert (outcome.requests, outcome.failure.kind) == ((), "not applicable")
    assert "Mastra's messages provider path" in outcome.failure.message


def test_targets_measured_at_once_each_get_their_own_requests(recorded_matrix):
    """Two frameworks' runners share one capture server at once (as reproduce runs the matrix): each target's
    outcomes are still exactly the ones recorded for it, request bodies included, and each end is reported."""
    chosen = [Target(name, _installed(frameworks.get(name))) for name in ("ai-sdk", "openai-agents-js")]
    ended: list[Target] = []
    measured = MATRIX.measure(chosen, ended.append)
    recorded = matrix_runs.by_target(recorded_matrix)
    assert sorted(map(str, ended)) == sorted(map(str, chosen))
    for target, live in zip(chosen, measured, strict=True):
        assert live.target == target and live.made.how == "live"
        assert {outcome.scenario.name: outcome_to_json(outcome) for outcome in live.outcomes} == {
            scenario: outcome_to_json(outcome) for scenario, outcome in recorded[str(target)].items()
        }


@pytest.mark.parametrize(
    ("column", "chart"),
    [("names verdict", "NAME_COLOURS"), ("forced verdict", "FORCED_COLOURS"), ("round trip", "ROUND_TRIP_COLOURS")],
)
def test_the_text_above_each_matrix_chart_names_every_verdict_it_draws(recorded_matrix, recorded_lists, column, chart):
    """A colour a reader sees in notebook 12's chart of ``column`` is explained in the markdown just above it: the
    verdict named in italics (*rejected*) or, for the forced and round-trip charts, told by its colour word."""
    import nbformat

    from probe_lib.core import paths

    cells = nbformat.read(paths.NOTEBOOKS / "12-framework-matrix.ipynb", as_version=4).cells
    at = next(i for i, cell in enumerate(cells) if f"pl.matrix.{chart}, " in cell.source)
    text = next(cell.source for cell in reversed(cells[:at]) if cell.cell_type == "markdown")
    drawn = set(matrix.table([*recorded_matrix, *recorded_lists])[column].dropna()) - {"not applicable"}
    colour_words = {"forced, in tools": "Green:", "not in tools": "Red:", "rejected": "Light purple:",
                    "right tool": "Green:", "not executed": "Light orange:", "wrong tool": "Red:"}  # fmt: skip
    unnamed = sorted(v for v in drawn if f"*{v}*" not in text and colour_words.get(v, "\0") not in text)
    assert not unnamed, f"the text above the chart of {column!r} does not name {unnamed}"
    hexes = {"Green:": "#a6dba0", "Red:": "#d7191c", "Light purple:": "#b2abd2", "Light orange:": "#fdb863"}
    palette = getattr(matrix, chart)
    miscoloured = [v for v in drawn if colour_words.get(v, "\0") in text and palette[v] != hexes[colour_words[v]]]
    assert not miscoloured, f"the colour the text gives {miscoloured} is not the one drawn"


def test_notebook_12_counts_the_probes_and_those_forcing_a_key_as_the_matrix_has_them():
    """Notebook 12's opening says how many probes register keys and how many of them also force one."""
    import nbformat

    from probe_lib.core import paths
    from probe_lib.measure.matrix_runs import PROBES

    cells = nbformat.read(paths.NOTEBOOKS / "12-framework-matrix.ipynb", as_version=4).cells
    opening = " ".join(next(cell.source for cell in cells if cell.cell_type == "markdown").split())
    forcing = sum(bool(probe.forced) for probe in PROBES)
    assert f"in {forcing} of the {len(PROBES)}, once forcing a key" in opening
