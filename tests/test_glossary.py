"""The glossary: every link to it from every notebook lands on a term, as nbconvert renders the glossary; the
terms a learner is known to stumble on are there and linked; links between notebooks name existing notebooks."""

from __future__ import annotations

import re
from functools import cache

import nbformat
import pytest
from nbconvert import HTMLExporter

from probe_lib.core import paths
from probe_lib.present import report

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
def anchors() -> frozenset[str]:
    """Element ids of the glossary as nbconvert renders it (heading ids are what JupyterLab generates too)."""
    body, _ = HTMLExporter(template_name="basic").from_notebook_node(nbformat.read(report.GLOSSARY, as_version=4))
    return frozenset(re.findall(r' id="([^"]+)"', body))


def links(path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    return [target for cell in notebook.cells if cell.cell_type == "markdown" for target in _LINK.findall(cell.source)]


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_every_glossary_link_lands_on_a_term(path):
    own = "#" if path == report.GLOSSARY else "glossary.ipynb#"  # the glossary links its own terms in-page
    targets = [target.split("#", 1)[1] for target in links(path) if target.startswith(own)]
    missing = sorted(set(targets) - anchors())
    assert not missing, f"{path.name} links glossary terms that do not exist: {missing}"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_links_between_notebooks_name_existing_notebooks(path):
    named = {target.split("#", 1)[0] for target in links(path) if re.match(r"[^:#]+\.ipynb", target)}
    missing = sorted(name for name in named if not (paths.NOTEBOOKS / name).exists())
    assert not missing, f"{path.name} links notebooks that do not exist: {missing}"


def test_the_terms_learners_stumbled_on_are_defined_and_linked():
    assert set(MUST_DEFINE) <= anchors()
    linked = {
        target.split("#", 1)[1]
        for path in report.notebooks()
        for target in links(path)
        if target.startswith("glossary.ipynb#")
    }
    assert set(MUST_DEFINE) <= linked, f"never linked from a notebook: {sorted(set(MUST_DEFINE) - linked)}"


def test_the_report_renders_the_glossary_with_prefixed_ids_and_in_page_links():
    from nbconvert import HTMLExporter

    section = report.render_glossary(HTMLExporter(template_name="basic"))
    assert 'id="glossary"' in section and f'id="{report.GLOSSARY_PREFIX}toolChoice"' in section
    assert f'href="#{report.GLOSSARY_PREFIX}Legal-name"' in section, "the glossary's own links follow its ids"
    page = report.in_page_links('<a href="glossary.ipynb#toolChoice">x</a> <a href="06-toolchoice-break.ipynb">y</a>')
    assert page == f'<a href="#{report.GLOSSARY_PREFIX}toolChoice">x</a> <a href="#06-toolchoice-break">y</a>'
