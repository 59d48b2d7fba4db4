"""The Node runners across their frameworks' API eras: one real release of each era the AI SDK's and LangChain JS's
runners branch for, installed as of its publication into a private cache and probed for real, and a release
older than every era refused in one line before anything installs.

What each era is expected to do is read from that release's own API: ``ai`` before 3.1.16 has no ``toolChoice``,
so it cannot force a tool; every other era sends the keys and a forced key as given, and runs the tool the model
calls by its key.
"""

from __future__ import annotations

import pytest
from eras import KEYS, probe_three_ways

from probe_lib import adapters
from probe_lib.core.errors import ReleaseUnsupported

pytestmark = [pytest.mark.slow, pytest.mark.node]

#: One release per era: (adapter, release, whether the forced run is sent).
ERAS = [
    ("ai-sdk", "3.1.0", False),  # @ai-sdk/openai in compatible mode, no toolChoice yet
    ("ai-sdk", "3.1.16", True),  # the first with toolChoice
    ("ai-sdk", "4.0.0", True),  # @ai-sdk/openai-compatible 0.x
    ("ai-sdk", "5.0.0", True),  # inputSchema, openai-compatible 1.x
    ("langchain-js", "0.0.1", True),  # tools and tool_choice as call options (bind), the core a dependency
    ("langchain-js", "0.2.3", True),  # bindTools, the forced key in OpenAI's object form
    ("langchain-js", "0.3.0", True),  # the forced key as a string, the core a peer
]


@pytest.mark.parametrize(("name", "version", "forces"), ERAS, ids=[f"{n}@{v}" for n, v, _ in ERAS])
def test_each_era_sends_the_keys_forces_as_its_release_can_and_runs_the_called_tool(
    name, version, forces, private_cache, capture_server
):
    plain, forcing, round_trip = probe_three_ways(name, version, capture_server)
    assert plain.failure is None and plain.wire_names == KEYS, plain.result_json()
    if forces:
        assert forcing.failure is None and forcing.forced_name == KEYS[0], forcing.result_json()
    else:
        assert forcing.not_applicable and "toolChoice" in forcing.failure.message, forcing.result_json()
    assert [execution["key"] for execution in round_trip.executions] == [KEYS[0]], round_trip.result_json()


def test_an_ai_sdk_release_older_than_every_era_is_refused_in_one_line_before_installing(private_cache):
    adapter = adapters.get("ai-sdk")
    with pytest.raises(ReleaseUnsupported, match=r" 3\.0\.0 .*\(needs ai>=3\.1\.0\)$") as refused:
        adapter.install("3.0.0")
    assert "\n" not in str(refused.value)
    assert not adapter.pins.releases.generated("3.0.0").exists()
