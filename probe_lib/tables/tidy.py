"""Measured outcomes as one tidy table: a row per scenario × target × tool, for pandas, CSV and Parquet alike.

A row stands for one registered tool (by its key) or one name on the wire that no key accounts for, so a turn that
sent nothing (a collision) still shows its keys, and a name the framework added on its own (a built-in, a prefixed
sub-agent) still shows on the wire. Keys are matched to wire names through what was measured: the remedy's
mapping when the scenario applied it, else the name the target's name rule predicts (or the key itself), taken
whole or after a framework prefix such as Mastra's ``agent-`` and ``workflow-``. The rule's flags say which
rewrites fired; they come from the target's Python model (``Adapter.name_rule(version)``) and are empty without one.

:data:`COLUMNS` is the data dictionary: every column, its pandas type and its meaning, written out beside exports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence

import pandas as pd
from pandas.api.extensions import ExtensionDtype

from probe_lib import frameworks
from probe_lib.core.errors import InputError
from probe_lib.core.naming import NameRule
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import ToolSpec
from probe_lib.core.target import Target

#: A table's columns: name, pandas dtype (its name, or a dtype object such as a Python-backed string), meaning, in
#: the table's order. Every table of the kit is described so (each exported table and each model table has its own).
Columns = tuple[tuple[str, str | ExtensionDtype, str], ...]

#: Every column of the tidy table: name, pandas dtype, meaning. The order is the table's.
COLUMNS: Columns = (
    ("scenario", "string", "the scenario's name (unique in its file or the catalogue)"),
    ("framework", "string", "the adapter that ran it (mastra, …)"),
    ("version", "string", "the framework's version"),
    (
        "source",
        "string",
        "live: measured on the real package in this session, or (an export) by the live run that wrote the file "
        "named in recording; recorded: read from a recording",
    ),
    ("method", "string", "generate or stream"),
    (
        "registered_as",
        "string",
        "where the key was registered: tools, agents, workflows, toolsets/<name>, clientTools; "
        "empty for a wire name no key accounts for",
    ),
    ("key", "string", "the key the tool was registered under (empty for a wire-only row)"),
    ("tool_id", "string", "the id the scenario gave the tool (empty: the key, or a built-in's own id)"),
    (
        "position_before",
        "Int64",
        "index of the key in registration order across all registrations (empty for a wire-only row)",
    ),
    ("wire_name", "string", "the name the tool was sent under in the first request (empty: not sent)"),
    ("position_after", "Int64", "index of wire_name in the first request's tools (empty: not sent)"),
    ("on_wire", "boolean", "the tool was in the first request's tools"),
    ("rewritten", "boolean", "wire_name differs from the key (empty when not sent or no key)"),
    ("predicted_name", "string", "the name the target's name rule predicts for the key on its own (empty: no rule)"),
    ("substituted", "boolean", "the name rule replaced characters a provider refuses (empty: no rule)"),
    ("prefixed", "boolean", "the name rule prefixed the name (empty: no rule)"),
    ("truncated", "boolean", "the name rule cut the name to its length limit (empty: no rule)"),
    (
        "executions",
        "Int64",
        "times the tool's execute ran during the turn (a round trip reached it; empty for a wire-only row)",
    ),
    ("rules_fired", "string", "the rule's rewrites that fired, joined by +, or none (empty: no rule)"),
    ("tool_choice_given", "string", "the toolChoice the scenario passed, as JSON (empty: none)"),
    ("tool_choice_sent", "string", "the first request's tool choice exactly as sent, as JSON (empty: no request)"),
    ("forced_tool", "string", "the function the first request forces (empty: none)"),
    ("forced_in_tools", "boolean", "forced_tool is among the first request's tool names (empty: nothing forced)"),
    ("requests", "Int64", "model calls the turn sent"),
    ("wire_format", "string", "the wire format of the requests (chat-completions, responses, anthropic-messages)"),
    (
        "error_kind",
        "string",
        "collision, rejected, crash or not applicable (empty: the turn failed on nothing of its own)",
    ),
    (
        "error_text",
        "string",
        "the failure's message, else the first error the turn raised other than the capture server's 400",
    ),
    ("recording", "string", "the measurement file the row was read from, relative to the project (empty: not named)"),
)


#: The dtype of the kit's ``string`` columns: Python-backed, because keys may hold lone UTF-16 surrogates (JavaScript
#: and JSON allow them, and the kit probes them on purpose), which Arrow-backed strings (pandas' default once pyarrow
#: is installed) cannot hold. Named here, per column, so the user's own ``mode.string_storage`` is left alone.
TEXT = pd.StringDtype("python")


def typed_frame(rows: Sequence[Mapping[str, object]], columns: Columns = COLUMNS) -> pd.DataFrame:
    """``rows`` as a table of ``columns``, each of its pandas dtype (no rows: an empty table of those types); built
    from Python objects, so no column passes through pandas' inferred (Arrow-backed) strings on the way."""
    return pd.DataFrame(list(rows), columns=[name for name, _, _ in columns], dtype=object).astype(
        {name: TEXT if dtype == "string" else dtype for name, dtype, _ in columns}
    )


def dictionary() -> pd.DataFrame:
    """The data dictionary: one row per column (column, type, meaning)."""
    return pd.DataFrame(COLUMNS, columns=["column", "type", "meaning"])


def registrations(outcome: Outcome) -> Iterator[tuple[str, ToolSpec]]:
    """Every tool the turn registered, with where: tools (with the built-ins the package exported, when the scenario
    asks for all of them), agents, workflows, each toolset, client tools."""
    scenario = outcome.scenario
    yield from (("tools", spec) for spec in scenario.tools)
    yield from (("tools", ToolSpec(key)) for key in outcome.registered_keys[len(scenario.tools) :])
    yield from (("agents", spec) for spec in scenario.agents)
    yield from (("workflows", spec) for spec in scenario.workflows)
    for name, specs in scenario.toolsets.items():
        yield from ((f"toolsets/{name}", spec) for spec in specs)
    yield from (("clientTools", spec) for spec in scenario.client_tools)


def name_rule(target: Target) -> NameRule | None:
    """The name rule of the target's framework on its version, or ``None`` when it has none or is not registered
    here."""
    try:
        return frameworks.get(target.framework).name_rule(target.version)
    except InputError:
        return None


def _find(candidate: str, wire: Sequence[str], taken: set[int]) -> int | None:
    """Index of ``candidate`` in ``wire`` (whole, else after a ``prefix-``), skipping names already matched."""
    for matches in (lambda name: name == candidate, lambda name: name.endswith("-" + candidate)):
        for index, name in enumerate(wire):
            if index not in taken and matches(name):
                return index
    return None


def json_text(value: object) -> str | None:
    """``value`` as the tables write JSON (keys sorted, text unescaped); ``None`` stays missing."""
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def rule_columns(rule: NameRule, key: str) -> dict[str, object]:
    """What ``rule`` makes of ``key`` registered alone: the name it predicts, which rewrites fired (a flag each) and
    those joined by ``+`` (``none``: no rewrite)."""
    alone = rule.normalise([key]).rows[0]
    flags = {"substituted": alone.substituted, "prefixed": alone.prefixed, "truncated": alone.truncated}
    return flags | {"predicted_name": alone.name, "rules_fired": "+".join(f for f, on in flags.items() if on) or "none"}


def rows(outcome: Outcome, source: str) -> list[dict]:
    """The tidy rows of one outcome (at least one, so no scenario × target goes missing)."""
    scenario = outcome.scenario
    rule = name_rule(outcome.target)
    wire = outcome.wire_names or []
    forced = outcome.forced_name
    common = {
        "scenario": scenario.name,
        "framework": outcome.framework,
        "version": outcome.version,
        "source": source,
        "method": scenario.method,
        "tool_choice_given": json_text(scenario.tool_choice),
        "tool_choice_sent": json_text(outcome.tool_choice) if outcome.requests else None,
        "forced_tool": forced,
        "forced_in_tools": (forced in wire) if forced is not None else None,
        "requests": len(outcome.requests),
        "wire_format": outcome.wire,
        "error_kind": outcome.failure.kind if outcome.failure else None,
        "error_text": outcome.failure.message if outcome.failure else next(iter(outcome.own_errors), None),
    }
    taken: set[int] = set()
    table = []
    for position, (registered_as, spec) in enumerate(registrations(outcome)):
        row = {
            **common,
            "registered_as": registered_as,
            "key": spec.key,
            "tool_id": spec.id,
            "position_before": position,
            "executions": sum(1 for run in outcome.executions if run.get("key") == spec.key),
        }
        if rule is not None:
            row |= rule_columns(rule, spec.key)
        candidates = [(outcome.mapping or {}).get(spec.key), row.get("predicted_name"), spec.key]
        index = next((i for c in candidates if c is not None and (i := _find(c, wire, taken)) is not None), None)
        if index is not None:
            taken.add(index)
            row |= {"wire_name": wire[index], "position_after": index, "rewritten": wire[index] != spec.key}
        table.append(row)
    for index, name in enumerate(wire):
        if index not in taken:
            table.append({**common, "wire_name": name, "position_after": index})
    if not table:
        table.append(dict(common))
    for row in table:
        row["on_wire"] = row.get("position_after") is not None
    return table


def frame(
    outcomes: Sequence[Outcome], sources: Sequence[str], recordings: Sequence[str | None] | None = None
) -> pd.DataFrame:
    """The tidy table of ``outcomes``, each with its source (``live``/``recorded``) and, optionally, the file it was
    read from; typed per :data:`COLUMNS`."""
    files = recordings if recordings is not None else [None] * len(outcomes)
    table = [
        row | {"recording": file}
        for outcome, source, file in zip(outcomes, sources, files, strict=True)
        for row in rows(outcome, source)
    ]
    return typed_frame(table)
