"""``probe-lib export``: every measured outcome the kit holds, as one tidy table in CSV and Parquet, with its dictionary.

Outcomes are read from measurement files, found by file (:func:`probe_lib.study.measurement_files.discover`):
first those in a primary folder (``reproduce`` passes its fresh ``measurements/``), then every other file under
``data/captures/`` (the pinned versions' recordings, and whatever recordings of other frameworks or sweeps sit
there). An outcome of a scenario on a target already read is not read twice. A JSON file that is not a measurement
file is listed as skipped, never dropped silently.

Files written into the output folder:

    outcomes.csv        the tidy table (probe_lib.study.tidy), one row per scenario × target × tool; a missing
                        value is written <NA> and an empty cell is an empty string (a key can be "": read it
                        back with :func:`read_csv`, or pandas' keep_default_na=False, na_values=["<NA>"])
    outcomes.parquet    the same, with its column types kept
    dictionary.csv      every column: name, type, meaning
"""

from __future__ import annotations

import json

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.study import measurement_files, tidy

FILES = ("outcomes.csv", "outcomes.parquet", "dictionary.csv")
#: How the CSV writes a missing value: not as an empty cell, which an empty key (the catalogue's empty-key) is.
CSV_MISSING = "<NA>"


@dataclass(frozen=True)
class Export:
    """What an export read and wrote."""

    frame: pd.DataFrame
    read: tuple[Path, ...]
    #: Files found but not readable as measurement files, each with why.
    skipped: tuple[str, ...]
    written: tuple[Path, ...]


def gather(primary: Path | None = None, captures: Path = paths.CAPTURES) -> tuple[pd.DataFrame, list[Path], list[str]]:
    """The tidy table of every outcome in ``primary`` then ``captures``, the files read, and the files skipped."""
    # This run's measurements (``primary``) replace their recordings; files in ``captures`` are all kept, since two
    # collections (the catalogue, the framework matrix) may each hold the same turn as a measurement of their own.
    replaced: set[tuple[str, str, str, str]] = set()
    outcomes: list[Outcome] = []
    files: list[str] = []
    read: list[Path] = []
    skipped: list[str] = []
    candidates = [*((path, True) for path in (measurement_files.discover(primary) if primary else [])),
                  *((path, False) for path in measurement_files.discover(captures))]
    for path, is_primary in candidates:
        try:
            found, _ = measurement_files.read(path)
        except InputError as error:
            skipped.append(str(error))
            continue
        read.append(path)
        for outcome in found:
            identity = (outcome.framework, outcome.version, outcome.scenario.name,
                        json.dumps(outcome.scenario.to_json(""), sort_keys=True))
            if is_primary:
                replaced.add(identity)
            elif identity in replaced:
                continue
            outcomes.append(outcome)
            files.append(str(path.relative_to(primary.parent)) if is_primary else measurement_files.shown(path))
    return tidy.frame(outcomes, ["recorded"] * len(outcomes), files), read, skipped


def write_tables(frame: pd.DataFrame, folder: Path) -> list[Path]:
    """``frame`` as CSV and Parquet, and its data dictionary, into ``folder``; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, parquet_path, dictionary_path = (folder / name for name in FILES)
    frame.to_csv(csv_path, index=False, na_rep=CSV_MISSING)
    frame.to_parquet(parquet_path, index=False)
    tidy.dictionary().to_csv(dictionary_path, index=False)
    return [csv_path, parquet_path, dictionary_path]


def read_csv(path: Path) -> pd.DataFrame:
    """An exported ``outcomes.csv`` read back with its types, and empty strings kept apart from missing values."""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[CSV_MISSING], dtype=str)
    for column in frame.columns:
        dtype = tidy.DTYPES.get(column, "string")
        if dtype == "boolean":
            frame[column] = frame[column].map({"True": True, "False": False})
        elif dtype == "Int64":
            frame[column] = pd.to_numeric(frame[column])
        frame[column] = frame[column].astype(dtype)
    return frame


def check_folder(folder: Path, also_ours: Callable[[Path], bool] = lambda path: False) -> None:
    """Refuse a folder holding anything but an earlier export's files (or files ``also_ours`` accepts), so no file
    the kit did not write is replaced."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} is a file; give a folder (new, empty, or an earlier export)")
    if folder.exists():
        foreign = sorted(p.name for p in folder.iterdir() if p.name not in FILES and not also_ours(p))
        if foreign:
            raise InputError(f"--out {folder} holds files the kit did not write ({', '.join(foreign[:3])}); "
                             "choose a new or empty folder")


def export(folder: Path, primary: Path | None = None) -> Export:
    """Write every measured outcome (see the module docstring) into ``folder``."""
    check_folder(folder)
    frame, read, skipped = gather(primary)
    written = write_tables(frame, folder)
    return Export(frame, tuple(read), tuple(skipped), tuple(written))
