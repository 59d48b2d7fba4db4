"""What a reader sees where a table has no value: a dash, never pandas' NaN, None, <NA> or NaT.

pandas writes a missing value by its type (NaN in a float column, None in an object one, <NA> in a nullable one),
which tells a reader nothing. Importing :mod:`probe_lib.present` in a notebook's kernel calls
:func:`show_in_notebook`, so every DataFrame and styled table a notebook displays, in JupyterLab as in the report,
shows :data:`NO_VALUE` instead; the report's own tables are written by :func:`frame_html`.
"""

from __future__ import annotations

import sys

import pandas as pd

#: What a table cell shows for "no value".
NO_VALUE = "—"


def _dashed_by_na_rep(column: pd.Series) -> bool:
    """pandas writes ``na_rep`` for a missing float or time, but not for None or <NA>."""
    types = pd.api.types
    return types.is_float_dtype(column) or types.is_datetime64_any_dtype(column) or types.is_timedelta64_dtype(column)


def dashed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each missing value written :data:`NO_VALUE`, where ``na_rep`` would not write it. A float or
    time column keeps its dtype, so its values print as pandas prints them, and is dashed by ``na_rep``
    (:func:`frame_html`)."""
    shown = frame.copy()
    for position, (_, column) in enumerate(frame.items()):
        missing = column.isna()
        if missing.any() and not _dashed_by_na_rep(column):
            shown.isetitem(position, column.astype(object).where(~missing, NO_VALUE))
    return shown


def frame_html(frame: pd.DataFrame, **to_html) -> str:
    """``frame.to_html(**to_html)`` with every missing value shown as :data:`NO_VALUE`."""
    return dashed(frame).to_html(na_rep=NO_VALUE, **to_html)


def notebook_html(frame: pd.DataFrame) -> str | None:
    """The HTML a notebook shows for ``frame``: pandas' own, or, when a value is missing, the same table under the
    same display options with each missing value dashed."""
    if not frame.isna().to_numpy().any():
        return frame._repr_html_()
    rows, max_rows = len(frame), pd.get_option("display.max_rows")
    return frame_html(
        frame,
        notebook=True,
        max_rows=pd.get_option("display.min_rows") if max_rows is not None and rows > max_rows else max_rows,
        max_cols=pd.get_option("display.max_columns"),
        show_dimensions=pd.get_option("display.show_dimensions"),
        float_format=pd.get_option("display.float_format"),
        bold_rows=True,
    )


def show_in_notebook() -> None:
    """In a running IPython kernel, show every DataFrame and styled table with missing values dashed and their text
    escaped; elsewhere (the CLI, the tests) do nothing."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, notebook_html)
    pd.set_option("styler.format.na_rep", NO_VALUE)
    # A styled table writes its cells into HTML as they are unless told to escape them (a DataFrame's own HTML
    # escapes): a measured key or error text such as "<img src=x onerror=...>" must show as text.
    pd.set_option("styler.format.escape", "html")
