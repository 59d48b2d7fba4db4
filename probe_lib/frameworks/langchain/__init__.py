"""LangChain Python (``langchain-openai`` + ``langchain-core``): ``ChatOpenAI.bind_tools`` with ``tool_choice=KEY``."""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since

ADAPTER = adapter(
    name="langchain",
    pins=Pins(
        "langchain",
        Path(__file__).resolve().parent / "harness",
        "python",
        package="langchain-openai",
        unsupported=since("langchain-openai", "0.0.4", "predates ChatOpenAI.bind_tools"),
    ),
)
