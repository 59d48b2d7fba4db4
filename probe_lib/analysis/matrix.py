"""The framework matrix: the same small set of probes on every registered framework, read off the wire.

Each probe registers one tool per key on one framework at one version, once as it is and once forcing one of its
keys (a framework may refuse only the forced run, and then its names are still seen in the plain one). What
came of it is judged from the captured request alone: the names sent against the keys given (verbatim,
reordered, rewritten, tools dropped) or the framework's refusal, and whether a forced tool reaches the wire as a
tool of that same request (the linter's ``choice-not-in-tools``). A recording, ``data/captures/frameworks.json``,
keeps every request body, so the matrix is read without any framework installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from probe_lib import adapters
from probe_lib.capture import CaptureServer
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario, for_keys, named
from probe_lib.core.target import version_key
from probe_lib.inputs import scenario_files
from probe_lib.providers import lint, name_rules
from probe_lib.study.recordings import outcome_from_json, outcome_to_json

RECORDING = paths.CAPTURES / "frameworks.json"
#: Suffix of the scenario that forces a probe's key (the plain one shows the names; this one, the forced tool).
FORCED = "+forced"


@dataclass(frozen=True)
class Probe:
    """One row of the matrix: a key family, the keys registered, the key forced (if any)."""

    name: str
    family: str
    keys: tuple[str, ...]
    forced: str | None = None

    def scenarios(self) -> list[Scenario]:
        """The keys registered alone (what names go out), then, if a key is forced, the same with it forced."""
        plain = for_keys(self.name, self.keys)
        return [plain] if self.forced is None else [plain, for_keys(self.name + FORCED, self.keys, named(self.forced))]


PROBES: tuple[Probe, ...] = (
    Probe("legal", "legal", ("get_weather", "lookup-user"), "get_weather"),
    Probe("dot", "punctuation", ("search.web", "plain"), "search.web"),
    Probe("space", "punctuation", ("my tool", "plain"), "my tool"),
    Probe("colon-slash", "punctuation", ("ns:read/file", "plain"), "ns:read/file"),
    Probe("leading-digit", "leading digit", ("9lives", "plain"), "9lives"),
    Probe("accent", "unicode", ("météo", "plain"), "météo"),
    Probe("emoji", "unicode", ("weather😀", "plain"), "weather😀"),
    Probe("length-64", "length", ("a" * 64, "plain"), "a" * 64),
    Probe("length-70", "length", ("b" * 70, "plain"), "b" * 70),
    Probe("mcp-prefixed", "mcp", ("github.create_issue", "github__list_issues"), "github.create_issue"),
    Probe("integer-order", "ordering", ("b", "42", "x.y")),
    Probe("collision", "collision", ("search.web", "search_web")),
    Probe("empty", "empty", ("", "plain")),
    Probe("unregistered-choice", "forced unknown", ("plain",), "missing"),
)

#: Colour per outcome of the names a probe sent.
NAME_COLOURS = {
    "verbatim": "#a6dba0", "reordered": "#d9f0d3", "rewritten": "#fdb863", "duplicated": "#7b3294", "dropped": "#e66101",
    "collision": "#d7191c", "rejected": "#b2abd2", "crash": "#999999", "not applicable": "#eeeeee",
}
#: Colour per fate of a forced tool.
FORCED_COLOURS = {
    "forced, in tools": "#a6dba0", "not in tools": "#d7191c", "not forced": "#fdb863", "rejected": "#b2abd2",
    "collision": "#d7191c", "crash": "#999999", "not applicable": "#eeeeee",
}


def scenarios() -> list[Scenario]:
    return [scenario for probe in PROBES for scenario in probe.scenarios()]


#: Verdicts that mean no request went out.
REFUSALS = ("rejected", "collision", "crash", "not applicable")


def targets(frameworks: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """``(framework, version)`` for every pin of the named (default: every registered) framework."""
    names = list(frameworks) if frameworks is not None else adapters.names()
    return [(name, version) for name in names for version in adapters.get(name).versions()]


def measure(frameworks: Iterable[str] | None = None, *, only_installed: bool = False) -> list[Outcome]:
    """Every probe on every pin of ``frameworks``, live, through one capture server."""
    outcomes: list[Outcome] = []
    with CaptureServer() as server:
        for name, version in targets(frameworks):
            adapter = adapters.get(name)
            if only_installed and not adapter.is_installed(version):
                continue
            outcomes += adapter.run(scenarios(), version, server=server)
    return outcomes


def write(outcomes: Sequence[Outcome], path: Path = RECORDING) -> Path:
    """Write a matrix recording (deterministic: targets in name and version order, keys sorted, timings dropped).

    It carries the probes' scenarios, so a reader of measurement files (the export) registers each probe's own keys
    rather than a catalogue scenario of the same name (``length-64``)."""
    order = {scenario.name: number for number, scenario in enumerate(scenarios())}
    ordered = sorted(outcomes, key=lambda o: (o.framework, version_key(o.version), order[o.scenario.name]))
    document = {"source": "live", "scenarios": scenario_files.to_document(scenarios()),
                "outcomes": [outcome_to_json(outcome) for outcome in ordered]}
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)
    return path


def read(path: Path = RECORDING) -> list[Outcome]:
    if not path.exists():
        raise InputError(f"no matrix recording at {path}: run `probe-lib record --frameworks` with the frameworks installed")
    by_name = {scenario.name: scenario for scenario in scenarios()}
    return [outcome_from_json(entry, by_name) for entry in json.loads(path.read_text(encoding="utf-8"))["outcomes"]]


def load(measurements: str) -> list[Outcome]:
    """``"live"``: measure the installed frameworks now; ``"recorded"``: the recording; a folder: its
    ``frameworks.json`` if it has one, else the recording."""
    if measurements == "live":
        return measure(only_installed=True)
    folder = Path(measurements)
    return read(folder / RECORDING.name if (folder / RECORDING.name).exists() else RECORDING)


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
    pairs = _pairs(keys, names)
    how = "; ".join(f"{_quoted(key)} → {_quoted(name)}" for key, name in pairs.items() if key != name)
    in_key_order = [pairs[key] for key in keys]
    return "rewritten", how + ("; order changed: " + ", ".join(map(_quoted, names)) if names != in_key_order else "")


def _pairs(keys: list[str], names: list[str]) -> dict[str, str]:
    """Which name each key became, read off the wire (no framework reports it): a guess for the ``how`` text only.

    Position by position when every pair still looks alike and no unchanged key moved (the framework kept the
    order); otherwise unchanged keys keep their names and the rewritten keys pair, in order, with the new names
    (Mastra moves those last). The wire cannot tell these apart when a rewrite lands on another key's name
    (CrewAI's ``search_web_2``): the names sent are exact, the pairing may not be.
    """
    moved = any(name in keys and keys.index(name) != position for position, name in enumerate(names))
    if not moved and all(SequenceMatcher(None, key, name).ratio() >= 0.5 for key, name in zip(keys, names)):
        return dict(zip(keys, names))
    rewritten = dict(zip([key for key in keys if key not in names], [name for name in names if name not in keys]))
    return {key: rewritten.get(key, key) for key in keys}


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
    pairs = _pairs(list(probe.keys), names)
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
    choice = outcome.tool_choice
    if outcome.forced_name is None and not (isinstance(choice, str) and choice not in ("auto", "none", "required")):
        return "not forced"
    rule = name_rules.get_rule("openai")
    absent = any(f.code == "choice-not-in-tools" for f in lint.lint_body(outcome.requests[0], rule))
    return "not in tools" if absent or outcome.forced_name is None else "forced, in tools"


def _choice_text(outcome: Outcome) -> str | None:
    """The forced tool as sent: its name, or a bare string ``tool_choice`` in quotes (no request: ``None``)."""
    if not outcome.requests:
        return None
    if outcome.forced_name is not None:
        return _quoted(outcome.forced_name)
    return f"tool_choice {json.dumps(outcome.tool_choice, ensure_ascii=False)}"


def table(outcomes: Iterable[Outcome]) -> pd.DataFrame:
    """One row per (target, probe): the keys, what went out (names, forced name, wire) and the verdicts."""
    by_run = {(str(outcome.target), outcome.scenario.name): outcome for outcome in outcomes}
    rows = []
    for target, name in by_run:
        if name.endswith(FORCED):
            continue
        probe = next(probe for probe in PROBES if probe.name == name)
        outcome, forced = by_run[target, name], by_run.get((target, name + FORCED))
        category, how = _names_verdict(probe, outcome)
        forced_category = None if forced is None else _names_verdict(probe, forced)[0]
        rows.append({
            "target": target, "framework": outcome.framework, "version": outcome.version,
            "probe": probe.name, "family": probe.family, "keys": list(probe.keys), "forced key": probe.forced,
            "wire": outcome.wire, "names": outcome.wire_names, "names verdict": category, "how": how,
            "cell": _cell(probe, category, outcome),
            "forced as sent": None if forced is None else _choice_text(forced),
            "forced verdict": None if forced is None else _forced_verdict(probe, forced, forced_category),
            "error": outcome.failure.message if outcome.failure else None,
            "forced error": forced.failure.message if forced is not None and forced.failure else None,
        })
    return pd.DataFrame(rows)


def grid(matrix: pd.DataFrame, verdict: str = "names verdict", label: str = "cell") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Categories and cell labels, probes down and targets across, for ``charts.category_grid``."""
    rows = [probe.name for probe in PROBES if probe.name in set(matrix["probe"])]
    shown = matrix.dropna(subset=[verdict])
    order = list(dict.fromkeys(shown["target"]))
    index = [row for row in rows if row in set(shown["probe"])]
    return tuple(shown.pivot(index="probe", columns="target", values=column).reindex(index=index, columns=order)
                 for column in (verdict, label))


def forced_absent(matrix: pd.DataFrame) -> pd.DataFrame:
    """Requests that forced a tool absent from their own tools, though the key forced was registered."""
    registered = matrix["probe"] != "unregistered-choice"
    found = matrix[registered & (matrix["forced verdict"] == "not in tools")]
    return found[["target", "probe", "keys", "names", "forced as sent"]].reset_index(drop=True)


def errors(matrix: pd.DataFrame) -> pd.DataFrame:
    """Every refusal and crash with its exact error text, one row per (target, run, text)."""
    plain = matrix[matrix["names verdict"].isin(REFUSALS)].assign(run="plain", verdict=matrix["names verdict"])
    forced = matrix[matrix["forced verdict"].isin(REFUSALS)].assign(run="forced", verdict=matrix["forced verdict"],
                                                                     error=matrix["forced error"])
    failed = pd.concat([plain, forced])
    return (failed.groupby(["target", "run", "verdict", "error"], sort=False)["probe"]
            .agg(", ".join).reset_index().rename(columns={"probe": "probes"}))


def verdict_counts(matrix: pd.DataFrame) -> pd.DataFrame:
    """How many probes each target sent verbatim, rewrote, dropped or refused (targets down, verdicts across)."""
    counts = pd.crosstab(matrix["target"], matrix["names verdict"])
    return counts.reindex(columns=[verdict for verdict in NAME_COLOURS if verdict in counts.columns])
