"""pydantic-ai (``pydantic-ai-slim[openai]``): an Agent with one ``Tool`` per key, run for one turn on Chat Completions.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Each tool is ``Tool(fn, name=KEY)``; when asked, the first step forces one by its key with pydantic-ai's own form,
``{"tool_choice": [KEY]}``, given per step by a capability, the way its docs say a forced tool is set in an agent
run (a static ``tool_choice`` naming no output tool is refused).
"""

import sys
from dataclasses import dataclass

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from pydantic_ai import Agent, Tool  # noqa: E402
from pydantic_ai.capabilities import AbstractCapability  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402


def probe_tool(key: str, log: list) -> Tool:
    return Tool(lines.probe(key, log), name=key)


@dataclass
class ForceFirstStep(AbstractCapability):
    """Forces the tool registered under ``key`` on the run's first model request only."""

    key: str

    def get_model_settings(self):
        return lambda ctx: {"tool_choice": [self.key]} if ctx.run_step <= 1 else {}


async def turn(request: dict, log: list) -> None:
    provider = OpenAIProvider(base_url=request["url"], api_key="sk-probe-not-a-secret")
    model = OpenAIChatModel("gpt-4o-mini", provider=provider)
    forced = request.get("toolChoice")
    agent = Agent(
        model,
        instructions="p",
        tools=[probe_tool(key, log) for key in request["keys"]],
        retries=0,
        capabilities=[ForceFirstStep(forced)] if forced is not None else [],
    )
    await agent.run("hi")


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
