"""Text from data is shown as text wherever the kit renders it to HTML: a hostile key or error text (an ``<img
onerror>``, a ``</script>``, the ledger's own ``<version>``) reaches the page as the characters it is, makes no element
and is not swallowed. And each notebook's styled tables keep ids of their own, so a page showing two notebooks never
lets one's CSS rules paint the other's cells."""

from __future__ import annotations

import nbformat
import pandas as pd
import pytest
from bs4 import BeautifulSoup
from IPython.core.interactiveshell import InteractiveShell

from probe_lib.measure.provenance import Provenance
from probe_lib.present import execution, explorer, explorer_html, no_value, styles
from probe_lib.present.folded import folded
from probe_lib.report import build, pages

HOSTILE = ("<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>", "<version>")


def shown_as_text(page: str) -> BeautifulSoup:
    """``page`` parsed as a browser would; fails when a hostile text made an element or left the page's text."""
    soup = BeautifulSoup(page, "html.parser")
    assert soup.find("img") is None and soup.find("script") is None and soup.find("version") is None, page[:500]
    for text in HOSTILE:
        assert text in soup.get_text(), f"{text!r} was swallowed"
    return soup


def _verdicts() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "claim": ["X1", "X2", "X3"],
            "statement": [f"a key {text} goes out" for text in HOSTILE],
            "status": ["confirmed", "refuted", "not testable"],
            "evidence": list(HOSTILE),
        }
    )


def test_a_notebooks_verdict_table_shows_hostile_text_as_text_and_keeps_its_colours():
    soup = shown_as_text(styles.verdicts(_verdicts()).to_html())
    assert "background-color" in str(soup.style), "the status cells are still coloured"


def test_the_ledger_table_shows_hostile_statements_and_versions_as_text():
    table = pd.DataFrame(
        {
            "claim": ["X1", "X2", "X3"],
            "statement": list(HOSTILE),
            "notebook": ["05-collisions"] * 3,
            "framework": "mastra",
            "version": list(HOSTILE),  # each a column of the ledger: escaped in the header too
            "status": ["confirmed", "refuted", "confirmed"],
        }
    )
    shown_as_text(styles.ledger(table).to_html())


def test_a_folded_table_shows_hostile_text_as_text_in_its_summary_and_whole():
    frame = pd.DataFrame({"release": ["1.0.0", "1.1.0", "1.2.0"], "key": list(HOSTILE)})
    soup = shown_as_text(folded(frame, by=["release"], listing="key", rows="keys <changed>").data)
    assert soup.details.summary.get_text() == "All 3 keys <changed>, one per row"


def test_a_styled_table_a_notebook_draws_itself_is_escaped_in_its_kernel():
    shell = InteractiveShell.instance()
    try:
        with pd.option_context("styler.format.na_rep", None, "styler.format.escape", None):
            no_value.show_in_notebook()
            drawn = _verdicts().style.hide(axis="index").to_html()
            assert pd.get_option("styler.format.escape") == "html"
    finally:
        shell.display_formatter.formatters["text/html"].pop(pd.DataFrame, None)
        InteractiveShell.clear_instance()
    shown_as_text(drawn)


def test_the_explorer_shows_hostile_keys_as_text():
    shown_as_text(explorer_html.render(explorer.explore(list(HOSTILE)), timed=False))


def test_the_reports_landing_page_and_ledgers_show_hostile_rows_as_text(tmp_path):
    """Hostile text in every column of the ledger, on Mastra's rows and another framework's."""
    rows = []
    for framework, claim in (("mastra", pages.CENTRAL), ("langchain", "X05")):
        for text in HOSTILE:
            rows.append(
                {"claim": claim, "framework": framework, "version": text, "status": "confirmed", "evidence": text}
                | {"statement": text, "notebook": text, "section": text, "origin": "finding", "source": text}
            )
    built = build.Report(tmp_path, Provenance.RECORDED, pd.DataFrame(rows), (), HOSTILE[0], {"1.0.4": HOSTILE[1]})
    shown_as_text(pages.landing_page(built, HOSTILE[2]))


def _executed_with_two_tables(notebook: str) -> nbformat.NotebookNode:
    """A notebook whose one cell drew two styled tables, as pandas draws them (random ``T_<hex>`` ids)."""
    outputs = [
        nbformat.v4.new_output("display_data", {"text/html": styles.verdicts(_verdicts()).to_html()}) for _ in range(2)
    ]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", outputs=outputs)])


def _ids(document: nbformat.NotebookNode) -> set[str]:
    soup = BeautifulSoup(
        "".join(output["data"]["text/html"] for cell in document.cells for output in cell.outputs), "html.parser"
    )
    return {table["id"] for table in soup.find_all("table")}


@pytest.mark.parametrize("other", ["06-toolchoice-break", "12-framework-matrix"])
def test_two_notebooks_tables_never_share_an_id_or_a_css_rule(other):
    first, second = _executed_with_two_tables("05-collisions"), _executed_with_two_tables(other)
    execution._number_styled_tables(first, "05-collisions")
    execution._number_styled_tables(second, other)
    assert _ids(first) == {"T_05-collisions_0", "T_05-collisions_1"}
    assert _ids(second) == {f"T_{other}_0", f"T_{other}_1"}
    for document, name in ((first, "05-collisions"), (second, other)):
        page = document.cells[0].outputs[0]["data"]["text/html"]
        rules = BeautifulSoup(page, "html.parser").style.get_text()
        assert f"#T_{name}_0_row0_col2" in rules, "each cell's rule names its own notebook's table"
        assert "#T_0_" not in rules and f"#T_{name}_1_" not in rules
