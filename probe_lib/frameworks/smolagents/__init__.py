"""smolagents (``smolagents[openai]``): a ``Tool`` named by each key, forced through ``OpenAIModel.generate``."""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins

HARNESS = Path(__file__).resolve().parent / "harness"

ADAPTER = adapter(
    name="smolagents", pins=Pins("smolagents", HARNESS, "python", package="smolagents", extras="[openai]")
)
