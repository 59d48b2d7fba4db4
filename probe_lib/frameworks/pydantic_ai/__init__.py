"""pydantic-ai (``pydantic-ai-slim[openai]``): ``Tool(name=KEY)`` on an Agent, forced by ``tool_choice=[KEY]``."""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since

HARNESS = Path(__file__).resolve().parent / "harness"

ADAPTER = adapter(
    name="pydantic-ai",
    pins=Pins(
        "pydantic-ai",
        HARNESS,
        "python",
        package="pydantic-ai-slim",
        extras="[openai]",
        unsupported=since("pydantic-ai-slim", "0.0.12", "predates Tool(function, name=KEY) without takes_ctx"),
    ),
)
