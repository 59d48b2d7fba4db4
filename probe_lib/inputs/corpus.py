"""The corpus of real tool names (``data/mcp_tool_names.csv``): 3,336 names from public MCP servers and 9,998
Composio action slugs, with provenance in ``data/mcp_tool_names.README.md``, loaded and checked against the
README's counts, and grouped into the tool sets a client registers together. What the names become under a
framework's rule and a provider's is :mod:`probe_lib.analysis.corpus`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from probe_lib.core import paths
from probe_lib.core.errors import InputError

CORPUS_PATH = paths.DATA / "mcp_tool_names.csv"
README_PATH = paths.DATA / "mcp_tool_names.README.md"
COLUMNS = ("server", "tool", "source_repo", "source_path", "source_commit")

#: Counts the README states for the shipped file; the loader refuses a file that no longer has them.
EXPECTED_ROWS = 13_334
EXPECTED_MCP_ROWS = 3_336
EXPECTED_COMPOSIO_ROWS = 9_998
EXPECTED_MCP_SERVERS = 145
COMPOSIO = "composio"

SUBSETS = ("mcp", "composio", "all")


def load_corpus(path: Path = CORPUS_PATH) -> pd.DataFrame:
    """The corpus as a DataFrame of strings, checked against the README's schema and counts.

    Raises ``InputError`` when the file is missing or has drifted (columns, row counts, server labels, empty or
    repeated names), naming what changed.
    """
    try:
        # keep_default_na=False: a tool could be named "null" or "NA", which must stay a string.
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; copy it from shared/data/mcp_tool_names.csv") from None
    except (UnicodeDecodeError, pd.errors.ParserError) as error:
        raise InputError(f"{path}: not a readable UTF-8 CSV ({error})") from None
    _check(frame, path)
    return frame


def _check(frame: pd.DataFrame, path: Path) -> None:
    fix = "restore the shipped file, or update the expected counts together with its README"
    if tuple(frame.columns) != COLUMNS:
        raise InputError(f"{path}: columns are {list(frame.columns)}; expected {list(COLUMNS)}; {fix}")
    is_composio = frame["server"] == COMPOSIO
    counts = {
        "rows": (len(frame), EXPECTED_ROWS),
        "MCP rows": (int((~is_composio).sum()), EXPECTED_MCP_ROWS),
        "Composio rows": (int(is_composio.sum()), EXPECTED_COMPOSIO_ROWS),
        "distinct MCP server labels": (frame.loc[~is_composio, "server"].nunique(), EXPECTED_MCP_SERVERS),
    }
    for what, (found, expected) in counts.items():
        if found != expected:
            raise InputError(f"{path}: {found:,} {what}, expected {expected:,}; {fix}")
    if (frame["tool"] == "").any() or (frame["server"] == "").any():
        raise InputError(f"{path}: has rows with an empty server or tool; {fix}")
    repeated = frame.duplicated(["server", "tool", "source_repo"])
    if repeated.any():
        first = frame.loc[repeated.idxmax()]
        raise InputError(f"{path}: ({first.server}, {first.tool}, {first.source_repo}) appears twice; {fix}")


def subset_of(frame: pd.DataFrame) -> pd.Series:
    """``"mcp"`` or ``"composio"`` for each row."""
    return frame["server"].eq(COMPOSIO).map({True: "composio", False: "mcp"})


def record_of(frame: pd.DataFrame) -> pd.Series:
    """The tool set each row is registered with: one per ``(server, source_repo)``, one per Composio toolkit.

    The README warns that one server label can name two implementations, so the repo is part of an MCP record.
    Composio is a registry, not a server: a user loads a toolkit, which is the slug's first ``_``-separated part
    (``GITHUB_CREATE_AN_ISSUE`` is in ``GITHUB``), an approximation that can only merge toolkits, never split one.
    """
    toolkit = frame["tool"].str.split("_", n=1).str[0]
    mcp_record = frame["server"] + " " + frame["source_repo"]
    return mcp_record.where(frame["server"] != COMPOSIO, COMPOSIO + " " + toolkit).rename("record")
