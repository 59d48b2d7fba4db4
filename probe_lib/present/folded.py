"""A long table as a reader can take it in: a summary in view, every row one click away.

A table of hundreds of rows (every swept version's change points) buries the page it stands on. :func:`folded`
shows one row per group (the releases where a behaviour changed, with how many rows changed there and which) and the
whole table in a collapsible block below it, in a scroll box of its own: a plain HTML ``<details>``, so JupyterLab
and the report show it alike, and no row is cut.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
from IPython.display import HTML

from probe_lib.core.target import release_key
from probe_lib.present.no_value import NO_VALUE, dashed
from probe_lib.present.styles import escaped

#: The full table's box: about a screen tall, scrolled within, so the page goes on below it.
_SCROLL_BOX = "max-height: 40em; overflow: auto"
_LEFT = [{"selector": "td, th", "props": "text-align: left; vertical-align: top"}]


def summary(
    frame: pd.DataFrame, by: Sequence[str], listing: str, rows: str, within: Sequence[str] = ()
) -> pd.DataFrame:
    """One row per group of ``frame`` by the ``by`` columns, the last of which is a release (groups in release
    order, within each value of the ``within`` columns, a framework's name): how many rows it has (column
    ``rows``) and the distinct values of ``listing`` in them (column ``listing`` + ``s``): listed in their order,
    or, when they are most of those in ``frame``, named by the ones left out (``all 47 in this table but toolsets``)."""
    every = list(dict.fromkeys(frame[listing]))
    groups = frame.groupby(list(by), sort=False)[listing]
    table = groups.agg(**{rows: "size", f"{listing}s": lambda values: _named(list(dict.fromkeys(values)), every)})
    table = table.reset_index()
    order = sorted(table.index, key=lambda i: (*table.loc[i, list(within)], release_key(table.loc[i, by[-1]])))
    return table.loc[order].reset_index(drop=True)


def _named(values: list[str], every: list[str]) -> str:
    """``values`` as a reader takes them in: listed, or, when they are most of ``every`` (all that appear in the
    table), by the few left out."""
    if len(values) <= len(every) // 2:
        return ", ".join(values)
    left_out = [value for value in every if value not in values]
    return f"all {len(every)} in this table" + (f" but {', '.join(left_out)}" if left_out else "")


def _html(frame: pd.DataFrame) -> str:
    """Every row and each text whole, wrapped and read from the left (a styled table: JupyterLab right-aligns
    a plain one's cells, and pandas cuts its texts at 50 characters), a missing value as a dash, every text
    escaped."""
    return escaped(dashed(frame).style, NO_VALUE).hide(axis="index").set_table_styles(_LEFT).to_html()


def folded(frame: pd.DataFrame, *, by: Sequence[str], listing: str, rows: str, within: Sequence[str] = ()) -> HTML:
    """``frame`` shown as its :func:`summary`, then whole in a collapsible block saying how many ``rows`` (a
    plural noun: ``"change points"``) it holds. Neither is cut at pandas' display limits."""
    shown, whole = _html(summary(frame, by, listing, rows, within)), _html(frame)
    return HTML(
        f"{shown}<details><summary>All {len(frame)} {html.escape(rows)}, one per row</summary>"
        f'<div style="{_SCROLL_BOX}">{whole}</div></details>'
    )
