"""LangChain Python (``langchain-openai`` + ``langchain-core``): one bound model call per request, on Chat Completions.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Makes one tool per key with ``StructuredTool.from_function(name=KEY)``, binds them with
``bind_tools(tools, tool_choice=KEY)`` when a key is forced, and invokes the model once. The model's tool calls are
then run as LangGraph's ``ToolNode`` runs them (not installed here): the tool whose ``name`` is the called name.
"""

import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from langchain_core.tools import StructuredTool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402


def probe_tool(key: str, log: list) -> StructuredTool:
    return StructuredTool.from_function(coroutine=lines.probe(key, log), name=key, description=lines.description(key))


async def turn(request: dict, log: list) -> None:
    model = ChatOpenAI(model="gpt-4o-mini", base_url=request["url"], api_key="sk-probe-not-a-secret", max_retries=0)
    forced = request.get("toolChoice")
    options = {"tool_choice": forced} if forced is not None else {}
    tools = [probe_tool(key, log) for key in request["keys"]]
    message = await model.bind_tools(tools, **options).ainvoke("hi")
    by_name = {tool.name: tool for tool in tools}
    for call in message.tool_calls:
        if call["name"] not in by_name:
            raise LookupError(f"{call['name']} is not a valid tool, try one of [{', '.join(by_name)}]")
        await by_name[call["name"]].ainvoke(call["args"])


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
