"""What a notebook calls first: the measured outcomes it shows, as the :class:`Evidence` its claims are judged on.

A notebook names where its outcomes come from in its ``parameters`` cell (``measurements``), parsed into a
:class:`probe_lib.study.sources.Source`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

import pandas as pd

from probe_lib.adapters import mastra
from probe_lib.adapters.mastra import Outcome
from probe_lib.study import notebook, tidy
from probe_lib.study.sources import LIVE, RecordedFallback, Source

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
        per scenario × version × tool (columns in :data:`probe_lib.study.tidy.COLUMNS`): what a notebook's pandas
        starts from."""
        measured = self.by_version.values() if every_version else [self.outcomes]
        outcomes = [outcome for by_scenario in measured for outcome in by_scenario.values()]
        return tidy.frame(outcomes, [self.source] * len(outcomes))


def measure_all(source: Source = LIVE, versions: Iterable[str] | None = None) -> dict[str, dict[str, Outcome]]:
    """The catalogue's outcomes on each version (default: every pinned one), saying what it does as it starts
    and showing a banner for any version it shows from recordings instead; pandas is set to show text whole."""
    versions = tuple(versions or mastra.ADAPTER.versions())
    notebook.show_text_whole()
    live = source.announce(versions)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordedFallback)  # the banner above said it
        by_version = {version: source.catalogue(version) for version in versions}
    if live:
        notebook.announce(f"Measured live in {time.perf_counter() - started:.0f} s.")
    return by_version


def gather(version: str, source: Source = LIVE, versions: Iterable[str] | None = None) -> Evidence:
    """``Evidence`` for one version, with every pinned version measured alongside (for cross-version claims);
    says what it measures as it starts (see ``measure_all``). ``version`` may be any served one: it is measured on
    its own and kept out of the cross-version claims."""
    mastra.ADAPTER.check_version(version)
    by_version = measure_all(source, versions)
    shown = by_version[version] if version in by_version else source.catalogue(version)
    return Evidence(version, shown, by_version, source.label(version))
