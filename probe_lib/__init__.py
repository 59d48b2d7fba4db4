"""probe_lib: measure what @mastra/core sends to an LLM provider when a tool key is not a legal tool name."""

from probe_lib.adapters.mastra.normaliser import MAX_NAME_LENGTH, Result, normalise, rewrite

__all__ = ["MAX_NAME_LENGTH", "Result", "normalise", "rewrite"]
