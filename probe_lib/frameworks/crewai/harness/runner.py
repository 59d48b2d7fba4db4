"""CrewAI (``crewai``): its agents' tool path, one native OpenAI ``LLM.acall`` per request, on Chat Completions.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Each tool is a ``BaseTool`` whose ``name`` is the key; the tools are converted exactly as CrewAI's agent executor
converts them (``convert_tools_to_openai_schema``, which renames them) and sent with ``LLM.acall``. CrewAI always
sends ``tool_choice="auto"`` and takes no forced tool, so the adapter records forced runs as not applicable.
"""

import os
import sys

sys.path.insert(0, sys.argv[1])
os.environ.update({"CREWAI_DISABLE_TELEMETRY": "true", "OTEL_SDK_DISABLED": "true", "CREWAI_TRACING_ENABLED": "false"})

import lines  # noqa: E402  (the shared loop, found through argv[1])
from crewai import LLM  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from crewai.utilities.agent_utils import convert_tools_to_openai_schema  # noqa: E402


def probe_tool(key: str, log: list) -> BaseTool:
    class Probe(BaseTool):
        name: str = key
        description: str = lines.description(key)

        def _run(self, city: str | None = None) -> str:
            return lines.ran(key, log, city)

    return Probe()


async def turn(request: dict, log: list) -> None:
    # Two values before 1.10.1 (schemas, functions), three since; the third is not used here.
    schemas, functions = convert_tools_to_openai_schema([probe_tool(key, log) for key in request["keys"]])[:2]
    llm = LLM(model="gpt-4o-mini", base_url=request["url"], api_key="sk-probe-not-a-secret", max_retries=0)
    await llm.acall("hi", tools=schemas, available_functions=functions)


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
