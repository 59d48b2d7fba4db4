"""LlamaIndex (``llama-index-core`` + ``llama-index-llms-openai``): ``FunctionTool(name=KEY)``, ``tool_choice=KEY``."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="llama-index",
    pins=Pins(
        "llama-index",
        Path(__file__).resolve().parent / "harness",
        "python",
        package="llama-index-core",
        requires=lambda version: {"llama-index-core": f"=={version}", "llama-index-llms-openai": ""},
    ),
    wire="chat-completions",
)
