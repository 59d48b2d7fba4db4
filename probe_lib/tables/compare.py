"""Reading a study's tidy table across targets: what each turn did, in one word, and where two targets differ.

Everything here takes the frame :func:`probe_lib.tables.api.study` returns (``Study.frame``) or an export's
``outcomes.csv`` read back, so a notebook compares targets without reaching into ``Outcome`` objects.
:func:`verdict_grid` and :func:`versus_grid` feed :func:`probe_lib.present.charts.category_grid`, coloured by
``charts.VERDICT_COLOURS`` and ``charts.VERSUS_COLOURS``.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from probe_lib.core.naming import NameRule
from probe_lib.core.scenarios import Scenario
from probe_lib.tables import tidy

#: The columns that say what a key became on a target and what its turn did (the tool choice sent, the requests,
#: the tool's executions, the failure or first error raised); two targets differ on a key when any of them does.
COMPARED = [
    "wire_name",
    "position_after",
    "tool_choice_sent",
    "forced_tool",
    "forced_in_tools",
    "requests",
    "executions",
    "error_kind",
    "error_text",
]


def target_label(framework: str, version: str) -> str:
    return f"{framework}@{version}"


def _verdict(turn: pd.DataFrame) -> str:
    first = turn.iloc[0]
    if pd.notna(first["error_kind"]) or first["requests"] == 0:
        return "error"
    if pd.notna(first["forced_tool"]) and not first["forced_in_tools"]:
        return "forced tool not in tools"
    keyed = turn[turn["key"].notna()]
    if not keyed["on_wire"].all():
        return "keys left out"
    return "sent, renamed" if keyed["rewritten"].fillna(False).any() else "sent as registered"


def check_one_recording_per_turn(frame: pd.DataFrame) -> None:
    """Refuse a frame holding one scenario on one target from two recordings (the export's outcomes table holds the
    catalogue's and the framework matrix's turns alike), which would otherwise be merged into one turn."""
    if "recording" not in frame.columns or frame.empty:
        return
    counts = frame.groupby(["scenario", "framework", "version"], sort=False)["recording"].nunique(dropna=False)
    if (counts > 1).any():
        scenario, framework, version = counts[counts > 1].index[0]
        same = (frame["scenario"] == scenario) & (frame["framework"] == framework) & (frame["version"] == version)
        first, second = list(dict.fromkeys(frame.loc[same, "recording"]))[:2]
        raise ValueError(
            f"the frame holds scenario {scenario!r} on {target_label(framework, version)} from two "
            f"recordings ({first}, {second}); keep one, e.g. frame[frame['recording'] != {second!r}]"
        )


def turns(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario × target: the names sent in wire order, the forced tool, the error, and a verdict."""
    check_one_recording_per_turn(frame)
    rows = []
    for (scenario, framework, version), turn in frame.groupby(["scenario", "framework", "version"], sort=False):
        sent = turn[turn["on_wire"]].sort_values("position_after")["wire_name"].tolist()
        first = turn.iloc[0]
        rows.append(
            {
                "scenario": scenario,
                "target": target_label(framework, version),
                "source": first["source"],
                "names sent": ", ".join(sent) if first["requests"] else "no request",
                "forced tool": first["forced_tool"],
                "error": first["error_kind"],
                "verdict": _verdict(turn),
            }
        )
    with pd.option_context("mode.string_storage", "python"):  # inferred text as tidy.TEXT: names hold surrogates
        return pd.DataFrame(rows)


def model_names(scenarios: Iterable[Scenario], rule: NameRule) -> pd.Series:
    """What the Python model of a name rule makes of each scenario's ``tools`` keys alone (no call options).

    Beside measured targets it shows what the rule predicts; toolChoice, activeTools and other tool sources are
    not part of the model, so a difference there is the framework's doing, not the rule's.
    """
    predicted = {}
    for scenario in scenarios:
        result = rule.normalise([spec.key for spec in scenario.tools])
        predicted[scenario.name] = ", ".join(result.names) if result.error is None else f"error: {result.error.kind}"
    return pd.Series(predicted, name="Python model")


def _grid(table: pd.DataFrame, values: str) -> pd.DataFrame:
    """One column of :func:`turns` as scenario × target, in the order the frame first lists each."""
    order, targets = list(dict.fromkeys(table["scenario"])), list(dict.fromkeys(table["target"]))
    return table.pivot(index="scenario", columns="target", values=values).reindex(index=order, columns=targets)


def _labels(table: pd.DataFrame) -> pd.DataFrame:
    """Each turn's grid label: the names it sent, one a line (so none is cut), and the tool it forces."""
    labels, forced = _grid(table, "names sent"), _grid(table, "forced tool")
    labels = labels.where(forced.isna(), labels + ", forced: " + forced.astype("string"))
    return labels.apply(lambda column: column.str.replace(", ", "\n"))


def verdict_grid(frame: pd.DataFrame, model: pd.Series | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(categories, labels)`` of scenario × target: each turn's verdict, labelled with the names it sent.

    ``model`` (from :func:`model_names`) adds a grey column of what the name rule predicts.
    """
    table = turns(frame)
    categories, labels = _grid(table, "verdict"), _labels(table)
    if model is not None:
        categories["Python model"] = "Python model"
        labels["Python model"] = model.reindex(categories.index).str.replace(", ", "\n")
    return categories, labels


def against(frame: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """:func:`turns`, each beside the same scenario on ``baseline`` (a target, ``"mastra@1.67.0"``): ``versus`` says
    ``baseline``, ``same as baseline``, ``differs`` (:func:`differences` finds a key that differs) or ``feature
    missing`` (the target cannot express the scenario, e.g. it exports no built-in tools)."""
    table = turns(frame)
    differing = {
        (scenario, target)
        for target in dict.fromkeys(table["target"])
        if target != baseline
        for scenario in differences(frame, baseline, target)["scenario"]
    }
    versus = [
        "baseline"
        if target == baseline
        else "feature missing"
        if error == "not applicable"
        else "differs"
        if (scenario, target) in differing
        else "same as baseline"
        for scenario, target, error in zip(table["scenario"], table["target"], table["error"])
    ]
    return table.assign(versus=versus)


def versus_grid(frame: pd.DataFrame, baseline: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(categories, labels)`` of scenario × target: each turn against ``baseline`` (:func:`against`), labelled in
    one line with the names it sent and the tool it forces (``a, b -> a``), or the error that stopped it."""
    table = against(frame, baseline)
    names = table["names sent"].replace("", "no tools")
    sent = names.where(table["forced tool"].isna(), names + " -> " + table["forced tool"])
    labels = sent.where(table["error"].isna(), "error: " + table["error"])
    return _grid(table, "versus"), _grid(table.assign(label=labels), "label")


def differences(frame: pd.DataFrame, first: str, second: str) -> pd.DataFrame:
    """Each way a key's outcome differs between two targets (``"mastra@1.0.4"`` …): one row per scenario × key ×
    differing column of :data:`COMPARED`, with the value on each target (empty: the two targets agree throughout)."""
    check_one_recording_per_turn(frame)
    labelled = frame.assign(target=frame["framework"] + "@" + frame["version"])
    missing = {first, second} - set(labelled["target"])
    if missing:
        held = ", ".join(sorted(set(labelled["target"])))
        raise ValueError(f"the frame holds no rows of {', '.join(sorted(missing))}; it has {held}")
    keyed = labelled[labelled["key"].notna()].set_index(["scenario", "key"])
    a = keyed[keyed["target"] == first][COMPARED]
    b = keyed[keyed["target"] == second][COMPARED].reindex(a.index.union(keyed[keyed["target"] == second].index))
    a = a.reindex(b.index)
    rows = []
    for column in COMPARED:
        left, right = a[column].astype(tidy.TEXT), b[column].astype(tidy.TEXT)
        same = (left == right).fillna(False) | (left.isna() & right.isna())
        rows += [
            {"scenario": scenario, "key": key, "what": column, first: left[scenario, key], second: right[scenario, key]}
            for scenario, key in a.index[~same.to_numpy()]
        ]
    order = {name: n for n, name in enumerate(dict.fromkeys(frame["scenario"]))}
    table = pd.DataFrame(rows, columns=["scenario", "key", "what", first, second], dtype=object).astype(tidy.TEXT)
    return table.sort_values(
        ["scenario", "key"], key=lambda s: s.map(order) if s.name == "scenario" else s, kind="stable", ignore_index=True
    )
