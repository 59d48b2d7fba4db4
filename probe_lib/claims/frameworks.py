"""The ledger's claims about the other frameworks, each judged on that framework's framework-matrix outcomes.

Every claim of ``data/claims.csv`` checked here is about one framework (the adapter it registers under) and reads
the matrix's runs of that framework at one version, live or recorded (``probe_lib.study.matrix_runs``): ``PROBE``
(the keys registered alone), ``PROBE+forced`` (one key forced by the key) and ``PROBE+round-trip`` (the model
calling the first key by the name the plain run sent for it). Expected names and error texts are written out in
each claim, as measured and as each framework's source states them, never computed by the kit; so a framework
that changes makes its claim refuted, and a run that is missing makes it failed.

A claim's check is built from small clauses (:func:`sends`, :func:`refuses`, :func:`forces`, :func:`round_trip`),
all of which must hold; :data:`CHECKS` names each claim's framework and check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from probe_lib.adapters.keyed import forced_key
from probe_lib.claims.verdict import MASTRA, Check, Quantified, Status, quoted
from probe_lib.core.outcome import Outcome, called_name
from probe_lib.core.scenarios import FORCED, ROUND_TRIP
from probe_lib.study.evidence import Evidence
from probe_lib.study.matrix_runs import PROBES

Clause = Callable[[Evidence], tuple[bool, str]]
_KEY_FAMILIES = ("dot", "space", "colon-slash", "accent", "emoji")


def _error(outcome: Outcome) -> str:
    return " <- ".join(link["message"] for link in outcome.error) or "no error"


def _keys(outcome: Outcome) -> list[str]:
    return [spec.key for spec in outcome.scenario.tools]


def sends(expected: Mapping[str, Sequence[str]]) -> Clause:
    """Each probe's request offers exactly these names, in this order."""

    def clause(e: Evidence) -> tuple[bool, str]:
        said = []
        for probe, names in expected.items():
            outcome = e[probe]
            if outcome.wire_names is None:
                return False, f"{probe}: keys {_keys(outcome)} sent no request: {_error(outcome)}"
            if outcome.wire_names != list(names):
                return False, f"{probe}: keys {_keys(outcome)} went out as {outcome.wire_names}, not {list(names)}"
            said.append(f"{_keys(outcome)} sent as {outcome.wire_names}")
        return True, "; ".join(said)

    return clause


def sends_as_given(*probes: str) -> Clause:
    """Each probe's keys go out exactly as registered (names and order)."""

    def clause(e: Evidence) -> tuple[bool, str]:
        for probe in probes:
            outcome = e[probe]
            if outcome.wire_names != _keys(outcome):
                sent = "nothing: " + _error(outcome) if outcome.wire_names is None else outcome.wire_names
                return False, f"{probe}: keys {_keys(outcome)} went out as {sent}"
        return True, f"{', '.join(key for probe in probes for key in _keys(e[probe])[:1])} went out as given"

    return clause


def refuses(expected: Mapping[str, str]) -> Clause:
    """Each run sends no request and raises an error containing the text."""

    def clause(e: Evidence) -> tuple[bool, str]:
        said = []
        for run, text in expected.items():
            outcome = e[run]
            if outcome.requests:
                return False, f"{run}: sent a request offering {outcome.wire_names} instead of refusing"
            if text not in _error(outcome):
                return False, f"{run}: refused, but with {_error(outcome)[:160]!r}, not {text!r}"
            said.append(f"{run}: no request, raised {quoted(_error(outcome), 120)!r}")
        return True, "; ".join(said)

    return clause


def forces(*probes: str, absent: bool) -> Clause:
    """Forcing each probe's key sends ``tool_choice`` naming the key unchanged, and that name is (``absent``: is not)
    among the request's own tools."""

    def clause(e: Evidence) -> tuple[bool, str]:
        said = []
        for probe in probes:
            outcome = e[probe + FORCED]
            key = outcome.scenario.tool_choice["toolName"]
            if outcome.wire_names is None:
                return False, f"{probe}: forcing {key!r} sent no request: {_error(outcome)[:160]}"
            if outcome.forced_name != key:
                return False, f"{probe}: forcing {key!r} sent tool_choice {outcome.tool_choice}, not the key"
            if (key in outcome.wire_names) == absent:
                where = "is among" if absent else "is not among"
                return False, f"{probe}: tool_choice names {key!r}, which {where} tools {outcome.wire_names}"
            said.append(f"tool_choice {key!r} with tools {outcome.wire_names}")
        return True, "; ".join(said)

    return clause


def round_trip(*probes: str, ran: str | None = None, runs: bool = True) -> Clause:
    """A model calling the first key by the name the plain run sent for it runs that key's tool (``runs``), or runs
    no tool registered under the key (``runs=False``; then the tool registered under ``ran``, if given)."""

    def clause(e: Evidence) -> tuple[bool, str]:
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
            said.append(
                f"a call of {name!r} (sent for {key!r}) ran {executed or 'nothing'}"
                + ("" if executed == [key] else f" ({quoted(_error(outcome), 80)})")
            )
        return True, "; ".join(said)

    return clause


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


def alone_forces_absent(framework: str) -> Clause:
    """Of the matrix's frameworks other than Mastra, ``framework`` is the only one forcing a tool absent from its
    tools."""

    def clause(e: Evidence) -> tuple[bool, str]:
        others = sorted({target.partition("@")[0] for target in e.by_version} - {MASTRA})
        found = sorted(forcing_absent_frameworks(e) - {MASTRA})
        if found != [framework]:
            return (
                False,
                f"of {len(others)} adapters besides Mastra, {found or 'none'} forced a tool absent from its tools",
            )
        return True, f"of {len(others)} adapters besides Mastra ({', '.join(others)}), only {framework} did"

    return clause


def claim(framework: str, *clauses: Clause) -> tuple[str, Check]:
    """``framework`` and a check on its runs: confirmed when every clause holds, else refuted by the first that does
    not."""

    def judged(e: Evidence) -> tuple[Status, str]:
        said = []
        for clause in clauses:
            holds, text = clause(e)
            if not holds:
                return "refuted", text
            said.append(text)
        return "confirmed", "; ".join(said)

    return framework, judged


#: Claim id -> the framework its check reads and the check, judged on each of that framework's targets.
CHECKS: dict[str, tuple[str, Check]] = {
    "X01": claim(
        "ai-sdk", sends_as_given(*_KEY_FAMILIES), forces("dot", "accent", absent=False), round_trip("dot", "emoji")
    ),
    "X02": claim("ai-sdk", sends({"integer-order": ["42", "b", "x.y"]})),
    "X03": claim(
        "openai",
        sends_as_given(*_KEY_FAMILIES, "integer-order", "length-70"),
        forces("dot", "emoji", absent=False),
        round_trip("dot"),
    ),
    "X04": claim(
        "langchain-js", sends_as_given(*_KEY_FAMILIES, "integer-order"), forces("dot", absent=False), round_trip("dot")
    ),
    "X05": claim(
        "langchain",
        sends_as_given(*_KEY_FAMILIES, "integer-order"),
        forces("dot", absent=False),
        sends({"empty": ["probe", "plain"]}),
        round_trip("dot"),
    ),
    "X06": claim(
        "openai-agents", sends_as_given(*_KEY_FAMILIES, "integer-order"), forces("dot", absent=False), round_trip("dot")
    ),
    "X07": claim(
        "pydantic-ai",
        sends_as_given(*_KEY_FAMILIES),
        forces("dot", absent=False),
        refuses({"unregistered-choice+forced": "Invalid tool names in `tool_choice`: {'missing'}"}),
    ),
    "X08": claim(
        "llama-index",
        sends(
            {
                "dot": ["search_web", "plain"],
                "accent": ["m_t_o", "plain"],
                "emoji": ["weather_", "plain"],
                "integer-order": ["b", "42", "x_y"],
            }
        ),
    ),
    "X09": claim("llama-index", forces("dot", "accent", "mcp-prefixed", absent=True)),
    "X10": claim("llama-index", round_trip("dot", "accent", runs=False), round_trip("legal")),
    "X11": claim(
        "llama-index",
        sends({"collision": ["search_web", "search_web"]}),
        round_trip("collision", runs=False, ran="search_web"),
    ),
    "X12": claim("llama-index", alone_forces_absent("llama-index")),
    "X13": claim(
        "crewai",
        sends(
            {
                "dot": ["search_web", "plain"],
                "legal": ["get_weather", "lookup_user"],
                "accent": ["meteo", "plain"],
                "emoji": ["weather", "plain"],
            }
        ),
    ),
    "X14": claim(
        "crewai",
        refuses(
            {
                "leading-digit": "OpenAI function name '9lives' must start with a letter or underscore",
                "empty": "OpenAI function name cannot be empty",
            }
        ),
    ),
    "X15": claim("crewai", sends({"length-70": ["b" * 55 + "_b9444034", "plain"], "length-64": ["a" * 64, "plain"]})),
    "X16": claim(
        "crewai",
        sends({"collision": ["search_web", "search_web_2"]}),
        round_trip("collision", "dot", "accent", "length-70"),
    ),
    "X17": claim(
        "openai-agents-js",
        sends(
            {"legal": ["get_weather", "lookup_user"], "dot": ["search_web", "plain"], "emoji": ["weather__", "plain"]}
        ),
        round_trip("dot", "emoji"),
    ),
    "X18": claim(
        "openai-agents-js",
        refuses({"dot+forced": 'modelSettings.toolChoice="search.web" does not match any available tool'}),
    ),
    "X19": claim("openai-agents-js", sends({"collision": ["search_web"]})),
    "X20": claim(
        "smolagents",
        refuses(
            {
                "dot": "Invalid Tool name 'search.web': must be a valid Python identifier",
                "legal": "Invalid Tool name 'lookup-user'",
            }
        ),
        sends_as_given("accent"),
        round_trip("accent"),
    ),
    "X21": claim(
        "autogen",
        refuses(
            {
                "dot": "Invalid name: search.web. Only letters, numbers, '_' and '-' are allowed.",
                "length-70": "Name must be less than 64 characters",
            }
        ),
        sends_as_given("length-64", "legal"),
        round_trip("legal"),
    ),
}

#: Claim id -> the probes its quantifying word ranges over (see :class:`~probe_lib.claims.verdict.Quantified`).
QUANTIFIED: dict[str, Quantified] = {
    "X03": Quantified((*_KEY_FAMILIES, "integer-order", "length-70")),
    "X11": Quantified(("collision" + ROUND_TRIP,)),
    "X12": Quantified(tuple(probe.name + FORCED for probe in PROBES if probe.forced is not None), every_target=True),
    "X17": Quantified(("legal", "dot", "emoji")),
    "X19": Quantified(("collision",)),
    "X21": Quantified(("dot", "length-70")),
}
