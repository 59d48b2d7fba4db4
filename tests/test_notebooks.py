"""Notebooks in git are clean, parameterised the same way, and thin; executing them is tests/test_report.py's job."""

from __future__ import annotations

import ast
import re

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

from probe_lib.claims import ledger
from probe_lib.claims.verdict import MASTRA
from probe_lib.report import build as report

NOTEBOOKS = report.notebooks()
#: Mastra's claims, each judged by name in its notebook (``ledger.verdicts(ev, [...])``).
CHECKED_HERE = {claim.id for claim in ledger.claims_of(MASTRA)}
PARAMETERS = {"mastra_version": "str", "measurements": "str"}


def test_there_is_an_overview_and_one_notebook_per_ledger_entry():
    stems = {path.stem for path in NOTEBOOKS}
    assert "00-overview" in stems
    named = {claim.notebook for claim in ledger.load_claims()}
    assert named <= stems, f"claims name notebooks that do not exist: {sorted(named - stems)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_judges_exactly_the_claims_the_ledger_files_under_it(path):
    filed = sorted(claim.id for claim in ledger.claims_of(MASTRA) if claim.notebook == path.stem)
    source = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code")
    judged = sorted(re.findall(r'"([AFV]\d\d)"', "".join(re.findall(r"ledger\.verdicts\(\w+, \[([^\]]*)\]", source))))
    assert judged == filed, f"{path.stem} judges {judged}; data/claims.csv files {filed} under it"
    others = [
        claim.id for claim in ledger.load_claims() if claim.notebook == path.stem and claim.id not in CHECKED_HERE
    ]
    on_matrix = [claim_id for claim_id in others if claim_id not in ledger.FRAMEWORK_RANGE_CHECKS]
    if on_matrix:  # the other frameworks' claims are judged all together, on the matrix the notebook reads
        assert "ledger.framework_ledger(outcomes, measurements)" in source, f"{path.stem} does not judge {on_matrix}"
    if len(on_matrix) < len(others):  # their since-when claims, on their committed timelines
        assert "ledger.framework_range_ledger(framework_ranges.timelines())" in source, (
            f"{path.stem} does not judge them"
        )


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


#: The most lines of code a cell may have (the parameters cell excepted; imports, magics and blank lines do not
#: count): one step, shown right away.
MAX_CELL_LINES = 8
#: What a notebook may not define: helpers belong in probe_lib, explained once there and imported.
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_is_thin(path):
    """Logic lives in probe_lib (the tables several notebooks share in probe_lib.analysis.measured; a view of a few
    lines of pandas in the cell that shows it): no function or class definitions and no lambdas, and short cells."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse(TransformerManager().transform_cell(cell.source))  # %magics become calls
        defined = [node for node in ast.walk(tree) if isinstance(node, DEFINITIONS)]
        assert not defined, f"define functions in probe_lib, not in a notebook: {cell.source[:80]}"
        if "parameters" in cell.metadata.get("tags", []):
            continue
        steps = [
            line for line in cell.source.splitlines() if line.strip() and not line.startswith(("import ", "from ", "%"))
        ]
        assert len(steps) <= MAX_CELL_LINES, f"cell too long for a thin notebook: {cell.source[:80]}"
