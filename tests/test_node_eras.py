"""The Node runners across their frameworks' API eras: one real release of each era the AI SDK's, LangChain JS's
and the Claude Agent SDK's runners branch for, installed as of its publication (once: into the tests' release cache,
kept between runs) and probed for real, and a release older than every era refused in one line before anything
installs.

What each era is expected to do is read from that release's own API: ``ai`` before 3.1.16 has no ``toolChoice``,
so it cannot force a tool; every other era sends the keys and a forced key as given, and runs the tool the model
calls by its key.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest
from eras import KEYS, probe_three_ways

from probe_lib import frameworks
from probe_lib.core.errors import InstallFailed, ReleaseUnsupported
from probe_lib.core.scenarios import for_keys
from probe_lib.install import releases
from probe_lib.wire.replies import ToolCall, ToolCallsReply

pytestmark = [pytest.mark.slow, pytest.mark.node]

#: One release per era: (adapter, release, whether the forced run is sent).
ERAS = [
    ("ai-sdk", "3.1.0", False),  # @ai-sdk/openai in compatible mode, no toolChoice yet
    ("ai-sdk", "3.1.16", True),  # the first with toolChoice
    ("ai-sdk", "4.0.0", True),  # @ai-sdk/openai-compatible 0.x
    ("ai-sdk", "5.0.0", True),  # inputSchema, openai-compatible 1.x
    ("langchain-js", "0.0.1", True),  # tools and tool_choice as call options (bind), the core a dependency
    ("langchain-js", "0.2.3", True),  # bindTools, the forced key in OpenAI's object form
    ("langchain-js", "0.3.0", True),  # the forced key as a string, the core a peer
]


@pytest.mark.parametrize(("name", "version", "forces"), ERAS, ids=[f"{n}@{v}" for n, v, _ in ERAS])
def test_each_era_sends_the_keys_forces_as_its_release_can_and_runs_the_called_tool(
    name, version, forces, release_cache, capture_server
):
    plain, forcing, round_trip = probe_three_ways(name, version, capture_server)
    assert plain.failure is None and plain.wire_names == KEYS, plain.result_json()
    if forces:
        assert forcing.failure is None and forcing.forced_name == KEYS[0], forcing.result_json()
    else:
        assert forcing.not_applicable and "toolChoice" in forcing.failure.message, forcing.result_json()
    assert [execution["key"] for execution in round_trip.executions] == [KEYS[0]], round_trip.result_json()


def test_an_ai_sdk_release_older_than_every_era_is_refused_in_one_line_before_installing(release_cache):
    adapter = frameworks.get("ai-sdk")
    with pytest.raises(ReleaseUnsupported, match=r" 3\.0\.0 .*\(needs ai>=3\.1\.0\)$") as refused:
        adapter.install("3.0.0")
    assert "\n" not in str(refused.value)
    assert not adapter.pins.releases.generated("3.0.0").exists()


CLAUDE = frameworks.get("claude-agent-sdk")
#: The CLI's eras before 0.2, one real release each: (release, whether its SDK has the ``tools`` option).
OLD_ERAS = [("0.1.21", False), ("0.1.77", True)]


@pytest.mark.parametrize(("version", "has_tools_option"), OLD_ERAS, ids=[v for v, _ in OLD_ERAS])
def test_an_old_cli_offers_only_the_probe_tools_and_its_own_calls_take_no_scripted_reply(
    version, has_tools_option, release_cache, capture_server
):
    """On these releases the CLI sends sub-agent warmups (and on 0.1.21 one-token counts) beside the turn's model
    calls; before 0.1.57 it offers its built-ins unless each is disallowed. The turn keeps the probe's two tools in
    registration order, the CLI's own calls are kept in ``unrouted``, and the round trip's tool call reaches the
    turn (a warmup taking it would leave the tool unrun, as it did before the adapter told them apart)."""
    call = ToolCallsReply((ToolCall("mcp__probe__search_web", {"city": "Paris"}),))
    plain, trip = CLAUDE.run(
        [for_keys("dot", ["search.web", "plain"]), replace(for_keys("trip", ["search.web", "plain"]), replies=(call,))],
        version,
        server=capture_server,
    )
    assert ("--tools" in _sdk_source(version)) is has_tools_option
    assert plain.wire_names == ["mcp__probe__search_web", "mcp__probe__plain"], plain.result_json()
    own_calls = [e for e in plain.unrouted if e["method"] == "POST" and "/v1/messages?" in e["path"]]
    assert own_calls and {e["status"] for e in own_calls} == {400}, plain.unrouted
    assert all(request["messages"][0]["content"][0]["text"] == "hi" for request in plain.requests)
    assert [run["key"] for run in trip.executions] == ["search.web"], trip.result_json()


def _sdk_source(version: str) -> str:
    return (CLAUDE.pins.install_dir(version) / "node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs").read_text()


def test_a_release_whose_other_platforms_binaries_came_later_installs_as_of_its_day(
    release_cache, capture_server, tmp_path
):
    """``@anthropic-ai/claude-agent-sdk`` 0.2.141 names eight platform binaries as optional dependencies, of which
    only linux-x64's was published by its day: npm's lock as of then leaves the others unresolved yet listed, which
    ``npm ci`` refuses ("Missing: ... from lock file") unless the kit strikes them."""
    version = "0.2.141"
    (outcome,) = CLAUDE.run([for_keys("dot", ["search.web", "plain"])], version, server=capture_server)
    assert outcome.wire_names == ["mcp__probe__plain", "mcp__probe__search_web"], outcome.result_json()  # sorted
    generated = CLAUDE.pins.releases.generated(version)
    lock = json.loads((generated / "package-lock.json").read_text())
    optional = lock["packages"]["node_modules/@anthropic-ai/claude-agent-sdk"]["optionalDependencies"]
    assert list(optional) == ["@anthropic-ai/claude-agent-sdk-linux-x64"]
    raw = tmp_path / "raw-lock"  # npm's own lock as of that day, before the kit's strike
    raw.mkdir()
    shutil.copy2(generated / "package.json", raw / "package.json")
    releases.run_npm(
        ["install", "--package-lock-only", f"--before={CLAUDE.pins.releases.resolved_before(version)}"],
        "resolving again",
        timeout=300,
        cwd=raw,
    )
    struck = releases.without_unpublished_optionals(raw / "package-lock.json")
    assert "@anthropic-ai/claude-agent-sdk -> @anthropic-ai/claude-agent-sdk-darwin-arm64" in struck
    assert len(struck) == 7, struck


def test_a_release_whose_own_cli_binary_came_later_fails_to_install(release_cache):
    """``@anthropic-ai/claude-agent-sdk`` 0.2.128's linux-x64 CLI binary was published 2 h 21 min after it, past
    the margin its day's lock is resolved with: npm installs it without the binary, and the kit calls that a failed
    install, not a release that rejects every run."""
    version = "0.2.128"
    with pytest.raises(InstallFailed, match=r"needs @anthropic-ai/claude-agent-sdk-linux-x64, which was not published"):
        CLAUDE.install(version)
    assert not CLAUDE.is_installed(version)  # npm completed it, yet it cannot run
    with pytest.raises(InstallFailed, match="it cannot be measured"):  # a probe of it too, not only the sweep
        CLAUDE.run([for_keys("dot", ["search.web", "plain"])], version)
    lock = json.loads((CLAUDE.pins.releases.generated(version) / "package-lock.json").read_text())
    assert "node_modules/@anthropic-ai/claude-agent-sdk-linux-x64" not in lock["packages"]
