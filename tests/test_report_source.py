"""A report says why it shows recordings: because the reader asked for them, or because the real package cannot run
here; it blames a missing Node.js only in the second case."""

from __future__ import annotations

import pandas as pd
import pytest

from probe_lib.adapters import mastra
from probe_lib.present import report
from probe_lib.study import sources
from probe_lib.study.provenance import Provenance


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
