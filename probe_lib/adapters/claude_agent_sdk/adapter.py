"""The Claude Agent SDK's adapter: a keyed adapter whose outcome says which request is the turn, and which
refuses a run whose CLI reached past loopback."""

from __future__ import annotations

from dataclasses import dataclass

from probe_lib.adapters.keyed import KeyedAdapter
from probe_lib.capture import Capture
from probe_lib.core.errors import StateError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario


@dataclass
class ClaudeAdapter(KeyedAdapter):
    def _outcome(self, scenario: Scenario, version: str, report: dict, captures: list[Capture]) -> Outcome:
        if report.get("offLoopback"):
            raise StateError(
                f"the Claude Code CLI connected past loopback in {scenario.name!r}: {report['offLoopback'][:3]}"
            )
        return super()._outcome(scenario, version, report, captures)
