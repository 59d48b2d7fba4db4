"""The whole reports a run keeps for the next (``conftest._kept_report``): restored before the build, kept only
after a build that did not raise, swapped in whole, and what a killed run or other report-writing code left
removed."""

from __future__ import annotations

import conftest
import pytest


@pytest.fixture
def kept(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "_kept_release_cache", lambda: tmp_path / "cache")
    return tmp_path / "cache" / "reports" / f"a-report-{conftest._report_writers()}"


def test_a_build_starts_from_the_report_kept_and_leaves_its_own_in_its_place(kept, tmp_path):
    (kept / "notebooks").mkdir(parents=True)
    (kept / "notebooks" / "01.ipynb").write_text("earlier")
    folder = tmp_path / "run" / "report"
    with conftest._kept_report("a-report", folder):
        assert (folder / "notebooks" / "01.ipynb").read_text() == "earlier"
        (folder / "notebooks" / "01.ipynb").write_text("built now")
    assert (kept / "notebooks" / "01.ipynb").read_text() == "built now"
    assert sorted(path.name for path in kept.parent.iterdir()) == sorted([kept.name, "a-report.lock"])


def test_a_build_that_raises_keeps_nothing(kept, tmp_path):
    folder = tmp_path / "run" / "report"
    with pytest.raises(RuntimeError), conftest._kept_report("a-report", folder):
        folder.mkdir(parents=True)
        (folder / "half.ipynb").write_text("half")
        raise RuntimeError("a notebook failed")
    assert not kept.exists()


def test_a_report_kept_by_other_report_writing_code_is_not_built_over_and_goes(kept, tmp_path):
    other = kept.with_name("a-report-000000000000")
    other.mkdir(parents=True)
    (other / "index.html").write_text("an earlier format")
    folder = tmp_path / "run" / "report"
    with conftest._kept_report("a-report", folder):
        assert not folder.exists()
        folder.mkdir(parents=True)
        (folder / "index.html").write_text("whole")
    assert sorted(path.name for path in kept.parent.iterdir()) == sorted([kept.name, "a-report.lock"])


def test_what_a_killed_keeping_left_is_removed_by_the_next(kept, tmp_path):
    for left in (f"{kept.name}.123.new", f"{kept.name}.123.old"):
        (kept.parent / left).mkdir(parents=True)
    folder = tmp_path / "run" / "report"
    with conftest._kept_report("a-report", folder):
        folder.mkdir(parents=True)
        (folder / "index.html").write_text("whole")
    assert sorted(path.name for path in kept.parent.iterdir()) == sorted([kept.name, "a-report.lock"])
    assert (kept / "index.html").read_text() == "whole"
