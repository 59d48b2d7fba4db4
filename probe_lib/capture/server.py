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
import ipaddress
import json
import re
import socket
import threading
from collections.abc import Callable

from aiohttp import web

from probe_lib import wire
from probe_lib.capture.store import SCENARIO_ID, Capture, RecordStore, check_scenario_id
from probe_lib.core.errors import StateError
from probe_lib.wire import StreamAnswer
from probe_lib.wire.chat import error_body as _error_body
from probe_lib.wire.replies import Reply, replies_from_json

#: A body that is not JSON is kept as text up to this many characters.
RAW_LIMIT = 64 * 1024
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


def _as_text(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(text) > RAW_LIMIT:
        return f"{text[:RAW_LIMIT]}...[{len(text) - RAW_LIMIT} more characters]"
    return text


class CaptureServer(RecordStore):
    """An OpenAI-compatible chat completions endpoint on loopback that records what it is sent: a
    :class:`RecordStore` that frameworks reach over HTTP.

    Args:
        host: a loopback address (127.0.0.0/8, ``::1`` or ``localhost``); anything else is refused.
        port: 0 picks a free port; :attr:`base_url` tells which.
        max_body_bytes: larger bodies are answered 413 and recorded without their content.
        on_record, keep_records: the store's (:class:`RecordStore`); ``on_record`` is called on the server thread.
        header_seconds, body_seconds, idle_seconds, max_connections: the connection watchdogs (see
            ``HEADER_SECONDS``).
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
        body_seconds: float = BODY_SECONDS,
        idle_seconds: float = IDLE_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        super().__init__(on_record=on_record, keep_records=keep_records)
        self._host = _check_loopback(host)
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be at least 1, not {max_body_bytes}")
        self._port = port
        self._max_body_bytes = max_body_bytes
        self._header_seconds = header_seconds
        self._body_seconds = body_seconds
        self._idle_seconds = idle_seconds
        self._max_connections = max_connections
        #: Open connections, by aiohttp's handler (what ``request.protocol`` is), to their guard.
        self._guards: dict[object, _Guard] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None

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
        # No aiohttp site (a site hands each connection straight to aiohttp): a socket bound here, served by asyncio,
        # each connection through a guard first
        address = ipaddress.ip_address(self._host)
        listening = socket.create_server(
            (self._host, self._port), family=socket.AF_INET6 if address.version == 6 else socket.AF_INET
        )
        self._listener = await asyncio.get_running_loop().create_server(self._guard, sock=listening)

    def _guard(self) -> _Guard:
        """A new connection's protocol: a ``_Guard``, handing it to aiohttp's handler (its public ``web.Server``
        is the protocol factory) unless the connection is over the cap."""
        return _Guard(self._runner.server, self._guards, self._header_seconds, self._max_connections)

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
            asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
        self._thread = self._loop = None

    async def _stop(self) -> None:
        if self._listener is not None:
            self._listener.close()  # no new connection; aiohttp's cleanup then closes the open ones
            self._listener = None
        await self._runner.cleanup()
        self._runner = None

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
        if self._listener is None:
            raise StateError("the capture server is not running; start() it or use it as a context manager")
        host, port = self._listener.sockets[0].getsockname()[:2]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def scenario_url(self, scenario_id: str) -> str:
        """The base URL to give Mastra's model config (``url``) so its requests land in ``scenario_id``."""
        return f"{self.base_url}/s/{check_scenario_id(scenario_id)}/v1"

    def proxy_url(self, scenario_id: str) -> str:
        """An HTTP(S) proxy URL whose ``CONNECT`` requests land in ``scenario_id`` (it is the proxy's user name)."""
        return self.base_url.replace("://", f"://{check_scenario_id(scenario_id)}@", 1)

    def _commit(
        self,
        request: web.BaseRequest,
        scenario: str,
        body: object | None,
        raw: str | None,
        status: int | None,
        wire_format: wire.WireFormat | None,
    ) -> tuple[Capture, Reply | None, int]:
        """:meth:`RecordStore.commit` of ``request``."""
        name = wire_format.name if wire_format else None
        return self.commit(scenario, request.method, request.raw_path, request.headers.items(), body, raw, status, name)

    # -- the provider side -----------------------------------------------------------------------------------

    async def _capture(self, request: web.Request) -> web.StreamResponse:
        match = _SCENARIO_PATH.fullmatch(request.path)
        scenario, route = (match.group(1), match.group(2) or "") if match else ("default", request.path)
        wire_format = wire.for_route(route) if request.method == "POST" else None
        try:
            data = await asyncio.wait_for(request.read(), self._body_seconds)
        except web.HTTPRequestEntityTooLarge:
            self._commit(request, scenario, None, None, 413, wire_format)
            message = f"body exceeds {self._max_body_bytes} bytes; raise the capture server's max_body_bytes"
            return web.json_response(_error_body(message), status=413)
        except TimeoutError:
            self._commit(request, scenario, None, None, 408, wire_format)
            return web.json_response(_error_body(f"body not sent within {self._body_seconds:g} s"), status=408)
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
    """One connection: aiohttp's handler, wrapped to add what aiohttp has no setting for.

    aiohttp closes a connection that sends nothing (its keep-alive timeout), but one that sends part of a request
    head and then stalls would hold a slot forever; the guard closes it ``header_seconds`` after its first byte
    unless the head arrived whole (the ``_busy`` middleware says so). A connection beyond ``max_connections`` is
    answered 503 and closed before aiohttp sees it.
    """

    def __init__(
        self, handler: Callable[[], asyncio.Protocol], guards: dict, header_seconds: float, max_connections: int
    ) -> None:
        self._handler, self._guards = handler, guards
        self._header_seconds, self._max_connections = header_seconds, max_connections
        self._inner: asyncio.Protocol | None = None  # aiohttp's handler, once the connection is accepted
        self._transport: asyncio.Transport | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        if len(self._guards) >= self._max_connections:
            transport.write(_BUSY)
            transport.close()
            return
        self._inner = self._handler()
        self._guards[self._inner] = self
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._inner is None:
            return
        if not self._busy and self._deadline is None:
            self._deadline = asyncio.get_running_loop().call_later(self._header_seconds, self._expire)
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return None if self._inner is None else self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._inner is not None:
            self._guards.pop(self._inner, None)
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
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
