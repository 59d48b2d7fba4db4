"""The raw ``openai`` Python SDK, the baseline of "verbatim": tools and ``tool_choice`` go out exactly as given.

Two adapters share one runner: ``openai`` (Chat Completions) and ``openai-responses`` (the Responses API).
"""

from pathlib import Path

from probe_lib.adapters.eras import Eras, Unsupported
from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

PINS = Pins("openai", Path(__file__).resolve().parent / "harness", "python")
#: Releases before Chat Completions, and the 1.0 client before its ``tools`` parameter.
CHAT_ERAS = (
    Unsupported("0.27.0", "predates Chat Completions"),
    Unsupported("1.1.0", "has no tools parameter on its 1.0 client", since="1.0.0a0"),
)
ADAPTER = adapter(name="openai", pins=PINS, wire="chat-completions", eras=Eras("openai", CHAT_ERAS))
RESPONSES = adapter(
    name="openai-responses",
    pins=PINS,
    wire="responses",
    extra={"api": "responses"},
    eras=Eras("openai", (Unsupported("1.66.0", "predates the Responses API"),)),
)
