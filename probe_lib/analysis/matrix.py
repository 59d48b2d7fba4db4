"""The framework matrix: the same small set of probes on every registered framework, read off the wire.

Each probe registers one tool per key on one framework at one version, once as it is and once forcing one of its
keys (a framework may refuse only the forced run, and then its names are still seen in the plain one). What
came of it is judged from the captured request alone: the names sent against the keys given (verbatim,
reordered, rewritten, tools dropped) or the framework's refusal, and whether a forced tool reaches the wire as a
tool of that same request (the linter's ``choice-not-in-tools``). A third run, the round trip, scripts the model to
call the probe's first key by the name the plain run sent for it, and the runner reports which tool executed.
A recording, ``data/captures/frameworks.json``, keeps every request body, so the matrix is read without any
framework installed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from pathlib import Path

import pandas as pd

from probe_lib import adapters, wire
from probe_lib.capture import CaptureServer
from probe_lib.core import files, paths, progress
from probe_lib.core.errors import InputError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import PROBE_DESCRIPTION, Scenario, for_keys, named
from probe_lib.core.target import version_key
from probe_lib.inputs import scenario_files
from probe_lib.providers import lint, name_rules
from probe_lib.study import ledger

# The scenario-name suffixes of a probe's forced run and of its round trip, which the ledger's checks read too;
# importing the checks modules registers every framework's checks into the ledger.
from probe_lib.study.framework_checks import FORCED, ROUND_TRIP, called_name
from probe_lib.study.recordings import outcome_from_json, outcome_to_json
from probe_lib.wire.replies import ToolCall, ToolCallsReply

RECORDING = paths.CAPTURES / "frameworks.json"
#: Targets measured at once (see :func:`measure_targets`).
PARALLEL_TARGETS = os.cpu_count() or 1
#: The arguments of the round trip's scripted tool call.
ROUND_TRIP_ARGS = {"city": "Paris"}


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

    def round_trip(self, plain: Outcome) -> Scenario | None:
        """The keys registered again, the model calling the first key by the wire name ``plain`` sent for it
        (``None`` when ``plain`` sent no request or no tool for that key, so there is no wire name to call)."""
        called = wire_names_by_key(list(self.keys), plain).get(self.keys[0]) if plain.requests else None
        if called is None:
            return None
        reply = ToolCallsReply((ToolCall(called, ROUND_TRIP_ARGS),))
        return replace(for_keys(self.name + ROUND_TRIP, self.keys), replies=(reply,))


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


def scenarios() -> list[Scenario]:
    return [scenario for probe in PROBES for scenario in probe.scenarios()]


def recorded_scenarios() -> list[Scenario]:
    """What a matrix recording says its scenarios are: the probes, then each probe's round trip with its keys (the
    call a round trip scripts is the name one target sent, so it differs per target: each outcome's requests hold it)."""
    return scenarios() + [for_keys(probe.name + ROUND_TRIP, probe.keys) for probe in PROBES]


#: Verdicts that mean no request went out.
REFUSALS = ("rejected", "collision", "crash", "not applicable")


def targets(frameworks: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """``(framework, version)`` for every pin of the named (default: every registered) framework."""
    names = list(frameworks) if frameworks is not None else adapters.names()
    return [(name, version) for name in names for version in adapters.get(name).versions()]


def round_trips(outcomes: Iterable[Outcome]) -> list[Scenario]:
    """The round-trip scenario of every probe whose plain run (among ``outcomes``, of one target) sent a request."""
    plain = {outcome.scenario.name: outcome for outcome in outcomes}
    made = (probe.round_trip(plain[probe.name]) for probe in PROBES if probe.name in plain)
    return [scenario for scenario in made if scenario is not None]


def measure(frameworks: Iterable[str] | None = None, *, only_installed: bool = False) -> list[Outcome]:
    """Every probe on every pin of ``frameworks``, live, through one capture server."""
    chosen = [
        (name, version)
        for name, version in targets(frameworks)
        if not only_installed or adapters.get(name).is_installed(version)
    ]
    with CaptureServer() as server:
        measured = measure_targets(chosen, server)
    return [outcome for target in chosen for outcome in measured[target]]


def measure_targets(
    chosen: Sequence[tuple[str, str]], server: CaptureServer, step: progress.Step = lambda target: None
) -> dict[tuple[str, str], list[Outcome]]:
    """:func:`measure_target` on each of ``chosen``, ``PARALLEL_TARGETS`` at a time (each target's runner is its
    own process, mostly starting up, so targets overlap on every CPU); ``step`` is told of each as it ends.

    A target that fails raises here once those already running have ended; none is started after it."""
    with ThreadPoolExecutor(max_workers=PARALLEL_TARGETS, thread_name_prefix="matrix") as pool:
        futures = {pool.submit(measure_target, name, version, server): (name, version) for name, version in chosen}
        try:
            for future in as_completed(futures):
                future.result()
                step("@".join(futures[future]))
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return {target: future.result() for future, target in futures.items()}


def measure_target(name: str, version: str, server: CaptureServer) -> list[Outcome]:
    """Every probe on one target: the plain and forced runs, then the round trips, which call the names the plain
    runs sent."""
    with adapters.get(name).session(version) as session:
        probed = session.run(scenarios(), server)
        return probed + session.run(round_trips(probed), server)


def _order() -> dict[str, int]:
    """Each scenario name's place in a recording: plain and forced runs in probe order, then the round trips."""
    names = [scenario.name for scenario in scenarios()] + [probe.name + ROUND_TRIP for probe in PROBES]
    return {name: number for number, name in enumerate(names)}


def measure_or_read(
    live: bool = True, stages: progress.Stages = progress.QUIET
) -> tuple[list[Outcome], dict[str, str]]:
    """Every target of the matrix: measured now when ``live`` and its framework is installed, else as recorded;
    with how each target (``framework@version``) was obtained, ``"live"`` or ``"recorded"``. ``stages`` shows
    each target done."""
    recorded = by_target(read())
    chosen = targets()
    live_here = [(name, version) for name, version in chosen if live and adapters.get(name).is_installed(version)]
    sources = {f"{name}@{version}": "live" if (name, version) in live_here else "recorded" for name, version in chosen}
    measured: dict[tuple[str, str], list[Outcome]] = {}
    with stages.stage("measuring the framework matrix", len(chosen)) as step:
        for target, source in sources.items():
            if source == "recorded":
                step(target)
        if live_here:
            with CaptureServer() as server:
                measured = measure_targets(live_here, server, step)
    for name, version in chosen:
        measured.setdefault((name, version), list(recorded.get(f"{name}@{version}", {}).values()))
    return [outcome for target in chosen for outcome in measured[target]], sources


def by_target(outcomes: Iterable[Outcome]) -> dict[str, dict[str, Outcome]]:
    """``framework@version`` -> scenario name -> outcome: what the ledger judges the frameworks' claims on."""
    grouped: dict[str, dict[str, Outcome]] = {}
    for outcome in outcomes:
        grouped.setdefault(str(outcome.target), {})[outcome.scenario.name] = outcome
    return grouped


def write(outcomes: Sequence[Outcome], path: Path = RECORDING, sources: Mapping[str, str] | None = None) -> Path:
    """Write a matrix recording (deterministic: targets in name and version order, keys sorted, timings dropped);
    ``sources`` says how each target was obtained (default: all live).

    It carries the probes' scenarios, so a reader of measurement files (the export) registers each probe's own keys
    rather than a catalogue scenario of the same name (``length-64``)."""
    order = _order()
    ordered = sorted(outcomes, key=lambda o: (o.framework, version_key(o.version), order[o.scenario.name]))
    document = {
        "source": "live",
        "scenarios": scenario_files.to_document(recorded_scenarios()),
        "outcomes": [outcome_to_json(outcome) for outcome in ordered],
    }
    if sources is not None and set(sources.values()) != {"live"}:
        document.update(source="mixed", sources=dict(sorted(sources.items())))
    files.write_json(path, document)
    return path


def read(path: Path = RECORDING) -> list[Outcome]:
    if not path.exists():
        raise InputError(
            f"no matrix recording at {path}: run `probe-lib record --frameworks` with the frameworks installed"
        )
    entries = json.loads(path.read_text(encoding="utf-8"))["outcomes"]
    by_name = {scenario.name: scenario for scenario in scenarios()}
    probed = [outcome_from_json(entry, by_name) for entry in entries if not entry["scenario"].endswith(ROUND_TRIP)]
    trips = {
        (target, scenario.name): scenario
        for target, runs in by_target(probed).items()
        for scenario in round_trips(runs.values())
    }
    return probed + [_round_trip_from_json(entry, trips) for entry in entries if entry["scenario"].endswith(ROUND_TRIP)]


def _round_trip_from_json(entry: dict, trips: Mapping[tuple[str, str], Scenario]) -> Outcome:
    """A recorded round trip, with the scenario its recorded plain run makes (which fixes the name it calls)."""
    scenario = trips.get((f"{entry['framework']}@{entry['version']}", entry["scenario"]))
    return outcome_from_json(entry, {} if scenario is None else {scenario.name: scenario})


def sources(measurements: str, outcomes: Iterable[Outcome]) -> dict[str, str]:
    """How each target of ``outcomes`` was obtained, for :func:`load`'s ``measurements``: ``"live"``, ``"recorded"``,
    or as a reproduce folder's matrix file says."""
    folder_file = Path(measurements) / RECORDING.name
    if measurements not in ("live", "recorded") and folder_file.exists():
        document = json.loads(folder_file.read_text(encoding="utf-8"))
        default, given = document.get("source", "live"), document.get("sources", {})
        return {target: given.get(target, default) for target in by_target(outcomes)}
    source = "live" if measurements == "live" else "recorded"
    return {target: source for target in by_target(outcomes)}


def claims(outcomes: Sequence[Outcome], measurements: str) -> pd.DataFrame:
    """The ledger's claims about the frameworks other than Mastra, judged on ``outcomes`` (as :func:`load` read
    them for ``measurements``): one row per claim and target, with its framework, source, verdict and evidence."""
    table = ledger.ledger({}, by_target=by_target(outcomes), sources=sources(measurements, outcomes))
    return table[["claim", "framework", "version", "source", "statement", "status", "evidence"]]


def misrouted(matrix: pd.DataFrame) -> pd.DataFrame:
    """Round trips where a model's call by the wire name did not run the tool it was sent for."""
    found = matrix[matrix["round trip"].isin(["wrong tool", "not executed"])]
    return found[["target", "probe", "keys", "round trip called", "round trip ran", "round trip error"]].reset_index(
        drop=True
    )


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
    pairs = wire_names_by_key(keys, outcome)
    how = "; ".join(f"{_quoted(key)} → {_quoted(name)}" for key, name in pairs.items() if key != name)
    in_key_order = [pairs[key] for key in keys]
    return "rewritten", how + ("; order changed: " + ", ".join(map(_quoted, names)) if names != in_key_order else "")


def wire_names_by_key(keys: list[str], outcome: Outcome) -> dict[str, str]:
    """Which name each key went out as, in ``outcome``'s first request (a key whose tool was not sent has none).

    Read from the tools' descriptions when each names a distinct key (``PROBE_DESCRIPTION`` and the key): exact,
    whatever the framework did to names and order, and a dropped tool is seen as such. Otherwise (the raw SDK and
    the Python frameworks that describe a tool by its function's docstring, all of which send names verbatim) a
    guess from the names alone: position by position when every pair still looks alike and no unchanged key moved
    (the framework kept the order); otherwise unchanged keys keep their names and the rewritten keys pair, in
    order, with the new names (Mastra moves those last).
    """
    names = outcome.wire_names or []
    described = (
        [_described_key(text) for text in wire.tool_descriptions(outcome.requests[0])] if outcome.requests else []
    )
    if len(described) == len(names) and set(described) <= set(keys) and len(set(described)) == len(described):
        return dict(zip(described, names))
    moved = any(name in keys and keys.index(name) != position for position, name in enumerate(names))
    if not moved and all(SequenceMatcher(None, key, name).ratio() >= 0.5 for key, name in zip(keys, names)):
        return dict(zip(keys, names))
    rewritten = dict(zip([key for key in keys if key not in names], [name for name in names if name not in keys]))
    return {key: rewritten.get(key, key) for key in keys}


def _described_key(description: str | None) -> str | None:
    """The key a probe tool's description names, or ``None``."""
    if description is not None and description.startswith(PROBE_DESCRIPTION):
        return description.removeprefix(PROBE_DESCRIPTION)
    return None


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
    choice = outcome.tool_choice
    if outcome.forced_name is None and not (isinstance(choice, str) and choice not in ("auto", "none", "required")):
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
    """One row per (target, probe): the keys, what went out (names, forced name, wire) and the verdicts."""
    by_run = {(str(outcome.target), outcome.scenario.name): outcome for outcome in outcomes}
    rows = []
    for target, name in by_run:
        if name.endswith((FORCED, ROUND_TRIP)):
            continue
        probe = next(probe for probe in PROBES if probe.name == name)
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
    rows = [probe.name for probe in PROBES if probe.name in set(matrix["probe"])]
    shown = matrix.dropna(subset=[verdict])
    order = list(dict.fromkeys(shown["target"]))
    index = [row for row in rows if row in set(shown["probe"])]
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


def verdict_counts(matrix: pd.DataFrame) -> pd.DataFrame:
    """How many probes each target sent verbatim, rewrote, dropped or refused (targets down, verdicts across)."""
    counts = pd.crosstab(matrix["target"], matrix["names verdict"])
    return counts.reindex(columns=[verdict for verdict in NAME_COLOURS if verdict in counts.columns])
