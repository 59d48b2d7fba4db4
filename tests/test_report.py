"""``reproduce`` end to end: a real kernel executes every notebook on a live measurement, and the report renders.

Also the fallback: with Node.js really absent from PATH, the same command runs from recordings and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from probe_lib.adapters import mastra
from probe_lib.present import browser as kit_browser
from probe_lib.present import report
from probe_lib.study import claims


@pytest.fixture(scope="module")
def live_report(tmp_path_factory, node_modules):
    return report.reproduce(tmp_path_factory.mktemp("report"), live=True)


@pytest.mark.node
def test_every_notebook_executes_on_the_live_measurement(live_report):
    assert live_report.source == "live"
    assert [run.notebook for run in live_report.runs] == [path.name for path in report.notebooks()]
    assert not live_report.failed, report.summary(live_report)


@pytest.mark.node
def test_ledger_has_no_refuted_or_failed_claim(live_report):
    table = pd.read_csv(live_report.folder / "ledger.csv")
    assert set(table["version"].astype(str)) == set(mastra.ADAPTER.versions())
    broken = table[table["status"].isin(["refuted", "failed"])]
    assert broken.empty, broken[["claim", "version", "status", "evidence"]].to_string()
    assert (table["status"] == "confirmed").sum() > len(table) / 2


@pytest.mark.node
def test_report_renders_ledger_first_then_every_notebook_with_figures(live_report):
    page = live_report.html.read_text(encoding="utf-8")
    assert "Measured live" in page and "RECORDED" not in page
    assert page.index("Claims ledger") < page.index('class="notebook"')
    for path in report.notebooks():
        assert f'id="{path.stem}"' in page
        assert list((live_report.folder / "figures").glob(f"{path.stem}-*.png")), f"{path.stem} drew no figure"
    assert page.count("data:image/png") >= len(report.notebooks())


def test_without_node_the_report_runs_from_recordings_and_says_so(tmp_path):
    bin_without_node = os.path.dirname(sys.executable)
    environment = {**os.environ, "PATH": bin_without_node}
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", "reproduce", "--out", str(tmp_path)],
        env=environment, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NODE MISSING" in done.stdout
    assert "NODE.JS WAS MISSING" in (tmp_path / "report.html").read_text(encoding="utf-8")


@pytest.mark.node
def test_report_works_in_a_real_browser(live_report):
    """Chromium loads the page: every chart decodes, every ledger link lands on a notebook, nothing logs an error."""
    from playwright.sync_api import sync_playwright

    chromium = kit_browser.browser_executable()
    assert chromium, f"Chromium is missing: {kit_browser.BROWSER_HELP}"
    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--no-first-run"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=flags)
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(live_report.html.as_uri())
        sizes = page.eval_on_selector_all("img", "images => images.map(i => i.naturalWidth * i.naturalHeight)")
        targets = page.eval_on_selector_all("a[href^='#']", "links => links.map(a => a.getAttribute('href').slice(1))")
        resolves = "f => document.getElementById(f) !== null || document.getElementById(decodeURIComponent(f)) !== null"
        landed = [target for target in set(targets) if page.evaluate(resolves, target)]  # as the HTML spec looks up
        notebook_links = page.eval_on_selector_all("table a[href^='#']", "links => links.map(a => a.hash.slice(1))")
        page.screenshot(path=str(live_report.folder / "report-screenshot.png"))
        browser.close()
    assert len(sizes) >= len(report.notebooks()) and all(sizes), "every chart must decode to a non-empty image"
    assert sorted(landed) == sorted(set(targets)), "every in-page link must land on an element"
    assert set(notebook_links) == {claim.notebook for claim in claims.load_claims()}, "the ledger links every notebook it names"
    assert not errors, errors


def test_reproduce_refuses_a_folder_that_is_not_a_report(tmp_path):
    keep = tmp_path / "notes.txt"
    keep.write_text("a user's file")
    done = subprocess.run([sys.executable, "-m", "probe_lib", "reproduce", "--recorded", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "holds no earlier report" in done.stderr and done.stdout == ""
    assert keep.read_text() == "a user's file"


@pytest.mark.node
def test_report_exports_every_outcome_with_this_runs_measurement_first(live_report):
    from probe_lib.study import export

    folder = live_report.folder / "export"
    assert sorted(path.name for path in folder.iterdir()) == sorted(export.FILES)
    table = export.read_csv(folder / "outcomes.csv")
    catalogue_rows = table[table["recording"].str.startswith("measurements/")]
    assert set(catalogue_rows["version"]) == set(mastra.ADAPTER.versions())
    assert not table["recording"].str.startswith("data/captures/mastra-").any(), "a recording shadowed this run's measurement"
