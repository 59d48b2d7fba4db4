"""A measurement: the outcomes of one collection's scenarios on one target, and how they were made; one file each.

Every measurement the kit keeps, shipped in ``data/captures/`` or written by ``reproduce`` and ``run --out``, is one
file of this schema, at ``<folder>/<collection>/<framework>-<version>.json`` (:func:`path`)::

    {"collection": "catalogue", "framework": "mastra", "version": "1.71.0",
     "made": "live", "runtime": "Node.js v20.20.2", "measured_on": "2026-12-03",
     "scenarios": {"scenarios": [...]}, "outcomes": [...]}

``made`` says whether the outcomes were measured live or copied from a recording; ``runtime`` and ``measured_on``
the runtime and UTC day they were measured with and on (a copy keeps the recording's); a live measurement of a
served release (not a pin) also holds ``resolved_before``, the date its environment's dependencies were resolved as
of. The file carries the scenarios it measured (in the scenario file form), so it reads back without the code that
made them, round trips whose scripted call depends on the target included.

Files are deterministic: keys sorted, timings dropped, a run's incidentals named by placeholders
(:func:`without_incidentals`), so a re-measurement that changes nothing changes no byte.
"""

from __future__ import annotations

import functools
import json
import platform
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter

from probe_lib import frameworks
from probe_lib.core import files, paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, tools
from probe_lib.core.target import Target
from probe_lib.inputs import scenario_files
from probe_lib.install import npm
from probe_lib.measure.provenance import Provenance

#: ``Outcome`` to and from JSON through its declared field types (tuples, ``Failure``), so no field is converted
#: by hand; the scenario is written by name and read back from the scenarios the file carries.
_OUTCOME = TypeAdapter(Outcome)
#: Not measured (timings) or not stored per outcome (the scenario, written by name).
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


@dataclass(frozen=True)
class Made:
    """How a measurement was made: live here or copied from a recording (``how``), the runtime and UTC day it was
    measured with and on, and for a served release measured live, the date its dependencies were resolved as of."""

    how: Provenance
    runtime: str | None = None
    on: str | None = None
    resolved_before: str | None = None

    @classmethod
    def now(cls, target: Target) -> Made:
        """A live measurement of ``target`` here today."""
        adapter = frameworks.get(target.framework)
        return cls(
            Provenance.LIVE,
            _runtime(adapter.registry),
            datetime.now(UTC).date().isoformat(),
            adapter.resolved_before(target.version),
        )

    def copied(self) -> Made:
        """This measurement as a copy of it notes itself: recorded, with the runtime and day it was made with."""
        return replace(self, how=Provenance.RECORDED)

    def text(self, target: Target) -> str:
        """The ledger's ``source`` text: live or recorded, the target, and the runtime and day it was measured with
        and on (and the date a served release's dependencies were resolved as of)."""
        when = f"{self.runtime}, {self.on}" if self.runtime and self.on else "runtime and date not noted"
        resolved = f", dependencies as of {self.resolved_before}" if self.resolved_before else ""
        return f"{self.how}, {target}, {when}{resolved}"


@functools.cache
def _runtime(registry: str) -> str:
    """The runtime a runner for a package of ``registry`` runs on here (asked of ``node`` once per process)."""
    return f"Node.js {npm.node_version()}" if registry == "npm" else f"Python {platform.python_version()}"


@dataclass(frozen=True)
class Measurement:
    """The outcomes of one collection on one target, how they were made, and the file they were read from
    (``None``: measured now)."""

    collection: str
    target: Target
    made: Made
    outcomes: tuple[Outcome, ...]
    file: Path | None = None

    @property
    def source(self) -> str:
        """How it was made, as the ledger's ``source`` column says it (:meth:`Made.text`)."""
        return self.made.text(self.target)

    def by_name(self) -> dict[str, Outcome]:
        """Its outcomes by scenario name."""
        return {outcome.scenario.name: outcome for outcome in self.outcomes}


def file_name(target: Target) -> str:
    """``mastra-1.71.0.json``: the name a target's measurement file takes in its collection's folder."""
    return f"{target.framework}-{target.version}.json"


def path(folder: Path, collection: str, target: Target) -> Path:
    """Where ``folder`` keeps the measurement of ``collection`` on ``target``."""
    return folder / collection / file_name(target)


def outcome_to_json(outcome: Outcome) -> dict:
    """A measurement file's entry for ``outcome``: every measured field, the scenario by name, no timing."""
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


def outcome_from_json(entry: dict, scenarios: Mapping[str, Scenario]) -> Outcome:
    """A measurement file's entry read back with its scenario from ``scenarios``; one the file does not define gets
    a stand-in built from the keys it measured (``keys_after``), so no outcome is dropped."""
    name = entry["scenario"]
    scenario = scenarios.get(name) or Scenario(name, tools=tools(*entry.get("keys_after", ())))
    return _OUTCOME.validate_python({**entry, "scenario": scenario})


def write(file: Path, measurement: Measurement) -> Path:
    """Write ``measurement`` to ``file``, atomically: an interrupted run never leaves a truncated file."""
    made = measurement.made
    stamp = {"runtime": made.runtime, "measured_on": made.on, "resolved_before": made.resolved_before}
    scenarios = {outcome.scenario.name: outcome.scenario for outcome in measurement.outcomes}
    document = {
        "collection": measurement.collection,
        "framework": measurement.target.framework,
        "version": measurement.target.version,
        "made": made.how,
        **{field: value for field, value in stamp.items() if value is not None},
        "scenarios": scenario_files.to_document(list(scenarios.values())),
        "outcomes": [outcome_to_json(outcome) for outcome in measurement.outcomes],
    }
    file.parent.mkdir(parents=True, exist_ok=True)
    return files.write_json(file, document)


def read(file: Path) -> Measurement:
    """The measurement in ``file``; ``InputError`` naming the file if it is not one."""
    return _measurement(file, _document(file))


def _document(file: Path) -> object:
    """``file``'s JSON; ``InputError`` naming the file if it cannot be read as JSON."""
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise _not_a_measurement(file, error) from None


def _measurement(file: Path, document: object) -> Measurement:
    """The measurement ``document`` (read from ``file``) holds; ``InputError`` naming the file if it is not one."""
    try:
        own = scenario_files.parse(json.dumps(document["scenarios"]), str(file), is_json=True)
        scenarios = {scenario.name: scenario for scenario in own}
        made = Made(
            Provenance(document["made"]),
            document.get("runtime"),
            document.get("measured_on"),
            document.get("resolved_before"),
        )
        return Measurement(
            document["collection"],
            Target(document["framework"], document["version"]),
            made,
            tuple(outcome_from_json(entry, scenarios) for entry in document["outcomes"]),
            file,
        )
    except InputError:
        raise
    except (ValueError, KeyError, TypeError) as error:
        raise _not_a_measurement(file, error) from None


def _not_a_measurement(file: Path, error: Exception) -> InputError:
    return InputError(f"{file} is not a measurement file the kit can read ({type(error).__name__}: {error})")


def shown(file: Path) -> str:
    """A path as tables name it: relative to the project when inside it, so no table holds a home folder."""
    resolved = file.resolve()
    return str(resolved.relative_to(paths.ROOT)) if resolved.is_relative_to(paths.ROOT) else str(file)


def measurements(folder: Path = paths.CAPTURES, name: str = "*.json") -> list[Measurement | InputError]:
    """Each JSON file under ``folder`` (recursively; those called ``name``) that holds outcomes, or cannot be read to
    tell, in path order, each read once: its measurement, or the ``InputError`` saying why it is not one. Files of
    another shape (the MCP measurement's table) hold no outcomes and are passed over."""
    found: list[Measurement | InputError] = []
    for file in sorted(folder.rglob(name)):
        try:
            document = _document(file)
            if not isinstance(document, dict) or "outcomes" in document:
                found.append(_measurement(file, document))
        except InputError as error:
            found.append(error)
    return found


def find(scenarios: Iterable[Scenario], target: Target, folder: Path = paths.CAPTURES) -> list[tuple[Outcome, str]]:
    """The recorded outcome of each scenario on ``target`` among the files under ``folder``, in order, each with
    the file it was read from (as :func:`shown`); files in path order, the first holding a scenario wins.

    A recorded outcome counts only if its scenario equals the one asked for (same name is not enough), so a changed
    scenario is measured again rather than read from a stale recording.
    """
    recorded: dict[str, tuple[Outcome, str]] = {}
    # Each file is named after its target, so another target's file is never opened. A file that is not a
    # measurement: the export reports such files, a lookup has nothing to take from them.
    for measurement in measurements(folder, file_name(target)):
        if isinstance(measurement, Measurement) and measurement.target == target:
            recorded = {o.scenario.name: (o, shown(measurement.file)) for o in measurement.outcomes} | recorded
    found = []
    for scenario in scenarios:
        outcome, file = recorded.get(scenario.name, (None, None))
        if outcome is None or outcome.scenario != scenario:
            why = "differs from the recorded one" if outcome else "has no recording"
            raise InputError(
                f"scenario {scenario.name!r} {why} on {target} under {folder}; "
                "measure it live (measurements='live'), or record it into a folder of your own with "
                "`probe-lib run FILE --out DIR` and read that (measurements='DIR')"
            )
        found.append((outcome, file))
    return found
