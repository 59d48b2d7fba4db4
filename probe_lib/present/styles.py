"""Tables of verdicts for reading: every status beside the statement it judges, coloured as the charts colour it.

Styled tables (pandas ``Styler``) show long text whole, where a plain DataFrame cuts statements at 50 characters.
Every text in them is escaped (:func:`escaped`): statements, keys and error texts hold ``<version>`` or a user's own
key, which a browser would otherwise read as HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from probe_lib.claims.ledger import statuses_with_statements
from probe_lib.present.charts import STATUS_COLOURS

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

_LEFT = [{"selector": "td", "props": "text-align: left; vertical-align: top"}]


def _status_css(status: object) -> str:
    colour = STATUS_COLOURS.get(str(status))
    return f"background-color: {colour}" if colour else ""


def escaped(styled: Styler, na_rep: str | None = None) -> Styler:
    """``styled`` with every cell and header shown as text, not read as HTML (pandas' ``Styler`` does not escape),
    a missing value as ``na_rep`` (by default as pandas' option says, which a notebook's kernel sets to a dash)."""
    na_rep = pd.get_option("styler.format.na_rep") if na_rep is None else na_rep
    return (
        styled.format(na_rep=na_rep, escape="html")
        .format_index(escape="html", axis=0)
        .format_index(escape="html", axis=1)
    )


def ledger(table: pd.DataFrame) -> Styler:
    """Each claim's statement and notebook, then its status on every version (a ``ledger.ledger`` table)."""
    overview = statuses_with_statements(table)
    versions = [column for column in overview.columns if column not in ("statement", "notebook")]
    return escaped(overview.style).map(_status_css, subset=versions).set_table_styles(_LEFT)


def verdicts(table: pd.DataFrame) -> Styler:
    """A notebook's verdicts (``ledger.verdicts``): claim, statement, status and evidence, whole."""
    return escaped(table.style).map(_status_css, subset=["status"]).hide(axis="index").set_table_styles(_LEFT)
