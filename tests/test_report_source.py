"""A report says why it shows recordings: because the reader asked for them, or because the real package cannot run
here; it blames a missing Node.js only in the second case. Its ledger says how each row was measured."""

from __future__ import annotations

import pandas as pd
import pytest

from probe_lib.core import paths
from probe_lib.core.target import Target
from probe_lib.frameworks import mastra
from probe_lib.measure import measurement, sources
from probe_lib.measure.provenance import Provenance
from probe_lib.report import build as report
from probe_lib.report import pages


def test_recordings_asked_for_are_not_blamed_on_node():
    assert all(map(mastra.ADAPTER.is_installed, mastra.ADAPTER.versions())), "the suite runs with the pins installed"
    assert report.recorded_because(sources.LIVE) is None
    assert report.recorded_because(sources.RECORDED) == report.ASKED_FOR_RECORDINGS


@pytest.mark.parametrize(
    ("because", "said", "not_said"),
    [
        (report.ASKED_FOR_RECORDINGS, "asked for (reproduce --recorded)", "NODE MISSING"),
        (report.NODE_MISSING, "NODE MISSING", "asked for"),
    ],
)
def test_the_summary_line_names_the_reason(tmp_path, because, said, not_said):
    ledger = pd.DataFrame({"status": ["confirmed"]})
    line = report.summary(report.Report(tmp_path, Provenance.RECORDED, ledger, (), because)).splitlines()[1]
    assert said in line and not_said not in line


@pytest.mark.slow
def test_every_ledger_row_of_a_recorded_report_names_the_runtime_and_day_it_was_measured_with(recorded_report):
    """A report from the recordings: each Mastra row names the Node.js and day its recording notes, each framework
    row the runtime and day the matrix recording notes for its target; no row says its recording did not note them."""
    table = pd.read_csv(recorded_report / "ledger.csv")
    for row in table[~table["claim"].str.startswith(("T", "V"))].itertuples():  # T, V: their summary's source
        target = Target(row.framework, row.version)
        noted = measurement.read(
            measurement.path(paths.CAPTURES, "catalogue" if row.framework == "mastra" else "matrix", target)
        ).made
        assert row.source == f"recorded, {target}, {noted.runtime}, {noted.on}", row
    assert not table["source"].str.contains("runtime and date not noted").any()  # measurement.Made.text's words


@pytest.mark.slow
def test_a_recorded_report_s_notebooks_leave_the_reason_to_its_landing_page(recorded_report):
    """Its notebooks read measurement files that say they were copied from the recordings, not why: their banner
    points to the landing page instead of blaming Node.js (present here: the reader asked for the recordings)."""
    shown = {path.name: path.read_text(encoding="utf-8") for path in (recorded_report / pages.PAGES).glob("*.html")}
    bannered = [name for name, text in shown.items() if "RECORDED, NOT LIVE" in text]
    assert len(bannered) >= 10, sorted(shown)
    assert all("landing page says why" in shown[name] for name in bannered)
    assert not [name for name, text in shown.items() if "Node.js was missing" in text or "is missing here" in text]
