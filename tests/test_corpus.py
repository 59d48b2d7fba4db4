"""The MCP tool-name corpus: the loader's drift checks, and the measures against the README's independent counts.

The README's "Quick stats" and "Rows per (server, source_repo)" tables were computed from the file by its
compilers, not by this kit, so they are an external oracle for the loader and the measures.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from probe_lib.analysis.corpus import against_format_tools, collisions, prefixed, refusals, rewrites
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.frameworks import mastra
from probe_lib.inputs.corpus import CORPUS_PATH, EXPECTED_ROWS, load_corpus, record_of
from probe_lib.inputs.keysets import PREFIX_STYLES, prefix_style
from probe_lib.providers import get_rule

README = paths.DATA / "mcp_tool_names.README.md"


@pytest.fixture(scope="module")
def corpus() -> pd.DataFrame:
    return load_corpus()


def readme_table(heading: str) -> list[list[str]]:
    """The body rows of the Markdown table under ``heading`` in the corpus README."""
    text = README.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if not set("".join(cells)) <= set("-: "):
            rows.append(cells)
    return rows[1:]  # drop the header row


def quick_stats() -> dict[str, dict[str, int]]:
    """README "Quick stats": subset -> column -> count."""
    columns = ["rows", "outside_charset", "over_63", "over_64", "server_tool_63", "server_tool_64"]
    names = {"MCP servers": "mcp", "Composio": "composio", "all": "all"}
    return {names[row[0]]: dict(zip(columns, map(int, row[1:]))) for row in readme_table("## Quick stats")}


STATS = quick_stats()
SUBSETS = ["mcp", "composio", "all"]


def by_subset(table: pd.DataFrame, column: str) -> dict[str, int]:
    return dict(zip(table["subset"], table[column]))


def test_the_readme_tables_were_parsed() -> None:
    assert set(STATS) == set(SUBSETS)
    assert STATS["all"]["rows"] == 13_334


def test_loader_counts_match_the_readme(corpus: pd.DataFrame) -> None:
    is_mcp = corpus["server"] != "composio"
    assert len(corpus) == STATS["all"]["rows"]
    assert is_mcp.sum() == STATS["mcp"]["rows"]
    header = README.read_text(encoding="utf-8")
    pairs, labels, repos = map(
        int,
        re.search(
            r"from (\d+) \(server, repo\) pairs \((\d+) distinct server labels, (\d+) repositories\)", header
        ).groups(),
    )
    mcp = corpus[is_mcp]
    assert mcp.groupby(["server", "source_repo"]).ngroups == pairs
    assert mcp["server"].nunique() == labels
    assert mcp["source_repo"].nunique() == repos


def test_rows_per_server_record_match_the_readme(corpus: pd.DataFrame) -> None:
    table = readme_table("## Rows per (server, source_repo)")
    expected = {(server, repo): int(rows) for server, repo, rows, _commit in table}
    found = corpus.groupby(["server", "source_repo"]).size().to_dict()
    assert found == expected


def test_tool_names_stay_strings(corpus: pd.DataFrame) -> None:
    assert corpus["tool"].map(type).eq(str).all()
    assert (corpus["tool"] != "").all()


# ---- the measures against "Quick stats" ----------------------------------------------------------------------


def test_characters_outside_the_set_and_the_63_cut_on_bare_names(corpus: pd.DataFrame) -> None:
    table = rewrites(corpus, [prefix_style("none")])
    # formatTools substitutes exactly the names with characters outside [A-Za-z0-9_-] ...
    assert by_subset(table, "substituted") == {s: STATS[s]["outside_charset"] for s in SUBSETS}
    # ... and cuts exactly the names over 63 units.
    assert by_subset(table, "truncated") == {s: STATS[s]["over_63"] for s in SUBSETS}
    # "No name starts with a digit": nothing gets the '_' prefix.
    assert by_subset(table, "prefixed") == {s: 0 for s in SUBSETS}


def test_openai_refusals_of_bare_names(corpus: pd.DataFrame) -> None:
    table = refusals(corpus, [prefix_style("none")], [get_rule("openai")])
    refused = by_subset(table, "refused")
    # OpenAI refuses a name over 64 or with a character outside the set; the README counts each separately and
    # the two sets are disjoint here (MCP has no name over 64, Composio no odd character).
    assert STATS["mcp"]["over_64"] == 0 and STATS["composio"]["outside_charset"] == 0
    assert refused["mcp"] == STATS["mcp"]["outside_charset"]
    assert refused["composio"] == STATS["composio"]["over_64"]


def test_server_tool_names_that_formatTools_rewrites_match_the_63_column(corpus: pd.DataFrame) -> None:
    # The README's rule for `server_tool` is ^[a-zA-Z_][a-zA-Z0-9_-]*$ and <= 63: formatTools' "leave alone" rule.
    table = rewrites(corpus, [prefix_style("mastra")])
    assert by_subset(table, "rewritten") == {s: STATS[s]["server_tool_63"] for s in SUBSETS}


def test_server_tool_names_openai_refuses_match_the_64_column(corpus: pd.DataFrame) -> None:
    # The README's first-character rule cannot differ from OpenAI's here: every server label starts with a letter.
    assert corpus["server"].str.match(r"[a-zA-Z]").all()
    table = refusals(corpus, [prefix_style("mastra")], [get_rule("openai")])
    assert by_subset(table, "refused") == {s: STATS[s]["server_tool_64"] for s in SUBSETS}


def test_every_dotted_join_breaks_the_openai_charset(corpus: pd.DataFrame) -> None:
    table = refusals(corpus, [prefix_style("dot")], [get_rule("openai"), get_rule("gemini"), get_rule("mcp")])
    shares = {(row.provider, row.subset): row.share for row in table.itertuples()}
    assert all(shares[("openai", subset)] == 1.0 for subset in SUBSETS)
    # Gemini and MCP allow dots, so only length can refuse a dotted name there.
    long_names = prefixed(corpus, prefix_style("dot")).str.len()
    assert shares[("mcp", "all")] == (long_names > 128).mean()


# ---- tidy tables ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_tables_have_stable_columns_and_one_row_per_key(corpus: pd.DataFrame) -> None:
    small = corpus[corpus["server"].isin(["filesystem", "git", "composio"])]
    table = refusals(small)
    assert list(table.columns) == ["style", "subset", "provider", "variant", "names", "refused", "share"]
    assert not table.duplicated(["style", "subset", "provider", "variant"]).any()
    assert len(table) == len(PREFIX_STYLES) * 3 * len({(r, v) for r, v in zip(table["provider"], table["variant"])})
    assert list(rewrites(small).columns) == [
        "style",
        "subset",
        "names",
        "rewritten",
        "substituted",
        "prefixed",
        "truncated",
        "suffix_lost",
        "share",
    ]
    assert list(collisions(small).columns) == ["style", "subset", "records", "failing", "tools_in_failing", "share"]


def test_collisions_are_records_where_two_names_share_their_first_63_units(corpus: pd.DataFrame) -> None:
    table = collisions(corpus, [prefix_style("mastra")])
    # Independent oracle: with only '.' outside the charset in this corpus, a record collides exactly when two
    # of its `server_tool` names agree on their first 63 characters once dots become underscores.
    names = prefixed(corpus, prefix_style("mastra")).str.replace(".", "_", regex=False).str[:63]
    clashing = names.groupby(record_of(corpus)).agg(lambda cut: cut.duplicated().any())
    record_sizes = corpus.groupby(record_of(corpus)).size()
    assert by_subset(table, "failing")["all"] == clashing.sum()
    assert by_subset(table, "tools_in_failing")["all"] == record_sizes[clashing].sum()


def test_suffix_lost_counts_only_truncated_names_that_clash(corpus: pd.DataFrame) -> None:
    table = rewrites(corpus, [prefix_style("mastra")])
    names = prefixed(corpus, prefix_style("mastra")).str.replace(".", "_", regex=False)
    cut = names.str[:63]
    shared = cut.groupby([record_of(corpus), cut]).transform("size") > 1
    assert by_subset(table, "suffix_lost")["all"] == int(((names.str.len() > 63) & shared).sum())


def test_composio_records_are_toolkits(corpus: pd.DataFrame) -> None:
    records = record_of(corpus)
    github = corpus["tool"].str.startswith("GITHUB_") & (corpus["server"] == "composio")
    assert records[github].nunique() == 1
    assert records[corpus["server"] == "filesystem"].nunique() == 1


# ---- drift ---------------------------------------------------------------------------------------------------


def write(frame: pd.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "corpus.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda f: f.iloc[1:], "13,333 rows"),
        (lambda f: f.rename(columns={"tool": "name"}), "columns"),
        (lambda f: pd.concat([f.iloc[:1], f.drop(index=1)]), "appears twice"),
        (lambda f: f.assign(server=f["server"].where(f.index != 0, "brand-new-server")), "146 distinct"),
        (lambda f: f.assign(server=f["server"].where(f.index != 0, "composio")), "MCP rows"),
        (lambda f: f.assign(tool=f["tool"].where(f.index != 5, "")), "empty"),
    ],
)
def test_a_drifting_file_is_refused(corpus: pd.DataFrame, tmp_path: Path, change, complaint: str) -> None:
    path = write(change(corpus), tmp_path)
    with pytest.raises(InputError, match=complaint):
        load_corpus(path)


def test_an_unchanged_copy_loads_and_a_missing_file_says_where_to_get_it(corpus: pd.DataFrame, tmp_path: Path) -> None:
    assert load_corpus(write(corpus, tmp_path)).equals(corpus)
    with pytest.raises(InputError, match="shared/data"):
        load_corpus(tmp_path / "missing.csv")
    assert CORPUS_PATH.parent == paths.DATA


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", mastra.ADAPTER.versions())
def test_every_corpus_tool_set_meets_the_real_format_tools(version, node_modules):
    """The corpus-wide counts come from the model; here every tool set, in every prefix style, is checked
    against the real Agent.formatTools, so those counts stand on the real package."""
    frame = load_corpus()
    for style in PREFIX_STYLES:
        table = against_format_tools(frame, style, version)
        assert len(table) == 294 and table["tools"].sum() == EXPECTED_ROWS
        disagree = table.loc[~table["agree"], "record"].tolist()
        assert not disagree, f"{prefix_style.name}: the model disagrees with formatTools on {disagree[:5]}"
