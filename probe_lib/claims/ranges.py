"""The ledger's version-range claims (since when, until when): each judged once, on the timeline of every swept
version, and each able to fail.

A :class:`~probe_lib.claims.since.Timeline` holds Mastra's lines of the committed timeline with this run's versions
laid over them, named by the versions it spans; the checks are written in the since-when language of
:mod:`probe_lib.claims.since` (:func:`~probe_lib.claims.since.begins_at` and its statements of what a version does),
the other frameworks' too, with the tabulating functions of :mod:`probe_lib.analysis.timeline` where a claim reads
more than one change. Each check is registered under its claim id where it is written.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from probe_lib import wire
from probe_lib.analysis.timeline import (
    NOT_APPLICABLE,
    active_tools_honoured,
    forced_by_rewritten_key,
    honours_active_tools,
    laid_over_source,
    laid_over_summary,
    versions,
)
from probe_lib.claims.registry import claim
from probe_lib.claims.since import Timeline, begins_at, crashed_note, scenario_lines, sends, worded
from probe_lib.claims.verdict import Status
from probe_lib.core.outcome import Outcome
from probe_lib.core.target import version_key
from probe_lib.tables.evidence import CheckError


def timeline(pinned: Mapping[str, Mapping[str, Outcome]]) -> Timeline:
    """Mastra's timeline, which these claims are judged on: its committed lines with the outcomes of the ``pinned``
    versions laid over them, and how they were measured."""
    return Timeline.of(laid_over_summary(pinned), source=laid_over_source())


#: Search.web rewritten: the normaliser at work (V01).
_REWRITTEN = worded(sends("search_web"), "search.web goes out as search_web")


@claim("V01", on="timeline", quantified=("single-rewrite",))
def _normaliser_arrives(timeline: Timeline) -> tuple[Status, str]:
    status, text = begins_at("single-rewrite", "0.13.2", _REWRITTEN)(timeline)
    if status != "confirmed":
        return status, text
    before = [
        line for line in scenario_lines(timeline, "single-rewrite") if version_key(line.version) < version_key("0.13.2")
    ]
    if altered := [line.version for line in before if line.behaviour.names != ("search.web",)]:
        return "refuted", f"before 0.13.2, search.web was not sent verbatim on {', '.join(altered[:5])}"
    return "confirmed", f"{text}; all {len(before)} before it sent search.web verbatim"


@claim("V02", on="timeline", quantified=("choice-by-key",))
def _passthrough_never_fixed(timeline: Timeline) -> tuple[Status, str]:
    lines = forced_by_rewritten_key(timeline.table)
    if not lines:
        return "not testable", "no measured version both rewrites search.web and runs choice-by-key"
    for line in lines:
        forced = wire.forced_by(line.behaviour.tool_choice)
        if forced != "search.web":
            return "refuted", f"on {line.version} tool_choice forces {forced!r}, not search.web"
        if "search.web" in line.behaviour.names:
            return "refuted", f"on {line.version} search.web is among the tools sent: {list(line.behaviour.names)}"
    return "confirmed", (
        f"on all {len(lines)} measured versions that send search_web ({lines[0].version} to "
        f"{lines[-1].version}), tool_choice names search.web, a function the tools sent lack"
        f"{crashed_note(timeline, 'choice-by-key')}"
    )


@claim("V03", on="timeline", quantified=("active-tools-by-key", "active-tools-by-wire-name"))
def _active_tools_stretches(timeline: Timeline) -> tuple[Status, str]:
    lines = scenario_lines(timeline, "active-tools-by-key")

    def stated(version: str) -> bool:  # honoured on 0.20.0..0.24.9 and from 1.1.0 on
        at = version_key(version)
        return version_key("0.20.0") <= at <= version_key("0.24.9") or at >= version_key("1.1.0")

    stable_1_0 = [v for v in versions(timeline.table) if version_key(v)[:2] == (1, 0)]
    if stable_1_0 != ["1.0.4"]:
        return "refuted", f"the stable 1.0 releases swept are {stable_1_0}, not 1.0.4 alone"
    wrong = [line.version for line in lines if honours_active_tools(line.behaviour) != stated(line.version)]
    found = "; ".join(f"{a}..{b}" for a, b in active_tools_honoured(timeline.table)) or "no version"
    if wrong:
        return (
            "refuted",
            f"activeTools ['search.web'] leaves plain out on {found}; otherwise than stated on {', '.join(wrong[:5])}",
        )
    # Where honoured, as a filter: by the key it selects nothing, by the wire name that tool alone; elsewhere the
    # wire name leaves plain in too.
    selected = {"active-tools-by-key": (), "active-tools-by-wire-name": ("search_web",)}
    for scenario, names in selected.items():
        for line in scenario_lines(timeline, scenario):
            if stated(line.version) and line.behaviour.names != names:
                return "refuted", f"where honoured, {scenario} did not send {list(names)} on {line.version}"
            if not stated(line.version) and honours_active_tools(line.behaviour):
                return "refuted", f"{scenario} left plain out on {line.version}, where activeTools is ignored"
    return (
        "confirmed",
        f"activeTools ['search.web'] leaves plain out on {found}, sending no tool there (by the wire name "
        f"search_web alone, on every one of those versions that ran it); plain is sent on the other "
        f"{sum(not stated(line.version) for line in lines)} measured versions, 1.0.4 the one stable 1.0 release "
        f"among them{crashed_note(timeline, 'active-tools-by-key')}",
    )


@claim("V04", on="timeline")
def _choice_none_changes(timeline: Timeline) -> tuple[Status, str]:
    lines = scenario_lines(timeline, "choice-none")
    with_tools = [line.version for line in lines if line.behaviour.names and line.behaviour.tool_choice == "none"]
    without = [line.version for line in lines if not line.behaviour.names and line.behaviour.tool_choice is None]
    other = [line.version for line in lines if line.version not in with_tools and line.version not in without]
    if other:
        return "refuted", f"toolChoice 'none' sent something else on {', '.join(other[:5])}"
    if not with_tools or not without or version_key(with_tools[-1]) >= version_key(without[0]):
        return (
            "refuted",
            f"tools with 'none' on {', '.join(with_tools[-3:]) or 'no version'}; no tools on "
            f"{', '.join(without[:3]) or 'no version'}: not one switch from the first to the second",
        )
    if (with_tools[-1], without[0]) != ("1.18.0", "1.19.0"):
        return "refuted", f"the switch is between {with_tools[-1]} and {without[0]}, not 1.18.0 and 1.19.0"
    return "confirmed", (
        f"tools with tool_choice 'none' on the {len(with_tools)} versions from {with_tools[0]} to {with_tools[-1]}; "
        f"no tools and no tool_choice on the {len(without)} from {without[0]} to {without[-1]}"
        f"{crashed_note(timeline, 'choice-none')}"
    )


#: The built-ins the claim says arrive together at 1.42.0 (six), and the one that joins them at 1.54.0.
_FIRST_BUILTINS = 6
_LATER_BUILTIN = "webFetchTool"
_BUILTINS_SENT = (lambda b, kind: bool(b.names)), "built-in tools registered by export name are sent"


@claim("V05", on="timeline", quantified=("builtins-by-export",))
def _builtins_arrive(timeline: Timeline) -> tuple[Status, str]:
    # A version that exports no built-in cannot register them: counted as "not sent", not left out.
    first = begins_at("builtins-by-export", "1.42.0", _BUILTINS_SENT, expressible_only=False)(timeline)
    web_fetch = begins_at(
        "builtins-by-export",
        "1.54.0",
        worded(sends(_LATER_BUILTIN), f"{_LATER_BUILTIN} is among them"),
        expressible_only=False,
    )(timeline)
    for status in ("refuted", "not testable"):
        if status in (first[0], web_fetch[0]):
            return status, "; ".join(text for verdict, text in (first, web_fetch) if verdict == status)
    lines = scenario_lines(timeline, "builtins-by-export", expressible_only=False)
    early = [line for line in lines if version_key(line.version) < version_key("1.42.0")]
    if expressed := [line.version for line in early if line.error_kind != NOT_APPLICABLE]:
        return "refuted", f"before 1.42.0, {', '.join(expressed[:5])} could register built-ins (not 'not applicable')"
    lacking = {"built-in tools": [], "Agent class": []}  # what the error says a version exports no ... of
    for line in early:
        why = next((what for what in lacking if f"exports no {what}" in line.behaviour.error.message), None)
        if why is None:
            return "refuted", f"before 1.42.0, {line.version} could not register built-ins for another reason"
        lacking[why].append(line.version)
    sent = [line for line in lines if line.behaviour.names]
    expected = {line.version: _FIRST_BUILTINS + (version_key(line.version) >= version_key("1.54.0")) for line in sent}
    if miscounted := [
        f"{line.version} ({len(line.behaviour.names)})"
        for line in sent
        if len(line.behaviour.names) != expected[line.version]
    ]:
        return "refuted", (
            f"not {_FIRST_BUILTINS} built-ins from 1.42.0 and {_FIRST_BUILTINS + 1} from 1.54.0: "
            f"sent {', '.join(miscounted[:5])}"
        )
    if lost := [line.version for line in sent if not set(sent[0].behaviour.names) <= set(line.behaviour.names)]:
        return "refuted", f"the first {_FIRST_BUILTINS} built-ins were not all sent on {', '.join(lost[:5])}"
    return "confirmed", (
        f"{web_fetch[1].split(', on none of')[0]}; {first[1]}; {_FIRST_BUILTINS} built-ins on each version from "
        f"1.42.0 ({', '.join(sent[0].behaviour.names)}), {_LATER_BUILTIN} the seventh from 1.54.0; before 1.42.0, "
        + " and ".join(
            f"{len(found)} versions ({found[0]} to {found[-1]}) export no {what}"
            for what, found in lacking.items()
            if found
        )
    )


#: The betas V06 says honour activeTools (1.0.0-beta.2 to beta.9), and those that leave search_web out of rewrite-rules.
_BETAS_HONOURING = ("2", "9")
_BETAS_DROPPING = ("1.0.0-beta.20", "1.0.0-beta.21")
#: Scenario -> the tools those two betas leave out of its request, which 1.0.4 and the other betas send.
_DROPPED_BY_THEM = {
    "rewrite-rules": ("search_web",),
    "rewrite-rules-responses": ("search_web",),
    "rewrite-rules-messages": ("search_web",),
    "integer-keys": ("x_y",),
    "client-tools": ("client_tool",),
    "sub-agents-workflows": ("agent-research_bot", "workflow-etl_job"),
    "toolsets": ("set_tool",),
}
_BETA = "1.0.0-beta."
_AGAINST = "1.0.4"
#: V06's counts: the betas the sweep measured (every one the registry served at the last sweep), those after beta.9,
#: those sending search_web.
_BETAS_SERVED, _BETAS_LATER, _BETAS_SENDING = 16, 10, 14


@claim("V06", on="timeline")
def _betas_against_1_0_4(timeline: Timeline) -> tuple[Status, str]:
    apart = timeline.prereleases
    betas = [] if apart is None else [v for v in versions(apart) if v.startswith(_BETA)]
    if not betas or _AGAINST not in set(timeline.table["version"]):
        return "not testable", f"the timeline holds no 1.0.0 beta or no {_AGAINST}"
    both = pd.concat([timeline.table[timeline.table["version"] == _AGAINST], apart[apart["version"].isin(betas)]])

    def line(version: str, scenario: str):
        found = both[(both["version"] == version) & (both["scenario"] == scenario)]
        if found.empty:
            raise CheckError(f"{version} has no {scenario} line")
        return next(found.itertuples())

    low, high = (int(n) for n in _BETAS_HONOURING)
    honouring = {v for v in betas if low <= int(v.removeprefix(_BETA)) <= high}
    later = [v for v in betas if int(v.removeprefix(_BETA)) > high]
    counts = (len(betas), len(later), len(betas) - len(_BETAS_DROPPING))
    if counts != (_BETAS_SERVED, _BETAS_LATER, _BETAS_SENDING):
        return "refuted", (
            f"{counts[0]} betas measured, {counts[1]} after beta.{high}, {counts[2]} besides those dropping search_web;"
            f" not {_BETAS_SERVED}, {_BETAS_LATER} and {_BETAS_SENDING}"
        )
    wrong = [
        v
        for v in [_AGAINST, *betas]
        if honours_active_tools(line(v, "active-tools-by-key").behaviour) != (v in honouring)
    ]
    if wrong:
        return "refuted", f"activeTools ['search.web'] leaves plain out otherwise than stated on {', '.join(wrong)}"
    with_tools = [v for v in sorted(honouring, key=version_key) if line(v, "active-tools-by-key").behaviour.names]
    if with_tools:
        return "refuted", f"activeTools ['search.web'] still sends tools on {', '.join(with_tools)}"
    unrun = []
    for scenario, tools in _DROPPED_BY_THEM.items():
        sent = {v: line(v, scenario).behaviour.names for v in [_AGAINST, *betas]}
        unrun += [f"{scenario} on {v}" for v, names in sent.items() if names is None]
        for tool in tools:
            dropping = [v for v, names in sent.items() if names is not None and tool not in names]
            if dropping != list(_BETAS_DROPPING):
                return "refuted", f"{scenario} sends no {tool} on {', '.join(dropping) or 'no version'}"
        for beta in _BETAS_DROPPING:
            if sent[beta] is not None and (lost := set(sent[_AGAINST]) - set(sent[beta])) != set(tools):
                return "refuted", f"{beta} leaves {sorted(lost)} out of {scenario}'s request, not {sorted(tools)}"
    swept = set(both.loc[both["version"] == _BETAS_DROPPING[0], "scenario"])  # newer scenarios ran on the pins only
    against = timeline.table[(timeline.table["version"] == _AGAINST) & timeline.table["scenario"].isin(swept)]
    for reference in against.itertuples():
        for beta in _BETAS_DROPPING:
            there = line(beta, reference.scenario).behaviour.names or ()
            lost = set(reference.behaviour.names or ()) - set(there)
            if lost and reference.scenario not in _DROPPED_BY_THEM:
                return "refuted", f"{beta} also leaves {sorted(lost)} out of {reference.scenario}'s request"
    reference = {r.scenario: r.outcome for r in both[both["version"] == _AGAINST].itertuples()}
    by_scenario = both[both["version"].isin(betas) & both["scenario"].isin(list(reference))].groupby("scenario")
    alike = sum(all(r.outcome == reference[scenario] for r in rows.itertuples()) for scenario, rows in by_scenario)
    return "confirmed", (
        f"activeTools ['search.web'] leaves plain out, and sends no tools, on {len(honouring)} betas "
        f"({min(honouring, key=version_key)} to {max(honouring, key=version_key)}), "
        f"sends plain on the other {len(betas) - len(honouring)} and on "
        f"{_AGAINST}; {' and '.join(_BETAS_DROPPING)} leave out "
        + ", ".join(f"{' and '.join(tools)} ({scenario})" for scenario, tools in _DROPPED_BY_THEM.items())
        + f", which {_AGAINST} and the other {len(betas) - len(_BETAS_DROPPING)} betas send"
        + (f" (not run: {', '.join(unrun)})" if unrun else "")
        + f"; {alike} of {by_scenario.ngroups} scenarios behave as on {_AGAINST} on all {len(betas)} betas"
    )
