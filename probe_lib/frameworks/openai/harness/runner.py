"""The raw ``openai`` Python SDK as the baseline of "verbatim": each key is sent as a function name exactly as given.

    python runner.py SHARED_HARNESS VERSION [CONCURRENCY]

One Chat Completions call per request (``api`` "chat", the default) or one Responses call (``api`` "responses"),
with one function tool per key and, when asked, ``tool_choice`` naming the key; the SDK adds nothing of its own.
From 1.1.0 (its ``tools`` parameter) through the ``AsyncOpenAI`` client; on 0.27 and 0.28 through the module-level
``openai.ChatCompletion.acreate``, which sends its keyword arguments as the body (the adapters refuse the releases
in between, and those before Chat Completions or, for ``responses``, before 1.66.0).
"""

import sys

sys.path.insert(0, sys.argv[1])

import lines  # noqa: E402  (the shared loop, found through argv[1])
import openai  # noqa: E402

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
CLIENT = (1, 1, 0)


async def legacy_turn(request: dict, log: list) -> None:
    """One Chat Completions call with 0.27's and 0.28's module-level API (the key and base URL per call)."""
    keys, forced = request["keys"], request.get("toolChoice")
    tools = [{"type": "function", "function": {"name": key, "parameters": SCHEMA}} for key in keys]
    options = {"tool_choice": {"type": "function", "function": {"name": forced}}} if forced is not None else {}
    completion = await openai.ChatCompletion.acreate(
        api_base=request["url"].rstrip("/"),
        api_key="sk-probe-not-a-secret",
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
        **options,
    )
    calls = [call["function"]["name"] for call in completion["choices"][0]["message"].get("tool_calls") or ()]
    log.extend({"key": name, "args": None} for name in calls if name in keys)


async def turn(request: dict, log: list) -> None:
    client = openai.AsyncOpenAI(base_url=request["url"], api_key="sk-probe-not-a-secret", max_retries=0)
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
    lines.serve(turn if lines.release(sys.argv[2]) >= CLIENT else legacy_turn, sys.argv[2])
