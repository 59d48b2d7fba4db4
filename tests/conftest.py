"""Shared fixtures: the real @mastra/core must be installed; a run without it fails unless told otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # test helpers (strategies)

from probe_lib.adapters import mastra  # noqa: E402
from probe_lib.adapters.mastra import versions  # noqa: E402
from probe_lib.capture import CaptureServer  # noqa: E402
from probe_lib.core.outcome import Outcome  # noqa: E402
from probe_lib.study import collection, sources  # noqa: E402


@pytest.fixture(scope="session")
def node_modules() -> dict[str, Path]:
    """The installed pinned versions. Missing Node fails the run (set PROBE_LIB_ALLOW_NO_NODE=1 to skip)."""
    if not all(map(mastra.ADAPTER.is_installed, mastra.ADAPTER.versions())):
        message = "the real @mastra/core is not installed: run `probe-lib setup` (needs Node.js 20+ and npm)"
        if os.environ.get("PROBE_LIB_ALLOW_NO_NODE") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return {version: versions.modules_dir(version) for version in mastra.ADAPTER.versions()}


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


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory) -> Path:
    """A kit cache of this test module's own (``PROBE_LIB_CACHE``), so the releases it installs start cold and never
    meet the machine's."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PROBE_LIB_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="session")
def recorded_report(tmp_path_factory) -> Path:
    """One learner's report from the recordings (``reproduce --recorded``), built once for the whole run and shared
    by every test that reads it, even across pytest-xdist workers (the first to come builds it under a file lock);
    tests copy it before changing anything. Returns its folder."""
    import fcntl

    from probe_lib.core import folders
    from probe_lib.report import build as report
    from probe_lib.study import sources

    shared = tmp_path_factory.getbasetemp()
    shared = shared.parent if os.environ.get("PYTEST_XDIST_WORKER") else shared
    folder = shared / "recorded-report"
    with open(shared / "recorded-report.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / folders.MANIFEST).exists():
            built = report.reproduce(folder, sources.RECORDED)
            assert not built.failed, report.summary(built)
    return folder
