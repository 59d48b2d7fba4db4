"""OpenAI Agents Python (``openai-agents``): an Agent with one ``function_tool`` per key, run for one turn.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Each tool is ``function_tool(fn, name_override=KEY)``; when asked, the agent forces one by its key
(``ModelSettings(tool_choice=KEY)``). Request field ``api`` picks the provider's path: "responses" (its default) or
"chat" (Chat Completions).
"""

import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from agents import Agent, ModelSettings, OpenAIProvider, RunConfig, Runner, function_tool  # noqa: E402


def probe_tool(key: str, log: list):
    return function_tool(lines.probe(key, log), name_override=key)


async def turn(request: dict, log: list) -> None:
    forced = request.get("toolChoice")
    agent = Agent(
        name="probe",
        instructions="p",
        model="gpt-4o-mini",
        tools=[probe_tool(key, log) for key in request["keys"]],
        model_settings=ModelSettings(tool_choice=forced) if forced is not None else ModelSettings(),
    )
    provider = OpenAIProvider(
        base_url=request["url"], api_key="sk-probe-not-a-secret", use_responses=request.get("api") != "chat"
    )
    config = RunConfig(model_provider=provider, tracing_disabled=True)
    await Runner.run(agent, "hi", run_config=config, max_turns=request.get("maxSteps", 1))


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
