"""MCP measured: real MCP servers (the official Python SDK) on loopback, loaded by the real @mastra/mcp client."""

from __future__ import annotations

import pandas as pd
import pytest

from probe_lib.frameworks.mastra import mcp
from probe_lib.inputs import corpus
from probe_lib.measure import sources

#: Names chosen to reach every branch: legal, dotted, over 63 with the label, and two that collide once cut.
LONG = "describe_all_the_things_in_the_account_with_a_very_long_name_"
SETS = pd.DataFrame(
    {
        "server": ["probe", "probe", "probe", "other", "other"],
        "tool": ["search", LONG + "one", LONG + "two", "fetch", "list.issues"],
        "source_repo": ["kit/probe"] * 3 + ["kit/other"] * 2,
        "source_path": ["x"] * 5,
        "source_commit": ["0" * 40] * 5,
    }
)


@pytest.fixture(scope="module")
def measured(node_modules):
    return mcp.measure(SETS)


@pytest.mark.slow
@pytest.mark.node
def test_the_client_prefixes_each_tool_with_its_server_label(measured):
    rows = measured.set_index("server")
    assert rows.loc["other", "client keys"] == ["other_fetch", "other_list.issues"]
    assert rows.loc["probe", "client keys"] == [f"probe_{tool}" for tool in SETS["tool"][:3]]


@pytest.mark.node
def test_mastra_rewrites_the_joined_names_and_refuses_the_set_whose_cut_names_collide(measured):
    rows = measured.set_index("server")
    assert rows.loc["other", "wire names"] == ["other_fetch", "other_list_issues"] and pd.isna(
        rows.loc["other", "failure"]
    )
    assert rows.loc["probe", "wire names"] is None and rows.loc["probe", "failure"] == "collision"
    assert rows.loc["probe", "collision name"] == ("probe_" + LONG + "one")[:63]


@pytest.mark.node
def test_naming_reads_the_measurement(measured):
    table = mcp.naming(measured).set_index("record")
    assert table["client prefixed server_tool"].all()
    assert table.loc["other kit/other", "names rewritten on the wire"] == 1
    assert table.loc["probe kit/probe", "failure"] == "collision"


def test_the_recording_covers_every_mcp_tool_set_of_the_corpus():
    recorded = sources.mcp_tool_sets(sources.RECORDED)
    assert recorded.attrs["source"] == (
        f"read from the recording data/captures/mcp-mastra.json (@mastra/core {mcp.versions()['@mastra/core']}, "
        f"@mastra/mcp {mcp.versions()['@mastra/mcp']}, zod {mcp.versions()['zod']})"
    ), "the recording was made with the versions the harness pins"
    assert sorted(recorded["record"]) == sorted(mcp.tool_sets(corpus.load_corpus()))
    assert recorded["client keys"].map(len).sum() == corpus.EXPECTED_MCP_ROWS


@pytest.mark.slow
@pytest.mark.node
def test_a_live_source_measures_the_mcp_tool_sets_now_and_says_so():
    measured = sources.mcp_tool_sets(sources.LIVE)
    assert measured.attrs["source"].startswith("measured live now (@mastra/core ")
    assert measured[["record", "client keys", "wire names", "failure"]].equals(
        sources.mcp_tool_sets(sources.RECORDED)[["record", "client keys", "wire names", "failure"]]
    ), "the live measurement is what was recorded"
