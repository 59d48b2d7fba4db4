"""AutoGen (``autogen-ext[openai]``): ``FunctionTool(name=KEY)``, forced by passing that tool as ``tool_choice``."""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins

HARNESS = Path(__file__).resolve().parent / "harness"

ADAPTER = adapter(
    name="autogen",
    pins=Pins("autogen", HARNESS, "python", package="autogen-agentchat", companions=("autogen-ext[openai]",)),
)
