"""The behaviour timeline: one row per scenario, one narrow column per version, a colour per outcome.

:func:`probe_lib.present.charts.category_grid` writes each cell's text and suits a handful of versions; a sweep has
well over a hundred, so this chart draws small unlabelled cells, a black bar at every change point and a red frame
round the reader's own version. Built on ``matplotlib.figure.Figure`` (no pyplot), like the other charts.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

_CELL_W, _CELL_H = 0.13, 0.24  # inches


def timeline(grid: pd.DataFrame, colours: Mapping[str, str], title: str, highlight: str | None = None) -> Figure:
    """``grid`` (scenarios by versions, one category per cell) as coloured cells; changes between columns in black.

    The cells are one image and the separators two line collections: a sweep has thousands of cells, and one
    patch per cell took seconds to draw."""
    rows, columns = grid.shape
    fig = Figure(figsize=(3.2 + _CELL_W * columns, 1.8 + _CELL_H * rows), layout="constrained")
    ax = fig.add_subplot()
    values = grid.to_numpy()
    cells = np.array(
        [
            [to_rgba(colours.get(category, "white") if isinstance(category, str) else "white") for category in row]
            for row in values
        ]
    ).reshape(rows, columns, 4)
    ax.imshow(cells, extent=(0, columns, rows, 0), aspect="auto", interpolation="nearest")
    ax.vlines(range(1, columns), 0, rows, colors="white", linewidth=0.3)
    ax.hlines(range(1, rows), 0, columns, colors="white", linewidth=0.3)
    changes = [
        [(column, row), (column, row + 1)]
        for row in range(rows)
        for column in range(1, columns)
        if _changed(values[row, column - 1], values[row, column])
    ]
    ax.add_collection(LineCollection(changes, colors="black", linewidths=1.6))
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


def _changed(before: object, after: object) -> bool:
    """A change point between two measured cells: beside an empty cell (a version the sweep summary lacks for this
    scenario, such as one catalogued after the last sweep and measured only on the pins) nothing was measured to
    change."""
    return not (pd.isna(before) or pd.isna(after)) and before != after
