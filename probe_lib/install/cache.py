"""Entries of the kit's shared cache, installed safely by any number of processes (and threads) at once.

An entry (an ``npm ci`` tree, a Python environment, a generated harness folder) appears whole or not at all, and a
whole one is never removed or replaced, so a runner reading it is never disturbed. Its installer holds a file lock of
its own (``.<entry>.lock`` beside it), checks again once the lock is held (another process may have installed it
meanwhile), builds in a staging folder of its own (``.<entry>.partial-<random>``) and publishes it with one rename.
A staging folder left by an installer that was killed is removed by the next installer of that entry, under the
lock, where no live installer can own it; one that fails removes its own. An unusable cache (a file in its place, a
read-only folder) is one ``CacheUnusable`` naming it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from probe_lib.core import paths
from probe_lib.core.errors import CacheUnusable


def _unusable(error: OSError) -> CacheUnusable:
    where = f" at {error.filename}" if error.filename else ""
    return CacheUnusable(
        f"the kit's cache folder {paths.cache()} cannot be used ({error.strerror or error}{where}): "
        "make it a folder you can write, or set PROBE_LIB_CACHE to one"
    )


def folder(path: Path) -> Path:
    """``path``, a folder in the cache, created if need be; ``CacheUnusable`` naming the cache when it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a file in its place, a read-only folder
        raise _unusable(error) from None
    return path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock of ``path`` (a file or folder in the cache) for the block, against other processes and threads;
    ``CacheUnusable`` when the lock cannot be made there. A lock dies with its process (its empty file stays), so
    none is left held by an installer that was killed."""
    try:
        held = FileLock(folder(path.parent) / f".{path.name}.lock").acquire()
    except OSError as error:
        raise _unusable(error) from None
    with held:
        yield


def rewriting(path: Path):
    """The lock for a read-modify-write of ``path``, a file outside the cache (the committed timelines): held in the
    cache, so no lock file appears beside it, and taken in turn by two processes rewriting it at once."""
    return locked(paths.cache() / "writes" / path.name)


def publish(entry: Path, is_complete: Callable[[Path], bool], build: Callable[[Path], None]) -> Path:
    """``entry`` once ``is_complete`` holds of it: if not yet, ``build`` fills a fresh staging folder (given as its
    argument), which is then renamed to ``entry``. Returns ``entry``."""
    if is_complete(entry):
        return entry
    with locked(entry):
        if is_complete(entry):  # installed by another process while this one waited
            return entry
        prefix = f".{entry.name}.partial-"
        for stale in entry.parent.glob(f"{prefix}*"):  # a killed installer's: with the lock held, no live one's
            shutil.rmtree(stale, ignore_errors=True)
        if entry.exists():  # incomplete, so never read (every reader checks completeness first)
            shutil.rmtree(entry)
        try:
            staging = Path(tempfile.mkdtemp(prefix=prefix, dir=entry.parent))
        except OSError as error:
            raise _unusable(error) from None
        try:
            build(staging)
            staging.rename(entry)  # atomic: a half-finished entry is never mistaken for a whole one
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return entry
