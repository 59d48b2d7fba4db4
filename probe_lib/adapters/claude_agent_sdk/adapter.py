"""The Claude Agent SDK's adapter: a keyed adapter that refuses a run whose CLI reached past loopback.

Its outcomes are a keyed adapter's: ``requests`` every model request of the turn in arrival order, the first being
the one the matrix judges (the CLI sent none before it in any run measured; the later ones are the same request
sent again after the capture server's refusal, and in a round trip the follow-up), and ``unrouted`` every other
request, among them the tunnels the CLI asked the kit's proxy for (``CONNECT api.anthropic.com:443``).
"""

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
        """The keyed outcome, unless the runner's socket poll saw the CLI's process tree connected to an address
        other than loopback: then the run is refused, since the kit promises nothing leaves the machine."""
        if report.get("offLoopback"):
            raise StateError(
                f"the Claude Code CLI connected past loopback in {scenario.name!r}: {report['offLoopback'][:3]}"
            )
        return super()._outcome(scenario, version, report, captures)
