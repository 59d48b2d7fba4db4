"""The capture server over real HTTP on loopback: replies, stream shapes, records, limits, control API and CLI."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from probe_lib import cli
from probe_lib.capture.server import RAW_LIMIT, CaptureServer
from probe_lib.core.errors import InputError
from probe_lib.core.paths import ROOT
from probe_lib.wire.replies import ErrorReply, TextReply, ToolCall, ToolCallsReply, replies_from_json, reply_from_json

DEFAULT_ERROR = {"error": {"message": "captured", "type": "invalid_request_error"}}
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never route loopback through a proxy


def http(
    method: str, url: str, body: object = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of one request; ``body`` is sent as JSON unless it is bytes."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with _OPENER.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def chat(server: CaptureServer, scenario: str, **body: object) -> tuple[int, dict[str, str], bytes]:
    return http("POST", f"{server.scenario_url(scenario)}/chat/completions", {"model": "m-1", "messages": [], **body})


def sse_events(payload: bytes) -> list[str]:
    """The ``data:`` payloads of a Server-Sent Events body, in order; every event must be a single data line."""
    events = payload.decode().split("\n\n")
    assert events[-1] == "", "the stream must end with a blank line"
    lines = events[:-1]
    assert all(line.startswith("data: ") and "\n" not in line for line in lines), lines
    return [line.removeprefix("data: ") for line in lines]


@pytest.fixture
def server() -> Iterator[CaptureServer]:
    with CaptureServer() as running:
        yield running


# -- replies ---------------------------------------------------------------------------------------------------


def test_replies_are_used_in_order_then_the_default_400(server: CaptureServer) -> None:
    server.script("s1", [TextReply("one"), ErrorReply(503, "busy"), TextReply("two")])
    answers = [chat(server, "s1") for _ in range(4)]

    assert [status for status, _, _ in answers] == [200, 503, 200, 400]
    assert json.loads(answers[0][2])["choices"][0]["message"]["content"] == "one"
    assert json.loads(answers[1][2])["error"]["message"] == "busy"
    assert json.loads(answers[2][2])["choices"][0]["message"]["content"] == "two"
    assert json.loads(answers[3][2]) == DEFAULT_ERROR
    assert [record.status for record in server.records("s1")] == [200, 503, 200, 400]
    assert json.loads(chat(server, "unscripted")[2]) == DEFAULT_ERROR


def test_plain_v1_is_the_default_scenario(server: CaptureServer) -> None:
    server.script("default", [TextReply("hi")])
    status, _, _ = http("POST", f"{server.base_url}/v1/chat/completions", {"model": "m"})

    assert status == 200
    assert [(record.scenario, record.path) for record in server.records()] == [("default", "/v1/chat/completions")]


def test_non_streaming_completion_shapes(server: CaptureServer) -> None:
    calls = (ToolCall("get_weather", {"city": "Zürich"}, "call_a"), ToolCall("raw", '{"x":1}', "call_b"))
    server.script("ns", [ToolCallsReply(calls), TextReply("done")])
    _, headers, first = chat(server, "ns")
    _, _, second = chat(server, "ns")
    tool_reply, text_reply = json.loads(first), json.loads(second)

    assert headers["Content-Type"].startswith("application/json")
    assert {key: tool_reply[key] for key in ("id", "object", "created", "model")} == {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m-1",
    }
    [choice] = tool_reply["choices"]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["role"] == "assistant" and choice["message"]["content"] is None
    wire = choice["message"]["tool_calls"]
    assert [(call["id"], call["type"], call["function"]["name"]) for call in wire] == [
        ("call_a", "function", "get_weather"),
        ("call_b", "function", "raw"),
    ]
    assert json.loads(wire[0]["function"]["arguments"]) == {"city": "Zürich"}
    assert wire[1]["function"]["arguments"] == '{"x":1}'
    assert set(tool_reply["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}

    assert text_reply["id"] == "chatcmpl-2"
    assert text_reply["choices"][0]["message"] == {"role": "assistant", "content": "done"}
    assert text_reply["choices"][0]["finish_reason"] == "stop"


def test_streamed_tool_calls_arrive_as_chunks_then_usage_then_done(server: CaptureServer) -> None:
    calls = (ToolCall("search", {"q": "a"}, "call_1"), ToolCall("fetch", {}, "call_2"))
    server.script("st", [ToolCallsReply(calls)])
    status, headers, payload = chat(server, "st", stream=True, stream_options={"include_usage": True})
    events = sse_events(payload)
    chunks = [json.loads(event) for event in events[:-1]]

    assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
    assert events[-1] == "[DONE]"
    assert {(chunk["object"], chunk["id"], chunk["model"], chunk["created"]) for chunk in chunks} == {
        ("chat.completion.chunk", "chatcmpl-1", "m-1", 0)
    }
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    deltas = [chunk["choices"][0]["delta"]["tool_calls"] for chunk in chunks[1:3]]
    assert deltas == [
        [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"q": "a"}'}}],
        [{"index": 1, "id": "call_2", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}],
    ]
    assert chunks[3]["choices"] == [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]
    assert chunks[4]["choices"] == []
    assert set(chunks[4]["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert len(chunks) == 5


def test_streamed_text_without_usage(server: CaptureServer) -> None:
    server.script("tx", [TextReply("hello there")])
    _, _, payload = chat(server, "tx", stream=True)
    events = sse_events(payload)
    chunks = [json.loads(event) for event in events[:-1]]

    assert events[-1] == "[DONE]"
    assert "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks) == "hello there"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in chunk for chunk in chunks)


def test_an_error_reply_to_a_streaming_request_is_plain_json(server: CaptureServer) -> None:
    server.script("se", [ErrorReply(429, "slow down")])
    status, headers, payload = chat(server, "se", stream=True)

    assert status == 429 and headers["Content-Type"].startswith("application/json")
    assert json.loads(payload) == {"error": {"message": "slow down", "type": "invalid_request_error"}}


# -- records ---------------------------------------------------------------------------------------------------


def test_secret_headers_are_redacted_and_the_host_dropped(server: CaptureServer) -> None:
    secrets = {
        "Authorization": "Bearer sk-secret-1",
        "API-Key": "secret-2",
        "X-Api-Key": "secret-3",
        "Cookie": "session=secret-4",
        "OpenAI-Organization": "org-secret-5",
    }
    http("POST", f"{server.base_url}/v1/chat/completions", {"model": "m"}, {**secrets, "User-Agent": "ai-sdk/x"})
    [record] = server.records()

    assert {name: record.headers[name.lower()] for name in secrets} == dict.fromkeys(secrets, "<redacted>")
    assert record.headers["user-agent"] == "ai-sdk/x"
    assert "host" not in record.headers
    assert "secret" not in json.dumps(record.to_json())


def test_malformed_json_is_recorded_as_text_and_answered_400(server: CaptureServer) -> None:
    server.script("bad", [TextReply("kept for the next good request")])
    status, _, payload = http("POST", f"{server.scenario_url('bad')}/chat/completions", b'{"model": ')
    good_status, _, _ = chat(server, "bad")
    first = server.records("bad")[0]

    assert status == 400 and json.loads(payload)["error"]["message"].startswith("malformed JSON: ")
    assert (first.body, first.raw, first.status) == (None, '{"model": ', 400)
    assert good_status == 200, "a malformed request must not consume a scripted reply"


def test_raw_text_of_a_huge_non_json_body_is_cut(server: CaptureServer) -> None:
    http("POST", f"{server.base_url}/v1/chat/completions", b"x" * (RAW_LIMIT * 2))
    [record] = server.records()

    assert record.raw is not None and record.raw.startswith("x" * RAW_LIMIT)
    assert len(record.raw) < RAW_LIMIT + 100


def test_a_body_over_the_limit_is_answered_413_and_recorded() -> None:
    with CaptureServer(max_body_bytes=1000) as server:
        at_limit = json.dumps({"model": "m", "pad": ""}).encode()
        at_limit = at_limit.replace(b'""', b'"' + b"p" * (1000 - len(at_limit)) + b'"')
        accepted, _, _ = http("POST", f"{server.base_url}/v1/chat/completions", at_limit)
        refused, _, payload = http("POST", f"{server.base_url}/v1/chat/completions", at_limit + b" ")
        records = server.records()

    assert len(at_limit) == 1000 and accepted == 400  # the default reply: the body was read and parsed
    assert refused == 413 and "max_body_bytes" in json.loads(payload)["error"]["message"]
    assert [(record.status, record.body is None, record.raw) for record in records] == [
        (400, False, None),
        (413, True, None),
    ]


def test_unknown_paths_are_answered_404_and_recorded(server: CaptureServer) -> None:
    models, _, _ = http("GET", f"{server.base_url}/v1/models")
    other, _, payload = http("POST", f"{server.scenario_url('x')}/embeddings", {"input": "a"})

    assert (models, other) == (404, 404)
    assert "no route for POST /s/x/v1/embeddings" in json.loads(payload)["error"]["message"]
    assert [(r.scenario, r.method, r.path, r.body, r.status) for r in server.records()] == [
        ("default", "GET", "/v1/models", None, 404),
        ("x", "POST", "/s/x/v1/embeddings", {"input": "a"}, 404),
    ]


def test_take_returns_and_forgets_records_and_script(server: CaptureServer) -> None:
    server.script("a", [TextReply("1"), TextReply("2")])
    chat(server, "a")
    chat(server, "b")
    taken = server.take("a")

    assert [record.seq for record in taken] == [0]
    assert server.records("a") == [] and server.take("a") == []
    assert chat(server, "a")[0] == 400, "the rest of the script must be forgotten with the records"
    assert [record.seq for record in server.records()] == [1, 2]


def test_records_are_copies(server: CaptureServer) -> None:
    chat(server, "c")
    server.records().clear()

    assert len(server.records()) == 1


# -- hosts, ids, lifecycle -------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com", ""])
def test_only_loopback_hosts_are_accepted(host: str) -> None:
    with pytest.raises(ValueError, match="not loopback"):
        CaptureServer(host)


def test_localhost_binds_ipv4_loopback() -> None:
    CaptureServer("::1")  # accepted; binding it needs IPv6, which the check does not
    with CaptureServer("localhost") as server:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.base_url)
        assert chat(server, "l")[0] == 400


@pytest.mark.parametrize("scenario", ["", "..", ".hidden", "a/b", "a b", "é"])
def test_scenario_ids_must_be_url_safe(server: CaptureServer, scenario: str) -> None:
    with pytest.raises(ValueError, match="scenario id"):
        server.scenario_url(scenario)
    with pytest.raises(ValueError, match="scenario id"):
        server.script(scenario, [])


def test_close_stops_serving_and_keeps_records() -> None:
    server = CaptureServer().start()
    url = f"{server.scenario_url('z')}/chat/completions"
    http("POST", url, {"model": "m"})
    server.close()
    server.close()

    with pytest.raises(urllib.error.URLError):
        http("POST", url, {"model": "m"})
    assert len(server.records("z")) == 1


# -- reply forms -----------------------------------------------------------------------------------------------


def test_reply_forms_round_trip() -> None:
    forms = [
        {"error": {"status": 500, "message": "boom"}},
        {
            "tool_calls": [
                {"id": "c9", "name": "f", "arguments": {"a": [1]}},
                {"id": "c10", "name": "g", "arguments": "{}"},
            ]
        },
        {"text": ""},
    ]
    replies = replies_from_json(forms)

    assert [reply.to_json() for reply in replies] == forms
    assert reply_from_json({"error": {}}) == ErrorReply()
    assert reply_from_json({"tool_calls": [{"name": "f"}, {"name": "g"}]}).calls == (
        ToolCall("f", {}, "call_1"),
        ToolCall("g", {}, "call_2"),
    )


@pytest.mark.parametrize(
    "form",
    [
        None,
        [],
        {"text": 1},
        {"text": "a", "error": {}},
        {"unknown": 1},
        {"error": {"status": 200}},
        {"error": {"status": "400"}},
        {"error": {"code": 1}},
        {"tool_calls": []},
        {"tool_calls": {}},
        {"tool_calls": [{"id": "x"}]},
        {"tool_calls": [{"name": "f", "arguments": [1]}]},
        {"tool_calls": [{"name": "f", "extra": 1}]},
    ],
)
def test_bad_reply_forms_raise_one_line_input_errors(form: object) -> None:
    with pytest.raises(InputError) as caught:
        reply_from_json(form)
    assert "\n" not in str(caught.value)


def test_replies_from_json_names_the_bad_reply() -> None:
    with pytest.raises(InputError, match=r"^reply 1: "):
        replies_from_json([{"text": "ok"}, {"text": 2}])


# -- control API -----------------------------------------------------------------------------------------------


def test_control_api_scripts_reads_and_takes_without_being_recorded(server: CaptureServer) -> None:
    control = f"{server.base_url}/_probe"
    put_status, _, put_body = http("PUT", f"{control}/scenarios/ctl", [{"tool_calls": [{"name": "f"}]}, {"text": "t"}])
    first = json.loads(chat(server, "ctl")[2])
    listed_status, _, listed = http("GET", f"{control}/records?scenario=ctl")
    _, _, everything = http("GET", f"{control}/records")
    bad_status, _, bad_body = http("PUT", f"{control}/scenarios/ctl", [{"txt": "t"}])
    unknown_status, _, _ = http("GET", f"{control}/nothing")

    assert (put_status, json.loads(put_body)) == (200, {"scenario": "ctl", "replies": 2})
    assert first["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "f"
    assert listed_status == 200 and json.loads(listed) == [server.records("ctl")[0].to_json()]
    assert json.loads(everything) == json.loads(listed)
    assert bad_status == 400 and "reply 0" in json.loads(bad_body)["error"]["message"]
    assert unknown_status == 404
    assert [record.path for record in server.records()] == ["/s/ctl/v1/chat/completions"]

    _, _, taken = http("DELETE", f"{control}/scenarios/ctl")
    assert [record["seq"] for record in json.loads(taken)] == [0] and server.records() == []


def test_control_api_refuses_malformed_scripts(server: CaptureServer) -> None:
    not_json, _, _ = http("PUT", f"{server.base_url}/_probe/scenarios/q", b"[{")
    bad_id, _, _ = http("PUT", f"{server.base_url}/_probe/scenarios/.q", [])

    assert (not_json, bad_id) == (400, 400)
    assert server.records() == []


# -- concurrency -----------------------------------------------------------------------------------------------


def test_64_concurrent_clients_lose_and_mix_nothing(server: CaptureServer) -> None:
    clients, per_client = 64, 20
    for client in range(clients):
        server.script(f"c{client}", [TextReply(f"{client}:{n}") for n in range(per_client)])
    snapshots_ok: list[bool] = []
    done = threading.Event()

    def watch() -> None:  # records() read from another thread while requests land
        while not done.wait(0.002):
            seqs = [record.seq for record in server.records()]
            snapshots_ok.append(seqs == sorted(set(seqs)))

    async def one_client(session: aiohttp.ClientSession, client: int) -> list[str]:
        texts = []
        for n in range(per_client):
            body = {"model": "m", "client": client, "n": n}
            url = f"{server.scenario_url(f'c{client}')}/chat/completions"
            async with session.post(url, json=body, headers={"X-Client": str(client)}) as response:
                texts.append((await response.json())["choices"][0]["message"]["content"])
        return texts

    async def run_all() -> list[list[str]]:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as session:
            return await asyncio.gather(*(one_client(session, client) for client in range(clients)))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        answers = asyncio.run(run_all())
    finally:
        done.set()
        watcher.join()
    records = server.records()

    assert answers == [[f"{client}:{n}" for n in range(per_client)] for client in range(clients)]
    assert sorted(record.seq for record in records) == list(range(clients * per_client))
    assert [record.seq for record in records] == list(range(clients * per_client)), "records() is in arrival order"
    for record in records:
        client = record.body["client"]
        assert record.scenario == f"c{client}" and record.headers["x-client"] == str(client)
    for client in range(clients):
        assert [record.body["n"] for record in server.records(f"c{client}")] == list(range(per_client))
    assert snapshots_ok and all(snapshots_ok)


# -- CLI -------------------------------------------------------------------------------------------------------


def test_cli_serves_records_to_out_and_stops_on_sigterm(tmp_path: Path) -> None:
    replies, out = tmp_path / "replies.json", tmp_path / "out.jsonl"
    replies.write_text('[{"text": "from the file"}]')
    process = subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "capture", "--replies", str(replies), "--out", str(out)],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        banner = process.stderr.readline()
        match = re.search(r"give Mastra url (http://127\.0\.0\.1:\d+/v1) ", banner)
        assert match, banner
        status, _, payload = http("POST", f"{match.group(1)}/chat/completions", {"model": "m"}, {"Authorization": "k"})
        lines = out.read_text().splitlines()
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=10)
    finally:
        process.kill()
        process.communicate()

    assert status == 200 and json.loads(payload)["choices"][0]["message"]["content"] == "from the file"
    [record] = [json.loads(line) for line in lines]
    assert (record["seq"], record["scenario"], record["body"], record["headers"]["authorization"]) == (
        0,
        "default",
        {"model": "m"},
        "<redacted>",
    )
    assert code == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read --replies"),
        ("[{", "is not JSON"),
        ('{"text": "a"}', "must be a JSON array"),
        ('[{"text": "a"}, {"tool_calls": [{"id": "x"}]}]', "reply 1: tool call 0"),
    ],
)
def test_cli_bad_replies_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    replies = tmp_path / "replies.json"
    if content is not None:
        replies.write_text(content)

    code = cli.main(["capture", "--replies", str(replies)])
    captured = capsys.readouterr()

    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("probe-lib capture: ")
    assert message in captured.err
