"""The report as a reader meets it in Chromium at 1,280 px: nothing wider than its column (a table or chart too
big for it scrolls in a box of its own), every image described, no NaN/None/<NA> on show, and a table of
contents that stays in reach. Read on the recorded report every test run shares (``recorded_report``), with every
table full size."""

from __future__ import annotations

import pytest
from layout import EMPTY_VALUES, OVERFLOWING, UNDESCRIBED, chromium_page

from probe_lib.report import build as report

#: Every test here reads a report built once (a minute or more): the quick loop leaves them out.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page(recorded_report):
    with chromium_page() as page:
        page.goto((recorded_report / "report.html").as_uri())
        yield page


def test_no_element_is_wider_than_the_report_column(page):
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
    assert page.evaluate(OVERFLOWING, "body") == []


def test_the_ledgers_fit_the_column_so_every_version_is_in_view(page):
    """The ledgers' long keys wrap (``overflow-wrap: anywhere`` on their text columns) rather than push the last
    version's verdicts out of the column into a sideways scroll."""
    for table in ("ledger", "framework-ledger"):
        width, room = page.evaluate(
            "id => { const t = document.getElementById(id); return [t.scrollWidth, t.parentElement.clientWidth]; }",
            table,
        )
        assert width <= room, f"the {table} table is {width} px wide in a {room} px column"


def test_every_image_says_what_it_shows(page):
    assert page.evaluate("document.images.length") > 0
    assert page.evaluate(UNDESCRIBED) == []
    alts = page.eval_on_selector_all("img", "images => images.map(i => i.alt)")
    assert any("Tool order" in alt for alt in alts), "a kit chart is described by its own title"


def test_no_reader_sees_nan_none_or_na(page):
    assert page.evaluate(EMPTY_VALUES) == []


def test_the_contents_stay_in_reach_and_lead_to_every_section(page, tmp_path):
    contents = page.locator("nav.toc")
    links = contents.locator("a[href^='#']").evaluate_all("links => links.map(a => a.hash.slice(1))")
    assert {"claims-ledger", "glossary", *(path.stem for path in report.notebooks())} <= set(links)
    for at in (0.0, 0.5, 1.0):
        page.evaluate(f"window.scrollTo(0, document.documentElement.scrollHeight * {at})")
        page.screenshot(path=str(tmp_path / f"report-{at}.png"))
        assert contents.is_visible() and contents.bounding_box()["y"] == 0, f"the contents scrolled away at {at}"
    page.locator("nav.toc a[href='#glossary']").click()
    page.wait_for_function("document.getElementById('glossary').getBoundingClientRect().top < 100")
    page.locator("#glossary a.top").click()
    page.wait_for_function("window.scrollY < 50")
