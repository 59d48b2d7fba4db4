"""How outcomes were obtained: measured live, or read from a recording.

Measurement files, the framework matrix's recording, the ledger and the export name it in their ``source`` field;
where outcomes come from, and why, is :mod:`probe_lib.study.sources`.
"""

from __future__ import annotations

from enum import StrEnum


class Provenance(StrEnum):
    """``live`` or ``recorded``, the text files and tables hold (a member is that text)."""

    LIVE = "live"
    RECORDED = "recorded"
