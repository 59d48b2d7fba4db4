"""The Vercel AI SDK (``ai`` with an OpenAI-compatible provider): ``generateText`` with a tools record, on Chat
Completions.

The version names ``ai``. Its API eras (``harness/runner.mjs`` branches on the version): 3.1 to 3.4 run with
``@ai-sdk/openai``'s ``createOpenAI`` in its ``compatible`` mode (``@ai-sdk/openai-compatible`` arrives with ai 4)
and tools' ``parameters``; 4.x with ``@ai-sdk/openai-compatible`` 0.x; 5.x on with ``inputSchema`` and the
compatible provider whose major is ai's less four (5 -> 1, 6 -> 2, 7 -> 3). Before 3.1 there is no stable
``generateText`` (3.0 has only ``experimental_generateText``), and before 3.1.16 no ``toolChoice``.
"""

from pathlib import Path

from probe_lib.core.target import version_key
from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since


def requires(version: str) -> dict[str, str]:
    """What release ``version`` of ``ai`` runs with: its era's provider package and a zod it accepts."""
    major = version_key(version)[0]
    if major < 4:
        return {"ai": version, "@ai-sdk/openai": "0.0.x", "zod": "^3"}
    if major == 4:
        return {"ai": version, "@ai-sdk/openai-compatible": "<1", "zod": "^3"}
    return {"ai": version, "@ai-sdk/openai-compatible": f"^{major - 4}", "zod": "^3.25.76 || ^4"}


ADAPTER = adapter(
    name="ai-sdk",
    pins=Pins(
        "ai-sdk",
        Path(__file__).resolve().parent / "harness",
        "node",
        package="ai",
        requires=requires,
        unsupported=since("ai", "3.1.0"),
    ),
    forcing=since("ai", "3.1.16", "has no toolChoice"),
)
