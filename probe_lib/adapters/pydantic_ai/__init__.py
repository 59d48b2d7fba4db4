"""pydantic-ai (``pydantic-ai-slim[openai]``): ``Tool(name=KEY)`` on an Agent, forced by ``tool_choice=[KEY]``."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

HARNESS = Path(__file__).resolve().parent / "harness"

ADAPTER = adapter(
    name="pydantic-ai",
    pins=Pins("pydantic-ai", HARNESS, "python", package="pydantic-ai-slim", extras="[openai]"),
    wire="chat-completions",
)
