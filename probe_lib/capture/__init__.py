"""The capture server: a local stand-in for an LLM provider that records every request sent to it."""

from probe_lib.capture.server import Capture, CaptureServer, check_scenario_id

__all__ = ["Capture", "CaptureServer", "check_scenario_id"]
