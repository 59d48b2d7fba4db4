"""What a notebook calls first: the measured outcomes it shows, as the :class:`Evidence` its claims are judged on.

A notebook names where its outcomes come from in its ``parameters`` cell (``measurements``), parsed into a
:class:`probe_lib.measure.sources.Source`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

import pandas as pd

from probe_lib.core.target import Target
from probe_lib.frameworks import mastra
from probe_lib.measure import notebook
from probe_lib.measure.collection import CATALOGUE
from probe_lib.measure.measurement import Measurement
from probe_lib.measure.sources import LIVE, RecordedFallback, Source
from probe_lib.tables import tidy

OutcomeT = TypeVar("OutcomeT")


class CheckError(Exception):
    """The evidence lacks what a check needs (a scenario, a request, an error); the claim is judged "failed"."""


@dataclass(frozen=True)
class Evidence(Generic[OutcomeT]):
    """What a claim's check may read: the outcomes of one version by scenario name, and of every version measured."""

    version: str
    outcomes: Mapping[str, OutcomeT]
    by_version: Mapping[str, Mapping[str, OutcomeT]]
    #: How the outcomes were obtained ("live", "recorded" …), for titles and tables that must name their source.
    source: str = "unstated"

    @property
    def label(self) -> str:
        """``@mastra/core <version>, <source>``: what a chart title or verdict table says it shows."""
        return f"@mastra/core {self.version}, {self.source}"

    def __getitem__(self, scenario: str) -> OutcomeT:
        try:
            return self.outcomes[scenario]
        except KeyError:
            raise CheckError(f"scenario {scenario!r} was not measured on {self.version}") from None

    def frame(self, *, every_version: bool = False) -> pd.DataFrame:
        """This version's outcomes (``every_version``: those of every version measured) as the tidy table, one row
        per scenario × version × tool (columns in :data:`probe_lib.tables.tidy.COLUMNS`): what a notebook's pandas
        starts from."""
        measured = self.by_version.values() if every_version else [self.outcomes]
        outcomes = [outcome for by_scenario in measured for outcome in by_scenario.values()]
        return tidy.frame(outcomes, [self.source] * len(outcomes))


def measured(source: Source = LIVE, versions: Iterable[str] | None = None) -> list[Measurement]:
    """The catalogue on each version (default: every pinned one), each saying how it was made; says what it does
    as it starts and shows a banner for any version it shows from recordings instead; pandas is set to show text
    whole."""
    targets = [
        Target(mastra.ADAPTER.name, mastra.ADAPTER.check_version(v)) for v in versions or mastra.ADAPTER.versions()
    ]
    notebook.show_text_whole()
    live = source.announce(CATALOGUE, targets)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordedFallback)  # the banner above said it
        measurements = source.measurements(CATALOGUE, targets)
    if live:
        notebook.announce(f"Measured live in {time.perf_counter() - started:.0f} s.")
    return measurements


def gather(version: str, source: Source = LIVE, versions: Iterable[str] | None = None) -> Evidence:
    """``Evidence`` for one version, with every pinned version measured alongside (for cross-version claims);
    says what it measures as it starts (see :func:`measured`). ``version`` may be any served one: it is measured on
    its own and kept out of the cross-version claims."""
    target = Target(mastra.ADAPTER.name, mastra.ADAPTER.check_version(version))
    alongside = measured(source, versions)
    shown = next((m for m in alongside if m.target == target), None) or source.measurement(CATALOGUE, target)
    return Evidence(version, shown.by_name(), {m.target.version: m.by_name() for m in alongside}, source.label(shown))
