"""How outcomes were obtained: measured live, or read from a recording.

Measurement files (:mod:`probe_lib.measure.measurement`) note it as ``made``, and the ledger names it first in its
``source`` column; where outcomes come from, and why, is :mod:`probe_lib.measure.sources`.
"""

from __future__ import annotations

from enum import StrEnum


class Provenance(StrEnum):
    """``live`` or ``recorded``, the text files and tables hold (a member is that text)."""

    LIVE = "live"
    RECORDED = "recorded"
