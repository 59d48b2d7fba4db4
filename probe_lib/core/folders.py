"""Replace an output folder as a whole, or not at all, and never touch a file the kit did not write.

``reproduce``, ``export --out`` and ``run --out`` each write a set of files that belong together: a report, the
tidy tables with their dictionary, a run's measurement files with its table. Writing them in place would leave
half a new set beside half an old one after Ctrl-C or a full disk, looking whole, and would overwrite a file of the
user's that happens to share a name (their own ``outcomes.csv``). Instead :func:`replacing` builds the new set in a
hidden sibling (``.NAME.partial-XXXX``), writes a manifest (``.probe-lib-manifest.json``) listing every file of it
last, and swaps it in by two renames during which Ctrl-C is held back; then it deletes from the earlier folder only
the files that folder's own manifest lists.

A folder is the kit's to replace only when it does not exist, is empty, or holds nothing its manifest does not
list; names prove nothing (a folder without a manifest is the user's, whatever its files are called). This is
checked before any work (:func:`check_replaceable`, so a refusal is instant) and again at the swap, when the
earlier folder has been renamed aside and nothing can reach it by its path: a file the user saved into it while
the new set was built makes the swap refuse, the earlier folder and that file are put back as they were, and the
new set is kept beside them under a visible name (``NAME.new``), since it may have taken minutes to measure.
Every fault of the output folder (a path under a file, a full disk, no permission, a name too long) is a
:class:`FolderRefused` whose one line names the folder and says what was left where.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from itertools import count, islice
from pathlib import Path

from probe_lib.core.errors import FolderRefused

#: Lists every file the kit wrote into the folder, relative, so a rerun knows what it may replace.
MANIFEST = ".probe-lib-manifest.json"
#: A refusal counts the foreign files up to this many (a home folder holds millions).
_NAMED_FOREIGN = 100
#: The errors of a disk (or a quota) with no room left.
_FULL = (errno.ENOSPC, errno.EDQUOT)


def check_replaceable(folder: Path) -> Path:
    """Return ``folder`` (absolute) if the kit may replace it; raise :class:`FolderRefused` naming why not.

    Replaceable: a folder that does not exist yet (under folders, not under a file), an empty one, or one holding
    only files its manifest lists.
    """
    try:
        if folder.is_symlink():
            raise FolderRefused(f"{folder} is a symbolic link; give the folder it points to, or a new folder")
        folder = Path(os.path.abspath(folder))
        if not folder.name:
            raise FolderRefused(f"{folder} is the file system root; give a folder for the output")
        existing = next(path for path in (folder, *folder.parents) if path.exists())
        if existing != folder and not existing.is_dir():
            raise FolderRefused(f"{folder} lies under {existing}, which is a file; choose a folder elsewhere")
        if not existing.is_dir():
            raise FolderRefused(f"{folder} is a file, not a folder; choose a new or empty folder")
        foreign = _foreign_files(folder) if existing == folder else None
        if foreign:
            raise FolderRefused(
                f"{folder} holds {foreign}, which the kit did not write (no {MANIFEST} there lists it); move it "
                "out or choose another folder (nothing was changed)"
            )
    except OSError as error:  # permission, a name too long, a folder that vanished mid-check
        raise FolderRefused(f"cannot use this folder ({_reason(error)}); choose another: {folder}") from None
    return folder


@contextmanager
def replacing(folder: Path) -> Iterator[Path]:
    """Yield a new, empty staging folder to write the whole new set into; on leaving the block, put it at ``folder``.

    ``folder`` is checked first (:func:`check_replaceable`) and again at the swap (see the module docstring). An
    exception in the block, or a file that cannot be written (a full disk: :class:`FolderRefused`), removes the
    staging folder and leaves ``folder`` as it was.
    """
    folder = check_replaceable(folder)
    staging = _staging_beside(folder)
    try:
        try:
            yield staging
            _write_manifest(staging)
        except OSError as error:
            if error.errno in _FULL or _is_under(error.filename, staging):
                raise _unwritable(folder, error) from None
            raise
        _swap_in(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # after a swap it is gone; else whatever a failed run left


def _foreign_files(folder: Path) -> str | None:
    """What in ``folder`` the kit did not write (``notes.txt and 3 more``), or ``None`` when it is all the kit's."""
    foreign = list(islice(_foreign(folder), _NAMED_FOREIGN))
    if not foreign:
        return None
    more = len(foreign) - 1
    return foreign[0] + (f" and {more}{'+' if len(foreign) == _NAMED_FOREIGN else ''} more" if more else "")


def _foreign(folder: Path) -> Iterator[str]:
    """Paths in ``folder`` (relative) its manifest does not list: files, symbolic links, and folders holding none
    of the listed files (each named once, not descended into)."""
    ours = _manifest(folder)
    parents = {parent for name in ours for parent in Path(name).parents}

    def fail(error: OSError) -> None:
        raise error

    for root, subfolders, names in os.walk(folder, onerror=fail):
        here = Path(root).relative_to(folder)
        for name in sorted(subfolders):
            path = here / name
            if (folder / path).is_symlink():
                yield path.as_posix()
            elif path not in parents:
                subfolders.remove(name)
                yield path.as_posix() + "/"
        for name in sorted(names):
            path = (here / name).as_posix()
            if path not in ours and path != MANIFEST:
                yield path


def _manifest(folder: Path) -> set[str]:
    """The files listed in ``folder``'s manifest; none when it has no manifest (then every file is the user's)."""
    path = folder / MANIFEST
    if not path.exists():
        return set()
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (ValueError, KeyError, TypeError):
        files = None
    if not isinstance(files, list) or not all(isinstance(name, str) for name in files):
        raise FolderRefused(
            f"{path} does not list files, so the kit cannot tell its files from yours; choose another folder"
        )
    return set(files)


def _staging_beside(folder: Path) -> Path:
    """A new, empty, hidden folder next to ``folder`` (same file system, so the swap is two atomic renames)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        return _hidden_beside(folder, "partial")
    except OSError as error:
        raise FolderRefused(
            f"cannot create a folder beside {folder}: {_reason(error)}; choose another folder (nothing was changed)"
        ) from None


def _hidden_beside(folder: Path, kind: str) -> Path:
    """Make a new empty folder ``.NAME.KIND-XXXXXXXX`` beside ``folder``, with the permissions any new folder gets
    (``tempfile.mkdtemp`` would make it private, and the swapped-in folder with it)."""
    while True:
        path = folder.with_name(f".{folder.name}.{kind}-{secrets.token_hex(4)}")
        with suppress(FileExistsError):
            path.mkdir()
            return path


def _write_manifest(folder: Path) -> None:
    """List every file under ``folder``; written last, so only a finished folder has one."""
    files = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())
    (folder / MANIFEST).write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")


def _swap_in(staging: Path, folder: Path) -> None:
    """Put the finished ``staging`` folder at ``folder``, checking the earlier folder once it is out of reach.

    The renames run with Ctrl-C held back, so the path always names the old folder or the new one. The earlier
    folder is checked after it is renamed aside, where no one can save into it by its path any more; holding a
    file the kit did not write (or a manifest it can no longer read), it is renamed back and the new set is kept
    beside it.
    """
    with _held_interrupts():
        if not folder.exists():
            staging.rename(folder)
            return
        retired = _hidden_beside(folder, "old")
        folder.rename(retired)  # onto the empty folder just made: a name no other run can hold
        try:
            foreign = _foreign_files(retired)
            why = f"gained {foreign}, which the kit did not write," if foreign else None
        except (OSError, FolderRefused) as error:
            why = f"could no longer be read ({error})".replace(str(retired), str(folder))
        if why:
            retired.rename(folder)
            aside = _set_aside(staging, folder, "new")
            raise FolderRefused(
                f"{folder} {why} while the new files were made; it was left as it was, and the new files are in "
                f"{aside} (move your file out, then move them in)"
            )
        staging.rename(folder)
    _remove_ours(retired, folder)


def _set_aside(path: Path, folder: Path, suffix: str) -> Path:
    """Rename ``path`` to the first free ``NAME.SUFFIX``, ``NAME.SUFFIX-2``, … beside ``folder``; return it."""
    names = (f"{folder.name}.{suffix}" + (f"-{number}" if number > 1 else "") for number in count(1))
    aside = next(folder.with_name(name) for name in names if not os.path.lexists(folder.with_name(name)))
    path.rename(aside)
    return aside


def _remove_ours(retired: Path, folder: Path) -> None:
    """Delete from the earlier folder only the files its manifest lists, then the folders they leave empty.

    Anything left (saved into it through an open folder, such as a shell's working folder, in the instant after
    the check, or a file that could not be deleted) is kept, in ``NAME.earlier``, and the run says so.
    """
    ours = _manifest(retired) | {MANIFEST}
    for root, _, names in os.walk(retired, topdown=False):
        for name in names:
            path = Path(root, name)
            if path.relative_to(retired).as_posix() in ours:
                with suppress(OSError):  # kept, and named below
                    path.unlink()
        with suppress(OSError):  # not empty: it holds a file that is not ours
            Path(root).rmdir()
    if retired.exists():
        kept = _set_aside(retired, folder, "earlier")
        raise FolderRefused(
            f"the new files are in {folder}; what the kit did not remove of the earlier ones (a file saved into "
            f"them as they were replaced, or one it could not delete) is in {kept}"
        )


def _unwritable(folder: Path, error: OSError) -> FolderRefused:
    """The one line for a new set that could not be written beside ``folder``."""
    if error.errno in _FULL:
        return FolderRefused(
            f"the disk holding {folder} is full ({_reason(error)}); free some space or choose another folder "
            f"({folder} was left as it was)"
        )
    return FolderRefused(f"cannot write into {folder.parent}: {_reason(error)}; {folder} was left as it was")


def _reason(error: OSError) -> str:
    """What went wrong, as the system says it (``No space left on device``), without a path: the caller names it."""
    return os.strerror(error.errno) if error.errno else str(error)


def _is_under(filename: object, folder: Path) -> bool:
    return isinstance(filename, str | os.PathLike) and Path(os.path.abspath(filename)).is_relative_to(folder)


@contextmanager
def _held_interrupts() -> Iterator[None]:
    """Delay SIGINT, SIGTERM and SIGHUP until the block ends (the CLI stops on each as on Ctrl-C); only the main
    thread may install a handler; elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {number: signal.signal(number, lambda number, frame: received.append(number)) for number in held}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if received:
            signal.raise_signal(received[0])
