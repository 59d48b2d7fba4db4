"""Every since-when claim, whatever its framework, is judged on a :class:`Timeline` (one framework's lines of the
timeline, as :func:`probe_lib.analysis.timeline.frame` tabulates them, named by the releases they span) and written
in one language: a :data:`Holds` states what a release does on a scenario (:func:`names`, :func:`sends`,
:func:`forces`, :func:`raises` …), and a check says where that begins, changes or stays (:func:`begins_at`,
:func:`changed_at`, :func:`unchanged`, :func:`each`), or reads the lines itself (:func:`scenario_lines`).

Mastra's version-range claims (:mod:`probe_lib.claims.ranges`) read its committed lines with the pinned versions'
measurements laid over them, every served version measured, and its prereleases apart; the other frameworks'
(:mod:`probe_lib.claims.framework_ranges`) read their committed lines with the list of every release of the swept
range, of which the sweep measured a sample and the bisections' probes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from probe_lib import wire
from probe_lib.analysis import timeline as tables
from probe_lib.analysis.timeline import prereleases, stable, versions
from probe_lib.claims.registry import check_factory
from probe_lib.claims.verdict import Status
from probe_lib.core.behaviour import Behaviour
from probe_lib.core.target import version_key
from probe_lib.history import framework_sweep
from probe_lib.history import timeline as committed
from probe_lib.tables.evidence import CheckError


@dataclass(frozen=True)
class Timeline:
    """One framework's timeline: its lines, the span the ledger's version column shows, every release of its swept
    range (empty: every version measured), and its prereleases' lines apart (``None``: kept among the others, or none
    measured)."""

    framework: str
    table: pd.DataFrame
    #: As the ledger's version column shows it (e.g. ``0.1.0..1.71.0 (142 versions; 45 prereleases apart)``).
    span: str
    releases: tuple[str, ...] = ()
    prereleases: pd.DataFrame | None = None
    #: How its lines were measured, as the ledger's ``source`` column says it.
    source: str = "unstated"
    #: Its releases that were resolved as of a registry date later than a later release of their own line's.
    backdated: Mapping[str, committed.Backdated] = field(default_factory=dict)
    #: The date each measured release's dependencies were resolved as of (a pin's: none), as its lines note it.
    resolved: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, table: pd.DataFrame, *, releases: Sequence[str] = (), source: str = "unstated") -> Timeline:
        """One framework's timeline from its :func:`~probe_lib.analysis.timeline.frame`.

        Without ``releases`` (Mastra: every served version measured) its stable versions, with the prereleases
        apart: the range claims name stable releases, and a prerelease (a ``0.0.0-…`` snapshot sorts before 0.1.0
        though it was built from a later branch) is no point on that line; only a claim about the prereleases
        themselves (V06) reads them. With ``releases`` (every release of the swept range, of which some were
        measured), every measured line, prereleases included, named by the range, how many were swept and how many ran.
        """
        (framework,) = table["framework"].unique()
        resolved = _resolved(framework)
        dated = _backdated(framework, resolved)
        if releases:
            ran = versions(tables.ran(table))
            swept = f"{len(releases)} releases, {len(versions(table))} swept, {len(ran)} ran"
            span = f"{releases[0]}..{releases[-1]} ({swept})"
            return cls(framework, table, span, tuple(releases), source=source, backdated=dated, resolved=resolved)
        left_out = prereleases(table)
        apart = table[table["version"].isin(left_out)].reset_index(drop=True) if left_out else None
        table = stable(table)
        measured = versions(table)
        skipped = f"; {len(left_out)} prereleases apart" if left_out else ""
        span = f"{measured[0]}..{measured[-1]} ({len(measured)} versions{skipped})"
        return cls(framework, table, span, (), apart, source, dated, resolved)

    @property
    def label(self) -> str:
        """What a verdict table says these verdicts were judged on."""
        return f"the {self.framework} timeline of {self.span}"

    def dates_caveat(self, evidence: str) -> str:
        """What ``evidence`` must add for each release it names that was resolved as of a registry date later than
        a later release of its own line (``""``: none): its dependencies may be newer than those it shipped with."""
        named = set(_VERSION.findall(evidence))
        flagged = [str(self.backdated[version]) for version in sorted(named & set(self.backdated), key=version_key)]
        if not flagged:
            return ""
        return (
            f"; the registry dates {', '.join(flagged)} after a later release of the same line, and each was "
            "resolved as of its registry date: its dependencies may be newer than those it shipped with"
        )


#: A stable release as evidence names it (``0.1.10``, not the ``0.1.1`` inside it).
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?![\w.]*\w)")


def _resolved(framework: str) -> dict[str, str]:
    """The date each release of ``framework``'s committed lines was resolved as of (none noted: left out)."""
    if not committed.TIMELINE_PATH.exists():
        return {}
    return {line.version: line.resolved_before for line in committed.read([framework]) if line.resolved_before}


def _backdated(framework: str, resolved: Mapping[str, str]) -> dict[str, committed.Backdated]:
    """The releases of ``framework`` that the registry dates after a later release of their own line and whose
    committed lines say they were resolved as of a date after that release came out. A pin (installed from its
    committed lock) notes no such date; Mastra's served releases note the day they were first installed, if any."""
    if not (committed.RELEASES_PATH.exists() and committed.TIMELINE_PATH.exists()):
        return {}
    own = [release for release in committed.read_releases() if release.framework == framework]
    return {
        version: late
        for (_, version), late in committed.backdated(own).items()
        if late.resolved_late(resolved.get(version, ""))
    }


#: The tools a request offers, alone of the wire fields: for a framework that sends a refused request again a number
#: of times that moves from release to release on its own (the Claude Code CLI on the dot probe: twice up to 0.2.7,
#: once from 0.2.8, twice from 0.3.219, three times from 0.3.311).
TOOLS_SENT = frozenset({"names"})
#: The tools that ran, alone of the wire fields, for the same reason.
TOOLS_RUN = frozenset({"executions"})

#: What one release does on the claim's scenario, as stated: a test of its behaviour and outcome kind, and its words.
Holds = tuple[Callable[[Behaviour, str], bool], str]
#: A since-when claim's check: a timeline in, a status and one line of evidence out.
RangeCheck = Callable[[Timeline], tuple[Status, str]]


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
    next_served: bool = False,
) -> RangeCheck:
    """The claim "``scenario`` did ``was`` on every release that ran from ``since`` (default: the oldest that ran)
    up to ``last_before``, and ``became`` from ``first_with``, the next release that ran, on every release that ran
    since, the newest measured one included, which does what ``first_with`` does on the wire" (without ``lasting``,
    a change that a later one overtook: the claim then says nothing of the releases after ``first_with``).
    ``oldest_ran``: ``since`` for a claim that names it as the oldest release that ran, which it must be. ``on``:
    the wire fields compared between releases, for a claim about some of them (the tools sent) on a framework whose
    other fields move on their own (how often it sends the refused request again). ``next_served``: the claim says
    ``first_with`` is the next release served, so none may lie between, not even one that could not run."""

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
        if next_served and unran:
            return (
                "refuted",
                f"{first_with} is not the next release served: {', '.join(unran)} (could not run) lie between",
            )
        ran = [v for v in tables.versions(timeline.table) if v in lines and lines[v].error_kind != tables.COULD_NOT_RUN]
        if oldest_ran is not None and ran[0] != oldest_ran:
            return "refuted", f"the oldest release that ran {scenario} is {ran[0]}, not {oldest_ran}"
        start = since or oldest_ran
        if start is not None and start not in ran:
            return "not testable", f"{start} not measured (or could not run) on {scenario}"
        up_to = ran[ran.index(start or ran[0]) : ran.index(last_before) + 1]
        from_on = ran[ran.index(first_with) :] if lasting else [first_with]
        for stretch, (holds, words) in ((up_to, was), (from_on, became)):
            for version in stretch:
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
        unran_words = f" ({', '.join(unran)}, between them, could not)" if unran else ""
        next_one = f"the next release {'that ran' if unran else 'served'}{unran_words}"
        before, after = (tables.describe(lines[v].behaviour, lines[v].error_kind) for v in (last_before, first_with))
        return "confirmed", (
            f"{_stretch(up_to)} {was[1]} ({last_before}: {before}); "
            f"{_stretch(from_on, first=next_one, last='the newest that ran')} {became[1]} "
            f"({first_with}: {after})"
        )

    check.next_served = next_served  # what the claim says of the releases between (held to its words by a test)
    return check


@check_factory
def resolved_earlier(timeline: Timeline, first_with: str, last_before: str) -> tuple[Status, str]:
    """The claim that ``first_with`` was measured with dependencies resolved as of an earlier date than those of
    ``last_before``, the release before it: a change between them may be the environment's, not the release's."""
    dates = [timeline.resolved.get(version) for version in (first_with, last_before)]
    if None in dates:
        return "not testable", f"the timeline notes no resolution date of {first_with} or {last_before}"
    if dates[0] >= dates[1]:  # both ISO 8601 UTC
        return "refuted", f"{first_with} was resolved as of {dates[0]}, not before {last_before} ({dates[1]})"
    return "confirmed", f"{first_with} was resolved as of {dates[0]}, before {last_before} ({dates[1]})"


def each(*checks: RangeCheck, likewise: Mapping[str, RangeCheck] | None = None) -> RangeCheck:
    """The claim that every one of ``checks`` holds (one change seen on several probes), and each of ``likewise`` (by
    probe) too. Its verdict is the first that is not confirmed (one of ``likewise`` prefixed with its probe), else
    the evidence of each of ``checks`` and then "likewise on" the probes of ``likewise``, whose evidence would only
    repeat the same once a probe."""
    others = likewise or {}

    def check(timeline: Timeline) -> tuple[Status, str]:
        evidence = []
        for one in checks:
            status, text = one(timeline)
            if status != "confirmed":
                return status, text
            evidence.append(text)
        for probe, one in others.items():
            status, text = one(timeline)
            if status != "confirmed":
                return status, f"{probe}: {text}"
        if others:
            evidence.append(f"likewise on {', '.join(others)}")
        return "confirmed", "; ".join(evidence)

    check.next_served = any(getattr(one, "next_served", False) for one in (*checks, *others.values()))
    return check


def _wire(line, on: frozenset[str] = tables.WIRE_FIELDS) -> tuple:
    """What a line did on the wire (the fields ``on``, by default every one of
    :data:`~probe_lib.analysis.timeline.WIRE_FIELDS`, and its outcome kind): the client's wording of the scripted
    answer's error is left out."""
    stored = line.behaviour.to_json()
    return line.error_kind, json.dumps({k: stored.get(k) for k in sorted(on)}, sort_keys=True)


@check_factory
def unchanged(
    timeline: Timeline, first: str, last: str, holds: Mapping[str, Holds], *, ran: int, measured: int
) -> tuple[Status, str]:
    """The claim "on the ``ran`` releases that ran of the ``measured`` measured from ``first`` (the first the harness
    runs) to ``last`` (the newest), which include the newest of each minor series served between them, every probe
    behaves alike on the wire, and each probe of ``holds`` does what it states on each of them"."""
    table = tables.ran(timeline.table)
    runs = tables.versions(table)
    if not runs:
        raise CheckError(f"no {timeline.framework} release in the timeline ran")
    if (runs[0], runs[-1]) != (first, last):
        return "refuted", f"the releases that ran span {runs[0]} to {runs[-1]}, not {first} to {last}"
    span = timeline.releases[timeline.releases.index(first) : timeline.releases.index(last) + 1]
    measured_versions = set(timeline.table["version"])
    in_span = [version for version in span if version in measured_versions]
    if (len(runs), len(in_span)) != (ran, measured):
        return "refuted", (
            f"{len(runs)} releases ran of the {len(in_span)} measured from {first} to {last}, not {ran} of {measured}"
        )
    series = framework_sweep.subject(timeline.framework).series
    newest = {series(version): version for version in span}
    if unsampled := [version for version in newest.values() if version not in in_span]:
        return "refuted", f"the newest of a minor series was not measured: {', '.join(unsampled[:5])}"
    for scenario, rows in table.groupby("scenario"):
        states = {_wire(line) for line in rows.itertuples()}
        if len(states) > 1:
            seen = [line.version for line in rows.itertuples()]
            return "refuted", f"{scenario} changes on the wire between {seen[0]} and {seen[-1]}"
    for scenario, (test, words) in holds.items():
        lines = list(table[table["scenario"] == scenario].itertuples())
        if not lines:
            raise CheckError(f"no {timeline.framework} release ran {scenario!r}")
        if wrong := [line.version for line in lines if not test(line.behaviour, line.error_kind)]:
            return "refuted", f"{scenario} did not {words} on {', '.join(wrong[:5])}"
    unrunnable = [version for version in in_span if version not in runs]
    earlier = len([v for v in measured_versions - set(runs) if v not in span])
    first_lines = {scenario: next(table[table["scenario"] == scenario].itertuples()) for scenario in holds}
    said = "; ".join(
        f"{scenario} {words} ({tables.describe(first_lines[scenario].behaviour, '')})"
        for scenario, (_, words) in holds.items()
    )
    skipped = f"; could not run: {', '.join(unrunnable)}" if unrunnable else ""
    skipped += f"; {earlier} measured before {first} could not run" if earlier else ""
    return "confirmed", (
        f"{table['scenario'].nunique()} scenarios (the probes' plain, forced and round-trip runs) alike on the "
        f"wire on the {ran} releases that ran of the {measured} measured from {first} to {last} (the newest of "
        f"each of its {len(newest)} minor series among them; {len(timeline.releases)} served in all); "
        f"{said}{skipped}"
    )


def raises(text: str) -> Holds:
    """Sends nothing and raises an error whose message holds ``text``."""
    return (
        lambda b, kind: not b.sent and b.error is not None and text in (b.error.message or ""),
        f"raise {text!r} before sending",
    )


def _stretch(versions: list[str], *, first: str = "", last: str = "") -> str:
    """The subject of a claim's bare verb (``send ...``) for the releases that ran ``versions``: "the 11 releases
    that ran from 0.0.7 to 0.3.7", or "0.3.7 is measured to" for one; ``first`` and ``last`` describe the first
    and the last release ("the next release served")."""
    start = f"{versions[0]}, {first}," if first else versions[0]
    if len(versions) == 1:
        return f"{start} is measured to"
    return f"the {len(versions)} releases that ran from {start} to " + (
        f"{last}, {versions[-1]}," if last else versions[-1]
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


#: Sends a request whose tool_choice forces one of the tools it sends.
FORCES_ONE_IT_SENDS: Holds = (
    lambda b, kind: b.sent and b.error is None and wire.forced_by(b.tool_choice) in (b.names or ()),
    "send the request, forcing a tool it sends",
)


def both(first: Holds, second: Holds) -> Holds:
    """Does ``first`` and ``second`` on the same run."""
    return (lambda b, kind: first[0](b, kind) and second[0](b, kind)), f"{first[1]} and {second[1]}"


def runs_the_call(ran: bool) -> Holds:
    """Sends its request, and a tool runs on the scripted reply's call (``ran``: the timeline counts the tools run, not
    which) or nothing runs."""
    words = "run a tool on the model's call (how many, not which)" if ran else "run nothing of what the model called"
    return (lambda b, kind: b.sent and ((b.executions or 0) > 0) == ran), words


def failed_as(kind: str) -> Holds:
    """Sends nothing: fails with outcome kind ``kind`` (``rejected``, ``collision``, ``crash``), or the kit's runner
    declares the release unable (``not applicable``: nothing is tried)."""
    unable = kind == "not applicable"
    words = "get declared unable by the kit's runner, nothing tried" if unable else "fail before sending"
    return (lambda b, k: k == kind and not b.sent), f"{words} ({kind})"


def sends(name: str) -> Holds:
    """Sends a request whose tools include ``name``."""
    return (lambda b, kind: name in (b.names or ())), f"send {name}"


def worded(holds: Holds, words: str) -> Holds:
    """``holds``'s test in a claim's own words."""
    return holds[0], words


def scenario_lines(timeline: Timeline, scenario: str, *, expressible_only: bool = True) -> list:
    """The scenario's lines that sent a request, in the timeline's order; with ``expressible_only=False`` also those
    that could not express it (a feature's absence is then the measurement)."""
    lines = [
        line
        for line in timeline.table[timeline.table["scenario"] == scenario].itertuples()
        if not tables.sent_nothing(line) or (not expressible_only and line.error_kind == tables.NOT_APPLICABLE)
    ]
    if not lines:
        raise CheckError(f"no version in the timeline ran scenario {scenario!r}")
    return lines


def crashed_note(timeline: Timeline, scenario: str, *, expressible_only: bool = True) -> str:
    """Which versions could not express ``scenario`` (unless counted in, ``expressible_only=False``) or crashed
    before sending anything on it (left out of the claim), or nothing."""
    lines = list(timeline.table[timeline.table["scenario"] == scenario].itertuples())
    unable = [line.version for line in lines if line.error_kind == tables.NOT_APPLICABLE] if expressible_only else []
    left_out = (
        ("could not express it", unable),
        ("crashed before any request", [line.version for line in lines if tables.crashed_before_sending(line)]),
    )
    return "".join(f"; left out, {why}: {', '.join(versions)}" for why, versions in left_out if versions)


@check_factory
def begins_at(
    timeline: Timeline, scenario: str, stated: str, holds: Holds, *, expressible_only: bool = True
) -> tuple[Status, str]:
    """The claim "``holds`` from ``stated`` on, on every measured version, and on no version before it" (on a
    timeline of every served version, in semver order): refuted by any measured exception. ``expressible_only``
    as :func:`scenario_lines`."""
    test, what = holds
    lines = scenario_lines(timeline, scenario, expressible_only=expressible_only)
    before = [line.version for line in lines if version_key(line.version) < version_key(stated)]
    since = [line for line in lines if version_key(line.version) >= version_key(stated)]
    if not before or not since or since[0].version != stated:
        return "not testable", f"{scenario} was not measured on {stated} and a version before it"
    early = [line.version for line in lines[: len(before)] if test(line.behaviour, line.error_kind)]
    late = [line.version for line in since if not test(line.behaviour, line.error_kind)]
    if early or late:
        exceptions = "; ".join(
            part
            for part in (
                f"already on {', '.join(early[:5])}" if early else "",
                f"not on {', '.join(late[:5])}" if late else "",
            )
            if part
        )
        return "refuted", f"{what}: {exceptions} ({len(lines)} versions ran {scenario})"
    unable = sum(line.error_kind == tables.NOT_APPLICABLE for line in lines[: len(before)])
    return "confirmed", (
        f"{what} on all {len(since)} measured versions from {stated} ({since[-1].version} the "
        f"newest), on none of the {len(before)} before it (last: {before[-1]}"
        + (f"; {unable} of them could not express it" if unable else "")
        + f"); on {stated}: {tables.describe(since[0].behaviour, '')}"
        + crashed_note(timeline, scenario, expressible_only=expressible_only)
    )
