"""What a check concludes: a status and one line of evidence, for one claim on one version.

confirmed (holds as stated), refined (holds with a qualification measured here), refuted (measured otherwise), not
testable (the version lacks the feature), or failed (the evidence lacks what the check needs: a defect of the kit or
of the recording, never of the framework).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from probe_lib.study.evidence import Evidence

Status = Literal["confirmed", "refined", "refuted", "not testable", "failed"]
STATUSES: tuple[Status, ...] = ("confirmed", "refined", "refuted", "not testable", "failed")
#: A check of one claim on one version's outcomes.
Check = Callable[[Evidence], tuple[Status, str]]
#: The framework whose pinned versions the ledger judges its own claims on, and whose sweep is the timeline.
MASTRA = "mastra"


@dataclass(frozen=True)
class Quantified:
    """What a claim's quantifying word ("never", "every", "all", "only", "settles", "identical") ranges over: the
    cases its check must read wherever it confirms or refines the claim (``tests/test_quantifiers.py`` holds every
    check to its declaration).

    ``scenarios`` are catalogue scenarios (a framework claim: matrix probes), read on the version judged; a
    version-range claim must read each on every timeline version that sent a request for it; with ``every_target``
    (a claim about the whole matrix) on every framework target, not only the one judged.
    """

    scenarios: tuple[str, ...]
    every_target: bool = False


@dataclass(frozen=True)
class Verdict:
    claim: str
    version: str
    status: Status
    evidence: str
