"""Where measurements come from: the real frameworks now, the recordings, or a folder ``probe-lib reproduce`` wrote.

A notebook names the source as text in its parameters cell (``measurements = "live"``), the command line by a flag
(``reproduce --recorded``); :func:`parse` reads that text once, and everything after asks the :class:`Source` it
returns, never the text:

* ``"live"`` (:data:`LIVE`): run on the real package now; a target not installed here falls back to its recording,
  with a warning or a banner that names the way back;
* ``"recorded"`` (:data:`RECORDED`): the recordings shipped in ``data/captures/``;
* a folder path (:class:`Folder`): the measurement files ``probe-lib reproduce`` wrote, so that every
  notebook of one report is judged on one and the same measurement (or those ``probe-lib run --out`` wrote).

A source gives a version's catalogue outcomes (:meth:`Source.catalogue`), any scenarios' outcomes on a target
(:meth:`Source.outcomes`), the framework matrix's (:meth:`Source.matrix`) and the Claude Agent SDK's list probes,
judged with its matrix target (:meth:`Source.list_probes`), and says how each was obtained (:meth:`Source.label`,
:meth:`Source.matrix_sources`).
"""

from __future__ import annotations

import json
import os
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from probe_lib import adapters
from probe_lib.adapters import mastra, npm
from probe_lib.adapters.mastra import catalogue as mastra_catalogue
from probe_lib.capture import CaptureServer
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.core.target import Target
from probe_lib.study import matrix_recording, matrix_runs, measurement_files, notebook, permission_runs, recordings
from probe_lib.study.provenance import Provenance

#: Node processes sharing one target's batch of any scenarios: two, the cores this kit is sized for.
LIVE_WORKERS = 2
#: How a notebook reader gets a live run, or chooses recordings on purpose (the notebook's own parameter).
_LIVE_HELP = (
    "To measure live, install Node.js 20+ and run `probe-lib setup`, then run the notebook again; to choose "
    'the recordings on purpose, set measurements = "recorded" in its parameters cell.'
)


class RecordedFallback(UserWarning):
    """Live outcomes were asked for, but Node.js or the target is missing here, so recordings are shown."""


class Source(ABC):
    """Where outcomes come from; see the module docstring."""

    #: The text that names this source: ``live``, ``recorded`` or the folder, as a notebook's parameter.
    parameter: str
    #: Whether this source measures now, rather than reading files.
    runs_now = False
    #: How the outcomes it gives were obtained (a folder says per file).
    provenance = Provenance.RECORDED

    def catalogue(self, version: str) -> dict[str, Outcome]:
        """The catalogue's outcomes on ``version``, by scenario name."""
        return self._catalogue(mastra.ADAPTER.check_version(version))

    @abstractmethod
    def _catalogue(self, version: str) -> dict[str, Outcome]: ...

    @abstractmethod
    def label(self, version: str) -> str:
        """How the catalogue's outcomes on ``version`` are obtained here, as a verdict table names them: ``live``,
        ``recorded``, ``recorded (Node.js missing)``, or a reproduce folder's ``live``/``recorded`` as it noted it."""

    @abstractmethod
    def provenance_of(self, version: str) -> str:
        """How the catalogue's outcomes on ``version`` are obtained here, as the ledger's ``source`` column says it
        (:func:`~probe_lib.study.recordings.provenance_text`): live or recorded, the package version, and the
        Node.js version and UTC day of a live measurement."""

    def asks_live(self, version: str) -> bool:
        """Whether a notebook should measure ``version`` live (Node.js permitting): always when live, never on the
        recordings, and on a reproduce folder when that folder was measured live."""
        return self.runs_now

    @abstractmethod
    def announce(self, versions: Sequence[str]) -> list[str]:
        """Tell a notebook's reader where the catalogue's outcomes on ``versions`` come from, as it starts; return
        the versions measured live now."""

    @abstractmethod
    def outcomes(self, scenarios: Sequence[Scenario], target: Target) -> list[tuple[Outcome, str | None]]:
        """Outcomes of any ``scenarios`` on ``target``, each with the measurement file it was read from (``None``:
        measured live now)."""

    @abstractmethod
    def matrix(self) -> list[Outcome]:
        """The framework matrix's outcomes."""

    @abstractmethod
    def list_probes(self) -> list[Outcome]:
        """The Claude Agent SDK's list probes (:mod:`probe_lib.study.permission_runs`), for the SDK's target exactly
        when :meth:`matrix` holds it."""

    def matrix_sources(self, outcomes: Iterable[Outcome]) -> dict[str, Provenance]:
        """How each target (``framework@version``) of ``outcomes``, as :meth:`matrix` gave them, was obtained."""
        return dict.fromkeys(matrix_runs.by_target(outcomes), self.provenance)

    def matrix_source_texts(self, outcomes: Iterable[Outcome]) -> dict[str, str]:
        """The ledger's ``source`` text for each target of ``outcomes``: how it was obtained, and the runtime and
        day it was measured with and on."""
        return matrix_recording.source_texts(self.matrix_sources(outcomes), noted_in=matrix_recording.RECORDING)

    def for_own_scenarios(self) -> Source:
        """Where a notebook studying scenarios of its own reads them: live, unless it reads the recordings (a
        reproduce folder holds the catalogue's and the matrix's measurements only)."""
        return LIVE

    def whole_matrix(self, step: Callable[[str], None]) -> tuple[list[Outcome], dict[str, Provenance]]:
        """Every target of the matrix: measured now when this source runs now and the target is installed, else as
        recorded; with how each target was obtained. ``step`` is told of each target done (progress)."""
        recorded = matrix_runs.by_target(matrix_recording.read())
        chosen = matrix_runs.targets()
        live_here = [
            (name, version) for name, version in chosen if self.runs_now and adapters.get(name).is_installed(version)
        ]
        how = {f"{n}@{v}": Provenance.LIVE if (n, v) in live_here else Provenance.RECORDED for n, v in chosen}
        for target in (target for target, made in how.items() if made is Provenance.RECORDED):
            step(target)
        measured: dict[tuple[str, str], list[Outcome]] = {}
        if live_here:
            with CaptureServer() as server:
                measured = matrix_runs.measure_targets(live_here, server, step)
        for name, version in chosen:
            measured.setdefault((name, version), list(recorded.get(f"{name}@{version}", {}).values()))
        return [outcome for target in chosen for outcome in measured[target]], how

    def whole_list_probes(self) -> tuple[list[Outcome], Provenance]:
        """The list probes as :meth:`whole_matrix` gives the SDK's target: measured now when this source runs now and
        the SDK is installed, else as recorded; with how they were obtained."""
        if self.runs_now and permission_runs.is_installed():
            return permission_runs.measure(), Provenance.LIVE
        return permission_runs.read(), Provenance.RECORDED


class Live(Source):
    """The real frameworks, run now."""

    parameter = "live"
    runs_now = True
    provenance = Provenance.LIVE

    def _catalogue(self, version: str) -> dict[str, Outcome]:
        if mastra.ADAPTER.can_run(version):  # a served, unpinned version installs on first use
            return recordings.outcomes(version, live=True)
        warnings.warn(
            f"Node.js or the pinned @mastra/core is missing: showing RECORDED outcomes of {version} "
            f"(data/captures), not a live measurement. {_LIVE_HELP}",
            RecordedFallback,
            stacklevel=3,
        )
        return recordings.outcomes(version, live=False)

    def label(self, version: str) -> str:
        return Provenance.LIVE.value if mastra.ADAPTER.is_installed(version) else "recorded (Node.js missing)"

    def provenance_of(self, version: str) -> str:
        if not mastra.ADAPTER.is_installed(version):
            return recordings.provenance_text(Provenance.RECORDED, version, **recordings.recording_stamp(version))
        return recordings.provenance_text(Provenance.LIVE, version, **recordings.live_stamp())

    def announce(self, versions: Sequence[str]) -> list[str]:
        live = [version for version in versions if mastra.ADAPTER.is_installed(version)]
        fallen = [version for version in versions if version not in live]
        if live:
            notebook.announce(
                f"Measuring LIVE: {len(mastra_catalogue.scenarios())} scenarios on the real @mastra/core "
                f"{', '.join(live)}, each a real request to the kit's capture server on loopback (Node.js; about "
                "10-30 s)…"
            )
        if fallen:
            notebook.banner(
                "RECORDED, NOT LIVE:",
                f"Node.js or the pinned @mastra/core is missing here, so this notebook "
                f"shows the recordings of @mastra/core {', '.join(fallen)} in data/captures/. {_LIVE_HELP}",
            )
        return live

    def outcomes(self, scenarios: Sequence[Scenario], target: Target) -> list[tuple[Outcome, str | None]]:
        adapter = adapters.get(target.framework)
        if adapter.can_run(target.version):  # a served, unpinned release installs on first use
            return [(outcome, None) for outcome in adapter.run(scenarios, target.version, workers=LIVE_WORKERS)]
        warnings.warn(
            f"{target} is not installed here: reading its RECORDED outcomes instead of measuring live. {npm.NODE_HELP}",
            RecordedFallback,
            stacklevel=3,
        )
        return measurement_files.find(scenarios, target)

    def matrix(self) -> list[Outcome]:
        """Every installed framework's probes, measured now."""
        notebook.announce(
            f"Measuring LIVE: {len(matrix_runs.scenarios())} probes and their round trips on every installed framework "
            "target, each a real request to the kit's capture server on loopback (about 30-45 s)…"
        )
        return matrix_runs.measure(only_installed=True)

    def matrix_source_texts(self, outcomes: Iterable[Outcome]) -> dict[str, str]:
        return {target: matrix_recording.measured_now_text(target) for target in matrix_runs.by_target(outcomes)}

    def list_probes(self) -> list[Outcome]:
        """Measured now where the SDK is installed (else none, as :meth:`matrix` then holds no target of it)."""
        if not permission_runs.is_installed():
            return []
        notebook.announce("Measuring LIVE: the Claude Agent SDK's tool-list probes (about 5-10 s)…")
        return permission_runs.measure()


class Recorded(Source):
    """The recordings shipped in ``data/captures/``."""

    parameter = "recorded"

    def _catalogue(self, version: str) -> dict[str, Outcome]:
        return recordings.outcomes(version, live=False)

    def label(self, version: str) -> str:
        return self.provenance.value

    def provenance_of(self, version: str) -> str:
        return recordings.provenance_text(self.provenance, version, **recordings.recording_stamp(version))

    def announce(self, versions: Sequence[str]) -> list[str]:
        notebook.announce(
            f"Reading RECORDED outcomes of @mastra/core {', '.join(versions)} from data/captures/ "
            '(measurements="recorded"; set measurements = "live" to measure the real package now).'
        )
        return []

    def outcomes(self, scenarios: Sequence[Scenario], target: Target) -> list[tuple[Outcome, str | None]]:
        return measurement_files.find(scenarios, target, paths.CAPTURES)

    def matrix(self) -> list[Outcome]:
        return matrix_recording.read()

    def list_probes(self) -> list[Outcome]:
        return permission_runs.read()

    def for_own_scenarios(self) -> Source:
        return self


@dataclass(frozen=True)
class Folder(Source):
    """A folder of measurement files: the ``measurements/`` of a report ``probe-lib reproduce`` wrote (one file per
    pinned version and the version its notebooks show, the matrix's ``frameworks.json`` and the Claude Agent SDK's
    list probes, each noting how it was made), or one ``probe-lib run --out`` wrote (any scenarios, read by
    :meth:`outcomes`)."""

    folder: Path

    @property
    def parameter(self) -> str:
        return str(self.folder)

    def _file(self, version: str) -> Path:
        path = self.folder / recordings.recording_path(version).name
        if not path.exists():
            raise InputError(
                f"measurements {self.parameter!r} hold no file for @mastra/core {version}; "
                "use 'live', 'recorded' or a reproduce folder"
            )
        return path

    def made(self, version: str) -> Provenance:
        """How this folder's measurement of ``version`` was made, as ``reproduce`` noted it."""
        return Provenance(json.loads(self._file(version).read_text(encoding="utf-8"))["source"])

    def _catalogue(self, version: str) -> dict[str, Outcome]:
        return recordings.outcomes_from_file(self._file(version))

    def label(self, version: str) -> str:
        return f"{self.made(version)}, read from {self.folder.name}/"

    def provenance_of(self, version: str) -> str:
        return recordings.provenance(self._file(version))

    def asks_live(self, version: str) -> bool:
        return self.made(version) is Provenance.LIVE

    def announce(self, versions: Sequence[str]) -> list[str]:
        made = sorted({self.made(version) for version in versions})
        notebook.announce(
            f"Reading the measurement `probe-lib reproduce` wrote in {self.parameter}: @mastra/core "
            f"{', '.join(versions)}, made {' and '.join(made)}."
        )
        if Provenance.RECORDED in made:
            notebook.banner(
                "RECORDED, NOT LIVE:",
                "this report's measurement was read from data/captures/ because Node.js was missing when it was made.",
            )
        return []

    def outcomes(self, scenarios: Sequence[Scenario], target: Target) -> list[tuple[Outcome, str | None]]:
        return measurement_files.find(scenarios, target, self.folder)

    @property
    def _matrix_file(self) -> Path:
        """The folder's matrix recording, or the shipped one when the folder has none."""
        own = self.folder / matrix_recording.RECORDING.name
        return own if own.exists() else matrix_recording.RECORDING

    def matrix(self) -> list[Outcome]:
        return matrix_recording.read(self._matrix_file)

    def list_probes(self) -> list[Outcome]:
        """The folder's list-probe recording, or the shipped one when the folder has none."""
        own = self.folder / permission_runs.RECORDING.name
        return permission_runs.read(own if own.exists() else permission_runs.RECORDING)

    def matrix_sources(self, outcomes: Iterable[Outcome]) -> dict[str, Provenance]:
        if self._matrix_file == matrix_recording.RECORDING:
            return super().matrix_sources(outcomes)
        return matrix_recording.sources(self._matrix_file, outcomes)

    def matrix_source_texts(self, outcomes: Iterable[Outcome]) -> dict[str, str]:
        return matrix_recording.source_texts(self.matrix_sources(outcomes), noted_in=self._matrix_file)


LIVE = Live()
RECORDED = Recorded()
_NAMED = {source.parameter: source for source in (LIVE, RECORDED)}


def parse(text: str | os.PathLike | Source) -> Source:
    """The source a notebook parameter or a command's flag names: ``"live"``, ``"recorded"`` or a folder
    ``probe-lib reproduce`` wrote (a source given again is returned as it is, so a rerun cell parses nothing)."""
    if isinstance(text, Source):
        return text
    named = _NAMED.get(str(text))
    if named is not None:
        return named
    if Path(text).is_dir():
        return Folder(Path(text))
    raise InputError(f"measurements {str(text)!r} is not 'live', 'recorded' or a folder of measurement files")
