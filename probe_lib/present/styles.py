"""Tables of verdicts for reading: every status beside the statement it judges, coloured as the charts colour it.

Styled tables (pandas ``Styler``) show long text whole, where a plain DataFrame cuts statements at 50 characters.
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


def ledger(table: pd.DataFrame) -> Styler:
    """Each claim's statement and notebook, then its status on every version (a ``ledger.ledger`` table)."""
    overview = statuses_with_statements(table)
    versions = [column for column in overview.columns if column not in ("statement", "notebook")]
    return overview.style.map(_status_css, subset=versions).set_table_styles(_LEFT)


def verdicts(table: pd.DataFrame) -> Styler:
    """A notebook's verdicts (``ledger.verdicts``): claim, statement, status and evidence, whole."""
    return table.style.map(_status_css, subset=["status"]).hide(axis="index").set_table_styles(_LEFT)
