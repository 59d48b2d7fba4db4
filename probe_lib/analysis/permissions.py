"""The Claude Agent SDK's tool lists tabulated: what each list probe of :mod:`probe_lib.measure.permission_runs` did,
read off the wire, in its format's terms (:mod:`probe_lib.wire`; notebook 12).

For each probe: the tools the request its list governs offers (the subagent's own request, for a subagent's list),
whether ``search.web`` ran, and what the CLI answered the model's call with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pandas as pd

from probe_lib import wire
from probe_lib.core.outcome import Outcome
from probe_lib.measure.permission_runs import SUBAGENT_PROMPT, WIRE_NAME, probe_of

#: The table's columns, in order (an empty table has them too).
COLUMNS = (
    "target",
    "list",
    "spelling",
    "named",
    "offered",
    "offers the tool",
    "search.web ran",
    "answer",
    "requests",
    "side requests",
)


def _is_subagent(request: dict) -> bool:
    return SUBAGENT_PROMPT in json.dumps(request.get("system"), ensure_ascii=False)


def _of_subagent_list(outcome: Outcome) -> bool:
    probe = probe_of(outcome)
    return probe is not None and probe.list == "subagent tools"


def offered(outcome: Outcome) -> list[str] | None:
    """The function tools (:meth:`~probe_lib.wire.base.WireFormat.tool_names`: a server tool, which has no input
    schema, is none) of the request whose list was set: the main agent's first, or the subagent's first (``None``:
    no subagent request was sent). Before 6feaf6e any named tool counted; the recorded requests hold none other."""
    tool_names = wire.BY_NAME[outcome.wire].tool_names
    if not _of_subagent_list(outcome):
        return tool_names(outcome.requests[0]) if outcome.requests else None
    started = [request for request in outcome.requests if _is_subagent(request)]
    return tool_names(started[0]) if started else None


def answer(outcome: Outcome) -> str | None:
    """What the CLI told the model of its call by ``search.web``'s wire name: the first tool result a later request
    of that conversation carries (the subagent's when one started, else the main agent's; ``None``: none)."""
    subagent = _of_subagent_list(outcome) and any(_is_subagent(r) for r in outcome.requests)
    tool_results = wire.BY_NAME[outcome.wire].tool_results
    for request in outcome.requests[1:]:
        if subagent and not _is_subagent(request):
            continue
        for result in tool_results(request):
            text = result.get("content")
            if isinstance(text, list):
                text = " ".join(part.get("text", "") for part in text if isinstance(part, dict))
            return str(text)
    return None


def ran(outcome: Outcome) -> bool:
    """Whether the tool registered as ``search.web`` executed."""
    return any(execution["key"] == "search.web" for execution in outcome.executions)


def table(outcomes: Iterable[Outcome]) -> pd.DataFrame:
    """One row per list probe among ``outcomes`` (any other run, such as the matrix's, is left out): the list, how
    it named the tool, what the request offered, whether the tool the caller meant ran, and what the model was
    told."""
    rows = []
    for outcome in outcomes:
        probe = probe_of(outcome)
        if probe is None:
            continue
        names = offered(outcome)
        rows.append(
            {
                "target": str(outcome.target),
                "list": probe.list,
                "spelling": probe.spelling,
                "named": probe.named,
                "offered": names,
                "offers the tool": None if names is None else WIRE_NAME in names,
                "search.web ran": ran(outcome),
                "answer": answer(outcome),
                "requests": len(outcome.requests),
                "side requests": len(outcome.unrouted),
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))
