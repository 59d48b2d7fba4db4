"""The exercises' solutions, kept apart from the notebooks, and a way to fill them in.

A teacher (or the test suite) gets a solved copy of a notebook with :func:`fill`: every exercise cell's
``answer = None`` line becomes this module's solution for the exercise that cell checks. The notebooks in git
always hold the placeholder.
"""

from __future__ import annotations

import ast
import copy

import nbformat

from probe_lib.frameworks.mastra import remedy
from probe_lib.teach import exercises

#: One right answer per exercise (each is checked live in the solved live report: tests/test_report.py).
SOLUTIONS: dict[str, object] = {
    "name_the_model_sees": "orders",
    "key_for_the_id": "get-weather",
    "predict_wire_names": {
        "my.tool": "my_tool",
        "3d-view": "_3d-view",
        "café": "caf_",
        "rocket🚀": "rocket__",
        "ok": "ok",
    },
    "key_mastra_cuts": "a" * 64,
    "predict_wire_order": ["b", "a", "_2", "_10", "x_y"],
    "colliding_key": "search web",
    "fix_tool_choice": "search_web",
    "names_that_run": ["search_web", "get-weather"],
    "first_version_honouring_active_tools": "1.67.0",
    "safe_names": remedy.safe_tool_names(exercises.SAFE_NAME_KEYS),
    "mcp_server_mastra_cuts": "azure Azure/azure-mcp",
}

#: The line an exercise cell holds until it is answered.
PLACEHOLDER = "answer = None"


def exercise_of(source: str) -> str | None:
    """The exercise a code cell checks (``exercises.<name>(answer, ...)``, or ``pl.exercises.<name>(...)`` through
    ``import probe_lib as pl``), or ``None`` for any other cell."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with %magics is never an exercise cell
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in exercises.EXERCISES
            and "exercises" in (getattr(node.func.value, "id", None), getattr(node.func.value, "attr", None))
        ):
            return node.func.attr
    return None


def fill(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` whose exercise cells answer with :data:`SOLUTIONS` instead of the placeholder."""
    solved = copy.deepcopy(notebook)
    for cell in solved.cells:
        name = exercise_of(cell.source) if cell.cell_type == "code" else None
        if name is None:
            continue
        lines = cell.source.splitlines()
        at = next(n for n, line in enumerate(lines) if line.startswith(PLACEHOLDER))
        lines[at] = f"from probe_lib.teach.solutions import SOLUTIONS; answer = SOLUTIONS[{name!r}]"
        cell.source = "\n".join(lines)
    return solved
