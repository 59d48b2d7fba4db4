"""Recorded outcomes of the catalogue, one JSON file per pinned version, so the kit runs where Node is missing.

``record()`` reruns the whole catalogue live and rewrites ``data/captures/mastra-<version>.json``; ``load()``
reads a recording back as ``Outcome`` objects equal to what a live run returns (timings and a run's incidentals
excepted). The files are deterministic: keys sorted, timings dropped, what changes from run to run named by a
placeholder (:func:`without_incidentals`), so a re-recording that changes nothing changes no byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter

from probe_lib.adapters import mastra, npm
from probe_lib.adapters.mastra import Outcome, catalogue
from probe_lib.capture import CaptureServer
from probe_lib.core import files, paths
from probe_lib.core.errors import InputError

#: ``Outcome`` to and from JSON through its declared field types (tuples, ``Failure``), so no field is converted
#: by hand; the scenario is written by name and read back from the catalogue it names.
_OUTCOME = TypeAdapter(Outcome)
#: Not measured (timings) or not stored (the scenario, written by name).
_UNRECORDED = {"scenario", "elapsed_ms"}
#: Measured only by the scenarios that ask, and left out of the others' entries (read back as ``None``).
_ONLY_WHERE_ASKED = {"surfaces"}
#: What changes from one run to the next while the framework does the same, with the placeholder a measurement file
#: names it by: the capture server's port (in the URLs the Python frameworks' errors quote) and the fresh home the
#: Claude Agent SDK's runner makes for each turn (``mkdtemp`` in its ``runner.mjs``; the CLI's prompt names it as its
#: working directory). Mastra's runner names its own incidentals alike (``<port>``, ``<uuid>``).
_INCIDENTALS = (
    (re.compile(r"(127\.0\.0\.1):\d+"), r"\1:<port>"),
    (re.compile(r"[^\s\"'`]*/probe-claude-home-[A-Za-z0-9]{6}"), "<claude home>"),
)
#: The ids the Claude Code CLI draws for each session, in the Anthropic request's ``metadata.user_id``.
_SESSION_IDS = (
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"\b[0-9a-f]{32,}\b"), "<id>"),
)


def recording_path(version: str) -> Path:
    return paths.CAPTURES / f"mastra-{version}.json"


def outcome_to_json(outcome: Outcome) -> dict:
    """A recording entry: every measured field, the scenario by name, no timing."""
    unasked = {name for name in _ONLY_WHERE_ASKED if getattr(outcome, name) is None}
    entry = _OUTCOME.dump_python(outcome, mode="json", exclude=_UNRECORDED | unasked)
    return {**without_incidentals(entry), "scenario": outcome.scenario.name}


def without_incidentals(value: object, key: str | None = None) -> object:
    """``value`` (an outcome's JSON, or any part of it) with each of a run's incidentals named by its placeholder:
    two measurements of one behaviour are then the same bytes, and so a report's notebooks that read them are kept
    (:mod:`probe_lib.present.staleness`). ``key``: the field ``value`` is found under."""
    if isinstance(value, dict):
        return {name: without_incidentals(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [without_incidentals(item) for item in value]
    if isinstance(value, str):
        for pattern, placeholder in _INCIDENTALS + (_SESSION_IDS if key == "user_id" else ()):
            value = pattern.sub(placeholder, value)
    return value


def outcome_from_json(data: dict, scenarios: dict) -> Outcome:
    """A recording entry read back (a field only some adapters measure, such as Mastra's logs, may be absent)."""
    name = data["scenario"]
    if name not in scenarios:
        raise InputError(
            f"the recording names scenario {name!r}, which the catalogue no longer has: run `probe-lib record`"
        )
    return _OUTCOME.validate_python({**data, "scenario": scenarios[name]})


def write(
    path: Path,
    version: str,
    outcomes: Sequence[Outcome],
    source: str,
    *,
    node: str | None = None,
    on: str | None = None,
    resolved_before: str | None = None,
) -> Path:
    """Write a measurement file: ``source`` says whether it was measured live or copied from a recording; a live
    one also names the Node.js version (``node``) and the UTC date (``on``) it was measured with and on, and, on a
    served release's environment, the date its dependencies were resolved as of (``resolved_before``; a pin's
    environment is its committed lock, and a file without the field ran on one)."""
    stamp = {"node": node, "measured_on": on} if node is not None and on is not None else {}
    if resolved_before is not None:
        stamp["resolved_before"] = resolved_before
    document = {"mastra": version, "source": source, **stamp, "outcomes": [outcome_to_json(o) for o in outcomes]}
    path.parent.mkdir(parents=True, exist_ok=True)
    return files.write_json(path, document)  # atomic: an interrupted run never leaves a truncated recording


def provenance(path: Path) -> str:
    """How a measurement file was made, as the ledger's ``source`` column says it: live or recorded, the
    ``@mastra/core`` version, and the Node.js version and date where the file notes them."""
    document = json.loads(path.read_text(encoding="utf-8"))
    return provenance_text(
        document["source"],
        document["mastra"],
        document.get("node"),
        document.get("measured_on"),
        document.get("resolved_before"),
    )


def recording_stamp(version: str) -> dict[str, str]:
    """The Node.js version and UTC day the shipped recording of ``version`` was measured with and on (``write``'s
    ``node`` and ``on``), as a copy of it keeps them; empty for a recording that does not note them."""
    document = json.loads(recording_path(version).read_text(encoding="utf-8"))
    noted = {"node": document.get("node"), "on": document.get("measured_on")}
    return noted if None not in noted.values() else {}


def live_stamp() -> dict[str, str]:
    """What a live measurement notes of itself: the Node.js version it ran on and the UTC day (``write``'s ``node``
    and ``on``)."""
    return {"node": npm.node_version(), "on": datetime.now(UTC).date().isoformat()}


def provenance_text(
    made: str, version: str, node: str | None = None, on: str | None = None, resolved_before: str | None = None
) -> str:
    """The ledger's ``source`` text for outcomes of ``version`` made ``made`` (live or recorded), with the Node.js
    version and UTC date of a live measurement where they are known, and the date a served release's dependencies
    were resolved as of."""
    resolved = f", dependencies as of {resolved_before}" if resolved_before else ""
    if node is not None and on is not None:
        return f"{made}, @mastra/core {version}, Node.js {node}, {on}{resolved}"
    return f"{made}, @mastra/core {version}, Node.js and date not noted in the recording{resolved}"


def measure(version: str, server: CaptureServer | None = None) -> list[Outcome]:
    """The whole catalogue, measured live on ``version`` now (two Node runners), in catalogue order."""
    return mastra.run(catalogue.scenarios(), version, server=server, workers=2)


def record(versions: Sequence[str] | None = None) -> list[Path]:
    """Run the catalogue live on each version and write its recording, noting the Node.js version and the day it
    ran on (the ledger's ``source`` column names them); returns the files written."""
    return [
        write(recording_path(version), version, measure(version), "live", **live_stamp())
        for version in versions or mastra.ADAPTER.versions()
    ]


def read(path: Path) -> list[Outcome]:
    """The outcomes in a measurement file, in catalogue order."""
    document = json.loads(path.read_text(encoding="utf-8"))
    scenarios = catalogue.by_name()
    return [outcome_from_json(entry, scenarios) for entry in document["outcomes"]]


def load(version: str) -> list[Outcome]:
    """The recorded outcomes of ``version`` (``data/captures/``), in catalogue order."""
    path = recording_path(mastra.ADAPTER.check_version(version))
    if not path.exists():
        raise InputError(
            f"no recording for @mastra/core {version} at {path}: run `probe-lib record` where Node is installed"
        )
    return read(path)


def outcomes_from_file(path: Path) -> dict[str, Outcome]:
    """A measurement file's outcomes by scenario name."""
    return {outcome.scenario.name: outcome for outcome in read(path)}


def outcomes(version: str, *, live: bool) -> dict[str, Outcome]:
    """The catalogue's outcomes on ``version`` by scenario name: measured now (``live``) or recorded."""
    measured = measure(version) if live else load(version)
    return {outcome.scenario.name: outcome for outcome in measured}
