"""CrewAI (``crewai``): ``BaseTool(name=KEY)`` through its agents' tool conversion; it cannot force a tool."""

from pathlib import Path

from probe_lib.adapters.keyed import adapter
from probe_lib.adapters.pins import Pins

ADAPTER = adapter(
    name="crewai",
    pins=Pins("crewai", Path(__file__).resolve().parent / "harness", "python", package="crewai"),
    wire="chat-completions",
    cannot_force="CrewAI has no option to force a tool: its native OpenAI provider always sends tool_choice auto",
)
