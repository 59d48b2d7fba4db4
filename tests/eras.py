"""What the era tests share: one release of a framework probed three ways on two keys, one illegal and one legal."""

from __future__ import annotations

from dataclasses import replace

from probe_lib import frameworks
from probe_lib.capture import CaptureServer
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import for_keys, named
from probe_lib.wire.replies import ToolCall, ToolCallsReply

KEYS = ["search.web", "plain"]


def probe_three_ways(name: str, version: str, server: CaptureServer) -> list[Outcome]:
    """Release ``version`` of adapter ``name`` with :data:`KEYS` registered: sent plainly, forced by the first key,
    and called back by the model under that key."""
    called_back = replace(
        for_keys("round-trip", KEYS), replies=(ToolCallsReply((ToolCall(KEYS[0], {"city": "Paris"}),)),)
    )
    scenarios = [for_keys("plain", KEYS), for_keys("forced", KEYS, named(KEYS[0])), called_back]
    return frameworks.get(name).run(scenarios, version, server=server)
