"""What a notebook's measuring cell tells its reader: the source as it starts, a banner on falling back to
recordings that names the notebook's own parameter, verdict tables that name their source and show text whole."""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest

from probe_lib.claims import ledger
from probe_lib.core import paths
from probe_lib.measure import sources
from probe_lib.tables import evidence

WITHOUT_NODE = {**os.environ, "PATH": os.path.dirname(sys.executable)}  # Node.js really absent


def test_recorded_evidence_says_so_as_it_starts_and_in_its_verdicts(capsys):
    ev = evidence.gather("1.67.0", sources.RECORDED)
    printed = capsys.readouterr().out
    assert printed.startswith(
        "Reading RECORDED catalogue outcomes of mastra@1.0.4, mastra@1.67.0, mastra@1.71.0 from data/captures/"
    )
    assert ev.source == "recorded" and ev.label == "@mastra/core 1.67.0, recorded"
    table = ledger.verdicts(ev, notebook="03-truncation-63-vs-64")
    assert set(table["judged on"]) == {"@mastra/core 1.67.0, recorded"}


def test_without_node_a_live_request_falls_back_with_a_banner_naming_the_parameter():
    code = (
        "from probe_lib.tables import evidence; from probe_lib.measure import sources; "
        "ev = evidence.gather('1.67.0', sources.LIVE); print('SOURCE', ev.source)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=WITHOUT_NODE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "RECORDED, NOT LIVE: Node.js or the framework is missing here" in done.stdout
    assert 'set measurements = "recorded" in its parameters cell' in done.stdout and "--recorded" not in done.stdout
    assert "SOURCE recorded (Node.js missing)" in done.stdout


@pytest.mark.slow
def test_a_notebook_without_node_shows_the_banner_and_its_verdicts_whole(tmp_path):
    """Notebook 06 run by a real kernel with Node.js absent: a red banner in the measuring cell, chart titles and
    verdicts naming the recordings, and claim statements longer than pandas' 50-character cut shown whole."""
    executed = tmp_path / "06.ipynb"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "papermill",
            str(paths.NOTEBOOKS / "06-toolchoice-break.ipynb"),
            str(executed),
            "--cwd",
            str(tmp_path),
            "-k",
            "python3",
        ],
        env=WITHOUT_NODE,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    notebook = nbformat.read(executed, as_version=4)
    first_code = next(cell for cell in notebook.cells if cell.cell_type == "code" and "evidence.gather" in cell.source)
    banner = [output["data"]["text/html"] for output in first_code.outputs if "text/html" in output.get("data", {})]
    assert banner and "RECORDED, NOT LIVE:" in banner[0] and "#b71c1c" in banner[0]
    verdicts = next(cell for cell in notebook.cells if cell.cell_type == "code" and "ledger.verdicts" in cell.source)
    page = verdicts.outputs[0]["data"]["text/html"]
    statements = {claim.id: claim.statement for claim in ledger.load_claims()}
    long_one = max(("A10", "A11", "F09", "F11"), key=lambda claim_id: len(statements[claim_id]))
    assert len(statements[long_one]) > 50
    assert statements[long_one].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in page
    assert "@mastra/core 1.67.0, recorded (Node.js missing)" in page


def test_the_tidy_frame_of_evidence_is_its_version_or_every_version_measured():
    ev = evidence.gather("1.67.0", sources.RECORDED)
    shown, every = ev.frame(), ev.frame(every_version=True)
    assert set(shown["version"]) == {"1.67.0"} and set(shown["scenario"]) == set(ev.outcomes)
    assert set(every["version"]) == set(ev.by_version) and len(every) > len(shown)
    assert (every[every["version"] == "1.67.0"].reset_index(drop=True)).equals(shown)
