"""``probe-lib export``: every measured outcome the kit holds, as tidy tables in CSV and Parquet, with their dictionary.

Three tables, each built from its own source and each row naming the file it came from:

``outcomes``
    every turn in a measurement file (:mod:`probe_lib.tables.tidy`), found by file
    (:func:`probe_lib.measure.measurement.measurements`): first those in a primary folder (``reproduce`` passes its
    fresh ``measurements/``), then every other file under ``data/captures/`` (the catalogue on the pinned versions,
    the framework matrix, the list probes, the example's recordings). An outcome of a scenario on a target already
    read is not read twice. A JSON file that is not a measurement file is listed as skipped, never dropped silently.
``version_sweep``
    every swept ``@mastra/core`` version (:mod:`probe_lib.tables.tidy_sweep`): the committed summary
    ``data/timeline.csv`` (Mastra's lines), with this machine's sweep cache laid over it.
``mcp_corpus``
    every MCP tool set of the corpus as the real ``@mastra/mcp`` loaded it (:mod:`probe_lib.tables.tidy_mcp`).

Files written into the output folder, which is replaced as a whole or not at all (:mod:`probe_lib.core.folders`:
the set is built beside it and swapped in, so an interrupted export or a full disk leaves the earlier set whole,
and a folder holding a file the kit did not write is refused, whatever that file is called):

    <table>.csv         the table; a missing value is written <NA> and an empty cell is an empty string (a key can
                        be "": read it back with :func:`read_csv`, or pandas' keep_default_na=False,
                        na_values=["<NA>"])
    <table>.parquet     the same, with its column types kept
    dictionary.csv      every column of every table: table, column, type, meaning
    .probe-lib-manifest.json    the files above, so a later export knows they are the kit's
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from probe_lib.core import files, folders, paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import mcp
from probe_lib.history import framework_sweep, sweep, timeline
from probe_lib.measure import measurement
from probe_lib.measure.provenance import Provenance
from probe_lib.tables import tidy, tidy_mcp, tidy_sweep

OUTCOMES = "outcomes"
VERSION_SWEEP = "version_sweep"
MCP_CORPUS = "mcp_corpus"
#: Every table the export writes, with its columns (name, pandas dtype, meaning), in the dictionary's order.
TABLES: dict[str, tidy.Columns] = {
    OUTCOMES: tidy.COLUMNS,
    VERSION_SWEEP: tidy_sweep.COLUMNS,
    MCP_CORPUS: tidy_mcp.COLUMNS,
}
DICTIONARY = "dictionary.csv"


#: How the CSV writes a missing value: not as an empty cell, which an empty key (the catalogue's empty-key) is.
CSV_MISSING = "<NA>"
#: How each table is written, by the suffix of its file.
WRITERS: dict[str, Callable[[pd.DataFrame, Path], object]] = {
    "csv": lambda frame, path: frame.to_csv(path, index=False, na_rep=CSV_MISSING),
    "parquet": lambda frame, path: frame.to_parquet(path, index=False),
}
#: What ``probe-lib export`` and ``reproduce`` write: each table's CSV and Parquet, then the dictionary.
FILES = (*(f"{name}.{suffix}" for name in TABLES for suffix in WRITERS), DICTIONARY)


@dataclass(frozen=True)
class Export:
    """What an export read and wrote."""

    #: Every table by name (see :data:`TABLES`).
    tables: Mapping[str, pd.DataFrame]
    read: tuple[Path, ...]
    #: Files found but not readable as measurement files, each with why.
    skipped: tuple[str, ...]
    written: tuple[Path, ...]

    @property
    def frame(self) -> pd.DataFrame:
        """The outcomes table."""
        return self.tables[OUTCOMES]


def gather(primary: Path | None = None, captures: Path = paths.CAPTURES) -> tuple[pd.DataFrame, list[Path], list[str]]:
    """The tidy table of every outcome in ``primary`` then ``captures``, the files read, and the files skipped."""
    # This run's measurements (``primary``) replace their recordings; files in ``captures`` are all kept, since two
    # collections (the catalogue, the framework matrix) may each hold the same turn as a measurement of their own.
    replaced: set[tuple[str, str, str, str]] = set()
    outcomes: list[Outcome] = []
    files: list[str] = []
    made: list[str] = []
    read: list[Path] = []
    skipped: list[str] = []
    candidates = [
        *((found, True) for found in (measurement.measurements(primary) if primary else [])),
        *((found, False) for found in measurement.measurements(captures)),
    ]
    for found, is_primary in candidates:
        if isinstance(found, InputError):
            skipped.append(str(found))
            continue
        path = found.file
        read.append(path)
        for outcome in found.outcomes:
            identity = (
                outcome.framework,
                outcome.version,
                outcome.scenario.name,
                json.dumps(outcome.scenario.to_json(""), sort_keys=True),
            )
            if is_primary:
                replaced.add(identity)
            elif identity in replaced:
                continue
            outcomes.append(outcome)
            files.append(str(path.relative_to(primary.parent)) if is_primary else measurement.shown(path))
            # A run's own file says whether that run measured it live; a file of data/captures is a recording.
            made.append(str(found.made.how) if is_primary else str(Provenance.RECORDED))
    return tidy.frame(outcomes, made, files), read, skipped


def gather_sweep(cached: Sequence[sweep.Row] | None = None) -> pd.DataFrame:
    """The version sweep table: Mastra's lines of the committed timeline with the ``cached`` rows laid over it
    (default: this machine's cache)."""
    subject, summary = framework_sweep.subject(mastra.ADAPTER.name), timeline.TIMELINE_PATH
    rows = timeline.rows(subject.framework, path=summary) if summary.exists() else []
    cached = sweep.all_cached(subject) if cached is None else cached
    return tidy_sweep.frame(rows, cached, sweep.cache_dir(subject), measurement.shown(summary))


def gather_all(primary: Path | None = None) -> tuple[dict[str, pd.DataFrame], list[Path], list[str]]:
    """Every table (see the module docstring), the measurement files read and what was skipped, and why."""
    outcomes, read, skipped = gather(primary)
    inputs = (
        (
            timeline.TIMELINE_PATH,
            f"{VERSION_SWEEP} holds only this machine's sweep cache (`probe-lib sweep --write` makes it)",
        ),
        (mcp.RECORDING, f"{MCP_CORPUS} is empty (`probe-lib record` makes it where Node.js is installed)"),
    )
    skipped += [f"{measurement.shown(path)} is missing: {without}" for path, without in inputs if not path.exists()]
    corpus = tidy_mcp.frame(mcp.RECORDING) if mcp.RECORDING.exists() else tidy.typed_frame([], tidy_mcp.COLUMNS)
    return {OUTCOMES: outcomes, VERSION_SWEEP: gather_sweep(), MCP_CORPUS: corpus}, read, skipped


def dictionary(tables: Iterable[str] = TABLES) -> pd.DataFrame:
    """The data dictionary of ``tables``: one row per column (table, column, type, meaning)."""
    return pd.DataFrame(
        [(table, *column) for table in tables for column in TABLES[table]],
        columns=["table", "column", "type", "meaning"],
    )


def _utf8(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each lone surrogate of its text (legal in a JSON string, so in a user's key) as its ``\\uXXXX``
    escape, as the measurement files write it: CSV and Parquet hold UTF-8 only, which has no form for one."""
    text = frame.select_dtypes(include=["object", "string"]).columns
    if len(text) == 0:
        return frame
    escaped = frame.copy()
    for column in text:
        escaped[column] = (
            escaped[column]
            .map(
                lambda value: (
                    value.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(value, str) else value
                )
            )
            .astype(frame[column].dtype)  # the column keeps its type: a text column stays text when all missing
        )
    return escaped


def write_tables(tables: Mapping[str, pd.DataFrame] | pd.DataFrame, folder: Path) -> list[Path]:
    """Each table as CSV and Parquet, and their data dictionary, into ``folder``; returns the files written.

    A lone frame is the outcomes table (what ``probe-lib run --out`` writes).
    """
    tables = {OUTCOMES: tables} if isinstance(tables, pd.DataFrame) else tables
    tables = {name: _utf8(frame) for name, frame in tables.items()}
    folder.mkdir(parents=True, exist_ok=True)
    written = [
        files.write_atomically(folder / f"{name}.{suffix}", lambda path, frame=frame, write=write: write(frame, path))
        for name, frame in tables.items()
        for suffix, write in WRITERS.items()
    ]
    written.append(
        files.write_atomically(folder / DICTIONARY, lambda path: dictionary(tables).to_csv(path, index=False))
    )
    return written


def read_csv(path: str | Path, table: str | None = None) -> pd.DataFrame:
    """An exported table's CSV read back with its types, and empty strings kept apart from missing values.

    ``path``: the file, as a path or a string. ``table``: which table it is (default: the file's name,
    ``version_sweep.csv`` -> ``version_sweep``; a name that is no table's is read as the outcomes table, which
    ``probe-lib run --out`` writes).
    """
    dtypes = {name: dtype for name, dtype, _ in TABLES.get(table or Path(path).stem, TABLES[OUTCOMES])}
    frame = pd.read_csv(path, keep_default_na=False, na_values=[CSV_MISSING], dtype=str)
    for column in frame.columns:
        dtype = dtypes.get(column, "string")
        if dtype == "boolean":
            frame[column] = frame[column].map({"True": True, "False": False})
        elif dtype == "Int64":
            frame[column] = pd.to_numeric(frame[column])
        frame[column] = frame[column].astype(dtype)
    return frame


def export(folder: Path) -> Export:
    """Replace ``folder`` with every table (see the module docstring), whole; ``FolderRefused`` if it may not be."""
    with folders.replacing(folder) as staging:
        result = write_all(staging)
    return replace(result, written=tuple(folder / path.relative_to(staging) for path in result.written))


def write_all(folder: Path, primary: Path | None = None) -> Export:
    """Write every table into ``folder``, a new folder of the caller's (``reproduce`` writes its report's
    ``export/`` so, with its fresh measurements as ``primary``)."""
    tables, read, skipped = gather_all(primary)
    written = write_tables(tables, folder)
    return Export(tables, tuple(read), tuple(skipped), tuple(written))
