"""``probe-lib reproduce``: measure once, judge every claim, execute every notebook, and write one report.

Layout of the generated folder (git-ignored; ``paths.REPORT`` by default):

    measurements/mastra-<version>.json   the catalogue's outcomes, measured live (or copied from recordings)
    measurements/frameworks.json         the framework matrix: live on every installed framework, else recorded
    measurements/claude-agent-sdk-permissions.json   the Claude Agent SDK's list probes, made as its matrix target
    ledger.csv                           every claim judged on every pinned version, range claims on the timeline,
                                         each other framework's claims on its matrix runs
    export/                              every measured outcome as tidy CSV and Parquet tables, with dictionary.csv
    notebooks/NN-slug.ipynb              each notebook executed against those measurements
    figures/NN-slug-<n>.png              every chart, named after its notebook
    report.html                          the ledger first, then each notebook with its charts, then the glossary
    sections/NN-slug-<digest>.html       each notebook's part of report.html, kept for the next rebuild to copy
    solved/NN-slug.ipynb                 with --solutions: each notebook with its exercises answered, as executed

Every notebook reads the same measurement folder, so the ledger and the notebooks judge one run. The folder
is built beside the target and swapped in whole (:mod:`probe_lib.core.folders`): Ctrl-C or a failure leaves an
earlier report as it was, and a folder holding files the kit did not write is refused, never emptied, both
before the run and at the swap (a file saved into the earlier report meanwhile stays there with it, and the new
report is left beside them as ``NAME.new``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import os
import platform
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import nbformat
import pandas as pd

from probe_lib.adapters import mastra
from probe_lib.analysis import timeline
from probe_lib.claims import framework_ranges, ledger
from probe_lib.claims.ranges import Timeline
from probe_lib.claims.verdict import MASTRA, STATUSES
from probe_lib.core import folders, paths
from probe_lib.core.progress import QUIET, Stages
from probe_lib.core.target import baseline
from probe_lib.present import execution, no_value, staleness
from probe_lib.present.charts import STATUS_COLOURS
from probe_lib.present.execution import MEASUREMENTS, WIDGET_VIEW, NotebookRun
from probe_lib.study import export, matrix_recording, matrix_runs, permission_runs, recordings
from probe_lib.study.provenance import Provenance
from probe_lib.study.sources import LIVE, RECORDED, Source

NOTEBOOK_GLOB = "[0-9][0-9]-*.ipynb"
#: The glossary every notebook links its terms to, by the term's cell: ``glossary.ipynb#cell-id=<cell id>``, which
#: JupyterLab scrolls to (a heading id does not: the glossary opens at its top) and nbconvert renders as the cell's
#: element id. The report renders it last.
GLOSSARY = paths.NOTEBOOKS / "glossary.ipynb"
#: In the report, element ids of the glossary carry this prefix, so a term never shares an id with a notebook heading.
GLOSSARY_PREFIX = "glossary-"


@dataclass(frozen=True)
class Report:
    folder: Path
    #: How the catalogue was measured: live only when every pinned version ran live.
    source: Provenance
    ledger: pd.DataFrame
    runs: tuple[NotebookRun, ...]
    #: Why the catalogue was read from the recordings (:func:`recorded_because`); ``None`` when it ran live.
    recorded_because: str | None = None

    @property
    def html(self) -> Path:
        return self.folder / "report.html"

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
    if not all(map(mastra.ADAPTER.is_installed, mastra.ADAPTER.versions())):
        return NODE_MISSING
    return None


def measure_all(
    folder: Path, measurements: Source = LIVE, *, stages: Stages = QUIET, shown: str | None = None
) -> Provenance:
    """Write one measurement file per pinned version (and ``shown``, any served one) into ``folder`` from
    ``measurements``, live only when every pinned version can run live here; return how they were made."""
    source = RECORDED if recorded_because(measurements) else measurements
    made = Provenance.LIVE if source.runs_now else Provenance.RECORDED
    versions = tuple(dict.fromkeys((*mastra.ADAPTER.versions(), *([shown] if shown else []))))
    # A file names the Node.js and the UTC day it was measured with: now when live, the recording's own when copied
    # (so `reproduce --recorded` writes the same bytes on any day).
    live = recordings.live_stamp() if source.runs_now else None
    with stages.stage(f"measuring @mastra/core ({made})", len(versions)) as step:
        for version in versions:
            outcomes = list(source.catalogue(version).values())
            resolved = mastra.ADAPTER.resolved_before(version) if source.runs_now else None
            stamp = live if live is not None else recordings.recording_stamp(version)
            path = folder / recordings.recording_path(version).name
            recordings.write(path, version, outcomes, made, **stamp, resolved_before=resolved)
            step(version)
    return made


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
    runs, entries = [], {}
    for name, (_, _, declared, because) in plan.items():
        executed = folder / "notebooks" / name
        if because is None:
            entries[name] = kept[name]
            runs.append(NotebookRun(name, executed, None, reused=True, because="every input unchanged"))
            continue
        run = replace(fresh[name], because=because)
        if run.error is None and run.executed.exists():  # a failed execution is never kept for reuse
            entries[name] = staleness.Entry(
                staleness.recorded(run.reads, folder, declared), staleness.sha256(run.executed)
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
    source = measure_all(written, measurements, stages=stages, shown=version)
    files = {v: written / recordings.recording_path(v).name for v in mastra.ADAPTER.versions()}
    by_version = {v: recordings.outcomes_from_file(file) for v, file in files.items()}
    pins = {v: recordings.provenance(file) for v, file in files.items()}
    with stages.stage("measuring the framework matrix", len(matrix_runs.targets())) as step:
        frameworks, sources = measurements.whole_matrix(step)
    # Notebook 12 reads it; the ledger's framework rows say how each target in it was measured.
    matrix_written = matrix_recording.write(frameworks, written / matrix_recording.RECORDING.name, sources)
    with stages.stage("measuring the Claude Agent SDK's tool lists", 1) as step:
        lists, lists_made = measurements.whole_list_probes()  # judged with the SDK's matrix target
        step(permission_runs.FRAMEWORK)
    permission_runs.write(lists, written / permission_runs.RECORDING.name, lists_made)
    laid_over = Timeline.of(timeline.laid_over_summary(by_version))
    judged = matrix_runs.by_target([*frameworks, *lists])
    table = ledger.ledger(
        by_version,
        laid_over,
        by_target=judged,
        sources=matrix_recording.source_texts(sources, noted_in=matrix_written),
        pin_sources=pins,
        timeline_source=timeline.laid_over_source(),
        framework_timelines=framework_ranges.timelines(),
    )
    table.to_csv(folder / "ledger.csv", index=False)
    export.write_all(folder / "export", primary=written)  # every outcome (this run's first), sweep, MCP corpus
    runs = run_notebooks(notebooks(), folder, earlier, version=version, jobs=jobs, stages=stages, solved=solved)
    with stages.stage("rendering report", 1) as step:
        for run in runs:
            if run.executed.exists():
                extract_figures(run.executed, folder / "figures")
        report = Report(folder, source, table, runs, recorded_because(measurements))
        report.html.write_text(render(report, version, earlier), encoding="utf-8")
        step("report.html")
    return report


_CSS = """
html { scroll-behavior: smooth; scroll-padding-top: 1em; }
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em 0 15em;
       line-height: 1.45; overflow-wrap: break-word; }
nav.toc { position: fixed; top: 0; left: 0; bottom: 0; width: 13em; overflow-y: auto; padding: 1em 0.8em;
          background: #f6f6f6; border-right: 1px solid #ddd; font-size: 0.85em; line-height: 1.3; }
nav.toc ol { padding-left: 1.4em; margin: 0.3em 0; } nav.toc li { margin: 0.25em 0; }
nav.toc a { text-decoration: none; }
a.top { float: right; font-size: 0.8em; font-weight: normal; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0; } td, th { border: 1px solid #ccc; padding: 3px 6px;
        vertical-align: top; text-align: left; max-width: 40em; min-width: 4.5em; } th { overflow-wrap: normal; }
.scroll { max-width: 100%; overflow: auto; margin: 1em 0; } .scroll.tall { max-height: 40em; border: 1px solid #ddd; }
#ledger td:nth-child(-n+3), #framework-ledger td:nth-child(-n+3) { overflow-wrap: anywhere; }
.banner { padding: 0.6em 1em; border-radius: 4px; font-weight: bold; }
.live { background: #d9f2d9; } .recorded { background: #f8d0d0; }
.notebook { border-top: 3px solid #444; margin-top: 3em; } pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto;
        font-size: 0.85em; white-space: pre-wrap; }
.jp-InputPrompt, .jp-OutputPrompt { display: none; } img { max-width: 100%; } .scroll img.natural { max-width: none; }
@media (max-width: 900px) { body { padding-left: 1em; } nav.toc { position: static; width: auto; border: 0; } }
"""


def in_page_links(body: str) -> str:
    """A rendered notebook's links to other notebooks and to the glossary, pointed at their sections of the page (a
    glossary term's link at its cell, whose element id nbconvert renders as ``cell-id=<cell id>``)."""
    body = body.replace('href="glossary.ipynb#', f'href="#{GLOSSARY_PREFIX}')
    return re.sub(r'href="([0-9][0-9]-[^"#/]+)\.ipynb"', r'href="#\1"', body)


def render_glossary(exporter) -> str:
    """The glossary as a report section, its ids (and its links to them) prefixed with :data:`GLOSSARY_PREFIX`."""
    body, _ = exporter.from_notebook_node(nbformat.read(GLOSSARY, as_version=4))
    body = re.sub(r'(<[^>]* )id="', rf'\1id="{GLOSSARY_PREFIX}', body)
    body = body.replace('href="#', f'href="#{GLOSSARY_PREFIX}')
    return f'<section class="notebook" id="glossary"><h2>Glossary {_TOP}</h2>{in_page_links(body)}</section>'


_WIDGET_NOTE = "(An interactive widget: open the notebook in JupyterLab and run it to use it.)"


def without_widgets(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` without live widgets, which a static page cannot run (their loader script fails there).

    A widget output keeps its other representations (the explorer's static HTML rendering); one that has only
    its ``text/plain`` repr left (``interactive(children=...)``) says nothing to a reader, so a note saying where
    the widget works takes its place.
    """
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.outputs:
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                if set(data) <= {"text/plain"}:
                    output = nbformat.v4.new_output(
                        "display_data", {"text/html": _WIDGET_NOTE, "text/plain": _WIDGET_NOTE}
                    )
            kept.append(output)
        cell.outputs = kept
    return notebook


#: A table with more rows than this scrolls in a box of its own instead of running down the page.
TALL_TABLE_ROWS = 30
#: The report's column in CSS pixels (``max-width`` of the body): a chart wider than 1.5 columns is shown at its
#: own size in a box that scrolls, since shrunk to the column its text would be unreadable.
COLUMN_PX = 1100
_GENERIC_FIGURE = re.compile(r"^<Figure size [0-9.]+x[0-9.]+ with \d+ Axes>$")


def figure_descriptions(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """Alt text for every PNG a notebook displayed, by its base64 data: the figure's own description (the kit's
    charts describe themselves in their ``text/plain``, :class:`probe_lib.present.charts.Chart`), else the text of
    the markdown cell before it."""
    described, caption = {}, ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            caption = re.sub(r"[*_`#>\[\]]|\(glossary[^)]*\)", "", cell.source).strip().split("\n")[0][:300]
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                plain = str(data.get("text/plain", "")).strip()
                own = plain if plain and not _GENERIC_FIGURE.match(plain) else ""
                described["".join(data["image/png"].split())] = own or (f"Chart: {caption}" if caption else "A chart")
    return described


def _png_width(data: str) -> int:
    """The pixel width in a base64 PNG's header (0 when it is not a PNG)."""
    head = base64.b64decode(data[:44] + "=" * (-len(data[:44]) % 4))
    return int.from_bytes(head[16:20], "big") if head[1:4] == b"PNG" else 0


def readable(page: str, descriptions: dict[str, str]) -> str:
    """The page made readable at any data size: every table in a box that scrolls on its own (long ones also
    downwards), every image described, a chart too wide to shrink legibly shown at
    its own size in a scrolling box."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, features="html.parser")
    for table in soup.find_all("table"):
        box = soup.new_tag(
            "div", attrs={"class": "scroll tall" if len(table.find_all("tr")) > TALL_TABLE_ROWS else "scroll"}
        )
        table.wrap(box)
    for image in soup.find_all("img"):
        source = image.get("src", "")
        data = source.split("base64,", 1)[1] if "base64," in source else ""
        image["alt"] = descriptions.get("".join(data.split()), image.get("alt", "A chart"))
        if data and _png_width(data) > COLUMN_PX * 1.5:
            image["class"] = [*image.get("class", []), "natural"]
            image.wrap(soup.new_tag("div", attrs={"class": "scroll"}))
    return str(soup)


def _toc(report: Report) -> str:
    """The table of contents: the ledger, each notebook by its title, the glossary (fixed at the page's side)."""
    items = [
        "<li><a href='#claims-ledger'>Claims ledger</a></li>",
        "<li><a href='#other-frameworks'>The other frameworks</a></li>",
    ]
    for run in report.runs:
        items.append(f"<li><a href='#{run.executed.stem}'>{html.escape(_title(run))}</a></li>")
    items.append("<li><a href='#glossary'>Glossary</a></li>")
    return f"<nav class='toc' aria-label='Contents'><a href='#top'><b>Contents</b></a><ol>{''.join(items)}</ol></nav>"


def _title(run: NotebookRun) -> str:
    """A notebook's title: its first heading, else its file name."""
    if run.executed.exists():
        for cell in nbformat.read(run.executed, as_version=4).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("# "):
                title = cell.source.split("\n", 1)[0][2:].strip()
                return title if title.startswith(run.executed.stem[:2]) else f"{run.executed.stem} · {title}"
    return run.notebook


_TOP = "<a class='top' href='#top'>back to top ↑</a>"


def render(report: Report, version: str, earlier: Path | None = None) -> str:
    """The report page: provenance banner, the ledger, then every executed notebook (each section copied from the
    report ``earlier`` when it rendered the same, :func:`_rendered`)."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic")
    table = report.ledger
    matrix = ledger.status_matrix(table)
    head = "".join(f"<th>{html.escape(v)}</th>" for v in matrix.columns)
    rows = []
    for claim_id, statuses in matrix.iterrows():
        cells = "".join(
            f'<td style="background:{STATUS_COLOURS[s]}">{html.escape(s)}</td>' if isinstance(s, str) else "<td></td>"
            for s in statuses
        )  # a range claim has one status, in its span's column
        rows.append(
            f"<tr><td>{html.escape(str(claim_id))}</td>{_side_by_side(table[table['claim'] == claim_id])}{cells}</tr>"
        )
    evidence = no_value.frame_html(
        table[table["framework"] == MASTRA][["claim", "version", "status", "evidence"]], index=False, escape=True
    )
    banner = (
        '<p class="banner live">Measured live on the real @mastra/core '
        f"{', '.join(mastra.ADAPTER.versions())} against the kit's capture server.</p>"
        if report.source is Provenance.LIVE
        else '<p class="banner recorded">NODE.JS WAS MISSING: this report shows RECORDED captures from data/captures/, '
        "not a live measurement.</p>"
        if report.recorded_because == NODE_MISSING
        else '<p class="banner recorded">RECORDED, AS ASKED (reproduce --recorded): this report shows the captures in '
        "data/captures/, not a live measurement.</p>"
    )
    failures = "".join(f"<li>{html.escape(run.notebook)}: {html.escape(run.error)}</li>" for run in report.failed)
    rebuilt = f"<p id='rebuilt'><small>{html.escape(rebuilt_line(report))}</small></p>"
    made_with = f"<p id='built-with'><small>{html.escape(built_with())}</small></p>"
    sections = [
        _rendered(run.executed, report.folder, earlier, lambda run=run: _section(run, exporter)) for run in report.runs
    ]
    sections.append(_rendered(GLOSSARY, report.folder, earlier, lambda: readable(render_glossary(exporter), {})))
    page = (
        '<!DOCTYPE html>\n<html id="top" lang="en"><head><meta charset="utf-8"/>'
        f"<title>Mastra tool-name probe: report</title><style>{_CSS}</style></head><body>"
    )
    ledgers = (
        f"{_toc(report)}<h1>What @mastra/core sends when a tool key is not a legal tool name</h1>{banner}"
        f"<p>Reproduces the article <em>Mastra rewrites tool object keys, and toolChoice does not follow</em> "
        f"(September 2026) and adds our findings. Finding notebooks show @mastra/core {html.escape(version)}; "
        "the ledger judges every pinned version.</p>"
        + made_with
        + rebuilt
        + (f"<p class='banner recorded'>Notebooks that failed:</p><ul>{failures}</ul>" if failures else "")
        + f"<h2 id='claims-ledger'>Claims ledger {_TOP}</h2><p>{_LEDGER_NOTE}</p><table id='ledger'><tr><th>claim</th>"
        "<th>the article says (paraphrased) or we found</th>"
        f"<th>measured on {baseline('mastra').version}, the article's version (a range claim: over the timeline; a "
        "claim comparing versions with it: on each other version)</th>"
        f"{head}</tr>{''.join(rows)}</table>"
        f"<details><summary>Evidence per claim and version</summary>{evidence}</details>" + _framework_ledger(table)
    )
    return page + readable(ledgers, {}) + "".join(sections) + "</body></html>"


def _section(run: NotebookRun, exporter) -> str:
    """One executed notebook as a section of the report, made readable (:func:`readable`)."""
    notebook = without_widgets(nbformat.read(run.executed, as_version=4)) if run.executed.exists() else None
    body = exporter.from_notebook_node(notebook)[0] if notebook is not None else ""
    section = (
        f'<section class="notebook" id="{run.executed.stem}"><h2>{html.escape(run.notebook)} {_TOP}</h2>'
        f"{in_page_links(body)}</section>"
    )
    return readable(section, figure_descriptions(notebook) if notebook is not None else {})


#: Where a report keeps each notebook's rendered section, named after the notebook and the digest of what made it
#: (:func:`_rendering_key`): a rebuild renders again only a notebook whose executed copy, or the rendering, changed.
SECTIONS = Path("sections")


@functools.cache
def _rendering() -> bytes:
    """What every section is made by besides its notebook: this module's code, the ids it links to, and the versions
    of nbconvert (with its templates) and the HTML parser."""
    packages = " ".join(
        f"{name} {staleness.version_of(name)}" for name in ("nbconvert", "jinja2", "mistune", "beautifulsoup4")
    )
    return Path(__file__).read_bytes() + f"{WIDGET_VIEW} {GLOSSARY_PREFIX} {packages}".encode()


def _rendering_key(notebook: Path) -> str:
    """The digest of ``notebook``'s bytes and of :func:`_rendering`."""
    hasher = hashlib.sha256(notebook.read_bytes() if notebook.exists() else b"")
    hasher.update(_rendering())
    return hasher.hexdigest()[:16]


def _rendered(notebook: Path, folder: Path, earlier: Path | None, make: Callable[[], str]) -> str:
    """The section of ``notebook`` as ``make`` renders it, copied from the report ``earlier`` when it rendered the
    same (``None``: render it), and kept in ``folder`` for the next rebuild. A kept section starts with the SHA-256 of
    the rest, so one edited since it was written is rendered again, not copied."""
    name = SECTIONS / f"{notebook.stem}-{_rendering_key(notebook)}.html"
    try:
        digest, _, section = (earlier / name).read_text(encoding="utf-8").partition("\n") if earlier else ("", "", "")
    except OSError:  # not rendered by the earlier report, or not this way
        digest, section = "", ""
    if not digest or digest != hashlib.sha256(section.encode("utf-8")).hexdigest():
        section = make()
    (folder / name).parent.mkdir(exist_ok=True)
    (folder / name).write_text(hashlib.sha256(section.encode("utf-8")).hexdigest() + "\n" + section, encoding="utf-8")
    return section


_LEDGER_NOTE = (
    "Each article claim is paraphrased with the section it comes from, beside what was measured and the verdict on "
    "every pinned version (1.0.4 stands in for the article's 1.0.0, which the registry does not serve). "
    "The article's table of awkward keys is not in its text: the key set the kit uses for it is "
    "<strong>reconstructed</strong> (<code>keysets.ARTICLE_SPREAD</code>), and it is the same set everywhere."
)


def _framework_ledger(table: pd.DataFrame) -> str:
    """The claims about the other frameworks: one row per claim and target, with the framework, the version, how it
    was measured (live, or recorded when the framework is not installed here), the verdict and its evidence."""
    rows = []
    for row in table[table["framework"] != MASTRA].itertuples():
        rows.append(
            f"<tr><td>{html.escape(row.claim)}</td><td>{html.escape(row.framework)} {html.escape(str(row.version))}"
            f"<br><small>{html.escape(str(row.source))}</small></td>"
            f"<td>{html.escape(row.statement)}<br><small>our finding <em>{html.escape(row.section)}</em> · "
            f"<a href='#{html.escape(row.notebook)}'>{html.escape(row.notebook)}</a></small></td>"
            f'<td style="background:{STATUS_COLOURS[row.status]}">{html.escape(row.status)}</td>'
            f"<td><small>{html.escape(row.evidence)}</small></td></tr>"
        )
    return (
        f"<h3 id='other-frameworks'>The other frameworks {_TOP}</h3><p>{_FRAMEWORK_NOTE}</p>"
        "<table id='framework-ledger'><tr><th>claim</th><th>framework, version, measured</th><th>we found</th>"
        f"<th>verdict</th><th>evidence</th></tr>{''.join(rows)}</table>"
    )


_FRAMEWORK_NOTE = (
    "The same probes on every framework of the matrix (notebook 12), each claim judged on its framework's runs: "
    "rerun live where the framework is installed, read from <code>data/captures/frameworks.json</code> where not. "
    "The Claude Agent SDK's list claims also read its list probes, made as its matrix target "
    "(<code>data/captures/claude-agent-sdk-permissions.json</code> where it is not installed)."
)


def _side_by_side(rows: pd.DataFrame) -> str:
    """Two cells for one claim: the statement with its origin and notebook link, and what was measured: the evidence
    on the article's version, or, for a claim comparing versions with it (not testable on itself), each other
    version's evidence."""
    first = rows.iloc[0]
    origin = "article, section" if first.origin == "article" else "our finding"
    article = rows["version"] == baseline("mastra").version
    if article.any() and (rows.loc[article, "status"] == "not testable").all() and (~article).any():
        measured = "; ".join(f"{row.version}: {row.evidence}" for row in rows[~article].itertuples())
    elif article.any():
        measured = rows.loc[article, "evidence"].iloc[0]
    else:  # a range claim: its one verdict
        measured = rows["evidence"].iloc[0] if len(rows) else "not measured"
    return (
        f"<td>{html.escape(first.statement)}<br><small>{origin} <em>{html.escape(first.section)}</em>"
        f" · <a href='#{html.escape(first.notebook)}'>{html.escape(first.notebook)}</a></small></td>"
        f"<td><small>{html.escape(measured)}</small></td>"
    )


#: The packages whose versions the report names (with Python and Node.js): those that measure, compute and draw.
KEY_PACKAGES = (
    "pandas",
    "numpy",
    "matplotlib",
    "pyarrow",
    "aiohttp",
    "papermill",
    "nbclient",
    "ipykernel",
    "nbconvert",
)


def built_with() -> str:
    """The sentence naming what the report was built with: Python, Node.js and the key packages' versions."""
    found = staleness.node_version()
    node = "no Node.js" if found == staleness.ABSENT else f"Node.js {found}"
    packages = ", ".join(f"{name} {staleness.version_of(name)}" for name in KEY_PACKAGES)
    return f"Built with Python {platform.python_version()}, {node}, {packages}."


def rebuilt_line(report: Report) -> str:
    """Which notebooks were kept from the earlier report in the folder and which were executed, and why."""
    reused = [run.executed.stem for run in report.runs if run.reused]
    executed = [run for run in report.runs if not run.reused]
    parts = []
    if reused:
        parts.append(
            f"{len(reused)} reused from the earlier report in this folder, every input unchanged: " + ", ".join(reused)
        )
    if executed:
        reasons = {run.because for run in executed}
        parts.append(
            f"{len(executed)} executed, each because {executed[0].because}"
            if len(executed) > 1 and len(reasons) == 1
            else f"{len(executed)} executed: " + "; ".join(f"{run.executed.stem} ({run.because})" for run in executed)
        )
    return "Notebooks: " + ". ".join(parts) + "."


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
