"""smolagents (``smolagents[openai]``): a ``Tool`` named by each key, forced through ``OpenAIModel.generate``."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="smolagents",
    pins=Pins(
        "smolagents",
        Path(__file__).resolve().parent / "harness",
        "python",
        package="smolagents",
        requires=lambda version: {"smolagents[openai]": f"=={version}"},
    ),
    wire="chat-completions",
)
