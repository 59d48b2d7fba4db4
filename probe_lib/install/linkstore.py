"""Share identical files between installed ``node_modules`` trees with hard links into one content store.

Consecutive versions of a framework keep most of their dependencies unchanged, so after each install every regular
file is hashed and replaced by a hard link to ``<cache>/store/<sha256>`` (the first copy becomes the store's). A
second install of the same dependency then costs directory entries, not bytes. Installed packages are read, never
written, by the runners, so sharing inodes between trees is safe. Before sharing, :func:`prune` drops what no runner
reads (source maps, type declarations), which is about half of each ``@mastra/core`` version's own bytes.

Several installs may share into the store at once, and :func:`collect` may run beside them: an entry is only ever
created by one atomic link (the first wins, the others link to it) and a file of a tree is only ever replaced by one
atomic rename, so no file of any tree is lost or half-written whatever the interleaving (an entry collected while an
install links to it costs at most that sharing).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from probe_lib.core import paths

#: Files no runner reads (source maps and type declarations): ~half of a 1.x ``@mastra/core`` package's bytes.
UNREAD_SUFFIXES = (".map", ".d.ts", ".d.cts", ".d.mts")


def _digest(path: Path, mode: int) -> str:
    hasher = hashlib.sha256(b"x" if mode & stat.S_IXUSR else b"-")  # same bytes, other exec bit: another entry
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


def default_store() -> Path:
    """The kit's store: ``<cache>/store``, on the file system of the installs it shares (hard links need that)."""
    return paths.cache() / "store"


def _link_to_store(path: Path, entry: Path, inode: int) -> None:
    """Make ``path`` a link of ``entry``, storing ``path`` as ``entry`` when there is none."""
    while True:
        if not entry.exists():
            entry.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, entry)
                return
            except FileExistsError:  # another install stored the same file just now: link to theirs
                pass
        try:
            if entry.stat().st_ino == inode:
                return
            temporary = path.with_name(path.name + ".link-tmp")
            os.link(entry, temporary)
        except FileNotFoundError:  # collected meanwhile: store this copy instead
            continue
        os.replace(temporary, path)
        return


def share(tree: Path, store: Path | None = None) -> None:
    """Hard-link every regular file under ``tree`` into ``store`` (the kit's by default)."""
    store = store or default_store()
    for folder, _, files in os.walk(tree):
        for name in files:
            path = Path(folder, name)
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
                continue
            digest = _digest(path, info.st_mode)
            _link_to_store(path, store / digest[:2] / digest[2:], info.st_ino)


def prune(tree: Path) -> None:
    """Delete source maps and type declarations under ``tree`` (an install the kit made)."""
    for folder, _, files in os.walk(tree):
        for name in files:
            if name.endswith(UNREAD_SUFFIXES):
                path = Path(folder, name)
                if stat.S_ISREG(path.lstat().st_mode):
                    path.unlink()


def collect(store: Path | None = None) -> int:
    """Delete entries of ``store`` (the kit's by default) no install links to any more; return the bytes freed."""
    freed = 0
    for entry in (store or default_store()).glob("*/*"):
        try:
            info = entry.stat()
            if info.st_nlink == 1:
                entry.unlink()
                freed += info.st_size
        except FileNotFoundError:  # collected by another process just now
            continue
    return freed
