"""A local stand-in for an OpenAI-compatible provider that records every request Mastra sends to it.

Mastra is pointed at :meth:`CaptureServer.scenario_url` (its model config's ``url``), so it posts to
``/s/<scenario>/v1/chat/completions``; requests under plain ``/v1/...`` belong to scenario ``"default"``. Each
request is kept as a :class:`Capture`, in arrival order, with secrets redacted. Each chat completion is answered
with the scenario's next scripted reply (a tool call, a text, an error); when none is left, the answer is an HTTP
400 ``captured``, which ends Mastra's agent loop right after the request we wanted to see.

The server runs aiohttp in a background thread with its own event loop, so a notebook or a test uses it as
``with CaptureServer() as server:``. Another process can script scenarios and read records over HTTP:
``PUT /_probe/scenarios/{id}`` (a JSON array of reply forms), ``GET /_probe/records?scenario=ID`` and
``DELETE /_probe/scenarios/{id}`` (returns and forgets, like :meth:`CaptureServer.take`); these are not recorded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
import ipaddress
import json
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable

from aiohttp import web

from probe_lib.core.errors import InputError, StateError

#: Header values that would leak a credential into a recording.
REDACTED_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie", "openai-organization"}
)
#: Headers dropped as noise: ``host`` carries the ephemeral port, which changes every run.
DROPPED_HEADERS = frozenset({"host"})
#: A body that is not JSON is kept as text up to this many characters.
RAW_LIMIT = 64 * 1024
#: Scenario ids travel in URL paths, so they are limited to characters no client re-encodes or resolves
#: (a leading ``.`` would let ``.`` and ``..`` be collapsed by a URL parser).
SCENARIO_ID = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9._~-]*")

_SCENARIO_PATH = re.compile(r"/s/([^/]+)(/.*)?")
_CHAT_PATH = "/v1/chat/completions"
_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
_SHUTDOWN_SECONDS = 2.0


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

    def to_wire(self) -> dict:
        """The call as a ``tool_calls`` entry of an OpenAI assistant message."""
        arguments = self.arguments
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": arguments}}

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


@dataclass(frozen=True)
class Capture:
    """One request as the server received it.

    ``body`` is the parsed JSON, or ``None`` when there was none, it was not JSON (then ``raw`` holds the text,
    cut at ``RAW_LIMIT`` characters) or it was too large (then ``raw`` is ``None`` too). ``status`` is the HTTP
    status the server answered with.
    """

    seq: int
    scenario: str
    method: str
    path: str
    headers: dict[str, str]
    body: object | None
    raw: str | None
    status: int

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class _Scenario:
    records: list[Capture] = field(default_factory=list)
    replies: deque[Reply] = field(default_factory=deque)
    completions: int = 0


def check_scenario_id(scenario_id: str) -> str:
    """Return ``scenario_id`` if it can stand in a URL path unchanged, else raise ``ValueError``."""
    if not isinstance(scenario_id, str) or not SCENARIO_ID.fullmatch(scenario_id):
        raise ValueError(
            f"scenario id {scenario_id!r} must be letters, digits, '_', '-', '~' or '.', not starting with '.'"
        )
    return scenario_id


def _check_loopback(host: str) -> str:
    """The address to bind for ``host``; only loopback is allowed, since a recording holds prompts and tool data."""
    if host == "localhost":
        return "127.0.0.1"  # "localhost" may resolve to both families, and each would get its own ephemeral port
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name other than localhost: resolving it could reach any interface
        loopback = False
    if loopback:
        return host
    raise ValueError(f"host {host!r} is not loopback; the capture server listens only on 127.0.0.0/8, ::1 or localhost")


def _error_body(message: str) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error"}}


def _clean_headers(request: web.BaseRequest) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        name = name.lower()
        if name in DROPPED_HEADERS:
            continue
        if name in REDACTED_HEADERS:
            value = "<redacted>"
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


def _as_text(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(text) > RAW_LIMIT:
        return f"{text[:RAW_LIMIT]}...[{len(text) - RAW_LIMIT} more characters]"
    return text


class CaptureServer:
    """An OpenAI-compatible chat completions endpoint on loopback that records what it is sent.

    Args:
        host: a loopback address (127.0.0.0/8, ``::1`` or ``localhost``); anything else is refused.
        port: 0 picks a free port; :attr:`base_url` tells which.
        max_body_bytes: larger bodies are answered 413 and recorded without their content.
        on_record: called with each new record, in order, on the server thread (the CLI writes JSON lines).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = 8 * 1024 * 1024,
        *,
        on_record: Callable[[Capture], None] | None = None,
    ) -> None:
        self._host = _check_loopback(host)
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be at least 1, not {max_body_bytes}")
        self._port = port
        self._max_body_bytes = max_body_bytes
        self._on_record = on_record
        self._lock = threading.Lock()
        self._scenarios: dict[str, _Scenario] = {}
        self._seq = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    # -- lifecycle -------------------------------------------------------------------------------------------

    def start(self) -> CaptureServer:
        """Start serving in a background thread; returns once the port is bound (``OSError`` if it cannot be)."""
        if self._thread is not None:
            raise StateError("the capture server is already started; close() it first")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="probe_lib-capture", daemon=True)
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result()
        except BaseException:
            self.close()
            raise
        return self

    async def _serve(self) -> None:
        app = web.Application(client_max_size=self._max_body_bytes)
        app.router.add_route("PUT", "/_probe/scenarios/{scenario}", self._put_scenario)
        app.router.add_route("DELETE", "/_probe/scenarios/{scenario}", self._delete_scenario)
        app.router.add_route("GET", "/_probe/records", self._get_records)
        app.router.add_route("*", "/_probe/{tail:.*}", self._unknown_control)
        app.router.add_route("*", "/{tail:.*}", self._capture)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=_SHUTDOWN_SECONDS)
        await self._runner.setup()
        await web.TCPSite(self._runner, self._host, self._port).start()

    def close(self) -> None:
        """Stop serving and end the background thread; records stay readable. Safe to call twice."""
        if self._thread is None or self._loop is None:
            return
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result()
            self._runner = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
        self._thread = self._loop = None

    def __enter__(self) -> CaptureServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- addresses -------------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` with the port actually bound."""
        if self._runner is None or not self._runner.addresses:
            raise StateError("the capture server is not running; start() it or use it as a context manager")
        host, port = self._runner.addresses[0][:2]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def scenario_url(self, scenario_id: str) -> str:
        """The base URL to give Mastra's model config (``url``) so its requests land in ``scenario_id``."""
        return f"{self.base_url}/s/{check_scenario_id(scenario_id)}/v1"

    # -- scripts and records ---------------------------------------------------------------------------------

    def script(self, scenario_id: str, replies: Iterable[Reply]) -> None:
        """Set the replies the scenario's next chat completions get, one each, in order (replacing any left)."""
        queue = deque(replies)
        for reply in queue:
            if not isinstance(reply, (ErrorReply, ToolCallsReply, TextReply)):
                raise TypeError(f"{reply!r} is not an ErrorReply, ToolCallsReply or TextReply")
        with self._lock:
            self._scenarios.setdefault(check_scenario_id(scenario_id), _Scenario()).replies = queue

    def records(self, scenario: str | None = None) -> list[Capture]:
        """A copy of the records of one scenario, or of all, in arrival order."""
        with self._lock:
            if scenario is not None:
                state = self._scenarios.get(scenario)
                return list(state.records) if state else []
            lists = [state.records for state in self._scenarios.values()]
            return list(heapq.merge(*lists, key=lambda capture: capture.seq))

    def take(self, scenario: str) -> list[Capture]:
        """Return the scenario's records and forget them with its script, so long batches stay small in memory."""
        with self._lock:
            state = self._scenarios.pop(scenario, None)
        return state.records if state else []

    def _commit(
        self, request: web.BaseRequest, scenario: str, body: object | None, raw: str | None, status: int | None
    ) -> tuple[Capture, Reply | None, int]:
        """Record a request; ``status=None`` marks a chat completion, answered by the scenario's next reply.

        Returns the record, the reply (for a chat completion) and the scenario's count of chat completions.
        """
        reply: Reply | None = None
        with self._lock:
            state = self._scenarios.setdefault(scenario, _Scenario())
            if status is None:
                reply = state.replies.popleft() if state.replies else DEFAULT_REPLY
                state.completions += 1
                status = reply.status if isinstance(reply, ErrorReply) else 200
            capture = Capture(
                self._seq, scenario, request.method, request.raw_path, _clean_headers(request), body, raw, status
            )
            self._seq += 1
            state.records.append(capture)
            completions = state.completions
        if self._on_record is not None:
            self._on_record(capture)
        return capture, reply, completions

    # -- the provider side -----------------------------------------------------------------------------------

    async def _capture(self, request: web.Request) -> web.StreamResponse:
        match = _SCENARIO_PATH.fullmatch(request.path)
        scenario, route = (match.group(1), match.group(2) or "") if match else ("default", request.path)
        is_chat = request.method == "POST" and route == _CHAT_PATH
        try:
            data = await request.read()
        except web.HTTPRequestEntityTooLarge:
            self._commit(request, scenario, None, None, 413)
            message = f"body exceeds {self._max_body_bytes} bytes; raise the capture server's max_body_bytes"
            return web.json_response(_error_body(message), status=413)
        body: object | None = None
        if data or is_chat:
            try:
                body = json.loads(data)
            except (ValueError, UnicodeDecodeError) as error:
                self._commit(request, scenario, None, _as_text(data), 400)
                return web.json_response(_error_body(f"malformed JSON: {error}"), status=400)
        if not is_chat:
            self._commit(request, scenario, body, None, 404)
            message = f"no route for {request.method} {request.path}; the capture server answers POST {_CHAT_PATH}"
            return web.json_response(_error_body(message), status=404)
        if not isinstance(body, dict):
            self._commit(request, scenario, body, None, 400)
            return web.json_response(_error_body("a chat completion request must be a JSON object"), status=400)
        _, reply, number = self._commit(request, scenario, body, None, None)
        if isinstance(reply, ErrorReply):
            return web.json_response(_error_body(reply.message), status=reply.status)
        model = body.get("model") if isinstance(body.get("model"), str) else ""
        head = {"id": f"chatcmpl-{number}", "created": 0, "model": model}
        if body.get("stream") is True:
            stream_options = body.get("stream_options")
            usage = isinstance(stream_options, dict) and stream_options.get("include_usage") is True
            return await self._stream(request, _chunks(head, reply, usage))
        return web.json_response({**head, "object": "chat.completion", **_completion(reply)})

    @staticmethod
    async def _stream(request: web.Request, chunks: list[dict]) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        for chunk in chunks:
            await response.write(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n")
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    # -- the control API -------------------------------------------------------------------------------------

    async def _put_scenario(self, request: web.Request) -> web.Response:
        scenario = request.match_info["scenario"]
        try:
            replies = replies_from_json(json.loads(await request.read()))
            self.script(scenario, replies)
        except ValueError as error:  # InputError, malformed JSON and a bad scenario id alike
            return web.json_response(_error_body(str(error)), status=400)
        except web.HTTPRequestEntityTooLarge:
            return web.json_response(_error_body("script too large; raise max_body_bytes"), status=413)
        return web.json_response({"scenario": scenario, "replies": len(replies)})

    async def _delete_scenario(self, request: web.Request) -> web.Response:
        return web.json_response([capture.to_json() for capture in self.take(request.match_info["scenario"])])

    async def _get_records(self, request: web.Request) -> web.Response:
        return web.json_response([capture.to_json() for capture in self.records(request.query.get("scenario"))])

    async def _unknown_control(self, request: web.Request) -> web.Response:
        message = (
            f"no control route {request.method} {request.path}; use PUT or DELETE /_probe/scenarios/ID"
            " or GET /_probe/records?scenario=ID"
        )
        return web.json_response(_error_body(message), status=404)


def _completion(reply: ToolCallsReply | TextReply) -> dict:
    """The ``choices`` and ``usage`` of a non-streaming ``chat.completion``."""
    if isinstance(reply, TextReply):
        message, finish = {"role": "assistant", "content": reply.text}, "stop"
    else:
        message = {"role": "assistant", "content": None, "tool_calls": [call.to_wire() for call in reply.calls]}
        finish = "tool_calls"
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": _USAGE}


def _chunks(head: dict, reply: ToolCallsReply | TextReply, usage: bool) -> list[dict]:
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
            chunks.append(chunk({"tool_calls": [{"index": index, **call.to_wire()}]}))
        finish = "tool_calls"
    chunks.append(chunk({}, finish))
    if usage:
        chunks.append({**head, "choices": [], "usage": _USAGE})
    return chunks
