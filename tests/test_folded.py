"""A long table folds into a summary and the whole: every row of the whole is in the page, none cut at pandas'
display limits, and the summary counts and names what changed at each release, in version order."""

from __future__ import annotations

import pandas as pd
import pytest
from bs4 import BeautifulSoup

from probe_lib.analysis import timeline
from probe_lib.history import timeline as committed
from probe_lib.present.folded import folded, summary


def changes() -> pd.DataFrame:
    return timeline.change_points(timeline.frame(committed.read()), wire_only=True)


def test_the_summary_counts_each_release_change_and_lists_its_probes_in_version_order():
    whole = changes()
    table = summary(whole, ["framework", "before", "after"], "scenario", "change points", ["framework"])
    assert table["framework"].is_monotonic_increasing
    assert table["change points"].sum() == len(whole)
    crewai = table[table["framework"] == "crewai"].iloc[0]
    at = whole[(whole["framework"] == "crewai") & (whole["after"] == crewai["after"])]
    assert crewai["scenarios"].split(", ") == list(dict.fromkeys(at["scenario"]))
    most = summary(pd.DataFrame({"v": ["1", "1", "1", "2"], "x": ["a", "b", "c", "c"]}), ["v"], "x", "n")
    assert most["xs"].tolist() == ["all 3 in this table", "c"]
    two_of_three = summary(pd.DataFrame({"v": ["1", "1", "2"], "x": ["a", "b", "c"]}), ["v"], "x", "n")
    assert two_of_three["xs"][0] == "all 3 in this table but c"
    llama = table[table["framework"] == "llama-index"]["after"].tolist()
    assert llama == sorted(llama, key=lambda v: tuple(int(n) for n in v.split(".")))
    pairs = pd.DataFrame({"before": ["0.8.2", "1.0.4", "0.10.3"], "after": ["0.8.3", "1.1.0", "0.10.5"], "x": "a"})
    ordered = summary(pairs, ["before", "after"], "x", "n")["after"].tolist()
    assert ordered == ["0.8.3", "0.10.5", "1.1.0"], "releases sort as releases, not as text"


@pytest.mark.slow
def test_every_row_is_in_the_folded_page_beyond_pandas_display_limits():
    whole = changes()
    assert len(whole) > pd.get_option("display.max_rows"), "the case folding exists for"
    soup = BeautifulSoup(
        folded(whole, by=["framework", "after"], listing="scenario", rows="changes").data, "html.parser"
    )
    shown, hidden = soup.find_all("table")
    assert soup.details.summary.text == f"All {len(whole)} changes, one per row"
    assert len(hidden.tbody.find_all("tr")) == len(whole)
    assert "..." not in soup.get_text() and "NaN" not in soup.get_text()
    assert len(shown.tbody.find_all("tr")) == whole.groupby(["framework", "after"]).ngroups
