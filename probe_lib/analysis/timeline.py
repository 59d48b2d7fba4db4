"""Since when, and until when: every framework's timeline as one row per behaviour, its change points and ranges.

Reads the lines of :mod:`probe_lib.history.timeline` (``data/timeline.csv``, Mastra's and every other framework's;
Mastra's with the pinned versions' outcomes laid over them): one :func:`frame` and one :func:`change_points` serve
every framework. Each cell is
drawn by the kind of its behaviour (:func:`behaviour_kind`), the same in every row; each change of behaviour digest
between two versions is a change point. The range questions (``first_with_normaliser`` …
``range_claims``) are answered from measured rows only: each returns the versions it found, or ``None`` when none
shows it. The ledger's version-range claims are judged on these tables in :mod:`probe_lib.claims.ranges`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence

import pandas as pd

from probe_lib import wire
from probe_lib.core import paths
from probe_lib.core.behaviour import Behaviour
from probe_lib.core.outcome import Outcome, quoted
from probe_lib.core.target import version_key
from probe_lib.frameworks import mastra
from probe_lib.history import sweep
from probe_lib.history import timeline as committed
from probe_lib.history.sweep import WHOLE_VERSION
from probe_lib.history.timeline import Line
from probe_lib.measure.sources import Source
from probe_lib.tables import evidence

NOT_APPLICABLE = "not applicable"
COULD_NOT_RUN = "could not run"
#: Each cell's behaviour in a few words, with its colour: the same words and colour in every row, so the chart's
#: legend reads alone. Two different behaviours of one kind share a colour; the change point between them is the
#: chart's black bar, and the change-point table says what differs.
BEHAVIOUR_COLOURS = {
    "sent as registered or renamed": "#8fd18f",
    "sent; a tool ran": "#8fb8de",
    "sent; forced tool not in tools": "#e39b6f",
    "sent, then threw": "#f5d76e",
    "sent without tools": "#b79fd6",
    "sent nothing": "#6fc9c2",
    "refused: collision": "#d98fb0",
    "threw before sending": "#e57373",
    NOT_APPLICABLE: "#dddddd",
    COULD_NOT_RUN: "#9b7b5b",
}
SPECIAL_COLOURS = {name: BEHAVIOUR_COLOURS[name] for name in (NOT_APPLICABLE, COULD_NOT_RUN)}


def behaviour_kind(behaviour: Behaviour, error_kind: str) -> str:
    """What one cell of the timeline did, as a key of :data:`BEHAVIOUR_COLOURS`: what the request shows (a forced
    tool it lacks, a tool run from it) before what was raised after it, since a Python client raises the capture
    server's own refusal (HTTP 400) after every request, which Mastra's lines leave out."""
    if error_kind in SPECIAL_COLOURS:
        return error_kind
    if behaviour.error is not None:
        return "refused: collision" if behaviour.error.kind == "collision" else "threw before sending"
    if not behaviour.sent:
        return "sent nothing"
    forced = wire.named_by(behaviour.tool_choice)
    if forced and forced not in (behaviour.names or ()):
        return "sent; forced tool not in tools"
    if behaviour.executions:
        return "sent; a tool ran"
    if behaviour.errors:
        return "sent, then threw"
    return "sent as registered or renamed" if behaviour.names else "sent without tools"


def frame(lines: Sequence[Line]) -> pd.DataFrame:
    """Timeline lines (:class:`probe_lib.history.timeline.Line`, of one framework or several) as one table row per
    framework, release and scenario (a release that could not run fills every scenario of its framework), with its
    ``prerelease`` and ``role`` (sample or bisection) columns; each framework's releases ranked (``rank``) in the
    order ``lines`` first name them (the committed file's: the registry's order)."""
    named: dict[str, set[str]] = {}
    for line in lines:
        named.setdefault(line.framework, set()).add(line.scenario)
    scenarios = {framework: sorted(names - {WHOLE_VERSION}) for framework, names in named.items()}
    rows = []
    for line in lines:
        whole = line.scenario == WHOLE_VERSION
        error_kind = COULD_NOT_RUN if whole else "" if line.kind == committed.SENT else line.kind
        behaviour = _parsed(line.behaviour)
        for name in scenarios[line.framework] if whole else [line.scenario]:
            rows.append(
                (line.framework, line.version, name, line.outcome, error_kind, behaviour, line.prerelease == "yes")
                + (line.role,)
            )
    columns = ["framework", "version", "scenario", "outcome", "error_kind", "behaviour", "prerelease", "role"]
    table = pd.DataFrame(rows, columns=columns)
    ranks = {}
    for line in lines:
        ranks.setdefault((line.framework, line.version), len(ranks))
    table["rank"] = [ranks[key] for key in zip(table["framework"], table["version"], strict=True)]
    return table.sort_values(["framework", "scenario", "rank"], ignore_index=True)


@functools.lru_cache(maxsize=8192)
def _parsed(behaviour: str) -> Behaviour:
    """A stored behaviour, parsed once per distinct text: the 40,968 committed lines hold 1,266 behaviours, and
    notebook 13 builds a frame of them about 50 times. Rows share the (frozen) value."""
    return Behaviour.from_json(json.loads(behaviour))


def prereleases(table: pd.DataFrame) -> list[str]:
    """The measured prereleases of a :func:`frame` (its ``prerelease`` column), oldest first."""
    marked = set(table.loc[table["prerelease"], "version"])
    return [version for version in versions(table) if version in marked]


def stable(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without its prereleases."""
    return table[~table["version"].isin(prereleases(table))].reset_index(drop=True)


def ran(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without the lines of releases that could not run (no behaviour to compare)."""
    return table[table["error_kind"] != COULD_NOT_RUN]


def versions(table: pd.DataFrame) -> list[str]:
    """The measured versions of a :func:`frame`, oldest first (its ``rank``: the registry's order)."""
    return list(table.sort_values("rank")["version"].unique())


def categories(table: pd.DataFrame) -> pd.DataFrame:
    """Scenarios by versions: each cell's :func:`behaviour_kind` (``not applicable`` or ``could not run`` too)."""
    cells = {
        (line.scenario, line.version): behaviour_kind(line.behaviour, line.error_kind) for line in table.itertuples()
    }
    grid = pd.Series(cells).unstack()
    return grid.reindex(columns=versions(table))


def colours(grid: pd.DataFrame) -> dict[str, str]:
    """A colour per behaviour kind present in ``grid``."""
    present = set(grid.to_numpy().ravel())
    return {kind: colour for kind, colour in BEHAVIOUR_COLOURS.items() if kind in present}


def describe(behaviour: Behaviour, error_kind: str) -> str:
    """A short reading of one behaviour: ``tools -> tool_choice`` and what was raised, or the failure."""
    if (error := behaviour.error) is not None:
        return quoted(f"{error.kind}: {error.name or error.message or ''}", 160)
    names = ", ".join(behaviour.names or ()) or "no tools"
    choice = behaviour.tool_choice
    if isinstance(choice, dict):
        choice = wire.forced_by(choice) or json.dumps(choice)
    raised = f"; threw: {behaviour.errors[0]}" if behaviour.errors else ""
    return quoted(
        f"{names} -> {choice or 'no tool_choice'} ({behaviour.requests or 0} req, "
        f"{behaviour.executions or 0} exec){raised}",
        160,
    )


def _differing(was: Behaviour, became: Behaviour) -> str:
    before, after = was.to_json(), became.to_json()
    return ", ".join(sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))) or "error kind"


def _state(line) -> str:
    """What a change is judged on: the behaviour digest (for "not applicable", its reason: which feature is missing),
    or just "could not run", whatever the install or start error."""
    return line.error_kind if line.error_kind == COULD_NOT_RUN else line.outcome


#: The behaviour fields the matrix's probes read on the wire: the names sent, the forced tool, how many requests and
#: executions (the round trip), and what was raised instead of sending. The others (``errors``: the text of what the
#: scripted answer made the client raise) change with the HTTP client's wording, not the framework's behaviour.
WIRE_FIELDS = frozenset({"names", "tool_choice", "requests", "executions", "error"})


def change_points(table: pd.DataFrame, *, wire_only: bool = False) -> pd.DataFrame:
    """Every change of a scenario's behaviour between two consecutive measured releases of its framework, with both
    behaviours: ``before`` the last release with the old one, ``after`` the first with the new one.

    A scenario that stays "not applicable" changes when the reason does (no ``Agent`` at all, then one built-in
    missing): that is a feature arriving. With ``wire_only``, only changes of :data:`WIRE_FIELDS` between two
    releases that ran (a release that could not run is no behaviour, so the edges of a run of them are no change
    point).
    """
    if wire_only:
        table = ran(table)
    changes = []
    for (framework, scenario), lines in table.groupby(["framework", "scenario"], sort=True):
        previous = None
        for line in lines.itertuples():
            if previous is not None and _state(line) != _state(previous):
                differs = _differing(previous.behaviour, line.behaviour)
                was, became = (describe(run.behaviour, run.error_kind) for run in (previous, line))
                changes.append((framework, scenario, previous.version, line.version, differs, was, became))
            previous = line
    found = pd.DataFrame(changes, columns=["framework", "scenario", "before", "after", "differs_in", "was", "became"])
    if wire_only:
        found = found[[bool(WIRE_FIELDS & set(d.split(", "))) for d in found["differs_in"]]].reset_index(drop=True)
    return found


def _first(table: pd.DataFrame, scenario: str, holds) -> str | None:
    lines = table[table["scenario"] == scenario]
    return next((line.version for line in lines.itertuples() if holds(line.behaviour, line.error_kind)), None)


def crashed_before_sending(line) -> bool:
    """The version crashed before its first request (0.20.2 wants an API key in the environment; 1.57.0 breaks on
    zod)."""
    return line.error_kind == "crash" and not line.behaviour.sent


def sent_nothing(line) -> bool:
    """A version that could not express the scenario, or :func:`crashed_before_sending`: it says nothing of the
    behaviour a range question asks about."""
    return line.error_kind in SPECIAL_COLOURS or crashed_before_sending(line)


def sent(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without its :func:`sent_nothing` lines."""
    return table[[not sent_nothing(line) for line in table.itertuples()]]


def runs(table: pd.DataFrame, scenario: str, holds) -> list[tuple[str, str]]:
    """The stretches of consecutive measured versions on which ``holds(behaviour, error_kind)``: (first, last) each.

    A version that sent nothing on the scenario (:func:`sent_nothing`) is a gap, not a break.
    """
    stretches: list[tuple[str, str]] = []
    current: list[str] = []
    for line in sent(table[table["scenario"] == scenario]).itertuples():
        if holds(line.behaviour, line.error_kind):
            current.append(line.version)
        elif current:
            stretches.append((current[0], current[-1]))
            current = []
    if current:
        stretches.append((current[0], current[-1]))
    return stretches


def _raised(text: str):
    """The turn raised an error whose message holds ``text``."""
    return lambda behaviour, kind: any(text in error for error in behaviour.errors or ())


def _forces_key(behaviour: Behaviour, kind: str) -> bool:
    """The request forces ``search.web``, the registered key, in whichever format's shape (:func:`wire.forced_by`)."""
    return wire.forced_by(behaviour.tool_choice) == "search.web"


#: The eras notebook 13 and ``docs/sweeps.md`` describe beside the sweep's chart: (what, scenario, holds).
ERAS = (
    ("a call by key throws Model tried to call unavailable tool", "call-by-key", _raised("unavailable tool")),
    ("a call by key leaves the text promise unsettled", "call-by-key", _raised("promise 'text' was not resolved")),
    ("a call by key throws Tool search.web not found", "call-by-key", _raised("Tool search.web not found")),
    (
        "a call by key is answered back to the model",
        "call-by-key",
        lambda b, kind: b.requests == 2 and not b.executions,
    ),
    ("the collision is refused", "collision-dot-space", lambda b, kind: kind == "collision"),
    ("the collision reaches the caller as Unknown error", "collision-dot-space", _raised("Unknown error")),
    (
        "the collision reaches the caller as a plain error with its stack",
        "collision-dot-space",
        lambda b, kind: any(error.startswith("Error: Two or more") for error in b.errors or ()),
    ),
    ("the Responses path forces search.web", "choice-by-key-responses", _forces_key),
    ("the Messages path forces search.web", "choice-by-key-messages", _forces_key),
    ("a streamed turn's text does not settle within 5 s", "choice-by-key-stream", _raised("not settle within 5000 ms")),
)


def eras(table: pd.DataFrame) -> pd.DataFrame:
    """Each era of :data:`ERAS` on ``table``: the stretches of versions it holds on (:func:`runs`), by ``what``."""
    return pd.DataFrame(
        [
            {
                "what": what,
                "scenario": scenario,
                "versions": "; ".join(f"{a} to {b}" for a, b in runs(table, scenario, holds)),
            }
            for what, scenario, holds in ERAS
        ]
    ).set_index("what")


def sent_on(table: pd.DataFrame, version: str) -> set[str]:
    """The scenarios on which ``version`` sent at least one request."""
    return {line.scenario for line in table[table["version"] == version].itertuples() if line.behaviour.sent}


def honours_active_tools(behaviour: Behaviour, error_kind: str = "") -> bool:
    """``activeTools: ['search.web']`` left the other tool (``plain``) out of the request."""
    return behaviour.names is not None and "plain" not in behaviour.names


def active_tools_honoured(table: pd.DataFrame) -> list[tuple[str, str]]:
    """The stretches of versions on which ``activeTools: ['search.web']`` leaves ``plain`` out (it can stop again)."""
    return runs(table, "active-tools-by-key", honours_active_tools)


def first_with_normaliser(table: pd.DataFrame) -> str | None:
    """The first version that sends the key ``search.web`` as ``search_web`` (the rewrite exists)."""
    return _first(table, "single-rewrite", lambda b, kind: b.names == ("search_web",))


def tool_choice_none_changes(table: pd.DataFrame) -> pd.DataFrame:
    """Where ``toolChoice: 'none'`` changed what is sent (e.g. tools with ``"none"``, then no tools at all).

    Only changes of the request itself (``tool_choice``, or the tools beyond their renaming by the normaliser)
    between versions that can run the scenario; a change in retries or errors is in :func:`change_points`.
    """
    changes = change_points(sent(table))
    request = changes["differs_in"].str.contains("tool_choice") | (changes["after"] != first_with_normaliser(table))
    on_the_wire = changes["differs_in"].str.contains("names|tool_choice")
    return changes[(changes["scenario"] == "choice-none") & request & on_the_wire].reset_index(drop=True)


def forced_by_rewritten_key(table: pd.DataFrame) -> list:
    """The lines of ``choice-by-key`` (forcing ``search.web`` by its key) whose request sent the tool rewritten, as
    ``search_web``: the versions the passthrough question is asked of (V02, :func:`passthrough_fixed_in`)."""
    lines = sent(table[table["scenario"] == "choice-by-key"]).itertuples()
    return [line for line in lines if "search_web" in (line.behaviour.names or ())]


def passthrough_fixed_in(table: pd.DataFrame) -> list[str]:
    """Versions that rewrite the key ``search.web`` *and* force it as ``search_web``, the name they send (empty: never).

    Before the normaliser the key went out verbatim, so ``tool_choice`` matched ``tools`` only because neither was
    rewritten (and a provider refuses both); that is not a fix and is not counted.
    """
    return [
        line.version
        for line in forced_by_rewritten_key(table)
        if wire.forced_by(line.behaviour.tool_choice) == "search_web"
    ]


def _silent_within(table: pd.DataFrame, scenario: str, stretches: Sequence[tuple[str, str]]) -> str:
    """The versions inside ``stretches`` that sent nothing on ``scenario`` (gaps the stretches pass over), said."""
    order = {version: rank for rank, version in enumerate(versions(table))}
    silent = [
        line.version
        for line in table[table["scenario"] == scenario].itertuples()
        if sent_nothing(line) and any(order[a] < order[line.version] < order[b] for a, b in stretches)
    ]
    return f" ({', '.join(silent)} sent nothing)" if silent else ""


def range_claims(table: pd.DataFrame) -> pd.DataFrame:
    """The ledger's version-range questions, each answered from ``table`` (one line each, measured values); a
    stretch passes over the versions that sent nothing, and says which."""
    measured = versions(table)
    span = f"{measured[0]}..{measured[-1]}" if measured else "nothing measured"
    none_changes = tool_choice_none_changes(table)
    fixed = passthrough_fixed_in(table)
    rewriting = [line.version for line in forced_by_rewritten_key(table)]
    honoured = active_tools_honoured(table)
    answers = [
        ("first version with the normaliser (search.web sent as search_web)", first_with_normaliser(table)),
        (
            "first version whose built-in tools are sent",  # and can be registered (not "not applicable")
            _first(table, "builtins-by-export", lambda b, kind: kind not in SPECIAL_COLOURS and bool(b.names)),
        ),
        # honoured as a filter: whether the key itself then survives is the rewrite's business, measured elsewhere
        ("first version honouring activeTools", _first(table, "active-tools-by-key", honours_active_tools)),
        (
            "versions honouring activeTools",
            "; ".join(f"{a}..{b}" for a, b in honoured) + _silent_within(table, "active-tools-by-key", honoured)
            if honoured
            else None,
        ),
        (
            "toolChoice 'none' changed between",
            "; ".join(f"{c.before} -> {c.after}" for c in none_changes.itertuples()) or None,
        ),
        (
            "versions that rewrite search.web and force it by key as search_web (passthrough fixed)",
            ", ".join(fixed)
            or (
                f"none of the {len(rewriting)} that send search_web ({rewriting[0]}..{rewriting[-1]})"
                if rewriting
                else None
            ),
        ),
    ]
    return pd.DataFrame(
        [
            {"question": q, "answer": a if a is not None else f"never in {span}", "measured over": span}
            for q, a in answers
        ]
    )


def against(table: pd.DataFrame, reference: str, others: Sequence[str]) -> pd.DataFrame:
    """Each scenario on ``reference`` beside ``others`` (e.g. the 1.0.0 betas against 1.0.4): the reference's
    behaviour, which of ``others`` behave alike (same digest), and each of the others that differs with its own."""
    lines = []
    for scenario, rows in table.groupby("scenario", sort=True):
        by_version = {line.version: line for line in rows.itertuples()}
        if reference not in by_version:
            continue
        ref = by_version[reference]
        measured = [v for v in others if v in by_version]
        alike = [v for v in measured if _state(by_version[v]) == _state(ref)]
        differ = [v for v in measured if v not in alike]
        lines.append(
            (
                scenario,
                describe(ref.behaviour, ref.error_kind),
                len(alike),
                len(measured),
                "; ".join(f"{v}: {describe(by_version[v].behaviour, by_version[v].error_kind)}" for v in differ),
            )
        )
    return pd.DataFrame(
        lines, columns=["scenario", reference, "alike", "measured", "the others that differ, and what they did"]
    )


def framework_summary(lines: Sequence, releases: Sequence) -> pd.DataFrame:
    """Per framework of the committed timeline: its package, the releases of its swept range (and how many are
    prereleases), how many were measured (samples and bisection probes, an install that failed included: the cache
    holds the installs, ``probe-lib cache`` counts them), how many could not run, and its change points.
    ``lines`` and ``releases`` as :mod:`probe_lib.history.timeline` reads them."""
    rows = []
    for framework in sorted({r.framework for r in releases}):
        own = [r for r in releases if r.framework == framework]
        measured = [r for r in own if r.role]
        own_lines = [line for line in lines if line.framework == framework]
        unrunnable = {line.version for line in own_lines if line.scenario == WHOLE_VERSION}
        rows.append(
            {
                "framework": framework,
                "package": own[0].package,
                "range": f"{own[0].version}..{own[-1].version}",
                "releases": len(own),
                "prereleases": sum(r.prerelease == "yes" for r in own),
                "measured": len(measured),
                "samples": sum(r.role == "sample" for r in measured),
                "bisection probes": sum(r.role == "bisection" for r in measured),
                "could not run": len(unrunnable),
                "wire change points": len(change_points(frame(own_lines), wire_only=True)) if own_lines else 0,
            }
        )
    return pd.DataFrame(rows)


def laid_over_summary(by_version: Mapping[str, Mapping[str, Outcome]]) -> pd.DataFrame:
    """Mastra's committed lines as :func:`frame`, with the outcomes of ``by_version`` replacing their versions'
    lines, in semver order."""
    lines = {(line.version, line.scenario): line for line in committed.read([mastra.ADAPTER.name])}
    for outcomes in by_version.values():
        for outcome in outcomes.values():
            lines.pop((outcome.version, WHOLE_VERSION), None)
            row = sweep.row(outcome)
            lines[outcome.version, row.scenario] = committed.Line.of(
                mastra.ADAPTER.name, row, prerelease=mastra.ADAPTER.pins.releases.is_prerelease(outcome.version)
            )
    return frame(sorted(lines.values(), key=lambda line: version_key(line.version)))


def laid_over_source() -> str:
    """What :func:`laid_over_summary` is judged on, as the ledger's ``source`` column says it: the committed
    summary's versions, how they were measured, and the pins laid over it (each pin's own rows say how it was)."""
    lines = committed.read([mastra.ADAPTER.name])
    every = {line.version for line in lines}
    measured = sorted({line.version for line in lines if line.prerelease != "yes"}, key=version_key)
    summary = committed.TIMELINE_PATH.relative_to(paths.ROOT).as_posix()
    apart = f", and {len(every) - len(measured)} prereleases apart" if len(every) > len(measured) else ""
    return (
        f"recorded, Mastra's lines of the committed {summary} ({measured[0]}..{measured[-1]}, "
        f"{len(measured)} stable versions{apart}, measured live by the sweep; Node.js and date not noted in the "
        "summary), with the pinned versions laid over it as their rows say"
    )


def at_version(table: pd.DataFrame, version: str) -> pd.DataFrame:
    """What every scenario does on ``version``, and since when: the first version of the unbroken run of measured
    versions with that behaviour, where a version of ``table`` that lacks the scenario (a scenario catalogued after
    the last sweep is measured on the pins alone) breaks the run, and a version that could not be installed or run
    is a gap in it (it measured nothing); ``measured on`` counts the versions that ran it."""
    every = versions(table)
    lines = []
    for scenario, rows in table.groupby("scenario", sort=True):
        by_version = {line.version: line for line in rows.itertuples()}
        ran = sum(line.error_kind != COULD_NOT_RUN for line in by_version.values())
        run_start = None
        previous = None
        for at in every:
            line = by_version.get(at)
            if line is None:
                previous = None
                continue
            if line.error_kind == COULD_NOT_RUN and line.version != version:
                continue
            if previous is None or _state(line) != previous:
                run_start = line.version
            previous = _state(line)
            if line.version == version:
                lines.append(
                    (scenario, describe(line.behaviour, line.error_kind), run_start, f"{ran} of {len(every)} versions")
                )
    return pd.DataFrame(lines, columns=["scenario", "behaviour", "same since", "measured on"])


def gather(version: str, measurements: Source) -> pd.DataFrame:
    """The committed summary, with the pinned versions and ``version`` measured from ``measurements`` laid over it.

    A live source runs the real package now (a served version installs on first use); the recordings or a
    reproduce folder are read from files, and there an unpinned ``version`` comes from the summary when it holds it.
    """
    pinned = mastra.ADAPTER.versions()
    swept = {line.version for line in committed.read([mastra.ADAPTER.name])}
    unswept = version not in pinned and (measurements.runs_now or version not in swept)
    fresh_versions = [*pinned, *([version] if unswept else [])]
    return laid_over_summary(evidence.gather(fresh_versions[0], measurements, versions=fresh_versions).by_version)
