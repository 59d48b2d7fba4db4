"""The ledger's claims about the other frameworks, each judged on that framework's framework-matrix outcomes.

Every claim of ``data/claims.csv`` checked here is about one framework (the adapter it registers under) and reads
the matrix's runs of that framework at one version, live or recorded (``probe_lib.measure.matrix_runs``): ``PROBE``
(the keys registered alone), ``PROBE+forced`` (one key forced by the key) and ``PROBE+round-trip`` (the model
calling the first key by the name the plain run sent for it); the Claude Agent SDK's claims also read its list
probes (``LIST=SPELLING``, :mod:`probe_lib.measure.permission_runs`), judged with its target. Expected names and
error texts are written out in each claim, as measured and as each framework's source states them, never computed
by the kit; so a framework that changes makes its claim refuted, and a run that is missing makes it failed.

A claim's check is built from small clauses (:func:`sends`, :func:`refuses`, :func:`forces`, :func:`round_trip`),
all of which must hold; :func:`on_target` registers each claim's framework and check.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterable, Mapping, Sequence

from probe_lib.analysis import permissions
from probe_lib.analysis.measured import letter_run
from probe_lib.claims.registry import check_factory, register
from probe_lib.claims.verdict import MASTRA, Status
from probe_lib.core.outcome import Outcome, called_name, quoted, wire_names_by_key
from probe_lib.core.scenarios import FORCED, ROUND_TRIP
from probe_lib.frameworks.keyed import forced_key
from probe_lib.measure.matrix_runs import PROBES
from probe_lib.measure.permission_runs import LISTS, SPELLINGS, WIRE_NAME
from probe_lib.measure.permission_runs import PROBES as LIST_PROBES
from probe_lib.providers import name_rules
from probe_lib.tables.evidence import Evidence

Clause = Callable[[Evidence], tuple[bool, str]]
_KEY_FAMILIES = ("dot", "space", "colon-slash", "accent", "emoji")
#: The probes forcing one of their own keys (not ``unregistered-choice``, which forces a name no tool has).
_FORCED_KEYS = tuple(probe.name for probe in PROBES if probe.forced is not None and probe.forced in probe.keys)
#: The probes whose first key outside a-zA-Z0-9_- is that key (the one a refusal names), by probe.
_ILLEGAL_KEYS = {
    "dot": "search.web",
    "space": "my tool",
    "colon-slash": "ns:read/file",
    "accent": "météo",
    "emoji": "weather😀",
    "mcp-prefixed": "github.create_issue",
    "integer-order": "x.y",
    "collision": "search.web",
}
#: The probes forcing one of their own keys whose first key is outside a-zA-Z0-9_-.
_ILLEGAL_FORCED = tuple(probe for probe in _FORCED_KEYS if probe in _ILLEGAL_KEYS)


def _python_name(key: str) -> bool:
    """What smolagents accepts as a tool name: a Python identifier that is not a reserved keyword."""
    return key.isidentifier() and not keyword.iskeyword(key)


#: The matrix's probes whose keys are not all Python names -> the first key that is not (the one smolagents names).
_SMOLAGENTS_REFUSED = {
    probe.name: next(key for key in probe.keys if not _python_name(key))
    for probe in PROBES
    if not all(map(_python_name, probe.keys))
}


def _error(outcome: Outcome) -> str:
    return " <- ".join(link["message"] for link in outcome.error) or "no error"


def _keys(outcome: Outcome) -> list[str]:
    return [spec.key for spec in outcome.scenario.tools]


def _shape(names: Sequence[str]) -> list[str]:
    """Names as evidence shows them: a long run of one letter by its shape (``b × 70``, :func:`letter_run`)."""
    return [letter_run(name) for name in names]


@check_factory
def sends(e: Evidence, expected: Mapping[str, Sequence[str]]) -> tuple[bool, str]:
    """Each probe's request offers exactly these names, in this order."""
    said = []
    for probe, names in expected.items():
        outcome = e[probe]
        if outcome.wire_names is None:
            return False, f"{probe}: keys {_keys(outcome)} sent no request: {_error(outcome)}"
        if outcome.wire_names != list(names):
            return False, f"{probe}: keys {_keys(outcome)} went out as {outcome.wire_names}, not {list(names)}"
        said.append(f"{_shape(_keys(outcome))} sent as {_shape(outcome.wire_names)}")
    return True, "; ".join(said)


@check_factory
def keeps(e: Evidence, probe: str, key: str) -> tuple[bool, str]:
    """Of the probe's keys, ``key``'s tool alone is sent: read from the tools' descriptions, which name their key
    whatever the framework did to the name (:func:`~probe_lib.core.outcome.wire_names_by_key`)."""
    outcome = e[probe]
    kept = sorted(wire_names_by_key(_keys(outcome), outcome))
    if kept != [key]:
        return False, f"{probe}: the tools sent are those of {kept}, not {key!r} alone"
    return True, f"{probe}: the one tool sent is {key!r}'s (its description names that key)"


@check_factory
def sends_as_given(e: Evidence, *probes: str) -> tuple[bool, str]:
    """Each probe's keys go out exactly as registered (names and order)."""
    for probe in probes:
        outcome = e[probe]
        if outcome.wire_names != _keys(outcome):
            sent = "nothing: " + _error(outcome) if outcome.wire_names is None else outcome.wire_names
            return False, f"{probe}: keys {_keys(outcome)} went out as {sent}"
    firsts = ", ".join(repr(letter_run(key)) for probe in probes for key in _keys(e[probe])[:1])
    counted = f"{len(probes)} probe{'' if len(probes) == 1 else 's'}"
    return True, f"the keys of {counted} went out as given (first keys {quoted(firsts, 200)})"


@check_factory
def refuses(e: Evidence, expected: Mapping[str, str]) -> tuple[bool, str]:
    """Each run sends no request and raises an error containing the text."""
    said = []
    for run, text in expected.items():
        outcome = e[run]
        if outcome.requests:
            return False, f"{run}: sent a request offering {outcome.wire_names} instead of refusing"
        if text not in _error(outcome):
            return False, f"{run}: refused, but with {quoted(_error(outcome), 160)!r}, not {text!r}"
        said.append(f"{run}: no request, raised {quoted(_error(outcome), 120)!r}")
    return True, "; ".join(said)


@check_factory
def forces(e: Evidence, *probes: str, absent: bool) -> tuple[bool, str]:
    """Forcing each probe's key sends ``tool_choice`` naming the key unchanged, and that name is (``absent``: is not)
    among the request's own tools."""
    said = []
    for probe in probes:
        outcome = e[probe + FORCED]
        key = outcome.scenario.tool_choice["toolName"]
        if outcome.wire_names is None:
            return False, f"{probe}: forcing {key!r} sent no request: {quoted(_error(outcome), 160)}"
        if outcome.forced_name != key:
            return False, f"{probe}: forcing {key!r} sent tool_choice {outcome.tool_choice}, not the key"
        if (key in outcome.wire_names) == absent:
            where = "is among" if absent else "is not among"
            return False, f"{probe}: tool_choice names {key!r}, which {where} tools {outcome.wire_names}"
        said.append(f"tool_choice {letter_run(key)!r} with tools {_shape(outcome.wire_names)}")
    return True, "; ".join(said)


@check_factory
def round_trip(
    e: Evidence, *probes: str, ran: str | None = None, runs: bool = True, raising: str | None = None
) -> tuple[bool, str]:
    """A model calling the first key by the name the plain run sent for it runs that key's tool (``runs``), or runs
    no tool registered under the key (``runs=False``; then the tool registered under ``ran``, if given), the turn
    raising an error of class ``raising`` if given."""
    said = []
    for probe in probes:
        outcome = e[probe + ROUND_TRIP]
        key, name = _keys(outcome)[0], called_name(outcome)
        executed = [execution["key"] for execution in outcome.executions]
        expected = [key] if runs else ([ran] if ran is not None else [])
        if executed != expected:
            return (
                False,
                f"{probe}: a call of {name!r} (sent for {key!r}) ran {executed or 'nothing'}, "
                f"not {expected or 'nothing'}",
            )
        if raising is not None and raising not in [link.get("name") for link in outcome.error]:
            return False, f"{probe}: a call of {name!r} raised {_error(outcome)!r}, no {raising}"
        said.append(
            f"{probe}: a call of {letter_run(name)!r} (sent for {letter_run(key)!r}) ran "
            f"{_shape(executed) or 'nothing'}"
            + ("" if executed == [key] else f" ({quoted(_error(outcome), 80)})")
            + (f", raising {raising}" if raising is not None else "")
        )
    return True, "; ".join(said)


def served(*names: str) -> list[str]:
    """The names the Claude Agent SDK offers tools of the runner's MCP server ``probe`` under, written without the
    ``mcp__probe__`` prefix it adds to every one."""
    return [f"mcp__probe__{name}" for name in names]


@check_factory
def no_own_error(e: Evidence, *probes: str) -> tuple[bool, str]:
    """Each probe's run raised nothing but the capture server's scripted refusal."""
    for probe in probes:
        if e[probe].own_errors:
            return False, f"{probe}: raised {quoted(e[probe].own_errors[0], 160)!r}"
    return True, f"{', '.join(probes)}: no error of its own"


@check_factory
def raises_only_as(e: Evidence, reference: str, *probes: str) -> tuple[bool, str]:
    """Each probe's run raised exactly what the ``reference`` probe's run of the same target raised (the capture
    server's scripted refusal, in that framework's wording): nothing of its own, whatever the framework wraps it in."""
    expected = _error(e[reference])
    for probe in probes:
        if _error(e[probe]) != expected:
            return False, f"{probe}: raised {quoted(_error(e[probe]), 160)!r}, where {reference} raised {expected!r}"
    return True, f"{', '.join(probes)}: raised only what {reference} raised ({quoted(expected, 60)!r})"


@check_factory
def longer_than(e: Evidence, provider: str, variant: str, limit: int, *probes: str) -> tuple[bool, str]:
    """``provider``'s ``variant`` tool-name rule (``data/provider_rules.csv``) caps names at ``limit`` characters, as
    the claim states, and each probe's first key went out under a name longer than that."""
    rule = name_rules.get_rule(provider, variant)
    if rule.max_length != limit:
        return False, f"{provider}'s {variant} rule caps names at {rule.max_length}, not {limit}"
    said = []
    for probe in probes:
        names = e[probe].wire_names or []
        if not names or len(names[0]) <= limit:
            return False, f"{probe}: its first tool went out as {names[:1]}, not longer than {limit}"
        said.append(f"{probe}: {len(names[0])} characters")
    return True, f"{provider}'s {variant} rule caps names at {limit}; " + ", ".join(said)


@check_factory
def resends_and_tunnels(e: Evidence, host: str, *probes: str, turns: int) -> tuple[bool, str]:
    """Each probe's turn re-sent its first request with the same tools after the capture server's refusal, and
    asked the kit's proxy for at least one tunnel, every one to ``host`` and refused (403); the probes are the
    ``turns`` the claim counts."""
    if len(probes) != turns:
        return False, f"the matrix has {len(probes)} plain turns, not {turns}"
    counts = set()
    for probe in probes:
        outcome = e[probe]
        if len(outcome.requests) < 2:
            return False, f"{probe}: sent {len(outcome.requests)} request(s), no second"
        tools = {tuple(outcome._format.tool_names(request)) for request in outcome.requests}
        if len(tools) != 1:
            return False, f"{probe}: its requests offered different tools: {sorted(tools)}"
        tunnels = [(entry["method"], entry["path"]) for entry in outcome.unrouted]
        if not tunnels or set(tunnels) != {("CONNECT", host)}:
            return False, f"{probe}: other traffic was {tunnels or 'none'}, not CONNECT {host} only"
        if answered := {entry["status"] for entry in outcome.unrouted} - {403}:
            return False, f"{probe}: the proxy answered a tunnel {sorted(answered)}, not only its refusal (403)"
        counts.add((len(outcome.requests), len(tunnels)))
    said = ", ".join(f"{requests} requests and {tunnels} tunnels" for requests, tunnels in sorted(counts))
    return True, f"{len(probes)} turns, each sending {said} to {host}, the same tools every time"


@check_factory
def list_acts(
    e: Evidence,
    list_name: str,
    *,
    offers: Mapping[str, bool | None],
    runs: Mapping[str, bool],
    answer: Mapping[str, str],
) -> tuple[bool, str]:
    """The Claude Agent SDK's list probes for ``list_name`` (:mod:`probe_lib.measure.permission_runs`, read through
    :mod:`probe_lib.analysis.permissions`): for each spelling, whether the request the list governs offers the tool
    (``None``: that request was never sent), whether the tool ran, and a text the model was told of its call."""
    said = []
    for spelling in SPELLINGS:
        outcome = e[f"{list_name}={spelling}"]
        offered = permissions.offered(outcome)
        has = None if offered is None else WIRE_NAME in offered
        ran, told = permissions.ran(outcome), permissions.answer(outcome) or ""
        named = SPELLINGS[spelling]
        if has != offers[spelling]:
            return False, f"{list_name} [{named!r}]: the request offered {offered}"
        if ran != runs[spelling]:
            return False, f"{list_name} [{named!r}]: search.web {'ran' if ran else 'did not run'}"
        if answer[spelling] not in told:
            return False, f"{list_name} [{named!r}]: the model was told {quoted(told, 160)!r}, not {answer[spelling]!r}"
        said.append(f"{named!r}: {'ran' if ran else 'nothing ran'} ({quoted(told, 70)})")
    return True, f"{list_name}: " + "; ".join(said)


def mastra_forces_by_key(e: Evidence) -> tuple[bool, str]:
    """On every Mastra target of the matrix, forcing ``search.web`` by its key sends ``tool_choice`` naming
    ``search.web`` beside a request whose tools do not offer it (the article's finding, the line Mastra draws)."""
    said = []
    for target in sorted(t for t in e.by_version if t.partition("@")[0] == MASTRA):
        outcome = e.by_version[target].get("dot" + FORCED)
        if outcome is None or not outcome.requests:
            return False, f"{target}: no forced dot run with a request to compare with"
        if outcome.forced_name != "search.web" or "search.web" in (outcome.wire_names or []):
            return False, f"{target}: forcing search.web sent {outcome.tool_choice} with tools {outcome.wire_names}"
        said.append(target)
    if not said:
        return False, "no Mastra target in the matrix to compare with"
    return True, f"Mastra ({', '.join(said)}) forces search.web by its key beside tools without it"


def forcing_absent_frameworks(e: Evidence) -> set[str]:
    """The frameworks among ``e.by_version`` (every target of the matrix) with a request forcing a registered key
    that its own tools do not offer."""
    found = set()
    for target, outcomes in e.by_version.items():
        for name, outcome in outcomes.items():
            key = forced_key(outcome.scenario)
            if (
                name.endswith(FORCED)
                and outcome.requests
                and key in _keys(outcome)
                and outcome.forced_name == key
                and key not in (outcome.wire_names or [])
            ):
                found.add(target.partition("@")[0])
    return found


@check_factory
def alone_forces_absent(e: Evidence, framework: str) -> tuple[bool, str]:
    """Of the matrix's frameworks other than Mastra, ``framework`` is the only one forcing a tool absent from its
    tools."""
    others = sorted({target.partition("@")[0] for target in e.by_version} - {MASTRA})
    found = sorted(forcing_absent_frameworks(e) - {MASTRA})
    if found != [framework]:
        return (
            False,
            f"of {len(others)} adapters besides Mastra, {found or 'none'} forced a tool absent from its tools",
        )
    return True, f"of {len(others)} adapters besides Mastra ({', '.join(others)}), only {framework} did"


def on_target(
    claim_id: str, framework: str, *clauses: Clause, quantified: Iterable[str] = (), every_target: bool = False
) -> None:
    """Register ``claim_id``'s check on each of ``framework``'s matrix targets: confirmed when every clause holds,
    else refuted by the first that does not; ``quantified`` and ``every_target`` as
    :func:`~probe_lib.claims.registry.register` takes them."""

    def judged(e: Evidence) -> tuple[Status, str]:
        said = []
        for clause in clauses:
            holds, text = clause(e)
            if not holds:
                return "refuted", text
            said.append(text)
        return "confirmed", "; ".join(said)

    register(claim_id, judged, on="target", framework=framework, quantified=quantified, every_target=every_target)


def _list_probes(*lists: str) -> tuple[str, ...]:
    """The Claude Agent SDK's list probes of ``lists``: the cases a claim about those lists ranges over."""
    return tuple(probe.name for probe in LIST_PROBES if probe.list in lists)


#: What each of the Claude Agent SDK's lists does to the tool under each spelling (claims X28-X31).
_ALLOWED = list_acts(
    "allowedTools",
    offers=dict.fromkeys(SPELLINGS, True),
    runs={**dict.fromkeys(SPELLINGS, False), "name on the wire": True},
    answer={**dict.fromkeys(SPELLINGS, "you haven't granted it yet"), "name on the wire": "tempC=20"},
)
_DISALLOWED = list_acts(
    "disallowedTools",
    offers={**dict.fromkeys(SPELLINGS, True), "name on the wire": False},
    runs={**dict.fromkeys(SPELLINGS, True), "name on the wire": False},
    answer={
        **dict.fromkeys(SPELLINGS, "tempC=20"),
        "name on the wire": "No such tool available: mcp__probe__search_web",
    },
)
_SUBAGENT_TOOLS = list_acts(
    "subagent tools",
    offers={**dict.fromkeys(SPELLINGS, None), "name on the wire": True},
    runs={**dict.fromkeys(SPELLINGS, False), "name on the wire": True},
    answer={**dict.fromkeys(SPELLINGS, "would be spawned with zero tools"), "name on the wire": "tempC=20"},
)

on_target(
    "X01", "ai-sdk", sends_as_given(*_KEY_FAMILIES), forces(*_KEY_FAMILIES, absent=False), round_trip(*_KEY_FAMILIES)
)
on_target("X02", "ai-sdk", sends({"integer-order": ["42", "b", "x.y"]}))
on_target(
    "X03",
    "openai",
    sends_as_given(*(probe.name for probe in PROBES)),
    forces(*_FORCED_KEYS, absent=False),
    round_trip("dot"),
    quantified=(*(probe.name for probe in PROBES), *(probe + FORCED for probe in _FORCED_KEYS)),
)
on_target(
    "X04",
    "langchain-js",
    sends_as_given(*_KEY_FAMILIES, "integer-order"),
    forces(*_KEY_FAMILIES, absent=False),
    round_trip(*_KEY_FAMILIES),
)
on_target(
    "X05",
    "langchain",
    sends_as_given(*_ILLEGAL_KEYS),
    forces(*_ILLEGAL_FORCED, absent=False),
    sends({"empty": ["probe", "plain"]}),
    round_trip("dot"),
)
on_target(
    "X06",
    "openai-agents",
    sends_as_given(*_ILLEGAL_KEYS),
    forces(*_ILLEGAL_FORCED, absent=False),
    round_trip(*_ILLEGAL_FORCED),
)
on_target(
    "X07",
    "pydantic-ai",
    sends_as_given(*_ILLEGAL_KEYS),
    forces(*_ILLEGAL_FORCED, absent=False),
    refuses({"unregistered-choice+forced": "Invalid tool names in `tool_choice`: {'missing'}"}),
)
on_target(
    "X08",
    "llama-index",
    sends(
        {
            "legal": ["get_weather", "lookup-user"],
            "dot": ["search_web", "plain"],
            "space": ["my_tool", "plain"],
            "colon-slash": ["ns_read_file", "plain"],
            "accent": ["m_t_o", "plain"],
            "emoji": ["weather_", "plain"],
            "mcp-prefixed": ["github_create_issue", "github__list_issues"],
            "integer-order": ["b", "42", "x_y"],
            "collision": ["search_web", "search_web"],
        }
    ),
    quantified=("legal", *_ILLEGAL_KEYS),
)
on_target("X09", "llama-index", forces("dot", "accent", "mcp-prefixed", absent=True))
on_target("X10", "llama-index", round_trip("dot", "accent", runs=False, raising="KeyError"), round_trip("legal"))
on_target(
    "X11",
    "llama-index",
    sends({"collision": ["search_web", "search_web"]}),
    round_trip("collision", runs=False, ran="search_web"),
)
on_target(
    "X12",
    "llama-index",
    alone_forces_absent("llama-index"),
    quantified=tuple(probe.name + FORCED for probe in PROBES if probe.forced is not None),
    every_target=True,
)
on_target(
    "X13",
    "crewai",
    sends(
        {
            "dot": ["search_web", "plain"],
            "legal": ["get_weather", "lookup_user"],
            "space": ["my_tool", "plain"],
            "colon-slash": ["ns_read_file", "plain"],
            "accent": ["meteo", "plain"],
            "emoji": ["weather", "plain"],
            "mcp-prefixed": ["github_create_issue", "github_list_issues"],
        }
    ),
)
on_target(
    "X14",
    "crewai",
    refuses(
        {
            "leading-digit": "OpenAI function name '9lives' must start with a letter or underscore",
            "integer-order": "OpenAI function name '42' must start with a letter or underscore",
            "empty": "OpenAI function name cannot be empty",
        }
    ),
)
on_target("X15", "crewai", sends({"length-70": ["b" * 55 + "_b9444034", "plain"], "length-64": ["a" * 64, "plain"]}))
on_target(
    "X16",
    "crewai",
    sends({"collision": ["search_web", "search_web_2"]}),
    round_trip("collision", "dot", "accent", "length-70"),
)
on_target(
    "X17",
    "openai-agents-js",
    sends(
        {
            "legal": ["get_weather", "lookup_user"],
            "dot": ["search_web", "plain"],
            "space": ["my_tool", "plain"],
            "colon-slash": ["ns_read_file", "plain"],
            "accent": ["m_t_o", "plain"],
            "emoji": ["weather__", "plain"],
            "mcp-prefixed": ["github_create_issue", "github__list_issues"],
            "integer-order": ["b", "42", "x_y"],
        }
    ),
    round_trip("dot", "emoji"),
    quantified=("legal", *(probe for probe in _ILLEGAL_KEYS if probe != "collision")),
)
on_target(
    "X18",
    "openai-agents-js",
    refuses(
        {
            probe.name + FORCED: f'modelSettings.toolChoice="{probe.forced}" does not match any available tool'
            for probe in PROBES
            if probe.name in _ILLEGAL_FORCED
        }
    ),
)
on_target(
    "X19",
    "openai-agents-js",
    sends({"collision": ["search_web"]}),
    keeps("collision", "search_web"),
    raises_only_as("dot", "collision"),
    quantified=("collision",),
)
on_target(
    "X20",
    "smolagents",
    refuses(
        {
            probe: f"Invalid Tool name {key!r}: must be a valid Python identifier"
            for probe, key in _SMOLAGENTS_REFUSED.items()
        }
    ),
    sends_as_given("accent"),
    round_trip("accent"),
    quantified=tuple(_SMOLAGENTS_REFUSED),
)
on_target(
    "X21",
    "autogen",
    refuses(
        {
            **{
                probe: f"Invalid name: {key}. Only letters, numbers, '_' and '-' are allowed."
                for probe, key in _ILLEGAL_KEYS.items()
            },
            "length-70": "Name must be less than 64 characters",
        }
    ),
    sends_as_given("length-64", "legal"),
    round_trip("legal"),
    quantified=(*_ILLEGAL_KEYS, "length-70"),
)
on_target(
    "X22",
    "claude-agent-sdk",
    sends(
        {
            "legal": served("get_weather", "lookup-user"),
            "dot": served("plain", "search_web"),
            "accent": served("m_t_o", "plain"),
            "emoji": served("plain", "weather__"),
        }
    ),
    round_trip("dot", "accent", "emoji", "legal"),
)
on_target(
    "X23",
    "claude-agent-sdk",
    sends(
        {
            "integer-order": served("42", "b", "x_y"),
            "mcp-prefixed": served("github__list_issues", "github_create_issue"),
        }
    ),
)
on_target(
    "X24",
    "claude-agent-sdk",
    sends({"length-64": served("a" * 64, "plain"), "length-70": served("b" * 70, "plain")}),
    longer_than("anthropic", "documented", 64, "length-64", "length-70"),
    round_trip("length-70"),
)
on_target(
    "X25",
    "claude-agent-sdk",
    sends({"collision": served("search_web")}),
    keeps("collision", "search.web"),
    no_own_error("collision"),
    round_trip("collision"),
)
on_target(
    "X26",
    "claude-agent-sdk",
    sends({"empty": served("", "plain"), "leading-digit": served("9lives", "plain")}),
    round_trip("empty", "leading-digit"),
)
on_target(
    "X27", "claude-agent-sdk", resends_and_tunnels("api.anthropic.com:443", *(probe.name for probe in PROBES), turns=14)
)
on_target("X28", "claude-agent-sdk", _ALLOWED, quantified=_list_probes("allowedTools"))
on_target("X29", "claude-agent-sdk", _DISALLOWED, quantified=_list_probes("disallowedTools"))
on_target("X30", "claude-agent-sdk", _SUBAGENT_TOOLS)
on_target(
    "X31",
    "claude-agent-sdk",
    mastra_forces_by_key,
    _ALLOWED,
    _DISALLOWED,
    _SUBAGENT_TOOLS,
    quantified=_list_probes(*LISTS),
)
