"""Wire formats: how a request to a provider is read, and how the capture server answers it.

Three formats are known: Chat Completions, Responses and Anthropic Messages. :func:`for_route` finds a format by
the path a client posted to; :func:`detect` also falls back to a body's shape, for bodies read from files.
"""

from __future__ import annotations

from probe_lib.wire.base import Answer, Body, JsonAnswer, StreamAnswer, WireFormat, listed
from probe_lib.wire.chat import ChatCompletions
from probe_lib.wire.messages import Messages
from probe_lib.wire.responses import Responses

CHAT_COMPLETIONS = ChatCompletions()
RESPONSES = Responses()
ANTHROPIC_MESSAGES = Messages()

#: In body-detection order: the formats with distinctive markers first, Chat Completions last.
FORMATS: tuple[WireFormat, ...] = (RESPONSES, ANTHROPIC_MESSAGES, CHAT_COMPLETIONS)
BY_NAME: dict[str, WireFormat] = {wire.name: wire for wire in FORMATS}


def for_route(route: str) -> WireFormat | None:
    """The format whose model-call route ``route`` is (``/v1/chat/completions`` …), or ``None``."""
    return next((wire for wire in FORMATS if route == wire.route), None)


def detect(body: Body, route: str | None = None) -> WireFormat | None:
    """The format of a request: by its route when known, else by the body's shape; ``None`` if neither tells."""
    if route is not None and (wire := for_route(route)) is not None:
        return wire
    return next((wire for wire in FORMATS if wire.owns_body(body)), None)


def forced_by(tool_choice: object) -> str | None:
    """The function ``tool_choice`` forces, in whichever format's shape it is written; ``None`` if it forces none.

    For a ``tool_choice`` kept without its request (the sweep's summary): the three shapes cannot be mistaken for
    one another (``{"function": {"name"}}``, ``{"type": "function", "name"}``, ``{"type": "tool", "name"}``).
    """
    body = {"tool_choice": tool_choice}
    return next((name for wire in FORMATS if (name := wire.forced_name(body)) is not None), None)


#: The bare string values of ``tool_choice`` that choose a mode, not a tool.
MODES = ("auto", "none", "required")


def named_by(tool_choice: object) -> str | None:
    """The function ``tool_choice`` names: the one it forces (:func:`forced_by`), or a bare string other than the
    :data:`MODES`, which a framework sends meaning a tool's name (LangChain from 0.3.9) though no format reads it
    as one; ``None`` if it names none."""
    if isinstance(tool_choice, str):
        return None if tool_choice in MODES else tool_choice
    return forced_by(tool_choice)


def tool_descriptions(body: Body) -> list[str | None]:
    """Each tool's description, in the request's order (``None`` where it has none), in whichever format's shape:
    Chat Completions nests it under ``function``, Responses and Messages keep it on the tool. What a framework does
    to a tool's name, it leaves its description alone: the kit's probe tools say there which key or served tool they
    are."""
    described = []
    for tool in listed(body, "tools") if isinstance(body, dict) else []:
        if isinstance(tool, dict):
            holder = tool.get("function") if isinstance(tool.get("function"), dict) else tool
            description = holder.get("description")
            described.append(description if isinstance(description, str) else None)
    return described


__all__ = [
    "ANTHROPIC_MESSAGES",
    "Answer",
    "BY_NAME",
    "Body",
    "CHAT_COMPLETIONS",
    "FORMATS",
    "JsonAnswer",
    "RESPONSES",
    "StreamAnswer",
    "WireFormat",
    "detect",
    "for_route",
    "forced_by",
    "tool_descriptions",
]
