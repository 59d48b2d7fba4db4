"""What a check concludes: a status and one line of evidence, for one claim on one version.

confirmed (holds as stated), refined (holds with a qualification measured here), refuted (measured otherwise), not
testable (the version lacks the feature), or failed (the evidence lacks what the check needs: a defect of the kit or
of the recording, never of the framework).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["confirmed", "refined", "refuted", "not testable", "failed"]
STATUSES: tuple[Status, ...] = ("confirmed", "refined", "refuted", "not testable", "failed")
#: The framework whose pinned versions the ledger judges its own claims on, and whose sweep is the timeline.
MASTRA = "mastra"


@dataclass(frozen=True)
class Verdict:
    claim: str
    version: str
    status: Status
    evidence: str
