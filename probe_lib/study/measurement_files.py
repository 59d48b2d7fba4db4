"""Measurement files of any scenarios on any target: written by ``probe-lib run --out``, read back by the study API.

A measurement file is a recording (:mod:`probe_lib.study.recordings`' entry per outcome) that also carries the
scenarios it measured, in the scenario file form, so it reads back without the catalogue::

    {"framework": "mastra", "version": "1.71.0", "source": "live",
     "scenarios": {"scenarios": [...]}, "outcomes": [...]}

A live file of a served release (not a pin) also holds ``"resolved_before"``: the date its environment's
dependencies were resolved as of.

The catalogue's own recordings (``data/captures/mastra-<version>.json``) carry no scenarios: theirs are the
catalogue's, looked up by name. Files other helpers add under ``data/captures/`` (other frameworks, sweeps) are
found by :func:`discover` and read the same way; an entry whose scenario neither the file nor the catalogue holds
gets a stand-in scenario built from the keys it measured (``Outcome.keys_after``), so no outcome is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from probe_lib.adapters.mastra import catalogue
from probe_lib.core import files, paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, tools
from probe_lib.core.target import Target
from probe_lib.inputs import scenario_files
from probe_lib.study import recordings


def file_name(target: Target) -> str:
    """``mastra-1.71.0.json``: the name a target's measurement file takes in a folder (as ``data/captures/``)."""
    return f"{target.framework}-{target.version}.json"


def write(
    folder: Path, target: Target, outcomes: Sequence[Outcome], source: str, *, resolved_before: str | None = None
) -> Path:
    """Write ``outcomes`` of ``target`` with their scenarios into ``folder``; atomic, like the recordings.
    ``resolved_before``: the date a served release's environment was resolved as of (none for a pin's)."""
    scenarios = list({outcome.scenario.name: outcome.scenario for outcome in outcomes}.values())
    document = {
        "framework": target.framework,
        "version": target.version,
        "source": source,
        **({"resolved_before": resolved_before} if resolved_before is not None else {}),
        "scenarios": scenario_files.to_document(scenarios),
        "outcomes": [recordings.outcome_to_json(outcome) for outcome in outcomes],
    }
    folder.mkdir(parents=True, exist_ok=True)
    return files.write_json(folder / file_name(target), document)


def _stand_in(entry: dict) -> Scenario:
    """A scenario for an entry no file or catalogue defines: its measured keys as probe tools."""
    return Scenario(entry["scenario"], tools=tools(*entry.get("keys_after", ())))


def read(path: Path) -> tuple[list[Outcome], str]:
    """The outcomes a measurement file holds and its source (``live`` or ``recorded``); ``InputError`` if unreadable."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        entries = document["outcomes"]
        own = document.get("scenarios")
        scenarios = {s.name: s for s in scenario_files.parse(json.dumps(own), str(path), is_json=True)} if own else {}
        known = catalogue.by_name() | scenarios
        outcomes = [
            recordings.outcome_from_json(
                entry, {**known, entry["scenario"]: known.get(entry["scenario"]) or _stand_in(entry)}
            )
            for entry in entries
        ]
    except InputError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(
            f"{path} is not a measurement file the kit can read ({type(error).__name__}: {error})"
        ) from None
    return outcomes, document.get("source", "recorded")


def shown(path: Path) -> str:
    """A path as tables name it: relative to the project when inside it, so no table holds a home folder."""
    resolved = path.resolve()
    return str(resolved.relative_to(paths.ROOT)) if resolved.is_relative_to(paths.ROOT) else str(path)


def discover(folder: Path = paths.CAPTURES) -> list[Path]:
    """Every JSON file under ``folder`` (recursively) that holds outcomes, or cannot be read to tell, in path order:
    candidates to :func:`read`. Recordings of another shape (the MCP measurement's table) are not outcomes."""
    return [path for path in sorted(folder.rglob("*.json")) if _may_hold_outcomes(path)]


def _may_hold_outcomes(path: Path) -> bool:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # :func:`read` names what is wrong with it
    return not isinstance(document, dict) or "outcomes" in document


def find(scenarios: Iterable[Scenario], target: Target, folder: Path = paths.CAPTURES) -> list[tuple[Outcome, str]]:
    """The recorded outcome of each scenario on ``target`` among the files under ``folder``, in order, each with
    the file it was read from (as :func:`shown`).

    A recorded outcome counts only if its scenario equals the one asked for (same name is not enough), so a changed
    scenario is measured again rather than read from a stale recording. The target's own recording
    (``<framework>-<version>.json``) is read first, then collections such as the framework matrix.
    """
    recorded: dict[str, tuple[Outcome, str]] = {}
    own = file_name(target)  # the target's own recording first, collections after it
    for path in sorted(discover(folder), key=lambda path: (path.name != own, path)):
        try:
            outcomes, _ = read(path)
        except InputError:
            continue  # not a measurement file: the export reports such files, a lookup has nothing to take from them
        recorded |= {
            o.scenario.name: (o, shown(path))
            for o in outcomes
            if o.target == target and o.scenario.name not in recorded
        }
    found = []
    for scenario in scenarios:
        outcome, path = recorded.get(scenario.name, (None, None))
        if outcome is None or outcome.scenario != scenario:
            why = "differs from the recorded one" if outcome else "has no recording"
            raise InputError(
                f"scenario {scenario.name!r} {why} on {target} under {folder}; "
                f"measure it live (measurements='live', or `probe-lib run FILE --out {folder}`)"
            )
        found.append((outcome, path))
    return found
