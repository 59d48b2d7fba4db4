"""The ``@mastra/core`` adapter: its Node harness and runner, the Python model of its normaliser, its scenarios."""

from probe_lib.adapters.mastra.adapter import ADAPTER
from probe_lib.adapters.mastra.runner import COLLISION_ID, Runner, format_records, run
from probe_lib.core.outcome import Outcome

__all__ = ["ADAPTER", "COLLISION_ID", "Outcome", "Runner", "format_records", "run"]
