"""``probe-lib reproduce``: measure once, judge every claim, execute every notebook, and write one report.

Layout of the generated folder (git-ignored; ``paths.REPORT`` by default):

    measurements/mastra-<version>.json   the catalogue's outcomes, measured live (or copied from recordings)
    ledger.csv                           every claim judged on every pinned version
    notebooks/NN-slug.ipynb              each notebook executed against those measurements
    figures/NN-slug-<n>.png              every chart, named after its notebook
    report.html                          the ledger first, then each notebook with its charts

Every notebook reads the same measurement folder, so the ledger and the notebooks judge one run.
"""

from __future__ import annotations

import base64
import html
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import nbformat
import pandas as pd

from probe_lib.adapters import mastra
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.target import baseline
from probe_lib.present.charts import STATUS_COLOURS
from probe_lib.study import claims, recordings

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"
#: Watchdogs: no cell of ours takes a minute, and a kernel starts in seconds.
NOTEBOOK_CELL_SECONDS = 600
KERNEL_START_SECONDS = 120


@dataclass(frozen=True)
class NotebookRun:
    notebook: str
    executed: Path
    error: str | None


@dataclass(frozen=True)
class Report:
    folder: Path
    source: str
    ledger: pd.DataFrame
    runs: tuple[NotebookRun, ...]

    @property
    def html(self) -> Path:
        return self.folder / "report.html"

    @property
    def failed(self) -> list[NotebookRun]:
        return [run for run in self.runs if run.error]


def notebooks() -> list[Path]:
    """The kit's notebooks in reading order (``NN-slug.ipynb``)."""
    return sorted(paths.NOTEBOOKS.glob(NOTEBOOK_GLOB))


def measure_all(folder: Path, *, live: bool, shown: str | None = None) -> str:
    """Write one measurement file per pinned version (and ``shown``, any served one) into ``folder``; return the source."""
    source = "live" if live and all(map(mastra.ADAPTER.is_installed, mastra.ADAPTER.versions())) else "recorded"
    for version in dict.fromkeys((*mastra.ADAPTER.versions(), *([shown] if shown else []))):
        outcomes = recordings.measure(version) if source == "live" else recordings.load(version)
        recordings.write(folder / recordings.recording_path(version).name, version, outcomes, source)
    return source


def execute(notebook: Path, folder: Path, measurements: Path, version: str) -> NotebookRun:
    """Execute one notebook with papermill (a real kernel); a failing cell is reported, not raised."""
    import papermill

    executed = folder / "notebooks" / notebook.name
    executed.parent.mkdir(parents=True, exist_ok=True)
    try:
        papermill.execute_notebook(
            notebook, executed, parameters={"mastra_version": version, "measurements": str(measurements)},
            kernel_name="python3", cwd=str(folder), progress_bar=False, log_output=False,
            execution_timeout=NOTEBOOK_CELL_SECONDS, start_timeout=KERNEL_START_SECONDS,
        )
    except Exception as error:  # papermill keeps the executed copy, with the failing cell's traceback
        return NotebookRun(notebook.name, executed, f"{type(error).__name__}: {str(error).strip().splitlines()[-1][:300]}")
    return NotebookRun(notebook.name, executed, None)


def extract_figures(executed: Path, figures: Path) -> list[Path]:
    """Save every PNG a notebook displayed as ``<notebook-stem>-<n>.png``."""
    figures.mkdir(parents=True, exist_ok=True)
    written = []
    for cell in nbformat.read(executed, as_version=4).cells:
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                path = figures / f"{executed.stem}-{len(written) + 1}.png"
                path.write_bytes(base64.b64decode(png))
                written.append(path)
    return written


#: What marks a folder as an earlier report, which ``reproduce`` may empty.
_REPORT_MARKERS = ("report.html", "ledger.csv", "measurements")


def _clear(folder: Path) -> None:
    """Empty ``folder`` if it is an earlier report (or empty); refuse anything else, so no user file is lost."""
    if folder.exists() and any(folder.iterdir()):
        if not any((folder / marker).exists() for marker in _REPORT_MARKERS):
            raise InputError(f"{folder} is not empty and holds no earlier report: choose an empty or new folder for --out")
        shutil.rmtree(folder)


def reproduce(folder: Path = paths.REPORT, *, live: bool = True, jobs: int | None = None, version: str = baseline("mastra").version) -> Report:
    """Rebuild the whole report in ``folder`` (an earlier report there is replaced); see the module docstring."""
    mastra.ADAPTER.check_version(version)
    _clear(folder)
    measurements = folder / "measurements"
    source = measure_all(measurements, live=live, shown=version)
    by_version = {v: recordings.outcomes_from_file(measurements / recordings.recording_path(v).name) for v in mastra.ADAPTER.versions()}
    table = claims.ledger(by_version)
    table.to_csv(folder / "ledger.csv", index=False)
    workers = jobs or max(1, min(len(notebooks()), os.cpu_count() or 1))
    # One process per notebook client: jupyter clients sharing one process's threads can miss a kernel's reply
    # and wait forever (seen here), and a cell that overruns NOTEBOOK_CELL_SECONDS fails its notebook, not the run.
    with ProcessPoolExecutor(max_workers=workers) as pool:
        runs = tuple(pool.map(partial(execute, folder=folder, measurements=measurements, version=version), notebooks()))
    for run in runs:
        if run.executed.exists():
            extract_figures(run.executed, folder / "figures")
    report = Report(folder, source, table, runs)
    report.html.write_text(render(report, version), encoding="utf-8")
    return report


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; } td, th { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
.banner { padding: 0.6em 1em; border-radius: 4px; font-weight: bold; } .live { background: #d9f2d9; } .recorded { background: #f8d0d0; }
.notebook { border-top: 3px solid #444; margin-top: 3em; } pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; font-size: 0.85em; }
.jp-InputPrompt, .jp-OutputPrompt { display: none; } img { max-width: 100%; }
"""


def render(report: Report, version: str) -> str:
    """The report page: provenance banner, the ledger, then every executed notebook."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic")
    table = report.ledger
    matrix = claims.status_matrix(table)
    statements = table.drop_duplicates("claim").set_index("claim")
    head = "".join(f"<th>{html.escape(v)}</th>" for v in matrix.columns)
    rows = []
    for claim_id, statuses in matrix.iterrows():
        cells = "".join(f'<td style="background:{STATUS_COLOURS[s]}">{s}</td>' for s in statuses)
        info = statements.loc[claim_id]
        rows.append(f"<tr><td>{claim_id}</td><td>{html.escape(info.statement)}<br><small>{html.escape(info.section)}"
                    f" · <a href='#{info.notebook}'>{info.notebook}</a></small></td>{cells}</tr>")
    evidence = table[["claim", "version", "status", "evidence"]].to_html(index=False, escape=True)
    banner = (
        '<p class="banner live">Measured live on the real @mastra/core '
        f'{", ".join(mastra.ADAPTER.versions())} against the kit\'s capture server.</p>'
        if report.source == "live" else
        '<p class="banner recorded">NODE.JS WAS MISSING: this report shows RECORDED captures from data/captures/, '
        "not a live measurement.</p>"
    )
    failures = "".join(f"<li>{html.escape(run.notebook)}: {html.escape(run.error)}</li>" for run in report.failed)
    sections = []
    for run in report.runs:
        body, _ = exporter.from_notebook_node(nbformat.read(run.executed, as_version=4)) if run.executed.exists() else ("", None)
        sections.append(f'<section class="notebook" id="{run.executed.stem}"><h2>{html.escape(run.notebook)}</h2>{body}</section>')
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Mastra tool-name probe: report</title><style>{_CSS}</style></head><body>"
        f"<h1>What @mastra/core sends when a tool key is not a legal tool name</h1>{banner}"
        f"<p>Reproduces the article <em>Mastra rewrites tool object keys, and toolChoice does not follow</em> "
        f"(September 2026) and adds our findings. Finding notebooks show @mastra/core {html.escape(version)}; the ledger judges every pinned version.</p>"
        + (f"<p class='banner recorded'>Notebooks that failed:</p><ul>{failures}</ul>" if failures else "")
        + f"<h2>Claims ledger</h2><table><tr><th>claim</th><th>statement</th>{head}</tr>{''.join(rows)}</table>"
        f"<details><summary>Evidence per claim and version</summary>{evidence}</details>"
        + "".join(sections) + "</body></html>"
    )


def summary(report: Report) -> str:
    """The lines ``reproduce`` prints: where things are, what the ledger says, which notebooks failed."""
    counts = report.ledger["status"].value_counts().to_dict()
    lines = [
        f"report: {report.html}",
        f"source: {report.source}" + ("  (NODE MISSING: recorded captures, not a live run)" if report.source != "live" else ""),
        "ledger: " + ", ".join(f"{counts.get(status, 0)} {status}" for status in claims.STATUSES),
    ]
    lines += [f"FAILED notebook {run.notebook}: {run.error}" for run in report.failed]
    return "\n".join(lines)

