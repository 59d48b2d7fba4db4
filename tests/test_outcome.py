"""What an outcome did, read one way everywhere: its own errors (the capture server's reply left out, however a
version wraps it) and its behaviour, on real recorded outcomes and the real capture server's reply."""

from __future__ import annotations

import dataclasses
import urllib.error
import urllib.request

import pytest

from probe_lib.capture import CaptureServer
from probe_lib.core.behaviour import Raised
from probe_lib.core.outcome import CAPTURED, is_capture_reply
from probe_lib.frameworks import mastra

by_version = pytest.mark.parametrize("version", mastra.ADAPTER.versions())


def _reply_body(server: CaptureServer) -> str:
    """The body of the capture server's 400, as a client reads it off the wire."""
    request = urllib.request.Request(
        f"{server.scenario_url('reply')}/chat/completions",
        data=b'{"model": "m-1", "messages": []}',
        headers={"Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never route loopback through a proxy
    with pytest.raises(urllib.error.HTTPError) as refused:
        opener.open(request, timeout=10)
    assert refused.value.code == 400
    return refused.value.read().decode()


def test_the_capture_servers_reply_is_known_bare_and_as_0_20_wraps_its_body():
    with CaptureServer() as server:
        body = _reply_body(server)
    assert is_capture_reply(CAPTURED)  # 1.x: the SDK's error message is the reply's message
    assert is_capture_reply(f"API error: 400 - {body}")  # 0.20: the status and the whole body, in one message
    assert not is_capture_reply(f"the tool {CAPTURED} nothing") and not is_capture_reply(f"{CAPTURED}!")


@by_version
def test_own_errors_leave_out_only_the_capture_servers_reply(version, recorded_catalogue):
    single = recorded_catalogue[version]["single-rewrite"]
    assert [link["message"] for link in single.error] == [CAPTURED]  # the request went out, then the 400
    assert single.own_errors == []
    collision = recorded_catalogue[version]["collision-dot-space"]
    assert collision.own_errors == [link["message"] for link in collision.error]


def test_behaviour_counts_requests_executions_and_own_errors(recorded_catalogue):
    outcome = recorded_catalogue["1.67.0"]["call-by-wire-name"]
    done = outcome.behaviour()
    assert done.requests == len(outcome.requests) == 2
    assert done.executions == 1 and done.errors == ()
    assert done.names == tuple(tool["function"]["name"] for tool in outcome.requests[0]["tools"])


def test_behaviour_keeps_a_failure_judged_after_the_request_and_drops_stacks(recorded_catalogue):
    missing = recorded_catalogue["1.0.4"]["builtins-by-export"]  # 1.0.4 exports no built-ins: judged after sending
    assert missing.requests and missing.not_applicable
    assert missing.behaviour().error == Raised("not applicable", missing.failure.message)
    collision = recorded_catalogue["1.67.0"]["collision-dot-space"]
    stacked = dataclasses.replace(
        collision,
        error=tuple({**link, "message": link["message"] + "\n    at f (x.js:1:2)"} for link in collision.error),
    )
    assert stacked.behaviour() == collision.behaviour()
