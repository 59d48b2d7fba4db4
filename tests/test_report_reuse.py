"""``reproduce`` re-executes exactly the notebooks whose inputs changed, on real kernels: a notebook kept from the
earlier report is the same bytes a forced execution gives, and a change to each kind of input (a measurement, a
notebook cell, a module of the kit, a package version, the environment lock) re-executes every notebook that read
it and no other. Every test starts from the one recorded report the run shares (``recorded_report``)."""

from __future__ import annotations

import hashlib
import math
import platform
import shutil
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from bs4 import BeautifulSoup

from probe_lib.core import folders, paths
from probe_lib.core.target import baseline
from probe_lib.measure import measurement, sources
from probe_lib.measure.collection import MATRIX
from probe_lib.measure.provenance import Provenance
from probe_lib.present import execution, staleness
from probe_lib.report import build as report
from probe_lib.report import pages

pytestmark = pytest.mark.slow

VERSION = baseline("mastra").version


def entries(folder: Path) -> dict[str, staleness.Entry]:
    return staleness.read(folder)


def never_reused(folder: Path) -> set[str]:
    return {name for name, entry in entries(folder).items() if entry.inputs.never_reused}


def files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def own_scenarios_measured_live(folder: Path) -> bool:
    """Whether notebook 14 of the report in ``folder`` measured its own scenarios live, as its printed line says
    (``12 turns on ...; source: ['live']``): a recorded report may read them from the recordings, starting no Node."""
    executed = nbformat.read(folder / "notebooks" / "14-your-own-question.ipynb", as_version=4)
    printed = [
        output.text
        for cell in executed.cells
        for output in cell.get("outputs", [])
        if "; source: [" in output.get("text", "")
    ]
    assert len(printed) == 1, printed
    said = printed[0].split("; source: ", 1)[1].strip()
    assert said in ("['live']", "['recorded']"), said
    return said == "['live']"


def without_rebuilt_line(page: bytes) -> str:
    """The page without the one paragraph saying which notebooks were reused (the only part that may differ)."""
    soup = BeautifulSoup(page.decode("utf-8"), features="html.parser")
    soup.find(id="rebuilt").decompose()
    return str(soup)


def test_a_rebuild_reuses_every_unchanged_notebook_and_a_forced_execution_gives_the_same_bytes(
    recorded_report, tmp_path
):
    """A rebuild over the recorded report reuses every notebook, and the matrix's notebook executed afresh is the
    same bytes as the one kept; every other notebook is held to that by test_report's forced rebuild without Node
    (where the matrix's Python frameworks are measured live, so notebook 12 may differ)."""
    cached_folder = tmp_path / "cached"
    shutil.copytree(recorded_report, cached_folder)
    assert not never_reused(recorded_report)
    runner_inputs = {name for name in entries(recorded_report)["14-your-own-question.ipynb"].inputs.values}
    started_node = {
        any(name.startswith("entry:node/") for name in runner_inputs),
        "kit:probe_lib/frameworks/mastra/harness/runner.cjs" in runner_inputs,
    }
    assert started_node == {own_scenarios_measured_live(recorded_report)}, (
        "14's inputs name Node and the runner exactly when its own scenarios were measured live"
    )

    cached = report.reproduce(cached_folder, sources.RECORDED)
    matrix = paths.NOTEBOOKS / "12-framework-matrix.ipynb"
    staging = tmp_path / "forced"
    shutil.copytree(recorded_report / "measurements", staging / "measurements")
    (forced,) = report.run_notebooks([matrix], staging, None, version=VERSION)

    assert all(run.reused for run in cached.runs), [run.because for run in cached.runs if not run.reused]
    assert not forced.reused and not forced.error
    kept, earlier = files(cached_folder), files(recorded_report)
    # Every file as the earlier report had it but the landing page (its rebuilt line, below), the manifest and the
    # export's sweep table, which folds in this machine's sweep cache as it is at each build (the suite's sweep tests
    # add to it between the two).
    compared = [
        name
        for name in earlier
        if name not in (pages.INDEX, folders.MANIFEST) and not name.startswith("export/version_sweep.")
    ]
    assert sorted(kept) == sorted(earlier)
    assert not [name for name in compared if kept[name] != earlier[name]]
    assert without_rebuilt_line(kept[pages.INDEX]) == without_rebuilt_line(earlier[pages.INDEX])
    assert (staging / "notebooks" / matrix.name).read_bytes() == kept[f"notebooks/{matrix.name}"], (
        "a kept notebook is not what a forced execution writes"
    )
    page = kept[pages.INDEX].decode("utf-8")
    assert f"{len(report.notebooks())} reused from the earlier report in this folder" in page
    assert f"Built with Python {platform.python_version()}, Node.js v" in page
    assert (
        f"pandas {staleness.version_of('pandas')}" in page and f"papermill {staleness.version_of('papermill')}" in page
    )


def rebuild(earlier: Path, tmp_path: Path, notebooks: list[Path] | None = None) -> dict[str, str | None]:
    """Run the notebooks into a new report beside ``earlier`` (its measurements copied in), reusing what it can;
    returns each notebook's reason for executing, ``None`` for one reused."""
    staging = tmp_path / "staging"
    shutil.copytree(earlier / "measurements", staging / "measurements")
    chosen = notebooks or [path for path in report.notebooks() if path.name not in never_reused(earlier)]
    runs = report.run_notebooks(chosen, staging, earlier, version=VERSION)
    assert not [run.error for run in runs if run.error]
    return {run.notebook: None if run.reused else run.because for run in runs}


def readers_of_each(folder: Path) -> dict[str, set[str]]:
    """Each recorded input's name to the notebooks that read it, those never reused aside."""
    skipped = never_reused(folder)
    found: dict[str, set[str]] = {}
    for notebook, entry in entries(folder).items():
        for name in entry.inputs.values if notebook not in skipped else ():
            found.setdefault(name, set()).add(notebook)
    return found


def readers(folder: Path, name: str) -> set[str]:
    """The notebooks whose recorded inputs include ``name``, those never reused aside."""
    return readers_of_each(folder).get(name, set())


def with_input(folder: Path, tmp_path: Path, name: str, value: str) -> Path:
    """A copy of the report ``folder`` whose record says input ``name`` had ``value`` when its notebooks ran, as
    after a change to it since (an edited module, another package version, another lock)."""
    copy = tmp_path / "earlier"
    shutil.copytree(folder, copy)
    changed = {
        notebook: staleness.Entry(staleness.Inputs({**entry.inputs.values, name: value}, None), entry.executed)
        if name in entry.inputs.values
        else entry
        for notebook, entry in staleness.read(copy).items()
    }
    staleness.write(copy, changed)
    return copy


def least_read(folder: Path, prefix: str) -> str:
    """The input named ``prefix…`` that the fewest notebooks read (the readers of each found in one pass: the record
    holds some 4,500 inputs, and asking for each one's readers apart took 30 s of CPU)."""
    return min((len(read_by), name) for name, read_by in readers_of_each(folder).items() if name.startswith(prefix))[1]


def test_a_measurement_that_differs_re_executes_its_readers_only(recorded_report, tmp_path):
    # Another framework's target: a Mastra pin's files are where the primer and the exercises look its scenarios up.
    other = next(target for target in MATRIX.targets() if target.framework != "mastra")
    relative = f"measurements/matrix/{measurement.file_name(other)}"
    expected = readers(recorded_report, f"report:{relative}")
    assert expected == {"12-framework-matrix.ipynb"}
    staging = tmp_path / "staging"
    shutil.copytree(recorded_report / "measurements", staging / "measurements")
    recording = staging / relative
    recording.write_bytes(recording.read_bytes() + b"\n")  # the same JSON, other bytes: a file that differs
    chosen = [path for path in report.notebooks() if path.name not in never_reused(recorded_report)]
    runs = report.run_notebooks(chosen, staging, recorded_report, version=VERSION)
    executed = {run.notebook: run.because for run in runs if not run.reused}
    assert set(executed) == expected and executed["12-framework-matrix.ipynb"] == f"{relative} changed"


def test_an_edited_notebook_cell_re_executes_that_notebook_only(recorded_report, tmp_path):
    edited = tmp_path / "sources" / "04-ordering-shift.ipynb"
    edited.parent.mkdir()
    notebook = nbformat.read(paths.NOTEBOOKS / edited.name, as_version=4)
    next(cell for cell in notebook.cells if cell.cell_type == "markdown").source += "\n\nA sentence of the teacher's."
    nbformat.write(notebook, edited)
    chosen = [edited if path.name == edited.name else path for path in report.notebooks()]
    chosen = [path for path in chosen if path.name not in never_reused(recorded_report)]
    reasons = rebuild(recorded_report, tmp_path, chosen)
    assert {name: why for name, why in reasons.items() if why} == {edited.name: "its notebook changed"}


# A runner's cache entry (``entry:``) is an input only where a notebook starts Node itself, which a recorded report's
# notebooks do not (test_a_rebuild_reuses... holds that); test_staleness records one from a real runner.
@pytest.mark.parametrize("kind", ["kit:probe_lib/", "package:", "kit:probe_lib/frameworks/mastra/harness/"])
def test_a_changed_module_package_version_or_runner_input_re_executes_its_readers_only(recorded_report, tmp_path, kind):
    name = least_read(recorded_report, kind)
    earlier = with_input(recorded_report, tmp_path, name, "0.0.0" if kind == "package:" else "0" * 64)
    read_by = readers(recorded_report, name)
    others = [path for path in report.notebooks() if path.name not in read_by | never_reused(recorded_report)]
    # Two of its readers, the quickest by this machine's record (each executes; a package is read by every notebook,
    # through the kernel), and one notebook that did not read it, if any.
    seconds = execution.durations()
    quickest = sorted(read_by, key=lambda notebook: (seconds.get(Path(notebook).stem, math.inf), notebook))
    chosen = [paths.NOTEBOOKS / notebook for notebook in quickest[:2]] + others[:1]
    reasons = rebuild(earlier, tmp_path, chosen)
    assert {notebook for notebook, why in reasons.items() if why} == read_by & set(reasons), name
    assert len(reasons) > len(read_by & set(reasons)) or not others
    assert all(name.partition(":")[2] in why for why in reasons.values() if why)


def test_a_changed_environment_lock_re_executes_every_notebook(recorded_report, tmp_path):
    name = f"kit:{staleness.ENVIRONMENT_LOCK.relative_to(paths.ROOT).as_posix()}"
    assert all(name in entry.inputs.values for entry in entries(recorded_report).values())
    earlier = with_input(recorded_report, tmp_path, name, "0" * 64)
    chosen = [paths.NOTEBOOKS / "00-primer.ipynb", paths.NOTEBOOKS / "11-explorer.ipynb"]
    reasons = rebuild(earlier, tmp_path, chosen)
    assert all(why and "environment.lock" in why for why in reasons.values()), reasons


def test_an_edited_executed_copy_or_a_missing_entry_is_executed_again(recorded_report, tmp_path):
    """The record holds the executed file's digest: a copy changed since is not reused; a notebook with no entry
    (its execution failed, or the report predates the record) is executed."""
    earlier = tmp_path / "earlier"
    shutil.copytree(recorded_report, earlier)
    (earlier / "notebooks" / "00-primer.ipynb").write_text("{}", encoding="utf-8")
    kept = staleness.read(earlier)
    del kept["11-explorer.ipynb"]
    staleness.write(earlier, kept)
    chosen = [paths.NOTEBOOKS / "00-primer.ipynb", paths.NOTEBOOKS / "11-explorer.ipynb"]
    assert rebuild(earlier, tmp_path, chosen) == {
        "00-primer.ipynb": "its executed copy in the earlier report is not the one it recorded",
        "11-explorer.ipynb": report.NO_EARLIER,
    }


def test_a_rebuild_renders_again_only_the_sections_whose_executed_notebook_changed(
    recorded_report, tmp_path, monkeypatch
):
    """Each notebook's section is kept under the digest of its executed copy and of the rendering: an unchanged one
    is copied from the earlier report, one whose executed copy changed is rendered anew, and so is a kept section
    edited since it was written (its recorded digest no longer matches)."""
    earlier = tmp_path / "earlier"
    shutil.copytree(recorded_report, earlier)
    kept = {path.name.rsplit("-", 1)[0]: path for path in (earlier / pages.SECTIONS).glob("*.html")}
    assert set(kept) == {path.stem for path in [*report.notebooks(), pages.GLOSSARY]}
    planted = kept["00-primer"]
    planted.write_text(planted.read_text(encoding="utf-8") + "planted", encoding="utf-8")
    staging = tmp_path / "staging"
    shutil.copytree(earlier / "notebooks", staging / "notebooks")
    executed = staging / "notebooks" / "04-ordering-shift.ipynb"
    notebook = nbformat.read(executed, as_version=4)
    notebook.cells[0].source += "\n\nExecuted again since."
    nbformat.write(notebook, executed)
    rendered = tmp_path / "rendered"  # pages render in worker processes: each notes its notebook in this file
    section = pages.section

    def noted(notebook: Path, exporter) -> str:
        with rendered.open("a", encoding="utf-8") as log:
            log.write(notebook.name + "\n")
        return section(notebook, exporter)

    monkeypatch.setattr(pages, "section", noted)
    runs = tuple(report.NotebookRun(path.name, staging / "notebooks" / path.name, None) for path in report.notebooks())
    pages.write(
        report.Report(staging, Provenance.RECORDED, pd.read_csv(earlier / "ledger.csv"), runs), VERSION, earlier
    )
    page = "".join(path.read_text(encoding="utf-8") for path in (staging / pages.PAGES).glob("*.html"))
    assert sorted(rendered.read_text(encoding="utf-8").split()) == ["00-primer.ipynb", "04-ordering-shift.ipynb"], (
        "only the changed and the edited are rendered"
    )
    assert "Executed again since." in page and "planted" not in page


def test_a_kept_section_whose_body_holds_a_carriage_return_is_copied_as_written(tmp_path):
    """A body is kept as its bytes: reading it back with newline translation made every such section fail its digest
    and be rendered again on each rebuild."""
    body, words = "<pre>a\r\nb\rc</pre>", "a b c"
    rest = f"{words}\n{body}"
    kept = tmp_path / "section.html"
    kept.write_bytes((hashlib.sha256(rest.encode("utf-8")).hexdigest() + "\n" + rest).encode("utf-8"))
    assert pages._kept_section(kept) == (body, words)


@pytest.mark.parametrize("package", ["nbconvert", "jinja2", "mistune", "pygments", "beautifulsoup4"])
def test_a_section_is_rendered_again_under_another_version_of_a_package_that_renders_it(monkeypatch, package):
    """A kept section is named after what rendered it: another nbconvert, template engine, Markdown parser, code
    highlighter or HTML parser gives another name, so the next rebuild renders it again instead of copying it."""
    notebook = report.notebooks()[0]
    before = pages._rendering_key(notebook)
    version_of = staleness.version_of
    monkeypatch.setattr(staleness, "version_of", lambda name: "0.0.0-other" if name == package else version_of(name))
    pages._rendering.cache_clear()
    try:
        assert pages._rendering_key(notebook) != before
    finally:
        pages._rendering.cache_clear()
