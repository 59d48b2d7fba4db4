"""The ``@mastra/core`` adapter: its Node harness and runner, the Python model of its normaliser, its scenarios."""

from probe_lib.core.outcome import Outcome
from probe_lib.frameworks.mastra.adapter import ADAPTER
from probe_lib.frameworks.mastra.runner import (
    COLLISION_ID,
    BatchIncomplete,
    BodyTooLarge,
    NodeHeapExhausted,
    Runner,
    format_records,
    run,
    stream,
)

__all__ = [
    "ADAPTER",
    "BatchIncomplete",
    "BodyTooLarge",
    "COLLISION_ID",
    "NodeHeapExhausted",
    "Outcome",
    "Runner",
    "format_records",
    "run",
    "stream",
]
