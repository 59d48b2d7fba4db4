"""One batch of requests through several :class:`LinesChild` processes, its results handed back in batch order.

However long the batch, memory stays bounded: each request is built only when a child has room for it, and no
request is sent ``ahead`` or more positions past the oldest result not yet handed to the caller, so few results
wait for an earlier one. Each child takes the next position whenever it has fewer than ``in_flight`` out, so it
never waits for work. A child that dies, or stalls past its watchdog, is killed; the others carry on, each position
it had out is handed over as ``None``, and after the last one its error is raised (``WorkersFailed`` for several).
"""

from __future__ import annotations

import heapq
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

from probe_lib.core.errors import HarnessError, WorkersFailed
from probe_lib.process.lines import LinesChild

Child = TypeVar("Child", bound=LinesChild)


def in_order(
    children: Sequence[Child],
    count: int,
    request: Callable[[int], dict],
    *,
    in_flight: int,
    ahead: int,
    timeout: float,
    name_error: Callable[[Child, BaseException], BaseException] = lambda child, error: error,
) -> Iterator[dict | None]:
    """The result of each of ``count`` positions, in order; ``None`` for one a failed child could not finish.

    ``children`` are started here, each in a thread of its own, and closed when the batch ends or the caller stops
    early. ``request(position)`` builds a position's request line (with its ``id``) just before it is sent, on a
    child's writer thread. ``timeout`` is the watchdog: the longest a child may send no result. ``name_error``
    tells a child's failure from its child (a framework's known way of dying, such as the kit's own heap cap). A
    child's error that is not a ``HarnessError`` (it could not start: Node missing, an install failed) is raised
    at once.
    """
    dispatch = _Dispatch(count, ahead)
    done: queue.Queue[tuple[int, dict | None] | _Feed] = queue.Queue()
    feeds = [_Feed(child, dispatch, done, request, in_flight, timeout, name_error) for child in children]
    threads = [threading.Thread(target=feed.run, daemon=True) for feed in feeds]
    for thread in threads:
        thread.start()
    waiting: dict[int, dict | None] = {}  # finished, or given up, before an earlier one
    ended = lost = 0
    try:
        for position in range(count):
            while position not in waiting and ended < len(feeds):
                item = done.get()
                if isinstance(item, _Feed):  # a child is done, or failed to start or mid-batch
                    ended += 1
                    if item.error is not None and not isinstance(item.error, HarnessError):
                        raise item.error
                    continue
                finished, result = item
                waiting[finished] = result
            result = waiting.pop(position, None)  # none left to wait for when every child has ended
            lost += result is None
            dispatch.yielded(position + 1)
            yield result
    finally:
        dispatch.stop()
        for feed in feeds:
            feed.stop()  # ends a child still starting or idle, and any child left when the caller stopped early
        for thread in threads:
            thread.join()
    errors = [feed.error for feed in feeds if feed.error is not None]
    if errors and lost:  # a child that ended (or was ended above) after every result was in lost none
        raise errors[0] if len(errors) == 1 else WorkersFailed(errors)


class _Dispatch:
    """Hands out positions in order, never ``ahead`` or more past the oldest not yet yielded, so results waiting
    for an earlier one stay few; a position a failing child took but could not send goes out again first."""

    def __init__(self, count: int, ahead: int) -> None:
        self._count, self._ahead = count, ahead
        self._next = self._oldest = 0
        self._returned: list[int] = []
        self._stopped = False
        self._changed = threading.Condition()

    def take(self) -> int | None:
        """The next position to run, waiting while the batch is ``ahead`` in front; ``None`` when none is left."""
        with self._changed:
            self._changed.wait_for(
                lambda: (
                    self._stopped
                    or self._returned
                    or self._next >= self._count
                    or self._next < self._oldest + self._ahead
                )
            )
            if self._stopped:
                return None
            if self._returned:
                return heapq.heappop(self._returned)
            if self._next >= self._count:
                return None
            self._next += 1
            return self._next - 1

    def give_back(self, position: int) -> None:
        with self._changed:
            heapq.heappush(self._returned, position)
            self._changed.notify_all()

    def yielded(self, oldest: int) -> None:
        """Every position before ``oldest`` has been handed to the caller."""
        with self._changed:
            self._oldest = oldest
            self._changed.notify_all()

    def stop(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify_all()


class _Feed(Generic[Child]):
    """One child working through the batch: a writer thread sends it the next position whenever it has fewer than
    ``in_flight`` out, and :meth:`run` reads each result back onto ``done`` as ``(position, result)``, then puts
    the feed itself there when it ends. When the child fails, each position it had out goes onto ``done`` as
    ``(position, None)`` and ``error`` says why."""

    def __init__(
        self,
        child: Child,
        dispatch: _Dispatch,
        done: queue.Queue,
        request: Callable[[int], dict],
        in_flight: int,
        timeout: float,
        name_error: Callable[[Child, BaseException], BaseException],
    ) -> None:
        self.child, self.error = child, None
        self._dispatch, self._done, self._request, self._timeout = dispatch, done, request, timeout
        self._name_error = name_error
        self._out: dict[str, int] = {}  # sent and not answered: request id -> position
        self._slots = threading.Semaphore(in_flight)
        self._writing, self._dead = True, False
        self._unsent: BaseException | None = None  # what stopped the writer building a request, if anything did
        self._changed = threading.Condition()

    def run(self) -> None:
        try:
            with self.child:
                writer = threading.Thread(target=self._write, daemon=True)
                writer.start()
                try:
                    self._read()
                except BaseException:
                    self.stop()
                    raise
                finally:
                    writer.join()
                if self._unsent is not None:
                    raise self._unsent
        except BaseException as error:  # handed to the batch, which raises it in the caller's thread
            self.error = self._unsent or self._name_error(self.child, error)
        finally:
            self._done.put(self)

    def stop(self) -> None:
        """Kill the child (this frees a writer blocked on its full pipe) and give up what it had out."""
        with self._changed:
            self._dead = True
            out, self._out = list(self._out.values()), {}
            self._changed.notify_all()
            self.child.kill()
        for position in out:
            self._done.put((position, None))
        self._slots.release()  # a writer waiting for a slot sees the child is dead

    def _write(self) -> None:
        try:
            while self._slots.acquire() and not self._dead:
                position = self._dispatch.take()
                if position is None:
                    break
                request = self._request(position)
                with self._changed:
                    if self._dead:
                        self._dispatch.give_back(position)
                        break
                    self._out[request["id"]] = position
                    self._changed.notify_all()
                if not self.child.send(request):  # it died: the reader finds out and gives up what was out
                    break
        except BaseException as error:  # the feed fails with it (the reader, blocked on the child, is freed)
            self._unsent = error
            self.stop()
        finally:
            with self._changed:
                self._writing = False
                self._changed.notify_all()

    def _read(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._out or not self._writing)
                if not self._out:
                    return  # everything sent has been answered, and nothing more will be sent
            result = self.child.next_result(timeout=self._timeout)
            with self._changed:
                position = self._out.pop(result.get("id"), None)
            if position is not None:
                self._slots.release()
                self._done.put((position, result))
