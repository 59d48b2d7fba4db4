"""The ``@mastra/core`` adapter: its Node harness, the Python model of its normaliser, its scenario catalogue."""

from probe_lib.adapters.mastra.runner import COLLISION_ID, Outcome, Runner, format_records, run

__all__ = ["COLLISION_ID", "Outcome", "Runner", "format_records", "run"]
