"""LangChain JS (``@langchain/openai`` + ``@langchain/core``): ``ChatOpenAI`` with tools bound and a forced
``tool_choice``.

The version names ``@langchain/openai``. Its API eras (``harness/runner.mjs`` branches on the version and on what the
installed ``@langchain/core`` exports): tools and ``tool_choice`` as call options (``bind``) before 0.0.28, then
``bindTools``; the forced key in OpenAI's object form before 0.2.4, then as a string; ``tool()`` where the core
has it, else a ``DynamicStructuredTool``. Up to 0.2 the core is a dependency of ``@langchain/openai``, from 0.3 a peer
(npm installs it, at the range the release names).
"""

from pathlib import Path

from probe_lib.core.target import version_key
from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since


def requires(version: str) -> dict[str, str]:
    """What release ``version`` of ``@langchain/openai`` runs with: its core (as the release declares it) and a zod."""
    zod = "^3.25.76 || ^4" if version_key(version)[0] >= 1 else "^3"
    return {"@langchain/openai": version, "zod": zod}


ADAPTER = adapter(
    name="langchain-js",
    pins=Pins(
        "langchain-js",
        Path(__file__).resolve().parent / "harness",
        "node",
        package="@langchain/openai",
        requires=requires,
        unsupported=since("@langchain/openai", "0.0.1"),
    ),
)
