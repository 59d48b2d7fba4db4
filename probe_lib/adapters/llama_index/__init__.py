"""LlamaIndex (``llama-index-core`` + ``llama-index-llms-openai``): ``FunctionTool(name=KEY)``, ``tool_choice=KEY``."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

HARNESS = Path(__file__).resolve().parent / "harness"

ADAPTER = adapter(
    name="llama-index",
    pins=Pins("llama-index", HARNESS, "python", package="llama-index-core", companions=("llama-index-llms-openai",)),
    wire="chat-completions",
)
