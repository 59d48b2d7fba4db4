"""The report as a reader meets it in Chromium at 1,280 px and on a 390 px phone: the landing page's first screen
holds the central finding, nothing is wider than its column (a table too big for it scrolls in a box of its own, a
chart is drawn in it), every verdict cell has its own notebook's colour and the one its status names, every image
is described, no NaN/None/<NA> is on show, every link resolves, and the contents, previous/next and search lead
everywhere. Read on the recorded report every test run shares (``recorded_report``)."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from bs4 import BeautifulSoup
from layout import EMPTY_VALUES, OVERFLOWING, UNDESCRIBED, chromium_page

from probe_lib.present.charts import STATUS_COLOURS
from probe_lib.report import build as report
from probe_lib.report import pages

#: Every test here reads a report built once (a minute or more): the quick loop leaves them out.
pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
#: Each styled table cell as the browser paints it: its table's id, its text and its computed background.
PAINTED = """() => [...document.querySelectorAll("table[id^='T_'] td")].map((td) =>
  [td.closest("table").id.replace(/^T_.*_(\\d+)$/, "$1"), td.innerText.trim(), getComputedStyle(td).backgroundColor])"""
#: Every cell that names a status, with its computed background.
STATUS_CELLS = """(statuses) => [...document.querySelectorAll("td")]
  .filter((td) => statuses.includes(td.innerText.trim()) && getComputedStyle(td).backgroundColor !== "rgba(0, 0, 0, 0)")
  .map((td) => [td.innerText.trim(), getComputedStyle(td).backgroundColor])"""


def rgb(colour: str) -> str:
    """``#8fd18f`` as a browser computes it: ``rgb(143, 209, 143)``."""
    return "rgb({}, {}, {})".format(*(int(colour[at : at + 2], 16) for at in (1, 3, 5)))


def every_page(folder: Path) -> list[Path]:
    return [folder / pages.INDEX, *sorted((folder / pages.PAGES).glob("*.html"))]


@pytest.fixture(scope="module")
def browser_page():
    with chromium_page() as page:
        yield page


@pytest.mark.parametrize("window", [{"width": 1280, "height": 900}, PHONE], ids=["1280", "390"])
def test_the_first_screen_says_what_was_found_and_how_it_was_measured(browser_page, recorded_report, window):
    browser_page.set_viewport_size(window)
    browser_page.goto((recorded_report / pages.INDEX).as_uri())
    for shown in ("#provenance", ".central"):
        box = browser_page.locator(shown).bounding_box()
        assert box and box["y"] + box["height"] <= window["height"], f"{shown} is below the first screen: {box}"
    assert "RECORDED, NOT LIVE" in browser_page.inner_text("#provenance")
    central = browser_page.inner_text(".central")
    assert central.lower().startswith("the central finding") and "toolChoice" in central


@pytest.mark.parametrize("window", [{"width": 1280, "height": 900}, PHONE], ids=["1280", "390"])
def test_no_element_is_wider_than_its_column_on_any_page(browser_page, recorded_report, window):
    browser_page.set_viewport_size(window)
    wide = {}
    for path in every_page(recorded_report):
        browser_page.goto(path.as_uri())
        scrolls = browser_page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        over = browser_page.evaluate(OVERFLOWING, "main")
        if scrolls or over:
            wide[path.name] = over or ["the page scrolls sideways"]
    assert not wide, wide


def test_on_a_phone_the_ledgers_verdicts_are_in_view(browser_page, recorded_report):
    browser_page.set_viewport_size(PHONE)
    browser_page.goto((recorded_report / pages.INDEX).as_uri())
    for table in ("#ledger", "#framework-ledger"):
        right = browser_page.evaluate(
            f"() => Math.max(...[...document.querySelectorAll('{table} td.status')]"
            ".slice(0, 5).map((td) => td.getBoundingClientRect().right))"
        )
        assert right <= PHONE["width"], f"{table}'s verdicts end at {right} px on a {PHONE['width']} px screen"


def test_a_key_in_a_notebook_table_shows_every_space_it_has(browser_page, recorded_report):
    """A key is shown as registered: HTML would fold its runs of spaces into one and drop those at its ends, so two
    keys told apart by their spaces alone would read alike in a table (set here into a cell of a page's table, a
    pandas one and a styled one, as a notebook would show them)."""
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    browser_page.goto((recorded_report / pages.PAGES / "08-versions.html").as_uri())
    key = "  srv  tool "
    shown = browser_page.evaluate(
        """(key) => ["table.dataframe td", "table[id^='T_'] td"].map((selector) => {
            const cell = document.querySelector(".output_html " + selector);
            cell.textContent = key;
            return cell.innerText;
        })""",
        key,
    )
    assert shown == [key, key]


def test_every_verdict_has_the_colour_its_status_names(browser_page, recorded_report):
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    wrong, seen = {}, 0
    for path in every_page(recorded_report):
        browser_page.goto(path.as_uri())
        cells = browser_page.evaluate(STATUS_CELLS, list(STATUS_COLOURS))
        seen += len(cells)
        off = [(text, colour) for text, colour in cells if colour != rgb(STATUS_COLOURS[text])]
        if off:
            wrong[path.name] = off[:5]
    assert seen > 100 and not wrong, wrong


def test_every_styled_cell_has_the_colour_of_its_notebook_rendered_alone(browser_page, recorded_report, tmp_path):
    """Each notebook's page against the same executed notebook rendered alone by nbconvert (its full template),
    cell by cell; a page whose styles reached another's would differ."""
    from nbconvert import HTMLExporter

    browser_page.set_viewport_size({"width": 1280, "height": 900})
    differ, compared = {}, 0
    for executed in sorted((recorded_report / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        alone = tmp_path / f"{executed.stem}.html"
        alone.write_text(HTMLExporter().from_notebook_node(nbformat.read(executed, as_version=4))[0], encoding="utf-8")
        browser_page.goto(alone.as_uri())
        expected = browser_page.evaluate(PAINTED)
        browser_page.goto((recorded_report / pages.PAGES / f"{executed.stem}.html").as_uri())
        painted = browser_page.evaluate(PAINTED)
        compared += len(expected)
        if painted != expected:
            differ[executed.stem] = [pair for pair in zip(painted, expected, strict=False) if pair[0] != pair[1]][:3]
    assert compared > 1000 and not differ, differ


def test_every_link_resolves_to_a_file_and_an_element(recorded_report):
    broken = []

    @functools.cache
    def ids(file: Path) -> frozenset[str]:  # each page parsed once, however many links point into it
        return frozenset(element["id"] for element in BeautifulSoup(file.read_text(encoding="utf-8"), "html.parser")
                         .find_all(id=True))  # fmt: skip

    for path in every_page(recorded_report):
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        for link in soup.find_all(["a", "img", "script"]):
            target = link.get("href") or link.get("src")
            if not target or urlsplit(target).scheme in ("http", "https", "mailto", "data"):
                continue
            parts = urlsplit(target)
            file = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not file.is_file():
                broken.append(f"{path.name}: {target} (no file)")
            elif parts.fragment and file.suffix == ".html":
                if not {parts.fragment, unquote(parts.fragment)} & ids(file):  # as the HTML spec looks an id up
                    broken.append(f"{path.name}: {target} (no element)")
    assert not broken, broken[:20]


def broken_notebook_links(folder: Path) -> list[str]:
    """Each markdown link of ``folder``'s notebooks to a notebook that is not beside them, or to a cell id it lacks."""
    broken = []
    for path in sorted(folder.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for target in re.findall(r"\]\(([^)\s:]+\.ipynb)(?:#cell-id=([^)\s]+))?\)", cell.source):
                linked = folder / target[0]
                if not linked.is_file():
                    broken.append(f"{path.name}: {target[0]} (no file)")
                elif target[1] and target[1] not in {c.id for c in nbformat.read(linked, as_version=4).cells}:
                    broken.append(f"{path.name}: {target[0]}#cell-id={target[1]} (no cell)")
    return broken


def test_every_link_of_an_executed_notebook_opens_a_notebook_beside_it_at_its_cell(recorded_report):
    """A learner opening the report's ``notebooks/`` in JupyterLab follows a notebook's links there: to another
    notebook, and to a glossary term's cell (the kit's glossary is copied beside them)."""
    assert not (broken := broken_notebook_links(recorded_report / "notebooks")), broken[:20]


@pytest.mark.node
def test_every_link_of_a_teachers_solved_notebook_opens_a_notebook_beside_it(live_report):
    """The same of a teacher's report's ``solved/`` copies, which a teacher opens in JupyterLab too."""
    solved = live_report.folder / "solved"
    assert len(list(solved.glob("[0-9][0-9]-*.ipynb"))) == len(report.notebooks())
    assert not (broken := broken_notebook_links(solved)), broken[:20]


def test_the_contents_and_previous_next_lead_through_every_page_in_reading_order(recorded_report):
    order = [f"{path.stem}.html" for path in report.notebooks()] + [f"{pages.GLOSSARY.stem}.html"]
    index = BeautifulSoup((recorded_report / pages.INDEX).read_text(encoding="utf-8"), "html.parser")
    listed = [a["href"].removeprefix("pages/") for a in index.select("nav.toc ol a") if a["href"].startswith("pages/")]
    assert listed == order
    at, walked = index.select_one("a[rel=next]")["href"].removeprefix("pages/"), []
    while at:
        walked.append(at)
        page = BeautifulSoup((recorded_report / pages.PAGES / at).read_text(encoding="utf-8"), "html.parser")
        following = page.select_one("a[rel=next]")
        at = following["href"].removeprefix("../pages/") if following else None
    assert walked == order


def test_every_image_is_described_and_drawn_in_the_column_linked_to_its_full_size(browser_page, recorded_report):
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    images = 0
    for path in sorted((recorded_report / pages.PAGES).glob("*.html")):
        browser_page.goto(path.as_uri())
        assert browser_page.evaluate(UNDESCRIBED) == [], path.name
        assert browser_page.evaluate(EMPTY_VALUES) == [], path.name
        drawn = browser_page.eval_on_selector_all(
            "main img",
            "images => images.map(i => [i.naturalWidth, i.getBoundingClientRect().width,"
            " i.closest('a.figure') !== null, i.closest('main').clientWidth])",
        )
        images += len(drawn)
        for natural, width, linked, column in drawn:
            assert natural > 0 and width <= column and linked, (path.name, natural, width, column, linked)
    assert images >= len(report.notebooks()) - 1


def test_the_search_finds_the_pages_holding_a_word_and_shows_a_hostile_query_as_text(browser_page, recorded_report):
    search = (recorded_report / pages.PAGES / pages.SEARCH).as_uri()
    browser_page.goto(f"{search}?q=toolChoice")
    found = browser_page.eval_on_selector_all("#search-results a", "links => links.map(a => a.getAttribute('href'))")
    assert "06-toolchoice-break.html" in found and f"../{pages.INDEX}" in found
    hostile = "<img/src=x/onerror=alert(1)>"
    browser_page.goto(f"{search}?q={hostile}")
    assert hostile in browser_page.inner_text("#search-count")
    assert browser_page.evaluate("document.querySelectorAll('main img').length") == 0
