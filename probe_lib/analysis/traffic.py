"""Everything a framework's turn sent, beside the request the matrix judges.

The matrix judges the first model request of each turn (``Outcome.requests[0]``). A framework may send more: the
Claude Agent SDK's CLI sends its request again after the capture server's scripted refusal, and asks the kit's
proxy for tunnels to its provider's own host. :func:`per_target` shows all of it, so none goes unseen.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from probe_lib.core.outcome import Outcome


def _other(outcome: Outcome) -> list[str]:
    return [f"{entry['method']} {entry['path']} -> {entry['status']}" for entry in outcome.unrouted]


def per_target(outcomes: Iterable[Outcome]) -> pd.DataFrame:
    """One row per target: its runs that sent anything, the fewest and most model requests one run sent, and every
    distinct request on a route that is not a model call (``method path -> status``)."""
    rows: dict[str, dict] = {}
    for outcome in outcomes:
        if not (outcome.requests or outcome.unrouted):
            continue
        row = rows.setdefault(
            str(outcome.target), {"runs": 0, "fewest requests": None, "most requests": 0, "other traffic": set()}
        )
        count = len(outcome.requests)
        row["runs"] += 1
        row["fewest requests"] = count if row["fewest requests"] is None else min(row["fewest requests"], count)
        row["most requests"] = max(row["most requests"], count)
        row["other traffic"].update(_other(outcome))
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("target")
    table["other traffic"] = table["other traffic"].map(sorted)
    return table
