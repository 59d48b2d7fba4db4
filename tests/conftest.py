"""Shared fixtures: the real @mastra/core must be installed; a run without it fails unless told otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # test helpers (strategies)

from probe_lib.adapters import install  # noqa: E402
from probe_lib.capture import CaptureServer  # noqa: E402


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The installed pinned versions. Missing Node fails the run (set PROBE_LIB_ALLOW_NO_NODE=1 to skip)."""
    if not install.node_available():
        message = "the real @mastra/core is not installed: run `probe-lib setup` (needs Node.js 20+ and npm)"
        if os.environ.get("PROBE_LIB_ALLOW_NO_NODE") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return install.modules_dir()


@pytest.fixture(scope="session")
def capture_server():
    with CaptureServer() as server:
        yield server
