"""What the tests read of live processes from /proc (which children a process has now), and how they start a child
that a Ctrl-C must reach."""

from __future__ import annotations

import signal
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


def as_at_a_terminal() -> None:
    """Ctrl-C as a user's shell delivers it (a child's ``preexec_fn``): SIGINT at its default disposition and not
    blocked. A child inherits an ignored SIGINT, and in the full suite something in a pytest worker leaves it
    ignored (seen: reproduce, and a sweep, ran on after SIGINT, to exit 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
