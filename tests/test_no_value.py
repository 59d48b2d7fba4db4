"""A table a notebook displays shows a dash where a value is missing, in a real IPython shell, whatever the dtype,
and is otherwise pandas' own rendering."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from probe_lib.present import no_value

MISSING = re.compile(r"\bNaN\b|\bnan\b|\bNone\b|&lt;NA&gt;|\bNaT\b")


@pytest.fixture
def shell():
    """A real IPython shell with the kit's display installed; pandas' options as they were afterwards."""
    shell = InteractiveShell.instance()
    formatter = shell.display_formatter.formatters["text/html"]
    with pd.option_context("styler.format.na_rep", None, "styler.format.escape", None):
        no_value.show_in_notebook()
        yield shell
    formatter.pop(pd.DataFrame, None)
    InteractiveShell.clear_instance()


def _cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", html)


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "float": [float("nan"), 1.5],
            "object": pd.Series([None, {"a": 1}], dtype=object),
            "nullable": pd.array([pd.NA, 2], dtype="Int64"),
            "text": pd.array([pd.NA, "y"], dtype="string"),
            "time": [pd.NaT, pd.Timestamp("2026-12-03")],
        }
    )


def test_pandas_alone_shows_every_kind_of_missing_value_by_its_type():
    assert MISSING.search(_frame()._repr_html_()), "nothing to fix: the test below could not fail"


def test_a_displayed_frame_dashes_every_missing_value_and_keeps_the_others(shell):
    frame = _frame().assign(float=[float("nan"), 1 / 3])
    html = shell.display_formatter.format(frame)[0]["text/html"]
    assert not MISSING.search(html)
    assert _cells(html) == [no_value.NO_VALUE] * 5 + _cells(frame._repr_html_())[5:]
    assert _cells(html)[5:] == ["0.333333", "{'a': 1}", "2", "y", "2026-12-03"]


def test_a_styled_table_dashes_missing_values_too(shell):
    html = shell.display_formatter.format(_frame().style)[0]["text/html"]
    assert not MISSING.search(html) and html.count(no_value.NO_VALUE) == 5


def test_a_frame_with_nothing_missing_is_pandas_own_rendering(shell):
    frame = pd.DataFrame({"key": ["search.web", "ok"], "moved_by": [1, 0]})
    assert shell.display_formatter.format(frame)[0]["text/html"] == frame._repr_html_()


def test_a_long_frame_is_cut_as_pandas_cuts_it(shell):
    frame = pd.DataFrame({"key": [f"k{i}" for i in range(100)], "error": [None] * 100})
    with pd.option_context("display.max_rows", 60, "display.min_rows", 10):
        html = shell.display_formatter.format(frame)[0]["text/html"]
    assert len(_cells(html)) == 2 * 10 + 2 and "100 rows × 2 columns" in html


def test_outside_a_kernel_nothing_is_installed():
    InteractiveShell.clear_instance()
    with pd.option_context("styler.format.na_rep", None, "styler.format.escape", None):
        no_value.show_in_notebook()
        assert pd.get_option("styler.format.na_rep") is None


#: A key that is markup, and whose rewrite collides with another's, so Mastra's error quotes it too.
HOSTILE = "</script><img src=x onerror=alert(1)>"


@pytest.mark.slow
def test_a_hostile_key_and_the_error_quoting_it_show_as_text_in_a_notebook_s_tables(shell, tmp_path):
    """End to end: a scenario file, measured live on the real package, its tidy frame shown as a notebook shows it,
    plain and styled."""
    from probe_lib.core.target import baseline
    from probe_lib.tables.api import study

    scenarios = tmp_path / "hostile.json"
    hostile = [{"name": "key", "tools": [HOSTILE]}, {"name": "error", "tools": [HOSTILE + ".", HOSTILE + "_"]}]
    scenarios.write_text(json.dumps({"scenarios": hostile}), encoding="utf-8")
    frame = study(scenarios, [f"mastra@{baseline('mastra').version}"]).frame
    assert frame.astype(str).apply(lambda column: column.str.contains(HOSTILE, regex=False)).to_numpy().sum() >= 3
    for shown in (frame, frame.style):
        html = shell.display_formatter.format(shown)[0]["text/html"]
        assert "<img" not in html and "</script>" not in html
        assert "&lt;img src=x onerror=alert(1)&gt;" in html
