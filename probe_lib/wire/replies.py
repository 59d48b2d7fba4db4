"""The model's side of a scripted turn: the replies the capture server gives, whatever wire format carries them.

A scenario scripts its model as a list of replies (a tool call, a text, an error), one per request; each wire
format (:mod:`probe_lib.wire`) encodes them in its own shape. ``reply_from_json`` reads the JSON form used by
``probe-lib capture --replies`` and by the server's control API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from probe_lib.core.errors import InputError


@dataclass(frozen=True)
class ErrorReply:
    """An OpenAI-style error with this HTTP status.

    The AI SDK retries 408, 409, 429 and 5xx (twice by default), and each retry consumes the next reply.
    """

    status: int = 400
    message: str = "captured"

    def __post_init__(self) -> None:
        if not (isinstance(self.status, int) and 400 <= self.status <= 599):
            raise InputError(f"error status {self.status!r} is not an HTTP error status; use 400 to 599")
        if not isinstance(self.message, str):
            raise InputError(f"error message {self.message!r} is not a string")

    def to_json(self) -> dict:
        return {"error": {"status": self.status, "message": self.message}}


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model asks for; dict ``arguments`` go on the wire as a JSON string, as OpenAI sends them."""

    name: str
    arguments: dict | str = field(default_factory=dict)
    id: str = "call_1"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not isinstance(self.id, str):
            raise InputError(f"tool call name and id must be strings, not {self.name!r} and {self.id!r}")
        if not isinstance(self.arguments, (dict, str)):
            kind = type(self.arguments).__name__
            raise InputError(f"tool call arguments must be an object or a string, not {kind}")

    @property
    def arguments_json(self) -> str:
        """The arguments as the JSON text providers send (a string is sent as given)."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments, ensure_ascii=False)

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class ToolCallsReply:
    """An assistant message that calls tools (``finish_reason`` ``tool_calls``)."""

    calls: tuple[ToolCall, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(self.calls))
        if not self.calls or not all(isinstance(call, ToolCall) for call in self.calls):
            raise InputError("a tool_calls reply needs at least one tool call")

    def to_json(self) -> dict:
        return {"tool_calls": [call.to_json() for call in self.calls]}


@dataclass(frozen=True)
class TextReply:
    """An assistant message of plain text (``finish_reason`` ``stop``)."""

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InputError(f"text {self.text!r} is not a string")

    def to_json(self) -> dict:
        return {"text": self.text}


Reply = ErrorReply | ToolCallsReply | TextReply

#: What a chat completion gets when its scenario has no scripted reply left.
DEFAULT_REPLY = ErrorReply()

_REPLY_FORMS = (
    '{"error": {"status": 400, "message": "..."}}, {"tool_calls": [{"id", "name", "arguments"}]} or {"text": "..."}'
)


def reply_from_json(obj: object) -> Reply:
    """The reply a JSON form describes; raises ``InputError`` naming what is wrong."""
    if not isinstance(obj, dict) or len(obj) != 1:
        raise InputError(f"a reply is one of {_REPLY_FORMS}, not {json.dumps(obj)[:80]}")
    [(kind, value)] = obj.items()
    if kind == "text":
        return TextReply(value)
    if kind == "error":
        if not isinstance(value, dict) or not set(value) <= {"status", "message"}:
            raise InputError(f'"error" must be an object with "status" and/or "message", not {json.dumps(value)[:80]}')
        return ErrorReply(**value)
    if kind == "tool_calls":
        if not isinstance(value, list):
            raise InputError(f'"tool_calls" must be an array, not {type(value).__name__}')
        calls = []
        for number, call in enumerate(value):
            if not isinstance(call, dict) or "name" not in call or not set(call) <= {"id", "name", "arguments"}:
                raise InputError(f'tool call {number} must be an object with "name" and optional "id", "arguments"')
            calls.append(ToolCall(**{"id": f"call_{number + 1}", **call}))
        return ToolCallsReply(tuple(calls))
    raise InputError(f'unknown reply kind "{kind}"; a reply is one of {_REPLY_FORMS}')


def replies_from_json(obj: object) -> list[Reply]:
    """Replies from a JSON array of reply forms; the error names the reply at fault."""
    if not isinstance(obj, list):
        raise InputError(f"replies must be a JSON array of reply forms, not {type(obj).__name__}")
    replies = []
    for number, item in enumerate(obj):
        try:
            replies.append(reply_from_json(item))
        except InputError as error:
            raise InputError(f"reply {number}: {error}") from None
    return replies
