"""The scenario catalogue (:func:`~probe_lib.adapters.mastra.catalogue.scenarios`) on many ``@mastra/core`` versions:
each version measured once, its results cached on disk.

A version's results are kept in ``<cache>/sweep/<catalogue digest>/<version>.json``; the digest covers the scenarios,
the Node harness and the reduction (``Outcome.behaviour`` and the masking below), so changing any of them measures
afresh while a plain rerun measures only versions not yet seen.
A version that cannot be installed or run is a result too (one row, its error), and the sweep goes on.
Each outcome is reduced to its comparable behaviour (``Outcome.behaviour``: what was sent, how many requests and
executions, what was raised), with this run's incidentals (the capture server's port, the version itself inside
messages) masked, and to a short digest of it: two versions behave alike on a scenario exactly when their digests
are equal.
"""

from __future__ import annotations

import csv
import hashlib
import inspect
import json
import re
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from probe_lib.adapters import cache
from probe_lib.adapters.mastra import catalogue, runner, versions
from probe_lib.capture import CaptureServer
from probe_lib.core import files, paths
from probe_lib.core.errors import CacheUnusable, InputError, InstallFailed, ProbeError
from probe_lib.core.outcome import Outcome, is_capture_reply, readable
from probe_lib.core.progress import QUIET, Stages
from probe_lib.core.target import version_key

SUMMARY_PATH = paths.DATA / "version_timeline.csv"
FIELDS = ("version", "scenario", "outcome", "error_kind", "behaviour")
#: The scenario name of the one row a version that failed to install or run gets.
WHOLE_VERSION = "*"
_PORT = re.compile(r"127\.0\.0\.1:\d+")
#: Installs running ahead of the measuring: the registry and the disk, not the CPU, bound them.
DEFAULT_INSTALLERS = 3


@dataclass(frozen=True)
class Row:
    """One scenario on one version: its behaviour digest, the failure kind (``""``: none) and the behaviour JSON."""

    version: str
    scenario: str
    outcome: str
    error_kind: str
    behaviour: str


def digest_of_catalogue() -> str:
    """A digest of the scenarios, the Node harness and this reduction: results measured under another are not reused."""
    hasher = hashlib.sha256()
    reduction = (_mask, readable, is_capture_reply, Outcome.own_errors.fget, Outcome.behaviour, row, failed_row)
    for function in reduction:
        hasher.update(inspect.getsource(function).encode())
    for scenario in catalogue.scenarios():
        hasher.update(json.dumps(scenario.to_json("URL"), sort_keys=True).encode())
    for script in [*sorted(paths.HARNESS.glob("*.cjs")), paths.SHARED_HARNESS / "lines.cjs"]:
        hasher.update(script.read_bytes())
    return hasher.hexdigest()[:12]


def cache_dir() -> Path:
    return paths.cache() / "sweep" / digest_of_catalogue()


def _mask(text: str, version: str) -> str:
    """This run's incidentals out of a behaviour's text: the server's port, the version, where the kit's cache is."""
    return _PORT.sub("127.0.0.1:PORT", text).replace(version, "<version>").replace(str(paths.cache()), "<cache>")


def row(outcome: Outcome) -> Row:
    text = _mask(json.dumps(outcome.behaviour(), ensure_ascii=False, sort_keys=True), outcome.version)
    kind = outcome.failure.kind if outcome.failure else ""
    return Row(outcome.version, outcome.scenario.name, hashlib.sha256(text.encode()).hexdigest()[:10], kind, text)


def failed_row(version: str, error: BaseException) -> Row:
    """The one row of a version that could not be installed or run."""
    kind = "install failed" if isinstance(error, InstallFailed) else "run failed"
    text = json.dumps({"error": {"kind": kind, "message": _mask(str(error), version)}}, ensure_ascii=False)
    return Row(version, WHOLE_VERSION, hashlib.sha256(text.encode()).hexdigest()[:10], kind, text)


def cached(version: str) -> list[Row] | None:
    path = cache_dir() / f"{version}.json"
    if not path.exists():
        return None
    return [Row(**fields) for fields in json.loads(path.read_text(encoding="utf-8"))]


def _store(version: str, rows: Sequence[Row]) -> None:
    folder = cache.folder(cache_dir())
    text = json.dumps([asdict(r) for r in rows], ensure_ascii=False)
    files.write_atomically(folder / f"{version}.json", lambda partial: partial.write_text(text, encoding="utf-8"))


def measure(version: str, server: CaptureServer, installed: Future[Path] | None = None) -> list[Row]:
    """The catalogue on ``version``, installed by ``installed`` (else now); a failure becomes the version's one row."""
    try:
        installed.result() if installed is not None else versions.install(version)
        return [row(outcome) for outcome in runner.run(catalogue.scenarios(), version, server=server)]
    except CacheUnusable:  # this machine's fault, not the version's: the sweep stops
        raise
    except ProbeError as error:
        return [failed_row(version, error)]


def selected(*, prereleases: bool = False, since: str | None = None, until: str | None = None) -> list[str]:
    """Served versions in semver order: stable only unless ``prereleases``, within ``since``..``until`` inclusive.

    The range of ``sweep`` and ``bisect``: an end the registry does not serve, ``since`` after ``until``, or a range
    holding no version is an ``InputError`` saying which, never an empty list that would read as "nothing to do".
    """
    for flag, end in (("--since", since), ("--until", until)):
        if end is not None:
            try:
                versions.check(end)
            except InputError as error:
                raise InputError(f"{flag}: {error}") from None
    if since is not None and until is not None and version_key(since) > version_key(until):
        raise InputError(f"--since {since} is later than --until {until}; swap them")
    chosen = [v for v in versions.served() if prereleases or versions.is_stable(v)]
    low = version_key(since) if since else None
    high = version_key(until) if until else None
    inside = [v for v in chosen if (low is None or version_key(v) >= low) and (high is None or version_key(v) <= high)]
    if not inside:
        span = f"from {since or 'the first'} to {until or 'the newest'}"
        more = "" if prereleases else "; add --prereleases to include prereleases"
        raise InputError(f"npm serves no {'' if prereleases else 'stable '}@mastra/core version {span}{more}")
    return inside


def sweep(
    chosen: Iterable[str],
    *,
    retry_failed: bool = False,
    stages: Stages = QUIET,
    server: CaptureServer | None = None,
    installers: int = DEFAULT_INSTALLERS,
) -> list[Row]:
    """Rows of the catalogue on every version in ``chosen`` (semver order), measuring only versions not cached.

    Versions run one at a time, while ``installers`` threads install the next ones ahead: an install waits mostly on
    the registry and the disk, so it overlaps with the previous version's catalogue instead of following it.
    """
    chosen = sorted(dict.fromkeys(versions.check(v) for v in chosen), key=version_key)
    if server is None:
        with CaptureServer() as own:
            return sweep(chosen, retry_failed=retry_failed, stages=stages, server=own, installers=installers)
    found = {version: cached(version) for version in chosen}
    to_measure = [v for v in chosen if found[v] is None or (retry_failed and found[v][0].scenario == WHOLE_VERSION)]
    rows: list[Row] = []
    started = time.monotonic()
    with (
        stages.stage("sweeping @mastra/core", len(chosen)) as step,
        ThreadPoolExecutor(max_workers=max(1, installers), thread_name_prefix="install") as pool,
    ):
        installs = {version: pool.submit(versions.install, version) for version in to_measure}
        try:
            for version in chosen:
                if version not in installs:
                    rows += found[version]
                    step(f"{version}: cached")
                    continue
                began = time.monotonic()
                measured = measure(version, server, installs.pop(version))
                _store(version, measured)
                rows += measured
                note = measured[0].error_kind if measured[0].scenario == WHOLE_VERSION else f"{len(measured)} scenarios"
                step(
                    f"{version}: {note} in {time.monotonic() - began:.0f} s ({time.monotonic() - started:.0f} s so far)"
                )
        finally:
            for pending in installs.values():  # interrupted: installs not yet begun are dropped, running ones finish
                pending.cancel()
    return rows


def all_cached() -> list[Row]:
    """Every version measured under the current catalogue digest, in semver order."""
    folder = cache_dir()
    found = [p.name.removesuffix(".json") for p in folder.glob("*.json")] if folder.exists() else []
    return [r for v in sorted(found, key=version_key) for r in cached(v) or ()]


def write_summary(rows: Sequence[Row], path: Path = SUMMARY_PATH) -> Path:
    """The tidy summary (one line per version and scenario), written atomically."""

    def write(partial: Path) -> None:
        with partial.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(FIELDS)
            for r in sorted(rows, key=lambda r: (version_key(r.version), r.scenario)):
                writer.writerow([r.version, r.scenario, r.outcome, r.error_kind, r.behaviour])

    return files.write_atomically(path, write)


def read_summary(path: Path = SUMMARY_PATH) -> list[Row]:
    """The committed summary's rows; ``InputError`` says how to make it when it is missing."""
    if not path.exists():
        raise InputError(f"no version summary at {path}: run `probe-lib sweep --write-summary`")
    with path.open(newline="", encoding="utf-8") as handle:
        return [Row(**line) for line in csv.DictReader(handle)]
