"""The ledger's checks can fail: each is fed a counterfactual copy of a real recorded outcome and must stop confirming.

The counterfactuals are what Mastra would send if the article were wrong (a rewritten tool_choice, tools kept in
registration order, ...), built by editing the recorded request bodies, never by asking the model.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest

from probe_lib.adapters import mastra
from probe_lib.core.target import baseline
from probe_lib.study import claims, recordings
from probe_lib.study.claims import Evidence

VERSION = baseline("mastra").version


@pytest.fixture(scope="module")
def recorded():
    return {version: recordings.outcomes(version, live=False) for version in mastra.ADAPTER.versions()}


def verdict(claim_id: str, outcomes, by_version) -> str:
    claim = next(c for c in claims.load_claims() if c.id == claim_id)
    return claims.judge(claim, Evidence(VERSION, outcomes, by_version)).status


def with_first_request(outcome, edit):
    body = copy.deepcopy(outcome.requests[0])
    edit(body)
    return dataclasses.replace(outcome, requests=(body, *outcome.requests[1:]))


def set_choice(name):
    return lambda body: body.update(tool_choice={"type": "function", "function": {"name": name}})


def set_tool_names(names):
    return lambda body: body.update(tools=[{"type": "function", "function": {"name": n}} for n in names])


COUNTERFACTUALS = {
    "A10": ("choice-by-key", lambda o: with_first_request(o, set_choice("search_web"))),
    "A11": ("choice-by-id", lambda o: with_first_request(o, set_choice("search_web"))),
    "F11": ("choice-by-key-stream", lambda o: with_first_request(o, set_choice("search_web"))),
    "A02": ("key-not-id", lambda o: with_first_request(o, set_tool_names(["get-weather"]))),
    "A07": ("rewrite-rules", lambda o: with_first_request(o, set_tool_names(["search_web", "_9lives", "weather-EU"]))),
    "F02": ("integer-keys", lambda o: with_first_request(o, set_tool_names(["b", "_42", "_7", "x_y"]))),
    "F01": ("emoji-key", lambda o: with_first_request(o, set_tool_names(["plain", "weather_"]))),
    "A06": ("length-64", lambda o: with_first_request(o, set_tool_names(["c" * 63, "a" * 64]))),
    "F06": ("proto-key", lambda o: with_first_request(o, set_tool_names(["__proto__", "plain"]))),
    "F09": ("active-tools-by-key", lambda o: with_first_request(o, set_tool_names(["search_web"]))),
    "A12": ("call-by-wire-name", lambda o: dataclasses.replace(o, executions=())),
    "A13": ("key-not-id", lambda o: dataclasses.replace(o, keys_after=("search_web",))),
    "F08": ("call-by-key", lambda o: dataclasses.replace(o, executions=({"key": "search.web", "id": "get-weather", "args": {}},))),
    "F05": ("collision-dot-space", lambda o: dataclasses.replace(o, error=({**o.error[0], "id": "AGENT_TOOL_NAME_COLLISION"}, *o.error[1:]))),
    "F03": ("empty-key", lambda o: dataclasses.replace(o, error=(), requests=({"tools": []},))),
    "F13": ("remedy-choice-by-key", lambda o: with_first_request(o, set_choice("search.web"))),
}


@pytest.mark.parametrize("claim_id", sorted(COUNTERFACTUALS))
def test_check_confirms_the_recording_and_rejects_its_counterfactual(claim_id, recorded):
    scenario, counterfactual = COUNTERFACTUALS[claim_id]
    outcomes = recorded[VERSION]
    assert verdict(claim_id, outcomes, recorded) == "confirmed"
    altered = {**outcomes, scenario: counterfactual(outcomes[scenario])}
    assert verdict(claim_id, altered, {**recorded, VERSION: altered}) in {"refuted", "failed"}


def test_every_claim_has_exactly_one_check_and_a_known_origin():
    loaded = claims.load_claims()
    assert {claim.id for claim in loaded} == set(claims.CHECKS)
    assert {claim.origin for claim in loaded} == {"article", "finding"}
    assert sum(claim.origin == "article" for claim in loaded) >= 14


def test_a_check_that_breaks_is_reported_as_failed_not_raised(recorded):
    outcomes = {name: outcome for name, outcome in recorded[VERSION].items() if name != "choice-by-key"}
    assert verdict("A10", outcomes, recorded) == "failed"


def test_ledger_covers_every_claim_on_every_version(recorded):
    table = claims.ledger(recorded)
    assert len(table) == len(claims.load_claims()) * len(recorded)
    assert set(table["status"]) <= set(claims.STATUSES)
    assert not table["evidence"].str.strip().eq("").any()
