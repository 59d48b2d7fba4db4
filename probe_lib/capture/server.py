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

At its limits it refuses rather than loses: a body it cannot read (too large, too slow, not JSON, nested deeper than
``MAX_JSON_DEPTH``) is recorded and answered 4xx in the route's format; a head aiohttp cannot parse (a header over
its line limit) is answered 400 by aiohttp, with one log line; a connection past the cap (which the file-descriptor
limit lowers) or past the last free descriptor is answered 503; and once the store cannot write a record (a full
disk), that request and every later one is answered 507 and the server stops accepting connections.

The server runs aiohttp in a background thread with its own event loop, so a notebook or a test uses it as
``with CaptureServer() as server:``. Another process can script scenarios and read records over HTTP:
``PUT /_probe/scenarios/{id}`` (a JSON array of reply forms), ``GET /_probe/records?scenario=ID`` and
``DELETE /_probe/scenarios/{id}`` (returns and forgets, like :meth:`CaptureServer.take`); these are not recorded.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import errno
import functools
import ipaddress
import json
import logging
import os
import re
import resource
import socket
import threading
from collections.abc import Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from probe_lib import wire
from probe_lib.capture.store import SCENARIO_ID, Capture, RecordStore, check_scenario_id
from probe_lib.core.errors import StateError, StoreFailed
from probe_lib.wire import JsonAnswer, StreamAnswer
from probe_lib.wire.chat import error_body as _error_body
from probe_lib.wire.replies import ErrorReply, Reply, replies_from_json

#: A body that is not JSON is kept as text up to this many characters.
RAW_LIMIT = 64 * 1024
_SCENARIO_PATH = re.compile(r"/s/([^/]+)(/.*)?")
_SHUTDOWN_SECONDS = 2.0
#: Watchdogs on every connection: a request head must arrive whole this long after its first byte, a body must
#: be read this long after its head, and a connection that sends nothing for the idle time is closed.
HEADER_SECONDS = 10.0
BODY_SECONDS = 60.0
IDLE_SECONDS = 60.0
#: The body limit by default, 8 MiB (a request of 30,000 keys is about 9 MiB).
MAX_BODY_BYTES = 8 * 2**20
#: A body nested deeper than this is recorded as text and refused: Python walks JSON recursively (``json``, the
#: kit's readers), and its recursion limit is about 1,000 frames in all.
MAX_JSON_DEPTH = 256
#: The status recorded for a request whose client closed the connection before its body came (nginx's 499): it
#: can be answered no more, but the attempt is kept.
CLIENT_CLOSED = 499
#: Connections served at once; one more is answered 503 and closed (a runner keeps about 16 open). At start the
#: cap is lowered to fit the file-descriptor limit, less the descriptors open then and ``DESCRIPTOR_HEADROOM``
#: for those the process opens later (pipes to runners, files).
MAX_CONNECTIONS = 512
DESCRIPTOR_HEADROOM = 32
#: Connections accepted per wake-up of the listening socket, so a flood cannot starve the requests being served.
_ACCEPT_BATCH = 64
#: With no descriptor free even for a refusal, accepting pauses this long before it is tried again.
_ACCEPT_RETRY_SECONDS = 0.1
_OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
_log = logging.getLogger(__name__)


def _unavailable(reason: str) -> bytes:
    """A complete 503 response that closes the connection, saying why in plain text."""
    text = f"capture server: {reason}; retry later\n".encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(text)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + text


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


def _connection_cap(requested: int) -> int:
    """``requested``, lowered so that connections leave free the descriptors the rest of the process needs."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return requested
    open_now = len(os.listdir("/dev/fd"))  # this process's open descriptors, on Linux and macOS alike
    return max(1, min(requested, soft - open_now - DESCRIPTOR_HEADROOM))


def _out_of_descriptors() -> str:
    limit, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return f"capture server: out of file descriptors (limit {limit}, `ulimit -n` raises it); answering 503"


def _spare_descriptor() -> int | None:
    """A descriptor held in reserve: closed to accept one connection when none is free, so it can be refused."""
    try:
        return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def _refuse(connection: socket.socket, answer: bytes) -> None:
    """Send ``answer`` on a just-accepted connection and close it, best effort (the client may be gone)."""
    with connection:
        connection.setblocking(False)
        with contextlib.suppress(OSError):
            connection.recv(65536)  # what the request sent already: closing with it unread would reset the answer
        with contextlib.suppress(OSError):
            connection.send(answer)
            connection.shutdown(socket.SHUT_WR)


def _deeper_than(value: object, limit: int) -> bool:
    """True when ``value`` nests lists and objects more than ``limit`` levels deep (walked without recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _parse_json(data: bytes) -> object:
    """The JSON ``data`` holds; ``ValueError`` saying why when it is not JSON or nests deeper than
    ``MAX_JSON_DEPTH``."""
    too_deep = f"JSON nested deeper than {MAX_JSON_DEPTH} levels (the capture server's limit)"
    try:
        value = json.loads(data)
    except RecursionError:
        raise ValueError(too_deep) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"malformed JSON: {error}") from None
    # Each level opens with a bracket, so a body with no more brackets than the limit (in strings too) cannot pass
    # it: counted in C, this spares most bodies the walk, which costs twice their parsing.
    if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH and _deeper_than(value, MAX_JSON_DEPTH):
        raise ValueError(too_deep)
    return value


def _refusal(wire_format: wire.WireFormat | None, status: int, message: str) -> web.Response:
    """The capture server's own error answer, shaped as the route's provider shapes its errors."""
    answer = wire_format.answer(ErrorReply(status, message), {}, 0) if wire_format else None
    body = answer.body if isinstance(answer, JsonAnswer) else _error_body(message)
    return web.json_response(body, status=status)


class _ServerLog(logging.LoggerAdapter):
    """aiohttp's server log, except that a request it could not parse (a client's fault: a header over its line
    limit, a malformed head or chunk, a body its encoding does not decode) is one warning line, not a traceback.
    aiohttp answers a head it cannot parse 400 itself; a body, the capture server records and answers 400, and
    aiohttp meets the fault again when it drains the rest."""

    def exception(self, msg: object, *args: object, exc_info: object = True, **kwargs: object) -> None:
        fault = exc_info.__cause__ if isinstance(exc_info, web.RequestPayloadError) else exc_info
        if isinstance(fault, HttpProcessingError):
            reason = " ".join(fault.message.split())[:160]
            self.warning("capture server: refused a request it could not parse (%s)", reason)
        else:
            super().exception(msg, *args, exc_info=exc_info, **kwargs)


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
        header_seconds, body_seconds, idle_seconds: the connection watchdogs (see ``HEADER_SECONDS``).
        max_connections: connections served at once, lowered at start to fit the descriptor limit (see
            ``MAX_CONNECTIONS``); :attr:`max_connections` tells the cap in force.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = MAX_BODY_BYTES,
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
        #: Every connection served, from its accept to its close: the one count the cap is held to (a connection
        #: whose transport is being made is in ``_guards`` and still opening for a moment, so a sum counted it twice).
        self._served: set[_Guard] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._listening: socket.socket | None = None
        self._opening: set[asyncio.Task] = set()  # connections accepted, their transports not yet made
        self._spare: int | None = None
        self._accept_trouble = False  # accepting has failed since the last connection accepted to be served

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
            app,
            access_log=None,
            logger=_ServerLog(logging.getLogger("aiohttp.server")),
            shutdown_timeout=_SHUTDOWN_SECONDS,
            keepalive_timeout=self._idle_seconds,
        )
        await self._runner.setup()
        # No aiohttp site (a site hands each connection straight to aiohttp): a socket bound here and accepted from
        # by the server itself, which refuses what it cannot serve; each connection is served through a guard
        address = ipaddress.ip_address(self._host)
        self._listening = socket.create_server(
            (self._host, self._port), family=socket.AF_INET6 if address.version == 6 else socket.AF_INET
        )
        self._listening.setblocking(False)
        self._max_connections = _connection_cap(self._max_connections)
        self._spare = _spare_descriptor()
        asyncio.get_running_loop().add_reader(self._listening, self._accept)

    def _accept(self) -> None:
        """Take the connections waiting on the listening socket: each is served, or answered 503 when the
        connection cap is reached or no descriptor is left (then with the spare one)."""
        loop = asyncio.get_running_loop()
        for _ in range(_ACCEPT_BATCH):
            try:
                connection, _ = self._listening.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:  # the client left while waiting
                continue
            except OSError as error:
                if error.errno not in _OUT_OF_DESCRIPTORS or not self._refuse_with_spare():
                    self._pause_accepting(error)
                    return
                continue
            if self.connections >= self._max_connections:
                _refuse(connection, _unavailable(f"{self._max_connections} connections open, the most it serves"))
                continue
            self._accept_trouble = False
            connection.setblocking(False)
            guard = _Guard(self._runner.server, self._guards, self._served, self._header_seconds)
            self._served.add(guard)
            opening = loop.create_task(loop.connect_accepted_socket(lambda guard=guard: guard, connection))
            self._opening.add(opening)
            opening.add_done_callback(functools.partial(self._opened, guard))

    def _refuse_with_spare(self) -> bool:
        """With no descriptor free, free the spare to accept one connection and answer it 503; False if it could
        not (no spare, or another thread took the descriptor first)."""
        if self._spare is None:
            return False
        self._warn(_out_of_descriptors())
        os.close(self._spare)
        try:
            connection, _ = self._listening.accept()
        except OSError:
            refused = False
        else:
            _refuse(connection, _unavailable("out of file descriptors"))
            refused = True
        self._spare = _spare_descriptor()  # the refused connection's descriptor, now closed
        return refused

    def _pause_accepting(self, error: OSError) -> None:
        """Stop accepting for a moment: a fault no refusal can be sent through (no descriptor at all)."""
        if error.errno in _OUT_OF_DESCRIPTORS:
            self._warn(_out_of_descriptors())
        else:
            self._warn(f"capture server: accepting a connection failed ({error.strerror or error}); retrying")
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._listening)
        loop.call_later(_ACCEPT_RETRY_SECONDS, self._resume_accepting)

    def _resume_accepting(self) -> None:
        if self._listening is not None:
            if self._spare is None:
                self._spare = _spare_descriptor()
            asyncio.get_running_loop().add_reader(self._listening, self._accept)

    def _warn(self, line: str) -> None:
        """One line per spell of trouble accepting, not one per connection refused or retry."""
        if not self._accept_trouble:
            self._accept_trouble = True
            _log.warning("%s", line)

    def _opened(self, guard: _Guard, opening: asyncio.Task) -> None:
        """An accepted connection's transport is made, or could not be: then it is no longer served."""
        self._opening.discard(opening)
        if opening.cancelled() or opening.exception() is not None:
            self._served.discard(guard)

    def _stop_accepting(self) -> None:
        """Close the listening socket (new connections are refused by the system); open ones stay served."""
        if self._listening is not None:
            asyncio.get_running_loop().remove_reader(self._listening)
            self._listening.close()
            self._listening = None
        if self._spare is not None:
            os.close(self._spare)
            self._spare = None

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
        self._stop_accepting()  # no new connection; aiohttp's cleanup then closes the open ones
        await asyncio.gather(*self._opening, return_exceptions=True)
        await self._runner.cleanup()
        self._runner = None

    def __enter__(self) -> CaptureServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def connections(self) -> int:
        """The connections served now: accepted and not yet closed, whether their transport is made yet or not."""
        return len(self._served)

    @property
    def max_connections(self) -> int:
        """Connections served at once; once started, the cap in force (lowered to fit the descriptor limit)."""
        return self._max_connections

    @property
    def max_body_bytes(self) -> int:
        """The largest request body recorded whole; a larger one is answered 413 (the kit's limit, not a provider's)."""
        return self._max_body_bytes

    # -- addresses -------------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` with the port actually bound."""
        if self._listening is None:
            raise StateError("the capture server is not running; start() it or use it as a context manager")
        host, port = self._listening.getsockname()[:2]
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
            return await self._answer(request, scenario, wire_format)
        except StoreFailed as error:
            self._stop_accepting()  # every later record would be lost too
            return _refusal(wire_format, 507, f"capture server: {error}; it has stopped recording")

    async def _answer(
        self, request: web.Request, scenario: str, wire_format: wire.WireFormat | None
    ) -> web.StreamResponse:
        """Record ``request`` and answer it: with the scenario's next reply, or a refusal saying what was wrong."""

        def refuse(status: int, message: str, body: object | None = None, raw: str | None = None) -> web.Response:
            self._commit(request, scenario, body, raw, status, wire_format)
            return _refusal(wire_format, status, message)

        try:
            async with asyncio.timeout(self._body_seconds):  # no task of its own per request, as wait_for makes
                data = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return refuse(413, f"body exceeds {self._max_body_bytes} bytes; raise the capture server's max_body_bytes")
        except TimeoutError:
            return refuse(408, f"body not sent within {self._body_seconds:g} s")
        except ConnectionResetError:  # the client closed its side before the whole body came: nobody to answer
            return refuse(CLIENT_CLOSED, "the client closed the connection before its body was sent")
        except web.RequestPayloadError as error:  # a body aiohttp could not decode (a broken gzip, a bad chunk)
            return refuse(400, f"body could not be read: {' '.join(str(error).split())}")
        body: object | None = None
        if data or wire_format:
            try:
                body = _parse_json(data)
            except ValueError as error:
                return refuse(400, str(error), raw=_as_text(data))
        if wire_format is None:
            routes = ", ".join(known.route for known in wire.FORMATS)
            return refuse(
                404, f"no route for {request.method} {request.path}; the capture server answers POST to {routes}", body
            )
        if not isinstance(body, dict):
            return refuse(400, "a model call's body must be a JSON object", body)
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
            replies = replies_from_json(_parse_json(await request.read()))
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
    unless the head arrived whole (the ``_busy`` middleware says so).
    """

    def __init__(
        self, handler: Callable[[], asyncio.Protocol], guards: dict, served: set, header_seconds: float
    ) -> None:
        self._handler, self._guards, self._served, self._header_seconds = handler, guards, served, header_seconds
        self._inner: asyncio.Protocol | None = None  # aiohttp's handler, once the connection is made
        self._transport: asyncio.Transport | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._inner = self._handler()
        self._guards[self._inner] = self
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self._busy and self._deadline is None:
            self._deadline = asyncio.get_running_loop().call_later(self._header_seconds, self._expire)
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._guards.pop(self._inner, None)
        self._served.discard(self)
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
