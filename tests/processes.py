"""What the tests read of live processes from /proc: which children a process has now."""

from __future__ import annotations

from pathlib import Path


def child_pids(parent: int, marker: bytes = b"") -> set[int]:
    """The processes whose parent is ``parent`` (and whose command line holds ``marker``, when given), now."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == parent and marker in (entry / "cmdline").read_bytes():
                found.add(int(entry.name))
        except OSError:  # the process ended while we looked
            continue
    return found
