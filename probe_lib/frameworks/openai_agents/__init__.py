"""OpenAI Agents Python (``openai-agents``): ``function_tool(name_override=KEY)``, forced by
``ModelSettings.tool_choice``.

Two adapters share one runner: ``openai-agents`` on the provider's default Responses path and
``openai-agents-chat`` on its Chat Completions path. The runner speaks every release from 0.0.2 (the first with the
``agents`` module) to the pin with no branch of its own: the calls it makes kept their form.
"""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since

PINS = Pins(
    "openai-agents",
    Path(__file__).resolve().parent / "harness",
    "python",
    package="openai-agents",
    unsupported=since("openai-agents", "0.0.2", "is a placeholder without the agents module"),
)
ADAPTER = adapter(name="openai-agents", pins=PINS, wire="responses", extra={"api": "responses"})
CHAT = adapter(name="openai-agents-chat", pins=PINS, wire="chat-completions", extra={"api": "chat"})
