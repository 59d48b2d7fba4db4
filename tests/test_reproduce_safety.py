"""``reproduce`` never loses a file: it refuses folders holding files it did not write, and Ctrl-C (a real SIGINT
to a real ``probe-lib reproduce``) leaves the earlier report byte for byte as it was, with no staging folder or
kernel left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probe_lib.core.errors import InputError
from probe_lib.present import safe_folder


def _as_at_a_terminal() -> None:
    """Ctrl-C as a user's shell delivers it: SIGINT at its default disposition and not blocked. A child inherits an
    ignored SIGINT, and in the full suite something in a pytest worker leaves it ignored (seen: reproduce ran on
    after SIGINT, to exit 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def reproduce(out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "reproduce", "--recorded", "--out", str(out), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_at_a_terminal,
    )


def earlier_report(folder: Path) -> dict[str, bytes]:
    """An earlier report as ``reproduce`` leaves it (files and manifest); returns its files' contents."""
    files = {
        "report.html": b"<p>earlier</p>",
        "ledger.csv": b"claim,version\nA01,1.67.0\n",
        "measurements/mastra-1.67.0.json": b"{}",
        "figures/00-overview-1.png": b"png",
    }
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    safe_folder.write_manifest(folder)
    return files


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


@pytest.mark.parametrize("user_file", ["notes.txt", "figures/my-sketch.png", "measurements/mine.json"])
def test_a_user_file_in_an_earlier_report_makes_the_run_refuse_and_survives(tmp_path, user_file):
    out = tmp_path / "report"
    earlier_report(out)
    (out / user_file).write_text("mine")
    before = snapshot(out)
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", "reproduce", "--recorded", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and user_file in done.stderr and "nothing was changed" in done.stderr
    assert snapshot(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report"], "no staging folder may be left"


def test_a_folder_of_unrelated_files_named_like_report_parts_is_refused(tmp_path):
    (tmp_path / "ledger.csv").write_text("my accounts")
    (tmp_path / "thesis.tex").write_text("mine")
    with pytest.raises(InputError, match="thesis.tex"):
        safe_folder.check_replaceable(tmp_path)
    assert (tmp_path / "ledger.csv").read_text() == "my accounts"


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_out_naming_a_file_or_a_symlink_is_one_line_and_exit_2(tmp_path, kind):
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("mine")
    else:
        (tmp_path / "real").mkdir()
        target.symlink_to(tmp_path / "real")
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", "reproduce", "--out", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and ("is a file" in done.stderr or "symbolic link" in done.stderr)
    assert target.exists() and (kind == "symlink" or target.read_text() == "mine")


def test_swap_replaces_an_earlier_report_whole(tmp_path):
    out, staging = tmp_path / "report", tmp_path / "staging"
    earlier_report(out)
    staging.mkdir()
    (staging / "report.html").write_text("new")
    safe_folder.write_manifest(staging)
    safe_folder.swap_in(staging, out)
    assert snapshot(out) == {"report.html": b"new", safe_folder.MANIFEST: (out / safe_folder.MANIFEST).read_bytes()}
    assert json.loads((out / safe_folder.MANIFEST).read_text()) == {"files": ["report.html"]}
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report"]


def _processes_in(folder: Path) -> list[int]:
    """Live processes whose working folder lies in ``folder`` (notebook kernels run in the report folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")).is_relative_to(folder):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_ctrl_c_while_notebooks_run_leaves_the_earlier_report_intact(tmp_path):
    out = tmp_path / "report"
    earlier_report(out)
    before = snapshot(out)
    process = reproduce(out)
    deadline = time.monotonic() + 120
    staging: list[Path] = []
    while time.monotonic() < deadline and not staging:  # wait until kernels are working in the staging folder
        staging = [path for path in tmp_path.glob(".report.partial-*") if (path / "notebooks").exists()]
        time.sleep(0.2)
    assert staging, "reproduce never started executing notebooks"
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stdout == ""
    assert stderr.strip().splitlines()[-1].endswith("was left as it was (the new report was discarded)")
    assert "Traceback" not in stderr
    assert snapshot(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report"], "the staging folder must be removed"
    for _ in range(50):  # kernels shut down asynchronously; give them a few seconds
        if not _processes_in(staging[0]):
            break
        time.sleep(0.2)
    assert not _processes_in(staging[0]), "a notebook kernel outlived the interrupted run"
