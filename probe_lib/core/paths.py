"""Every path the kit reads or writes, built from this file's location (never the working folder)."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
ROOT = PACKAGE.parent

DATA = ROOT / "data"
CAPTURES = DATA / "captures"
NOTEBOOKS = ROOT / "notebooks"
HARNESS = PACKAGE / "adapters" / "mastra" / "harness"
#: The child-side halves of the JSON-lines protocol (``lines.cjs``, ``lines.mjs``, ``lines.py``), shared by every
#: runner (Mastra's ``runner.cjs`` requires ``lines.cjs``).
SHARED_HARNESS = PACKAGE / "adapters" / "harness"
#: A harness package of its own for the real ``@mastra/mcp`` client (installed beside the main one).
MCP_HARNESS = HARNESS / "mcp"

#: Where ``reproduce`` writes executed notebooks, figures, the ledger CSV and the HTML report (git-ignored).
REPORT = Path(os.environ.get("PROBE_LIB_REPORT", ROOT / "report"))

#: Where ``setup`` installs the pinned Node packages: outside the source tree, keyed by the lockfile's hash.
CACHE = Path(os.environ.get("PROBE_LIB_CACHE", Path.home() / ".cache" / "probe_lib"))
