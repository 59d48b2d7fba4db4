"""Every framework's timeline as committed data, Mastra's included: ``data/timeline.csv`` and
``data/framework_releases.csv``.

``timeline.csv`` has one line per measured release and scenario: the framework, the release, whether it is a
prerelease, when it was published, the date its dependencies were resolved as of (empty: not noted), how it came to
be measured (``sample``: the newest of its minor series, or every release of a range swept with ``--every``;
``bisection``: probed to place a change point), the scenario, the outcome's kind (``sent``, a failure kind, or one
of a release that could not run), the behaviour digest and the behaviour itself (:class:`~probe_lib.core.behaviour.
Behaviour` as JSON). ``framework_releases.csv`` lists every release in the swept range with the same role column
(empty: not measured), so each framework's count of releases measured is read off it. ``probe-lib sweep
[--framework NAME] --write`` replaces the lines of the releases it measured and keeps every other release's, of that
framework and of the others, so each framework's timeline is filled in by its own runs. A framework's timeline is
never partial: while other releases' lines are kept, a scenario they lack (one added since) is left out of the new
lines too, until a sweep of every release adds it.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from probe_lib.core import files, paths
from probe_lib.core.errors import InputError
from probe_lib.history import framework_sweep, sweep
from probe_lib.history.release_map import ReleaseMap
from probe_lib.install import cache
from probe_lib.install.releases import dated_late

TIMELINE_PATH = paths.DATA / "timeline.csv"
RELEASES_PATH = paths.DATA / "framework_releases.csv"
#: The outcome kind of a scenario that sent its requests without failing.
SENT = "sent"


@dataclass(frozen=True)
class Line:
    """One scenario on one measured release of one framework."""

    framework: str
    version: str
    prerelease: str
    published: str
    resolved_before: str
    role: str
    scenario: str
    kind: str
    outcome: str
    behaviour: str

    @classmethod
    def of(
        cls,
        framework: str,
        row: sweep.Row,
        *,
        prerelease: bool,
        published: str = "",
        resolved: str = "",
        role: str = "",
    ) -> Line:
        """The sweep's ``row`` of one release of ``framework`` as a timeline line."""
        kind = row.error_kind or SENT
        return cls(
            framework,
            row.version,
            _yes(prerelease),
            published,
            resolved,
            role,
            row.scenario,
            kind,
            row.outcome,
            row.behaviour,
        )

    def row(self) -> sweep.Row:
        """As the sweep's row (what the timeline tables read)."""
        error_kind = "" if self.kind == SENT else self.kind
        return sweep.Row(self.version, self.scenario, self.outcome, error_kind, self.behaviour)


@dataclass(frozen=True)
class Release:
    """One release in a framework's swept range, and whether (and why) it was measured."""

    framework: str
    package: str
    version: str
    prerelease: str
    published: str
    role: str


@dataclass(frozen=True)
class Backdated:
    """A stable release the registry dates after a later release of its own minor line (``successor``, the earliest
    dated of those): it was made no later than that day, so, resolved as of the date the registry gives it, its
    dependencies may be newer than those it shipped with."""

    release: Release
    successor: Release

    def resolved_late(self, resolved: str) -> bool:
        """Whether a release resolved as of ``resolved`` (ISO 8601 UTC; ``""``: a pin, no date) was resolved as of a
        day after its successor came out, so with dependencies that may be newer than its own."""
        return resolved > self.successor.published

    def resolved_bounded(self, resolved: str) -> bool:
        """Whether a release resolved as of ``resolved`` was resolved no later than its successor came out, as the
        kit resolves such a release (``""``: not resolved as of any date, so neither)."""
        return bool(resolved) and not self.resolved_late(resolved)

    def __str__(self) -> str:
        later = self.successor
        return f"{self.release.version} {self.release.published[:10]} ({later.version}: {later.published[:10]})"


def backdated(releases: Sequence[Release]) -> dict[tuple[str, str], Backdated]:
    """Each stable release of ``releases`` (framework, version) that the registry dates after a later release of its
    own minor line. Only the same line is compared: a fix released on an older line after a newer line began is
    no sign of a wrong date."""
    found = {}
    for framework in dict.fromkeys(release.framework for release in releases):
        subject = framework_sweep.subject(framework)
        own = {r.version: r for r in releases if r.framework == framework and r.prerelease != "yes" and r.published}
        dated = {version: release.published for version, release in own.items()}
        for version, later in dated_late(dated, subject.sort_key, subject.series).items():
            found[(framework, version)] = Backdated(own[version], own[later])
    return found


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def lines_of(mapped: ReleaseMap, subject: sweep.Subject) -> list[Line]:
    """The lines of every release ``mapped`` measured."""
    lines = []
    for version in mapped.measured:
        published, resolved = subject.published(version), subject.resolved_before(version) or ""
        prerelease, role = subject.is_prerelease(version), mapped.role(version)
        lines += [
            Line.of(subject.framework, row, prerelease=prerelease, published=published, resolved=resolved, role=role)
            for row in mapped.rows[version]
        ]
    return lines


def releases_of(mapped: ReleaseMap, subject: sweep.Subject) -> list[Release]:
    """Every release of ``mapped``'s range, each with its role (empty: not measured)."""
    return [
        Release(
            subject.framework,
            subject.package,
            version,
            _yes(subject.is_prerelease(version)),
            subject.published(version),
            mapped.role(version),
        )
        for version in mapped.chosen
    ]


def write(mapped: ReleaseMap, subject: sweep.Subject, *, roles_kept: bool = False) -> tuple[Path, Path]:
    """Both files with the releases ``mapped`` measured replaced (and the releases of its range they lacked added);
    every other release's lines are kept, of this framework and of every other, so a sweep of some releases
    (``--version``, ``--since``) adds to a framework's timeline without measuring the rest again. With
    ``roles_kept`` (part of the range measured again), a release listed as measured keeps the role it was listed with
    (a sample stays a sample, a bisection probe a probe); one listed unmeasured takes this run's. Two sweeps writing
    at once take turns (a lock in the kit's cache), so neither loses the other's lines."""
    measured = set(mapped.measured)
    with cache.rewriting(TIMELINE_PATH):
        lines, releases = lines_of(mapped, subject), releases_of(mapped, subject)
        if roles_kept and RELEASES_PATH.exists():
            listed = {r.version: r.role for r in _read(RELEASES_PATH, Release) if r.framework == subject.framework}
            lines = [replace(line, role=listed.get(line.version) or line.role) for line in lines]
            releases = [replace(release, role=listed.get(release.version) or release.role) for release in releases]
        return (
            _merge(TIMELINE_PATH, Line, subject, lines, measured),
            _merge(RELEASES_PATH, Release, subject, releases, measured),
        )


def _merge(path: Path, kind: type, subject: sweep.Subject, new: Sequence, measured: set[str]) -> Path:
    """``path`` with ``subject``'s items of the ``measured`` releases replaced by those of ``new``, and ``new``'s
    items of releases it does not list yet added; in framework order, then release order."""
    old = _read(path, kind) if path.exists() else []
    listed = {item.version for item in old if item.framework == subject.framework}
    kept = [item for item in old if item.framework != subject.framework or item.version not in measured]
    added = [item for item in new if item.version in measured or item.version not in listed]
    if kind is Line and (held := {i.scenario for i in kept if i.framework == subject.framework}):
        added = [line for line in added if line.scenario in held or line.scenario == sweep.WHOLE_VERSION]
    order = {name: i for i, name in enumerate(sorted({item.framework for item in [*kept, *added]}))}

    def place(item) -> tuple:  # a stable sort: a release's own lines keep their scenario order
        return (order[item.framework], subject.sort_key(item.version) if item.framework == subject.framework else ())

    ordered = sorted([*kept, *added], key=place)
    columns = [field.name for field in fields(kind)]
    return files.write_csv(path, columns, map(asdict, ordered))


def _read(path: Path, kind: type) -> list:
    """The items of the file at ``path``, parsed once per version of the file: a ledger, the docs and a notebook
    each read the timeline (16 MB) several times, and a file written since (whole, by rename) is parsed again."""
    stat = path.stat()
    return list(_parsed(path, kind, stat.st_mtime_ns, stat.st_size, stat.st_ino))


@functools.lru_cache(maxsize=4)
def _parsed(path: Path, kind: type, *stamp: int) -> tuple:  # stamp: the stat of the version parsed
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(kind(**line) for line in csv.DictReader(handle))


def read(frameworks: Iterable[str] | None = None, path: Path = TIMELINE_PATH) -> list[Line]:
    """The committed lines (of ``frameworks`` only, when given); ``InputError`` says how to make them."""
    if not path.exists():
        raise InputError(f"no timeline at {path}: run `probe-lib sweep [--framework NAME] --write`")
    wanted = set(frameworks) if frameworks is not None else None
    return [line for line in _read(path, Line) if wanted is None or line.framework in wanted]


def rows(framework: str, *, prereleases: bool = True, path: Path = TIMELINE_PATH) -> list[sweep.Row]:
    """``framework``'s committed lines as the sweep's rows (without its prereleases unless ``prereleases``)."""
    return [line.row() for line in read([framework], path) if prereleases or line.prerelease != "yes"]


def read_releases(path: Path = RELEASES_PATH) -> list[Release]:
    """Every release of every swept framework's range, with its role."""
    if not path.exists():
        raise InputError(f"no release list at {path}: run `probe-lib sweep [--framework NAME] --write`")
    return _read(path, Release)
