"""The Python runners across their frameworks' API eras: one real release of each era the runner branches for,
installed as of its publication (once: into the tests' release cache, kept between runs) and probed for real, and the
releases older than any era (or between two) refused in one line before anything installs.

What each era is expected to do is read from that release's own source: pydantic-ai before 1.93.0 has no
``tool_choice`` setting, so it cannot force a tool; langchain-openai before 0.1 refuses a ``tool_choice`` unless
exactly one tool is bound (``bind_tools``' own check); every other era sends the keys and a forced key as given.
"""

from __future__ import annotations

import pytest
from eras import KEYS, probe_three_ways

from probe_lib import frameworks
from probe_lib.core.errors import ReleaseUnsupported
from probe_lib.install.eras import between, either
from probe_lib.install.releases import since

#: One release per era: (adapter, release, what the forced run does: "sent", "not applicable" or the refusal).
ERAS = [
    ("openai", "0.28.1", "sent"),  # the module-level ChatCompletion.acreate
    ("openai-agents-chat", "0.0.2", "sent"),  # the first with the agents module; the runner has no branch
    ("pydantic-ai", "0.0.12", "not applicable"),  # OpenAIModel(openai_client=), system_prompt
    ("pydantic-ai", "0.0.33", "not applicable"),  # provider=OpenAIProvider(...)
    ("pydantic-ai", "0.1.0", "not applicable"),  # instructions
    ("pydantic-ai", "0.7.6", "not applicable"),  # OpenAIChatModel
    ("langchain", "0.0.4", "you must provide exactly one tool"),  # bind_tools; calls in additional_kwargs
    ("llama-index", "0.11.5", "sent"),  # the first with FunctionTool.from_defaults(fn=...) and llama_index.agent
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "version", "forced"), ERAS, ids=[f"{n}@{v}" for n, v, _ in ERAS])
def test_each_era_sends_the_keys_forces_as_its_release_can_and_runs_the_called_tool(
    name, version, forced, release_cache, capture_server
):
    plain, forcing, round_trip = probe_three_ways(name, version, capture_server)
    assert plain.failure is None and plain.wire_names == KEYS, plain.result_json()
    if forced == "sent":
        assert forcing.failure is None and forcing.forced_name == KEYS[0], forcing.result_json()
    elif forced == "not applicable":
        assert forcing.not_applicable and "tool_choice" in forcing.failure.message, forcing.result_json()
    else:
        assert forcing.failure.kind == "rejected" and forced in forcing.failure.message, forcing.result_json()
    assert [execution["key"] for execution in round_trip.executions] == [KEYS[0]], round_trip.result_json()


#: Releases no era covers, and the first release each adapter's harness runs.
TOO_OLD = [
    ("openai", "0.26.5", "openai>=0.27.0"),
    ("openai", "1.0.1", "openai>=1.1.0"),
    ("openai-responses", "1.65.5", "openai>=1.66.0"),
    ("openai-agents", "0.0.1", "openai-agents>=0.0.2"),
    ("pydantic-ai", "0.0.11", "pydantic-ai-slim>=0.0.12"),
    ("langchain", "0.0.3", "langchain-openai>=0.0.4"),
    ("llama-index", "0.11.4", "llama-index-core>=0.11.5"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "version", "needs"), TOO_OLD, ids=[f"{n}@{v}" for n, v, _ in TOO_OLD])
def test_a_release_older_than_every_era_is_refused_in_one_line_before_installing(name, version, needs, release_cache):
    adapter = frameworks.get(name)
    with pytest.raises(ReleaseUnsupported, match=rf" {version} .*\(needs {needs}\)$") as refused:
        adapter.install(version)
    assert "\n" not in str(refused.value)
    assert not adapter.pins.releases.generated(version).exists()


def test_a_gap_refuses_its_releases_only_and_either_gives_the_first_reason():
    refuse = either(since("pkg", "0.27.0", "is too old"), between("pkg", "1.0.0a0", "1.1.0", "has no tools"))
    assert refuse("0.26.5") == "pkg 0.26.5 is too old (needs pkg>=0.27.0)"
    assert refuse("1.0.0b1") == "pkg 1.0.0b1 has no tools (needs pkg>=1.1.0)"
    assert refuse("1.0.1") == "pkg 1.0.1 has no tools (needs pkg>=1.1.0)"
    assert [refuse(v) for v in ("0.27.0", "0.28.1", "1.1.0", "3.57.0")] == [None] * 4
    # A PyPI prerelease semver does not read is in PEP 440 order too, not before every release.
    assert [since("pkg", "0.0.12")(v) for v in ("1.0.0b1", "0.2.0.dev0", "1.0.0a1")] == [None] * 3
    assert since("pkg", "0.0.12")("0.0.6a1") == "pkg 0.0.6a1 predates the harness's API (needs pkg>=0.0.12)"


@pytest.mark.slow
def test_crewai_before_1_10_1_runs_and_renames_as_the_pin_does(release_cache, capture_server):
    """1.10.0's ``convert_tools_to_openai_schema`` returns two values, not three (the runner read three and failed
    with "not enough values to unpack"); it renames the key as the pin does, and cannot force a tool."""
    plain, forcing, _ = probe_three_ways("crewai", "1.10.0", capture_server)
    assert plain.failure is None and plain.wire_names == ["search_web", "plain"], plain.result_json()
    assert forcing.not_applicable and "tool_choice" in forcing.failure.message, forcing.result_json()
