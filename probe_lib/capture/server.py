"""A local stand-in for an LLM provider that records every request a framework sends to it.

A framework is pointed at :meth:`CaptureServer.scenario_url` (its model config's base URL), so it posts to
``/s/<scenario>/v1/<route>``; requests under plain ``/v1/...`` belong to scenario ``"default"``. Each request is
kept as a :class:`Capture`, in arrival order, with secrets redacted and the wire format its route names
(:mod:`probe_lib.wire`: Chat Completions, Responses, Anthropic Messages). Each model call is answered, in its
format, with the scenario's next scripted reply (a tool call, a text, an error); when none is left, the answer is
an HTTP 400 ``captured``, which ends the agent loop right after the request we wanted to see. A request on any
other route is recorded too (with ``wire`` None) and answered 404, so nothing a framework sends goes unseen. The
server is also a refusing HTTP proxy (:meth:`CaptureServer.proxy_url`): a ``CONNECT`` to any host is recorded
(path ``host:port``) and answered 403, so a client whose traffic to other hosts goes through it reaches none.

The server runs aiohttp in a background thread with its own event loop, so a notebook or a test uses it as
``with CaptureServer() as server:``. Another process can script scenarios and read records over HTTP:
``PUT /_probe/scenarios/{id}`` (a JSON array of reply forms), ``GET /_probe/records?scenario=ID`` and
``DELETE /_probe/scenarios/{id}`` (returns and forgets, like :meth:`CaptureServer.take`); these are not recorded.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import heapq
import ipaddress
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from aiohttp import web

from probe_lib import wire
from probe_lib.core.errors import StateError
from probe_lib.wire import StreamAnswer
from probe_lib.wire.chat import error_body as _error_body
from probe_lib.wire.replies import DEFAULT_REPLY, ErrorReply, Reply, TextReply, ToolCallsReply, replies_from_json

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
_SHUTDOWN_SECONDS = 2.0
#: Watchdogs on every connection: a request head must arrive whole this long after its first byte, a body must
#: be read this long after its head, and a connection that sends nothing for the idle time is closed.
HEADER_SECONDS = 10.0
BODY_SECONDS = 60.0
IDLE_SECONDS = 60.0
#: Connections served at once; one more is answered 503 and closed (a runner keeps about 16 open).
MAX_CONNECTIONS = 512
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


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
    #: The wire format of a model call (``chat-completions`` …), ``None`` for a request on any other route.
    wire: str | None = None

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
        keep_records: ``False`` hands each record only to ``on_record`` and keeps none, so memory stays bounded
            however long the server runs (``records()`` and ``take()`` then return nothing).
        header_seconds, idle_seconds, max_connections: the connection watchdogs (see ``HEADER_SECONDS``).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = 8 * 1024 * 1024,
        *,
        on_record: Callable[[Capture], None] | None = None,
        keep_records: bool = True,
        header_seconds: float = HEADER_SECONDS,
        idle_seconds: float = IDLE_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self._host = _check_loopback(host)
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be at least 1, not {max_body_bytes}")
        self._port = port
        self._max_body_bytes = max_body_bytes
        self._on_record = on_record
        self._keep_records = keep_records
        self._header_seconds = header_seconds
        self._idle_seconds = idle_seconds
        self._max_connections = max_connections
        #: Open connections, by aiohttp's handler (what ``request.protocol`` is), to their guard.
        self._guards: dict[object, _Guard] = {}
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
        app = web.Application(client_max_size=self._max_body_bytes, middlewares=[self._busy])
        app.router.add_route("PUT", "/_probe/scenarios/{scenario}", self._put_scenario)
        app.router.add_route("DELETE", "/_probe/scenarios/{scenario}", self._delete_scenario)
        app.router.add_route("GET", "/_probe/records", self._get_records)
        app.router.add_route("*", "/_probe/{tail:.*}", self._unknown_control)
        app.router.add_route("*", "/{tail:.*}", self._capture)
        self._runner = web.AppRunner(
            app, access_log=None, shutdown_timeout=_SHUTDOWN_SECONDS, keepalive_timeout=self._idle_seconds
        )
        await self._runner.setup()
        await _GuardedSite(self._runner, self._host, self._port, self._guard).start()

    def _guard(self) -> _Guard:
        """A new connection's protocol: aiohttp's handler inside a ``_Guard``."""
        return _Guard(self._runner.server(), self._guards, self._header_seconds, self._max_connections)

    @web.middleware
    async def _busy(self, request: web.Request, handler: Callable) -> web.StreamResponse:
        """Tell the connection's guard a request head has arrived whole (its header watchdog stops)."""
        guard = self._guards.get(request.protocol)
        if guard is not None:
            guard.busy(True)
        try:
            return await (self._connect(request) if request.method == "CONNECT" else handler(request))
        finally:
            if guard is not None:
                guard.busy(False)

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

    @property
    def max_body_bytes(self) -> int:
        """The largest request body recorded whole; a larger one is answered 413 (the kit's limit, not a provider's)."""
        return self._max_body_bytes

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

    def proxy_url(self, scenario_id: str) -> str:
        """An HTTP(S) proxy URL whose ``CONNECT`` requests land in ``scenario_id`` (it is the proxy's user name)."""
        return self.base_url.replace("://", f"://{check_scenario_id(scenario_id)}@", 1)

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
        self,
        request: web.BaseRequest,
        scenario: str,
        body: object | None,
        raw: str | None,
        status: int | None,
        wire_format: wire.WireFormat | None,
    ) -> tuple[Capture, Reply | None, int]:
        """Record a request; ``status=None`` marks a model call, answered by the scenario's next reply.

        Returns the record, the reply (for a model call) and the scenario's count of model calls.
        """
        reply: Reply | None = None
        with self._lock:
            state = self._scenarios.setdefault(scenario, _Scenario())
            if status is None:
                reply = state.replies.popleft() if state.replies else DEFAULT_REPLY
                state.completions += 1
                status = reply.status if isinstance(reply, ErrorReply) else 200
            capture = Capture(
                self._seq,
                scenario,
                request.method,
                request.raw_path,
                _clean_headers(request),
                body,
                raw,
                status,
                wire_format.name if wire_format else None,
            )
            self._seq += 1
            if self._keep_records:
                state.records.append(capture)
            completions = state.completions
        if self._on_record is not None:
            self._on_record(capture)
        return capture, reply, completions

    # -- the provider side -----------------------------------------------------------------------------------

    async def _capture(self, request: web.Request) -> web.StreamResponse:
        match = _SCENARIO_PATH.fullmatch(request.path)
        scenario, route = (match.group(1), match.group(2) or "") if match else ("default", request.path)
        wire_format = wire.for_route(route) if request.method == "POST" else None
        try:
            data = await asyncio.wait_for(request.read(), BODY_SECONDS)
        except web.HTTPRequestEntityTooLarge:
            self._commit(request, scenario, None, None, 413, wire_format)
            message = f"body exceeds {self._max_body_bytes} bytes; raise the capture server's max_body_bytes"
            return web.json_response(_error_body(message), status=413)
        except TimeoutError:
            self._commit(request, scenario, None, None, 408, wire_format)
            return web.json_response(_error_body(f"body not sent within {BODY_SECONDS:g} s"), status=408)
        body: object | None = None
        if data or wire_format:
            try:
                body = json.loads(data)
            except (ValueError, UnicodeDecodeError) as error:
                self._commit(request, scenario, None, _as_text(data), 400, wire_format)
                return web.json_response(_error_body(f"malformed JSON: {error}"), status=400)
        if wire_format is None:
            self._commit(request, scenario, body, None, 404, None)
            routes = ", ".join(known.route for known in wire.FORMATS)
            message = f"no route for {request.method} {request.path}; the capture server answers POST to {routes}"
            return web.json_response(_error_body(message), status=404)
        if not isinstance(body, dict):
            self._commit(request, scenario, body, None, 400, wire_format)
            return web.json_response(_error_body("a model call's body must be a JSON object"), status=400)
        _, reply, number = self._commit(request, scenario, body, None, None, wire_format)
        answer = wire_format.answer(reply, body, number)
        if isinstance(answer, StreamAnswer):
            return await self._stream(request, answer)
        return web.json_response(answer.body, status=answer.status)

    async def _connect(self, request: web.Request) -> web.Response:
        """A proxy tunnel asked for (``CONNECT host:port``): recorded in the scenario its proxy user name names
        (else ``"default"``) and refused, so nothing is tunnelled anywhere."""
        scenario = "default"
        kind, _, credentials = request.headers.get("Proxy-Authorization", "").partition(" ")
        if kind.lower() == "basic":
            try:
                user = base64.b64decode(credentials, validate=True).decode().partition(":")[0]
            except (binascii.Error, UnicodeDecodeError):
                user = ""
            if SCENARIO_ID.fullmatch(user):
                scenario = user
        self._commit(request, scenario, None, None, 403, None)
        return web.Response(status=403, text="the capture server tunnels nowhere")

    @staticmethod
    async def _stream(request: web.Request, answer: StreamAnswer) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        for event, data in answer.events:
            head = f"event: {event}\n".encode() if event else b""
            # backslashreplace: a lone surrogate (legal in JSON, echoed from a request) goes out as its \u escape
            payload = json.dumps(data, ensure_ascii=False).encode("utf-8", "backslashreplace")
            await response.write(head + b"data: " + payload + b"\n\n")
        if answer.done is not None:
            await response.write(f"data: {answer.done}\n\n".encode())
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


class _Guard(asyncio.Protocol):
    """One connection: aiohttp's handler, wrapped to add what aiohttp lacks.

    aiohttp closes a connection that sends nothing (its keep-alive timeout), but one that sends part of a request
    head and then stalls would hold a slot forever; the guard closes it ``header_seconds`` after its first byte
    unless the head arrived whole (the ``_busy`` middleware says so). A connection beyond ``max_connections`` is
    answered 503 and closed before aiohttp sees it.
    """

    def __init__(self, inner: asyncio.Protocol, guards: dict, header_seconds: float, max_connections: int) -> None:
        self._inner, self._guards = inner, guards
        self._header_seconds, self._max_connections = header_seconds, max_connections
        self._transport: asyncio.Transport | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._busy = self._refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        if len(self._guards) >= self._max_connections:
            self._refused = True
            transport.write(_BUSY)
            transport.close()
            return
        self._guards[self._inner] = self
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if not self._busy and self._deadline is None:
            self._deadline = asyncio.get_running_loop().call_later(self._header_seconds, self._expire)
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return None if self._refused else self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if not self._refused:
            self._guards.pop(self._inner, None)
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def busy(self, busy: bool) -> None:
        """A request is being handled (its head is complete) or has been answered."""
        self._busy = busy
        self._disarm()

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self._busy and self._transport is not None:
            self._transport.abort()


class _GuardedSite(web.TCPSite):
    """aiohttp's TCP site, but each connection's protocol comes from ``factory`` (a ``_Guard``)."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, factory: Callable[[], asyncio.Protocol]) -> None:
        super().__init__(runner, host, port)
        self._factory = factory

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner (TCPSite.start would bind its own)
        self._server = await asyncio.get_running_loop().create_server(self._factory, self._host, self._port)
