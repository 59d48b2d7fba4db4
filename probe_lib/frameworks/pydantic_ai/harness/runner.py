"""pydantic-ai (``pydantic-ai-slim[openai]``): an Agent with one ``Tool`` per key, run for one turn on Chat Completions.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Each tool is ``Tool(fn, name=KEY)``; when asked, the first step forces one by its key with pydantic-ai's own form,
``{"tool_choice": [KEY]}``, given per step by a capability, the way its docs say a forced tool is set in an agent
run (a static ``tool_choice`` naming no output tool is refused).

The model is built the way each API era documents it (``VERSION`` picks the era; the adapter refuses releases
older than the first): from 0.0.12 ``OpenAIModel(name, openai_client=AsyncOpenAI(…))`` and ``system_prompt``;
from 0.0.33 its ``provider=OpenAIProvider(…)``; from 0.1.0 ``instructions``; from 0.7.6 ``OpenAIChatModel``; from
1.93.0 the ``tool_choice`` setting and per-step capability settings, without which no release can force a tool.
"""

import sys
from dataclasses import dataclass

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from pydantic_ai import Agent, Tool  # noqa: E402

RELEASE = lines.release(sys.argv[2])
PROVIDERS, INSTRUCTIONS, CHAT_MODEL, TOOL_CHOICE = (0, 0, 33), (0, 1, 0), (0, 7, 6), (1, 93, 0)

if RELEASE >= CHAT_MODEL:
    from pydantic_ai.models.openai import OpenAIChatModel as Model  # noqa: E402
else:
    from pydantic_ai.models.openai import OpenAIModel as Model  # noqa: E402
if RELEASE >= PROVIDERS:
    from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402
else:
    from openai import AsyncOpenAI  # noqa: E402
if RELEASE >= TOOL_CHOICE:
    from pydantic_ai.capabilities import AbstractCapability  # noqa: E402

    @dataclass
    class ForceFirstStep(AbstractCapability):
        """Forces the tool registered under ``key`` on the run's first model request only."""

        key: str

        def get_model_settings(self):
            return lambda ctx: {"tool_choice": [self.key]} if ctx.run_step <= 1 else {}


def probe_tool(key: str, log: list) -> Tool:
    return Tool(lines.probe(key, log), name=key)


def model(url: str):
    if RELEASE >= PROVIDERS:
        return Model("gpt-4o-mini", provider=OpenAIProvider(base_url=url, api_key="sk-probe-not-a-secret"))
    return Model("gpt-4o-mini", openai_client=AsyncOpenAI(base_url=url, api_key="sk-probe-not-a-secret"))


async def turn(request: dict, log: list) -> None:
    forced = request.get("toolChoice")
    options = {"instructions": "p"} if RELEASE >= INSTRUCTIONS else {"system_prompt": "p"}
    if RELEASE >= TOOL_CHOICE:
        options["capabilities"] = [ForceFirstStep(forced)] if forced is not None else []
    agent = Agent(model(request["url"]), tools=[probe_tool(key, log) for key in request["keys"]], retries=0, **options)
    await agent.run("hi")


if __name__ == "__main__":
    cannot = None if RELEASE >= TOOL_CHOICE else "pydantic-ai before 1.93.0 has no tool_choice setting to force a tool"
    lines.serve(turn, sys.argv[2], cannot_force=cannot)
