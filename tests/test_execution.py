"""The notebook workers of ``reproduce``: real papermill runs in real kernels, each in a worker process of its own.
A worker that dies mid-notebook fails the run at once, naming its notebook, and takes no other worker with it
into a hang (the interrupted paths, Ctrl-C, SIGTERM and SIGHUP, are held in test_reproduce_safety)."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import nbformat
import pytest

from probe_lib.present import execution


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> None:
    """A kit cache of each test's own: ``execute_all`` records how long each notebook took, and these notebooks'
    names (``a``, ``victim``) have no place in the machine's record."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))


def notebook(folder: Path, name: str, source: str) -> Path:
    """A notebook of one cell after a ``parameters`` cell, as the kit's notebooks are made."""
    parameters = nbformat.v4.new_code_cell('mastra_version = ""\nmeasurements = ""', metadata={"tags": ["parameters"]})
    document = nbformat.v4.new_notebook(cells=[parameters, nbformat.v4.new_code_cell(source)])
    document.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / f"{name}.ipynb"
    nbformat.write(document, path)
    return path


@pytest.mark.slow
def test_each_notebook_runs_in_its_own_worker_and_the_runs_come_back_in_order(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    work = [(notebook(sources, name, "import os\nprint(os.getpid())"), None) for name in ("b", "a", "c")]
    finished: list[str] = []
    runs = execution.execute_all(work, tmp_path / "report", "1.0.0", 2, finished.append)
    assert [run.notebook for run in runs] == ["b.ipynb", "a.ipynb", "c.ipynb"]
    assert sorted(finished) == ["a", "b", "c"] and all(run.error is None for run in runs)
    kernels = {nbformat.read(run.executed, as_version=4).cells[-1].outputs[0]["text"] for run in runs}
    assert len(kernels) == 3, "each notebook has a kernel of its own"


@pytest.mark.slow
def test_a_worker_killed_mid_notebook_fails_the_run_naming_it_and_ends_the_others(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    work = [(notebook(sources, name, "import time\ntime.sleep(120)"), None) for name in ("victim", "bystander")]
    killed: list[int] = []

    def kill_the_victim() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            for worker in multiprocessing.active_children():
                if worker.name == "victim" and (tmp_path / "report" / "notebooks").exists():
                    time.sleep(2)  # its kernel is starting or running the cell
                    os.kill(worker.pid, signal.SIGKILL)
                    killed.append(worker.pid)
                    break
            time.sleep(0.1)

    killer = threading.Thread(target=kill_the_victim)
    killer.start()
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"the worker running victim ended without an answer \(exit code -9\)"):
        execution.execute_all(work, tmp_path / "report", "1.0.0", 2, lambda name: None)
    killer.join()
    assert killed and time.monotonic() - started < 60, "the run waited out the bystander's two minutes"
    assert multiprocessing.active_children() == [], "a worker outlived the failed run"


@pytest.mark.slow
@pytest.mark.parametrize("deaths", [1, execution.KERNEL_STARTS])
def test_a_kernel_that_dies_before_answering_is_started_again_a_few_times(tmp_path, monkeypatch, deaths):
    """A kernel binds the ports its client found free a moment before, and another process can take one in between:
    the kernel dies before it answers (once in a live report). No cell ran, so the notebook is started again, up to
    KERNEL_STARTS times. Here the first ``deaths`` kernels really die at start (``os._exit`` in their startup lines)."""
    sources = tmp_path / "sources"
    sources.mkdir()
    died = tmp_path / "died"
    die = (
        f"import os, pathlib; d = pathlib.Path({str(died)!r}); n = len(d.read_text()) if d.exists() else 0; "
        f"n < {deaths} and (d.write_text('x' * (n + 1)), os._exit(1))"
    )
    monkeypatch.setattr(execution, "_QUIET_KERNEL", [*execution._QUIET_KERNEL, f"--IPKernelApp.exec_lines={die}"])
    run = execution.execute(notebook(sources, "n", "print('ran')"), tmp_path / "report", "1.0.0")
    assert died.read_text() == "x" * deaths
    if deaths < execution.KERNEL_STARTS:
        assert run.error is None and nbformat.read(run.executed, as_version=4).cells[-1].outputs[0]["text"] == "ran\n"
    else:
        assert run.error == "RuntimeError: Kernel died before replying to kernel_info", run.error


@pytest.mark.slow
def test_the_notebook_longest_on_this_machine_starts_first_and_the_runs_come_back_in_order(tmp_path, monkeypatch):
    """One slot: the notebooks start in the order they run. The record says ``c`` took longest and ``a`` next, ``b``
    is new to it; each run's seconds are recorded for the next."""
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / execution.DURATIONS).write_text('{"c": 50, "a": 20, "gone": 99}', encoding="utf-8")
    sources = tmp_path / "sources"
    sources.mkdir()
    work = [(notebook(sources, name, "import time\nprint(time.time())"), None) for name in ("a", "b", "c")]
    runs = execution.execute_all(work, tmp_path / "report", "1.0.0", 1, lambda name: None)
    assert [run.notebook for run in runs] == ["a.ipynb", "b.ipynb", "c.ipynb"]
    started = {
        run.notebook: float(nbformat.read(run.executed, as_version=4).cells[-1].outputs[0]["text"]) for run in runs
    }
    assert sorted(started, key=started.get) == ["c.ipynb", "a.ipynb", "b.ipynb"]
    record = json.loads((tmp_path / "cache" / execution.DURATIONS).read_text(encoding="utf-8"))
    assert set(record) == {"a", "b", "c", "gone"} and all(0 < record[name] < 50 for name in "abc"), record
