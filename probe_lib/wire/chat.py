"""OpenAI Chat Completions (``POST /v1/chat/completions``): the format Mastra's OpenAI-compatible models speak.

Tools are ``{"type": "function", "function": {"name": …}}`` and a forced tool is
``{"type": "function", "function": {"name": …}}``. A streamed reply is ``chat.completion.chunk`` events ending in
``[DONE]``, with a last usage chunk when the request asks for ``stream_options.include_usage``.
"""

from __future__ import annotations

from collections.abc import Sequence

from probe_lib.wire.base import Answer, Body, JsonAnswer, StreamAnswer, function_name, listed
from probe_lib.wire.replies import ErrorReply, TextReply, ToolCall, ToolCallsReply

_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def error_body(message: str) -> dict:
    """An OpenAI-style error object (the capture server also uses it for its own 4xx answers)."""
    return {"error": {"message": message, "type": "invalid_request_error"}}


class ChatCompletions:
    name = "chat-completions"
    route = "/v1/chat/completions"

    def owns_body(self, body: Body) -> bool:
        # Detection tries Responses and Anthropic Messages first, whose bodies carry markers of their own; a body
        # cut down to its tools is told by their shape.
        return "messages" in body or any(isinstance(t, dict) and "function" in t for t in listed(body, "tools"))

    def tool_names(self, body: Body) -> list[str]:
        names = [function_name(tool, "function", "name") for tool in listed(body, "tools")]
        return [name for name in names if name is not None]

    def forced_name(self, body: Body) -> str | None:
        return function_name(body.get("tool_choice"), "function", "name")

    def tool_results(self, body: Body) -> list[dict]:
        return [m for m in listed(body, "messages") if isinstance(m, dict) and m.get("role") == "tool"]

    def request(self, model: str, tool_names: Sequence[str], forced: str | None = None) -> dict:
        """The least request of this format that sends function tools named ``tool_names`` and forces ``forced``
        (``None``: ``"auto"``): no messages and no parameters, what a name rule's prediction can say of a request."""
        return {
            "model": model,
            "messages": [],
            "tools": [{"type": "function", "function": {"name": name}} for name in tool_names],
            "tool_choice": {"type": "function", "function": {"name": forced}} if forced else "auto",
        }

    def answer(self, reply: ErrorReply | TextReply | ToolCallsReply, body: Body, number: int) -> Answer:
        if isinstance(reply, ErrorReply):
            return JsonAnswer(reply.status, error_body(reply.message))
        model = body.get("model") if isinstance(body.get("model"), str) else ""
        head = {"id": f"chatcmpl-{number}", "created": 0, "model": model}
        if body.get("stream") is True:
            options = body.get("stream_options")
            usage = isinstance(options, dict) and options.get("include_usage") is True
            return StreamAnswer(tuple((None, chunk) for chunk in _chunks(head, reply, usage)), done="[DONE]")
        return JsonAnswer(200, {**head, "object": "chat.completion", **_completion(reply)})


def _call(call: ToolCall) -> dict:
    """A ``tool_calls`` entry of an assistant message."""
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments_json}}


def _completion(reply: TextReply | ToolCallsReply) -> dict:
    """The ``choices`` and ``usage`` of a non-streaming ``chat.completion``."""
    if isinstance(reply, TextReply):
        message, finish = {"role": "assistant", "content": reply.text}, "stop"
    else:
        message = {"role": "assistant", "content": None, "tool_calls": [_call(call) for call in reply.calls]}
        finish = "tool_calls"
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": _USAGE}


def _chunks(head: dict, reply: TextReply | ToolCallsReply, usage: bool) -> list[dict]:
    """The ``chat.completion.chunk`` objects of a streamed reply, in order (``[DONE]`` follows them)."""
    head = {**head, "object": "chat.completion.chunk"}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    if isinstance(reply, TextReply):
        chunks = [chunk({"role": "assistant", "content": ""})]
        if reply.text:
            chunks.append(chunk({"content": reply.text}))
        finish = "stop"
    else:
        chunks = [chunk({"role": "assistant", "content": None})]
        for index, call in enumerate(reply.calls):
            chunks.append(chunk({"tool_calls": [{"index": index, **_call(call)}]}))
        finish = "tool_calls"
    chunks.append(chunk({}, finish))
    if usage:
        chunks.append({**head, "choices": [], "usage": _USAGE})
    return chunks
