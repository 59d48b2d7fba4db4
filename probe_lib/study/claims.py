"""The claims ledger: every claim of the article and every finding of ours, judged on measured outcomes.

``data/claims.csv`` lists the claims (paraphrased, with the article section or finding they come from and the
notebook that shows them). Each has one check here, registered under its id, that reads the catalogue's
outcomes on one version (live or recorded) and returns a ``Verdict``: confirmed (holds as stated), refined
(holds with a qualification measured here), refuted (measured otherwise), not testable (the version lacks the
feature), or failed (the check itself broke: a defect of the kit, never of Mastra).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from typing import Callable, Literal, Mapping

import pandas as pd

from probe_lib import providers
from probe_lib.adapters import mastra
from probe_lib.adapters.mastra import Outcome
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.target import baseline

CLAIMS_PATH = paths.DATA / "claims.csv"
Status = Literal["confirmed", "refined", "refuted", "not testable", "failed"]
#: The version the article measured: the baseline other versions are judged against (data/baselines.csv).
ARTICLE_VERSION = baseline("mastra").version
STATUSES: tuple[Status, ...] = ("confirmed", "refined", "refuted", "not testable", "failed")


@dataclass(frozen=True)
class Claim:
    id: str
    origin: Literal["article", "finding"]
    section: str
    statement: str
    notebook: str


@dataclass(frozen=True)
class Verdict:
    claim: str
    version: str
    status: Status
    evidence: str


@dataclass(frozen=True)
class Evidence:
    """What a check may read: the catalogue's outcomes on one version, and on every version measured."""

    version: str
    outcomes: Mapping[str, Outcome]
    by_version: Mapping[str, Mapping[str, Outcome]]

    def __getitem__(self, scenario: str) -> Outcome:
        return self.outcomes[scenario]


Check = Callable[[Evidence], tuple[Status, str]]
CHECKS: dict[str, Check] = {}


def check(claim_id: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        CHECKS[claim_id] = function
        return function

    return register


def load_claims() -> list[Claim]:
    """The ledger's claims, each with a registered check; raises ``InputError`` if the file drifts."""
    with CLAIMS_PATH.open(newline="", encoding="utf-8") as handle:
        claims = [Claim(**row) for row in csv.DictReader(handle)]
    ids = [claim.id for claim in claims]
    if len(set(ids)) != len(ids):
        raise InputError(f"{CLAIMS_PATH.name}: claim ids repeat")
    missing = sorted(set(ids) ^ set(CHECKS))
    if missing:
        raise InputError(f"{CLAIMS_PATH.name} and probe_lib.study.claims disagree on claims {missing}: each claim needs one check")
    return claims


def judge(claim: Claim, evidence: Evidence) -> Verdict:
    """Run one claim's check; a check that raises is reported as failed, with the reason."""
    try:
        status, text = CHECKS[claim.id](evidence)
    except Exception as error:  # a broken check must show in the ledger, not end the report
        status, text = "failed", f"check raised {type(error).__name__}: {error}"
    return Verdict(claim.id, evidence.version, status, text)


def ledger(by_version: Mapping[str, Mapping[str, Outcome]]) -> pd.DataFrame:
    """One row per (claim, version): the claim, where it comes from, its status and one line of evidence."""
    rows = []
    for claim in load_claims():
        for version, outcomes in by_version.items():
            verdict = judge(claim, Evidence(version, outcomes, by_version))
            rows.append({
                "claim": claim.id, "origin": claim.origin, "section": claim.section, "statement": claim.statement,
                "notebook": claim.notebook, "version": version, "status": verdict.status, "evidence": verdict.evidence,
            })
    return pd.DataFrame(rows)


def status_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """Claims as rows, versions as columns, statuses as cells: the ledger at a glance."""
    return table.pivot(index="claim", columns="version", values="status")


def statuses_with_statements(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`status_matrix` with each claim's statement and notebook beside its statuses, so a reader sees what
    was judged before how it fared."""
    info = table.drop_duplicates("claim").set_index("claim")[["statement", "notebook"]]
    return info.join(status_matrix(table))


# Helpers the checks share.

def _names(outcome: Outcome) -> list[str]:
    if outcome.wire_names is None:
        raise AssertionError(f"scenario {outcome.scenario.name} sent no request: {_error_text(outcome)}")
    return outcome.wire_names


def _without_baseline(e: Evidence) -> tuple[Status, str] | None:
    """'not testable' for a cross-version claim on the baseline itself, or when the baseline was not measured."""
    if e.version == ARTICLE_VERSION:
        return "not testable", f"{ARTICLE_VERSION} is the article's version, the baseline others are compared with"
    if ARTICLE_VERSION not in e.by_version:
        return "not testable", f"the baseline {ARTICLE_VERSION} was not measured"
    return None


def _error_text(outcome: Outcome) -> str:
    return " <- ".join(f"{link.get('id') or link['name']}: {link['message'][:80]}" for link in outcome.error) or "no error"


# Article claims.

@check("A01")
def _legal_keys_are_names(e: Evidence) -> tuple[Status, str]:
    outcome = e["docs-legal-keys"]
    keys = [spec.key for spec in outcome.scenario.tools]
    ids = [spec.id for spec in outcome.scenario.tools]
    names = _names(outcome)
    if names == keys and all(name != tool_id for name, tool_id in zip(names, ids)):
        return "confirmed", f"keys {keys} went out as {names}; each tool's own id ({ids}) did not"
    return "refuted", f"keys {keys} went out as {names}"


@check("A02")
def _neither_id_nor_key(e: Evidence) -> tuple[Status, str]:
    names = _names(e["key-not-id"])
    if names == ["search_web"]:
        return "confirmed", "tool id get-weather under key search.web went out as search_web"
    return "refuted", f"went out as {names}"


@check("A03")
def _builtins(e: Evidence) -> tuple[Status, str]:
    by_export, by_id = e["builtins-by-export"], e["builtins-by-id"]
    if by_export.not_applicable:
        return "not testable", f"@mastra/core {e.version} has no built-in tools to register"
    exports = [spec.key for spec in by_export.scenario.tools]
    ids = [spec.key for spec in by_id.scenario.tools]
    if _names(by_export) == exports and _names(by_id) == ids:
        return "confirmed", f"by export: {_names(by_export)}; by id: {_names(by_id)}"
    return "refuted", f"by export: {_names(by_export)}; by id: {_names(by_id)}"


@check("A04")
def _substitution(e: Evidence) -> tuple[Status, str]:
    names = _names(e["rewrite-rules"])
    expected = {"search_web", "my_tool", "ns_read_file"}
    if expected <= set(names):
        return "confirmed", "search.web -> search_web, 'my tool' -> my_tool, ns:read/file -> ns_read_file"
    return "refuted", f"wire names {names}"


@check("A05")
def _prefix_before_cut(e: Evidence) -> tuple[Status, str]:
    names = _names(e["rewrite-rules"])
    key = "1" + "a" * 62
    cut = [name for name in names if name.startswith("_1")]
    if "_9lives" in names and cut == ["_1" + "a" * 61]:
        return "confirmed", f"9lives -> _9lives; a {len(key)}-char key starting with a digit -> {len(cut[0])} chars, last 'a' lost"
    return "refuted", f"wire names {names}"


@check("A06")
def _cut_at_63(e: Evidence) -> tuple[Status, str]:
    names = _names(e["length-64"])
    accepted_64 = not providers.check_name("a" * 64, "openai")
    if "a" * 63 in names and "a" * 64 not in names and accepted_64:
        return "confirmed", "a legal 64-char key went out as 63 chars; the openai rule (documented) accepts 64"
    return "refuted", f"lengths on the wire {[len(name) for name in names]}; openai accepts 64: {accepted_64}"


@check("A07")
def _rewritten_move_last(e: Evidence) -> tuple[Status, str]:
    outcome = e["rewrite-rules"]
    names = _names(outcome)
    keys = [spec.key for spec in outcome.scenario.tools]
    # The article's rules applied by hand to catalogue.AWKWARD_KEYS, minus weather-EU, in registration order.
    rewritten_in_registration_order = ["search_web", "_9lives", "my_tool", "ns_read_file", "_1" + "a" * 61, "b" * 63]
    if names[0] == "weather-EU" and keys.index("weather-EU") == 2 and names[1:] == rewritten_in_registration_order:
        return "confirmed", f"weather-EU registered 3rd of {len(keys)}, went out 1st; the {len(names) - 1} rewritten keys follow in registration order"
    return "refuted", f"wire order {names}"


@check("A08")
def _collision(e: Evidence) -> tuple[Status, str]:
    dot_space, long = e["collision-dot-space"], e["collision-long"]
    names = (dot_space.collision_name, long.collision_name)
    text_ok = all("Two or more tools resolve to the same name" in (o.error[0]["message"] if o.error else "") for o in (dot_space, long))
    if names[0] == "search_web" and names[1] == "t" * 63 and text_ok:
        ids = sorted({i for o in (dot_space, long) for i in o.error_ids})
        return "refined", (f"both refused before any request, naming {names[0]} and a 63-char name; the caller's "
                           f"error carries ids {ids} (see F05), the inner error's details keep the name")
    return "refuted", f"collision names {names}; errors: {_error_text(dot_space)}"


@check("A09")
def _single_rewrite_silent(e: Evidence) -> tuple[Status, str]:
    outcome = e["single-rewrite"]
    only_provider_error = all(link["name"] == "AI_APICallError" for link in outcome.error)
    if outcome.requests and only_provider_error:
        return "confirmed", "search.web alone: the request went out as search_web; the only error was the capture server's 400"
    return "refuted", _error_text(outcome)


def _forces_absent_tool(outcome: Outcome, forced_as: str, context: str = "") -> tuple[Status, str]:
    """Confirmed when the request forces ``forced_as`` verbatim and ``tools`` holds no function by that name."""
    forced, names = outcome.forced_name, _names(outcome)
    if forced == forced_as and forced not in names:
        return "confirmed", f"{context}tools {names}, tool_choice names {forced!r}"
    return "refuted", f"{context}tools {names}, tool_choice {outcome.tool_choice}"


@check("A10")
def _choice_by_key(e: Evidence) -> tuple[Status, str]:
    return _forces_absent_tool(e["choice-by-key"], "search.web")


@check("A11")
def _choice_by_id(e: Evidence) -> tuple[Status, str]:
    return _forces_absent_tool(e["choice-by-id"], "get-weather")


@check("A12")
def _round_trip(e: Evidence) -> tuple[Status, str]:
    outcome = e["call-by-wire-name"]
    ran = [(x["key"], x["args"]) for x in outcome.executions]
    replies = outcome.tool_replies
    if ran == [("search.web", {"city": "Paris"})] and [m["tool_call_id"] for m in replies] == ["call_probe_1"]:
        return "confirmed", f"model called search_web: execute ran with {ran[0][1]}; follow-up tool message {replies[0]['content']} under call_probe_1"
    return "refuted", f"executions {ran}; follow-up tool messages {replies}"


@check("A13")
def _not_mutated(e: Evidence) -> tuple[Status, str]:
    outcome = e["key-not-id"]
    if outcome.keys_after == ("search.web",) and outcome.ids_after == ("get-weather",) == outcome.ids_before:
        return "confirmed", "after the turn the caller's record still has key search.web and the tool id get-weather"
    return "refuted", f"keys after {outcome.keys_after}, ids after {outcome.ids_after}"


@check("A14")
def _same_across_versions(e: Evidence) -> tuple[Status, str]:
    if verdict := _without_baseline(e):
        return verdict
    base = e.by_version[ARTICLE_VERSION]
    same = [name for name in ("rewrite-rules", "choice-by-key", "collision-dot-space", "integer-keys")
            if e[name].result_json() == base[name].result_json()]
    if len(same) == 4:
        return "confirmed", f"same wire names, tool_choice and collisions as {ARTICLE_VERSION} ({', '.join(same)})"
    return "refuted", f"only {same} agree with {ARTICLE_VERSION}"


# Our findings.

@check("F01")
def _emoji(e: Evidence) -> tuple[Status, str]:
    names = _names(e["emoji-key"])
    if "weather__" in names:
        return "confirmed", "weather😀 went out as weather__ (two underscores for one emoji)"
    return "refuted", f"wire names {names}"


@check("F02")
def _integer_keys(e: Evidence) -> tuple[Status, str]:
    outcome = e["integer-keys"]
    keys = [spec.key for spec in outcome.scenario.tools]
    names = _names(outcome)
    # Registered b, 42, 7, x.y: moving rewritten keys in registration order alone would give b, _42, _7, x_y.
    if names == ["b", "_7", "_42", "x_y"]:
        return "confirmed", f"registered {keys}, sent {names}: 7 and 42 are enumerated first, in numeric order"
    return "refuted", f"registered {keys}, sent {names}"


@check("F03")
def _empty_key(e: Evidence) -> tuple[Status, str]:
    outcome = e["empty-key"]
    innermost = outcome.error[-1] if outcome.error else {}
    if not outcome.requests and innermost.get("name") == "TypeError":
        return "confirmed", f"no request; generate() failed: {_error_text(outcome)}"
    return "refuted", _error_text(outcome)


@check("F04")
def _proto_collision(e: Evidence) -> tuple[Status, str]:
    outcome = e["collision-proto"]
    if outcome.collision_name == "__proto__" and len(outcome.scenario.tools) == 1:
        return "confirmed", "one tool, key ..proto..: refused as a collision on __proto__"
    return "refuted", _error_text(outcome)


@check("F05")
def _wrapped_id(e: Evidence) -> tuple[Status, str]:
    outcome = e["collision-dot-space"]
    if outcome.error_ids[:1] == ["AGENT_GENERATE_FAILED"] and "AGENT_TOOL_NAME_COLLISION" not in outcome.error_ids:
        return "confirmed", f"the error generate() rejects with has id {outcome.error_ids[0]}; chain: {_error_text(outcome)}"
    return "refuted", f"ids in the chain: {outcome.error_ids}"


@check("F06")
def _proto_vanishes(e: Evidence) -> tuple[Status, str]:
    outcome = e["proto-key"]
    names = _names(outcome)
    if names == ["plain"] and outcome.keys_after == ("__proto__", "plain"):
        return "confirmed", "registered __proto__ and plain; only plain was sent, and no error was raised"
    return "refuted", f"wire names {names}"


@check("F07")
def _tool_name_is_the_called_name(e: Evidence) -> tuple[Status, str]:
    by_wire, stream, by_id, docs = e["call-by-wire-name"], e["call-by-wire-name-stream"], e["call-by-id"], e["docs-builtin-example"]
    reported = {"wire name": by_wire.tool_names, "stream": stream.tool_names, "id": by_id.tool_names}
    if reported != {"wire name": ("search_web",), "stream": ("search_web",), "id": ("get-weather",)}:
        return "refuted", f"toolName reported for key search.web when the model called: {reported}"
    if docs.not_applicable:
        return "refined", f"toolName is the called name, never the key search.web ({reported}); {e.version} has no built-ins for the docs' example"
    if docs.tool_names and "submit_plan" not in docs.tool_names:
        return "confirmed", f"toolName is the called name, never the key search.web ({reported}); the docs' example sees {docs.tool_names[0]}, never submit_plan"
    return "refuted", f"docs example toolNames {docs.tool_names}"


@check("F08")
def _ids_route_keys_do_not(e: Evidence) -> tuple[Status, str]:
    by_id, by_key = e["call-by-id"], e["call-by-key"]
    id_ran = [x["key"] for x in by_id.executions] == ["search.web"]
    if not id_ran or by_key.executions:
        return "refuted", f"executions by id {by_id.executions}, by key {by_key.executions}"
    messages = [m["content"] for m in by_key.tool_replies]
    if messages and "not found" in messages[0]:
        return "confirmed", f"id get-weather ran the tool; key search.web did not, the model was told: {messages[0][:90]}"
    return "refined", f"id get-weather ran the tool; key search.web did not, and generate() failed: {_error_text(by_key)}"


@check("F09")
def _active_tools(e: Evidence) -> tuple[Status, str]:
    by_key, by_name = e["active-tools-by-key"], e["active-tools-by-wire-name"]
    if _names(by_key) == [] and _names(by_name) == ["search_web"]:
        return "confirmed", "activeTools ['search.web'] sent tools []; ['search_web'] sent ['search_web']"
    if set(_names(by_key)) == set(_names(by_name)) == {"plain", "search_web"}:
        return "refined", f"activeTools is ignored on {e.version}: every tool was sent either way ({_names(by_key)})"
    return "refuted", f"by key: {_names(by_key)}; by wire name: {_names(by_name)}"


@check("F10")
def _other_sources(e: Evidence) -> tuple[Status, str]:
    agents, toolsets, client = _names(e["sub-agents-workflows"]), _names(e["toolsets"]), _names(e["client-tools"])
    if ("agent-research_bot" in agents and "workflow-etl_job" in agents and "set_tool" in toolsets
            and not any("my" in name for name in toolsets) and "client_tool" in client):
        return "confirmed", f"sub-agent/workflow {agents[1:]}, toolset my.set -> {toolsets}, client tool -> {client[1:]}"
    return "refuted", f"agents {agents}; toolsets {toolsets}; client {client}"


@check("F11")
def _stream_mismatch(e: Evidence) -> tuple[Status, str]:
    return _forces_absent_tool(e["choice-by-key-stream"], "search.web", "stream(): ")


@check("F12")
def _version_differences(e: Evidence) -> tuple[Status, str]:
    if verdict := _without_baseline(e):
        return verdict
    base = e.by_version[ARTICLE_VERSION]
    scenarios = ("choice-none", "active-tools-by-key", "call-by-key")
    differing = [name for name in scenarios if _fingerprint(e[name]) != _fingerprint(base[name])]
    if e.version == mastra.ADAPTER.versions()[0]:
        return ("confirmed", f"oldest version: differs from {ARTICLE_VERSION} in {', '.join(differing)}") if differing else (
            "refuted", f"oldest version behaves like {ARTICLE_VERSION} in {', '.join(scenarios)}")
    return ("confirmed", f"newer version: agrees with {ARTICLE_VERSION} in {', '.join(scenarios)}") if not differing else (
        "refuted", f"newer version differs from {ARTICLE_VERSION} in {', '.join(differing)}")


def _fingerprint(outcome: Outcome) -> str:
    return json.dumps([outcome.wire_names, outcome.tool_choice, len(outcome.requests), [l["message"] for l in outcome.error]])


@check("F13")
def _remedy(e: Evidence) -> tuple[Status, str]:
    choice, active = e["remedy-choice-by-key"], e["remedy-active-tools"]
    forced, names = choice.forced_name, _names(choice)
    selected = active.mapping["search.web"]
    if forced is None or forced not in names:
        return "refuted", f"remedied: tools {names}, tool_choice {choice.tool_choice}"
    if _names(active) == [selected]:
        return "confirmed", f"remedied: tools {names}, tool_choice {forced!r}; activeTools sent {_names(active)}"
    if selected in _names(active):
        return "refined", f"remedied: tool_choice {forced!r} is offered; activeTools is ignored on {e.version} (sent {_names(active)})"
    return "refuted", f"remedied activeTools sent {_names(active)}"
