"""The capture server's own limits, on real sockets: header, body and idle watchdogs, a connection cap, records
streamed to a file without being kept, and a lone surrogate (legal JSON) answered and recorded like any other key."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from probe_lib.capture import CaptureServer


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


def test_a_connection_that_sends_nothing_is_closed_at_the_idle_timeout():
    with CaptureServer(idle_seconds=0.5) as server, connect(server) as idle:
        assert closed_within(idle, 5)


def test_connections_over_the_cap_are_answered_503_and_closed():
    with CaptureServer(max_connections=2) as server:
        held = [connect(server), connect(server)]
        time.sleep(0.2)  # let the server accept both
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
    """``probe-lib capture --out FILE --replies`` (text replies) as a real process; yields (base URL, out file)."""
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
        yield base, out
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


@pytest.mark.parametrize("stream", [False, True])
def test_a_lone_surrogate_in_a_body_is_answered_200_and_recorded(capture_cli, stream):
    base, out = capture_cli
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
