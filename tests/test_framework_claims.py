"""The ledger's claims about the other frameworks: each holds on its framework's recorded matrix runs, and each
can fail, for the reason it names.

The counterfactual of a claim is a real recording, not an edit: the same probes as another framework ran them.
A claim that a framework rewrites, refuses or misroutes must be refuted on the raw openai SDK's runs (which send
every key verbatim); a claim that a framework sends keys verbatim must be refuted on LlamaIndex's runs (which
rewrite them); and the claim that LlamaIndex alone forces a tool absent from its own tools must be refuted once
LlamaIndex's runs are those of the openai SDK. The Claude Agent SDK's list claims are refuted when its list
probes swap outcomes (the tool named by its key behaving as when named by the name on the wire), and the claim
comparing it with Mastra also when Mastra's forced run is the openai SDK's.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from probe_lib.claims import frameworks, ledger, registry
from probe_lib.claims.verdict import MASTRA, Verdict
from probe_lib.core import paths
from probe_lib.core.target import Target
from probe_lib.measure import matrix_runs, measurement, permission_runs
from probe_lib.measure.collection import LISTS, MATRIX
from probe_lib.measure.sources import RECORDED
from probe_lib.tables.evidence import Evidence

#: Claims that a framework sends keys as given: refuted when it behaves like LlamaIndex.
VERBATIM_CLAIMS = {"X01", "X03", "X04", "X05", "X06", "X07"}
#: Claims that an order or a rewrite, refusal, truncation or misrouting is measured: refuted on the raw SDK's runs.
OTHER_CLAIMS = {"X02", "X08", "X09", "X10", "X11", "X13", "X14", "X15", "X16", "X17", "X18", "X19", "X20", "X21"}
OTHER_CLAIMS |= {"X22", "X23", "X24", "X25", "X26", "X27"}
ALONE = "X12"
#: The Claude Agent SDK's list claims, read off its list probes (probe_lib.measure.permission_runs).
LIST_CLAIMS = {"X28": "allowedTools", "X29": "disallowedTools", "X30": "subagent tools"}
LINE = "X31"


@pytest.fixture(scope="module")
def by_target(recorded_matrix, recorded_lists):
    return matrix_runs.by_target(recorded_matrix + recorded_lists)


def _target(by_target, framework: str) -> str:
    return next(target for target in by_target if target.partition("@")[0] == framework)


def _judge(claim_id: str, outcomes, by_target) -> Verdict:
    claim = next(c for c in ledger.load_claims() if c.id == claim_id)
    return ledger.judge(claim, Evidence("counterfactual", outcomes, by_target))


def test_every_framework_claim_is_counted_here():
    framework_claims = registry.ids("target")  # their since-when claims: test_framework_sweep
    assert framework_claims == VERBATIM_CLAIMS | OTHER_CLAIMS | {ALONE, LINE} | set(LIST_CLAIMS)
    assert {registry.checks()[claim].framework for claim in framework_claims} == {
        "ai-sdk",
        "openai",
        "langchain-js",
        "langchain",
        "openai-agents",
        "pydantic-ai",
        "llama-index",
        "crewai",
        "openai-agents-js",
        "smolagents",
        "autogen",
        "claude-agent-sdk",
    }, "each of the twelve frameworks besides Mastra has a claim"


def test_every_framework_claim_holds_on_the_recording(by_target):
    table = ledger.ledger({}, by_target=by_target, sources={target: "recorded" for target in by_target})
    assert set(table["framework"]) == {registry.checks()[claim_id].framework for claim_id in registry.ids("target")}
    assert (table["status"] == "confirmed").all(), table[table["status"] != "confirmed"][
        ["claim", "evidence"]
    ].to_string()
    assert (table["source"] == "recorded").all()


@pytest.mark.parametrize("claim_id", sorted(VERBATIM_CLAIMS))
def test_a_verbatim_claim_is_refuted_by_a_framework_that_rewrites(claim_id, by_target):
    verdict = _judge(claim_id, by_target[_target(by_target, "llama-index")], by_target)
    assert verdict.status == "refuted", verdict
    assert "search_web" in verdict.evidence or "search.web" in verdict.evidence, verdict


@pytest.mark.parametrize("claim_id", sorted(OTHER_CLAIMS))
def test_a_rewrite_or_refusal_claim_is_refuted_by_the_verbatim_baseline(claim_id, by_target):
    verdict = _judge(claim_id, by_target[_target(by_target, "openai")], by_target)
    assert verdict.status == "refuted", verdict


def test_llama_index_alone_is_refuted_when_it_sends_what_it_forces(by_target):
    llama = _target(by_target, "llama-index")
    as_openai = {**by_target, llama: by_target[_target(by_target, "openai")]}
    verdict = _judge(ALONE, by_target[llama], as_openai)
    assert verdict.status == "refuted" and "none" in verdict.evidence, verdict
    assert frameworks.forcing_absent_frameworks(Evidence("x", {}, by_target)) - {"mastra"} == {"llama-index"}


def _swapped(outcomes, list_name: str, spelling: str) -> dict:
    """The Claude target's outcomes with ``list_name``'s probe under ``spelling`` given the outcome of the same
    list naming the tool by the name on the wire (as if that spelling had worked)."""
    wire = outcomes[f"{list_name}=name on the wire"]
    return {**outcomes, f"{list_name}={spelling}": replace(wire, scenario=outcomes[f"{list_name}={spelling}"].scenario)}


@pytest.mark.parametrize("claim_id", sorted(LIST_CLAIMS))
@pytest.mark.parametrize("spelling", ["registered key", "rewritten key", "prefixed key"])
def test_a_list_claim_is_refuted_when_another_spelling_acts_like_the_wire_name(claim_id, spelling, by_target):
    claude = by_target[_target(by_target, "claude-agent-sdk")]
    assert _judge(claim_id, claude, by_target).status == "confirmed"
    verdict = _judge(claim_id, _swapped(claude, LIST_CLAIMS[claim_id], spelling), by_target)
    assert verdict.status == "refuted" and permission_runs.SPELLINGS[spelling] in verdict.evidence, verdict


def test_the_line_claim_is_refuted_by_a_list_that_takes_the_key_or_a_mastra_that_forces_a_tool_it_sends(by_target):
    claude = by_target[_target(by_target, "claude-agent-sdk")]
    assert _judge(LINE, claude, by_target).status == "confirmed"
    assert _judge(LINE, _swapped(claude, "disallowedTools", "registered key"), by_target).status == "refuted"
    mastra = _target(by_target, MASTRA)
    forcing_its_tool = {**by_target[mastra], "dot+forced": by_target[_target(by_target, "openai")]["dot+forced"]}
    verdict = _judge(LINE, claude, {**by_target, mastra: forcing_its_tool})
    assert verdict.status == "refuted" and mastra in verdict.evidence, verdict


def test_the_framework_ledger_judges_the_list_claims_on_the_list_probes_it_is_given():
    claims = sorted([*LIST_CLAIMS, LINE])
    matrix = RECORDED.measurements(MATRIX)
    table = ledger.framework_ledger(matrix + RECORDED.measurements(LISTS)).set_index("claim")
    assert (table.loc[claims, "status"] == "confirmed").all(), table
    without = ledger.framework_ledger(matrix).set_index("claim")
    assert (without.loc[claims, "status"] == "failed").all(), without


#: Claims whose check now reads every probe its words range over: one probe's run swapped for another framework's
#: (the same keys, measured) refutes the claim, naming that probe. (claim, framework, probe, the swapped-in framework)
ONE_PROBE_SWAPPED = [
    ("X01", "ai-sdk", "space+forced", "llama-index"),
    ("X01", "ai-sdk", "colon-slash+round-trip", "llama-index"),
    ("X01", "ai-sdk", "accent+round-trip", "llama-index"),
    ("X06", "openai-agents", "mcp-prefixed", "llama-index"),
    ("X06", "openai-agents", "colon-slash+forced", "llama-index"),
    ("X06", "openai-agents", "emoji+round-trip", "llama-index"),
    ("X05", "langchain", "collision", "llama-index"),
    ("X04", "langchain-js", "colon-slash+forced", "llama-index"),
    ("X04", "langchain-js", "emoji+round-trip", "llama-index"),
    ("X07", "pydantic-ai", "emoji+forced", "llama-index"),
    ("X18", "openai-agents-js", "accent+forced", "llama-index"),
    ("X03", "openai", "empty", "llama-index"),
    ("X03", "openai", "space+forced", "llama-index"),
    ("X08", "llama-index", "space", "openai"),
    ("X08", "llama-index", "collision", "openai-agents-js"),
    ("X13", "crewai", "mcp-prefixed", "llama-index"),
    ("X17", "openai-agents-js", "accent", "openai"),
    ("X17", "openai-agents-js", "integer-order", "openai"),
    ("X21", "autogen", "space", "openai"),
    ("X21", "autogen", "emoji", "openai"),
    ("X20", "smolagents", "empty", "openai"),
    ("X20", "smolagents", "integer-order", "openai"),
]


@pytest.mark.parametrize(("claim_id", "framework", "probe", "instead"), ONE_PROBE_SWAPPED)
def test_a_claim_is_refuted_by_one_probe_of_its_range_behaving_otherwise(
    claim_id, framework, probe, instead, by_target
):
    outcomes = by_target[_target(by_target, framework)]
    assert _judge(claim_id, outcomes, by_target).status == "confirmed"
    swapped = {**outcomes, probe: by_target[_target(by_target, instead)][probe]}
    verdict = _judge(claim_id, swapped, by_target)
    assert verdict.status == "refuted" and verdict.evidence.startswith(probe.partition("+")[0]), verdict


#: A probe's run given another error: (claim, framework, probe, the error, what the refutation says).
OTHER_ERRORS = [
    ("X19", "openai-agents-js", "collision", ("Duplicate tool name search_web", "Error"), "Duplicate tool name"),
    ("X10", "llama-index", "dot+round-trip", ("no tool search_web", "ValueError"), "no KeyError"),
]


@pytest.mark.parametrize(("claim_id", "framework", "probe", "error", "said"), OTHER_ERRORS)
def test_a_run_raising_another_error_refutes_its_claim(claim_id, framework, probe, error, said, by_target):
    """X19: a collision that raises an error of its own; X10: a round trip that raises no KeyError."""
    outcomes = by_target[_target(by_target, framework)]
    message, name = error
    other = replace(outcomes[probe], error=({"message": message, "name": name},))
    verdict = _judge(claim_id, {**outcomes, probe: other}, by_target)
    assert verdict.status == "refuted" and said in verdict.evidence, verdict


@pytest.mark.parametrize(
    ("claim_id", "framework", "kept", "other"),
    [("X19", "openai-agents-js", "search_web", "search.web"), ("X25", "claude-agent-sdk", "search.web", "search_web")],
)
def test_which_colliding_tool_is_kept_is_read_from_its_description(claim_id, framework, kept, other, by_target):
    """X19 says the OpenAI Agents JS SDK keeps the second key's tool, X25 that the Claude Agent SDK keeps the
    first's: each is refuted when the one tool sent describes the other key."""
    outcomes = by_target[_target(by_target, framework)]
    assert _judge(claim_id, outcomes, by_target).status == "confirmed"
    run = outcomes["collision"]
    body = json.loads(json.dumps(run.requests[0]).replace(f"probe tool {kept}", f"probe tool {other}"))
    verdict = _judge(claim_id, {**outcomes, "collision": replace(run, requests=(body, *run.requests[1:]))}, by_target)
    assert verdict.status == "refuted" and f"not {kept!r} alone" in verdict.evidence, verdict


def test_x24_reads_anthropics_documented_limit_and_the_length_sent(by_target):
    claude = Evidence("claude", by_target[_target(by_target, "claude-agent-sdk")], by_target)
    assert frameworks.longer_than("anthropic", "documented", 64, "length-64", "length-70")(claude)[0]
    holds, text = frameworks.longer_than("anthropic", "observed", 64, "length-64")(claude)
    assert not holds and "caps names at 128, not 64" in text
    holds, text = frameworks.longer_than("anthropic", "documented", 64, "legal")(claude)
    assert not holds and "not longer than 64" in text


def test_x27_counts_the_turns_it_names(by_target):
    claude = Evidence("claude", by_target[_target(by_target, "claude-agent-sdk")], by_target)
    probes = [probe.name for probe in matrix_runs.PROBES]
    assert frameworks.resends_and_tunnels("api.anthropic.com:443", *probes, turns=14)(claude)[0]
    holds, text = frameworks.resends_and_tunnels("api.anthropic.com:443", *probes, turns=13)(claude)
    assert not holds and text == "the matrix has 14 plain turns, not 13"
    tunnelled = dict(claude.outcomes)
    first = tunnelled[probes[0]]
    tunnelled[probes[0]] = replace(first, unrouted=tuple({**entry, "status": 200} for entry in first.unrouted))
    holds, text = frameworks.resends_and_tunnels("api.anthropic.com:443", *probes, turns=14)(
        Evidence("claude", tunnelled, by_target)
    )
    assert not holds and "not only its refusal (403)" in text


def test_the_notebooks_framework_ledger_says_how_and_when_each_target_was_measured():
    """Notebook 12's ledger from the recordings: each row names the target and the runtime and day its matrix
    recording notes (read here from the file itself)."""
    table = ledger.framework_ledger(RECORDED.measurements(MATRIX) + RECORDED.measurements(LISTS))
    for row in table.itertuples():
        target = Target(row.framework, row.version)
        noted = json.loads(measurement.path(paths.CAPTURES, MATRIX.name, target).read_text(encoding="utf-8"))
        assert row.source == f"recorded, {target}, {noted['runtime']}, {noted['measured_on']}", row
