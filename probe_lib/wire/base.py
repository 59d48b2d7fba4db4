"""What a wire format is to the kit: how to read a request body, and how to answer it with a scripted reply.

Every body the kit reads (the capture server's records, an outcome's requests, a file given to ``lint``) is read
through a :class:`WireFormat`, so the question "which tools did this request send, and which did it force?" has
one answer per format, written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from probe_lib.wire.replies import ErrorReply, TextReply, ToolCallsReply

Body = Mapping[str, Any]


@dataclass(frozen=True)
class JsonAnswer:
    """A complete JSON response with this HTTP status."""

    status: int
    body: dict


@dataclass(frozen=True)
class StreamAnswer:
    """A server-sent event stream: ``(event name or None, data)`` pairs, then ``done`` (e.g. ``[DONE]``) if any."""

    events: tuple[tuple[str | None, dict], ...]
    done: str | None = None


Answer = JsonAnswer | StreamAnswer


class WireFormat(Protocol):
    """One provider API shape (Chat Completions, Responses, Anthropic Messages)."""

    #: Stable name, used in records, recordings and the CLI.
    name: str
    #: The route a client posts model calls to, below its base URL's ``/v1``.
    route: str

    def owns_body(self, body: Body) -> bool:
        """True when ``body`` is shaped like this format's request (used when no path is known)."""

    def tool_names(self, body: Body) -> list[str]:
        """Names of the function tools the request sends, in order (other tool types have none)."""

    def forced_name(self, body: Body) -> str | None:
        """The function the request's tool choice forces, or ``None`` ("auto", "required", absent …)."""

    def tool_results(self, body: Body) -> list[dict]:
        """The tool results a follow-up request carries back to the model, as the format spells them."""

    def answer(self, reply: ErrorReply | TextReply | ToolCallsReply, body: Body, number: int) -> Answer:
        """The response to the ``number``-th model call of a scenario (1-based), carrying ``reply``."""


def function_name(item: Any, *path: str) -> str | None:
    """The string at ``item[path[0]][path[1]]…``, or ``None`` when any step is missing or not a string."""
    for step in path:
        if not isinstance(item, Mapping):
            return None
        item = item.get(step)
    return item if isinstance(item, str) else None


def listed(body: Body, key: str) -> list:
    """``body[key]`` when it is a list, else ``[]``: a body read from a file may hold anything there."""
    value = body.get(key)
    return value if isinstance(value, list) else []
