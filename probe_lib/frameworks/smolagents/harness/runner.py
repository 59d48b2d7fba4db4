"""smolagents (``smolagents[openai]``): one ``OpenAIModel.generate`` call with a ``Tool`` per key, on Chat Completions.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Each tool is a ``Tool`` subclass whose ``name`` is the key (smolagents checks it when the tool is made). Its agents
always send ``tool_choice="required"``, so a key is forced at the model level, the one place smolagents takes a
``tool_choice``: ``generate(messages, tools_to_call_from=tools, tool_choice={"type": "function", ...})``. The
model's tool calls are then run as ``ToolCallingAgent.execute_tool_call`` runs them: the tool whose ``name`` is the
called name, else "Unknown tool".
"""

import asyncio
import json
import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from smolagents import ChatMessage, MessageRole, OpenAIModel, Tool  # noqa: E402


def probe_tool(key: str, log: list) -> Tool:
    class Probe(Tool):
        name = key
        description = lines.description(key)
        inputs = {"city": {"type": "string", "description": "a city", "nullable": True}}
        output_type = "string"

        def forward(self, city=None):
            return lines.ran(key, log, city)

    return Probe()


async def turn(request: dict, log: list) -> None:
    tools = [probe_tool(key, log) for key in request["keys"]]
    model = OpenAIModel(
        "gpt-4o-mini", api_base=request["url"], api_key="sk-probe-not-a-secret", client_kwargs={"max_retries": 0}
    )
    forced = request.get("toolChoice")
    choice = {"type": "function", "function": {"name": forced}} if forced is not None else "required"
    messages = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])]
    message = await asyncio.to_thread(model.generate, messages, tools_to_call_from=tools, tool_choice=choice)
    by_name = {tool.name: tool for tool in tools}
    for call in message.tool_calls or ():
        name, arguments = call.function.name, call.function.arguments
        if name not in by_name:
            raise LookupError(f"Unknown tool {name}, should be one of: {', '.join(by_name)}.")
        by_name[name](**(json.loads(arguments) if isinstance(arguments, str) else arguments or {}))


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
