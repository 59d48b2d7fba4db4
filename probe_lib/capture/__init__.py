"""The capture server: a local stand-in for an LLM provider that records every request sent to it."""

from probe_lib.capture.server import CaptureServer
from probe_lib.capture.store import Capture, RecordStore, check_scenario_id

__all__ = ["Capture", "CaptureServer", "RecordStore", "check_scenario_id"]
