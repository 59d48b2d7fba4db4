"""Real MCP servers on loopback, one per tool set, built with the official MCP Python SDK (``mcp``).

Each server lists exactly the tool names it is given (what a real server of the corpus serves); every tool takes
one optional string and answers ``ok``. All servers share one uvicorn process in a thread, each mounted under its
own path with the SDK's streamable-HTTP transport, so a client connects to each as to a separate server.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Mapping, Sequence

import uvicorn
from mcp.server import MCPServer
from starlette.applications import Starlette
from starlette.routing import Mount

from probe_lib.core.errors import HarnessError

#: Watchdog: the servers must be listening this soon after start.
START_SECONDS = 30.0


def _answer(city: str = "") -> str:
    """Every served tool's body: the measurements are about names, never about what a tool does."""
    return "ok"


def served_description(label: str, name: str) -> str:
    """The description a served tool carries: its server's label and its own name, so that a request tells which
    served tool each sent name is, whatever the client and the framework did to the name."""
    return f"{label} tool {name}"


def _server(label: str, names: Sequence[str]) -> MCPServer:
    server = MCPServer(label, warn_on_duplicate_tools=False, log_level="ERROR")
    for name in names:
        server.add_tool(_answer, name=name, description=served_description(label, name))
    return server


class McpServers:
    """``with McpServers({label: names}) as servers: servers.url(label)`` -> the label's streamable-HTTP endpoint."""

    def __init__(self, tool_sets: Mapping[str, Sequence[str]]) -> None:
        self._servers = {label: _server(label, names) for label, names in tool_sets.items()}
        self._paths = {label: f"/s{index}" for index, label in enumerate(self._servers)}
        self._uvicorn: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def url(self, label: str) -> str:
        host, port = self._uvicorn.servers[0].sockets[0].getsockname()[:2]
        return f"http://{host}:{port}{self._paths[label]}/mcp"

    def __enter__(self) -> McpServers:
        routes = [
            Mount(self._paths[label], app=server.streamable_http_app(streamable_http_path="/mcp"))
            for label, server in self._servers.items()
        ]
        app = Starlette(routes=routes, lifespan=self._lifespan)
        self._uvicorn = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self._thread = threading.Thread(target=self._uvicorn.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not self._uvicorn.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise HarnessError(f"the MCP servers did not start listening within {START_SECONDS:.0f} s")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(timeout=10)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette):
        async with contextlib.AsyncExitStack() as stack:
            for server in self._servers.values():
                await stack.enter_async_context(server.session_manager.run())
            yield
