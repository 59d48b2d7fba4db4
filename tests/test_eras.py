"""One reading of an outcome for every era: a collision is a collision, named, however the release reports it.

Measured on one real release of each era of the collision's error (README, the sweep's findings): 0.17.1 throws
the structured MastraError, 0.20.0 only ``Unknown error`` (its logger gets the MastraError), 0.24.9 a plain Error
whose message carries the refusal and its stack, 1.0.4 the structured error again (wrapped). Both the agent turn
and the direct ``formatTools()`` call are read by the one classifier, and no outcome prints where the kit's cache
is or a stack. The unpinned releases install into the cache on first use (about 25 s each).
"""

from __future__ import annotations

import json

import pytest

from probe_lib.core import paths
from probe_lib.core.outcome import readable
from probe_lib.core.scenarios import for_keys
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import runner

#: One release per era of the collision's error, and what its caller's error says.
ERAS = {"0.17.1": "structured", "0.20.0": "Unknown error", "0.24.9": "plain Error with its stack", "1.0.4": "wrapped"}
KEY_SETS = {"dot-space": ["search.web", "search web"], "proto": ["..proto.."], "empty": ["", "ok"]}
COLLISIONS = [
    {"error": {"kind": "collision", "name": "search_web"}},
    {"error": {"kind": "collision", "name": "__proto__"}},
]


@pytest.mark.node
@pytest.mark.slow
@pytest.mark.parametrize("version", ERAS)
def test_a_collision_reads_as_a_named_collision_on_every_era(version, node_modules, capture_server):
    full = [for_keys(name, keys) for name, keys in KEY_SETS.items()]
    lean = [for_keys(f"{name}-lean", keys, logs=False) for name, keys in KEY_SETS.items()]  # as probe's batch runs
    outcomes = mastra.run(full + lean, version, server=capture_server)
    outcomes, lean_outcomes = outcomes[: len(full)], outcomes[len(full) :]
    results = [outcome.result_json() for outcome in outcomes]
    assert results[:2] == COLLISIONS, f"{version} ({ERAS[version]}): {results[:2]}"
    assert [outcome.result_json() for outcome in lean_outcomes] == results, "judged alike with the exceptions alone"
    assert {record["level"] for outcome in lean_outcomes for record in outcome.logs} <= {"exception"}
    assert any(record["level"] != "exception" for outcome in outcomes for record in outcome.logs)
    assert outcomes[2].failure.kind == "crash", "the empty key is a crash, not a collision"
    assert runner.format_records(list(KEY_SETS.values()), version)[:2] == COLLISIONS
    printed = json.dumps([*results, *(outcome.behaviour().to_json() for outcome in outcomes)])
    assert str(paths.cache()) not in printed and "\\n    at " not in printed, printed


def test_the_0_21_to_0_24_error_is_read_by_its_text_and_its_stack_and_paths_are_dropped():
    """The shape 0.24.9 reports (message: "Error: " + the refusal + its stack under the cache folder)."""
    stack = f"\n    at Agent.formatTools ({paths.cache()}/node/0.24.9-x/node_modules/mastra-0.24.9/dist/c.cjs:964:413)"
    text = 'Two or more tools resolve to the same name "search_web". Please rename one of the tools.'
    chain = [{"name": "Error", "message": f"Error: {text}{stack}", "id": "AGENT_STREAM_FAILED", "details": {}}]
    failure = runner.classify(chain, sent_requests=False)
    assert (failure.kind, failure.name, failure.message) == ("collision", "search_web", text)
    crash = runner.classify([{"name": "Error", "message": f"TypeError: no{stack}"}], sent_requests=False)
    assert (crash.kind, crash.message) == ("crash", "TypeError: no") == ("crash", readable(f"TypeError: no{stack}"))


def test_an_unknown_error_is_a_collision_only_when_the_turn_logged_the_collision():
    unknown = [{"name": "Error", "message": "Unknown error", "id": "AGENT_STREAM_FAILED", "details": {}}]
    logged = {"id": runner.COLLISION_ID, "message": "Two or more tools ...", "details": {"toolName": "search_web"}}
    assert runner.classify(unknown, sent_requests=False).kind == "crash"
    failure = runner.classify(unknown, False, [{"level": "exception", "message": "x", "error": [logged]}])
    assert (failure.kind, failure.name) == ("collision", "search_web")
