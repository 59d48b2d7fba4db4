"""The fixes the kit proposes for a framework's finding, as patches against the files a release ships."""

from __future__ import annotations

from pathlib import Path

#: Framework -> the fix the kit has for it.
FIXES: dict[str, str] = {}


def write_patch(framework: str, version: str, harness: Path, to: Path) -> None:
    """Write the fix of ``framework`` for ``version`` into ``to``."""
    raise NotImplementedError(framework)
