"""The Claude Agent SDK (``@anthropic-ai/claude-agent-sdk``): tools served by its in-process MCP server, on the
Anthropic Messages path, through the Claude Code CLI it runs as a child process.

Its runner registers one ``tool(KEY, …)`` per key in ``createSdkMcpServer({name: "probe"})``; the CLI offers each
to the model as ``mcp__probe__<name>``. The SDK has no option that sets ``tool_choice``, so a forced run is not
applicable. The runner points the CLI at the capture server (base URL, proxy) with a fake key, checks its process
tree's sockets and kills the CLI when a turn stalls (``harness/runner.mjs``).
"""

from pathlib import Path

from probe_lib.frameworks.base import register
from probe_lib.frameworks.claude_agent_sdk.adapter import PACKAGE, ClaudeAdapter, cli_own_call, lacks_its_cli
from probe_lib.install.pins import Pins

PINS = Pins(
    "claude-agent-sdk", Path(__file__).resolve().parent / "harness", "node", package=PACKAGE, lacks=lacks_its_cli
)
ADAPTER = register(
    ClaudeAdapter(
        name="claude-agent-sdk",
        pins=PINS,
        wire="anthropic-messages",
        cannot_force="the Claude Agent SDK has no option that sets tool_choice (its query() options)",
        concurrency=2,
        own_call=cli_own_call,
    )
)
