"""The framework matrix tabulated: what the probes of :mod:`probe_lib.measure.matrix_runs` sent on every framework,
read off the wire (notebook 12).

What came of each probe is judged from the captured request alone: the names sent against the keys given
(verbatim, reordered, rewritten, tools dropped) or the framework's refusal, and whether a forced tool reaches the
wire as a tool of that same request (the linter's ``choice-not-in-tools``); and of its round trip, which tool ran
when the model called the first key by the name the plain run sent for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pandas as pd

from probe_lib import wire
from probe_lib.core.outcome import Outcome, called_name, wire_names_by_key
from probe_lib.core.scenarios import FORCED, ROUND_TRIP
from probe_lib.measure.matrix_runs import PROBES, Probe
from probe_lib.providers import lint, name_rules

#: Colour per outcome of the names a probe sent.
NAME_COLOURS = {
    "verbatim": "#a6dba0",
    "reordered": "#d9f0d3",
    "rewritten": "#fdb863",
    "duplicated": "#7b3294",
    "dropped": "#e66101",
    "collision": "#d7191c",
    "rejected": "#b2abd2",
    "crash": "#999999",
    "not applicable": "#eeeeee",
}
#: Colour per fate of a forced tool.
FORCED_COLOURS = {
    "forced, in tools": "#a6dba0",
    "not in tools": "#d7191c",
    "not forced": "#fdb863",
    "rejected": "#b2abd2",
    "collision": "#d7191c",
    "crash": "#999999",
    "not applicable": "#eeeeee",
}
#: Colour per fate of a model's call by the wire name (no request in the plain run: that run's verdict).
ROUND_TRIP_COLOURS = {
    "right tool": "#a6dba0",
    "wrong tool": "#d7191c",
    "not executed": "#fdb863",
    "not sent": "#e66101",
    "rejected": "#b2abd2",
    "collision": "#762a83",
    "crash": "#999999",
    "not applicable": "#eeeeee",
}


#: Verdicts that mean no request went out.
REFUSALS = ("rejected", "collision", "crash", "not applicable")


def _quoted(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _names_verdict(probe: Probe, outcome: Outcome) -> tuple[str, str]:
    """The category of what a probe sent, and a short text saying how."""
    if outcome.failure is not None and not outcome.requests:
        return outcome.failure.kind, outcome.failure.message
    if outcome.collision_name is not None:
        return "collision", outcome.failure.message
    names = outcome.wire_names or []
    keys = list(probe.keys)
    if names == keys:
        return "verbatim", "as given"
    if len(names) < len(keys):
        return "dropped", f"sent {len(names)} of {len(keys)}: {', '.join(map(_quoted, names))}"
    if len(set(names)) < len(names):
        return "duplicated", "two tools sent under one name: " + ", ".join(map(_quoted, names))
    if sorted(names) == sorted(keys):
        return "reordered", "order " + ", ".join(map(_quoted, names))
    pairs = wire_names_by_key(keys, outcome)
    how = "; ".join(f"{_quoted(key)} → {_quoted(name)}" for key, name in pairs.items() if key != name)
    in_key_order = [pairs[key] for key in keys]
    return "rewritten", how + ("; order changed: " + ", ".join(map(_quoted, names)) if names != in_key_order else "")


def _cell(probe: Probe, category: str, outcome: Outcome) -> str:
    """A grid cell's short text: the new names, the order, or the error's first words."""
    names = outcome.wire_names or []
    if category in REFUSALS:
        return outcome.failure.message[:60]
    if category == "verbatim":
        return "as given"
    if category == "reordered":
        return "order: " + ", ".join(names)
    if category in ("dropped", "duplicated"):
        return f"{len(names)} of {len(probe.keys)} sent: " + ", ".join(names)
    pairs = wire_names_by_key(list(probe.keys), outcome)
    long = [(key, name) for key, name in pairs.items() if len(key) > len(name) >= 60]
    if long:
        key, name = long[0]
        return f"cut to {len(name)}" + ("" if key.startswith(name) else ", hashed")
    return "as " + ", ".join(name for key, name in pairs.items() if key != name)


def _forced_verdict(probe: Probe, outcome: Outcome, category: str) -> str | None:
    """A forced tool's fate: forced and among the request's tools, forced but absent, not forced, or no request."""
    if probe.forced is None:
        return None
    if not outcome.requests:
        return category
    if wire.named_by(outcome.tool_choice) is None:
        return "not forced"
    rule = name_rules.get_rule("openai")
    absent = any(f.code == "choice-not-in-tools" for f in lint.lint_body(outcome.requests[0], rule))
    return "not in tools" if absent or outcome.forced_name is None else "forced, in tools"


def _round_trip_verdict(probe: Probe, trip: Outcome | None, category: str) -> str:
    """Whether the model's call by the first key's wire name ran that key's tool, another tool, or none; with no
    round trip, the plain run's refusal, or "not sent" (its request left that key's tool out)."""
    if trip is None:
        return category if category in REFUSALS else "not sent"
    if trip.failure is not None and not trip.requests:
        return trip.failure.kind
    ran = {execution["key"] for execution in trip.executions}
    if ran == {probe.keys[0]}:
        return "right tool"
    return "wrong tool" if ran else "not executed"


def _choice_text(outcome: Outcome) -> str | None:
    """The forced tool as sent: its name, or a bare string ``tool_choice`` in quotes (no request: ``None``)."""
    if not outcome.requests:
        return None
    if outcome.forced_name is not None:
        return _quoted(outcome.forced_name)
    return f"tool_choice {json.dumps(outcome.tool_choice, ensure_ascii=False)}"


def table(outcomes: Iterable[Outcome]) -> pd.DataFrame:
    """One row per (target, probe): the keys, what went out (names, forced name, wire) and the verdicts. Runs of
    other probes a target holds (the Claude Agent SDK's list probes) are not the matrix's and are left out."""
    by_run = {(str(outcome.target), outcome.scenario.name): outcome for outcome in outcomes}
    probes = {probe.name: probe for probe in PROBES}
    rows = []
    for target, name in by_run:
        if name not in probes:
            continue
        probe = probes[name]
        outcome, forced = by_run[target, name], by_run.get((target, name + FORCED))
        trip = by_run.get((target, name + ROUND_TRIP))
        category, how = _names_verdict(probe, outcome)
        forced_category = None if forced is None else _names_verdict(probe, forced)[0]
        rows.append(
            {
                "target": target,
                "framework": outcome.framework,
                "version": outcome.version,
                "probe": probe.name,
                "family": probe.family,
                "keys": list(probe.keys),
                "forced key": probe.forced,
                "wire": outcome.wire,
                "names": outcome.wire_names,
                "names verdict": category,
                "how": how,
                "cell": _cell(probe, category, outcome),
                "forced as sent": None if forced is None else _choice_text(forced),
                "forced verdict": None if forced is None else _forced_verdict(probe, forced, forced_category),
                "error": outcome.failure.message if outcome.failure else None,
                "forced error": forced.failure.message if forced is not None and forced.failure else None,
                "round trip called": None if trip is None else called_name(trip),
                "round trip ran": None if trip is None else [execution["key"] for execution in trip.executions],
                "round trip": _round_trip_verdict(probe, trip, category),
                "round trip error": trip.error[0]["message"] if trip is not None and trip.error else None,
            }
        )
    return pd.DataFrame(rows)


def grid(
    matrix: pd.DataFrame, verdict: str = "names verdict", label: str = "cell"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Categories and cell labels, probes down and targets across, for ``charts.category_grid``."""
    measured = set(matrix["probe"])
    rows = [probe.name for probe in PROBES if probe.name in measured]
    shown = matrix.dropna(subset=[verdict])
    order = list(dict.fromkeys(shown["target"]))
    kept = set(shown["probe"])
    index = [row for row in rows if row in kept]
    return tuple(
        shown.pivot(index="probe", columns="target", values=column).reindex(index=index, columns=order)
        for column in (verdict, label)
    )


def forced_absent(matrix: pd.DataFrame) -> pd.DataFrame:
    """Requests that forced a tool absent from their own tools, though the key forced was registered."""
    registered = matrix["probe"] != "unregistered-choice"
    found = matrix[registered & (matrix["forced verdict"] == "not in tools")]
    return found[["target", "probe", "keys", "names", "forced as sent"]].reset_index(drop=True)


def errors(matrix: pd.DataFrame) -> pd.DataFrame:
    """Every refusal and crash with its exact error text, one row per (target, run, text)."""
    plain = matrix[matrix["names verdict"].isin(REFUSALS)].assign(run="plain", verdict=matrix["names verdict"])
    forced = matrix[matrix["forced verdict"].isin(REFUSALS)].assign(
        run="forced", verdict=matrix["forced verdict"], error=matrix["forced error"]
    )
    failed = pd.concat([plain, forced])
    return (
        failed.groupby(["target", "run", "verdict", "error"], sort=False)["probe"]
        .agg(", ".join)
        .reset_index()
        .rename(columns={"probe": "probes"})
    )
