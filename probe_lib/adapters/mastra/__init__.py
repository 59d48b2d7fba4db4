"""The ``@mastra/core`` adapter: its Node harness, the Python model of its normaliser, its scenario catalogue."""

from probe_lib.adapters.mastra.runner import COLLISION_ID, BatchIncomplete, BodyTooLarge, Runner, format_records, run
from probe_lib.core.outcome import Outcome

__all__ = ["BatchIncomplete", "BodyTooLarge", "COLLISION_ID", "Outcome", "Runner", "format_records", "run"]
