"""A set of scenarios on many releases of one framework (a subject): each release measured once, its results cached
on disk. :mod:`probe_lib.history.framework_sweep` makes the subjects (its ``ScenarioSweep``: Mastra's scenario
catalogue, the matrix's probes on any other framework, a scenario file).

A release's results are kept in ``<cache>/sweep/<subject digest>/<version>.json``; the digest covers the scenarios,
the framework's harness and the reduction (``Outcome.behaviour`` and the masking below), so changing any of them
measures afresh while a plain rerun (or one after Ctrl-C) measures only releases not yet seen. Each file is written
whole by rename, so two runs at once at worst measure one release twice.
A release that cannot be installed or run is a result too (one row of its own kind, its error, never a behaviour),
and the sweep goes on.
Each outcome is reduced to its comparable behaviour (``Outcome.behaviour``: what was sent, how many requests and
executions, what was raised), with this run's incidentals (the capture server's port, the version itself inside
messages) masked, and to a short digest of it: two versions behave alike on a scenario exactly when their digests
are equal.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from probe_lib.capture import CaptureServer
from probe_lib.core import files, paths
from probe_lib.core.behaviour import Behaviour, Raised
from probe_lib.core.errors import InputError, InstallFailed, MachineLacks, ProbeError
from probe_lib.core.outcome import Outcome, is_capture_reply, readable
from probe_lib.core.progress import QUIET, Stages
from probe_lib.core.scenarios import Scenario
from probe_lib.install import cache, releases

if TYPE_CHECKING:  # the one kind of subject: Mastra's catalogue, a framework's matrix probes, a scenario file
    from probe_lib.history.framework_sweep import ScenarioSweep as Subject

#: The scenario name of the one row a version that failed to install or run gets.
WHOLE_VERSION = "*"
_PORT = re.compile(r"127\.0\.0\.1:\d+")
#: Installs running ahead of the measuring: the registry and the disk, not the CPU, bound them.
INSTALLERS = 3


@dataclass(frozen=True)
class Row:
    """One scenario on one version: its behaviour digest, the failure kind (``""``: none) and the behaviour JSON."""

    version: str
    scenario: str
    outcome: str
    error_kind: str
    behaviour: str


def digest(scenarios: Iterable[Scenario], harness: Iterable[bytes]) -> str:
    """A digest of ``scenarios``, the framework's ``harness`` (its runner's files, what else makes its outcomes) and
    this reduction: results measured under another are not reused."""
    hasher = hashlib.sha256()
    reduction = (
        *(_mask, readable, is_capture_reply, Outcome.own_errors.fget, Outcome.behaviour),
        *(Behaviour, Raised, row, failed_row, error_row),
    )
    for function in reduction:
        hasher.update(inspect.getsource(function).encode())
    for scenario in scenarios:
        hasher.update(json.dumps(scenario.to_json("URL"), sort_keys=True).encode())
    for part in harness:
        hasher.update(part)
    return hasher.hexdigest()[:12]


def cache_dir(subject: Subject) -> Path:
    return paths.cache() / "sweep" / subject.digest()


def _mask(text: str, version: str) -> str:
    """This run's incidentals out of a behaviour's text: the server's port, the version, where the kit's cache and the
    user's home are (npm names its log under the home)."""
    text = _PORT.sub("127.0.0.1:PORT", text).replace(version, "<version>").replace(str(paths.cache()), "<cache>")
    home = Path.home()
    return text if home == Path(home.anchor) else text.replace(str(home), "~")  # a home of "/" would eat every slash


def row(outcome: Outcome) -> Row:
    text = _mask(json.dumps(outcome.behaviour().to_json(), ensure_ascii=False, sort_keys=True), outcome.version)
    kind = outcome.failure.kind if outcome.failure else ""
    return Row(outcome.version, outcome.scenario.name, hashlib.sha256(text.encode()).hexdigest()[:10], kind, text)


def failed_row(version: str, error: BaseException) -> Row:
    """The one row of a version that could not be installed or run."""
    kind = "install failed" if isinstance(error, InstallFailed) else "run failed"
    return error_row(version, WHOLE_VERSION, kind, _mask(str(error), version))


def error_row(version: str, scenario: str, kind: str, message: str) -> Row:
    """A row holding only an error of ``kind``: a version that failed, or a scenario the sweep could not run."""
    text = json.dumps({"error": {"kind": kind, "message": message}}, ensure_ascii=False)
    return Row(version, scenario, hashlib.sha256(text.encode()).hexdigest()[:10], kind, text)


#: The folder, inside a subject's, of the releases resolved as of a date before their registry date (see
#: :func:`_path`).
RESOLVED_EARLIER = "resolved-earlier"


def _path(version: str, subject: Subject) -> Path:
    """Where the rows of ``version`` are kept. A release resolved as of a date before the registry's date for it (the
    registry dates it after a later release of its own line) is kept apart: results an earlier kit measured with it
    resolved as of its registry date are not reused. Where the registry cannot be listed (no Node, offline), the
    results kept apart are read if there are any."""
    apart = cache_dir(subject) / RESOLVED_EARLIER / f"{version}.json"
    try:
        resolved = subject.resolved_before(version)
        earlier = resolved is not None and resolved < subject.published(version)
    except releases.UNLISTED:
        earlier = apart.exists()
    return apart if earlier else cache_dir(subject) / f"{version}.json"


def cached(version: str, subject: Subject) -> list[Row] | None:
    """The rows of ``version`` measured earlier under ``subject``'s digest, or ``None``."""
    path = _path(version, subject)
    if not path.exists():
        return None
    return [Row(**fields) for fields in json.loads(path.read_text(encoding="utf-8"))]


def _store(version: str, rows: Sequence[Row], subject: Subject) -> None:
    path = _path(version, subject)
    cache.folder(path.parent)
    text = json.dumps([asdict(r) for r in rows], ensure_ascii=False)
    files.write_atomically(path, lambda partial: partial.write_text(text, encoding="utf-8"))


def measure(
    version: str, server: CaptureServer, subject: Subject, installed: Future[object] | None = None
) -> list[Row]:
    """``subject``'s scenarios on ``version``, installed by ``installed`` (else now); a failure becomes the version's
    one row."""
    try:
        installed.result() if installed is not None else subject.install(version)
        return subject.rows(version, server)
    except MachineLacks:  # this machine's fault, not the version's: the sweep stops, caching nothing
        raise
    except ProbeError as error:
        return [subject.failed(version, error)]


def could_not_run(rows: Sequence[Row]) -> bool:
    """True when ``rows`` are a release's one row saying it could not be installed or run."""
    return len(rows) == 1 and rows[0].scenario == WHOLE_VERSION


def to_retry(rows: Sequence[Row]) -> bool:
    """True when the release of ``rows`` could not be installed or run, or crashed on a scenario: what
    ``--retry-failed`` measures again."""
    return could_not_run(rows) or any(row.error_kind == "crash" for row in rows)


def selected(
    subject: Subject, *, prereleases: bool = False, since: str | None = None, until: str | None = None
) -> list[str]:
    """Served versions in semver order: stable only unless ``prereleases``, within ``since``..``until`` inclusive.

    The range of ``sweep`` and ``bisect``: an end the registry does not serve, ``since`` after ``until``, or a range
    holding no version is an ``InputError`` saying which, never an empty list that would read as "nothing to do".
    """
    for flag, end in (("--since", since), ("--until", until)):
        if end is not None:
            try:
                subject.check(end)
            except InputError as error:
                raise InputError(f"{flag}: {error}") from None
    key = subject.sort_key
    if since is not None and until is not None and key(since) > key(until):
        raise InputError(f"--since {since} is later than --until {until}; swap them")
    chosen = [v for v in subject.served() if prereleases or not subject.is_prerelease(v)]
    low = key(since) if since else None
    high = key(until) if until else None
    inside = [v for v in chosen if (low is None or key(v) >= low) and (high is None or key(v) <= high)]
    if not inside:
        span = f"from {since or 'the first'} to {until or 'the newest'}"
        more = "" if prereleases else "; add --prereleases to include prereleases"
        stable = "" if prereleases else "stable "
        raise InputError(f"{subject.registry} serves no {stable}{subject.package} version {span}{more}")
    return inside


def sweep(
    chosen: Iterable[str],
    subject: Subject,
    *,
    retry_failed: bool = False,
    stages: Stages = QUIET,
    server: CaptureServer | None = None,
    measured: Callable[[str, list[Row]], None] = lambda version, rows: None,
) -> list[Row]:
    """Rows of ``subject`` on every version in ``chosen`` (semver order), measuring only versions not cached;
    ``measured`` is told of each version this call measured (not those read from the cache).

    Versions run one at a time, while :data:`INSTALLERS` threads install the next ones ahead: an install waits mostly
    on the registry and the disk, so it overlaps with the previous version's scenarios instead of following it.
    """
    chosen = sorted(dict.fromkeys(subject.check(v) for v in chosen), key=subject.sort_key)
    found = {version: cached(version, subject) for version in chosen}
    to_measure = [v for v in chosen if found[v] is None or (retry_failed and to_retry(found[v]))]
    rows: list[Row] = []
    started = time.monotonic()
    with (
        nullcontext(server) if server is not None else CaptureServer() as server,
        stages.stage(f"sweeping {subject.package}", len(chosen)) as step,
        ThreadPoolExecutor(max_workers=INSTALLERS, thread_name_prefix="install") as pool,
    ):
        installs = {version: pool.submit(subject.install, version) for version in to_measure}
        try:
            for version in chosen:
                if version not in installs:
                    rows += found[version]
                    step(f"{version}: cached")
                    continue
                began = time.monotonic()
                result = measure(version, server, subject, installs.pop(version))
                _store(version, result, subject)
                measured(version, result)
                rows += result
                note = result[0].error_kind if could_not_run(result) else f"{len(result)} scenarios"
                step(
                    f"{version}: {note} in {time.monotonic() - began:.0f} s ({time.monotonic() - started:.0f} s so far)"
                )
        finally:
            for pending in installs.values():  # interrupted: installs not yet begun are dropped, running ones finish
                pending.cancel()
    return rows


def all_cached(subject: Subject) -> list[Row]:
    """Every version measured under ``subject``'s current digest, in semver order."""
    folder = cache_dir(subject)
    found = {p.name.removesuffix(".json") for p in [*folder.glob("*.json"), *folder.glob(f"{RESOLVED_EARLIER}/*.json")]}
    return [r for v in sorted(found, key=subject.sort_key) for r in cached(v, subject) or ()]
