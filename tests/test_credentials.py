"""No credential a framework sends or quotes reaches a record, an outcome or a file the kit writes.

Each place a provider or SDK puts a credential is sent through the real capture server (headers and query
parameters), and a framework's error text quoting one is read as an outcome's failure.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from probe_lib.capture import CaptureServer, JsonLines
from probe_lib.core import credentials
from probe_lib.core.outcome import Failure, Outcome, readable

SECRET = "s3cr3t-AIzaSyD"
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, whatever proxy is set


def post(url: str, headers: dict[str, str]) -> None:
    """A chat completion to the capture server, which records it whatever it answers."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json", **headers})
    try:
        DIRECT.open(request, timeout=10).read()
    except urllib.error.HTTPError as answer:
        answer.read()


@pytest.mark.parametrize("header", sorted(credentials.HEADERS))
def test_every_credential_header_is_redacted_in_the_record_and_the_lines_file(header: str, tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    with open(out, "ab", buffering=0) as file, CaptureServer(on_record=JsonLines(file.fileno())) as server:
        post(f"{server.base_url}/v1/chat/completions", {header: f"Bearer {SECRET}"})
        [record] = server.records()
    assert record.headers[header] == credentials.MARK
    assert SECRET not in json.dumps(record.to_json()) and SECRET not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("parameter", sorted(credentials.QUERY))
def test_every_credential_query_parameter_is_redacted_and_the_others_kept(parameter: str) -> None:
    with CaptureServer() as server:
        post(f"{server.base_url}/v1/chat/completions?alt=sse&{parameter}={SECRET}&trace=t1", {})
        [record] = server.records()
    assert record.path == f"/v1/chat/completions?alt=sse&{parameter}={credentials.MARK}&trace=t1"


@pytest.mark.parametrize(
    "said",
    [
        f"404 Not Found for url http://127.0.0.1:5/v1beta/models/m:generateContent?key={SECRET}",
        f"request failed: Authorization: Bearer {SECRET}",
        f'headers were {{"x-goog-api-key": "{SECRET}", "accept": "json"}}',
    ],
)
def test_a_framework_message_quoting_a_credential_is_kept_without_it(said: str) -> None:
    failure = Failure("crash", said)
    assert SECRET not in failure.message and SECRET not in readable(said)
    assert credentials.MARK in failure.message


def test_text_without_a_credential_is_unchanged() -> None:
    plain = "the key search.web became search_web; authorization failed at https://x.test/?alt=1&keys=2"
    assert credentials.text(plain) == plain


def test_an_error_chain_quoting_a_credential_reaches_no_measurement_file() -> None:
    from probe_lib.core.scenarios import Scenario, tools
    from probe_lib.measure.measurement import outcome_to_json

    said = f"404 Not Found for url http://127.0.0.1:5/v1beta/models/m:generateContent?key={SECRET}"
    chain = ({"name": "Error", "message": said},)
    outcome = Outcome(
        scenario=Scenario("s", tools=tools("a")),
        framework="mastra",
        version="1.0.4",
        requests=(),
        error=chain,
        executions=(),
        tool_names=(),
        result_tool_names=(),
        keys_after=(),
        ids_before=(),
        ids_after=(),
        stream_errors=(chain,),
    )
    entry = json.dumps(outcome_to_json(outcome))
    assert SECRET not in entry and credentials.MARK in outcome.error[0]["message"]
    assert credentials.MARK in outcome.stream_errors[0][0]["message"]
