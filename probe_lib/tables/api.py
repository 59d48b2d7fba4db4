"""Ask your own question in one call: scenarios × targets in, a tidy pandas table of what went on the wire out.

    from probe_lib import study
    result = study("data/scenarios/example.yaml", ["mastra@1.0.4", "mastra@1.71.0"])
    result.frame            # one row per scenario × target × tool (probe_lib.tables.tidy.COLUMNS)
    result.requests         # every request body, one row each
    result.outcomes         # the Outcome objects themselves

Scenarios come from a scenario file (a path), key sets of :mod:`probe_lib.inputs.keysets` (each becomes one
``generate()`` turn registering its keys), ``Scenario`` objects, or a list mixing them. Targets are ``Target``
objects, ``"framework@version"`` text, or a bare version (Mastra's). ``measurements`` says where outcomes come from
(a :class:`probe_lib.measure.sources.Source`, or the text naming one): live now (a target not installed here falls
back to its recording, with a warning, and the rows say ``recorded``), the measurement files under
``data/captures/`` (the catalogue's recordings, and any other), or those in a folder (``probe-lib run --out``,
``reproduce``'s ``measurements/``).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pandas as pd

from probe_lib import frameworks
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, check_unique_names, for_keys
from probe_lib.core.target import DEFAULT_FRAMEWORK, Target, release_key
from probe_lib.inputs import scenario_files
from probe_lib.inputs.keysets import KeySet
from probe_lib.measure import sources
from probe_lib.measure.provenance import Provenance
from probe_lib.measure.sources import LIVE, Source
from probe_lib.tables import tidy

ScenarioSource = str | Path | Scenario | KeySet
TargetLike = Target | str


@dataclass(frozen=True)
class Study:
    """Outcomes of scenarios on targets, each with its source, and the tidy views of them."""

    outcomes: tuple[Outcome, ...]
    #: Per outcome: ``live`` (measured now) or ``recorded``, and the measurement file it was read from (or ``None``).
    sources: tuple[str, ...]
    recordings: tuple[str | None, ...]

    @cached_property
    def frame(self) -> pd.DataFrame:
        """One row per scenario × target × tool; columns and their meaning in :data:`probe_lib.tables.tidy.COLUMNS`."""
        return tidy.frame(self.outcomes, self.sources, self.recordings)

    @cached_property
    def requests(self) -> pd.DataFrame:
        """Every request body sent, one row each: scenario, framework, version, number (0: first), wire format, body."""
        rows = [
            (o.scenario.name, o.framework, o.version, number, o.wire, body)
            for o in self.outcomes
            for number, body in enumerate(o.requests)
        ]
        return pd.DataFrame(rows, columns=["scenario", "framework", "version", "number", "wire_format", "body"])

    def outcome(self, scenario: str, target: TargetLike) -> Outcome:
        """The outcome of one scenario (by name) on one target."""
        wanted = as_target(target)
        for outcome in self.outcomes:
            if outcome.scenario.name == scenario and outcome.target == wanted:
                return outcome
        raise InputError(f"this study has no scenario {scenario!r} on {wanted}")


def as_target(target: TargetLike) -> Target:
    """``Target``, ``"mastra@1.67.0"`` or a bare version of the default framework, checked against the registry."""
    if isinstance(target, str):
        target = Target.parse(target) if "@" in target else _bare(target)
    if not isinstance(target, Target):
        raise InputError(
            "a target is 'framework@version' text, a bare Mastra version or a Target, "
            f"not {type(target).__name__} {reprlib.repr(target)}"
        )
    frameworks.check_target(target)
    return target


def _bare(text: str) -> Target:
    """A target without ``@``: a version (it starts with a digit) is the default framework's; anything else is
    refused saying that a target is ``framework@version``, with a pinned release of the framework it names."""
    if text[:1].isdigit():
        return Target(DEFAULT_FRAMEWORK, text)
    framework = text if text in frameworks.names() else DEFAULT_FRAMEWORK
    example = f"{framework}@{frameworks.get(framework).versions()[-1]}"
    named = "names a framework, not one of its releases" if framework == text else "is not a target"
    raise InputError(
        f"{text!r} {named}: a target is framework@version (e.g. {example!r}), or a bare {DEFAULT_FRAMEWORK} version"
    )


def versus(version: str) -> list[Target]:
    """Mastra's ``version`` and its pin furthest from it (the oldest; the newest when ``version`` is the oldest)."""
    adapter = frameworks.get(DEFAULT_FRAMEWORK)
    pinned = adapter.versions()
    other = pinned[0] if adapter.check_version(version) != pinned[0] else pinned[-1]
    return sorted({Target(DEFAULT_FRAMEWORK, v) for v in (version, other)}, key=lambda t: release_key(t.version))


#: The suffixes a scenario file has (``scenario_files.load`` reads YAML and JSON).
SCENARIO_FILE_SUFFIXES = (".yaml", ".yml", ".json")
#: What ``study`` takes, said when it is given something else.
TAKES = (
    "study takes a scenario file (.yaml or .json), key sets, Scenario objects, a list of them, "
    "or a plain list of keys registered as one turn (['search.web', '9lives'])"
)


def _a_file(text: str | Path) -> bool:
    return Path(text).suffix.lower() in SCENARIO_FILE_SUFFIXES or Path(text).is_file()


def as_scenarios(source: ScenarioSource | Iterable[ScenarioSource]) -> list[Scenario]:
    """The scenarios a file path, a key set, a scenario, or a list of any of them stands for, in order; a list of
    plain strings none of which names a scenario file is a tools record: one turn (``keys``) registering them."""
    if isinstance(source, (str, Path)):
        if not _a_file(source):
            raise InputError(f"{str(source)!r} is not a scenario file: {TAKES}")
        return scenario_files.load(source)
    if isinstance(source, Scenario):
        return [source]
    if isinstance(source, KeySet):
        return [for_keys(source.name, source.keys)]
    if isinstance(source, Mapping):  # iterating it would register its field names as keys
        raise InputError(
            "cannot study a dict: write a scenario as a scenario file, or as Scenario(...) "
            f"(probe_lib.core.scenarios); {TAKES}"
        )
    if isinstance(source, (bytes, bytearray)):
        raise InputError(f"cannot study bytes {bytes(source)[:40]!r}: keys are text (str); {TAKES}")
    if not isinstance(source, Iterable):
        raise InputError(f"cannot study {type(source).__name__} {source!r}: {TAKES}")
    source = list(source)
    if source and all(isinstance(item, str) for item in source) and not any(map(_a_file, source)):
        return [for_keys("keys", tuple(source))]
    scenarios = [scenario for item in source for scenario in as_scenarios(item)]
    check_unique_names(scenarios)
    return scenarios


def say_measuring(target: Target, scenario_count: int) -> None:
    """An ``on_target`` for :func:`study` that prints each target as its turn starts, so a cell measuring live
    says what it is doing while it waits."""
    print(f"measuring {scenario_count} scenario(s) on {target}…", flush=True)


def study(
    scenarios: ScenarioSource | Iterable[ScenarioSource],
    targets: TargetLike | Iterable[TargetLike],
    *,
    measurements: Source | str | Path = LIVE,
    on_target: Callable[[Target, int], None] | None = None,
) -> Study:
    """Measure (or read) every scenario on every target; targets in framework then version order.

    ``on_target(target, scenario_count)`` is called before each target, so long live runs can show progress; when
    none is given, a study that measures now says what it measures (:func:`say_measuring`) and one that reads
    recordings says nothing.
    """
    chosen = as_scenarios(scenarios)
    if not chosen:
        raise InputError("no scenarios to study: give a scenario file, key sets or Scenario objects")
    if not isinstance(targets, (str, Target, Iterable)):
        raise InputError(f"targets is a target or a list of them (e.g. 'mastra@1.71.0'), not {reprlib.repr(targets)}")
    wanted = [as_target(targets)] if isinstance(targets, (str, Target)) else [as_target(t) for t in targets]
    if not wanted:
        raise InputError("no targets to study: give e.g. 'mastra@1.71.0'")
    source = sources.parse(measurements)  # a script may name it as text, as a notebook's parameter does
    if on_target is None and source.runs_now:
        on_target = say_measuring
    measured: list[tuple[Outcome, str | None]] = []
    for target in sorted(set(wanted), key=lambda t: (t.framework, release_key(t.version))):
        if on_target is not None:
            on_target(target, len(chosen))
        measured += source.outcomes(chosen, target)
    return Study(
        outcomes=tuple(outcome for outcome, _ in measured),
        sources=tuple((Provenance.LIVE if file is None else Provenance.RECORDED).value for _, file in measured),
        recordings=tuple(file for _, file in measured),
    )
