"""The whole reports a run keeps for the next (``conftest._restore_report``, ``conftest._keep_reports``): restored
before the build; after the run, kept when it passed (swapped in whole), dropped when a test failed, left as they
were when it was interrupted; what a killed keeping or other report-writing code left removed."""

from __future__ import annotations

import conftest
import pytest

from probe_lib.core import folders


@pytest.fixture
def kept(monkeypatch, tmp_path):
    """The kept copy of the report ``live-report``, in a folder of this test's own."""
    monkeypatch.setattr(conftest, "KEPT_REPORTS_FOLDER", tmp_path / "cache" / "reports")
    return tmp_path / "cache" / "reports" / f"live-report-{conftest._report_writers()}"


@pytest.fixture
def earlier(kept):
    """A ``live-report`` kept by an earlier run: its landing page says ``earlier``."""
    with folders.replacing(kept) as staging:
        (staging / "index.html").write_text("earlier")
    return kept


def _built(shared, text: str) -> None:
    """A run's built ``live-report`` in ``shared``, as ``conftest._built_once`` leaves it."""
    (shared / "live-report" / "report").mkdir(parents=True)
    (shared / "live-report" / "report" / "index.html").write_text(text)
    (shared / "live-report.pickle").write_bytes(b"")


def _names(kept) -> list[str]:
    return sorted(path.name for path in kept.parent.iterdir())


def test_a_build_starts_from_the_report_kept(kept, tmp_path):
    (kept / "notebooks").mkdir(parents=True)
    (kept / "notebooks" / "01.ipynb").write_text("earlier")
    conftest._restore_report("live-report", tmp_path / "run" / "report")
    assert (tmp_path / "run" / "report" / "notebooks" / "01.ipynb").read_text() == "earlier"
    conftest._restore_report("recorded-report", tmp_path / "other" / "report")
    assert not (tmp_path / "other").exists(), "none kept: nothing restored"


def test_a_passing_run_keeps_its_report_in_place_of_the_one_before(earlier, tmp_path):
    kept = earlier
    _built(tmp_path / "run", "built now")
    conftest._keep_reports(tmp_path / "run", pytest.ExitCode.OK)
    assert (kept / "index.html").read_text() == "built now"
    assert _names(kept) == sorted([kept.name, "live-report.lock"])


def test_a_run_with_a_failed_test_drops_the_report_it_built_and_an_interrupted_one_leaves_it(earlier, tmp_path):
    kept = earlier
    _built(tmp_path / "run", "built now")
    conftest._keep_reports(tmp_path / "run", pytest.ExitCode.INTERRUPTED)
    assert (kept / "index.html").read_text() == "earlier"
    conftest._keep_reports(tmp_path / "run", pytest.ExitCode.TESTS_FAILED)
    assert not kept.exists()


def test_a_build_that_failed_drops_the_report_it_started_from(earlier, tmp_path):
    (tmp_path / "run" / "live-report").mkdir(parents=True)  # as _built_once left it: no report returned
    conftest._keep_reports(tmp_path / "run", pytest.ExitCode.TESTS_FAILED)
    assert not earlier.exists()


def test_a_run_that_built_no_report_leaves_the_kept_one(earlier, tmp_path):
    kept = earlier
    (tmp_path / "run").mkdir()
    conftest._keep_reports(tmp_path / "run", pytest.ExitCode.TESTS_FAILED)
    assert (kept / "index.html").read_text() == "earlier"


def test_what_a_killed_keeping_and_other_report_writing_code_left_is_removed(kept, tmp_path):
    for left in (f".{kept.name}.partial-1234", f".{kept.name}.old-1234", "live-report-000000000000"):
        (kept.parent / left).mkdir(parents=True)
    conftest._restore_report("live-report", tmp_path / "run" / "report")
    assert not (tmp_path / "run" / "report").exists(), "a report kept by other code is not built over"
    _built(tmp_path / "run", "whole")
    conftest._keep_reports(tmp_path / "run", pytest.ExitCode.OK)
    assert _names(kept) == sorted([kept.name, "live-report.lock"])
    assert (kept / "index.html").read_text() == "whole"
