"""Anthropic Messages (``POST /v1/messages``): Claude's format.

Tools are ``{"name": …, "input_schema": …}`` and a forced tool is ``{"type": "tool", "name": …}``; the system
prompt is a top-level ``system``. A streamed reply is ``message_start``, content-block events, ``message_delta``
and ``message_stop``.
"""

from __future__ import annotations

import json

from probe_lib.wire.base import Answer, Body, JsonAnswer, StreamAnswer, function_name, listed
from probe_lib.wire.replies import ErrorReply, TextReply, ToolCallsReply

_USAGE = {"input_tokens": 0, "output_tokens": 0}
#: Markers no Chat Completions body carries.
_OWN_TOOL_CHOICES = frozenset({"tool", "any"})


def error_body(status: int, message: str) -> dict:
    kind = "invalid_request_error" if status < 500 else "api_error"
    return {"type": "error", "error": {"type": kind, "message": message}}


class Messages:
    name = "anthropic-messages"
    route = "/v1/messages"

    def owns_body(self, body: Body) -> bool:
        has_own_tools = any(isinstance(tool, dict) and "input_schema" in tool for tool in listed(body, "tools"))
        if "messages" not in body:
            return has_own_tools  # a body cut down to its tools
        return has_own_tools or "system" in body or function_name(body.get("tool_choice"), "type") in _OWN_TOOL_CHOICES

    def tool_names(self, body: Body) -> list[str]:
        tools = [tool for tool in listed(body, "tools") if isinstance(tool, dict) and "input_schema" in tool]
        names = [function_name(tool, "name") for tool in tools]
        return [name for name in names if name is not None]

    def forced_name(self, body: Body) -> str | None:
        choice = body.get("tool_choice")
        return function_name(choice, "name") if function_name(choice, "type") == "tool" else None

    def tool_results(self, body: Body) -> list[dict]:
        blocks = [
            block
            for message in listed(body, "messages")
            if isinstance(message, dict)
            for block in listed(message, "content")
        ]
        return [block for block in blocks if isinstance(block, dict) and block.get("type") == "tool_result"]

    def answer(self, reply: ErrorReply | TextReply | ToolCallsReply, body: Body, number: int) -> Answer:
        if isinstance(reply, ErrorReply):
            return JsonAnswer(reply.status, error_body(reply.status, reply.message))
        model = body.get("model") if isinstance(body.get("model"), str) else ""
        if isinstance(reply, TextReply):
            content, stop = [{"type": "text", "text": reply.text}], "end_turn"
        else:
            content = [
                {"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call.arguments_json)}
                for call in reply.calls
            ]
            stop = "tool_use"
        message = {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": _USAGE,
        }
        if body.get("stream") is not True:
            return JsonAnswer(200, message)
        events: list[tuple[str | None, dict]] = [
            ("message_start", {"message": {**message, "content": [], "stop_reason": None}})
        ]
        for index, block in enumerate(content):
            if block["type"] == "text":
                start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}
            events += [
                ("content_block_start", {"index": index, "content_block": start}),
                ("content_block_delta", {"index": index, "delta": delta}),
                ("content_block_stop", {"index": index}),
            ]
        events += [
            ("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 0}}),
            ("message_stop", {}),
        ]
        return StreamAnswer(tuple((name, {"type": name, **data}) for name, data in events))


def _input(arguments: str) -> object:
    """Anthropic sends a tool call's input as an object; a scripted string that is not JSON goes as it is."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments
