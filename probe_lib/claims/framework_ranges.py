"""The ledger's release-range claims about the other frameworks (since when each behaves as it does now), each
judged once on that framework's committed timeline (``data/timeline.csv``,
:mod:`probe_lib.history.timeline`).

A claim names one matrix probe of one framework, the last release before a change and the first with it, and what
each does, written out as measured (never computed by the kit). :func:`changed_at` makes its check: both releases
measured and run, adjacent among the releases served in the swept range (only releases that could not run may lie
between them, and they are named), the behaviour stated on each, and the newer behaviour still on the newest
measured release. So an edited timeline line, a release found between them, or a later change refutes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from probe_lib import wire
from probe_lib.analysis import timeline as tables
from probe_lib.claims.registry import register
from probe_lib.claims.since import Timeline
from probe_lib.claims.verdict import Status
from probe_lib.core.behaviour import Behaviour
from probe_lib.history import framework_sweep
from probe_lib.history import timeline as committed
from probe_lib.tables.evidence import CheckError


def timelines(frameworks: set[str] | None = None) -> dict[str, Timeline]:
    """Each framework's committed timeline, with every release of its swept range (those of ``frameworks`` only,
    when given; none before the first ``probe-lib sweep --framework NAME --write``)."""
    if not committed.TIMELINE_PATH.exists():
        return {}
    lines = committed.read(frameworks)
    releases = committed.read_releases()
    found = {}
    for framework in sorted({line.framework for line in lines}):
        own = [line for line in lines if line.framework == framework]
        served = tuple(r.version for r in releases if r.framework == framework)
        found[framework] = Timeline.of(tables.frame(own), releases=served)
    return found


def source() -> str:
    """What these claims are judged on, as the ledger's ``source`` column says it."""
    path = committed.TIMELINE_PATH.relative_to(committed.paths.ROOT).as_posix()
    return f"recorded, the committed {path} (measured live by `probe-lib sweep --framework NAME --write`)"


#: The tools a request offers, alone of the wire fields: for a framework that sends a refused request again a number
#: of times that moves from release to release on its own (the Claude Code CLI on the dot probe: twice up to 0.2.7,
#: once from 0.2.8, twice from 0.3.219, three times from 0.3.311).
TOOLS_SENT = frozenset({"names"})
#: The tools that ran, alone of the wire fields, for the same reason.
TOOLS_RUN = frozenset({"executions"})

#: What one release does on the claim's probe, as stated: a test of its behaviour and outcome kind, and its words.
Holds = tuple[Callable[[Behaviour, str], bool], str]
FrameworkRangeCheck = Callable[[Timeline], tuple[Status, str]]


def changed_at(
    scenario: str,
    last_before: str,
    first_with: str,
    was: Holds,
    became: Holds,
    *,
    since: str | None = None,
    oldest_ran: str | None = None,
    lasting: bool = True,
    on: frozenset[str] = tables.WIRE_FIELDS,
) -> FrameworkRangeCheck:
    """The claim "``scenario`` did ``was`` on every release that ran from ``since`` (default: the oldest that ran)
    up to ``last_before``, and ``became`` from ``first_with``, the next release served, on every release that ran
    since, the newest measured one included, which does what ``first_with`` does on the wire" (without ``lasting``,
    a change that a later one overtook: the claim then says nothing of the releases after ``first_with``).
    ``oldest_ran``: ``since`` for a claim that names it as the oldest release that ran, which it must be. ``on``:
    the wire fields compared between releases, for a claim about some of them (the tools sent) on a framework whose
    other fields move on their own (how often it sends the refused request again)."""

    def check(timeline: Timeline) -> tuple[Status, str]:
        lines = {line.version: line for line in timeline.table[timeline.table["scenario"] == scenario].itertuples()}
        if not lines:
            raise CheckError(f"no {timeline.framework} release in the timeline ran {scenario!r}")
        missing = [
            v for v in (last_before, first_with) if v not in lines or lines[v].error_kind == tables.COULD_NOT_RUN
        ]
        if missing:
            return "not testable", f"{', '.join(missing)} not measured (or could not run) on {scenario}"
        if last_before not in timeline.releases or first_with not in timeline.releases:
            return "not testable", f"{last_before} or {first_with} is outside the swept range {timeline.span}"
        between = timeline.releases[timeline.releases.index(last_before) + 1 : timeline.releases.index(first_with)]
        unran = [v for v in between if v in lines and lines[v].error_kind == tables.COULD_NOT_RUN]
        if unmeasured := [v for v in between if v not in unran]:
            return "refuted", f"{len(unmeasured)} releases lie between {last_before} and {first_with}: {unmeasured[:5]}"
        ran = [v for v in tables.versions(timeline.table) if v in lines and lines[v].error_kind != tables.COULD_NOT_RUN]
        if oldest_ran is not None and ran[0] != oldest_ran:
            return "refuted", f"the oldest release that ran {scenario} is {ran[0]}, not {oldest_ran}"
        start = since or oldest_ran
        if start is not None and start not in ran:
            return "not testable", f"{start} not measured (or could not run) on {scenario}"
        up_to = ran[ran.index(start or ran[0]) : ran.index(last_before) + 1]
        from_on = ran[ran.index(first_with) :] if lasting else [first_with]
        for versions, (holds, words) in ((up_to, was), (from_on, became)):
            for version in versions:
                line = lines[version]
                if not holds(line.behaviour, line.error_kind):
                    return "refuted", f"{version} did not {words}: {tables.describe(line.behaviour, line.error_kind)}"
        if _wire(lines[last_before], on) == _wire(lines[first_with], on):
            return "refuted", f"{last_before} and {first_with} behave alike on the wire on {scenario}"
        newest = lines[ran[-1]]
        if lasting and _wire(newest, on) != _wire(lines[first_with], on):
            return "refuted", (
                f"the newest measured release, {newest.version}, behaves otherwise: "
                f"{tables.describe(newest.behaviour, newest.error_kind)}"
            )
        skipped = f"; between them only releases that could not run: {', '.join(unran)}" if unran else ""
        still = f", as do the {len(from_on) - 1} measured after it, the newest {newest.version}" if lasting else ""
        before, after = (tables.describe(lines[v].behaviour, lines[v].error_kind) for v in (last_before, first_with))
        return "confirmed", (
            f"{last_before} {was[1]} ({before}), as do the {len(up_to) - 1} measured before it from {up_to[0]}; "
            f"{first_with}, the next release served, {became[1]} ({after}){still}{skipped}"
        )

    return check


def each(*checks: FrameworkRangeCheck) -> FrameworkRangeCheck:
    """The claim that every one of ``checks`` holds (one change seen on several probes): the first verdict that is
    not confirmed, else each one's evidence."""

    def check(timeline: Timeline) -> tuple[Status, str]:
        evidence = []
        for one in checks:
            status, text = one(timeline)
            if status != "confirmed":
                return status, text
            evidence.append(text)
        return "confirmed", "; ".join(evidence)

    return check


def _wire(line, on: frozenset[str] = tables.WIRE_FIELDS) -> tuple:
    """What a line did on the wire (the fields ``on``, by default every one of
    :data:`~probe_lib.analysis.timeline.WIRE_FIELDS`, and its outcome kind): the client's wording of the scripted
    answer's error is left out."""
    stored = line.behaviour.to_json()
    return line.error_kind, json.dumps({k: stored.get(k) for k in sorted(on)}, sort_keys=True)


def unchanged(first: str, last: str, holds: Mapping[str, Holds], *, ran: int, measured: int) -> FrameworkRangeCheck:
    """The claim "on the ``ran`` releases that ran of the ``measured`` measured from ``first`` (the first the harness
    runs) to ``last`` (the newest), which include the newest of each minor series served between them, every probe
    behaves alike on the wire, and each probe of ``holds`` does what it states on each of them"."""

    def check(timeline: Timeline) -> tuple[Status, str]:
        table = timeline.table[timeline.table["error_kind"] != tables.COULD_NOT_RUN]
        runs = tables.versions(table)
        if not runs:
            raise CheckError(f"no {timeline.framework} release in the timeline ran")
        if (runs[0], runs[-1]) != (first, last):
            return "refuted", f"the releases that ran span {runs[0]} to {runs[-1]}, not {first} to {last}"
        span = timeline.releases[timeline.releases.index(first) : timeline.releases.index(last) + 1]
        in_span = [version for version in span if version in set(timeline.table["version"])]
        if (len(runs), len(in_span)) != (ran, measured):
            return "refuted", (
                f"{len(runs)} releases ran of the {len(in_span)} measured from {first} to {last}, not {ran} of "
                f"{measured}"
            )
        series = framework_sweep.subject(timeline.framework).series
        newest = {series(version): version for version in span}
        if unsampled := [version for version in newest.values() if version not in in_span]:
            return "refuted", f"the newest of a minor series was not measured: {', '.join(unsampled[:5])}"
        for scenario, rows in table.groupby("scenario"):
            states = {_wire(line) for line in rows.itertuples()}
            if len(states) > 1:
                versions = [line.version for line in rows.itertuples()]
                return "refuted", f"{scenario} changes on the wire between {versions[0]} and {versions[-1]}"
        for scenario, (test, words) in holds.items():
            lines = list(table[table["scenario"] == scenario].itertuples())
            if not lines:
                raise CheckError(f"no {timeline.framework} release ran {scenario!r}")
            if wrong := [line.version for line in lines if not test(line.behaviour, line.error_kind)]:
                return "refuted", f"{scenario} did not {words} on {', '.join(wrong[:5])}"
        unrunnable = [version for version in in_span if version not in runs]
        earlier = len([v for v in set(timeline.table["version"]) - set(runs) if v not in span])
        first_lines = {scenario: next(table[table["scenario"] == scenario].itertuples()) for scenario in holds}
        said = "; ".join(
            f"{scenario} {words} ({tables.describe(first_lines[scenario].behaviour, '')})"
            for scenario, (_, words) in holds.items()
        )
        skipped = f"; could not run: {', '.join(unrunnable)}" if unrunnable else ""
        skipped += f"; {earlier} measured before {first} could not run" if earlier else ""
        return "confirmed", (
            f"{table['scenario'].nunique()} probes alike on the wire on the {ran} releases that ran of the "
            f"{measured} measured from {first} to {last} (the newest of each of its {len(newest)} minor series among "
            f"them; {len(timeline.releases)} served in all); {said}{skipped}"
        )

    return check


def raises(text: str) -> Holds:
    """Sends nothing and raises an error whose message holds ``text``."""
    return (
        lambda b, kind: not b.sent and b.error is not None and text in (b.error.message or ""),
        f"raise {text!r} before sending",
    )


def forces(name: str) -> Holds:
    """Sends a request whose tool_choice forces the function ``name``."""
    return (lambda b, kind: wire.forced_by(b.tool_choice) == name), f"force {name}"


def sends_choice(expected: object) -> Holds:
    """Sends a request whose tool_choice is exactly ``expected`` (its JSON value)."""
    words = f"send tool_choice {json.dumps(expected)}"  # JSON: an absent tool_choice reads null, not None
    return (lambda b, kind: b.sent and b.tool_choice == expected), words


def names(expected: list[str]) -> Holds:
    """Sends a request whose tools are exactly ``expected``, in order."""
    return (lambda b, kind: b.names == tuple(expected) and b.error is None), f"send {expected}"


def both(first: Holds, second: Holds) -> Holds:
    """Does ``first`` and ``second`` on the same run."""
    return (lambda b, kind: first[0](b, kind) and second[0](b, kind)), f"{first[1]} and {second[1]}"


def runs_the_call(ran: bool) -> Holds:
    """Sends its request, and the tool the scripted reply calls runs (``ran``) or nothing runs."""
    words = "run the tool the model called" if ran else "run nothing of what the model called"
    return (lambda b, kind: b.sent and ((b.executions or 0) > 0) == ran), words


def failed_as(kind: str) -> Holds:
    """Sends nothing: fails with outcome kind ``kind`` (``rejected``, ``collision``, ``crash``), or the kit's runner
    declares the release unable (``not applicable``: nothing is tried)."""
    unable = kind == "not applicable"
    words = "be declared unable by the kit's runner, nothing tried" if unable else "fail before sending"
    return (lambda b, k: k == kind and not b.sent), f"{words} ({kind})"


#: The OpenAI Agents JS SDK forced a key it sent rewritten up to 0.5.4 and refuses it from 0.6.0: one change, judged
#: through either model (Responses, T07; Chat Completions, T20).
AGENTS_JS_CHECKS_A_FORCED_KEY = changed_at(
    "dot+forced",
    "0.5.4",
    "0.6.0",
    both(names(["search_web", "plain"]), forces("search.web")),
    raises('modelSettings.toolChoice="search.web" does not match any available tool'),
)

#: The dot probe's keys sent as registered, and forcing one names it as registered: what an unchanged framework does.
KEYS_AS_REGISTERED = {"dot": names(["search.web", "plain"]), "dot+forced": forces("search.web")}

# Each claim id of data/claims.csv, the framework whose committed timeline judges it, and its check.
register(
    "T01",
    changed_at(
        "unregistered-choice+forced",
        "0.6.1",
        "0.6.2",
        raises("unexpected keyword argument 'tool_choice'"),
        raises("tool_choice references 'missing' but it's not in the provided tools"),
    ),
    on="timeline",
    framework="autogen",
)
register(
    "T03",
    changed_at(
        "unregistered-choice+forced",
        "0.3.7",
        "0.3.9",
        sends_choice({"function": {"name": "missing"}, "type": "function"}),
        sends_choice("missing"),
        since="0.0.7",  # before it, refused (T06)
    ),
    on="timeline",
    framework="langchain",
)
register(
    "T06",
    changed_at(
        "unregistered-choice+forced",
        "0.0.6",
        "0.0.7",
        raises("was specified, but the only provided tool was plain"),
        sends_choice({"function": {"name": "missing"}, "type": "function"}),
        lasting=False,
    ),
    on="timeline",
    framework="langchain",
)
register("T07", AGENTS_JS_CHECKS_A_FORCED_KEY, on="timeline", framework="openai-agents-js")
register(
    "T08",
    changed_at("collision", "0.14.2", "0.14.3", names(["search_web", "search_web"]), names(["search_web"])),
    on="timeline",
    framework="openai-agents-js",
)
register(
    "T09",
    changed_at(
        "dot+forced",
        "0.14.10",
        "0.14.12",
        both(names(["search.web", "plain"]), forces("search.web")),
        both(names(["search_web", "plain"]), forces("search.web")),
        oldest_ran="0.11.5",
    ),
    on="timeline",
    framework="llama-index",
)
register(
    "T10",
    changed_at("dot+round-trip", "0.14.10", "0.14.12", runs_the_call(True), runs_the_call(False), oldest_ran="0.11.5"),
    on="timeline",
    framework="llama-index",
)
register(
    "T02",
    unchanged("0.0.2", "0.24.0", KEYS_AS_REGISTERED, ran=26, measured=26),
    on="timeline",
    framework="openai-agents",
)
register(
    "T04", unchanged("0.0.1", "1.6.0", KEYS_AS_REGISTERED, ran=14, measured=15), on="timeline", framework="langchain-js"
)
register(
    "T11", unchanged("0.27.0", "3.57.0", KEYS_AS_REGISTERED, ran=223, measured=225), on="timeline", framework="openai"
)
register(
    "T12",
    changed_at(
        "dot+forced",
        "1.92.0",
        "1.93.0",
        failed_as("not applicable"),
        both(names(["search.web", "plain"]), forces("search.web")),
        since="0.0.12",
    ),
    on="timeline",
    framework="pydantic-ai",
)
register(
    "T13",
    changed_at(
        "unregistered-choice+forced",
        "1.92.0",
        "1.93.0",
        failed_as("not applicable"),
        raises("Invalid tool names in `tool_choice`: {'missing'}"),
        since="0.0.12",
        lasting=False,
    ),
    on="timeline",
    framework="pydantic-ai",
)
register(
    "T14",
    changed_at(
        "collision",
        "1.10.0",
        "1.10.1",
        names(["search_web", "search_web"]),
        names(["search_web", "search_web_2"]),
        oldest_ran="1.9.3",
    ),
    on="timeline",
    framework="crewai",
)
register(
    "T15",
    changed_at(
        "length-70",
        "1.10.0",
        "1.10.1",
        names(["b" * 64, "plain"]),
        names(["b" * 55 + "_b9444034", "plain"]),
        oldest_ran="1.9.3",
    ),
    on="timeline",
    framework="crewai",
)
register(
    "T16",
    changed_at(
        "dot",
        "0.2.81",
        "0.2.83",
        names(["mcp__probe__search_web", "mcp__probe__plain"]),
        names(["mcp__probe__plain", "mcp__probe__search_web"]),
        on=TOOLS_SENT,
    ),
    on="timeline",
    framework="claude-agent-sdk",
)
register(
    "T17",
    changed_at(
        "collision",
        "0.2.49",
        "0.2.50",
        names(["mcp__probe__search_web", "mcp__probe__search_web"]),
        names(["mcp__probe__search_web"]),
        on=TOOLS_SENT,
    ),
    on="timeline",
    framework="claude-agent-sdk",
)
register(
    "T18",
    each(
        *(
            changed_at(probe, "0.1.9", "0.1.10", runs_the_call(False), runs_the_call(True), on=TOOLS_RUN)
            for probe in ("dot+round-trip", "legal+round-trip")
        )
    ),
    on="timeline",
    framework="claude-agent-sdk",
)
register(
    "T19",
    unchanged("0.0.2", "0.24.0", KEYS_AS_REGISTERED, ran=26, measured=26),
    on="timeline",
    framework="openai-agents-chat",
)
register("T20", AGENTS_JS_CHECKS_A_FORCED_KEY, on="timeline", framework="openai-agents-js-chat")
register(
    "T21",
    each(
        *(
            changed_at(probe, "0.0.2", "0.0.3", runs_the_call(False), runs_the_call(True))
            for probe in ("dot+round-trip", "legal+round-trip")
        )
    ),
    on="timeline",
    framework="openai-agents-js-chat",
)
register(
    "T22",
    unchanged("1.66.0", "3.57.0", KEYS_AS_REGISTERED, ran=156, measured=156),
    on="timeline",
    framework="openai-responses",
)
register(
    "T05",
    changed_at("dot", "3.1.15", "3.1.16", sends_choice(None), sends_choice("auto"), oldest_ran="3.1.0"),
    on="timeline",
    framework="ai-sdk",
)
