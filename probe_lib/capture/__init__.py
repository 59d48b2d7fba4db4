"""The capture server: a local stand-in for an LLM provider that records every request sent to it."""

from probe_lib.capture.server import (
    DEFAULT_REPLY,
    Capture,
    CaptureServer,
    ErrorReply,
    Reply,
    TextReply,
    ToolCall,
    ToolCallsReply,
    check_scenario_id,
    replies_from_json,
    reply_from_json,
)

__all__ = [
    "DEFAULT_REPLY", "Capture", "CaptureServer", "ErrorReply", "Reply", "TextReply", "ToolCall", "ToolCallsReply",
    "check_scenario_id", "replies_from_json", "reply_from_json",
]
