"""The glossary: every link to it from every notebook names a term's cell, and lands on the term in the report and
(end to end, in Chromium) in JupyterLab; the terms a learner is known to stumble on are there and linked; links
between notebooks name existing notebooks."""

from __future__ import annotations

import re
from functools import cache

import nbformat
import pytest
from nbconvert import HTMLExporter

from probe_lib.core import paths
from probe_lib.report import build as report
from probe_lib.report import pages

ALL_NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("*.ipynb"))
_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: The terms the learners' reading found undefined (issue 13), as glossary anchors.
MUST_DEFINE = (
    "UTF-16-code-unit",
    "Object.prototype",
    "Kendall-distance",
    "refined",
    "Key",
    "Tool-id",
    "Wire-name",
    "toolChoice",
    "activeTools",
    "Capture-server",
    "Recording",
    "Python-model",
)


@cache
def rendered_cells() -> dict[str, list[str]]:
    """Each glossary cell's id to the element ids in it (its heading's first), as nbconvert renders the glossary;
    heading ids are what JupyterLab generates too."""
    body, _ = HTMLExporter(template_name="basic").from_notebook_node(nbformat.read(pages.GLOSSARY, as_version=4))
    cells = re.split(r'(?=<div [^>]* id="cell-id=)', body)[1:]
    return {
        re.search(r'id="cell-id=([^"]+)"', cell)[1]: re.findall(r' id="(?!cell-id=)([^"]+)"', cell) for cell in cells
    }


def term_of(anchor: str) -> str:
    """The id of the glossary cell holding ``anchor`` (a term's heading, or an id inside a term's text)."""
    return next(cell for cell, ids in rendered_cells().items() if anchor in ids)


def links(path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    return [target for cell in notebook.cells if cell.cell_type == "markdown" for target in _LINK.findall(cell.source)]


def glossary_links(path) -> list[str]:
    """The fragments of ``path``'s links to the glossary (the glossary links its own terms in-page)."""
    own = "#" if path == pages.GLOSSARY else "glossary.ipynb#"
    return [target.split("#", 1)[1] for target in links(path) if target.startswith(own)]


def test_each_term_cell_is_named_by_its_heading_with_a_valid_cell_id():
    """A term's cell id is its heading id (a character a cell id may not hold becomes ``-``), so a link by cell id
    reads as the term."""
    glossary = nbformat.read(pages.GLOSSARY, as_version=4)
    nbformat.validate(glossary)
    terms = [cell.id for cell in glossary.cells if cell.source.startswith("### ")]
    named = {cell: re.sub(r"[^A-Za-z0-9_-]", "-", rendered_cells()[cell][0]) for cell in terms}
    assert len(terms) > 30 and {cell: name for cell, name in named.items() if cell != name} == {}


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_every_glossary_link_lands_on_a_term(path):
    targets = glossary_links(path)
    by_heading = sorted(target for target in targets if not target.startswith("cell-id="))
    assert not by_heading, f"{path.name} links terms by heading id, which JupyterLab opens at the top: {by_heading}"
    missing = sorted({target.removeprefix("cell-id=") for target in targets} - set(rendered_cells()))
    assert not missing, f"{path.name} links glossary cells that do not exist: {missing}"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_every_notebook_links_terms_to_the_glossary(path):
    """What the overview and the glossary say of every notebook."""
    assert path == pages.GLOSSARY or glossary_links(path), f"{path.name} links no glossary term"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_links_between_notebooks_name_existing_notebooks(path):
    named = {target.split("#", 1)[0] for target in links(path) if re.match(r"[^:#]+\.ipynb", target)}
    missing = sorted(name for name in named if not (paths.NOTEBOOKS / name).exists())
    assert not missing, f"{path.name} links notebooks that do not exist: {missing}"


def test_the_terms_learners_stumbled_on_are_defined_and_linked():
    terms = {term_of(anchor) for anchor in MUST_DEFINE}  # StopIteration when one is not defined
    linked = {target.removeprefix("cell-id=") for path in report.notebooks() for target in glossary_links(path)}
    assert terms <= linked, f"never linked from a notebook: {sorted(terms - linked)}"


def test_the_report_renders_the_glossary_on_a_page_of_its_own_with_the_notebooks_links_pointed_at_pages():
    section = pages.section(pages.GLOSSARY, HTMLExporter(template_name="basic"))
    assert 'id="toolChoice"' in section and 'href="#cell-id=Legal-name"' in section, "its own links follow its ids"
    page = pages.page_links(
        '<a href="glossary.ipynb#cell-id=toolChoice">x</a> <a href="06-toolchoice-break.ipynb">y</a>'
        ' <a href="https://example.com/a.ipynb">z</a>'
    )
    assert page == (
        '<a href="glossary.html#cell-id=toolChoice">x</a> <a href="06-toolchoice-break.html">y</a>'
        ' <a href="https://example.com/a.ipynb">z</a>'
    )


def test_every_glossary_link_lands_on_its_term_in_the_report():
    """In the report a term's link points at the element of its cell on the glossary's page, which opens with the
    term's heading."""
    section = pages.section(pages.GLOSSARY, HTMLExporter(template_name="basic"))
    hrefs = set(re.findall(r'<a href="#(cell-id=[^"]+)"', section))  # the glossary's own links, not its ¶ marks
    for path in report.notebooks():
        page = pages.page_links("".join(f'<a href="glossary.ipynb#{target}">' for target in glossary_links(path)))
        hrefs |= set(re.findall(r'href="glossary.html#([^"]+)"', page))
    assert hrefs
    for href in sorted(hrefs):
        cell = re.search(rf' id="{re.escape(href)}">\s*(<[^>]*>\s*)*<h3', section)
        assert cell, f"the report has no cell {href} opening with its term's heading"


def _farthest_link(path) -> tuple[str, str]:
    """The text of ``path``'s link that jumps farthest down the glossary (a term below the glossary's own link
    counts from the link's cell), and the heading of the term it links."""
    order = list(rendered_cells())
    own = path == pages.GLOSSARY
    found = [
        (order.index(cell) - (order.index(markdown.id) if own else 0), text, cell)
        for markdown in nbformat.read(path, as_version=4).cells
        if markdown.cell_type == "markdown"
        for text, cell in re.findall(
            rf"\[([^\]]+)\]\({'' if own else 'glossary.ipynb'}#cell-id=([^)\s]+)\)", markdown.source
        )
    ]
    _, text, cell = max(found)
    source = next(term.source for term in nbformat.read(pages.GLOSSARY, as_version=4).cells if term.id == cell)
    return text.strip("*`"), source.split("\n", 1)[0].removeprefix("### ")


@pytest.mark.slow
def test_a_term_link_opens_jupyterlab_at_the_term(tmp_path):
    """A link by cell id scrolls JupyterLab to the term, from another notebook and from the glossary's own top (a
    link by heading id from notebook 00 leaves the glossary at its top: Lab finds a heading only in cells it has
    rendered). Screenshots are kept in tmp_path."""
    from lab import jupyterlab
    from layout import chromium_page
    from playwright.sync_api import expect

    expect.set_options(timeout=30_000)
    with jupyterlab(tmp_path, ["00-overview.ipynb", "glossary.ipynb"]) as (_, url), chromium_page() as page:
        for number, path in enumerate([paths.NOTEBOOKS / "00-overview.ipynb", pages.GLOSSARY]):
            text, title = _farthest_link(path)
            # a workspace of its own, reset: the glossary is not already open, or scrolled, when the link is clicked
            page.goto(url.replace("/lab/tree/00-overview.ipynb?", f"/lab/workspaces/w{number}/tree/{path.name}?reset&"))
            panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
            link = panel.locator(".jp-MarkdownOutput a").filter(has_text=re.compile(rf"^{re.escape(text)}$")).first
            link.wait_for()
            page.wait_for_timeout(2000)  # the notebook's cells settle before the click, as a reader's would
            heading = panel.locator(".jp-MarkdownOutput h3").filter(has_text=re.compile(rf"^{re.escape(title)}\W*$"))
            if path == pages.GLOSSARY:
                link.scroll_into_view_if_needed()  # as the click does
                expect(heading).not_to_be_in_viewport()
            link.click()
            expect(page).to_have_url(re.compile("/glossary.ipynb"))
            expect(heading).to_be_in_viewport(ratio=1)
            page.screenshot(path=str(tmp_path / f"{path.stem}-link-to-{title.replace(' ', '-')}.png"))
