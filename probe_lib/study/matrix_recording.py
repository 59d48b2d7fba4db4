"""The framework matrix's recording, ``data/captures/frameworks.json``: every request body of every probe on every
target, so the matrix is read without any framework installed (and ``reproduce`` writes one per report).

The file is deterministic (targets in name and version order, keys sorted, timings dropped) and carries the probes'
scenarios, so a reader of measurement files (the export) registers each probe's own keys rather than a catalogue
scenario of the same name (``length-64``). Its ``source`` is ``live``, or ``mixed`` with ``sources`` saying how each
target was obtained; ``measured`` notes each target's runtime and the day it was measured on.
"""

from __future__ import annotations

import functools
import json
import platform
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from probe_lib import adapters
from probe_lib.adapters import npm
from probe_lib.core import files, paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, for_keys
from probe_lib.core.target import release_key
from probe_lib.inputs import scenario_files
from probe_lib.study.matrix_runs import PROBES, ROUND_TRIP, by_target, round_trips, scenarios
from probe_lib.study.provenance import Provenance
from probe_lib.study.recordings import outcome_from_json, outcome_to_json

RECORDING = paths.CAPTURES / "frameworks.json"


def recorded_scenarios() -> list[Scenario]:
    """What a matrix recording says its scenarios are: the probes, then each probe's round trip with its keys (the
    call a round trip scripts is the name one target sent, so it differs per target: each outcome's requests hold
    it)."""
    return scenarios() + [for_keys(probe.name + ROUND_TRIP, probe.keys) for probe in PROBES]


def _order() -> dict[str, int]:
    """Each scenario name's place in a recording: plain and forced runs in probe order, then the round trips."""
    return {scenario.name: number for number, scenario in enumerate(recorded_scenarios())}


def write(outcomes: Sequence[Outcome], path: Path = RECORDING, sources: Mapping[str, Provenance] | None = None) -> Path:
    """Write a matrix recording; ``sources`` says how each target (``framework@version``) was obtained (default:
    all live). Each target notes the runtime and UTC day it was measured with and on: now for one measured live,
    the shipped recording's note for one copied from it."""
    order = _order()
    ordered = sorted(outcomes, key=lambda o: (o.framework, release_key(o.version), order[o.scenario.name]))
    made = {target: (sources or {}).get(target, Provenance.LIVE) for target in sorted(by_target(outcomes))}
    copied = any(how != Provenance.LIVE for how in made.values())  # their notes come from the shipped recording
    recorded = _measured(RECORDING) if copied and RECORDING.exists() else {}
    measured = {
        target: _noted_now(target) if how == Provenance.LIVE else recorded.get(target) for target, how in made.items()
    }
    document = {
        "source": Provenance.LIVE,
        "measured": {target: noted for target, noted in measured.items() if noted},
        "scenarios": scenario_files.to_document(recorded_scenarios()),
        "outcomes": [outcome_to_json(outcome) for outcome in ordered],
    }
    if sources is not None and set(sources.values()) != {Provenance.LIVE}:
        document.update(source="mixed", sources=dict(sorted(sources.items())))
    return files.write_json(path, document)


def _noted_now(target: str) -> dict[str, str]:
    """What a target measured here today notes of itself: the runtime its runner runs on and the UTC day."""
    registry = adapters.get(target.partition("@")[0]).registry
    return {"runtime": _runtime(registry), "on": datetime.now(UTC).date().isoformat()}


@functools.cache
def _runtime(registry: str) -> str:
    """The runtime a runner for a package of ``registry`` runs on here (asked of ``node`` once per process)."""
    return f"Node.js {npm.node_version()}" if registry == "npm" else f"Python {platform.python_version()}"


def _measured(path: Path) -> dict[str, dict[str, str]]:
    return json.loads(path.read_text(encoding="utf-8")).get("measured", {})


def source_texts(made: Mapping[str, Provenance], noted_in: Path) -> dict[str, str]:
    """The ledger's ``source`` text for each target of ``made`` (how each was obtained): live or recorded, the
    target, and the runtime and day it was measured with and on, as the recording at ``noted_in`` notes them."""
    measured = _measured(noted_in)
    return {target: _source_text(how, target, measured.get(target)) for target, how in made.items()}


def measured_now_text(target: str) -> str:
    """The ledger's ``source`` text for ``target`` measured live here and now."""
    return _source_text(Provenance.LIVE, target, _noted_now(target))


def _source_text(made: Provenance, target: str, noted: Mapping[str, str] | None) -> str:
    when = f"{noted['runtime']}, {noted['on']}" if noted else "runtime and date not noted in the recording"
    return f"{made}, {target}, {when}"


def read(path: Path = RECORDING) -> list[Outcome]:
    """The outcomes a matrix recording holds, each round trip with the scenario its recorded plain run makes."""
    if not path.exists():
        raise InputError(
            f"no matrix recording at {path}: run `probe-lib record --frameworks` with the frameworks installed"
        )
    entries = json.loads(path.read_text(encoding="utf-8"))["outcomes"]
    by_name = {scenario.name: scenario for scenario in scenarios()}
    probed = [outcome_from_json(entry, by_name) for entry in entries if not entry["scenario"].endswith(ROUND_TRIP)]
    trips = {
        (target, scenario.name): scenario
        for target, runs in by_target(probed).items()
        for scenario in round_trips(runs.values())
    }
    return probed + [_round_trip_from_json(entry, trips) for entry in entries if entry["scenario"].endswith(ROUND_TRIP)]


def _round_trip_from_json(entry: dict, trips: Mapping[tuple[str, str], Scenario]) -> Outcome:
    """A recorded round trip, with the scenario its recorded plain run makes (which fixes the name it calls)."""
    scenario = trips.get((f"{entry['framework']}@{entry['version']}", entry["scenario"]))
    return outcome_from_json(entry, {} if scenario is None else {scenario.name: scenario})


def sources(path: Path, outcomes: Iterable[Outcome]) -> dict[str, Provenance]:
    """How the recording at ``path`` says each target of ``outcomes`` was obtained."""
    document = json.loads(path.read_text(encoding="utf-8"))
    default, given = document.get("source", Provenance.LIVE), document.get("sources", {})
    return {target: Provenance(given.get(target, default)) for target in by_target(outcomes)}
