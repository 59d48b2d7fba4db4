"""Notebooks in git are clean, parameterised the same way, and thin; executing them is tests/test_report.py's job."""

from __future__ import annotations

import ast
import importlib

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

import probe_lib as pl
from probe_lib.claims import ledger
from probe_lib.report import build as report

NOTEBOOKS = report.notebooks()
PARAMETERS = {"mastra_version": "str", "measurements": "str"}


def test_there_is_an_overview_and_one_notebook_per_ledger_entry():
    stems = {path.stem for path in NOTEBOOKS}
    assert "00-overview" in stems
    named = {claim.notebook for claim in ledger.load_claims()}
    assert named <= stems, f"claims name notebooks that do not exist: {sorted(named - stems)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    dirty = [
        n
        for n, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count)
    ]
    assert not dirty, f"cells {dirty} carry outputs or execution counts: strip them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_has_one_typed_commented_parameters_cell(path):
    notebook = nbformat.read(path, as_version=4)
    tagged = [cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged 'parameters'"
    source = tagged[0].source
    annotations = {
        node.target.id: ast.unparse(node.annotation)
        for node in ast.parse(source).body
        if isinstance(node, ast.AnnAssign)
    }
    assert annotations == PARAMETERS, f"parameters must be {PARAMETERS}, typed"
    assert all("#" in line for line in source.splitlines() if line.strip()), "each parameter carries a comment"


#: What a notebook may not define: helpers belong in probe_lib, explained once there and imported.
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def shown(source: str) -> list[int]:
    """The lines of a cell whose value Jupyter shows: each ``display(...)`` call, and the last statement when it is
    a bare expression other than a ``print`` or an ``assert...`` call (narration and checks show no table)."""
    body = ast.parse(TransformerManager().transform_cell(source)).body  # %magics become calls
    lines = []
    for node in body:
        if not isinstance(node, ast.Expr):
            continue
        call = node.value.func if isinstance(node.value, ast.Call) else None
        name = getattr(call, "id", None) or getattr(call, "attr", "")
        if name == "display" or (node is body[-1] and name != "print" and not name.startswith("assert")):
            lines.append(node.lineno)
    return lines


def test_one_step_is_one_result_shown():
    """The rule below fails a cell that shows two results, and passes narration, checks and one view."""
    assert shown('frame = ev.frame()\nprint("measured")\nframe[frame["on_wire"]]') == [3]
    assert shown("table = ledger.verdicts(ev, notebook='06')\nledger.assert_claims(table)") == []
    assert shown("display(a)\nb") == [1, 2]
    assert shown("%matplotlib inline\nfigure") == [2]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_takes_one_step_per_cell(path):
    """Logic lives in probe_lib (no function or class definitions and no lambdas in a notebook), and each cell takes
    one step: the pandas that makes one view, then that view (at most one result shown, so a learner reads each
    table or chart beside the lines that made it)."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse(TransformerManager().transform_cell(cell.source))  # %magics become calls
        defined = [node for node in ast.walk(tree) if isinstance(node, DEFINITIONS)]
        assert not defined, f"define functions in probe_lib, not in a notebook: {cell.source[:80]}"
        assert len(shown(cell.source)) <= 1, (
            f"one step per cell: this one shows {shown(cell.source)}: {cell.source[:80]}"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_a_notebook_imports_the_kit_once_as_pl(path):
    """A notebook's one import of the kit is ``import probe_lib as pl``; every module it uses is ``pl.<name>``."""
    notebook = nbformat.read(path, as_version=4)
    trees = [
        ast.parse(TransformerManager().transform_cell(cell.source))
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]
    kit = [
        ast.unparse(node)
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        and any(alias.name.split(".")[0] == "probe_lib" for alias in node.names)
        or isinstance(node, ast.ImportFrom)
        and (node.module or "").split(".")[0] == "probe_lib"
    ]
    assert kit in ([], ["import probe_lib as pl"]), kit


def test_one_import_reaches_every_module_a_notebook_uses():
    """``import probe_lib as pl``: each name of ``pl.FOR_NOTEBOOKS`` is its module; any other name is an error."""
    for name, module in pl.FOR_NOTEBOOKS.items():
        assert getattr(pl, name) is importlib.import_module(module)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        pl.nothing_here  # noqa: B018


def test_notebook_12_counts_the_probes_that_force_a_tool_as_the_matrix_has_them():
    """Notebook 12's opening types how many of the matrix's probes also run forcing a tool: held to ``PROBES``."""
    from probe_lib.measure.matrix_runs import PROBES

    notebook = nbformat.read(pl.paths.NOTEBOOKS / "12-framework-matrix.ipynb", as_version=4)
    forcing = sum(probe.forced is not None for probe in PROBES)
    assert f"in {forcing} of the {len(PROBES)}, once forcing a key" in notebook.cells[0].source
