"""The behaviour timeline: one row per scenario, one narrow column per version, a colour per kind of behaviour.

:func:`probe_lib.present.charts.category_grid` writes each cell's text and suits a handful of versions; a sweep has
well over a hundred, so this chart draws small unlabelled cells, a black bar at every change point and a red frame
round the reader's own version. Built on ``matplotlib.figure.Figure`` (no pyplot), like the other charts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from probe_lib.present.charts import Chart

_CELL_W, _CELL_H = 0.13, 0.24  # inches
_MIN_CELLS_W = 6.0  # inches: the cells of a short history, beside its labels and the legend


#: The colour of a prerelease's version label and of its mark above the cells.
PRERELEASE_COLOUR = "#7b3fa0"


def timeline(
    grid: pd.DataFrame,
    colours: Mapping[str, str],
    title: str,
    changes: pd.DataFrame,
    highlight: str | None = None,
    prereleases: Collection[str] = (),
) -> Figure:
    """``grid`` (scenarios by versions, one category per cell) as coloured cells, and a black bar before the
    version of each of ``changes`` (``scenario`` and ``after`` columns, as ``analysis.timeline.change_points``
    gives them): a behaviour can change within one colour's kind, so the bars come from the changes themselves.
    Each of ``prereleases`` among the columns has its label in :data:`PRERELEASE_COLOUR`, italic, and a mark of that
    colour above its column.

    The cells are one image and the separators two line collections: a sweep has thousands of cells, and one
    patch per cell took seconds to draw."""
    rows, columns = grid.shape
    # The cells get room of their own beside the labels and the legend, however few releases there are.
    fig, ax = Chart.of_size(3.2 + max(_CELL_W * columns, _MIN_CELLS_W), 1.8 + _CELL_H * rows)
    values = grid.to_numpy()
    cells = np.array(
        [
            [to_rgba(colours.get(category, "white") if isinstance(category, str) else "white") for category in row]
            for row in values
        ]
    ).reshape(rows, columns, 4)
    # As bytes, not floats: matplotlib resamples the image to the figure's pixels, and converts floats afterwards.
    cells = np.round(cells * 255).astype(np.uint8)
    ax.imshow(cells, extent=(0, columns, rows, 0), aspect="auto", interpolation="nearest")
    ax.vlines(range(1, columns), 0, rows, colors="white", linewidth=0.3)
    ax.hlines(range(1, rows), 0, columns, colors="white", linewidth=0.3)
    ax.add_collection(LineCollection(change_bars(grid, changes), colors="black", linewidths=1.6))
    if highlight in grid.columns:
        at = list(grid.columns).index(highlight)
        ax.add_patch(Rectangle((at, 0), 1, rows, fill=False, edgecolor="red", linewidth=1.5))
    ax.set(xlim=(0, columns), ylim=(rows, 0))
    ax.set_xticks([c + 0.5 for c in range(columns)], list(grid.columns), rotation=90, fontsize=6)
    marked = [c for c, version in enumerate(grid.columns) if version in prereleases]
    for c in marked:
        label = ax.get_xticklabels()[c]
        label.set_color(PRERELEASE_COLOUR)
        label.set_fontstyle("italic")
    if marked:
        ax.scatter(
            [c + 0.5 for c in marked],
            [-0.35] * len(marked),
            marker="v",
            s=12,
            color=PRERELEASE_COLOUR,
            clip_on=False,
            label=None,
        )
    ax.set_yticks([r + 0.5 for r in range(rows)], list(grid.index), fontsize=8)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    present = {c for c in grid.to_numpy().ravel() if isinstance(c, str)}
    handles = [Patch(facecolor=colour, label=name) for name, colour in colours.items() if name in present]
    if any(not isinstance(c, str) for c in grid.to_numpy().ravel()):
        handles.append(Patch(facecolor="white", edgecolor="#999999", label="white: not measured on this version"))
    handles.append(Patch(facecolor="black", label="black bar: the behaviour changed here"))
    if marked:
        handles.append(Patch(facecolor=PRERELEASE_COLOUR, label="prerelease (purple italic label, mark above)"))
    if highlight in grid.columns:
        handles.append(Patch(facecolor="white", edgecolor="red", label=f"your version ({highlight})"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title, loc="left", pad=14 if marked else 6)  # above the prereleases' marks
    return fig


def change_bars(grid: pd.DataFrame, changes: pd.DataFrame) -> list[list[tuple[int, int]]]:
    """One vertical segment per change point, on its scenario's row, at the left edge of its ``after`` version."""
    row_of = {scenario: row for row, scenario in enumerate(grid.index)}
    column_of = {version: column for column, version in enumerate(grid.columns)}
    return [
        [(column_of[change.after], row_of[change.scenario]), (column_of[change.after], row_of[change.scenario] + 1)]
        for change in changes.itertuples()
        if change.scenario in row_of and change.after in column_of
    ]
