"""The Python model against the real @mastra/core: any disagreement means the model is wrong.

Two levels, on every pinned version:
* the wire: 1,000 adversarial tools records per version, each a real ``generate()`` turn whose request the
  capture server records (names in wire order, or the collision / crash that ``generate()`` raised);
* the function: ``Agent.formatTools`` itself on 20,000 more records, where the one wire-only rule
  (a ``__proto__`` key vanishes later) is applied to the real output before comparing.
"""

from __future__ import annotations

import json

import pytest

from probe_lib.core import scenarios
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import normaliser
from probe_lib.frameworks.mastra.normaliser import as_sent, normalise
from probe_lib.inputs.keysets import adversarial_records

VERSIONS = mastra.ADAPTER.versions()


def _disagreements(records, real_results):
    return [
        (keys, model, real) for keys, real in zip(records, real_results) if (model := normalise(keys).to_json()) != real
    ]


def _describe(disagreements) -> str:
    keys, model, real = disagreements[0]
    return f"{len(disagreements)} records differ; first: keys={json.dumps(keys)} model={model} real={real}"


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", VERSIONS)
def test_model_equals_the_wire(version, node_modules, capture_server):
    records = adversarial_records(seed=VERSIONS.index(version), count=1000)
    assert sum(map(len, records)) >= 10_000
    outcomes = mastra.run(
        [scenarios.for_keys(f"diff-{n}", keys) for n, keys in enumerate(records)],
        version,
        server=capture_server,
        workers=2,
    )
    real = []
    for outcome in outcomes:
        result = outcome.result_json()
        result.pop("tool_choice", None)
        real.append(result)
    kinds = {next(iter(r)) if "names" in r else r["error"]["kind"] for r in real}
    assert kinds == {"names", "collision", "crash"}, "the generated records must reach every outcome"
    disagreements = _disagreements(records, real)
    assert not disagreements, _describe(disagreements)


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", VERSIONS)
def test_model_equals_format_tools(version, node_modules):
    records = [*adversarial_records(seed=100 + VERSIONS.index(version), count=20_000), ["__proto__", "plain"]]
    returned = mastra.format_records(records, version)
    # formatTools itself keeps the legal key __proto__; the request loses it later (notebook 05, F06)
    assert "__proto__" in returned[-1].get("names", ()), returned[-1]
    real = [as_sent(result) for result in returned]
    disagreements = _disagreements(records, real)
    assert not disagreements, _describe(disagreements)


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", VERSIONS)
def test_every_catalogued_key_set_matches_the_wire(version, node_modules, capture_server):
    """The named key sets the notebooks tabulate, each a real generate() turn."""
    from probe_lib.inputs import keysets

    sets = keysets.catalogue(normaliser)
    outcomes = mastra.run(
        [scenarios.for_keys(f"set-{keyset.name}", keyset.keys) for keyset in sets],
        version,
        server=capture_server,
        workers=2,
    )
    real = [{k: v for k, v in outcome.result_json().items() if k != "tool_choice"} for outcome in outcomes]
    disagreements = _disagreements([list(keyset.keys) for keyset in sets], real)
    assert not disagreements, _describe(disagreements)
