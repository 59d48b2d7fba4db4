"""What a notebook calls first: the measured outcomes it shows, as the :class:`Evidence` its claims are judged on.

A notebook names where its outcomes come from in its ``parameters`` cell:

* ``"live"``: run the catalogue on the real ``@mastra/core`` now (falls back to the recordings, with a banner that
  names the way back, when Node.js or the installed harness is missing);
* ``"recorded"``: the recordings shipped in ``data/captures/``;
* a folder path: measurement files written by ``probe-lib reproduce``, so that every notebook of one report is
  judged on one and the same live measurement.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from probe_lib.adapters import mastra
from probe_lib.adapters.mastra import Outcome, catalogue
from probe_lib.core.errors import InputError
from probe_lib.study import notebook, recordings

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


class RecordedFallback(UserWarning):
    """A notebook asked for live outcomes but Node.js or the harness is missing, so it shows recordings."""


def measure(version: str, source: str = "live") -> dict[str, Outcome]:
    """The catalogue's outcomes on ``version`` by scenario name, from ``source`` (see the module docstring)."""
    mastra.ADAPTER.check_version(version)
    if source == "live":
        if mastra.ADAPTER.can_run(version):  # a served, unpinned version installs on first use
            return recordings.outcomes(version, live=True)
        warnings.warn(
            f"Node.js or the pinned @mastra/core is missing: showing RECORDED outcomes of {version} "
            f"(data/captures), not a live measurement. {_LIVE_HELP}",
            RecordedFallback,
            stacklevel=2,
        )
        return recordings.outcomes(version, live=False)
    if source == "recorded":
        return recordings.outcomes(version, live=False)
    folder = Path(source)
    path = folder / recordings.recording_path(version).name
    if not path.exists():
        raise InputError(
            f"measurements {source!r} hold no file for @mastra/core {version}; use 'live', 'recorded' or a reproduce folder"
        )
    return recordings.outcomes_from_file(path)


#: How a notebook reader gets a live run, or chooses recordings on purpose (the notebook's own parameter).
_LIVE_HELP = (
    "To measure live, install Node.js 20+ and run `probe-lib setup`, then run the notebook again; to choose "
    'the recordings on purpose, set measurements = "recorded" in its parameters cell.'
)


def provenance(source: str, version: str) -> str:
    """How outcomes asked for as ``source`` are obtained here: ``live``, ``recorded``, ``recorded (Node.js
    missing)``, or a reproduce folder's ``live``/``recorded`` as it noted it."""
    if source == "live":
        return "live" if mastra.ADAPTER.is_installed(version) else "recorded (Node.js missing)"
    if source == "recorded":
        return "recorded"
    return f"{source_of(Path(source), version)}, read from {Path(source).name}/"


def measure_all(source: str = "live", versions: Iterable[str] | None = None) -> dict[str, dict[str, Outcome]]:
    """The catalogue's outcomes on each version (default: every pinned one), saying what it does as it starts
    and showing a banner for any version it shows from recordings instead; pandas is set to show text whole."""
    versions = tuple(versions or mastra.ADAPTER.versions())
    notebook.show_text_whole()
    how = {version: provenance(source, version) for version in versions}
    live = [version for version in versions if how[version] == "live"]
    fallen = [version for version in versions if how[version].startswith("recorded (Node")]
    scenarios = len(catalogue.scenarios())
    if live:
        notebook.announce(
            f"Measuring LIVE: {scenarios} scenarios on the real @mastra/core {', '.join(live)}, each a "
            "real request to the kit's capture server on loopback (Node.js; about 10-30 s)…"
        )
    if fallen:
        notebook.banner(
            "RECORDED, NOT LIVE:",
            f"Node.js or the pinned @mastra/core is missing here, so this notebook "
            f"shows the recordings of @mastra/core {', '.join(fallen)} in data/captures/. {_LIVE_HELP}",
        )
    if source == "recorded":
        notebook.announce(
            f"Reading RECORDED outcomes of @mastra/core {', '.join(versions)} from data/captures/ "
            '(measurements="recorded"; set measurements = "live" to measure the real package now).'
        )
    elif source != "live":
        made = sorted({how[version].split(",")[0] for version in versions})
        notebook.announce(
            f"Reading the measurement `probe-lib reproduce` wrote in {source}: @mastra/core "
            f"{', '.join(versions)}, made {' and '.join(made)}."
        )
        if "recorded" in made:
            notebook.banner(
                "RECORDED, NOT LIVE:",
                "this report's measurement was read from data/captures/ because Node.js was missing when it was made.",
            )
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordedFallback)  # the banner above said it
        by_version = {version: measure(version, source) for version in versions}
    if live:
        notebook.announce(f"Measured live in {time.perf_counter() - started:.0f} s.")
    return by_version


def source_of(folder: Path, version: str) -> str:
    """How the measurement in a reproduce folder was made ("live" or "recorded"), as ``reproduce`` noted it."""
    return json.loads((folder / recordings.recording_path(version).name).read_text())["source"]


def gather(version: str, source: str = "live", versions: Iterable[str] | None = None) -> Evidence:
    """``Evidence`` for one version, with every pinned version measured alongside (for cross-version claims);
    says what it measures as it starts (see ``measure_all``). ``version`` may be any served one: it is measured on
    its own and kept out of the cross-version claims."""
    mastra.ADAPTER.check_version(version)
    by_version = measure_all(source, versions)
    shown = by_version[version] if version in by_version else measure(version, source)
    return Evidence(version, shown, by_version, provenance(source, version))
