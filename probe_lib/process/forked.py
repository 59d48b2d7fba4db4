"""One call per item, each in a forked worker process of its own, a few at a time; the answers in item order.

Each worker answers on a pipe of its own, which the calling thread alone reads: a worker killed mid-answer ends its
pipe, not the run, and nothing is left for the interpreter to join at exit. (``concurrent.futures``' process pool
shares queues and locks between its workers, a manager thread and the caller, which a signal or a kill can leave
mid-use: in CI an interrupted ``reproduce`` printed its last line and had not exited a minute later.) Forked, a
worker starts with the caller's modules already imported and takes its arguments without pickling; only its answer
is pickled.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from contextlib import suppress
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import TypeVar

import psutil

Answer = TypeVar("Answer")

#: What a worker that ended without answering is taken to have sent.
_NO_ANSWER = object()
#: How long a stopped worker gets to end on its own (papermill shutting its kernel down) before it is killed.
STOP_SECONDS = 15


def each(
    call: Callable[..., Answer],
    items: Sequence[tuple],
    *,
    slots: int | None = None,
    names: Sequence[str],
    done: Callable[[int], None] = lambda index: None,
) -> list[Answer]:
    """``call(*item)`` for every item of ``items``, each in a worker named after ``names[index]``, at most ``slots``
    at once (by default one per CPU); ``done(index)`` as each finishes. An exception a call raises is raised here
    (as its text, if it does not pickle); a worker that ends without answering raises ``RuntimeError`` naming it.
    Stopped (Ctrl-C, or a failure), the running workers get SIGINT, so each ends its own children as on Ctrl-C, and
    are reaped."""
    fork = multiprocessing.get_context("fork")
    slots = slots or os.cpu_count() or 1
    waiting = list(enumerate(items))
    running: dict[Connection, tuple[int, BaseProcess]] = {}
    answers: dict[int, Answer] = {}
    try:
        while waiting or running:
            while waiting and len(running) < slots:
                index, item = waiting.pop(0)
                reader, writer = fork.Pipe(duplex=False)
                worker = fork.Process(target=_answer, args=(writer, call, item), name=names[index], daemon=True)
                worker.start()
                writer.close()  # the worker holds the only writing end: its death is this end's EOF
                running[reader] = (index, worker)
            for reader in wait(list(running)):
                index, worker = running.pop(reader)
                answers[index] = _received(reader, worker)
                done(index)
    except BaseException:
        _stop([worker for _, worker in running.values()])
        raise
    return [answers[index] for index in range(len(items))]


def _answer(writer: Connection, call: Callable[..., object], item: tuple) -> None:
    """A worker's life: make the call and send back what it returned, or the exception it raised; then end whatever
    it started that still runs."""
    # The caller stops a worker with SIGINT: taken as Ctrl-C here even when the caller inherited it ignored (a
    # background job, a pytest worker in the full suite), so a stopped worker ends its children, not after a kill.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        try:
            answer: object = call(*item)
        except KeyboardInterrupt:  # the run is being stopped: end quietly (the caller no longer reads answers)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C comes twice: from the terminal and the caller
            return
        except Exception as error:  # the caller raises it
            answer = error
        try:
            writer.send(answer)
        except Exception:  # an exception that does not pickle: its text, at least
            writer.send(RuntimeError(f"{type(answer).__name__}: {answer}"))
    finally:
        _end_children()


def _end_children() -> None:
    """Kill and reap every process this worker started that still runs: a notebook's kernel that was still starting
    when the run was stopped is one (nbclient shuts down only a kernel that has started), and it would go on in a
    folder the stopped run removes, printing its failure on the run's stderr after the run's last line."""
    children = psutil.Process().children(recursive=True)
    for child in children:
        with suppress(psutil.NoSuchProcess):
            child.kill()
    psutil.wait_procs(children, timeout=STOP_SECONDS)


def _received(reader: Connection, worker: BaseProcess) -> object:
    """What a finished worker sent (raising the exception it sent instead), once the worker has ended."""
    try:
        answer = reader.recv()
    except EOFError:
        answer = _NO_ANSWER
    reader.close()
    _end(worker)
    if answer is _NO_ANSWER:
        raise RuntimeError(f"the worker running {worker.name} ended without an answer (exit code {worker.exitcode})")
    if isinstance(answer, BaseException):
        raise answer
    return answer


def _stop(workers: list[BaseProcess]) -> None:
    """End interrupted workers: each gets SIGINT, then is reaped."""
    for worker in workers:
        with suppress(ProcessLookupError):
            os.kill(worker.pid, signal.SIGINT)
    for worker in workers:
        _end(worker)


def _end(worker: BaseProcess) -> None:
    """Reap a worker, killing it if it has not ended within STOP_SECONDS."""
    worker.join(STOP_SECONDS)
    if worker.is_alive():
        worker.kill()
        worker.join()
