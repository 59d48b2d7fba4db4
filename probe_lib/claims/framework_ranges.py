"""The ledger's release-range claims about the other frameworks (since when each behaves as it does now), each
judged once on that framework's committed timeline (``data/timeline.csv``,
:mod:`probe_lib.history.timeline`).

A claim names one matrix probe of one framework, the last release before a change and the first with it, and what
each does, written out as measured (never computed by the kit), in the words of :mod:`probe_lib.claims.since`
(:func:`~probe_lib.claims.since.changed_at`, :func:`~probe_lib.claims.since.unchanged`), the language Mastra's
version-range claims are written in too.
"""

from __future__ import annotations

from probe_lib.analysis import timeline as tables
from probe_lib.claims.registry import register
from probe_lib.claims.since import (
    FORCES_ONE_IT_SENDS,
    TOOLS_RUN,
    TOOLS_SENT,
    Holds,
    RangeCheck,
    Timeline,
    both,
    changed_at,
    each,
    failed_as,
    forces,
    names,
    raises,
    resolved_earlier,
    runs_the_call,
    sends_choice,
    unchanged,
)
from probe_lib.claims.verdict import MASTRA
from probe_lib.history import timeline as committed
from probe_lib.measure.matrix_runs import PROBES


def timelines(frameworks: set[str] | None = None) -> dict[str, Timeline]:
    """Each other framework's committed timeline, with every release of its swept range and what it is judged on, as
    the ledger's ``source`` column says it (those of ``frameworks`` only, when given; none before the first
    ``probe-lib sweep --framework NAME --write``). Mastra's, with its pinned versions laid over it, is
    :func:`probe_lib.claims.ranges.timeline`."""
    if not committed.TIMELINE_PATH.exists():
        return {}
    lines = committed.read(frameworks)
    releases = committed.read_releases()
    path = committed.TIMELINE_PATH.relative_to(committed.paths.ROOT).as_posix()
    source = f"recorded, the committed {path} (measured live by `probe-lib sweep --framework NAME --write`)"
    found = {}
    for framework in sorted({line.framework for line in lines} - {MASTRA}):
        own = [line for line in lines if line.framework == framework]
        served = tuple(r.version for r in releases if r.framework == framework)
        found[framework] = Timeline.of(tables.frame(own), releases=served, source=source)
    return found


#: The OpenAI Agents JS SDK forced a key it sent rewritten up to 0.5.4 and refuses it from 0.6.0: one change, judged
#: through either model (Responses, T07; Chat Completions, T20).
AGENTS_JS_CHECKS_A_FORCED_KEY = changed_at(
    "dot+forced",
    "0.5.4",
    "0.6.0",
    both(names(["search_web", "plain"]), forces("search.web")),
    raises('modelSettings.toolChoice="search.web" does not match any available tool'),
    next_served=True,
)


def every_call_runs_from(before: str, after: str, **observed) -> RangeCheck:
    """The call the model makes starts to run at ``after``, the dotted key's and the legal key's alike: a change
    point that is not about names."""
    return each(
        *(
            changed_at(probe, before, after, runs_the_call(False), runs_the_call(True), next_served=True, **observed)
            for probe in ("dot+round-trip", "legal+round-trip")
        )
    )


#: The matrix's forced probes of two keys besides the dot probe's, which LangChain refuses alike up to 0.1.5 (T23).
TWO_KEYS_FORCED = tuple(
    sorted(probe.name for probe in PROBES if probe.forced and len(probe.keys) == 2 and probe.name != "dot")
)


def forced_with_two_tools_from(probe: str, became: Holds) -> RangeCheck:
    """LangChain's change at 0.1.6 on one forced probe of two keys: refused before sending up to 0.1.5, ``became``
    from 0.1.6 on."""
    refused = raises("When specifying `tool_choice`, you must provide exactly one tool. Received 2 tools.")
    return changed_at(f"{probe}+forced", "0.1.5", "0.1.6", refused, became, oldest_ran="0.0.4", next_served=True)


#: The dot probe's keys sent as registered, and forcing one names it as registered: what an unchanged framework does.
KEYS_AS_REGISTERED = {"dot": names(["search.web", "plain"]), "dot+forced": forces("search.web")}
#: The dot+forced probe's request as registered: its keys sent unchanged, forcing search.web by its key.
FORCED_AS_REGISTERED = both(names(["search.web", "plain"]), forces("search.web"))

#: Each claim id of data/claims.csv -> the framework whose committed timeline judges it, and its check.
_CLAIMS: dict[str, tuple[str, RangeCheck]] = {
    "T01": (
        "autogen",
        changed_at(
            "unregistered-choice+forced",
            "0.6.1",
            "0.6.2",
            raises("unexpected keyword argument 'tool_choice'"),
            raises("tool_choice references 'missing' but it's not in the provided tools"),
            next_served=True,
        ),
    ),
    "T03": (
        "langchain",
        changed_at(
            "unregistered-choice+forced",
            "0.3.7",
            "0.3.9",
            sends_choice({"function": {"name": "missing"}, "type": "function"}),
            sends_choice("missing"),
            since="0.0.7",  # before it, refused (T06)
        ),
    ),
    "T06": (
        "langchain",
        changed_at(
            "unregistered-choice+forced",
            "0.0.6",
            "0.0.7",
            raises("was specified, but the only provided tool was plain"),
            sends_choice({"function": {"name": "missing"}, "type": "function"}),
            lasting=False,
            next_served=True,
        ),
    ),
    "T23": (
        "langchain",
        each(
            forced_with_two_tools_from("dot", FORCED_AS_REGISTERED),
            likewise={
                f"{probe}+forced": forced_with_two_tools_from(probe, FORCES_ONE_IT_SENDS) for probe in TWO_KEYS_FORCED
            },
        ),
    ),
    "T07": ("openai-agents-js", AGENTS_JS_CHECKS_A_FORCED_KEY),
    "T08": (
        "openai-agents-js",
        changed_at(
            "collision",
            "0.14.2",
            "0.14.3",
            names(["search_web", "search_web"]),
            names(["search_web"]),
            next_served=True,
        ),
    ),
    "T09": (
        "llama-index",
        changed_at(
            "dot+forced",
            "0.14.10",
            "0.14.12",
            FORCED_AS_REGISTERED,
            both(names(["search_web", "plain"]), forces("search.web")),
            oldest_ran="0.11.5",
            next_served=True,
        ),
    ),
    "T10": (
        "llama-index",
        changed_at(
            "dot+round-trip",
            "0.14.10",
            "0.14.12",
            runs_the_call(True),
            runs_the_call(False),
            oldest_ran="0.11.5",
            next_served=True,
        ),
    ),
    "T02": ("openai-agents", unchanged("0.0.2", "0.24.0", KEYS_AS_REGISTERED, ran=26, measured=26)),
    "T04": ("langchain-js", unchanged("0.0.1", "1.6.0", KEYS_AS_REGISTERED, ran=15, measured=15)),
    "T11": ("openai", unchanged("0.27.0", "3.57.0", KEYS_AS_REGISTERED, ran=223, measured=225)),
    "T12": (
        "pydantic-ai",
        changed_at(
            "dot+forced",
            "1.92.0",
            "1.93.0",
            failed_as("not applicable"),
            FORCED_AS_REGISTERED,
            since="0.0.12",
            next_served=True,
        ),
    ),
    "T13": (
        "pydantic-ai",
        changed_at(
            "unregistered-choice+forced",
            "1.92.0",
            "1.93.0",
            failed_as("not applicable"),
            raises("Invalid tool names in `tool_choice`: {'missing'}"),
            since="0.0.12",
            lasting=False,
        ),
    ),
    "T14": (
        "crewai",
        changed_at(
            "collision",
            "1.10.0",
            "1.10.1",
            names(["search_web", "search_web"]),
            names(["search_web", "search_web_2"]),
            oldest_ran="1.9.3",
            next_served=True,
        ),
    ),
    "T15": (
        "crewai",
        changed_at(
            "length-70",
            "1.10.0",
            "1.10.1",
            names(["b" * 64, "plain"]),
            names(["b" * 55 + "_b9444034", "plain"]),
            oldest_ran="1.9.3",
            next_served=True,
        ),
    ),
    "T16": (
        "claude-agent-sdk",
        changed_at(
            "dot",
            "0.2.81",
            "0.2.83",
            names(["mcp__probe__search_web", "mcp__probe__plain"]),
            names(["mcp__probe__plain", "mcp__probe__search_web"]),
            on=TOOLS_SENT,
            next_served=True,
        ),
    ),
    "T17": (
        "claude-agent-sdk",
        changed_at(
            "collision",
            "0.2.49",
            "0.2.50",
            names(["mcp__probe__search_web", "mcp__probe__search_web"]),
            names(["mcp__probe__search_web"]),
            on=TOOLS_SENT,
            next_served=True,
        ),
    ),
    "T18": (
        "claude-agent-sdk",
        each(every_call_runs_from("0.0.4", "0.1.0", on=TOOLS_RUN), resolved_earlier("0.1.0", "0.0.4")),
    ),
    "T19": ("openai-agents-chat", unchanged("0.0.2", "0.24.0", KEYS_AS_REGISTERED, ran=26, measured=26)),
    "T20": ("openai-agents-js-chat", AGENTS_JS_CHECKS_A_FORCED_KEY),
    "T21": ("openai-agents-js-chat", every_call_runs_from("0.0.2", "0.0.3")),
    "T22": ("openai-responses", unchanged("1.66.0", "3.57.0", KEYS_AS_REGISTERED, ran=156, measured=156)),
    "T05": (
        "ai-sdk",
        changed_at(
            "dot", "3.1.15", "3.1.16", sends_choice(None), sends_choice("auto"), oldest_ran="3.1.0", next_served=True
        ),
    ),
}
for claim_id, (framework, check) in _CLAIMS.items():
    register(claim_id, check, on="timeline", framework=framework)
