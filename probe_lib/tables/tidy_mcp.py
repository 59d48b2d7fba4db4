"""The MCP corpus as loaded by the real ``@mastra/mcp`` as one tidy table: a row per tool set × tool served.

Read from the recording ``data/captures/mcp-mastra.json`` (:mod:`probe_lib.frameworks.mastra.mcp`): for every MCP
tool set of the corpus, the tool names a real MCP server served, the keys the real client built from them (one per
tool, in the served order), the names the real Mastra agent sent, and why the turn failed if it did. Each key is
matched to the name it was sent under by the request itself: every sent tool's description names the served tool
it is, and the key of that served tool is the client's. The Python model of ``formatTools()`` only predicts a name
beside it (its flags say which rewrites fired), and each provider's documented rule (``data/provider_rules.csv``)
says whether it would refuse the key as registered and the name as sent.

:data:`COLUMNS` is this table's part of the data dictionary.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from probe_lib.frameworks.mastra import mcp, normaliser
from probe_lib.measure import measurement
from probe_lib.providers import name_rules
from probe_lib.tables import tidy

NONE = "none"

#: Every column: name, pandas dtype, meaning. The order is the table's.
COLUMNS: tidy.Columns = (
    ("record", "string", "the tool set: its MCP server label and the repository the names were gathered from"),
    ("server", "string", "the server label the MCP client was given (it prefixes every key with it)"),
    ("repository", "string", "the public repository the tool names come from (data/mcp_tool_names.csv)"),
    ("tools_in_set", "Int64", "how many tools the server served in this tool set"),
    ("position_served", "Int64", "index of the tool in the order the MCP server listed it"),
    ("tool", "string", "the tool's name as the MCP server served it"),
    (
        "key",
        "string",
        "the key @mastra/mcp registered the tool under (its listTools() record), which Mastra then rewrites",
    ),
    (
        "wire_name",
        "string",
        "the name the key was sent under in the agent's first request (empty: the set was not sent)",
    ),
    ("position_after", "Int64", "index of wire_name in the first request's tools (empty: not sent)"),
    ("on_wire", "boolean", "the tool was in the first request's tools"),
    ("rewritten", "boolean", "wire_name differs from the key (empty: not sent)"),
    ("predicted_name", "string", "the name the Python model of formatTools() gives the key on its own"),
    ("substituted", "boolean", "the model replaced characters a provider refuses"),
    ("prefixed", "boolean", "the model prefixed the name with _ (it did not start with a letter or _)"),
    ("truncated", "boolean", "the model cut the name to 63 characters"),
    ("rules_fired", "string", "the model's rewrites that fired, joined by +, or none"),
    (
        "set_failure",
        "string",
        "why the whole tool set sent no request: collision, or the error's message (empty: it was sent)",
    ),
    (
        "collision_name",
        "string",
        "the name two keys of the set rewrote onto, when set_failure is collision (empty otherwise)",
    ),
    ("in_collision", "boolean", "this key's predicted_name is collision_name: it is one of the keys that collided"),
    (
        "providers_refusing_key",
        "string",
        "providers whose documented rule refuses the key as registered, joined by +, or none",
    ),
    (
        "providers_refusing_wire_name",
        "string",
        "providers whose documented rule refuses wire_name, joined by +, or none (empty: not sent)",
    ),
    ("mastra_version", "string", "the @mastra/core version that loaded and sent the tools"),
    ("mcp_version", "string", "the @mastra/mcp client version that listed the tools"),
    ("recording", "string", "the recording the row was read from, relative to the project"),
)


def _missing(value: object) -> bool:
    """The recording writes an absent value as null or NaN (pandas' records)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def _refusing(name: str) -> str:
    refusing = [
        rule.provider for rule in map(name_rules.get_rule, name_rules.provider_names()) if not rule.accepts(name)
    ]
    return "+".join(refusing) or NONE


def rows(tool_set: dict, versions: dict[str, str], recording: str) -> list[dict]:
    """The tidy rows of one recorded tool set: one per tool served."""
    server, record = tool_set["server"], tool_set["record"]
    served, keys = tool_set["tools served"], tool_set["client keys"]
    wire = None if _missing(tool_set["wire names"]) else list(tool_set["wire names"])
    # the position each served tool was sent at, as the request's descriptions say (none: not sent)
    sent_at = {} if wire is None else {tool: index for index, tool in enumerate(tool_set["wire served"])}
    failure = None if _missing(tool_set["failure"]) else tool_set["failure"]
    collision = None if _missing(tool_set["collision name"]) else tool_set["collision name"]
    common = {
        "record": record,
        "server": server,
        "repository": record.removeprefix(f"{server} "),
        "tools_in_set": len(served),
        "set_failure": failure,
        "collision_name": collision,
        "mastra_version": versions["@mastra/core"],
        "mcp_version": versions["@mastra/mcp"],
        "recording": recording,
    }
    table = []
    for position, (tool, key) in enumerate(zip(served, keys, strict=True)):
        modelled = tidy.rule_columns(normaliser, key)
        row = (
            common
            | modelled
            | {
                "position_served": position,
                "tool": tool,
                "key": key,
                "in_collision": modelled["predicted_name"] == collision,
                "providers_refusing_key": _refusing(key),
                "on_wire": False,
            }
        )
        index = sent_at.get(tool)
        if index is not None:
            row |= {
                "wire_name": wire[index],
                "position_after": index,
                "on_wire": True,
                "rewritten": wire[index] != key,
                "providers_refusing_wire_name": _refusing(wire[index]),
            }
        table.append(row)
    return table


def frame(path: Path = mcp.RECORDING) -> pd.DataFrame:
    """The tidy table of the MCP recording at ``path`` (see the module docstring), typed per :data:`COLUMNS`."""
    document = json.loads(path.read_text(encoding="utf-8"))
    shown = measurement.shown(path)
    table = [row for tool_set in document["tool sets"] for row in rows(tool_set, document["versions"], shown)]
    return tidy.typed_frame(table, COLUMNS)
