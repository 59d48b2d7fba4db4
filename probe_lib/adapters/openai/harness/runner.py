"""The raw ``openai`` Python SDK as the baseline of "verbatim": each key is sent as a function name exactly as given.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

One Chat Completions call per request (``api`` "chat", the default) or one Responses call (``api`` "responses"),
with one function tool per key and, when asked, ``tool_choice`` naming the key; the SDK adds nothing of its own.
"""

import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
from openai import AsyncOpenAI  # noqa: E402

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


async def turn(request: dict, log: list) -> None:
    client = AsyncOpenAI(base_url=request["url"], api_key="sk-probe-not-a-secret", max_retries=0)
    keys, forced = request["keys"], request.get("toolChoice")
    if request.get("api") == "responses":
        tools = [{"type": "function", "name": key, "parameters": SCHEMA} for key in keys]
        options = {"tool_choice": {"type": "function", "name": forced}} if forced is not None else {}
        response = await client.responses.create(model="gpt-4o-mini", input="hi", tools=tools, **options)
        calls = [item.name for item in response.output if item.type == "function_call"]
    else:
        tools = [{"type": "function", "function": {"name": key, "parameters": SCHEMA}} for key in keys]
        options = {"tool_choice": {"type": "function", "function": {"name": forced}}} if forced is not None else {}
        completion = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], tools=tools, **options
        )
        calls = [call.function.name for call in completion.choices[0].message.tool_calls or ()]
    log.extend({"key": name, "args": None} for name in calls if name in keys)  # dispatch by wire name, as users do


if __name__ == "__main__":
    lines.serve(turn, sys.argv[2])
