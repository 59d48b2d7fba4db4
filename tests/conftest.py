"""Shared fixtures: the real @mastra/core must be installed; a run without it fails unless told otherwise."""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # test helpers (strategies)

from probe_lib.capture import CaptureServer  # noqa: E402
from probe_lib.core.outcome import Outcome  # noqa: E402
from probe_lib.frameworks import mastra  # noqa: E402
from probe_lib.measure import collection, sources  # noqa: E402


@pytest.fixture(scope="session")
def node_modules() -> dict[str, Path]:
    """The installed pinned versions. Missing Node fails the run (set PROBE_LIB_ALLOW_NO_NODE=1 to skip)."""
    if not all(map(mastra.ADAPTER.is_installed, mastra.ADAPTER.versions())):
        message = "the real @mastra/core is not installed: run `probe-lib setup` (needs Node.js and npm)"
        if os.environ.get("PROBE_LIB_ALLOW_NO_NODE") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return {version: mastra.ADAPTER.pins.modules(version) for version in mastra.ADAPTER.versions()}


@pytest.fixture(scope="session")
def recorded_catalogue() -> dict[str, dict[str, Outcome]]:
    """The shipped recordings of the catalogue: pinned version -> scenario name -> outcome."""
    return {m.target.version: m.by_name() for m in sources.RECORDED.measurements(collection.CATALOGUE)}


@pytest.fixture(scope="session")
def recorded_matrix() -> list[Outcome]:
    """The shipped recordings of the framework matrix: every target's outcomes, in target order."""
    return [outcome for m in sources.RECORDED.measurements(collection.MATRIX) for outcome in m.outcomes]


@pytest.fixture(scope="session")
def recorded_lists() -> list[Outcome]:
    """The shipped recording of the Claude Agent SDK's list probes."""
    return [outcome for m in sources.RECORDED.measurements(collection.LISTS) for outcome in m.outcomes]


@pytest.fixture(scope="session")
def capture_server():
    with CaptureServer() as server:
        yield server


def _kept_release_cache() -> Path:
    """The kit cache (``PROBE_LIB_CACHE``) the tests install served releases into, kept between runs beside the
    kit's own (``~/.cache/probe_lib-tests`` on Linux): a release installed once, resolved as of its day, is the same
    release on every later run, so only the first run downloads and installs it, and the machine's own installs
    never meet the tests'."""
    from probe_lib.core import paths

    own = paths.cache()
    return own.with_name(f"{own.name}-tests")


@pytest.fixture
def release_cache(monkeypatch) -> Path:
    """:func:`_kept_release_cache` as ``PROBE_LIB_CACHE`` for the test that asks for it, and that test alone: set for
    a whole module, it stayed in force over the module's other tests that ran between its users (tests run longest
    first), and one of them, measuring the pinned 1.67.0 live, found it missing there and fell back to the model."""
    folder = _kept_release_cache()
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("PROBE_LIB_CACHE", str(folder))
    return folder


@pytest.fixture(scope="module")
def _private_cache_folder(tmp_path_factory) -> Path:
    """The folder of :func:`private_cache`, one per test module: what its tests install stays for the module's others.
    Only uv's download cache is shared, with :func:`release_cache`'s: a wheel downloaded once is the same wheel."""
    from probe_lib.install import pyvenv

    folder = tmp_path_factory.mktemp("cache")
    downloads = _kept_release_cache() / pyvenv.uv_cache().name
    downloads.mkdir(parents=True, exist_ok=True)
    (folder / downloads.name).symlink_to(downloads, target_is_directory=True)
    return folder


@pytest.fixture
def private_cache(_private_cache_folder, monkeypatch) -> Path:
    """A kit cache of this test module's own as ``PROBE_LIB_CACHE`` for the test that asks for it (as
    :func:`release_cache`, that test alone), so the releases it installs start cold (listed, resolved as of their day
    and installed on first use, every run) and never meet another test's."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(_private_cache_folder))
    return _private_cache_folder


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """``export`` of the shipped recordings into a folder of its own, once per process: (its result, the folder).
    Tests read it and never change it."""
    from probe_lib.tables import export

    folder = tmp_path_factory.mktemp("export") / "out"
    return export.export(folder), folder


#: Fixtures that build a whole report (minutes each): their tests run first, so the builds overlap the run's other
#: tests instead of forming its tail, and each is built once a run (:func:`_built_once`).
WHOLE_REPORTS = ("live_report", "recorded_report")


#: Each test's seconds (setup, call and teardown) in the runs before, by node id, kept beside the release cache: a
#: clean clone's run orders its slow tests by them too (:func:`pytest_collection_modifyitems`).
TEST_SECONDS = "test-seconds.json"


def _known_seconds() -> dict[str, float]:
    """The kept :data:`TEST_SECONDS`; empty where there is none or it cannot be read or makes no sense (it orders
    tests, nothing else, so no fault of it may stop a run)."""
    import json

    try:
        known = json.loads((_kept_release_cache() / TEST_SECONDS).read_text(encoding="utf-8"))
        return {test: float(s) for test, s in known.items() if isinstance(s, int | float) and math.isfinite(s)}
    except Exception:  # unreadable, not JSON, not a mapping, a number too large for a float, an unusable cache
        return {}


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, as below
def pytest_configure_node(node) -> None:
    """Each worker orders its tests by the record the controller read once: pytest-xdist stops a run whose workers
    collected different orders, which two reads could give if another run rewrote the record between them."""
    node.workerinput[TEST_SECONDS] = _known_seconds()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests reading a whole report first, each report's tests together, then the other slow tests, longest
    first as the runs before timed them (:data:`TEST_SECONDS`; a test never timed counts as long, in its place),
    then the quick ones in their order, for :func:`pytest_xdist_make_scheduler`: the long tests start while the
    reports build, and the run ends on short ones instead of one worker waiting out the other's last long test. A
    test reading a report must be marked slow: the quick loop (``-m "not slow"``) builds no report."""
    first = {name: [item for item in items if name in getattr(item, "fixturenames", ())] for name in WHOLE_REPORTS}
    moved = {id(item) for group in first.values() for item in group}
    if unmarked := [item.nodeid for item in items if id(item) in moved and item.get_closest_marker("slow") is None]:
        raise pytest.UsageError(f"a test reading a whole report is not marked slow: {', '.join(unmarked)}")
    rest = [item for item in items if id(item) not in moved]
    worker = getattr(config, "workerinput", None)  # a pytest-xdist worker: the controller's record
    known = worker[TEST_SECONDS] if worker is not None else _known_seconds()
    slow = [item for item in rest if item.get_closest_marker("slow") is not None]
    slow.sort(key=lambda item: -known.get(item.nodeid, math.inf))  # stable: untimed ones first, in their order
    quick = [item for item in rest if item.get_closest_marker("slow") is None]
    items[:] = [item for group in first.values() for item in group] + slow + quick


_timed: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each test's seconds, added up over its phases, as the process running the session hears them (with
    pytest-xdist, the controller hears every worker's)."""
    _timed[report.nodeid] = _timed.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In the controller alone: keep this run's whole reports for the next, or drop those it used
    (:func:`_keep_reports`), and keep this run's :data:`TEST_SECONDS` over the runs' before (a test not run keeps
    its earlier time), written whole or not at all."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None:
        _keep_reports(factory.getbasetemp(), exitstatus)
    if not _timed:
        return
    from probe_lib.core import files

    folder = _kept_release_cache()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        files.write_json(folder / TEST_SECONDS, _known_seconds() | {test: round(s, 2) for test, s in _timed.items()})
    except OSError:
        pass  # an unwritable cache costs the order only


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown, and never called, in a run without it
def pytest_xdist_make_scheduler(config, log):
    """Work stealing for ``-n`` (pytest-xdist's ``--dist worksteal``; any other ``--dist`` asked for is kept): one
    worker starts on the report builds and the slow tests, the other on the quick ones, and a worker that runs out
    takes the back half of what the other has not started, so neither waits long for the other at the end. The
    default hands out chunks of consecutive tests that, once sent, stay with their worker: on 2 cores one worker sat
    idle for the last 143 s of the other's 936 s of tests; with stealing, 21 s of 858 s and 52 s of 835 s in two
    runs (the longest slow test left is the floor)."""
    if config.getoption("dist") != "load":  # what a bare -n sets
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


def _built_once(tmp_path_factory, name: str, build):
    """``build(folder)``'s report in ``<run's temp>/<name>/report``, built once for the whole run even across
    pytest-xdist workers: the first to come builds it under a file lock, the others wait for it and read what it
    returned (pickled beside the folder, as :class:`~probe_lib.report.build.Report` is plain data). Tests copy the
    folder before changing anything. The folder is alone in its parent, so a test can check nothing was left
    beside it.

    The build starts from the report the last passing run kept (:func:`_restore_report`), as ``reproduce`` into an
    earlier report does: every measurement is taken again, and a notebook is executed again unless each of its
    recorded inputs (its source, the measurements it read, the kit's modules, the packages) is unchanged. That a
    kept notebook is what an execution writes is held every run by ``test_report``'s forced rebuild without Node,
    which executes every notebook afresh and compares it with the recorded report's."""
    import fcntl
    import pickle

    shared = tmp_path_factory.getbasetemp()
    shared = shared.parent if os.environ.get("PYTEST_XDIST_WORKER") else shared
    parent = shared / name
    parent.mkdir(exist_ok=True)
    returned = shared / f"{name}.pickle"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not returned.exists():
            folder = parent / "report"
            if not folder.exists():  # else a build that failed left the report it started from
                _restore_report(name, folder)
            built = build(folder)
            returned.write_bytes(pickle.dumps(built))
        return pickle.loads(returned.read_bytes())


#: The reports :func:`_built_once` builds, kept between runs.
KEPT_REPORTS = ("live-report", "recorded-report")
#: Where they are kept, named as the suite starts (a module's own ``PROBE_LIB_CACHE`` does not move it).
KEPT_REPORTS_FOLDER = _kept_release_cache() / "reports"
#: The modules that write a report's folder and decide what of an earlier report is kept, relative to the package:
#: a report kept by other such code than this run's is not built over (an earlier folder format could be refused).
REPORT_WRITERS = ("report", "core/folders.py", "present/staleness.py")


def _report_writers() -> str:
    """The digest of :data:`REPORT_WRITERS`' sources."""
    import hashlib

    from probe_lib.core import paths

    hasher = hashlib.sha256()
    for part in map(paths.PACKAGE.joinpath, REPORT_WRITERS):
        for file in sorted(part.rglob("*.py")) if part.is_dir() else [part]:
            hasher.update(file.relative_to(paths.PACKAGE).as_posix().encode() + b"\0" + file.read_bytes())
    return hasher.hexdigest()[:12]


@contextlib.contextmanager
def _kept_lock(name: str) -> Iterator[Path]:
    """The kept copy of the report ``name`` (under the digest of :data:`REPORT_WRITERS`), held under a lock that
    runs sharing the cache take in turn."""
    import fcntl

    KEPT_REPORTS_FOLDER.mkdir(parents=True, exist_ok=True)
    with open(KEPT_REPORTS_FOLDER / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield KEPT_REPORTS_FOLDER / f"{name}-{_report_writers()}"


def _restore_report(name: str, folder: Path) -> None:
    """A copy of the report ``name`` the last passing run kept, into ``folder``, if there is one."""
    import shutil

    with _kept_lock(name) as kept:
        if kept.is_dir():
            shutil.copytree(kept, folder, symlinks=True)


def _keep_reports(shared: Path, exitstatus: int) -> None:
    """After a run that built reports in ``shared``: when it passed, a copy of each is kept for the next run in
    place of the one kept before, swapped in whole (:func:`probe_lib.core.folders.replacing`, as a report is); when
    a test or a build failed, the copies kept of those it built are dropped, so the next run builds them from
    nothing (a kept report may be why); an interrupted run leaves them as they were. What a killed keeping left
    (hidden ``.partial`` and ``.old`` folders) and copies kept by other report-writing code go."""
    import shutil

    from probe_lib.core import folders

    if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return
    for name in KEPT_REPORTS:
        if not (shared / name).is_dir():
            continue  # not asked for in this run
        with _kept_lock(name) as kept:
            for left in [*KEPT_REPORTS_FOLDER.glob(f"{name}-*"), *KEPT_REPORTS_FOLDER.glob(f".{name}-*")]:
                if left != kept and left.is_dir():
                    shutil.rmtree(left)
            if exitstatus != pytest.ExitCode.OK or not (shared / f"{name}.pickle").exists():
                shutil.rmtree(kept, ignore_errors=True)  # its build failed, or a test did
                continue
            with folders.replacing(kept) as staging:
                shutil.copytree(shared / name / "report", staging, symlinks=True, dirs_exist_ok=True)


@pytest.fixture(scope="session")
def live_report(tmp_path_factory, node_modules):
    """The teacher's report (``reproduce``, measured live): every exercise answered with its solution (the learner's,
    unanswered, is ``recorded_report``). Built once a run (:func:`_built_once`); returns the whole
    :class:`~probe_lib.report.build.Report`."""
    from probe_lib.measure import sources
    from probe_lib.report import build as report

    return _built_once(
        tmp_path_factory, "live-report", lambda folder: report.reproduce(folder, sources.LIVE, solved=True)
    )


@pytest.fixture(scope="session")
def recorded_report(tmp_path_factory) -> Path:
    """One learner's report from the recordings (``reproduce --recorded``), built once a run (:func:`_built_once`)
    and shared by every test that reads it; tests copy it before changing anything. Returns its folder."""
    from probe_lib.measure import sources
    from probe_lib.report import build as report

    def build(folder: Path) -> report.Report:
        built = report.reproduce(folder, sources.RECORDED)
        assert not built.failed, report.summary(built)
        return built

    return _built_once(tmp_path_factory, "recorded-report", build).folder
