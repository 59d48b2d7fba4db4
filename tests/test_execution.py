"""The notebook workers of ``reproduce``: real papermill runs in real kernels, each in a worker process of its own.
A worker that dies mid-notebook fails the run at once, naming its notebook, and takes no other worker with it
into a hang (the interrupted paths, Ctrl-C, SIGTERM and SIGHUP, are held in test_reproduce_safety)."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from probe_lib.core import paths
from probe_lib.present import execution, kernels, staleness
from probe_lib.process import zygote


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
    with kernels.warm():  # as reproduce starts them: the zygote reports each death
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


@pytest.mark.slow
def test_a_kernel_forked_from_the_zygote_gives_the_bytes_of_one_started_cold_and_records_no_fewer_inputs(tmp_path):
    """What a forked kernel inherits from the zygote's imports is what a cold one makes for itself: pandas' display
    defaults (it asks IPython whether it runs in a kernel), matplotlib's inline backend, the kernel's folder and
    import path. And everything the cold kernel read is among the forked kernel's inputs, so no change is missed."""
    sources = tmp_path / "sources"
    sources.mkdir()
    shown = (
        "%matplotlib inline\nimport os, sys, pandas as pd, matplotlib.pyplot as plt\n"
        "display(pd.DataFrame([range(40)] * 3))\nplt.plot([1, 3, 2])\nplt.show()\n"
        "print(os.path.basename(os.getcwd()), sys.path[:1], pd.get_option('display.max_columns'), plt.get_backend())"
    )
    source = notebook(sources, "n", shown)
    cold = execution.execute(source, tmp_path / "cold", "1.0.0")
    with kernels.warm():
        warm = execution.execute(source, tmp_path / "warm", "1.0.0")
    assert cold.error is None and warm.error is None
    assert warm.executed.read_bytes() == cold.executed.read_bytes()
    assert "image/png" in warm.executed.read_text(encoding="utf-8")
    inputs = {
        run: staleness.recorded(run.reads, folder, {}).values
        for run, folder in ((cold, tmp_path / "cold"), (warm, tmp_path / "warm"))
    }
    read_cold = {name: value for name, value in inputs[cold].items() if value != staleness.ABSENT}
    assert read_cold.items() <= inputs[warm].items(), set(read_cold.items()) - set(inputs[warm].items())


@pytest.mark.slow
def test_a_cell_that_overruns_fails_its_notebook_alone_and_leaves_no_kernel(tmp_path, monkeypatch):
    """nbclient interrupts a kernel whose cell overruns and shuts it down; the kernels here are forked from the
    zygote, so the signals and the end of each reach the right process: nothing of the run is left."""
    monkeypatch.setattr(execution, "NOTEBOOK_CELL_SECONDS", 3)
    sources = tmp_path / "sources"
    sources.mkdir()
    work = [(notebook(sources, "slow", "import time\ntime.sleep(60)"), None), (notebook(sources, "quick", "1"), None)]
    started = time.monotonic()
    slow, quick = execution.execute_all(work, tmp_path / "report", "1.0.0", 2, lambda name: None)
    assert time.monotonic() - started < 45, "the overrunning cell was waited out"
    assert slow.error is not None and "CellTimeoutError" in slow.error, slow.error
    assert quick.error is None
    left = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if Path(process.cwd()).is_relative_to(tmp_path):
                left.append(process.cmdline())
    assert not left, left


@pytest.mark.slow
def test_a_kernel_asked_for_with_another_environment_starts_cold(tmp_path, monkeypatch):
    """The zygote's imports may have read its environment (matplotlib reads MPLCONFIGDIR), so a kernel asked for
    with another is started as jupyter_client starts one: its parent is the process that asked, not the zygote."""
    sources = tmp_path / "sources"
    sources.mkdir()
    source = notebook(sources, "n", "import os\nprint(os.getppid())")

    def parent(folder: str) -> int:
        run = execution.execute(source, tmp_path / folder, "1.0.0")
        return int(nbformat.read(run.executed, as_version=4).cells[-1].outputs[0]["text"])

    with kernels.warm() as warm:
        assert parent("warm") == warm.pid
        monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "elsewhere"))
        assert parent("cold") == os.getpid()


@pytest.mark.slow
def test_a_forked_kernel_ends_with_its_zygote_as_a_cold_one_ends_with_its_starter(tmp_path):
    """ipykernel polls the parent it is given and ends when that parent goes: a forked kernel is given the zygote."""
    import asyncio

    async def kernel_of_a_killed_zygote() -> int:
        manager = kernels.KernelManager(kernel_name="python3")
        with kernels.warm() as warm:
            await manager.start_kernel(cwd=str(tmp_path))
            pid = manager.provisioner.pid
            assert psutil.Process(pid).ppid() == warm.pid
            os.kill(warm.pid, signal.SIGKILL)
            deadline = time.monotonic() + 20
            try:
                while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    assert time.monotonic() < deadline, "the kernel outlived its zygote"
                    await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)  # not left behind should this fail
        await manager.cleanup_resources()
        return pid

    asyncio.run(kernel_of_a_killed_zygote())


def test_the_modules_that_start_and_prepare_a_kernel_are_inputs_of_every_notebook(tmp_path):
    """Named by the code that runs (the modules and the zygote's preparation script), not by a list of paths."""
    values = staleness.declared(notebook(tmp_path, "n", "1"), {})
    for module in (Path(execution.__file__), Path(kernels.__file__), kernels.PREPARE, Path(zygote.__file__)):
        name = f"kit:{module.relative_to(paths.ROOT).as_posix()}"
        assert values.get(name) == staleness.sha256(module), name


def test_a_rebuild_that_keeps_every_notebook_starts_no_kernel(tmp_path, monkeypatch):
    """Nothing stale, nothing started: a second ``reproduce`` that reuses every notebook spent 2.2 s starting a zygote
    no notebook used."""
    monkeypatch.setattr(kernels, "warm", lambda: pytest.fail("a zygote started with no notebook to execute"))
    assert execution.execute_all([], tmp_path, "1.67.0", None, lambda name: pytest.fail(name)) == ()
