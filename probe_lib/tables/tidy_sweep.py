"""The sweep over served ``@mastra/core`` versions as one tidy table: a row per version × scenario × tool sent.

Two sources hold swept versions: Mastra's lines of the committed timeline ``data/timeline.csv`` and, on a machine
that ran ``probe-lib sweep``, the per-version cache under the current catalogue digest
(:func:`probe_lib.history.sweep.all_cached`).
A version the cache holds is taken from it (it was measured here, under the scenarios and harness of this checkout),
unless the cache says only that the version could not be installed or run and the summary has it measured; every
other version comes from the summary. Each row names its source and file.

The behaviour JSON of a row (``Outcome.behaviour``) is taken apart: one row per name sent in the
first request, at its index; a turn that sent no tools (a collision, a crash, a scenario the version cannot express)
is one row with the wire columns empty. A version that could not be installed or run at all is one row whose
scenario is ``*``.

:data:`COLUMNS` is this table's part of the data dictionary.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from probe_lib import wire
from probe_lib.core import paths
from probe_lib.core.behaviour import Behaviour, Raised
from probe_lib.core.target import version_key
from probe_lib.frameworks import mastra
from probe_lib.history.sweep import WHOLE_VERSION, Row
from probe_lib.tables import tidy

SUMMARY = "summary"
CACHE = "cache"

#: Every column: name, pandas dtype, meaning. The order is the table's.
COLUMNS: tidy.Columns = (
    ("version", "string", "the @mastra/core version swept (rows are in semver order)"),
    ("pinned", "boolean", "the version is one the kit pins (its full recording is in the outcomes table too)"),
    (
        "scenario",
        "string",
        f"the catalogue scenario's name; {WHOLE_VERSION} for the one row of a version that could not be installed "
        "or run",
    ),
    (
        "source",
        "string",
        f"{SUMMARY}: the committed data/timeline.csv; {CACHE}: this machine's sweep cache "
        "(measured by probe-lib sweep)",
    ),
    (
        "recording",
        "string",
        "the file the row was read from: data/timeline.csv, or <cache>/sweep/<catalogue digest>/<version>.json",
    ),
    (
        "outcome",
        "string",
        "digest of the turn's behaviour (names and tool_choice sent, requests, executions, errors): "
        "equal digests, same behaviour",
    ),
    (
        "error_kind",
        "string",
        "collision, crash, not applicable, install failed or run failed (empty: the turn failed on nothing of its own)",
    ),
    (
        "error_text",
        "string",
        "the failure's message, else the first error the turn raised other than the capture server's 400 (empty: none)",
    ),
    ("collision_name", "string", "the name two keys rewrote onto, when error_kind is collision (empty otherwise)"),
    ("requests", "Int64", "model calls the turn sent (empty: the version could not run)"),
    ("executions", "Int64", "times a tool's execute ran during the turn (empty: the version could not run)"),
    (
        "errors_raised",
        "string",
        "every error the turn raised other than the capture server's 400, as a JSON list (first line of each)",
    ),
    ("tools_sent", "Int64", "how many tools the first request held (empty: no request was sent)"),
    ("wire_name", "string", "one tool name as the first request sent it (empty: no tools were sent)"),
    ("position_after", "Int64", "index of wire_name in the first request's tools (empty: no tools were sent)"),
    (
        "tool_choice_sent",
        "string",
        "the first request's tool_choice exactly as sent, as JSON (empty: no request, or none in it)",
    ),
    ("forced_tool", "string", "the function the first request's tool_choice forces (empty: none)"),
    ("forced_in_tools", "boolean", "forced_tool is among the first request's tool names (empty: nothing forced)"),
)


def chosen_rows(summary: Sequence[Row], cached: Sequence[Row]) -> list[tuple[Row, str]]:
    """Each swept version's rows with their source: the cache's, unless it holds only a failure the summary lacks."""
    by_version: dict[str, list[tuple[Row, str]]] = {}
    for row in summary:
        by_version.setdefault(row.version, []).append((row, SUMMARY))
    fresh: dict[str, list[Row]] = {}
    for row in cached:
        fresh.setdefault(row.version, []).append(row)
    for version, rows in fresh.items():
        failed_only = all(row.scenario == WHOLE_VERSION for row in rows)
        if not (failed_only and version in by_version):
            by_version[version] = [(row, CACHE) for row in rows]
    return [
        pair
        for version in sorted(by_version, key=version_key)
        for pair in sorted(by_version[version], key=lambda pair: pair[0].scenario)
    ]


def rows(row: Row, source: str, recording: str, pinned: bool) -> list[dict]:
    """The tidy rows of one summary or cache row (at least one)."""
    behaviour = Behaviour.from_json(json.loads(row.behaviour))
    error = behaviour.error or Raised("")
    raised = behaviour.errors
    names = behaviour.names
    choice = behaviour.tool_choice
    forced = wire.forced_by(choice)
    whole = row.scenario == WHOLE_VERSION
    common = {
        "version": row.version,
        "pinned": pinned,
        "scenario": row.scenario,
        "source": source,
        "recording": recording,
        "outcome": row.outcome,
        "error_kind": row.error_kind or None,
        "error_text": error.message or (raised[0] if raised else None),
        "collision_name": error.name if error.kind == "collision" else None,
        "requests": None if whole else behaviour.requests or 0,
        "executions": None if whole else behaviour.executions or 0,
        "errors_raised": None if raised is None else json.dumps(list(raised), ensure_ascii=False),
        "tools_sent": None if names is None else len(names),
        "tool_choice_sent": tidy.json_text(choice),
        "forced_tool": forced,
        "forced_in_tools": None if forced is None else forced in (names or []),
    }
    if not names:
        return [common]
    return [common | {"wire_name": name, "position_after": index} for index, name in enumerate(names)]


def _shown(folder: Path) -> str:
    """``folder`` written under ``<cache>`` (wherever the cache is) so no home folder shows."""
    cache = paths.cache()
    return f"<cache>/{folder.relative_to(cache).as_posix()}" if folder.is_relative_to(cache) else folder.as_posix()


def frame(
    summary: Sequence[Row], cached: Sequence[Row], cache_folder: Path, summary_file: str = "data/timeline.csv"
) -> pd.DataFrame:
    """The tidy table of the swept versions (see the module docstring), typed per :data:`COLUMNS`; ``cached`` rows
    were read from ``cache_folder``."""
    pinned, folder = set(mastra.ADAPTER.versions()), _shown(cache_folder)
    table = [
        line
        for row, source in chosen_rows(summary, cached)
        for line in rows(
            row, source, summary_file if source == SUMMARY else f"{folder}/{row.version}.json", row.version in pinned
        )
    ]
    return tidy.typed_frame(table, COLUMNS)
