"""Mastra's own lookup surfaces on a release without a tool registry: the harness says which methods are absent.

The pinned versions' lookups are held to their recordings (``test_recordings``) and to F16 (``test_claims``); here a
0.x release (0.13.2, also one of the sweep's eras) shows the other era: its ``Mastra`` class has no ``getTool``,
``getToolById`` or ``listTools``, so those are reported as absent (``None``), not as lookups that found nothing.
"""

from __future__ import annotations

import pytest

from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import catalogue


@pytest.mark.node
def test_a_0x_release_has_no_tool_registry_and_finds_its_agent_by_key_or_id(node_modules, capture_server):
    (outcome,) = mastra.run([catalogue.by_name()["lookup-agent-tool"]], "0.13.2", server=capture_server)
    surfaces = outcome.surfaces
    assert [surfaces[m] for m in ("Mastra.getTool", "Mastra.getToolById", "Mastra.listTools")] == [None] * 3
    assert surfaces["Agent.listTools"] is None and surfaces["Agent.getTools"] == [["search.web", "get-weather"]]
    by_key, by_id = surfaces["Mastra.getAgent"], surfaces["Mastra.getAgentById"]
    assert [by_key[q].get("found") for q in ("weather.agent", "weather-agent")] == ["agent", None]
    assert [by_id[q].get("found") for q in ("weather.agent", "weather-agent", "weather_agent")] == ["agent"] * 2 + [
        None
    ]
    assert outcome.wire_names == ["search_web"]
