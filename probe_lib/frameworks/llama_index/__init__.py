"""LlamaIndex (``llama-index-core`` + ``llama-index-llms-openai``): ``FunctionTool(name=KEY)``, ``tool_choice=KEY``.

The version names ``llama-index-core``. The runner uses ``FunctionTool.from_defaults(fn=...)`` and the
``llama_index.agent`` module: 0.11.1 and before lack the one (``from_defaults()`` takes no ``fn``), 0.11.2 to 0.11.4
the other as resolved (measured: each raised before sending on every probe), so those releases are refused unmeasured.
"""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since

HARNESS = Path(__file__).resolve().parent / "harness"

ADAPTER = adapter(
    name="llama-index",
    pins=Pins(
        "llama-index",
        HARNESS,
        "python",
        package="llama-index-core",
        companions=("llama-index-llms-openai",),
        unsupported=since("llama-index-core", "0.11.5"),
    ),
)
