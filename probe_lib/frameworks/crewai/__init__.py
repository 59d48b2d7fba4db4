"""CrewAI (``crewai``): ``BaseTool(name=KEY)`` through its agents' tool conversion; it cannot force a tool."""

from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.pins import Pins

ADAPTER = adapter(
    name="crewai",
    # setuptools: old releases (0.5.5, 0.10.0) import pkg_resources, which a virtual environment had then (pip made
    # them with setuptools) and uv's has not; with it, such a release fails on what it lacks of the runner's API
    # (0.5.5: `from crewai import LLM`), its real reason, instead.
    pins=Pins(
        "crewai", Path(__file__).resolve().parent / "harness", "python", package="crewai", companions=("setuptools",)
    ),
    cannot_force="CrewAI has no option to force a tool: its native OpenAI provider always sends tool_choice auto",
)
