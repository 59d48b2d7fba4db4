"""Where measurements come from: the real frameworks now, the recordings, or a folder ``probe-lib reproduce`` wrote.

A notebook names the source as text in its parameters cell (``measurements = "live"``), the command line by a flag
(``reproduce --recorded``); :func:`parse` reads that text once, and everything after asks the :class:`Source` it
returns, never the text:

* ``"live"`` (:data:`LIVE`): run on the real package now; a target that cannot run here falls back to its recording,
  with a warning or a banner that names the way back;
* ``"recorded"`` (:data:`RECORDED`): the recordings shipped in ``data/captures/``;
* a folder path (:class:`Folder`): the measurement files ``probe-lib reproduce`` wrote, so that every
  notebook of one report is judged on one and the same measurement (or those ``probe-lib run --out`` wrote).

Whether a target is measured live is answered in one place, :meth:`Source.live`; a source gives any collection's
measurement on any target (:meth:`Source.measurements`, :mod:`probe_lib.measure.collection`), each carrying how it was
made, and any scenarios' outcomes on a target (:meth:`Source.outcomes`).
"""

from __future__ import annotations

import os
import reprlib
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from probe_lib import frameworks
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.core.target import Target
from probe_lib.frameworks.mastra import mcp
from probe_lib.install import npm
from probe_lib.measure import measurement, notebook
from probe_lib.measure.collection import CATALOGUE, LIVE_WORKERS, Collection
from probe_lib.measure.measurement import Measurement
from probe_lib.measure.provenance import Provenance

#: How a notebook reader gets a live run, or chooses recordings on purpose (the notebook's own parameter).
_LIVE_HELP = (
    "To measure live, install Node.js (the kit is measured on 20) and run `probe-lib setup`, then run the notebook "
    'again; to choose the recordings on purpose, set measurements = "recorded" in its parameters cell.'
)


class RecordedFallback(UserWarning):
    """Live outcomes were asked for, but Node.js or the target is missing here, so recordings are shown."""


class Source:
    """Where outcomes come from; see the module docstring. A source reads the measurement files under
    :attr:`folder`, and measures now instead where :meth:`live` says so."""

    #: The text that names this source: ``live``, ``recorded`` or the folder, as a notebook's parameter.
    parameter: str
    #: The folder of measurement files it reads.
    folder: Path = paths.CAPTURES
    #: Whether this source measures now where a target can run here, rather than reading files.
    runs_now = False

    def live(self, target: Target) -> bool:
        """Whether outcomes on ``target`` asked of this source are measured now: it runs now, and ``target`` can
        run here (installed, or a served release that installs on first use)."""
        return self.runs_now and frameworks.get(target.framework).can_run(target.version)

    def measurement(self, collection: Collection, target: Target) -> Measurement:
        """``collection`` on ``target``, as :meth:`measurements` gives it."""
        return self.measurements(collection, [target])[0]

    def measurements(
        self,
        collection: Collection,
        targets: Sequence[Target] | None = None,
        step: Callable[[Target], None] = lambda target: None,
    ) -> list[Measurement]:
        """``collection`` on each of ``targets`` (default: its own), in order: measured now where :meth:`live`,
        else read from the files, each saying how it was made. ``step`` is told of each target done (progress)."""
        chosen = list(collection.targets() if targets is None else targets)
        live = [target for target in chosen if self.live(target)]
        read = {target: self._read(collection, target) for target in chosen if target not in live}
        if self.runs_now and read:
            warnings.warn(
                f"{', '.join(map(str, read))} cannot run here: reading RECORDED {collection.name} outcomes "
                f"(data/captures) instead of measuring live. {_LIVE_HELP}",
                RecordedFallback,
                stacklevel=2,
            )
        for target in read:
            step(target)
        measured = dict(zip(live, collection.measure(live, step), strict=True)) if live else {}
        return [measured[target] if target in measured else read[target] for target in chosen]

    def _read(self, collection: Collection, target: Target) -> Measurement:
        """The measurement file of ``collection`` on ``target`` under :attr:`folder`: a copy of a shipped recording
        is made ``recorded``, with the runtime and day the recording was made on."""
        file = measurement.path(self.folder, collection.name, target)
        if not file.exists():
            raise InputError(
                f"no measurement of {collection.name} on {target} at {file}: measure it live "
                "(measurements='live', or `probe-lib record` where the framework is installed)"
            )
        read = measurement.read(file)
        return replace(read, made=read.made.copied()) if self.folder == paths.CAPTURES else read

    def outcomes(self, scenarios: Sequence[Scenario], target: Target) -> list[tuple[Outcome, str | None]]:
        """Outcomes of any ``scenarios`` on ``target``, each with the measurement file it was read from (``None``:
        measured now): measured now where :meth:`live`, else the files' under :attr:`folder` that hold them."""
        if self.live(target):
            outcomes = frameworks.get(target.framework).run(scenarios, target.version, workers=LIVE_WORKERS)
            return [(outcome, None) for outcome in outcomes]
        if self.runs_now:
            warnings.warn(
                f"{target} is not installed here: reading its RECORDED outcomes instead of measuring live. "
                f"{npm.NODE_HELP}",
                RecordedFallback,
                stacklevel=2,
            )
        return measurement.find(scenarios, target, self.folder)

    def own(self) -> Source:
        """Where scenarios that no file of this source holds are measured (a notebook's own, an exercise's): live,
        unless this source reads the recordings or a folder measured from them."""
        return self

    def label(self, measured: Measurement) -> str:
        """How ``measured`` was obtained, as a verdict table names it: ``live``, ``recorded``, ``recorded (Node.js
        missing)``, or a reproduce folder's ``live``/``recorded`` as it noted it."""
        return str(measured.made.how)

    def announce(self, collection: Collection, targets: Sequence[Target]) -> list[Target]:
        """Tell a notebook's reader where ``collection``'s outcomes on ``targets`` come from, as it starts; return
        the targets measured live now."""
        notebook.announce(
            f"Reading RECORDED {collection.name} outcomes of {', '.join(map(str, targets))} from data/captures/ "
            '(measurements="recorded"; set measurements = "live" to measure the real package now).'
        )
        return []


class Live(Source):
    """The real frameworks, run now."""

    parameter = "live"
    runs_now = True

    def label(self, measured: Measurement) -> str:
        return Provenance.LIVE.value if measured.file is None else "recorded (Node.js missing)"

    def announce(self, collection: Collection, targets: Sequence[Target]) -> list[Target]:
        live = [target for target in targets if self.live(target)]
        fallen = [target for target in targets if target not in live]
        if live:
            notebook.announce(
                f"Measuring LIVE: {len(collection.scenarios())} scenarios of the {collection.name} on the real "
                f"{', '.join(map(str, live))}, each a real request to the kit's capture server on loopback (about "
                "10-30 s a target)…"
            )
        if fallen:
            notebook.banner(
                "RECORDED, NOT LIVE:",
                f"Node.js or the framework is missing here, so this notebook shows the recordings of "
                f"{', '.join(map(str, fallen))} in data/captures/. {_LIVE_HELP}",
            )
        return live


class Recorded(Source):
    """The recordings shipped in ``data/captures/``."""

    parameter = "recorded"


@dataclass(frozen=True)
class Folder(Source):
    """A folder of measurement files: the ``measurements/`` of a report ``probe-lib reproduce`` wrote (the catalogue
    on every pinned version and the version its notebooks show, the framework matrix and the Claude Agent SDK's list
    probes, each noting how it was made), or one ``probe-lib run --out`` wrote (any scenarios, read by
    :meth:`outcomes`)."""

    folder: Path

    @property
    def parameter(self) -> str:
        return str(self.folder)

    def _read(self, collection: Collection, target: Target) -> Measurement:
        if not measurement.path(self.folder, collection.name, target).exists():
            raise InputError(
                f"measurements {self.parameter!r} hold no measurement of {collection.name} on {target}; "
                "use 'live', 'recorded' or a reproduce folder"
            )
        return super()._read(collection, target)

    def own(self) -> Source:
        """Live when this folder's catalogue was measured live (or it holds none, as a ``run --out`` folder), else
        the recordings it was copied from."""
        made = {measurement.read(file).made.how for file in sorted((self.folder / CATALOGUE.name).glob("*.json"))}
        return RECORDED if Provenance.RECORDED in made else LIVE

    def label(self, measured: Measurement) -> str:
        return f"{measured.made.how}, read from {self.folder.name}/"

    def announce(self, collection: Collection, targets: Sequence[Target]) -> list[Target]:
        made = sorted({self.measurement(collection, target).made.how for target in targets})
        notebook.announce(
            f"Reading the measurement `probe-lib reproduce` wrote in {self.parameter}: {collection.name} on "
            f"{', '.join(map(str, targets))}, made {' and '.join(made)}."
        )
        if Provenance.RECORDED in made:
            notebook.banner(
                "RECORDED, NOT LIVE:",
                "this report's measurement was copied from the recordings in data/captures/, not measured live; "
                "its landing page says why (asked for with `reproduce --recorded`, or Node.js or a pinned "
                "@mastra/core missing when it was made).",
            )
        return []


LIVE = Live()
RECORDED = Recorded()
_NAMED = {source.parameter: source for source in (LIVE, RECORDED)}


def parse(text: str | os.PathLike | Source) -> Source:
    """The source a notebook parameter or a command's flag names: ``"live"``, ``"recorded"`` or a folder
    ``probe-lib reproduce`` wrote (a source given again is returned as it is, so a rerun cell parses nothing)."""
    if isinstance(text, Source):
        return text
    if not isinstance(text, (str, os.PathLike)) or not str(text).strip():
        raise InputError(
            f"measurements is 'live', 'recorded', a folder of measurement files or a Source, not {reprlib.repr(text)}"
        )
    named = _NAMED.get(str(text))
    if named is not None:
        return named
    if Path(text).is_dir():
        return Folder(Path(text))
    raise InputError(f"measurements {str(text)!r} is not 'live', 'recorded' or a folder of measurement files")


def mcp_tool_sets(source: Source) -> pd.DataFrame:
    """The MCP measurement (:func:`probe_lib.frameworks.mastra.mcp.load`) a notebook reading ``source`` shows:
    measured now where ``source`` runs now and Node.js and the MCP harness are here, else the recording, as its
    ``attrs["source"]`` says."""
    return mcp.load(live=source.runs_now)
