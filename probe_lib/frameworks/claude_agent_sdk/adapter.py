"""The Claude Agent SDK's adapter: a keyed adapter that refuses a run whose CLI reached past loopback.

Its outcomes are a keyed adapter's: ``requests`` every model request of the turn in arrival order, the first being
the one the matrix judges (the later ones are the same request sent again after the capture server's refusal, and
in a round trip the follow-up), and ``unrouted`` every other request: the tunnels the CLI asked the kit's proxy for
(``CONNECT api.anthropic.com:443``) and the model calls the CLI makes of its own (:func:`cli_own_call`), which the
CLIs of 0.1.10, 0.1.21 and 0.1.77 were measured sending before, between and after the turn's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from probe_lib.capture import Capture
from probe_lib.core.errors import StateError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.frameworks.keyed import KeyedAdapter
from probe_lib.install import npm

PACKAGE = "@anthropic-ai/claude-agent-sdk"
#: The package of the Claude Code CLI binary for this machine, which SDKs from 0.2.x list as an optional
#: dependency (``@anthropic-ai/claude-agent-sdk-linux-x64`` …) instead of shipping the CLI in their own package.
NATIVE_CLI = f"@anthropic-ai/claude-agent-sdk-{npm.OS}-{npm.CPU}"


def lacks_its_cli(version: str, modules: Path) -> str | None:
    """Why the install of ``version`` in ``modules`` cannot run: its SDK lists the CLI binary for this machine as an
    optional dependency that its day's lock left out. Measured on 0.2.128: that binary was published 2 h 21 min after
    it, past the resolution margin, and every run then failed with "Native CLI binary for linux-x64 not found", a
    fault of the install, not a behaviour of the release."""
    manifest = modules / PACKAGE / "package.json"
    if not manifest.is_file():
        return None
    optional = json.loads(manifest.read_text(encoding="utf-8")).get("optionalDependencies") or {}
    if NATIVE_CLI not in optional or (modules / NATIVE_CLI).is_dir():
        return None
    return f"needs {NATIVE_CLI}, which was not published by its day"


#: The first user message of each sub-agent's prompt-cache warmup (measured on 0.1.21 and 0.1.77).
WARMUP = "Warmup"


def cli_own_call(body: dict) -> bool:
    """True for a model call the CLI makes of its own, not the turn's: a one-token quota or token count
    (``max_tokens`` 1, measured on 0.1.10 and 0.1.21) or a sub-agent's warmup."""
    if body.get("max_tokens") == 1:
        return True
    messages = body.get("messages") or [{}]
    content = messages[0].get("content") if isinstance(messages[0], dict) else None
    blocks = [{"text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
    return [block.get("text") for block in blocks if isinstance(block, dict)] == [WARMUP]


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
