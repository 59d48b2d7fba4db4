"""The ``@mastra/core`` adapter: its Node harness, the Python model of its normaliser, its scenario catalogue."""

from probe_lib.adapters.mastra.runner import COLLISION_ID, HarnessError, Outcome, Runner, format_records, package_facts, run

__all__ = ["COLLISION_ID", "HarnessError", "Outcome", "Runner", "format_records", "package_facts", "run"]
