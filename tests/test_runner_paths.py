"""Mastra through its model router's other provider paths, on the real package against the capture server.

``Scenario.wire`` = ``responses`` makes the router build its own OpenAI provider (``openai/...``: the Responses API),
``messages`` its own Anthropic provider (``anthropic/...``: Messages). Each request is read as the body the capture
server recorded in that format: the route it arrived on, the format's own ``tools`` and ``tool_choice`` shapes.
Expected names are written out from the article's rules (dot to underscore, rewritten keys last), not from the model.
"""

from __future__ import annotations

import pytest

from probe_lib.core.scenarios import Scenario, ToolSpec, named, tools
from probe_lib.frameworks import mastra

pytestmark = pytest.mark.node
VERSIONS = ["1.0.4", "1.71.0"]
KEYS = ("plain", "search.web", "9lives", "b" * 70)
SENT = ["plain", "search_web", "_9lives", "b" * 63]


def _batch(path: str) -> list[Scenario]:
    return [
        Scenario(f"rewrite-{path}", tools=tools(*KEYS), wire=path),
        Scenario(
            f"forced-{path}",
            tools=(ToolSpec("search.web", id="get-weather"),),
            tool_choice=named("search.web"),
            wire=path,
        ),
        Scenario(f"collision-{path}", tools=tools("search.web", "search web"), wire=path),
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_the_responses_path_renames_like_chat_and_forces_the_key_verbatim(version, node_modules, capture_server):
    rewrite, forced, collision = mastra.run(_batch("responses"), version, server=capture_server)
    body = rewrite.requests[0]
    assert rewrite.wire == "responses" and "input" in body and "messages" not in body
    assert [tool["name"] for tool in body["tools"] if tool["type"] == "function"] == SENT
    assert forced.requests[0]["tool_choice"] == {"type": "function", "name": "search.web"}
    assert [tool["name"] for tool in forced.requests[0]["tools"]] == ["search_web"]
    assert (collision.requests, collision.failure.kind, collision.wire) == ((), "collision", "responses")
    assert collision.failure.name == "search_web"


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_the_messages_path_renames_like_chat_and_forces_the_key_verbatim(version, node_modules, capture_server):
    rewrite, forced, collision = mastra.run(_batch("messages"), version, server=capture_server)
    body = rewrite.requests[0]
    assert rewrite.wire == "anthropic-messages" and body["model"].startswith("claude-") and "max_tokens" in body
    assert [tool["name"] for tool in body["tools"]] == SENT and all("input_schema" in tool for tool in body["tools"])
    assert forced.requests[0]["tool_choice"] == {"type": "tool", "name": "search.web"}
    assert [tool["name"] for tool in forced.requests[0]["tools"]] == ["search_web"]
    assert (collision.requests, collision.failure.kind, collision.wire) == ((), "collision", "anthropic-messages")


@pytest.mark.slow
def test_each_turn_reaches_its_own_capture_url_when_paths_run_concurrently(node_modules, capture_server):
    """The base URL is per turn: many router-path turns at once must each land in their own scenario, and so must
    the chat turns among them (which run outside the turn's context)."""
    batch = [
        Scenario(f"own-{n}-{path}", tools=tools(f"k{n}.x"), wire=path)
        for n in range(24)
        for path in ("responses", "chat", "messages")
    ]
    outcomes = mastra.run(batch, "1.71.0", server=capture_server, concurrency=16)
    for outcome in outcomes:
        n = outcome.scenario.name.split("-")[1]
        assert len(outcome.requests) == 1 and outcome.wire_names == [f"k{n}_x"], outcome.scenario.name
