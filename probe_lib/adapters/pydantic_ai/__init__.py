"""pydantic-ai (``pydantic-ai-slim[openai]``): ``Tool(name=KEY)`` on an Agent, forced by ``tool_choice=[KEY]``."""

from pathlib import Path

from probe_lib.adapters.eras import Eras, Unsupported
from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="pydantic-ai",
    pins=Pins("pydantic-ai", Path(__file__).resolve().parent / "harness", "python"),
    wire="chat-completions",
    eras=Eras("pydantic-ai-slim", (Unsupported("0.0.12", "predates Tool(function, name=KEY) without takes_ctx"),)),
)
