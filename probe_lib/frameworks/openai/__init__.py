"""The raw ``openai`` Python SDK, the baseline of "verbatim": tools and ``tool_choice`` go out exactly as given.

Two adapters share one runner: ``openai`` (Chat Completions) and ``openai-responses`` (the Responses API).
"""

from dataclasses import replace
from pathlib import Path

from probe_lib.frameworks.keyed import adapter
from probe_lib.install.eras import between, either
from probe_lib.install.pins import Pins
from probe_lib.install.releases import since

PINS = Pins(
    "openai",
    Path(__file__).resolve().parent / "harness",
    "python",
    package="openai",
    unsupported=either(
        since("openai", "0.27.0", "predates Chat Completions"),
        between("openai", "1.0.0a0", "1.1.0", "is the 1.0 client, which has no tools parameter"),
    ),
)
ADAPTER = adapter(name="openai", pins=PINS)
RESPONSES = adapter(
    name="openai-responses",
    pins=replace(PINS, unsupported=since("openai", "1.66.0", "predates the Responses API")),
    wire="responses",
    extra={"api": "responses"},
)
