"""AutoGen (``autogen-ext[openai]``): ``FunctionTool(name=KEY)``, forced by passing that tool as ``tool_choice``."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="autogen",
    pins=Pins(
        "autogen",
        Path(__file__).resolve().parent / "harness",
        "python",
        package="autogen-agentchat",
        requires=lambda version: {"autogen-agentchat": f"=={version}", "autogen-ext[openai]": ""},
    ),
    wire="chat-completions",
)
