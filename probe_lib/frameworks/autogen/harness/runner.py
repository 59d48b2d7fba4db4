"""AutoGen (``autogen-ext[openai]`` + ``autogen-agentchat``): one ``OpenAIChatCompletionClient.create`` call.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Each tool is ``FunctionTool(fn, name=KEY)``. AutoGen takes a forced tool as a tool object, not a name, so forcing
a key passes the tool registered under it (``create(..., tool_choice=TOOL)``); a forced name no tool has is a tool
of that name left out of ``tools``. The model's tool calls are then run through ``StaticWorkbench.call_tool``, as
``AssistantAgent`` runs them: the tool whose ``name`` is the called name, else "Tool ... not found.".
"""

import json
import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from autogen_core.models import UserMessage  # noqa: E402
from autogen_core.tools import FunctionTool, StaticWorkbench  # noqa: E402
from autogen_ext.models.openai import OpenAIChatCompletionClient  # noqa: E402


def probe_tool(key: str, log: list) -> FunctionTool:
    return FunctionTool(lines.probe(key, log), description=lines.description(key), name=key)


async def turn(request: dict, log: list) -> None:
    client = OpenAIChatCompletionClient(
        model="gpt-4o-mini", base_url=request["url"], api_key="sk-probe-not-a-secret", max_retries=0
    )
    tools = {key: probe_tool(key, log) for key in request["keys"]}
    forced = request.get("toolChoice")
    choice = "auto" if forced is None else tools.get(forced) or probe_tool(forced, log)
    try:
        result = await client.create(
            [UserMessage(content="hi", source="user")], tools=list(tools.values()), tool_choice=choice
        )
        for call in result.content if isinstance(result.content, list) else ():
            ran = await StaticWorkbench(list(tools.values())).call_tool(call.name, json.loads(call.arguments or "{}"))
            if ran.is_error:
                raise LookupError(ran.to_text())
    finally:
        await client.close()


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
