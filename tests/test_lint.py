"""The request linter: findings on known-good and known-bad requests, every input shape, and the CLI contract."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from probe_lib import cli
from probe_lib.core.errors import InputError
from probe_lib.frameworks.mastra import normaliser as RULE
from probe_lib.providers import get_rule
from probe_lib.providers.lint import forced_name, lint_body, lint_file, read_requests, tool_names

OPENAI = get_rule("openai")


def chat_body(names: list[str], choice: str | None = None) -> dict[str, Any]:
    """A Chat Completions request body as the AI SDK's OpenAI-compatible provider writes it."""
    body: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}} for name in names],
    }
    if choice is not None:
        body["tool_choice"] = {"type": "function", "function": {"name": choice}}
    return body


def responses_body(names: list[str], choice: str | None = None) -> dict[str, Any]:
    """The same request in the OpenAI Responses shape."""
    body: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "input": "hi",
        "tools": [{"type": "function", "name": name, "parameters": {}} for name in names] + [{"type": "web_search"}],
    }
    if choice is not None:
        body["tool_choice"] = {"type": "function", "name": choice}
    return body


# The article's case: the tool key "search.web" goes out as "search_web", the forced choice stays "search.web".
ARTICLE = chat_body(["search_web"], "search.web")
CLEAN = chat_body(["search_web", "get_weather"], "search_web")


def codes(findings) -> list[str]:
    return [finding.code for finding in findings]


def test_the_articles_request_is_a_mismatch_that_points_at_the_sent_tool() -> None:
    findings = lint_body(ARTICLE, OPENAI, name_rule=RULE)
    assert codes(findings) == ["choice-not-in-tools"]
    (finding,) = findings
    assert finding.severity == "mismatch"
    assert finding.name == "search.web"
    assert finding.suggestion == "search_web"
    assert "search_web" in finding.message


def test_the_responses_shape_is_read_the_same_way() -> None:
    body = responses_body(["search_web"], "search.web")
    assert tool_names(body) == ["search_web"]
    assert forced_name(body) == "search.web"
    assert [f.suggestion for f in lint_body(body, OPENAI, name_rule=RULE)] == ["search_web"]


def test_a_clean_request_has_no_findings() -> None:
    assert lint_body(CLEAN, OPENAI, name_rule=RULE) == []
    assert lint_body(responses_body(["a", "b"], "a"), OPENAI, name_rule=RULE) == []
    assert lint_body({**CLEAN, "tool_choice": "required"}, OPENAI, name_rule=RULE) == []


def test_refused_names_say_why_for_the_chosen_provider() -> None:
    body = chat_body(["search.web", "x" * 67, "ok"])
    findings = lint_body(body, OPENAI, name_rule=RULE)
    assert codes(findings) == ["refused-name", "refused-name"]
    assert "'.'" in findings[0].message
    assert "67" in findings[1].message
    # Gemini allows dots; its documented rule allows 67 characters.
    assert lint_body(body, get_rule("gemini"), name_rule=RULE) == []


def test_a_refusal_where_the_providers_sources_conflict_says_so() -> None:
    """Anthropic's docs say 64, its live errors 128: a 100-character name is refused under the one and accepted
    under the other, and the finding names both instead of settling it; a 200-character one breaks both."""
    body = chat_body(["a" * 100, "b" * 200])
    long, longer = lint_body(body, get_rule("anthropic"))
    assert "anthropic/observed would accept it: anthropic's sources conflict" in long.message
    assert "conflict" not in longer.message
    # Under the observed rule the 100-character name passes; a superseded rule points at the current one.
    assert [f.name for f in lint_body(body, get_rule("anthropic", "observed"))] == ["b" * 200]
    (legacy, _) = lint_body(body, get_rule("gemini", "legacy"))
    assert "the current gemini/documented would accept it" in legacy.message


def test_a_choice_with_no_rewrite_among_the_tools_gets_no_suggestion() -> None:
    (finding,) = lint_body(chat_body(["alpha"], "beta"), OPENAI, name_rule=RULE)
    assert finding.code == "choice-not-in-tools" and finding.suggestion is None
    (finding,) = lint_body(chat_body([], "search.web"), OPENAI, name_rule=RULE)
    assert finding.suggestion is None and "no function tools" in finding.message


def test_duplicates_are_reported_once_per_name() -> None:
    findings = lint_body(chat_body(["a", "b", "a", "a"]), OPENAI, name_rule=RULE)
    assert codes(findings) == ["duplicate-name"]
    assert "3 times" in findings[0].message


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("mcp_server_" + "t" * 52, "exactly 63"),  # a cut at 63 units
        ("_2fa_verify", "prefix"),  # "2fa.verify" -> "_2fa_verify"
        ("weather__forecast", "run of '_'"),  # an emoji or two punctuation marks
    ],
)
def test_names_that_look_rewritten_are_hints_only(name: str, why: str) -> None:
    findings = lint_body(chat_body([name]), OPENAI, name_rule=RULE)
    assert codes(findings) == ["maybe-rewritten"]
    assert findings[0].severity == "hint" and why in findings[0].message


def test_plain_names_and_names_formatTools_would_change_get_no_hint() -> None:
    assert lint_body(chat_body(["get_weather", "list-files", "a" * 62]), OPENAI, name_rule=RULE) == []
    # A 64-unit name is not formatTools output (it would cut it), so it is not a rewrite hint.
    assert codes(lint_body(chat_body(["b" * 64]), OPENAI, name_rule=RULE)) == []


# ---- reading files -------------------------------------------------------------------------------------------


def capture_record(seq: int, body: Any) -> dict[str, Any]:
    """A line as the kit's capture server writes it."""
    return {
        "seq": seq,
        "scenario": "default",
        "method": "POST",
        "path": "/v1/chat/completions",
        "headers": {"content-type": "application/json"},
        "body": body,
        "raw": None,
        "status": 400,
    }


def write_lines(path: Path, items: list[Any]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_reads_a_single_pretty_printed_body(tmp_path: Path) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(ARTICLE, indent=2), encoding="utf-8")
    assert [position for position, _ in read_requests(path)] == [0]


def test_reads_a_file_that_starts_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "body.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(ARTICLE).encode())
    assert codes(lint_file(path, name_rule=RULE).findings) == ["choice-not-in-tools"]


def test_reads_an_array_of_bodies_with_positions(tmp_path: Path) -> None:
    path = tmp_path / "bodies.json"
    path.write_text(json.dumps([CLEAN, {"not": "a body"}, ARTICLE]), encoding="utf-8")
    report = lint_file(path, name_rule=RULE)
    assert report.requests == 2
    assert [(f.request, f.code) for f in report.findings] == [(2, "choice-not-in-tools")]


def test_reads_capture_json_lines_skipping_records_without_a_body(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "capture.jsonl",
        [
            capture_record(0, CLEAN),
            {**capture_record(1, None), "method": "GET", "path": "/v1/models"},
            capture_record(2, ARTICLE),
        ],
    )
    report = lint_file(path, name_rule=RULE)
    assert report.requests == 2 and report.failed
    assert [f.request for f in report.findings] == [2]


def test_reads_a_har_export(tmp_path: Path) -> None:
    entries = [
        {"request": {"method": "GET", "url": "https://x/v1/models"}},
        {"request": {"method": "POST", "postData": {"mimeType": "application/json", "text": json.dumps(CLEAN)}}},
        {"request": {"method": "POST", "postData": {"text": "not json"}}},
        {"request": {"method": "POST", "postData": {"text": json.dumps(responses_body(["x.y"]))}}},
    ]
    path = tmp_path / "traffic.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}, indent=1), encoding="utf-8")
    report = lint_file(path, name_rule=RULE)
    assert report.requests == 2
    assert [(f.request, f.code, f.name) for f in report.findings] == [(3, "refused-name", "x.y")]


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        ("", "is empty"),
        ("\n  \n", "is empty"),
        ("hello", "is not a JSON object or array"),
        ('"a string"', "is not a JSON object or array \\(it starts with '\"'\\)"),
        ('{"model": "x",\n "tools": [', "is not JSON"),
        ('{"model": "x"}\n{"model": \n', "line 2 is not JSON"),
        ('{"hello": "world"}', "no request bodies"),
        ("[]", "no request bodies"),
    ],
)
def test_bad_files_raise_input_errors(tmp_path: Path, content: str, complaint: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=complaint):
        lint_file(path, name_rule=RULE)


def test_missing_and_non_utf8_files_raise_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        lint_file(tmp_path / "missing.json", name_rule=RULE)
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"model": "caf\xe9"}')
    with pytest.raises(InputError, match="not UTF-8"):
        lint_file(path, name_rule=RULE)


def test_an_unknown_provider_is_refused_before_the_file_is_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown provider"):
        lint_file(tmp_path / "missing.json", provider="nope", name_rule=RULE)


# ---- the CLI -------------------------------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["lint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_exit_1_and_readable_findings_for_the_article(tmp_path: Path, capsys) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(ARTICLE), encoding="utf-8")
    code, out, err = run_cli(capsys, str(path))
    assert code == 1 and err == ""
    assert "choice-not-in-tools" in out and "search_web" in out
    assert out.strip().splitlines()[-1].startswith("1 request(s) checked against openai/documented")


def test_cli_exit_0_when_clean_and_json_output(tmp_path: Path, capsys) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(CLEAN), encoding="utf-8")
    code, out, _ = run_cli(capsys, str(path), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["requests"] == 1 and report["findings"] == []
    assert (report["provider"], report["variant"]) == ("openai", "documented")


def test_cli_provider_and_variant_change_the_verdict(tmp_path: Path, capsys) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(chat_body(["n" * 100])), encoding="utf-8")
    assert run_cli(capsys, str(path), "--provider", "anthropic")[0] == 1
    assert run_cli(capsys, str(path), "--provider", "anthropic", "--variant", "observed")[0] == 0


def test_cli_hints_alone_exit_0(tmp_path: Path, capsys) -> None:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(chat_body(["_2fa_verify"])), encoding="utf-8")
    code, out, _ = run_cli(capsys, str(path))
    assert code == 0 and "maybe-rewritten" in out


@pytest.mark.parametrize(
    ("content", "argv"),
    [
        (None, ()),  # missing file
        ("", ()),
        ("{not json", ()),
        ('{"hello": 1}', ()),
        (json.dumps(CLEAN), ("--provider", "nope")),
        (json.dumps(CLEAN), ("--variant", "nope")),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path, capsys, content: str | None, argv) -> None:
    path = tmp_path / "input.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code, out, err = run_cli(capsys, str(path), *argv)
    assert code == 2 and out == ""
    assert err.startswith("probe-lib lint: ") and err.count("\n") == 1


@pytest.mark.slow
def test_cli_streams_a_50_mb_capture_without_holding_it(tmp_path: Path, capsys) -> None:
    bad_at = 1_234
    description = "d" * 4_000
    path = tmp_path / "huge.jsonl"
    with path.open("w", encoding="utf-8") as out:
        position = 0
        while out.tell() < 50 * 2**20:
            body = ARTICLE if position == bad_at else CLEAN
            body = {
                **body,
                "tools": [
                    {**tool, "function": {**tool["function"], "description": description}} for tool in body["tools"]
                ],
            }
            out.write(json.dumps(capture_record(position, body)) + "\n")
            position += 1
    assert path.stat().st_size >= 50 * 2**20

    tracemalloc.start()
    try:
        code, out, err = run_cli(capsys, str(path), "--json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 1 and err == ""
    report = json.loads(out)
    assert report["requests"] == position
    assert [(f["request"], f["code"]) for f in report["findings"]] == [(bad_at, "choice-not-in-tools")]
    assert peak < 10 * 2**20, f"peak {peak / 2**20:.1f} MiB: the file was not streamed"

    path.write_text(path.read_text(encoding="utf-8")[:-2] + "\n", encoding="utf-8")  # cut the last record
    code, _, err = run_cli(capsys, str(path))
    assert code == 2 and f"line {position} is not JSON" in err


def test_without_a_name_rule_a_mismatch_has_no_suggestion_and_no_name_gets_a_hint() -> None:
    body = chat_body(["search_web", "_9lives", "a" * 63], "search.web")
    findings = lint_body(body, OPENAI)
    assert codes(findings) == ["choice-not-in-tools"] and findings[0].suggestion is None
    assert codes(lint_body(body, OPENAI, name_rule=RULE)) == [
        "choice-not-in-tools",
        "maybe-rewritten",
        "maybe-rewritten",
    ]
