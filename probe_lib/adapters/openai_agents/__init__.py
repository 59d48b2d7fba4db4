"""OpenAI Agents Python (``openai-agents``): ``function_tool(name_override=KEY)``, forced by
``ModelSettings.tool_choice``.

Two adapters share one runner: ``openai-agents`` on the provider's default Responses path and
``openai-agents-chat`` on its Chat Completions path.
"""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

PINS = Pins("openai-agents", Path(__file__).resolve().parent / "harness", "python", package="openai-agents")
ADAPTER = adapter(name="openai-agents", pins=PINS, wire="responses", extra={"api": "responses"})
CHAT = adapter(name="openai-agents-chat", pins=PINS, wire="chat-completions", extra={"api": "chat"})
