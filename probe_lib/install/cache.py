"""Entries of the kit's shared cache, installed safely by any number of processes (and threads) at once.

An entry (an ``npm ci`` tree, a Python environment, a generated harness folder) appears whole or not at all, and
one that counts as complete is never removed or replaced, so a runner reading it is never disturbed. Its installer
holds a file lock of
its own (``.<entry>.lock`` beside it), checks again once the lock is held (another process may have installed it
meanwhile), builds in a staging folder of its own (``.<entry>.partial-<random>``) and publishes it with one rename.
An entry that no longer counts as complete (a generated folder whose release's bound has moved) stays where it is,
readable, until its replacement is whole; then it is renamed aside and the replacement renamed in (a swap that fails
puts it back), and a path read after that finds the replacement.
A staging folder left by an installer that was killed is removed by the next installer of that entry, under the
lock, where no live installer can own it; one that fails removes its own. An unusable cache (a file in its place, a
read-only folder) is one ``CacheUnusable`` naming it.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from probe_lib.core import files, paths
from probe_lib.core.errors import CacheUnusable, InstallFailed, MachineLacks


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
        held = _lock(path).acquire()
    except OSError as error:
        raise _unusable(error) from None
    with held:
        yield


def _lock(path: Path) -> FileLock:
    return FileLock(folder(path.parent) / f".{path.name}.lock")


def rewriting(path: Path):
    """The lock for a read-modify-write of ``path``, a file outside the cache (the committed timelines): held in the
    cache, so no lock file appears beside it, and taken in turn by two processes rewriting it at once."""
    return locked(paths.cache() / "writes" / path.name)


def manifest(entry: Path) -> Path:
    """The list of the files ``entry``'s install wrote, each with its size: beside the entry, not in it, so the entry
    stays as its installer left it (a notebook's recorded inputs name an entry by its modification time)."""
    return entry.parent / f".{entry.name}.files.json"


def _sizes(folder: Path) -> dict[str, int]:
    sizes = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            sizes[os.path.relpath(path, folder)] = os.lstat(path).st_size
    return sizes


#: Entries found intact by this process: a check reads every file's size (0.2 s for a Mastra install at load 20).
_intact: set[Path] = set()
#: Held while an entry is checked, so runners starting at once (``probe``'s two) check it once, not each.
_checking = threading.Lock()
#: Set while installs are only listed (:func:`listing`).
_listing = contextvars.ContextVar("listing", default=False)


@contextmanager
def listing() -> Iterator[None]:
    """Within it, an entry whose files are listed counts as intact without each file's size being read: for
    ``probe-lib versions`` and ``cache``, which name every install (reading every file of a hundred Mastra installs
    took 25 s). A release is still checked when it is used, which installs it again if a file is missing."""
    token = _listing.set(True)
    try:
        yield
    finally:
        _listing.reset(token)


def intact(entry: Path) -> bool:
    """True when ``entry`` holds every file its install wrote, each at its size: an install a file was deleted from
    or cut short in since would run as a broken package and be measured as the framework's own crash. An entry
    installed before the kit listed its files gets its list now (it is checked from then on)."""
    with _checking:
        return _check(entry)


def _check(entry: Path) -> bool:
    """:func:`intact`, with the check held."""
    if entry in _intact:
        return True
    try:
        listed = json.loads(manifest(entry).read_bytes())
    except FileNotFoundError:
        if not entry.is_dir():
            return False
        _list_unlisted(entry)
        listed = {}
    except (OSError, ValueError):
        return False
    if _listing.get():
        return True
    for name, size in listed.items():
        try:
            if os.lstat(entry / name).st_size != size:
                return False
        except OSError:
            return False
    _intact.add(entry)
    return True


def _list_unlisted(entry: Path) -> None:
    """Write the list of an entry installed before the kit listed files, under the entry's lock, so that no installer
    is replacing the entry while its files are listed (a list of a half-removed tree, landing after the new install's
    own, would fail that install's check ever after). Skipped while the lock is held (an installer is at work, and
    lists what it installs) and in a read-only cache: the entry is then used unchecked, as before lists were written."""
    with suppress(OSError):  # filelock's Timeout is one
        with _lock(entry).acquire(timeout=0):
            if entry.is_dir() and not manifest(entry).exists():
                files.write_json(manifest(entry), _sizes(entry))


def publish(entry: Path, is_complete: Callable[[Path], bool], build: Callable[[Path], None]) -> Path:
    """``entry`` once ``is_complete`` holds of it and it is :func:`intact`: if not yet, ``build`` fills a fresh
    staging folder (given as its argument), whose files are listed in its :func:`manifest`, then it is renamed to
    ``entry`` (a broken one is replaced). Returns ``entry``."""
    if is_complete(entry) and intact(entry):
        return entry
    with locked(entry):
        _intact.discard(entry)
        if is_complete(entry) and intact(entry):  # installed by another process while this one waited
            return entry
        if entry.exists() and not entry.is_dir():  # a file of the user's, never the kit's: not removed
            raise CacheUnusable(
                f"{entry} is a file where the kit's cache keeps a folder: move it away, or set PROBE_LIB_CACHE to "
                "another folder"
            )
        prefix = f".{entry.name}.partial-"
        for stale in entry.parent.glob(f"{prefix}*"):  # a killed installer's: with the lock held, no live one's
            shutil.rmtree(stale, ignore_errors=True)
        try:
            staging = Path(tempfile.mkdtemp(prefix=prefix, dir=entry.parent))
        except OSError as error:
            raise _unusable(error) from None
        try:
            build(staging)
            _swap_in(staging, entry, prefix)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return entry


def _swap_in(staging: Path, entry: Path, prefix: str) -> None:
    """Rename ``staging``, built whole, to ``entry`` (atomic: a half-finished entry is never mistaken for a whole one),
    with its :func:`manifest`. An entry already there no longer counts as complete, but a process that found it whole
    before (a generated folder whose release's bound has moved since) may be reading it: it stays in place while its
    replacement is built, and is renamed aside (into a staging name, so a killed installer's is removed by the next)
    only now, then removed; if the swap fails (a full disk), it is put back."""
    files.write_json(manifest(entry), _sizes(staging))  # first: the old entry no longer counts as complete anyway
    aside = Path(tempfile.mkdtemp(prefix=prefix, dir=entry.parent)) if entry.exists() else None
    try:
        if aside is not None:
            entry.rename(aside / entry.name)
        staging.rename(entry)
    except BaseException:
        if aside is not None and (aside / entry.name).exists() and not entry.exists():
            (aside / entry.name).rename(entry)
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


#: What an installer prints when the disk refused its files (npm's ``ENOSPC``/``EFBIG`` codes, the C library's words).
_DISK_REFUSED = re.compile(r"ENOSPC|EFBIG|EDQUOT|No space left on device|File too large|Disk quota exceeded")


def install_failure(
    tool: str, name: str, completed: subprocess.CompletedProcess, said: str
) -> InstallFailed | MachineLacks:
    """Why installer ``tool`` failed to install ``name``: :class:`MachineLacks` when the machine stopped it (a full
    disk, a file size limit, a signal), which no release can be blamed for, else :class:`InstallFailed` carrying
    ``said``."""
    what = f"{tool} for {name}"
    if completed.returncode < 0:
        stopped = f"was stopped by {signal.Signals(-completed.returncode).name}"
        return MachineLacks(f"{what} {stopped} (a full disk or a file size limit sends SIGXFSZ); nothing was installed")
    if _DISK_REFUSED.search(f"{completed.stderr or ''}\n{completed.stdout or ''}"):
        return MachineLacks(
            f"{what} ran out of disk space in {paths.cache()} ({said}); nothing was installed: free some, or set "
            "PROBE_LIB_CACHE to a folder on another disk"
        )
    return InstallFailed(f"{tool} failed for {name}: {said}")


@dataclass(frozen=True)
class Installer:
    """How a harness folder installs into the cache: as ``<cache>/<kind>/<folder name>-<hash of its lock file>/``, one
    entry per lock, so a changed lock installs afresh beside the old entry. ``build(folder, staging, quiet)`` fills a
    staging folder, ``mark`` among its paths, which is then renamed whole into place (:func:`publish`): an entry is
    complete once it holds ``mark`` and is :func:`intact`."""

    kind: str
    lock: str
    mark: str
    build: Callable[[Path, Path, bool], None]

    def install_dir(self, folder: Path) -> Path:
        """Where the harness package in ``folder`` is (or would be) installed."""
        digest = hashlib.sha256((folder / self.lock).read_bytes()).hexdigest()[:16]
        return paths.cache() / self.kind / f"{folder.name}-{digest}"

    def is_complete(self, entry: Path) -> bool:
        return (entry / self.mark).exists() and intact(entry)

    def is_installed(self, folder: Path) -> bool:
        return self.is_complete(self.install_dir(folder))

    def install(self, folder: Path, *, quiet: bool = True) -> Path:
        """The entry of ``folder``, built unless that exact lock is installed (:func:`publish`: one process installs,
        any others wait)."""
        return publish(self.install_dir(folder), self.is_complete, lambda staging: self.build(folder, staging, quiet))
