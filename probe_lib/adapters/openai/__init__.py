"""The raw ``openai`` Python SDK, the baseline of "verbatim": tools and ``tool_choice`` go out exactly as given.

Two adapters share one runner: ``openai`` (Chat Completions) and ``openai-responses`` (the Responses API).
"""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

PINS = Pins("openai", Path(__file__).resolve().parent / "harness", "python", package="openai")
ADAPTER = adapter(name="openai", pins=PINS, wire="chat-completions")
RESPONSES = adapter(name="openai-responses", pins=PINS, wire="responses", extra={"api": "responses"})
