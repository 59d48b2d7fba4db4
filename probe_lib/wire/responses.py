"""OpenAI Responses (``POST /v1/responses``): the format of OpenAI's newer SDKs and agent frameworks.

Tools are flat, ``{"type": "function", "name": …}``, and so is a forced tool, ``{"type": "function", "name": …}``;
the conversation is ``input``, not ``messages``. A streamed reply is a sequence of named ``response.*`` events.
"""

from __future__ import annotations

from probe_lib.wire.base import Answer, Body, JsonAnswer, StreamAnswer, function_name, listed
from probe_lib.wire.chat import error_body
from probe_lib.wire.replies import ErrorReply, TextReply, ToolCallsReply

_USAGE = {
    "input_tokens": 0,
    "output_tokens": 0,
    "total_tokens": 0,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}


class Responses:
    name = "responses"
    route = "/v1/responses"

    def owns_body(self, body: Body) -> bool:
        if "messages" in body:
            return False
        return "input" in body or any(_flat_function(tool) for tool in listed(body, "tools"))

    def tool_names(self, body: Body) -> list[str]:
        names = [_flat_function(tool) for tool in listed(body, "tools")]
        return [name for name in names if name is not None]

    def forced_name(self, body: Body) -> str | None:
        return _flat_function(body.get("tool_choice"))

    def tool_results(self, body: Body) -> list[dict]:
        return [i for i in listed(body, "input") if isinstance(i, dict) and i.get("type") == "function_call_output"]

    def answer(self, reply: ErrorReply | TextReply | ToolCallsReply, body: Body, number: int) -> Answer:
        if isinstance(reply, ErrorReply):
            return JsonAnswer(reply.status, error_body(reply.message))
        model = body.get("model") if isinstance(body.get("model"), str) else ""
        items = _output(reply, number)
        response = {
            "id": f"resp_{number}",
            "object": "response",
            "created_at": 0,
            "model": model,
            "status": "completed",
            "output": items,
            "usage": _USAGE,
            "error": None,
            "incomplete_details": None,
        }
        if body.get("stream") is not True:
            return JsonAnswer(200, response)
        pending = {**response, "status": "in_progress", "output": [], "usage": None}
        events: list[tuple[str | None, dict]] = [("response.created", {"response": pending})]
        for index, item in enumerate(items):
            events.append(
                ("response.output_item.added", {"output_index": index, "item": {**item, "status": "in_progress"}})
            )
            if item["type"] == "message":
                text = item["content"][0]["text"]
                events.append(
                    (
                        "response.output_text.delta",
                        {"item_id": item["id"], "output_index": index, "content_index": 0, "delta": text},
                    )
                )
            else:
                events.append(
                    (
                        "response.function_call_arguments.delta",
                        {"item_id": item["id"], "output_index": index, "delta": item["arguments"]},
                    )
                )
            events.append(("response.output_item.done", {"output_index": index, "item": item}))
        events.append(("response.completed", {"response": response}))
        return StreamAnswer(
            tuple((name, {"type": name, "sequence_number": seq, **data}) for seq, (name, data) in enumerate(events))
        )


def _flat_function(item: object) -> str | None:
    """The name of a ``{"type": "function", "name": …}`` item."""
    if function_name(item, "type") != "function":
        return None
    return function_name(item, "name")


def _output(reply: TextReply | ToolCallsReply, number: int) -> list[dict]:
    if isinstance(reply, TextReply):
        content = [{"type": "output_text", "text": reply.text, "annotations": []}]
        return [
            {"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed", "content": content}
        ]
    return [
        {
            "type": "function_call",
            "id": f"fc_{number}_{index}",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments_json,
            "status": "completed",
        }
        for index, call in enumerate(reply.calls)
    ]
