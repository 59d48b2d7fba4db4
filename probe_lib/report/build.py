"""``probe-lib reproduce``: measure once, judge every claim, execute every notebook, and write one report.

Layout of the generated folder (git-ignored; ``paths.REPORT`` by default):

    measurements/<collection>/<framework>-<version>.json   one file per collection and target
                                         (:mod:`probe_lib.measure.measurement`): the catalogue on each pin, measured
                                         live (or copied from recordings); the framework matrix, live on every
                                         installed framework, else recorded; the Claude Agent SDK's list probes
    ledger.csv                           every claim judged on every pinned version, range claims on the timeline,
                                         each other framework's claims on its matrix runs
    export/                              every measured outcome as tidy CSV and Parquet tables, with dictionary.csv
    notebooks/NN-slug.ipynb              each notebook executed against those measurements, beside the kit's
                                         glossary.ipynb, which their term links open
    figures/NN-slug-<n>.png              every chart, named after its notebook
    index.html                           what was found, how it was measured, then the ledger (open it first)
    pages/NN-slug.html                   one page per notebook with its charts, then pages/glossary.html, with
                                         contents, previous/next and pages/search.html (:mod:`probe_lib.report.pages`)
    sections/NN-slug-<digest>.html       each notebook's rendered body and search words, kept for the next rebuild
    solved/NN-slug.ipynb                 with --solutions: each notebook with its exercises answered, the copy
                                         executed (no outputs; the executed one is in notebooks/), and the glossary

Every notebook reads the same measurement folder, so the ledger and the notebooks judge one run. The folder
is built beside the target and swapped in whole (:mod:`probe_lib.core.folders`): Ctrl-C or a failure leaves an
earlier report as it was, and a folder holding files the kit did not write is refused, never emptied, both
before the run and at the swap (a file saved into the earlier report meanwhile stays there with it, and the new
report is left beside them as ``NAME.new``).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat
import pandas as pd

from probe_lib.claims import framework_ranges, ledger, ranges
from probe_lib.claims.verdict import STATUSES
from probe_lib.core import folders, paths
from probe_lib.core.progress import QUIET, Stages
from probe_lib.core.target import Target, baseline
from probe_lib.frameworks import mastra
from probe_lib.measure import matrix_runs, measurement
from probe_lib.measure.collection import CATALOGUE, LISTS, MATRIX
from probe_lib.measure.measurement import Measurement
from probe_lib.measure.provenance import Provenance
from probe_lib.measure.sources import LIVE, RECORDED, Source
from probe_lib.present import execution, staleness
from probe_lib.present.execution import MEASUREMENTS, NotebookRun
from probe_lib.report import pages
from probe_lib.tables import export

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"


@dataclass(frozen=True)
class Report:
    folder: Path
    #: How the catalogue was measured: live only when every pinned version ran live.
    source: Provenance
    ledger: pd.DataFrame
    runs: tuple[NotebookRun, ...]
    #: Why the catalogue was read from the recordings (:func:`recorded_because`); ``None`` when it ran live.
    recorded_because: str | None = None
    #: How each pinned version's measurement file was made (the ledger's ``source`` for it), by version.
    measured: dict[str, str] = field(default_factory=dict)

    @property
    def html(self) -> Path:
        """The landing page: what was found, then the ledger; each notebook's page is linked from it."""
        return self.folder / pages.INDEX

    @property
    def failed(self) -> list[NotebookRun]:
        return [run for run in self.runs if run.error]


def notebooks() -> list[Path]:
    """The kit's notebooks in reading order (``NN-slug.ipynb``)."""
    return sorted(paths.NOTEBOOKS.glob(NOTEBOOK_GLOB))


#: Why a report reads the recordings: the reader asked for them, or the real package cannot run here.
ASKED_FOR_RECORDINGS = "asked for (reproduce --recorded)"
NODE_MISSING = "Node.js or a pinned @mastra/core is missing here"


def recorded_because(measurements: Source) -> str | None:
    """Why a report made from ``measurements`` shows the recordings of the pinned versions, or ``None`` when they
    run live here (every pin installed)."""
    if not measurements.runs_now:
        return ASKED_FOR_RECORDINGS
    if not all(map(measurements.live, CATALOGUE.targets())):
        return NODE_MISSING
    return None


def measure_all(
    folder: Path, measurements: Source = LIVE, *, stages: Stages = QUIET, shown: str | None = None
) -> list[Measurement]:
    """Write the catalogue's measurement on each pinned version (and ``shown``, any served one) into ``folder`` from
    ``measurements``, live only when every pinned version can run live here; return them. A copied recording keeps
    the runtime and day it was made with, so `reproduce --recorded` writes the same bytes on any day."""
    source = RECORDED if recorded_because(measurements) else measurements
    versions = dict.fromkeys((*mastra.ADAPTER.versions(), *([shown] if shown else [])))
    targets = [Target(mastra.ADAPTER.name, version) for version in versions]
    made = Provenance.LIVE if source.runs_now else Provenance.RECORDED
    with stages.stage(f"measuring @mastra/core ({made})", len(targets)) as step:
        measured = source.measurements(CATALOGUE, targets, lambda target: step(target.version))
    for m in measured:
        measurement.write(measurement.path(folder, m.collection, m.target), m)
    return measured


#: Why a notebook is executed when nothing earlier could be kept.
FORCED = "asked for (reproduce --force)"
NO_EARLIER = "no earlier report in this folder executed it"


def run_notebooks(
    sources: list[Path],
    folder: Path,
    earlier: Path | None,
    *,
    version: str,
    jobs: int | None = None,
    stages: Stages = QUIET,
    solved: bool = False,
) -> tuple[NotebookRun, ...]:
    """Every notebook of ``sources`` into the report being built in ``folder``, in order: kept from the report
    ``earlier`` when every input it read has the value it had there, else executed; each one's inputs are written
    to ``folder``'s :data:`staleness.INPUTS`. ``earlier`` ``None``: execute every notebook."""
    kept = staleness.read(earlier) if earlier is not None else {}
    known: dict[str, str] = {}
    plan: dict[str, tuple[Path, Path | None, dict[str, str], str | None]] = {}
    with stages.stage("checking each notebook's inputs against the earlier report", len(sources)) as step:
        for notebook in sources:
            source = _solved_copy(notebook, folder) if solved else None
            executed = folder / "notebooks" / notebook.name
            declared = staleness.declared(source or notebook, execution.parameters(folder, executed, version))
            because = _stale_because(kept.get(notebook.name), declared, earlier, folder, executed, known)
            plan[notebook.name] = (notebook, source, declared, because)
            step(f"{notebook.stem}: " + ("reused, every input unchanged" if because is None else f"stale: {because}"))
    stale = [(notebook, source) for notebook, source, _, because in plan.values() if because is not None]
    with stages.stage("executing notebooks", len(stale)) as step:
        fresh = {run.notebook: run for run in execution.execute_all(stale, folder, version, jobs, step)}
    runs, entries, read_now = [], {}, {}
    for name, (_, _, declared, because) in plan.items():
        executed = folder / "notebooks" / name
        if because is None:
            entries[name] = kept[name]
            runs.append(NotebookRun(name, executed, None, reused=True, because="every input unchanged"))
            continue
        run = replace(fresh[name], because=because)
        if run.error is None and run.executed.exists():  # a failed execution is never kept for reuse
            entries[name] = staleness.Entry(
                staleness.recorded(run.reads, folder, declared, read_now), staleness.sha256(run.executed)
            )
        run.reads.unlink(missing_ok=True)
        runs.append(replace(run, reads=None))
    staleness.write(folder, entries)
    return tuple(runs)


def _solved_copy(notebook: Path, folder: Path) -> Path:
    """Write ``notebook`` with every exercise answered (``probe_lib.teach.solutions.fill``) into ``folder/solved``:
    a teacher's copy, the one executed."""
    from probe_lib.teach import solutions

    source = folder / "solved" / notebook.name
    source.parent.mkdir(exist_ok=True)
    nbformat.write(solutions.fill(nbformat.read(notebook, as_version=4)), source)
    return source


def _stale_because(
    entry: staleness.Entry | None,
    declared: dict[str, str],
    earlier: Path | None,
    folder: Path,
    executed: Path,
    known: dict[str, str],
) -> str | None:
    """Why the notebook to execute into ``executed`` cannot be kept from ``earlier`` (``None``: it was copied from
    there, byte for byte, as recorded)."""
    if earlier is None:
        return FORCED
    if entry is None:
        return NO_EARLIER
    if entry.inputs.never_reused:
        return entry.inputs.never_reused
    changes = staleness.changed(entry.inputs, declared, folder, known)
    if changes:
        return "; ".join(changes[:3]) + (f" and {len(changes) - 3} more" if len(changes) > 3 else "")
    try:
        content = (earlier / "notebooks" / executed.name).read_bytes()
    except OSError:
        return "its executed copy is missing from the earlier report"
    if hashlib.sha256(content).hexdigest() != entry.executed:
        return "its executed copy in the earlier report is not the one it recorded"
    executed.parent.mkdir(parents=True, exist_ok=True)
    executed.write_bytes(content)
    return None


def extract_figures(executed: Path, figures: Path) -> None:
    """Save every PNG a notebook displayed as the file its page shows (:func:`pages.figures`)."""
    figures.mkdir(parents=True, exist_ok=True)
    for data, name, _ in pages.figures(nbformat.read(executed, as_version=4), executed.stem):
        (figures / name).write_bytes(base64.b64decode(data))


def reproduce(
    folder: Path = paths.REPORT,
    measurements: Source = LIVE,
    *,
    jobs: int | None = None,
    version: str = baseline("mastra").version,
    stages: Stages = QUIET,
    solved: bool = False,
    force: bool = False,
) -> Report:
    """Build the whole report beside ``folder`` and move it in only once complete; see the module docstring.

    Everything is measured again; a notebook is executed again only when one of its inputs changed since the
    earlier report in ``folder`` executed it (:mod:`probe_lib.present.staleness`), and kept from it otherwise.
    ``force``: execute every notebook.

    ``folder`` may be new, empty, or an earlier report holding only files ``reproduce`` wrote; anything else
    is refused before any work, and again at the swap. An interrupted or failed run removes its staging folder
    and leaves ``folder`` as it was. ``solved``: every exercise answered with its solution (a teacher's report);
    by default they await an answer.
    """
    mastra.ADAPTER.check_version(version)
    folder = Path(os.path.abspath(folder))
    with folders.replacing(folder) as staging:
        earlier = None if force else folder
        report = _build(
            staging, measurements, earlier=earlier, jobs=jobs, version=version, stages=stages, solved=solved
        )
    runs = tuple(replace(run, executed=folder / run.executed.relative_to(staging)) for run in report.runs)
    return replace(report, folder=folder, runs=runs)


def _build(
    folder: Path,
    measurements: Source,
    *,
    earlier: Path | None,
    jobs: int | None,
    version: str,
    stages: Stages,
    solved: bool,
) -> Report:
    """Measure, judge, execute (what ``earlier``, the report being replaced, cannot give) and render into
    ``folder`` (the staging folder)."""
    written = folder / MEASUREMENTS
    pinned = {m.target.version: m for m in measure_all(written, measurements, stages=stages, shown=version)}
    by_version = {v: pinned[v].by_name() for v in mastra.ADAPTER.versions()}
    # Notebook 12 reads them; the ledger's framework rows say how each target in them was measured (the list
    # probes are judged with the SDK's matrix target).
    others: list[Measurement] = []
    for collection in (MATRIX, LISTS):
        with stages.stage(f"measuring the {collection.name}", len(collection.targets())) as step:
            others += measurements.measurements(collection, step=lambda target: step(str(target)))
    for m in others:
        measurement.write(measurement.path(written, m.collection, m.target), m)
    pins = {v: pinned[v].source for v in by_version}
    table = ledger.ledger(
        by_version,
        {**framework_ranges.timelines(), mastra.ADAPTER.name: ranges.timeline(by_version)},
        by_target=matrix_runs.by_target(o for m in others for o in m.outcomes),
        sources={str(m.target): m.source for m in others if m.collection == MATRIX.name},
        pin_sources=pins,
    )
    table.to_csv(folder / "ledger.csv", index=False)
    export.write_all(folder / "export", primary=written)  # every outcome (this run's first), sweep, MCP corpus
    runs = run_notebooks(notebooks(), folder, earlier, version=version, jobs=jobs, stages=stages, solved=solved)
    for beside in ("notebooks", "solved") if solved else ("notebooks",):  # where the notebooks' term links point
        shutil.copyfile(pages.GLOSSARY, folder / beside / pages.GLOSSARY.name)
    with stages.stage("rendering report", 1) as step:
        for run in runs:
            if run.executed.exists():
                extract_figures(run.executed, folder / "figures")
        made = pinned[mastra.ADAPTER.versions()[0]].made.how  # every pin alike (measure_all)
        report = Report(folder, made, table, runs, recorded_because(measurements), pins)
        pages.write(report, version, earlier)
        step(pages.INDEX)
    return report


def summary(report: Report) -> str:
    """The lines ``reproduce`` prints: where things are, what the ledger says, which notebooks failed."""
    counts = report.ledger["status"].value_counts().to_dict()
    lines = [
        f"report: {report.html}",
        f"source: {report.source}"
        + (
            ""
            if report.source is Provenance.LIVE
            else "  (NODE MISSING: recorded captures, not a live run)"
            if report.recorded_because == NODE_MISSING
            else f"  ({report.recorded_because}: recorded captures, not a live run)"
        ),
        "ledger: " + ", ".join(f"{counts.get(status, 0)} {status}" for status in STATUSES),
        f"notebooks: {sum(run.reused for run in report.runs)} reused, "
        f"{sum(not run.reused for run in report.runs)} executed",
    ]
    lines += [f"FAILED notebook {run.notebook}: {run.error}" for run in report.failed]
    return "\n".join(lines)
