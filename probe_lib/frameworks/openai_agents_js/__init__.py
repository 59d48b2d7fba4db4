"""OpenAI Agents JS (``@openai/agents``): tools made by ``tool({name})``, forced by ``modelSettings.toolChoice``.

Two adapters share one runner: ``openai-agents-js`` on the provider's default Responses path and
``openai-agents-js-chat`` on its Chat Completions path, since each path checks a forced tool in its own way.
"""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins

PINS = Pins("openai-agents-js", Path(__file__).resolve().parent / "harness", "node", package="@openai/agents")
ADAPTER = adapter(name="openai-agents-js", pins=PINS, wire="responses", extra={"api": "responses"})
CHAT = adapter(name="openai-agents-js-chat", pins=PINS, wire="chat-completions", extra={"api": "chat"})
