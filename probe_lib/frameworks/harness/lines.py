"""The Python half of ``probe_lib/process/lines.py``, shared by every Python framework runner.

A runner runs in its framework's own virtual environment (it cannot import ``probe_lib``); it puts this folder on
``sys.path`` and calls ``serve(turn, version)``: one JSON request per stdin line, ``await turn(request, log)`` for
each (several at once, on one event loop), one ``RESULT_MARK``-prefixed JSON result line per request:
``{id, error (the exception and its cause chain, or null), executions (log), timedOut, elapsedMs}``.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable
from importlib import metadata

RESULT_MARK = "\x1eRESULT "
#: The first httpcore whose async pool never leaves a request stalled among concurrent ones: under 1.0.5 (the
#: openai SDK's of early 2024) about one run in two of the matrix lost a turn to its 30 s timeout, none one at a time.
HTTPCORE_CONCURRENT = (1, 0, 5)
Turn = Callable[[dict, list], Awaitable[None]]


def release(version: str) -> tuple[int, ...]:
    """The numeric release of a PEP 440 version (``"0.2.0.dev0"`` -> ``(0, 2, 0)``), which a runner compares with
    the first release of each API era it supports (a prerelease counts as its release)."""
    return tuple(int(part) for part in re.match(r"\d+(?:\.\d+)*", version).group().split("."))


def description(key: str) -> str:
    """What a probe tool says of itself where its framework takes a description: its key (the matrix pairs a
    rewritten wire name with its key by it)."""
    return f"probe tool {key}"


def ran(key: str, log: list, city: str | None) -> str:
    """What a probe tool does when called: record, under its key, that it ran and with what."""
    log.append({"key": key, "args": {"city": city}})
    return "tempC=20"


def probe(key: str, log: list) -> Callable[..., Awaitable[str]]:
    """A probe tool's function, for frameworks that make a tool of a coroutine (its signature is its schema)."""

    async def probe(city: str | None = None) -> str:
        """A probe tool: records that it ran."""
        return ran(key, log, city)

    return probe


def emit(result: dict) -> None:
    sys.stdout.write(RESULT_MARK + json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


def describe_error(error: BaseException | None) -> list[dict]:
    """``error`` and its ``__cause__``/``__context__`` chain, outermost first."""
    chain: list[dict] = []
    while error is not None and len(chain) < 8:
        chain.append({"name": type(error).__name__, "message": str(error)})
        error = error.__cause__ or error.__context__
    return chain


async def _run_one(turn: Turn, request: dict, version: str) -> dict:
    started = time.perf_counter()
    log: list = []
    result = {"id": request["id"], "version": version, "error": None, "executions": log, "timedOut": False}
    limit_ms = request.get("timeoutMs", 10_000)
    try:
        await asyncio.wait_for(turn(request, log), timeout=limit_ms / 1000)
    except TimeoutError:  # the watchdog's (its own message is empty), said as the Node half says it
        result["timedOut"] = True
        result["error"] = [{"name": "TimeoutError", "message": f"turn timed out after {limit_ms} ms"}]
    except Exception as error:  # every failure of a turn is measured, never fatal to the batch
        result["error"] = describe_error(error)
    result["elapsedMs"] = (time.perf_counter() - started) * 1000
    return result


async def _serve(turn: Turn, version: str, concurrency: int, cannot_force: str | None) -> None:
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(concurrency)
    tasks: set[asyncio.Task] = set()

    async def one(request: dict) -> None:
        async with gate:
            emit(await _run_one(turn, request, version))

    emit({"ready": True, "version": version, **({"cannotForce": cannot_force} if cannot_force else {})})
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        if line.strip():
            task = asyncio.ensure_future(one(json.loads(line)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)


def serve(turn: Turn, version: str, *, cannot_force: str | None = None) -> None:
    """Run the protocol until stdin closes (``sys.argv[3]``, when given, is the concurrency; one turn at a time
    with an httpcore older than :data:`HTTPCORE_CONCURRENT`). ``cannot_force``
    says why this release cannot force a tool (the ready line carries it, and no forcing request is then sent)."""
    concurrency = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    try:
        if release(metadata.version("httpcore")) < HTTPCORE_CONCURRENT:
            concurrency = 1
    except metadata.PackageNotFoundError:
        pass  # the framework speaks HTTP with another library
    asyncio.run(_serve(turn, version, concurrency, cannot_force))
