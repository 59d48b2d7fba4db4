"""Execute notebooks with papermill, each in a real kernel of its own that records what it read.

Every kernel starts with :func:`probe_lib.present.reads.record`, so the files it opened and the programs it started
are known exactly (:mod:`probe_lib.present.staleness` turns that log into the notebook's inputs). An executed
notebook holds no time of its run (nbclient's and papermill's timestamps and durations are left out), no random id
(papermill's parameters cell, pandas' styled tables and the widgets get fixed ones), no split of its printed text
that depends on timing (each cell's streams are merged) and no path of the machine:
executed twice on the same inputs it is the same bytes, so a copy kept from an earlier run is what a new execution
would give.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

from probe_lib.core import files, paths
from probe_lib.process import forked

#: Watchdogs: no cell of ours takes a minute, and a kernel starts in seconds.
NOTEBOOK_CELL_SECONDS = 600
KERNEL_START_SECONDS = 120
#: Starts of a notebook whose kernel died before it answered (no cell ran). Its client picks free TCP ports and the
#: kernel binds them a moment later; another process can take one in between (seen once in a live report, a kernel
#: dying with "Address already in use" while notebook 14's runners opened connections).
KERNEL_STARTS = 3
#: Each notebook's last execution on this machine, seconds by name, in the kit's cache: the longest start first, so
#: no slot idles at the end while one long notebook runs (13-timeline, ~23 s of a report's ~80 s of notebooks, was
#: started fifteenth of seventeen and ran alone for its last 17 s).
DURATIONS = "notebook-seconds.json"
#: The measurement folder, relative to the report (and to each notebook's working folder).
MEASUREMENTS = "measurements"
#: Kernels log a warning about TCP transport on start and an error when shut down mid-message: loopback-only
#: noise on every run. Real kernel failures still surface, as papermill errors in the notebook's result.
_QUIET_KERNEL = ["--IPKernelApp.log_level=CRITICAL"]
#: papermill's per-run timestamps, in the notebook's and every cell's ``papermill`` metadata.
_RUN_TIMES = ("start_time", "end_time", "duration")
#: A table pandas' ``Styler`` drew: its id is ``T_`` and five random hex digits (``uuid4().hex[:5]``).
_STYLER_TABLE = re.compile(r'<table id="T_([0-9a-f]{5})"')
#: What may not stand in a CSS id without escaping: a notebook's name is made of the rest (``05-collisions``).
_CSS_NAME = re.compile(r"[^A-Za-z0-9_-]")
#: Where a notebook's metadata keeps the state of its widgets, by model id; an output that shows a widget; how one
#: widget's state names another it holds.
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_HELD_WIDGET = re.compile(r"IPY_MODEL_([0-9a-f]{32})")
#: Where an object lay in memory, as its default repr ends: `` at 0x7fc4d6722bd0>``.
_ADDRESS = re.compile(r" at 0x[0-9a-f]+>")
#: The tag (and, here, the id) of the cell papermill adds with the parameters.
INJECTED = "injected-parameters"


@dataclass(frozen=True)
class NotebookRun:
    notebook: str
    executed: Path
    error: str | None
    #: The kernel's record of what it read (:mod:`probe_lib.present.reads`), beside the executed notebook; ``None``
    #: for a notebook kept from an earlier report.
    reads: Path | None = None
    #: Kept from the earlier report in the same folder (every input unchanged) rather than executed.
    reused: bool = False
    #: Why it was executed (``measurements/catalogue/mastra-1.67.0.json changed``), or why it was reused.
    because: str = ""


def reads_log(executed: Path) -> Path:
    """Where the kernel executing into ``executed`` records what it reads (removed before the report is whole)."""
    return executed.with_name(f".{executed.stem}.reads.jsonl")


def parameters(folder: Path, executed: Path, version: str) -> dict[str, str]:
    """The parameters a notebook executed into ``executed`` in the report ``folder`` is given."""
    return {"mastra_version": version, "measurements": os.path.relpath(folder / MEASUREMENTS, executed.parent)}


def execute(notebook: Path, folder: Path, version: str, source: Path | None = None) -> NotebookRun:
    """Execute one notebook with papermill (a real kernel) into ``folder/notebooks``; a failing cell is reported,
    not raised. ``source``: the file to execute when it is not ``notebook`` itself (a solved copy).

    The kernel runs in the executed notebook's own folder and is given ``folder/measurements`` as a relative path,
    and papermill's record of where the notebook came from and went is made relative too: the report embeds no
    path of the machine that ran it (nor of the staging folder it was built in), and an executed notebook reruns
    where it lies.
    """
    import papermill

    from probe_lib.present import kernels

    executed = folder / "notebooks" / notebook.name
    executed.parent.mkdir(parents=True, exist_ok=True)
    source = source or notebook
    log = reads_log(executed)
    recorder = f"__import__('probe_lib.present.reads', fromlist=['record']).record({str(log)!r})"
    error = None
    for start in range(1, KERNEL_STARTS + 1):
        try:
            papermill.execute_notebook(
                source,
                executed,
                parameters=parameters(folder, executed, version),
                kernel_name="python3",
                kernel_manager_class=kernels.KernelManager,
                cwd=str(executed.parent),
                progress_bar=False,
                log_output=False,
                execution_timeout=NOTEBOOK_CELL_SECONDS,
                start_timeout=KERNEL_START_SECONDS,
                extra_arguments=[*_QUIET_KERNEL, f"--IPKernelApp.exec_lines={recorder}"],
                record_timing=False,
                coalesce_streams=True,  # one print can arrive as several stream messages, split differently each run
            )
        except Exception as failure:  # papermill keeps the executed copy, with the failing cell's traceback
            if _died_at_start(failure) and start < KERNEL_STARTS:
                log.unlink(missing_ok=True)  # what the dead kernel may have begun to record
                continue
            error = f"{type(failure).__name__}: {str(failure).strip().splitlines()[-1][:300]}"
        break
    if executed.exists():
        _without_run_details(executed, source)
    return NotebookRun(notebook.name, executed, error, log)


def _died_at_start(failure: Exception) -> bool:
    """Whether the kernel died before it answered its client, so that no cell ran (jupyter_client's words)."""
    return isinstance(failure, RuntimeError) and "Kernel died before replying to kernel_info" in str(failure)


def _without_run_details(executed: Path, source: Path) -> None:
    """Replace papermill's absolute input and output paths by paths relative to the kit and to the report, and drop
    its timestamps: what is left depends on the notebook's inputs alone."""
    document = nbformat.read(executed, as_version=4)
    record = document.metadata.get("papermill", {})
    record["input_path"] = (
        source.relative_to(paths.ROOT).as_posix() if source.is_relative_to(paths.ROOT) else source.name
    )
    record["output_path"] = f"notebooks/{executed.name}"
    for kept in (record, *(cell.metadata.get("papermill", {}) for cell in document.cells)):
        for field in _RUN_TIMES:
            kept.pop(field, None)
    for cell in document.cells:  # papermill gives the cell it adds a random id
        if INJECTED in cell.metadata.get("tags", []):
            cell.id = INJECTED
    _number_styled_tables(document, executed.stem)
    executed.write_text(_numbered_widgets(document), encoding="utf-8")


def _number_styled_tables(document: nbformat.NotebookNode, notebook: str) -> None:
    """Give each table pandas' ``Styler`` drew the id ``T_<notebook>_<n>`` (its order in the notebook) for the random
    ``T_<5 hex digits>`` it drew it with, in its own output only, where the id names the table and its CSS rules;
    and drop the memory address from the ``Styler``'s plain-text repr beside it. The notebook's name keeps its
    tables' ids, and so their CSS rules, apart from another notebook's on a page showing both."""
    prefix = f"T_{_CSS_NAME.sub('_', notebook)}_"
    number = 0
    for cell in document.cells:
        for output in cell.get("outputs", []):
            plain = output.get("data", {}).get("text/plain")
            if isinstance(plain, str):  # its repr, <pandas.io.formats.style.Styler at 0x7f…>: where it lay in memory
                output["data"]["text/plain"] = _ADDRESS.sub(">", plain)
            page = output.get("data", {}).get("text/html")
            if not isinstance(page, str):
                continue
            for drawn in dict.fromkeys(_STYLER_TABLE.findall(page)):
                page = re.sub(rf"\bT_{drawn}(?=[_\"\s{{])", f"{prefix}{number}", page)
                number += 1
            output["data"]["text/html"] = page


def _numbered_widgets(document: nbformat.NotebookNode) -> str:
    """The notebook as text, each widget's random model id (``uuid4().hex``, in its saved state, its views and the
    other widgets that hold it) replaced by its number in :func:`_widget_order`, the state then written out in the
    order of those numbers (nbformat sorts keys)."""
    state = document.metadata.get("widgets", {}).get(_WIDGET_STATE, {}).get("state", {})
    text = nbformat.writes(document)
    for number, model in enumerate(_widget_order(document, state)):
        text = text.replace(model, f"{number:032x}")
    text = nbformat.writes(nbformat.reads(text, as_version=4)) if state else text
    return text if text.endswith("\n") else text + "\n"


def _widget_order(document: nbformat.NotebookNode, state: dict) -> list[str]:
    """The widgets' model ids in an order that depends on the notebook alone: from each widget view among the
    outputs, in document order, every widget it holds, depth first (a model's references in the order of its sorted
    state); then any widget no view holds, by its state with the ids left out. The order the kernel made them in
    is not such an order: it changes between two executions of the explorer."""
    order: dict[str, None] = {}

    def visit(model: str) -> None:
        if model in state and model not in order:
            order[model] = None
            for held in _HELD_WIDGET.findall(json.dumps(state[model].get("state", {}), sort_keys=True)):
                visit(held)

    for cell in document.cells:
        for output in cell.get("outputs", []):
            if (view := output.get("data", {}).get(WIDGET_VIEW)) is not None:
                visit(view.get("model_id", ""))
    unheld = [model for model in state if model not in order]
    unheld.sort(key=lambda model: _HELD_WIDGET.sub("", json.dumps(state[model], sort_keys=True)))
    return [*order, *unheld]


def execute_all(
    work: Sequence[tuple[Path, Path | None]], folder: Path, version: str, jobs: int | None, step: Callable[[str], None]
) -> tuple[NotebookRun, ...]:
    """Execute every ``(notebook, source)`` of ``work`` (see :func:`execute`), each in a worker process of its own
    (:func:`probe_lib.process.forked.each`), ``jobs`` at a time, the longest on this machine's record
    (:data:`DURATIONS`) first; ``step`` is told each one's name as it finishes. The runs come back in ``work``'s order.

    One process per notebook client: jupyter clients sharing one process's threads can miss a kernel's reply and wait
    forever (seen here), and a cell that overruns NOTEBOOK_CELL_SECONDS fails its notebook, not the run. The workers
    are forked with papermill imported, and their kernels from one zygote (:func:`probe_lib.present.kernels.warm`).
    """
    if not work:
        return ()  # every notebook kept: no zygote to start, no papermill to import
    import papermill  # noqa: F401 (imported once here, not by every worker)

    from probe_lib.present import kernels

    known = durations()
    order = sorted(range(len(work)), key=lambda index: -known.get(work[index][0].stem, 0.0))  # stable: others in turn
    with kernels.warm():
        timed = forked.each(
            _execute_quietly,
            [(work[index][0], folder, version, work[index][1]) for index in order],
            slots=jobs,
            names=[work[index][0].stem for index in order],
            done=lambda position: step(work[order[position]][0].stem),
        )
    by_index = dict(zip(order, timed, strict=True))
    _record(known | {work[index][0].stem: seconds for index, (_, seconds) in by_index.items()})
    return tuple(by_index[index][0] for index in range(len(work)))


def durations() -> dict[str, float]:
    """This machine's record of :data:`DURATIONS`; empty where there is none or it cannot be read (it orders work,
    nothing else)."""
    try:
        record = json.loads((paths.cache() / DURATIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict):
        return {}
    seconds = {name: float(value) for name, value in record.items() if isinstance(value, int | float)}
    return {name: value for name, value in seconds.items() if math.isfinite(value)}  # NaN would not sort


def _record(durations: dict[str, float]) -> None:
    try:
        paths.cache().mkdir(parents=True, exist_ok=True)
        files.write_json(paths.cache() / DURATIONS, {name: round(seconds, 1) for name, seconds in durations.items()})
    except OSError:
        pass  # an unwritable cache costs the order only


def _execute_quietly(notebook: Path, folder: Path, version: str, source: Path | None) -> tuple[NotebookRun, float]:
    """:func:`execute` in a worker, keeping asyncio's noise out of the run's output: when Ctrl-C reaches the kernels,
    nbclient leaves tasks whose "Kernel died" asyncio logs with a traceback at exit; the run reports each notebook
    itself."""
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    started = time.monotonic()
    run = execute(notebook, folder, version, source)
    return run, time.monotonic() - started
