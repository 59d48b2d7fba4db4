"""``reproduce`` end to end: a real kernel executes every notebook on a live measurement, and the report renders.

Also the fallback: with Node.js really absent from PATH, the same command runs from recordings and says so, and
executes each notebook to the bytes the recorded report kept.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys

import nbformat
import pandas as pd
import pytest
from test_cli_junk import run_main

from probe_lib import frameworks
from probe_lib.claims import ledger, registry
from probe_lib.core import folders, paths
from probe_lib.core.target import baseline
from probe_lib.frameworks import mastra
from probe_lib.measure.provenance import Provenance
from probe_lib.present import execution, staleness
from probe_lib.report import build as report
from probe_lib.report import pages

#: Every test here reads a report built once for the module (a minute or more): the quick loop leaves them out.
pytestmark = pytest.mark.slow

#: Notebooks that draw in HTML (the explorer's SVG) rather than matplotlib figures.
INTERACTIVE = {"11-explorer"}


@pytest.mark.node
def test_every_notebook_executes_on_the_live_measurement(live_report):
    assert live_report.source is Provenance.LIVE
    assert [run.notebook for run in live_report.runs] == [path.name for path in report.notebooks()]
    assert not live_report.failed, report.summary(live_report)


@pytest.mark.node
def test_report_was_swapped_in_whole_with_a_manifest_of_every_file(live_report):
    folder = live_report.folder
    listed = json.loads((folder / folders.MANIFEST).read_text())["files"]
    on_disk = sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != folders.MANIFEST
    )
    assert listed == on_disk and pages.INDEX in listed and "pages/05-collisions.html" in listed
    left = [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")]
    assert not left, f"a staging or retired folder was left beside the report: {left}"
    assert all(run.executed.is_relative_to(folder) and run.executed.exists() for run in live_report.runs)


@pytest.mark.node
def test_every_exercise_is_answered_right_by_its_solution_measured_live(live_report):
    from probe_lib.teach import exercises, solutions

    verdicts = {}
    for run in live_report.runs:
        for cell in nbformat.read(run.executed, as_version=4).cells:
            name = solutions.exercise_of(cell.source) if cell.cell_type == "code" else None
            if name:
                verdicts[name] = " ".join(output.get("data", {}).get("text/plain", "") for output in cell.outputs)
    assert set(verdicts) == set(exercises.EXERCISES), "every exercise ran in its notebook"
    wrong = {name: text for name, text in verdicts.items() if not ("RIGHT" in text and "live" in text)}
    assert not wrong, wrong


@pytest.mark.node
def test_ledger_refutes_only_the_article_claims_measured_otherwise_and_no_check_fails(live_report):
    table = pd.read_csv(live_report.folder / "ledger.csv")
    per_version = table["claim"].isin(registry.ids("version"))
    assert set(table.loc[per_version, "version"].astype(str)) == set(mastra.ADAPTER.versions())
    others = table[table["framework"] != "mastra"]
    assert set(others["framework"]) == {entry.framework for entry in registry.checks().values()} - {"mastra"}, (
        "every framework's claims are judged"
    )
    over_releases = others["claim"].isin(registry.ids("timeline"))
    for row in others.loc[~over_releases].itertuples():  # every installed framework is rerun live, here and today
        target = re.escape(f"{row.framework}@{row.version}")
        assert re.fullmatch(rf"live, {target}, (Node\.js v|Python )[\d.]+, \d{{4}}-\d\d-\d\d", row.source), row
    assert others.loc[over_releases, "source"].str.contains("data/timeline.csv").all(), (
        "a claim over a framework's releases names the committed timeline it was judged on"
    )
    expected = {claim_id for claim_id, entry in registry.checks().items() if entry.refuted_as_measured}
    broken = table[(table["status"] == "failed") | ((table["status"] == "refuted") & ~table["claim"].isin(expected))]
    assert broken.empty, broken[["claim", "version", "status", "evidence"]].to_string()
    refuted = table[table["status"] == "refuted"]
    assert set(refuted["claim"]) == expected, "an expected refutation no longer holds"
    assert (table["status"] == "confirmed").sum() > len(table) / 2


@pytest.mark.node
def test_every_notebook_shows_a_verdict_of_each_claim_filed_under_it(live_report):
    """What ``data/claims.csv`` files under a notebook is what that notebook, executed, shows: each claim's id in a
    cell of a table it displayed."""
    for run in live_report.runs:
        shown = " ".join(
            output.get("data", {}).get("text/html", "")
            for cell in nbformat.read(run.executed, as_version=4).cells
            if cell.cell_type == "code"
            for output in cell.outputs
        )
        stem = run.notebook.removesuffix(".ipynb")
        filed = [claim.id for claim in ledger.load_claims() if claim.notebook == stem]
        missing = [claim_id for claim_id in filed if not re.search(rf"<td[^>]*>\s*{claim_id}\s*</td>", shown)]
        assert not missing, f"{stem} shows no verdict of {missing}"


@pytest.mark.node
def test_report_opens_on_what_was_found_and_gives_every_notebook_a_page_with_its_figures(live_report):
    page = live_report.html.read_text(encoding="utf-8")
    assert "Measured live" in page and "RECORDED" not in page
    assert page.index('id="finding"') < page.index('id="claims-ledger"')
    for path in report.notebooks():
        own = (live_report.folder / pages.PAGES / f"{path.stem}.html").read_text(encoding="utf-8")
        assert f'id="{path.stem}"' in own
        if path.stem in INTERACTIVE:
            continue
        figures = sorted((live_report.folder / pages.FIGURES).glob(f"{path.stem}-*.png"))
        assert figures, f"{path.stem} drew no figure"
        assert all(f'src="../figures/{figure.name}"' in own for figure in figures), f"{path.stem} lacks a figure"
    explorer = (live_report.folder / pages.PAGES / "11-explorer.html").read_text(encoding="utf-8")
    assert "probe-explorer-static" in explorer and "search_web" in explorer, (
        "the explorer's static rendering is missing"
    )


@pytest.mark.node
def test_report_shows_each_claim_beside_its_measurement_and_no_machine_path(live_report):
    page = live_report.html.read_text(encoding="utf-8")
    assert f"measured on {baseline('mastra').version}, the article's version" in page
    assert page.lower().count("reconstructed") == 1, "the reconstructed key set is labelled once"
    text = html.unescape(page)  # how each text is escaped is test_escaping's
    for claim in ledger.load_claims():
        assert claim.statement in text and claim.section in text, claim.id
    generated = [path for path in live_report.folder.rglob("*") if path.suffix in {".html", ".ipynb", ".csv", ".json"}]
    leaks = [
        path.name
        for path in generated
        if str(live_report.folder) in path.read_text(encoding="utf-8")
        or str(paths.ROOT) in path.read_text(encoding="utf-8")
    ]
    assert not leaks, f"absolute paths of this machine in {leaks}"


def test_without_node_a_forced_rebuild_runs_from_recordings_says_so_and_writes_the_bytes_kept(
    recorded_report, tmp_path
):
    """With Node.js really absent from PATH, ``reproduce --force`` over a copy of the run's recorded report executes
    every notebook again, from the recordings, and says so. The Python frameworks need no Node and are measured live,
    so the notebook reading their matrix files (12) may differ; every other notebook read the same inputs but Node's
    version and is the same bytes the recorded report kept: a forced execution writes what a kept notebook holds
    (notebook 12 is held to that in test_report_reuse, executed alone)."""
    out = tmp_path / "report"
    shutil.copytree(recorded_report, out)
    bin_without_node = os.path.dirname(sys.executable)
    environment = {**os.environ, "PATH": bin_without_node}
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", "reproduce", "--force", "--out", str(out)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=1800,  # a whole build: 391 s at load 12 on 2 cores, and past 600 s when the machine is busier
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NODE MISSING" in done.stdout
    assert f"notebooks: 0 reused, {len(report.notebooks())} executed" in done.stdout
    page = (out / pages.INDEX).read_text(encoding="utf-8")
    assert "RECORDED, NOT LIVE" in page and report.NODE_MISSING in page
    shown = "".join(path.read_text(encoding="utf-8") for path in (out / pages.PAGES).glob("*.html"))
    assert shown.count("NOT ANSWERED YET") >= 11, "the learner's notebooks run with every exercise awaiting an answer"

    kept, forced = staleness.read(recorded_report), staleness.read(out)
    assert sorted(kept) == sorted(forced)
    read_otherwise = {
        name: {
            input
            for input in kept[name].inputs.values.keys() | forced[name].inputs.values.keys()
            if kept[name].inputs.values.get(input) != forced[name].inputs.values.get(input)
        }
        - {"program:node"}
        for name in kept
    }
    changed = {name for name, inputs in read_otherwise.items() if inputs}
    assert changed == {"12-framework-matrix.ipynb"}, read_otherwise
    assert all(input.startswith("report:measurements/matrix/") for input in read_otherwise["12-framework-matrix.ipynb"])
    differ = [
        name
        for name in sorted(kept.keys() - changed)
        if (out / "notebooks" / name).read_bytes() != (recorded_report / "notebooks" / name).read_bytes()
    ]
    assert not differ, f"a kept notebook is not what a forced execution writes: {differ}"


@pytest.mark.node
def test_report_works_in_a_real_browser(live_report):
    """Chromium loads the landing page and the explorer's: the ledger links every notebook it names to its page,
    nothing logs an error or throws one, and the explorer shows its static rendering in place of its widget.
    Every page's links and charts are checked on the recorded report (``test_report_pages``)."""
    from layout import chromium_page

    with chromium_page() as page:
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))  # uncaught exceptions too
        page.goto(live_report.html.as_uri())
        notebook_links = page.eval_on_selector_all(
            "#ledger a, #framework-ledger a", "links => links.map(a => a.getAttribute('href'))"
        )
        page.goto((live_report.folder / pages.PAGES / "11-explorer.html").as_uri())
        explorer_text = page.inner_text(".probe-explorer-static")
    assert set(notebook_links) == {f"pages/{claim.notebook}.html" for claim in ledger.load_claims()}, (
        "the ledger links every notebook it names"
    )
    assert not errors, errors
    assert "search.web" in explorer_text and "search_web" in explorer_text, explorer_text[:500]


def test_report_drops_widget_views_and_keeps_their_static_rendering():
    """A widget view cannot run in a static page (its loader script throws there), so the report drops it; an
    output that had nothing else to show (ipywidgets' interact repr) becomes a note saying where it works."""
    notebook = nbformat.v4.new_notebook(metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {}}})
    view = {"model_id": "m", "version_major": 2, "version_minor": 0}
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "x",
            outputs=[
                nbformat.v4.new_output("display_data", {"text/plain": "interactive(...)", execution.WIDGET_VIEW: view}),
                nbformat.v4.new_output(
                    "display_data", {"text/plain": "View", "text/html": "<b>static</b>", execution.WIDGET_VIEW: view}
                ),
                nbformat.v4.new_output("stream", text="kept\n"),
            ],
        )
    ]
    cleaned = pages.for_reading(notebook)
    assert "widgets" not in cleaned.metadata
    assert [output.get("data") for output in cleaned.cells[0].outputs] == [
        {"text/html": pages._WIDGET_NOTE, "text/plain": pages._WIDGET_NOTE},
        {"text/plain": "View", "text/html": "<b>static</b>"},
        None,
    ]


def test_reproduce_refuses_a_folder_that_is_not_a_report(tmp_path):
    keep = tmp_path / "notes.txt"
    keep.write_text("a user's file")
    code, stdout, stderr = run_main(["reproduce", "--recorded", "--out", str(tmp_path)])
    assert code == 2 and "notes.txt, which the kit did not write" in stderr and stdout == ""
    assert keep.read_text() == "a user's file"


@pytest.mark.node
def test_report_exports_every_outcome_with_this_runs_measurement_first(live_report):
    from probe_lib.tables import export

    folder = live_report.folder / "export"
    assert sorted(path.name for path in folder.iterdir()) == sorted(export.FILES)
    table = export.read_csv(folder / "outcomes.csv")
    catalogue_rows = table[table["recording"].str.startswith("measurements/catalogue/mastra-")]
    assert set(catalogue_rows["version"]) == set(mastra.ADAPTER.versions())
    matrix_rows = table[table["recording"].str.startswith("measurements/matrix/")]  # this run's framework matrix
    assert set(matrix_rows["framework"]) == set(frameworks.names())
    assert not table["recording"].str.startswith("data/captures/catalogue/").any(), (
        "a recording shadowed this run's measurement"
    )
    # This run measured its files live; every other row is read from a recording.
    own = table["recording"].str.startswith("measurements/")
    assert set(table.loc[own, "source"]) == {"live"} and set(table.loc[~own, "source"]) == {"recorded"}
    # The sweep and the MCP corpus beside it, counted from their sources by hand.
    tool_sets = json.loads((paths.CAPTURES / "mcp-mastra.json").read_text(encoding="utf-8"))["tool sets"]
    assert len(export.read_csv(folder / "mcp_corpus.csv")) == sum(
        len(tool_set["tools served"]) for tool_set in tool_sets
    )
    lines = pd.read_csv(paths.DATA / "timeline.csv", dtype=str)
    swept = lines.loc[lines["framework"] == "mastra", "version"]
    assert set(export.read_csv(folder / "version_sweep.csv")["version"]) >= set(swept)


def test_the_reproduce_docs_name_the_notebooks_that_read_the_catalogue(live_report):
    """docs/reproduce.md types which notebooks read the catalogue measurement: held to what each executed notebook of
    the live report recorded reading."""
    entries = staleness.read(live_report.folder)
    reading = sorted(
        name.removesuffix(".ipynb")[:2]
        for name, entry in entries.items()
        if any(read.startswith("report:measurements/catalogue/") for read in entry.inputs.values)
    )
    assert reading == ["00", "00", *(f"{n:02}" for n in range(1, 11)), "13", "14"], reading
    said = (paths.ROOT / "docs" / "reproduce.md").read_text(encoding="utf-8")
    assert "the ledger and the Mastra notebooks (00 to 10, 13 and 14) read" in said
