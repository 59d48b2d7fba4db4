"""The linter on request bodies the real @mastra/core sent: what it flags, what it passes, and the CLI's exit code.

``tests/test_lint.py`` checks the linter on bodies written by hand. Here the bodies are the ones Mastra actually
sent in the catalogue's scenarios (``data/captures/catalogue/mastra-<version>.json``, and a live rerun where Node is
installed), so the linter is held to the wire format it will meet:

* a named ``toolChoice`` by key or by tool id is not rewritten with the key, so the request forces a function it
  does not send: ``choice-not-in-tools``, pointing at the real wire name when it is the key's rewrite;
* the boundary normaliser (``remedy-*``) and a legal key or the wire name as ``toolChoice`` send nothing to flag.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_cli_junk import run_main

from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import Outcome, catalogue
from probe_lib.frameworks.mastra import normaliser as RULE
from probe_lib.providers import get_rule
from probe_lib.providers.lint import forced_name, lint_body, tool_names

VERSIONS = mastra.ADAPTER.versions()
OPENAI = get_rule("openai")

#: Scenarios whose request forces a tool absent from ``tools``, and the name the linter should point to instead.
BAD: dict[str, str | None] = {
    "choice-by-key": "search_web",  # the key search.web goes out as search_web
    "choice-by-key-stream": "search_web",
    # The tool's id (get-weather) is not a key, so no rewrite of it is sent and the linter does not guess.
    "choice-by-id": None,
}
#: Scenarios that force (or restrict to) a tool Mastra does send: the remedy, a legal key, the wire name itself.
CLEAN = ("remedy-choice-by-key", "remedy-active-tools", "choice-legal-key", "choice-by-wire-name")
#: Versions whose ``generate()`` ignores ``activeTools`` and sends every tool (claim F12, notebook 08).
ACTIVE_TOOLS_IGNORED = frozenset({"1.0.4"})


@functools.cache
def live(version: str) -> dict[str, Outcome]:
    wanted = [catalogue.by_name()[name] for name in (*BAD, *CLEAN)]
    return {outcome.scenario.name: outcome for outcome in mastra.run(wanted, version)}


def bodies(outcomes: dict[str, Outcome], names: Sequence[str]) -> list[dict[str, Any]]:
    """Every request body the named scenarios sent, in scenario order (each must have sent at least one)."""
    found = []
    for name in names:
        sent = outcomes[name].requests
        assert sent, f"{name} sent no request, so there is nothing to lint"
        found.extend(sent)
    return found


def write_capture_lines(path: Path, sent: list[dict[str, Any]]) -> Path:
    """The bodies as JSON lines of capture-like records ``{"body": ...}``, as ``probe-lib capture`` writes them."""
    path.write_text("".join(json.dumps({"body": body}, ensure_ascii=False) + "\n" for body in sent), encoding="utf-8")
    return path


def lint_cli(path: Path) -> tuple[int, dict[str, Any]]:
    """``probe-lib lint FILE --provider openai --json`` in this process (:func:`run_main`): exit code and the parsed
    report."""
    code, stdout, stderr = run_main(["lint", str(path), "--provider", "openai", "--json"])
    assert stderr == "", stderr
    return code, json.loads(stdout)


# ---- the known-bad requests ------------------------------------------------------------------------------------


def check_flagged(outcome: Outcome, suggestion: str | None) -> None:
    forced = outcome.scenario.tool_choice["toolName"]
    for body in outcome.requests:
        assert forced_name(body) == forced, "Mastra sent toolChoice unchanged (the bug the linter looks for)"
        assert forced not in tool_names(body)
        mismatches = [
            finding for finding in lint_body(body, OPENAI, name_rule=RULE) if finding.code == "choice-not-in-tools"
        ]
        assert len(mismatches) == 1, mismatches
        (finding,) = mismatches
        assert finding.severity == "mismatch"
        assert finding.name == forced
        assert finding.suggestion == suggestion
        if suggestion is not None:
            assert suggestion in tool_names(body), "the suggestion must be a name the request really sends"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("scenario", BAD)
def test_recorded_bad_choice_is_flagged_with_the_wire_name(version: str, scenario: str, recorded_catalogue) -> None:
    outcome = recorded_catalogue[version][scenario]
    assert outcome.requests, f"{scenario} on {version} sent no request"
    check_flagged(outcome, BAD[scenario])


@pytest.mark.parametrize("version", VERSIONS)
def test_cli_exits_1_on_the_recorded_bad_requests(version: str, tmp_path: Path, recorded_catalogue) -> None:
    sent = bodies(recorded_catalogue[version], list(BAD))
    code, report = lint_cli(write_capture_lines(tmp_path / "bad.jsonl", sent))
    assert code == 1
    assert report["requests"] == len(sent)
    mismatched = sorted(f["request"] for f in report["findings"] if f["code"] == "choice-not-in-tools")
    assert mismatched == list(range(len(sent))), "every bad request is flagged, each once"


# ---- the remedied and legal requests ---------------------------------------------------------------------------


def check_not_vacuous(outcomes: dict[str, Outcome]) -> None:
    """The clean requests do force or restrict to a tool, so passing the linter says something."""
    remedy = outcomes["remedy-choice-by-key"]
    for body in remedy.requests:
        assert forced_name(body) == remedy.mapping["search.web"]
        assert set(tool_names(body)) == set(remedy.mapping.values())
    restricted = outcomes["remedy-active-tools"]
    mapping = restricted.mapping
    ignored = restricted.version in ACTIVE_TOOLS_IGNORED
    for body in restricted.requests:
        if ignored:
            assert sorted(tool_names(body)) == sorted(mapping.values()), "this version sends every tool"
        else:
            assert tool_names(body) == [mapping["search.web"]], "activeTools kept only the mapped tool"
    for name in ("choice-legal-key", "choice-by-wire-name"):
        for body in outcomes[name].requests:
            assert forced_name(body) == "search_web" and tool_names(body) == ["search_web"]


def check_clean_via_cli(outcomes: dict[str, Outcome], tmp_path: Path) -> None:
    sent = bodies(outcomes, CLEAN)
    code, report = lint_cli(write_capture_lines(tmp_path / "clean.jsonl", sent))
    assert report["requests"] == len(sent)
    assert report["findings"] == [], report["findings"]
    assert code == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_recorded_remedied_and_legal_requests_lint_clean(version: str, tmp_path: Path, recorded_catalogue) -> None:
    check_not_vacuous(recorded_catalogue[version])
    check_clean_via_cli(recorded_catalogue[version], tmp_path)


# ---- the same, measured now --------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", VERSIONS)
def test_live_requests_lint_as_recorded(version: str, tmp_path: Path, node_modules: Path) -> None:
    measured = live(version)
    for scenario, suggestion in BAD.items():
        check_flagged(measured[scenario], suggestion)
    check_not_vacuous(measured)
    check_clean_via_cli(measured, tmp_path)
