"""Tables keep their column names and agree with each other; charts return Figures with the expected artists."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from probe_lib.analysis import tables
from probe_lib.core.paths import ROOT
from probe_lib.frameworks.mastra import normaliser as RULE
from probe_lib.inputs.keysets import by_name, catalogue
from probe_lib.present import charts

CATALOGUE = catalogue(RULE)
REWRITES = tables.rewrites(CATALOGUE)
SUMMARY = tables.summary(CATALOGUE)

# Spelled out on purpose: notebooks depend on these exact names and orders.
EXPECTED_COLUMNS = {
    tables.rewrites: [
        "set", "key", "wire_name", "rewritten", "substituted", "prefixed", "truncated", "lost",
        "key_length", "name_length", "position_before", "position_after", "moved_by", "vanished",
    ],
    tables.truncation: [
        "set", "key", "wire_name", "key_length", "lost", "lost_length", "prefix_caused", "distinguishing",
    ],
    tables.ordering_shift: [
        "set", "tools", "rewritten", "vanished", "displaced", "discordant_pairs", "kendall_distance",
    ],
    tables.collisions: ["set", "error", "wire_name", "key", "holder", "message"],
    tables.summary: [
        "set", "family", "description", "tools", "untouched", "rewritten", "substituted", "prefixed", "truncated",
        "vanished", "displaced", "max_key_length", "max_name_length", "error",
    ],
}  # fmt: skip


@pytest.mark.parametrize("table", EXPECTED_COLUMNS, ids=lambda table: table.__name__)
def test_columns_are_stable_and_documented_even_for_no_sets(table):
    expected = EXPECTED_COLUMNS[table]
    assert list(table(CATALOGUE).columns) == expected
    empty = table([])
    assert list(empty.columns) == expected and empty.empty
    assert (empty.dtypes == table(CATALOGUE).dtypes).all()
    assert set(expected) <= {name for name, _, _ in tables.COLUMNS}


def test_one_set_or_a_list_of_one_give_the_same_table():
    keyset = by_name("article-rewrites", RULE)
    pd.testing.assert_frame_equal(tables.rewrites(keyset), tables.rewrites([keyset]))


def test_rewrites_has_one_row_per_key_in_registration_order():
    assert len(REWRITES) == sum(len(keyset.keys) for keyset in CATALOGUE)
    assert REWRITES["key"].tolist() == [key for keyset in CATALOGUE for key in keyset.keys]
    assert "\ud800" in set(REWRITES["key"])  # lone surrogates survive the string dtype


_KIT_FRAMES = """
import json
import pandas as pd
import probe_lib
from probe_lib.frameworks.mastra import normaliser
from probe_lib.analysis import tables
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, tools
from probe_lib.inputs.keysets import by_name
from probe_lib.tables import compare, tidy
from probe_lib.measure import measurement

scenario = Scenario("lone", tools=tools("a\\ud800", "plain"))
sent = {"messages": [], "tools": [{"type": "function", "function": {"name": k}} for k in ("a\\ud800", "plain")]}
measured = Outcome(scenario, "mastra", "1.71.0", (sent,), (), (), (), (), (), (), ())
entry = json.loads(json.dumps(measurement.outcome_to_json(measured)))  # a measurement file's entry, read back
frame = tidy.frame([measurement.outcome_from_json(entry, {"lone": scenario})], ["recorded"])
table = tables.rewrites(by_name("unicode-lone-surrogates", normaliser))
sent_names = compare.turns(frame)["names sent"]  # a table whose types pandas infers
holds = "\\ud800" in set(table["key"])
print(json.dumps([pd.options.mode.string_storage, list(frame["key"]), holds, list(sent_names)]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("user_sets", [None, "pyarrow"])
def test_the_kit_leaves_pandas_string_storage_as_the_user_set_it_and_its_frames_hold_lone_surrogates(user_sets):
    """Importing probe_lib and building its tables changes no pandas option (none set: pandas' own default stays),
    while the kit's frames still hold keys with lone surrogates, which Arrow-backed strings cannot."""
    default = subprocess.run(
        [sys.executable, "-c", "import pandas; print(pandas.options.mode.string_storage)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    setting = "" if user_sets is None else f"import pandas; pandas.options.mode.string_storage = {user_sets!r}\n"
    done = subprocess.run(
        [sys.executable, "-c", setting + _KIT_FRAMES], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    storage, keys, table_holds, sent_names = json.loads(done.stdout)
    assert storage == (user_sets or default)
    assert keys == ["a\ud800", "plain"] and sent_names == ["a\ud800, plain"] and table_holds


def test_the_article_spread_is_described_row_by_row():
    table = tables.rewrites(by_name("article-rewrites", RULE)).set_index("key")
    assert table.loc["weather-EU", "position_after"] == 0
    assert table.loc["weather-EU", "moved_by"] == -2
    assert not table.loc["weather-EU", "rewritten"]
    assert table.loc["search.web", "wire_name"] == "search_web"
    assert table.loc["9lives", "wire_name"] == "_9lives"
    digit_key = next(key for key in table.index if key.startswith("1a"))
    assert table.loc[digit_key, ["key_length", "name_length", "lost"]].tolist() == [63, 63, digit_key[-1]]


def test_a_set_that_raises_has_names_but_no_positions():
    table = tables.rewrites(by_name("article-collision-dot-space", RULE))
    assert table["wire_name"].tolist() == ["search_web", "search_web"]
    assert table["position_after"].isna().all() and not table["vanished"].any()


#: Per-set counts worked out by hand from the article's rules (not from the model): tools, untouched, rewritten,
#: substituted, prefixed, truncated, vanished.
#: article-rewrites (the article's spread): search.web, "my tool" and ns:read/file are substituted, 9lives is
#: prefixed, "1" + 62 a's is prefixed and so cut, 70 b's are legal but cut, weather-EU is left alone.
#: ascii-punctuation-inside: of 32 "a?b" keys only "-" and "_" are legal. ascii-punctuation-leading: "_ab" is
#: legal, "-ab" only needs a prefix, the other 30 start with "_" once substituted. unicode-letters: every key
#: holds a non-ASCII letter, none starts with a digit.
HAND_WORKED = {
    "article-rewrites": (7, 1, 6, 3, 2, 2, 0),
    "ascii-punctuation-inside": (32, 2, 30, 30, 0, 0, 0),
    "ascii-punctuation-leading": (32, 1, 31, 30, 1, 0, 0),
    "unicode-letters": (7, 0, 7, 7, 0, 0, 0),
}


def test_summary_counts_match_hand_worked_counts():
    columns = ["tools", "untouched", "rewritten", "substituted", "prefixed", "truncated", "vanished"]
    summary = SUMMARY.set_index("set")
    for name, expected in HAND_WORKED.items():
        assert tuple(summary.loc[name, columns]) == expected, name
    assert summary.loc["article-rewrites", "displaced"] == 3  # weather-EU, search_web, _9lives move up
    assert summary.loc["prototype-names", "vanished"] == 1


def test_summary_errors_match_the_collisions_table():
    collisions = tables.collisions(CATALOGUE)
    raising = SUMMARY[SUMMARY["error"].notna()]
    assert raising["set"].tolist() == collisions["set"].tolist()
    assert raising["displaced"].isna().all()
    assert set(raising["set"]) == {keyset.name for keyset in CATALOGUE if keyset.expects_error}


def test_collisions_name_the_holder_or_object_prototype():
    table = tables.collisions(CATALOGUE).set_index("set")
    assert table.loc["article-collision-dot-space", ["wire_name", "key", "holder"]].tolist() == [
        "search_web", "search web", "search.web",
    ]  # fmt: skip
    assert table.loc["collision-proto", "holder"] == tables.PROTOTYPE_HOLDER == "Object.prototype"
    assert table.loc["crash-empty-key", "error"] == "crash"
    assert pd.isna(table.loc["crash-empty-key", "holder"])
    assert table.loc["crash-empty-key", "key"] == ""


def test_truncation_lists_exactly_the_cut_keys_and_what_they_lost():
    table = tables.truncation(CATALOGUE)
    assert len(table) == int(REWRITES["truncated"].sum())
    prefix = REWRITES.set_index(["set", "key"])["prefixed"]
    for row in table.itertuples(index=False):
        assert row.lost_length == row.key_length + prefix[(row.set, row.key)] - 63
    by_set = table.groupby("set")["distinguishing"].all()
    assert by_set["article-collision-long"] and by_set["collision-prefix-cut"]
    assert not by_set["mcp-long-prefix"] and not by_set["length-sweep"]
    prefix_caused = set(table.loc[table["prefix_caused"], "set"])
    assert {"article-rewrites", "length-sweep-leading-digit", "collision-prefix-cut"} <= prefix_caused
    assert "article-legal-64" not in prefix_caused


def test_ordering_shift_counts_discordant_pairs():
    table = tables.ordering_shift(CATALOGUE).set_index("set")
    # registered s.web, 9lives, wEU, my tool, ns, 1a.., b.. -> wire wEU first: (wEU, s.web) and (wEU, 9lives) flip
    assert table.loc["article-rewrites", ["displaced", "discordant_pairs"]].tolist() == [3, 2]
    assert table.loc["article-rewrites", "kendall_distance"] == pytest.approx(2 / 21)
    assert table.loc["article-builtins-by-id", "kendall_distance"] == 0
    assert table.loc["prototype-names", ["vanished", "discordant_pairs"]].tolist() == [1, 0]
    assert not set(table.index) & {keyset.name for keyset in CATALOGUE if keyset.expects_error}
    assert table["kendall_distance"].between(0, 1).all()


# -- charts -----------------------------------------------------------------------------------------------------


def png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=40)
    return buffer.getvalue()


def test_rules_fired_draws_three_bars_per_set():
    figure = charts.rules_fired(SUMMARY)
    (axes,) = figure.axes
    assert isinstance(figure, Figure)
    assert len(axes.patches) == 3 * len(SUMMARY)
    assert [label.get_text() for label in axes.get_yticklabels()] == SUMMARY["set"].tolist()
    assert png(figure).startswith(b"\x89PNG")


def test_lengths_plots_every_key_against_the_63_and_64_lines():
    figure = charts.lengths(REWRITES)
    (axes,) = figure.axes
    scatters = [artist for artist in axes.collections if isinstance(artist, PathCollection)]
    assert len(scatters) == 2
    assert sum(len(scatter.get_offsets()) for scatter in scatters) == len(REWRITES)
    assert len(scatters[1].get_offsets()) == int(REWRITES["truncated"].sum())
    assert sorted(line.get_ydata()[0] for line in axes.lines[1:]) == [63, 64]
    assert png(figure).startswith(b"\x89PNG")


@pytest.mark.parametrize("name", ["article-rewrites", "unicode-astral", "unicode-lone-surrogates", "prototype-names"])
def test_ordering_slope_draws_one_line_per_key(name):
    figure = charts.ordering_slope(REWRITES, name)
    (axes,) = figure.axes
    assert len(axes.lines) == len(by_name(name, RULE).keys)
    assert png(figure).startswith(b"\x89PNG")


def test_ordering_slope_refuses_a_set_without_a_wire_order():
    with pytest.raises(ValueError, match="raise"):
        charts.ordering_slope(REWRITES, "article-collision-dot-space")
    with pytest.raises(ValueError, match="no key set"):
        charts.ordering_slope(REWRITES, "no-such-set")


def test_key_labels_escape_what_the_font_lacks_and_keep_keys_apart():
    assert charts.key_label("café") == "café"
    assert charts.key_label("\U0001f600") == "\\U0001f600"
    assert charts.key_label("\ud800") == "\\ud800"
    assert charts.key_label("") == '""'
    assert len(charts.key_label("x" * 100)) == 32


def test_a_grid_cell_wraps_its_text_between_words_and_never_cuts_one():
    error = "AGENT_TOOL_NAME_COLLISION thrown by MastraError"
    grid = pd.DataFrame({"1.67.0": ["error"]}, index=["search.web"])
    figure = charts.category_grid(
        grid, {"error": "#e57373"}, "Error chain", pd.DataFrame({"1.67.0": [error]}, index=grid.index)
    )
    drawn = [text.get_text() for text in figure.axes[0].texts]
    assert drawn == ["AGENT_TOOL_NAME_\nCOLLISION thrown by\nMastraError"]
    many = charts.category_grid(
        grid, {"error": "#e57373"}, "", pd.DataFrame({"1.67.0": [" ".join(["word"] * 40)]}, index=grid.index)
    )
    lines = many.axes[0].texts[0].get_text().split("\n")
    assert len(lines) == 4 and lines[-1].endswith("word …"), "a shortened cell says so after a whole word"


@pytest.mark.slow
def test_charts_never_load_pyplot():
    script = "import sys, probe_lib.present.charts; print('matplotlib.pyplot' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert output.stdout.strip() == "False"


def test_explain_shows_one_key_rule_by_rule():
    row = tables.explain("9.lives").iloc[0]
    assert (row["key"], row["wire_name"]) == ("9.lives", "_9_lives")  # substituted, then prefixed
    assert bool(row["substituted"]) and bool(row["prefixed"]) and not bool(row["truncated"])
    assert row["key_length"] == 7 and row["name_length"] == 8
    long = tables.explain("x" * 70).iloc[0]
    assert long["lost"] == "x" * 7 and bool(long["truncated"])
