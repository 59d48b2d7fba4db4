"""The Vercel AI SDK (``ai`` with ``@ai-sdk/openai-compatible``): ``generateText`` with a tools record, on Chat
Completions."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="ai-sdk",
    pins=Pins("ai-sdk", Path(__file__).resolve().parent / "harness", "node", package="ai"),
    wire="chat-completions",
)
