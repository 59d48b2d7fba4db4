"""Recorded outcomes of the catalogue, one JSON file per pinned version, so the kit runs where Node is missing.

``record()`` reruns the whole catalogue live and rewrites ``data/captures/mastra-<version>.json``; ``load()``
reads a recording back as ``Outcome`` objects equal to what a live run returns (timings excepted). The files
are deterministic: keys sorted, timings dropped, so a re-recording that changes nothing changes no byte.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import TypeAdapter

from probe_lib.adapters import mastra
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


def recording_path(version: str) -> Path:
    return paths.CAPTURES / f"mastra-{version}.json"


def outcome_to_json(outcome: Outcome) -> dict:
    """A recording entry: every measured field, the scenario by name, no timing."""
    unasked = {name for name in _ONLY_WHERE_ASKED if getattr(outcome, name) is None}
    entry = _OUTCOME.dump_python(outcome, mode="json", exclude=_UNRECORDED | unasked)
    return {**entry, "scenario": outcome.scenario.name}


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
    made = f"{document['source']}, @mastra/core {document['mastra']}"
    resolved = f", dependencies as of {document['resolved_before']}" if "resolved_before" in document else ""
    if "node" in document:
        return f"{made}, Node.js {document['node']}, {document['measured_on']}{resolved}"
    return f"{made}, Node.js and date not noted in the recording{resolved}"


def measure(version: str, server: CaptureServer | None = None) -> list[Outcome]:
    """The whole catalogue, measured live on ``version`` now (two Node runners), in catalogue order."""
    return mastra.run(catalogue.scenarios(), version, server=server, workers=2)


def record(versions: Sequence[str] | None = None) -> list[Path]:
    """Run the catalogue live on each version and write its recording; returns the files written."""
    return [
        write(recording_path(version), version, measure(version), "live")
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
