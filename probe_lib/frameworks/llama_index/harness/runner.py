"""LlamaIndex (``llama-index-core`` + ``llama-index-llms-openai``): one ``achat_with_tools`` call per request.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

Makes one tool per key with ``FunctionTool.from_defaults(name=KEY)`` and calls the OpenAI LLM's
``achat_with_tools(tools, tool_choice=KEY)`` when a key is forced, on Chat Completions. The model's tool calls are
then run as LlamaIndex's ``apredict_and_call`` runs them: ``acall_tool_with_selection``, which looks a tool up by
its ``metadata.name`` (a name not found raises ``KeyError``).
"""

import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from llama_index.core.tools import FunctionTool  # noqa: E402
from llama_index.core.tools.calling import acall_tool_with_selection  # noqa: E402
from llama_index.llms.openai import OpenAI  # noqa: E402


def probe_tool(key: str, log: list) -> FunctionTool:
    return FunctionTool.from_defaults(async_fn=lines.probe(key, log), name=key, description=lines.description(key))


async def turn(request: dict, log: list) -> None:
    llm = OpenAI(model="gpt-4o-mini", api_base=request["url"], api_key="sk-probe-not-a-secret", max_retries=0)
    forced = request.get("toolChoice")
    options = {"tool_choice": forced} if forced is not None else {}
    tools = [probe_tool(key, log) for key in request["keys"]]
    response = await llm.achat_with_tools(tools, user_msg="hi", **options)
    for call in llm.get_tool_calls_from_response(response, error_on_no_tool_call=False):
        await acall_tool_with_selection(call, tools)


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
