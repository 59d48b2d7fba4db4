"""Replace an output folder without losing anything: build beside it, swap it in whole, touch no file not ours.

``reproduce`` writes a folder of many files over half a minute. Writing them in place would leave a
half-report after Ctrl-C and would delete whatever the user had put there. Instead the new folder is built
in a hidden sibling (``.NAME.partial-XXXX``), a manifest listing every file it holds is written last, and the
finished folder replaces the old one by two renames during which Ctrl-C is held back. A folder is only ever
replaced when every file in it is listed in its manifest (or, for reports written before manifests, matches
the report's layout): a file the user added makes the run refuse, before any work, naming that file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

from probe_lib.core.errors import InputError

#: Lists every file the kit wrote into the folder, relative, so a rerun knows what it may replace.
MANIFEST = ".probe-lib-manifest.json"
#: What ``reproduce`` wrote before it kept a manifest: an earlier report of this layout may be replaced too.
_REPORT_LAYOUT = re.compile(
    r"report\.html|ledger\.csv|measurements/mastra-[0-9.]+\.json|notebooks/[0-9]{2}-[\w.-]+\.ipynb"
    r"|figures/[0-9]{2}-[\w.-]+-[0-9]+\.png"
)

#: A refusal counts the foreign files up to this many (a home folder holds millions).
_NAMED_FOREIGN = 100


def check_replaceable(folder: Path) -> Path:
    """Return ``folder`` (absolute) if the kit may replace it; raise ``InputError`` naming why not.

    Replaceable: a folder that does not exist yet, an empty one, or one holding only files the kit wrote.
    """
    if folder.is_symlink():
        raise InputError(f"{folder} is a symbolic link; give the folder it points to, or a new folder")
    folder = Path(os.path.abspath(folder))
    if not folder.name:
        raise InputError(f"{folder} is the file system root; give a folder for the report")
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder; choose a new or empty folder")
    if folder.parent.exists() and not folder.parent.is_dir():
        raise InputError(f"{folder.parent} is a file, not a folder; choose a new or empty folder")
    if folder.is_dir():
        foreign = list(islice(_foreign(folder), _NAMED_FOREIGN))
        if foreign:
            more = (
                f" and {len(foreign) - 1}{'+' if len(foreign) == _NAMED_FOREIGN else ''} more"
                if len(foreign) > 1
                else ""
            )
            raise InputError(
                f"{folder} holds {foreign[0]}{more}, which the kit did not write; move it out or "
                "choose another folder (nothing was changed)"
            )
    return folder


def _foreign(folder: Path) -> Iterator[str]:
    """Paths in ``folder`` (relative) the kit did not write: files, and folders that hold none of its files."""
    ours = _manifest(folder)
    parents = {parent for name in ours or () for parent in Path(name).parents}
    for path in folder.rglob("*"):
        name = path.relative_to(folder).as_posix()
        if name == MANIFEST:
            continue
        if path.is_dir() and not path.is_symlink():
            if ours is not None and Path(name) not in parents:
                yield name + "/"
        elif not (name in ours if ours is not None else _REPORT_LAYOUT.fullmatch(name)):
            yield name


def _manifest(folder: Path) -> set[str] | None:
    """The files listed in ``folder``'s manifest; ``None`` when it has none (an older report or a user folder)."""
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(
            f"{path} is unreadable, so the kit cannot tell its files from yours; choose another folder"
        ) from None
    if not isinstance(files, list) or not all(isinstance(name, str) for name in files):
        raise InputError(
            f"{path} does not list files, so the kit cannot tell its files from yours; choose another folder"
        )
    return set(files)


def staging_beside(folder: Path) -> Path:
    """A new, empty, hidden folder next to ``folder`` (same file system, so the final rename is atomic)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{folder.name}.partial-", dir=folder.parent))
    except OSError as error:
        raise InputError(f"cannot create a folder beside {folder}: {error.strerror}; choose another folder") from None


def write_manifest(folder: Path) -> None:
    """List every file under ``folder``; written last, so only a finished folder has one."""
    files = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())
    (folder / MANIFEST).write_text(json.dumps({"files": files}, indent=1) + "\n", encoding="utf-8")


def swap_in(staging: Path, folder: Path) -> None:
    """Put the finished ``staging`` folder at ``folder``; the earlier folder, if any, is removed afterwards.

    The two renames run with Ctrl-C held back, so the path always names either the old or the new folder.
    """
    retired = folder.with_name(f".{folder.name}.old-{os.getpid()}") if folder.exists() else None
    with _held_interrupts():
        if retired is not None:
            folder.rename(retired)
        staging.rename(folder)
    if retired is not None:
        shutil.rmtree(retired)


@contextmanager
def _held_interrupts() -> Iterator[None]:
    """Delay SIGINT until the block ends (only the main thread may install a handler; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: received.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)
