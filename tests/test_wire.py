"""The wire formats, read and answered: each format's scripted replies are parsed by the provider's own Python SDK
(``openai``, ``anthropic``) talking to the real capture server, and every body is read through one format."""

from __future__ import annotations

import anthropic
import openai
import pytest

from probe_lib import wire
from probe_lib.capture import CaptureServer
from probe_lib.providers import get_rule, lint
from probe_lib.wire.replies import TextReply, ToolCall, ToolCallsReply

CALL = ToolCallsReply((ToolCall("search_web", {"city": "Paris"}, id="call_7"),))
FUNCTION = {"type": "object", "properties": {"city": {"type": "string"}}}


@pytest.fixture
def server():
    with CaptureServer() as running:
        yield running


def _openai(server: CaptureServer, scenario: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.scenario_url(scenario), api_key="sk-probe", max_retries=0, timeout=10)


def _anthropic(server: CaptureServer, scenario: str) -> anthropic.Anthropic:
    base = server.scenario_url(scenario).removesuffix("/v1")  # the SDK appends /v1/messages itself
    return anthropic.Anthropic(base_url=base, api_key="sk-probe", max_retries=0, timeout=10)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_chat_completions_tool_call_reaches_the_openai_sdk(server, stream):
    server.script("chat", [CALL])
    tools = [{"type": "function", "function": {"name": "search_web", "parameters": FUNCTION}}]
    client = _openai(server, "chat")
    request = dict(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools)
    if stream:
        chunks = list(client.chat.completions.create(**request, stream=True))
        name = next(
            c.choices[0].delta.tool_calls[0].function.name
            for c in chunks
            if c.choices and c.choices[0].delta.tool_calls
        )
    else:
        name = client.chat.completions.create(**request).choices[0].message.tool_calls[0].function.name
    assert name == "search_web"
    [record] = server.records("chat")
    assert record.wire == "chat-completions" and wire.CHAT_COMPLETIONS.tool_names(record.body) == ["search_web"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_responses_tool_call_reaches_the_openai_sdk(server, stream):
    server.script("responses", [CALL, TextReply("done")])
    tools = [{"type": "function", "name": "search_web", "parameters": FUNCTION}]
    client = _openai(server, "responses")
    request = dict(model="m", input="hi", tools=tools, tool_choice={"type": "function", "name": "search.web"})
    if stream:
        with client.responses.stream(**request) as events:
            response = events.get_final_response()
    else:
        response = client.responses.create(**request)
    [call] = [item for item in response.output if item.type == "function_call"]
    assert (call.name, call.call_id, call.arguments) == ("search_web", "call_7", '{"city": "Paris"}')
    assert client.responses.create(model="m", input="again").output_text == "done"
    first = server.records("responses")[0]
    assert first.wire == "responses"
    assert (wire.RESPONSES.tool_names(first.body), wire.RESPONSES.forced_name(first.body)) == (
        ["search_web"],
        "search.web",
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_anthropic_messages_tool_use_reaches_the_anthropic_sdk(server, stream):
    server.script("messages", [CALL])
    tools = [{"name": "search_web", "input_schema": FUNCTION}]
    client = _anthropic(server, "messages")
    request = dict(
        model="m",
        max_tokens=16,
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        tool_choice={"type": "tool", "name": "search.web"},
    )
    if stream:
        with client.messages.stream(**request) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**request)
    [block] = message.content
    assert (block.type, block.name, block.id, block.input) == ("tool_use", "search_web", "call_7", {"city": "Paris"})
    assert message.stop_reason == "tool_use"
    [record] = server.records("messages")
    assert record.wire == "anthropic-messages"
    assert (wire.ANTHROPIC_MESSAGES.tool_names(record.body), wire.ANTHROPIC_MESSAGES.forced_name(record.body)) == (
        ["search_web"],
        "search.web",
    )


def test_an_unscripted_call_ends_in_each_formats_error_shape(server):
    with pytest.raises(openai.BadRequestError, match="captured"):
        _openai(server, "e").responses.create(model="m", input="hi")
    with pytest.raises(anthropic.BadRequestError, match="captured"):
        _anthropic(server, "e").messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}])


def test_a_request_on_an_unknown_route_is_kept_with_no_wire_format(server):
    with pytest.raises(openai.NotFoundError, match="no route"):
        _openai(server, "u").embeddings.create(model="m", input="hi")
    [record] = server.records("u")
    assert (record.path, record.status, record.wire) == ("/s/u/v1/embeddings", 404, None)


ANTHROPIC_BODY = {
    "model": "claude",
    "max_tokens": 8,
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [{"name": "search.web", "input_schema": {}}],
    "tool_choice": {"type": "tool", "name": "search web"},
}
RESPONSES_BODY = {"model": "m", "input": "hi", "tools": [{"type": "function", "name": "a"}, {"type": "web_search"}]}
CHAT_BODY = {"model": "m", "messages": [], "tools": [{"type": "function", "function": {"name": "b"}}]}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (ANTHROPIC_BODY, "anthropic-messages"),
        (RESPONSES_BODY, "responses"),
        (CHAT_BODY, "chat-completions"),
        ({"model": "m"}, None),
        ({"tools": [{"type": "function", "function": {"name": "a.b"}}]}, "chat-completions"),
        ({"tools": [{"type": "function", "name": "a.b"}]}, "responses"),
        ({"tools": [{"name": "a.b", "input_schema": {}}]}, "anthropic-messages"),
    ],
    ids=["anthropic", "responses", "chat", "none", "chat-tools-only", "responses-tools-only", "anthropic-tools-only"],
)
def test_a_body_without_its_route_is_told_by_its_shape(body, expected):
    detected = wire.detect(body)
    assert (detected.name if detected else None) == expected


@pytest.mark.parametrize("forced", [None, "search_web"])
def test_a_built_chat_request_is_one_the_openai_sdk_sends_and_reads_back_as_built(server, forced):
    body = wire.CHAT_COMPLETIONS.request("m", ["weather", "search_web"], forced)
    server.script("built", [TextReply("ok")])
    _openai(server, "built").chat.completions.create(**body)
    [record] = server.records("built")
    assert record.wire == "chat-completions" and record.body == body
    assert wire.detect(body) is wire.CHAT_COMPLETIONS
    assert wire.CHAT_COMPLETIONS.tool_names(body) == ["weather", "search_web"]
    assert wire.CHAT_COMPLETIONS.forced_name(body) == forced and wire.forced_by(body["tool_choice"]) == forced
    assert (body["tool_choice"] == "auto") == (forced is None)


def test_a_route_outranks_the_body_shape():
    assert wire.detect(CHAT_BODY, "/v1/messages") is wire.ANTHROPIC_MESSAGES


def test_lint_reads_an_anthropic_body_its_illegal_name_and_its_absent_forced_tool():
    findings = {(f.code, f.name) for f in lint.lint_body(ANTHROPIC_BODY, get_rule("anthropic"))}
    assert {("refused-name", "search.web"), ("choice-not-in-tools", "search web")} <= findings


def test_lint_flags_a_body_cut_down_to_its_tools():
    body = {"tools": [{"type": "function", "function": {"name": "search.web"}}]}
    assert [f.code for f in lint.lint_body(body, get_rule("openai"))] == ["refused-name"]


def test_a_bare_string_tool_choice_names_a_tool_unless_it_is_a_mode():
    assert [wire.named_by(choice) for choice in ("auto", "none", "required", "missing", None)] == [
        *(None, None, None),
        *("missing", None),
    ]
    assert wire.named_by({"type": "function", "function": {"name": "search.web"}}) == "search.web"
