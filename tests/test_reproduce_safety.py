"""``reproduce`` never loses a file: it refuses folders holding files it did not write (the command run in this
process: a refusal is its exit code and one line), and Ctrl-C (a real SIGINT to a real ``probe-lib reproduce``
process) leaves the earlier report byte for byte as it was, with no staging folder or kernel left behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import as_at_a_terminal, child_pids
from test_cli_junk import run_main

from probe_lib.core import folders


def reproduce(out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "reproduce", "--recorded", "--out", str(out), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_at_a_terminal,
    )


def earlier_report(folder: Path) -> dict[str, bytes]:
    """An earlier report as the kit leaves it (its files, swapped in with their manifest); returns the files."""
    files = {
        "report.html": b"<p>earlier</p>",
        "ledger.csv": b"claim,version\nA01,1.67.0\n",
        "measurements/catalogue/mastra-1.67.0.json": b"{}",
        "figures/00-overview-1.png": b"png",
    }
    with folders.replacing(folder) as staging:
        for name, content in files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(content)
    return files


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


@pytest.mark.parametrize("user_file", ["notes.txt", "figures/my-sketch.png", "measurements/mine.json"])
def test_a_user_file_in_an_earlier_report_makes_the_run_refuse_and_survives(tmp_path, user_file):
    out = tmp_path / "report"
    earlier_report(out)
    (out / user_file).write_text("mine")
    before = snapshot(out)
    code, _, stderr = run_main(["reproduce", "--recorded", "--out", str(out)])
    assert code == 2, stderr
    assert stderr.count("\n") == 1 and user_file in stderr and "nothing was changed" in stderr
    assert snapshot(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report"], "no staging folder may be left"


def test_files_named_like_report_parts_without_a_manifest_are_the_users(tmp_path):
    """Names prove nothing: a folder holding only a ``ledger.csv`` and a ``report.html`` of the user's is refused."""
    (tmp_path / "ledger.csv").write_text("my accounts")
    (tmp_path / "report.html").write_text("my page")
    code, _, stderr = run_main(["reproduce", "--recorded", "--out", str(tmp_path)])
    assert code == 2 and stderr.count("\n") == 1 and "ledger.csv and 1 more" in stderr
    assert (tmp_path / "ledger.csv").read_text() == "my accounts"
    assert (tmp_path / "report.html").read_text() == "my page"


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_out_naming_a_file_or_a_symlink_is_one_line_and_exit_2(tmp_path, kind):
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("mine")
    else:
        (tmp_path / "real").mkdir()
        target.symlink_to(tmp_path / "real")
    code, stdout, stderr = run_main(["reproduce", "--out", str(target)])
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and ("is a file" in stderr or "symbolic link" in stderr)
    assert target.exists() and (kind == "symlink" or target.read_text() == "mine")


def test_swap_replaces_an_earlier_report_whole(tmp_path):
    out = tmp_path / "report"
    earlier_report(out)
    with folders.replacing(out) as staging:
        (staging / "report.html").write_text("new")
    assert snapshot(out) == {"report.html": b"new", folders.MANIFEST: (out / folders.MANIFEST).read_bytes()}
    assert json.loads((out / folders.MANIFEST).read_text()) == {"files": ["report.html"]}
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


def executing_notebooks(beside: Path) -> Path:
    """The staging folder of a running ``reproduce`` of ``beside/report``, once kernels are working in it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        staging = [path for path in beside.glob(".report.partial-*") if (path / "notebooks").exists()]
        if staging:
            return staging[0]
        time.sleep(0.2)
    raise AssertionError("reproduce never started executing notebooks")


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda stop: stop.name)
def test_ctrl_c_while_notebooks_run_leaves_the_earlier_report_intact(tmp_path, stop):
    """Ctrl-C, ``kill`` and a closed terminal alike: the earlier report whole, and no worker or kernel left."""
    out = tmp_path / "report"
    earlier_report(out)
    before = snapshot(out)
    process = reproduce(out)
    staging = [executing_notebooks(tmp_path)]
    time.sleep(1.0)
    workers = child_pids(process.pid)
    process.send_signal(stop)
    stdout, stderr = process.communicate(timeout=60)
    assert workers and not any(Path(f"/proc/{pid}").exists() for pid in workers), "a notebook worker outlived it"
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


@pytest.mark.slow
def test_a_file_saved_into_the_report_while_reproduce_runs_is_kept_and_the_new_report_set_beside_it(
    tmp_path, recorded_report
):
    """The folder is checked at the start and again at the swap: a file the user saves into the earlier report while
    the notebooks run stays, with that report as it was, and the finished new report is kept beside it. The earlier
    report is the run's shared recorded one with one executed notebook edited, so the run executes that notebook
    and reuses the rest (a whole build took 100 s of the suite)."""
    out = tmp_path / "report"
    shutil.copytree(recorded_report, out)
    (out / "notebooks" / "00-primer.ipynb").write_text("{}", encoding="utf-8")
    before = snapshot(out)
    process = reproduce(out)
    executing_notebooks(tmp_path)
    (out / "notes.txt").write_text("written while the report was built")
    stdout, stderr = process.communicate(timeout=900)
    last = stderr.strip().splitlines()[-1]
    assert process.returncode == 2 and stdout == "", stderr
    assert last.startswith("probe-lib reproduce: ") and "notes.txt" in last and f"{out}.new" in last, last
    assert "Traceback" not in stderr
    assert snapshot(out) == {**before, "notes.txt": b"written while the report was built"}
    new = snapshot(tmp_path / "report.new")
    listed = json.loads(new.pop(folders.MANIFEST))["files"]
    assert sorted(new) == listed and {"index.html", "ledger.csv", "export/outcomes.csv"} <= set(listed)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report", "report.new"]
