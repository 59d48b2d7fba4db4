"""Every path the kit reads or writes, built from this file's location (never the working folder)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from probe_lib.core.errors import CacheUnusable

PACKAGE = Path(__file__).resolve().parent.parent
ROOT = PACKAGE.parent

DATA = ROOT / "data"
CAPTURES = DATA / "captures"
NOTEBOOKS = ROOT / "notebooks"
HARNESS = PACKAGE / "frameworks" / "mastra" / "harness"
#: The child-side halves of the JSON-lines protocol (``lines.cjs``, ``lines.mjs``, ``lines.py``), shared by every
#: runner (Mastra's ``runner.cjs`` requires ``lines.cjs``).
SHARED_HARNESS = PACKAGE / "frameworks" / "harness"
#: A harness package of its own for the real ``@mastra/mcp`` client (installed beside the main one).
MCP_HARNESS = HARNESS / "mcp"

#: Where ``reproduce`` writes executed notebooks, figures, the ledger CSV and the HTML report (git-ignored).
REPORT = Path(os.environ.get("PROBE_LIB_REPORT", ROOT / "report"))


def cache() -> Path:
    """The kit's cache folder (installed frameworks, the sweep's results), outside the source tree: read at each
    call, so a ``PROBE_LIB_CACHE`` set after import counts. ``PROBE_LIB_CACHE`` when set, else the platform's user
    cache folder (``$XDG_CACHE_HOME/probe_lib``, by default ``~/.cache/probe_lib`` on Linux). A file there is
    :class:`~probe_lib.core.errors.CacheUnusable`."""
    chosen = os.environ.get("PROBE_LIB_CACHE")
    folder = Path(chosen).expanduser().absolute() if chosen else Path(platformdirs.user_cache_dir("probe_lib", False))
    if folder.exists() and not folder.is_dir():  # read as an empty cache, it sent users to a setup that cannot help
        raise CacheUnusable(
            f"{folder} is a file where the kit keeps its cache folder: move it away, or set PROBE_LIB_CACHE to a folder"
        )
    return folder
