"""LangChain JS (``@langchain/openai`` + ``@langchain/core``): ``ChatOpenAI.bindTools`` with a forced
``tool_choice``."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="langchain-js",
    pins=Pins("langchain-js", Path(__file__).resolve().parent / "harness", "node", package="@langchain/openai"),
    wire="chat-completions",
)
