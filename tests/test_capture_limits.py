"""The capture server's own limits, on real sockets: header, body and idle watchdogs, a connection cap, records
streamed to a file without being kept, and a lone surrogate (legal JSON) answered and recorded like any other key.
At the limits of what it can take (a body nested too deep, a header too long, more connections than descriptors, a
full disk) every request is recorded or answered with a refusal, and nothing prints a traceback."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter

import pytest

from probe_lib.capture import CaptureServer
from probe_lib.capture import server as server_module
from probe_lib.capture.server import MAX_JSON_DEPTH


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the server closes ``sock`` (EOF or reset) within ``seconds``."""
    sock.settimeout(seconds)
    try:
        while sock.recv(1024):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def connect(server: CaptureServer) -> socket.socket:
    host, port = server.base_url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=5)


def test_a_request_head_that_stalls_is_cut_at_the_header_timeout():
    with CaptureServer(header_seconds=0.5) as server:
        stalled = connect(server)
        stalled.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Le")
        started = time.monotonic()
        assert closed_within(stalled, 5), "a half-sent head held the connection"
        assert 0.4 < time.monotonic() - started < 3
        with connect(server) as healthy:  # the server still answers
            healthy.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert healthy.recv(1024).startswith(b"HTTP/1.1 404")


def test_a_body_that_stalls_is_answered_408_at_the_body_timeout_and_recorded():
    with CaptureServer(body_seconds=0.5) as server, connect(server) as stalled:
        stalled.sendall(b"POST /s/slow/v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        started = time.monotonic()
        stalled.settimeout(5)
        assert stalled.recv(1024).startswith(b"HTTP/1.1 408")
        assert 0.4 < time.monotonic() - started < 3
        [record] = server.records("slow")
    assert (record.status, record.body, record.wire) == (408, None, "chat-completions")


def test_a_client_that_closes_mid_body_is_recorded_499_without_a_traceback(caplog):
    with CaptureServer() as server, connect(server) as client:
        client.sendall(b"POST /s/gone/v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        client.shutdown(socket.SHUT_WR)
        assert closed_within(client, 5)
        deadline = time.monotonic() + 5
        while not server.records("gone") and time.monotonic() < deadline:
            time.sleep(0.02)
        [record] = server.records("gone")
    assert (record.status, record.body, record.wire) == (499, None, "chat-completions")
    assert not [r for r in caplog.records if r.exc_info], "aiohttp logged a traceback"


def test_a_connection_that_sends_nothing_is_closed_at_the_idle_timeout():
    with CaptureServer(idle_seconds=0.5) as server, connect(server) as idle:
        assert closed_within(idle, 5)


def test_connections_over_the_cap_are_answered_503_and_closed():
    with CaptureServer(max_connections=2) as server:
        held = [connect(server), connect(server)]
        deadline = time.monotonic() + 5  # a fixed pause lost the race on a loaded machine: the third took a slot
        while (open_now := server.connections) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert open_now == 2  # not more: a connection being opened was once counted twice, refusing the second
        with connect(server) as extra:
            extra.settimeout(5)
            assert extra.recv(1024).startswith(b"HTTP/1.1 503")
        for sock in held:
            sock.close()
        time.sleep(0.2)
        with connect(server) as again:  # a freed slot is usable again
            again.sendall(b"GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            again.settimeout(5)
            assert again.recv(1024).startswith(b"HTTP/1.1 404")


def test_a_connection_is_counted_once_while_its_transport_is_made(monkeypatch):
    """The moment aiohttp's handler takes the connection, before the task that made it ends, the count is the
    connections open: a sum of the two once counted that one twice and refused a connection under the cap."""
    seen = []
    made = server_module._Guard.connection_made

    def counted_when_made(guard, transport):
        made(guard, transport)
        seen.append(server.connections)

    monkeypatch.setattr(server_module._Guard, "connection_made", counted_when_made)
    with CaptureServer() as server:
        held = []
        for expected in (1, 2):
            held.append(connect(server))
            deadline = time.monotonic() + 5
            while len(seen) < expected and time.monotonic() < deadline:
                time.sleep(0.01)
        for sock in held:
            sock.close()
    assert seen == [1, 2]


def test_without_keep_records_every_record_goes_to_on_record_and_none_is_kept():
    written = []
    with CaptureServer(on_record=written.append, keep_records=False) as server:
        for number in range(50):
            request = urllib.request.Request(
                f"{server.base_url}/v1/chat/completions",
                method="POST",
                data=json.dumps({"model": "m", "messages": [], "n": number}).encode(),
            )
            with pytest.raises(urllib.error.HTTPError):  # 400 "captured": no reply scripted
                urllib.request.urlopen(request, timeout=10)
        assert server.records() == [] and server.take("default") == []
    assert [record.body["n"] for record in written] == list(range(50))


@pytest.fixture
def capture_cli(tmp_path):
    """``probe-lib capture --out FILE --replies`` (text replies) as a real process; yields (base URL, out file,
    process), its banner line already read from its stderr."""
    out, replies = tmp_path / "records.jsonl", tmp_path / "replies.json"
    replies.write_text(json.dumps([{"text": "ok"}] * 4))
    process = subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "capture", "--out", str(out), "--replies", str(replies)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = process.stderr.readline()
        base = re.search(r"listening on (http://\S+);", banner).group(1)
        yield base, out, process
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


@pytest.mark.parametrize("stream", [False, True])
def test_a_lone_surrogate_in_a_body_is_answered_200_and_recorded(capture_cli, stream):
    base, out, _ = capture_cli
    body = (
        '{"model": "gpt-\\ud800", "stream": ' + json.dumps(stream) + ', "messages": [], "tools": [{"type": '
        '"function", "function": {"name": "a\\udc00b"}}]}'
    )
    request = urllib.request.Request(
        f"{base}/v1/chat/completions", data=body.encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        answer = response.read().decode("utf-8")
    assert "\\ud800" in answer  # the echoed model name, as a JSON escape
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert records[-1]["status"] == 200
    assert records[-1]["body"]["tools"][0]["function"]["name"] == "a\udc00b"
    with urllib.request.urlopen(f"{base}/_probe/records", timeout=10) as response:
        assert json.loads(response.read()) == [], "with --out, records are kept only in the file"


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """POST ``body``; the status and the JSON answer, error or not."""
    request = urllib.request.Request(url, data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def stop(process: subprocess.Popen) -> str:
    """SIGINT the CLI as Ctrl-C would; the rest of its stderr once it exits 0."""
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=30)
    assert process.returncode == 0, rest
    return rest


@pytest.mark.parametrize("route", ["/v1/chat/completions", "/v1/messages"])
def test_a_body_nested_deeper_than_the_limit_is_recorded_as_text_and_refused_400_in_the_routes_format(route):
    beyond = '{"model": "m", "x": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"  # one level too many
    with CaptureServer() as server:
        for body in ("[" * 100_000, beyond):
            status, answer = post(f"{server.base_url}{route}", body.encode())
            assert status == 400 and f"nested deeper than {MAX_JSON_DEPTH} levels" in answer["error"]["message"]
            assert (answer.get("type") == "error") == (route == "/v1/messages"), "shaped as the route's provider does"
        deep, deeper = server.records()
    assert deep.body is None and deep.raw.startswith("[[[[") and deep.raw.endswith("more characters]")
    assert deeper.body is None and json.loads(deeper.raw)  # valid JSON, but kept as text: too deep to be a body
    assert (deep.status, deep.wire) == (
        400,
        "chat-completions" if route.endswith("completions") else "anthropic-messages",
    )


def test_a_body_at_the_depth_limit_is_answered_and_written_whole_by_capture_out(capture_cli):
    base, out, _ = capture_cli
    depth = MAX_JSON_DEPTH - 1  # the object around it is the last level
    body = '{"model": "m", "messages": [], "x": ' + "[" * depth + "]" * depth + "}"
    assert post(f"{base}/v1/chat/completions", body.encode())[0] == 200
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert (
        record["status"] == 200
        and record["raw"] is None
        and json.dumps(record["body"]["x"]) == json.dumps(json.loads(body)["x"])
    )


def test_a_body_aiohttp_cannot_decode_is_recorded_and_refused_400(capture_cli):
    base, out, process = capture_cli
    status, answer = post(f"{base}/s/gz/v1/chat/completions", b"not gzip", {"Content-Encoding": "gzip"})
    assert status == 400 and answer["error"]["message"].startswith("body could not be read")
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert (record["scenario"], record["status"], record["body"], record["raw"]) == ("gz", 400, None, None)
    rest = stop(process)
    assert len(rest.splitlines()) == 1 and "could not parse" in rest and "Traceback" not in rest, rest


def test_a_header_over_aiohttps_line_limit_is_answered_400_with_one_line_and_no_traceback(capture_cli):
    base, _, process = capture_cli
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as client:
        client.sendall(b"GET /v1/x HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
        assert client.recv(1024).startswith(b"HTTP/1.0 400 Bad Request")
    assert post(f"{base}/v1/chat/completions", b"{}")[0] == 200, "the server goes on serving"
    rest = stop(process)
    assert len(rest.splitlines()) == 1 and "could not parse" in rest and "Traceback" not in rest, rest


def answers(address: tuple[str, int], count: int, seconds: float) -> Counter:
    """Open ``count`` connections at once, each sending a request; what each got within ``seconds`` in all: the
    status line's first 12 bytes, b"closed" for a clean close, or the exception that ended the wait."""
    got: Counter = Counter()
    clients = []
    for _ in range(count):
        client = socket.socket()
        client.settimeout(seconds)
        try:
            client.connect(address)
            client.sendall(b"GET /v1/x HTTP/1.1\r\nHost: x\r\n\r\n")
            clients.append(client)
        except OSError as error:
            got[type(error).__name__] += 1
            client.close()
    deadline = time.monotonic() + seconds
    for client in clients:
        client.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            got[client.recv(64)[:12] or b"closed"] += 1
        except OSError as error:
            got[type(error).__name__] += 1
    for client in clients:
        client.close()
    return got


def low_descriptor_limit(limit: int = 64):
    """A preexec_fn: the child may open only ``limit`` descriptors (a low ``ulimit -n``, as macOS's 256)."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@pytest.mark.slow
def test_under_a_low_descriptor_limit_the_cap_follows_it_and_every_connection_is_answered():
    process = subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "capture"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=low_descriptor_limit(64),
    )
    try:
        host, port = re.search(r"listening on http://(\S+):(\d+);", process.stderr.readline()).groups()
        got = answers((host, int(port)), 200, seconds=10)
        assert set(got) == {b"HTTP/1.1 404", b"HTTP/1.1 503"}, got  # served within the cap, refused past it
        assert 0 < got[b"HTTP/1.1 404"] < 64, got
        freed = time.monotonic() + 10  # the server frees a slot once it reads its client's close
        while (again := answers((host, int(port)), 1, seconds=10)) != {b"HTTP/1.1 404": 1} and time.monotonic() < freed:
            time.sleep(0.1)
        assert again == {b"HTTP/1.1 404": 1}, "the slots were freed"
        rest = stop(process)
    finally:
        process.kill()
        process.wait()
    assert rest == "", rest


#: A server process whose descriptors run out after it started (as when runner pipes take them): all but three
#: are taken, so connections past those three meet EMFILE on accept.
_STARVED_SERVER = """
import os, sys
from probe_lib.capture import CaptureServer
with CaptureServer() as server:
    taken = []
    try:
        while True:
            taken.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    for fd in taken[:3]:
        os.close(fd)
    print(server.base_url, flush=True)
    sys.stdin.read()
"""


def test_with_no_descriptor_left_connections_are_answered_503_with_one_line_not_a_traceback_each():
    process = subprocess.Popen(
        [sys.executable, "-c", _STARVED_SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=low_descriptor_limit(64),
    )
    try:
        host, port = process.stdout.readline().strip().removeprefix("http://").rsplit(":", 1)
        got = answers((host, int(port)), 100, seconds=10)
        _, errors = process.communicate("", timeout=30)
    finally:
        process.kill()
        process.wait()
    assert got == {b"HTTP/1.1 404": 3, b"HTTP/1.1 503": 97}, got
    assert errors.splitlines() == [
        "capture server: out of file descriptors (limit 64, `ulimit -n` raises it); answering 503"
    ], errors


def test_capture_out_on_a_disk_that_fills_stops_with_one_line_and_keeps_whole_lines(tmp_path):
    """A 16 KiB tmpfs, mounted in a mount namespace of the CLI's own; the records file is copied out when it ends."""
    disk, kept = tmp_path / "disk", tmp_path / "kept.jsonl"
    disk.mkdir()
    unshare = shutil.which("unshare")
    script = (
        'mount -t tmpfs -o size=16k tmpfs "$0" || exit 99; "$@"; code=$?; cp "$0/records.jsonl" "$KEPT"; exit $code'
    )
    wrapper = [str(unshare), "--mount", "--propagation", "private", "sh", "-c", script, str(disk)]
    if (
        unshare is None
        or subprocess.run([*wrapper, "true"], capture_output=True, env={**os.environ, "KEPT": "/dev/null"}).returncode
        != 0
    ):
        pytest.skip("a tmpfs of the test's own needs unshare and the right to mount (root, outside a locked container)")
    process = subprocess.Popen(
        [*wrapper, sys.executable, "-m", "probe_lib", "capture", "--out", str(disk / "records.jsonl")],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "KEPT": str(kept)},
        start_new_session=True,
    )
    try:
        base = re.search(r"listening on (http://\S+);", process.stderr.readline()).group(1)
        statuses = []
        for number in range(100):
            body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 1000}], "n": number})
            try:
                statuses.append(post(f"{base}/v1/chat/completions", body.encode()))
            except urllib.error.URLError:  # the server stopped: connection refused
                break
        _, errors = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    *recorded, (status, refusal) = statuses
    assert {answer["error"]["message"] for _, answer in recorded} == {"captured"} and status == 507, statuses
    assert "could not be written: No space left on device" in refusal["error"]["message"]
    assert process.returncode == 1
    lines = kept.read_text().splitlines()
    assert [json.loads(line)["body"]["n"] for line in lines] == list(range(len(recorded))), "whole lines, no gap"
    assert errors.splitlines() == [
        f"probe-lib capture: stopped: record {len(recorded)} could not be written: No space left on device; "
        f"the {len(recorded)} records written before it are whole lines in {disk / 'records.jsonl'}"
    ]
