"""The behaviour timeline: one row per scenario, one narrow column per version, a colour per outcome.

:func:`probe_lib.present.charts.category_grid` writes each cell's text and suits a handful of versions; a sweep has
well over a hundred, so this chart draws small unlabelled cells, a black bar at every change point and a red frame
round the reader's own version. Built on ``matplotlib.figure.Figure`` (no pyplot), like the other charts.
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

_CELL_W, _CELL_H = 0.13, 0.24  # inches


def timeline(grid: pd.DataFrame, colours: Mapping[str, str], title: str, highlight: str | None = None) -> Figure:
    """``grid`` (scenarios by versions, one category per cell) as coloured cells; changes between columns in black."""
    rows, columns = grid.shape
    fig = Figure(figsize=(3.2 + _CELL_W * columns, 1.8 + _CELL_H * rows), layout="constrained")
    ax = fig.add_subplot()
    for row in range(rows):
        for column in range(columns):
            category = grid.iat[row, column]
            colour = colours.get(category, "white") if isinstance(category, str) else "white"
            ax.add_patch(Rectangle((column, row), 1, 1, facecolor=colour, edgecolor="white", linewidth=0.3))
            if column and category != grid.iat[row, column - 1]:
                ax.plot([column, column], [row, row + 1], color="black", linewidth=1.6)
    if highlight in grid.columns:
        at = list(grid.columns).index(highlight)
        ax.add_patch(Rectangle((at, 0), 1, rows, fill=False, edgecolor="red", linewidth=1.5))
    ax.set_xlim(0, columns)
    ax.set_ylim(rows, 0)
    ax.set_xticks([c + 0.5 for c in range(columns)], list(grid.columns), rotation=90, fontsize=6)
    ax.set_yticks([r + 0.5 for r in range(rows)], list(grid.index), fontsize=8)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    present = {c for c in grid.to_numpy().ravel() if isinstance(c, str)}
    handles = [Patch(facecolor=colour, label=name) for name, colour in colours.items() if name in present]
    handles.append(Patch(facecolor="black", label="change point"))
    if highlight in grid.columns:
        handles.append(Patch(facecolor="white", edgecolor="red", label=f"your version ({highlight})"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title, loc="left")
    return fig
