"""LangChain Python (``langchain-openai`` + ``langchain-core``): one bound model call per request, on Chat Completions.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Makes one tool per key with ``StructuredTool.from_function(name=KEY)``, binds them with
``bind_tools(tools, tool_choice=KEY)`` when a key is forced, and invokes the model once. The model's tool calls are
then run as LangGraph's ``ToolNode`` runs them (not installed here): the tool whose ``name`` is the called name.
Before langchain-core 0.1.42 a message had no parsed ``tool_calls``: its calls are then read from the OpenAI
message it kept (``additional_kwargs["tool_calls"]``), as that era's OpenAI tools agent read them. The adapter
refuses the langchain-openai releases before ``bind_tools`` (0.0.4).
"""

import json
import sys
from importlib.metadata import version

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from langchain_core.tools import StructuredTool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

#: The first langchain-core whose messages carry parsed ``tool_calls``.
PARSED_CALLS = (0, 1, 42)
CORE = lines.release(version("langchain-core"))


def probe_tool(key: str, log: list) -> StructuredTool:
    return StructuredTool.from_function(coroutine=lines.probe(key, log), name=key, description=lines.description(key))


async def turn(request: dict, log: list) -> None:
    model = ChatOpenAI(model="gpt-4o-mini", base_url=request["url"], api_key="sk-probe-not-a-secret", max_retries=0)
    forced = request.get("toolChoice")
    options = {"tool_choice": forced} if forced is not None else {}
    tools = [probe_tool(key, log) for key in request["keys"]]
    message = await model.bind_tools(tools, **options).ainvoke("hi")
    by_name = {tool.name: tool for tool in tools}
    for name, args in tool_calls(message):
        if name not in by_name:
            raise LookupError(f"{name} is not a valid tool, try one of [{', '.join(by_name)}]")
        await by_name[name].ainvoke(args)


def tool_calls(message) -> list[tuple[str, dict]]:
    """The called names and arguments of a model's message, read as the installed langchain-core offers them."""
    if CORE >= PARSED_CALLS:
        return [(call["name"], call["args"]) for call in message.tool_calls]
    raw = message.additional_kwargs.get("tool_calls") or ()
    return [(call["function"]["name"], json.loads(call["function"]["arguments"] or "{}")) for call in raw]


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
