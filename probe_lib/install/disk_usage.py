"""Bytes on disk of installed releases, each file counted once however many hard links name it.

npm installs share files through :mod:`probe_lib.install.linkstore` and uv hard-links every Python environment to
its cache, so adding up each install folder's size would count one file many times; this counts each inode once
(its allocated blocks, as ``du`` does), over any set of folders.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def _inodes(folder: Path) -> Iterable[tuple[tuple[int, int], int]]:
    """``((device, inode), bytes allocated)`` of every file and folder under ``folder`` (links not followed)."""
    for root, dirs, names in os.walk(folder):
        for name in (*dirs, *names):
            try:
                status = os.lstat(os.path.join(root, name))
            except FileNotFoundError:  # removed while walking (another process's staging folder)
                continue
            yield (status.st_dev, status.st_ino), status.st_blocks * 512


def allocated(folders: Iterable[Path]) -> dict[tuple[int, int], int]:
    """Bytes allocated to each file under ``folders``, by ``(device, inode)``: one entry for a file hard-linked in
    several places; the entries of several calls merge with ``|`` and count each file once."""
    seen: dict[tuple[int, int], int] = {}
    for folder in folders:
        seen.update(_inodes(folder))
    return seen


def size(folders: Iterable[Path]) -> int:
    """Bytes allocated to every file under ``folders``, a file hard-linked in several places counted once."""
    return sum(allocated(folders).values())


def shown(count: int) -> str:
    """``count`` bytes as people read them (``412.3 MB``)."""
    for unit, scale in (("GB", 1000**3), ("MB", 1000**2), ("kB", 1000)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"
