"""Tables of measured outcomes for notebooks: what the real ``@mastra/core`` sent, raised and ran, as DataFrames.

Each function reads :class:`~probe_lib.core.outcome.Outcome` objects (one, or several by scenario name from an
:class:`~probe_lib.tables.evidence.Evidence`) and returns a fresh pandas table whose columns say in words what a
notebook shows. Nothing here judges a claim (that is :mod:`probe_lib.claims.mastra`) or models ``formatTools()``
:mod:`probe_lib.analysis.tables`): these are the measurements themselves, laid out to be read.

The grids drawn from these tables (``offered_grid`` …) are in :mod:`probe_lib.present.charts`, beside the palettes
of their categories; each rebuilds the table it draws from the same outcomes, so a chart never depends on a table a
notebook happened to show before it. A view one notebook shows is written in that notebook, in pandas (the tidy table,
:meth:`~probe_lib.tables.evidence.Evidence.frame`, or the outcomes it reads); the tables here are those two or more
notebooks (or a notebook and a check) read, those a grid is drawn from, and the lookups notebook 07 asks of
Mastra's registry twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from probe_lib import providers
from probe_lib.core.scenarios import Scenario
from probe_lib.frameworks.mastra import Outcome, normaliser
from probe_lib.providers import lint
from probe_lib.tables.evidence import Evidence

#: What an outcome without any request shows where names or a ``tool_choice`` would be.
NO_REQUEST = "no request"

# -- small readings of one outcome -------------------------------------------------------------------------------


def _option_given(scenario: Scenario) -> str:
    """The call option a scenario passes: ``activeTools [...]``, ``toolChoice '<name or mode>'``, or ``-``."""
    if scenario.active_tools:
        return f"activeTools {list(scenario.active_tools)}"
    choice = scenario.tool_choice
    if choice is None:
        return "-"
    named = choice["toolName"] if isinstance(choice, Mapping) else choice
    return f"toolChoice {named!r}"


def _tool_choice_sent(outcome: Outcome) -> str:
    """``tool_choice`` as sent: ``function <name>`` when it forces one, else its JSON (``"auto"``, ``null`` …)."""
    if not outcome.requests:
        return NO_REQUEST
    name = outcome.forced_name
    return f"function {name}" if name else json.dumps(outcome.tool_choice)


def _given_and_sent(outcome: Outcome) -> tuple[dict[str, object], dict[str, object]]:
    """The columns :func:`choice_table` and :func:`remedy_table` share: what the caller gave (keys, option), and what
    the first request sent (``tools``, ``tool_choice``; ``"no request"`` when the turn stopped before one)."""
    given = {"keys registered": outcome.registered_keys, "option given": _option_given(outcome.scenario)}
    sent = {
        "tools sent": outcome.wire_names if outcome.requests else NO_REQUEST,
        "tool_choice sent": _tool_choice_sent(outcome),
    }
    return given, sent


#: The shortest run of one repeated character that :func:`letter_run` writes as ``"a × 64"``.
_RUN = re.compile(r"(.)\1{7,}")


def letter_run(name: str) -> str:
    """A name with its long runs of one character shown by shape: ``"a × 64"`` (64 times the letter a), and
    ``"_1 + a × 61"`` for ``"_1"`` followed by 61 a's, so a character lost to the cut shows as a smaller count.
    Runs shorter than 8 and names without runs are unchanged."""
    parts, at = [], 0
    for run in _RUN.finditer(name):
        parts += [name[at : run.start()]] if run.start() > at else []
        parts.append(f"{run.group(1)} × {len(run.group(0))}")
        at = run.end()
    parts += [name[at:]] if at < len(name) else []
    return " + ".join(parts) if len(parts) > 1 or (parts and parts[0] != name) else name


def _per_scenario(rows: list[dict], scenario_names: Sequence[str]) -> pd.DataFrame:
    """One row per scenario, indexed by name, its columns the rows' keys in order; object columns, so a missing value
    reads ``None`` as measured."""
    return pd.DataFrame(rows, index=list(scenario_names), dtype=object)


# -- which name the model sees -----------------------------------------------------------------------------------


def docs_table(markdown: str) -> dict[str, str]:
    """A docs table's rows whose first two cells are code (`` `askUserTool` | `ask_user` ``): first cell -> second."""
    return dict(re.findall(r"^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|", markdown, flags=re.MULTILINE))


def names_per_tool(ev: Evidence, scenario_names: Sequence[str], labels: Mapping[str, str]) -> pd.DataFrame:
    """Key, id and wire name of every tool of the named scenarios (each must have sent a request).

    Rows are labelled ``"<labels[scenario]>: <key>"`` and pair the i-th registered tool with the i-th name sent,
    which holds when nothing was rewritten (a rewrite reorders the list: use :func:`wire_order` then).
    """
    columns = ["registered key", "tool id", "name on the wire"]
    tables = [
        pd.DataFrame(
            dict(zip(columns, (ev[name].registered_keys, list(ev[name].ids_before), ev[name].wire_names))),
            index=pd.Index([f"{labels[name]}: {key}" for key in ev[name].registered_keys]),
        )
        for name in scenario_names
    ]
    return pd.concat(tables) if tables else pd.DataFrame(columns=columns)


# -- the rewrite and the order -----------------------------------------------------------------------------------


def wire_order(outcome: Outcome, *, record_order: bool = False, label: Callable[[str], str] = str) -> pd.DataFrame:
    """Registered keys and the names sent, each list in its own order (not paired: a rewrite reorders).

    ``record_order`` adds the caller's record as ``Object.keys()`` enumerates it after the turn; ``label`` shows
    each key and name (e.g. :func:`letter_run`). A shorter list is padded with NaN.
    """
    columns = {"registered (in order)": [label(key) for key in outcome.registered_keys]}
    if record_order:
        columns["Object.keys() of the record"] = list(outcome.keys_after)
    columns["on the wire (in order)"] = [label(name) for name in outcome.wire_names or []]
    return pd.DataFrame({column: pd.Series(values) for column, values in columns.items()})


# -- collisions and the errors around them -----------------------------------------------------------------------


def error_chains(ev: Evidence, scenario_names: Sequence[str]) -> pd.DataFrame:
    """One row per link of the error each named scenario's ``generate()``/``stream()`` raised, outermost (what the
    caller catches) first: the scenario, the link's position, its ``class`` (``MastraError``, or the plain
    ``Error`` a MastraError is rebuilt as), ``id``, ``code`` (where such a rebuilt one keeps its id), ``name``, the
    ``toolName`` in its ``details`` and its message."""
    rows = [
        (
            name,
            position,
            link.get("class"),
            link.get("id"),
            link.get("code"),
            link["name"],
            (link.get("details") or {}).get("toolName"),
            link["message"],
        )
        for name in scenario_names
        for position, link in enumerate(ev[name].error)
    ]
    columns = ["scenario", "link", "class", "id", "code", "name", "details.toolName", "message"]
    return pd.DataFrame(rows, columns=columns)


# -- toolChoice, activeTools and the linter ----------------------------------------------------------------------


def choice_table(ev: Evidence, scenario_names: Sequence[str]) -> pd.DataFrame:
    """Per scenario: the method and keys, the ``toolChoice``/``activeTools`` option given, the first request's
    ``tools`` and ``tool_choice``, and whether the tool it forces is among those ``tools`` (``None``: none forced)."""
    rows = []
    for name in scenario_names:
        outcome, forced = ev[name], ev[name].forced_name
        given, sent = _given_and_sent(outcome)
        in_tools = None if forced is None else forced in outcome.wire_names
        rows.append({"method": outcome.scenario.method, **given, **sent, "forced tool is in tools": in_tools})
    return _per_scenario(rows, scenario_names)


def lint_findings(ev: Evidence, scenario_names: Sequence[str], provider: str = "openai") -> pd.DataFrame:
    """``lint.lint_body`` on each scenario's first request, against ``provider``'s documented rule: one row per
    finding (a scenario that sent no request has nothing to lint)."""
    rule = providers.get_rule(provider)
    rows = [
        (name, finding.severity, finding.code, finding.suggestion, finding.message)
        for name in scenario_names
        if ev[name].requests
        for finding in lint.lint_body(ev[name].requests[0], rule, name_rule=normaliser)
    ]
    return pd.DataFrame(rows, columns=["scenario", "severity", "code", "suggestion", "message"])


def remedy_table(ev: Evidence, scenario_names: Sequence[str]) -> pd.DataFrame:
    """Per scenario: keys, the option given, the boundary normaliser's mapping (``None``: not applied), and the
    ``tools`` and ``tool_choice`` sent (``"no request"`` when the turn stopped before one)."""
    rows = []
    for name in scenario_names:
        given, sent = _given_and_sent(ev[name])
        rows.append({**given, "mapping applied": ev[name].mapping, **sent})
    return _per_scenario(rows, scenario_names)


def remedy_outcomes(ev: Evidence, scenario_names: Sequence[str], provider: str = "openai") -> pd.Series:
    """What each turn came to: refused (no request), a forced tool not offered (a failing lint finding), consistent
    (no ``activeTools``), or how the ``activeTools`` selection (after the mapping) compares with the tools sent."""
    rule = providers.get_rule(provider)
    outcome = {}
    for name in scenario_names:
        measured, selected = ev[name], ev[name].scenario.active_tools
        wanted = [(measured.mapping or {}).get(key, key) for key in selected or ()]  # activeTools after the mapping
        outcome[name] = (
            "refused (collision)"
            if not measured.requests
            else "forced tool not offered"
            if any(f.severity in lint.FAILING for f in lint.lint_body(measured.requests[0], rule, name_rule=normaliser))
            else "consistent"
            if selected is None
            else "selects what it names"
            if measured.wire_names == wanted
            else "selects no tool at all"
            if not measured.wire_names
            else "does not select what it names"
        )
    return pd.Series(outcome, name="outcome")


# -- the way back ------------------------------------------------------------------------------------------------


def round_trip(ev: Evidence, scenario_names: Sequence[str]) -> pd.DataFrame:
    """Per round-trip scenario: the name the scripted model called, the executions it caused, the requests sent,
    what the follow-up's tool messages told the model (and under which ``tool_call_id``), and the ``toolName``s
    the result reported."""
    rows = []
    for name in scenario_names:
        outcome, replies = ev[name], ev[name].tool_replies
        rows.append(
            {
                "method": outcome.scenario.method,
                "model called": outcome.scenario.replies[0].calls[0].name,
                "execute ran with": ", ".join(json.dumps(x["args"]) for x in outcome.executions) or "did not run",
                "requests": len(outcome.requests),
                "model got back": " ".join(m["content"] for m in replies)
                or f"(no follow-up) generate() threw: {outcome.error[0]['message']}",
                "under tool_call_id": ", ".join(m["tool_call_id"] for m in replies) or None,
                "toolName reported": ", ".join(outcome.tool_names) or "none",
            }
        )
    return _per_scenario(rows, scenario_names)


#: The lookup scenarios, by where the weather tool is registered.
LOOKUP_SCENARIOS = {
    "lookup-mastra-tool": "on the Mastra instance",
    "lookup-agent-tool": "on the agent",
    "lookup-both": "on both",
}
_REGISTRATION = {"mastra:": "the Mastra instance's tool", "agent:": "the agent's tool", "agent": "the agent"}


def _found_text(answer: dict) -> str:
    """One lookup's answer in words: which registration it found, or the error it threw."""
    if "found" in answer:
        found = answer["found"] or ""
        return next((text for prefix, text in _REGISTRATION.items() if found.startswith(prefix)), found or "?")
    return "not found (threw)" if "error" in answer else "not found (returned nothing)"


def lookups(ev: Evidence, queries: Sequence[str], methods: Sequence[str]) -> pd.DataFrame:
    """Mastra's own lookup surfaces beside the wire: per lookup scenario and finder method, what each of ``queries``
    finds, and the tool names the agent's request carried (a method this version lacks is left out)."""
    rows = []
    for name, where in LOOKUP_SCENARIOS.items():
        outcome = ev[name]
        for method in methods:
            answers = (outcome.surfaces or {}).get(method)
            if answers is None:
                continue
            row = {"tool registered": where, "method": method}
            row.update({query: _found_text(answers[query]) for query in queries})
            row["sent on the wire"] = ", ".join(outcome.wire_names or []) or "no tools"
            rows.append(row)
    return pd.DataFrame(rows, columns=["tool registered", "method", *queries, "sent on the wire"]).set_index(
        ["tool registered", "method"]
    )


def listings(ev: Evidence) -> pd.DataFrame:
    """Per lookup scenario, each listing method this version has (Mastra's ``listTools``/``getTools``,
    ``listAgents``/``getAgents``, the agent's ``listTools``/``getTools``) and its entries as ``key (id)``."""
    rows = {}
    for name, where in LOOKUP_SCENARIOS.items():
        surfaces = ev[name].surfaces or {}
        rows[where] = {
            method: ", ".join(f"{key} ({tool_id})" for key, tool_id in entries) or "(empty)"
            for method, entries in surfaces.items()
            if isinstance(entries, list)
        }
    return pd.DataFrame(rows).T
