"""Checked exercises: one small function per exercise, telling a learner whether an answer is right and why.

Each notebook from 00-primer to 10 ends with an exercise whose cell reads::

    answer = None  # your answer: ...
    exercises.<name>(answer, mastra_version, measurements)

The check measures the truth for the learner's own answer on the source the exercise names: the real
``@mastra/core`` through the Node runner and the capture server (when the source ``measurements`` asks for a live
run where the version can run, :meth:`probe_lib.measure.sources.Source.own` and ``live``), else the Python model of
``formatTools()`` or the recordings in ``data/captures/``, and it says which it used. ``None`` is the placeholder:
the check answers "not answered yet" without measuring anything, so a notebook runs clean before the learner writes
a word. Solutions live apart, in :mod:`probe_lib.teach.solutions`.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from probe_lib.core.scenarios import Scenario, ToolSpec, named, tools
from probe_lib.core.target import Target, baseline
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import Outcome, catalogue, normaliser
from probe_lib.measure.collection import CATALOGUE
from probe_lib.measure.sources import LIVE, RECORDED, Source
from probe_lib.providers import name_rules

#: The version a check measures when a notebook does not name one: the article's.
ARTICLE = baseline("mastra").version

State = Literal["right", "wrong", "not answered yet", "not judged"]
_MARKS = {
    "right": "✅ RIGHT",
    "wrong": "❌ WRONG",
    "not answered yet": "✏️ NOT ANSWERED YET",
    "not judged": "⚠️ NOT JUDGED",  # the version measured failed before the turn could show anything
}


@dataclass(frozen=True)
class Checked:
    """A check's verdict on one answer: right, wrong, not answered yet, or not judged (the version measured sent
    no request, so the answer cannot be told right or wrong on it); why; and what it was measured on."""

    exercise: str
    state: State
    why: str
    #: What the truth was measured on: the real package live, the Python model, or recordings.
    measured_on: str = ""

    @property
    def right(self) -> bool:
        return self.state == "right"

    def __str__(self) -> str:
        source = f" (checked against {self.measured_on})" if self.measured_on else ""
        return f"{_MARKS[self.state]} [{self.exercise}] {self.why}{source}"

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str:
        source = f"<br><small>checked against {html.escape(self.measured_on)}</small>" if self.measured_on else ""
        return f"<p><b>{_MARKS[self.state]}</b> [{html.escape(self.exercise)}] {html.escape(self.why)}{source}</p>"


def _verdict(right: bool, why: str, measured_on: str) -> Checked:
    """Right or wrong; :func:`_exercise` names the exercise."""
    return Checked("", "right" if right else "wrong", why, measured_on)


#: A check: the learner's answer, the ``@mastra/core`` version and the source it measures the truth on.
Check = Callable[[object, str, Source], Checked]
#: Every exercise by name, with the notebook it belongs to.
EXERCISES: dict[str, tuple[str, Check]] = {}


def _exercise(notebook: str, expects: str) -> Callable[[Check], Check]:
    """Register a check of ``notebook``'s exercise under its function's name, which each verdict it gives names;
    ``None`` is "not answered yet", asking for ``expects``, and measures nothing."""

    def register(check: Check) -> Check:
        @functools.wraps(check)
        def checked(answer: object, *args: Any, **kwargs: Any) -> Checked:
            if answer is None:
                why = f"replace None with {expects}, then run the cell again"
                return Checked(check.__name__, "not answered yet", why)
            return replace(check(answer, *args, **kwargs), exercise=check.__name__)

        EXERCISES[check.__name__] = (notebook, checked)
        return checked

    return register


# -- measuring the truth for a learner's answer ------------------------------------------------------------------


def _live(measurements: Source, version: str) -> bool:
    """Measure on the real package unless the notebook reads recordings (the recordings, or a reproduce folder
    measured from them) or Node.js (or ``version``) is missing."""
    return measurements.own().live(Target(mastra.ADAPTER.name, mastra.ADAPTER.check_version(version)))


def run_live(scenarios: Sequence[Scenario], version: str) -> list[Outcome]:
    """``scenarios`` on the real ``@mastra/core`` ``version``, through the adapter (Node runner + capture server)."""
    return mastra.ADAPTER.run(scenarios, mastra.ADAPTER.check_version(version))


def _real(version: str) -> str:
    return f"the real @mastra/core {version}, run live against the capture server"


_MODEL = "the Python model of formatTools() (Node.js missing, or the notebook reads recordings)"


def _one_turn(scenario: Scenario, version: str) -> Outcome:
    """One agent turn of ``scenario`` on the real package."""
    return run_live([scenario], version)[0]


def _wire_names(keys: Sequence[str], version: str, measurements: Source) -> tuple[dict, str]:
    """``result_json()`` of registering ``keys`` (names in wire order, or the error), and what measured it."""
    if _live(measurements, version):
        return _one_turn(Scenario("exercise", tools=tools(*keys)), version).result_json(), _real(version)
    return normaliser.normalise(keys).to_json(), _MODEL


def _pairs(keys: Sequence[str]) -> dict[str, str]:
    """Key -> name, as the model pairs them (the wire itself lists names, not which key each came from)."""
    return {row.key: row.name for row in normaliser.normalise(keys).rows}


def _no_request(error: Mapping, version: str, source: str) -> Checked:
    """A turn that sent no request (``result_json()``'s error): wrong when Mastra refused it on a collision; else not
    judged, as each check judges an answer by the request (0.20.2 and 1.57.0 crash on most turns)."""
    if error.get("kind") == "collision":
        why = f"Mastra refused to run: two tools would go out as {error['name']!r}"
        return _verdict(False, why, source)
    why = (
        f"{version} sent no request ({error.get('kind')}: {error.get('message')}), and this check judges an answer "
        f"by the request: run the notebook on a pinned version ({', '.join(mastra.ADAPTER.versions())})"
    )
    return Checked("", "not judged", why, source)


def _why_rewritten(key: str) -> str:
    """Which rules turned ``key`` into its name, in words."""
    row = normaliser.normalise([key]).rows[0]
    rules = [
        text
        for fired, text in (
            (row.substituted, "each character outside a-zA-Z0-9_- (each UTF-16 code unit) became _"),
            (row.prefixed, "it did not start with a letter or _, so _ was put in front"),
            (row.truncated, f"it was cut to 63 characters, losing {row.lost!r}"),
        )
        if fired
    ]
    return f"{key!r} -> {row.name!r}: " + ("; ".join(rules) if rules else "already legal, sent as it is")


def _keys_wanted(answer: object, keys: Sequence[str]) -> str:
    """What a dict answer lacks or has too many of (a key typed in another Unicode form looks the same)."""
    said = f"answer a dict with exactly these keys: {list(keys)}"
    if not isinstance(answer, Mapping):
        return said
    missing, extra = [k for k in keys if k not in answer], [k for k in answer if k not in keys]
    spelled = ", ".join(map(ascii, missing)), ", ".join(map(ascii, extra))  # escapes tell a\u0301 from \xe1
    return f"{said} (missing {spelled[0] or 'none'}; not asked {spelled[1] or 'none'})"


def _as_registered(key: str) -> str:
    """Why ``key`` kept its name on a release before the normaliser, in words."""
    return f"{key!r} went out as registered (this release rewrites no key: 0.13.2 began to, V01)"


# -- the exercises -----------------------------------------------------------------------------------------------

#: 00-primer: the tool the primer's exercise registers.
PRIMER_TOOL = ToolSpec("orders", id="lookup-order")


@_exercise("00-primer", "the name, as a string")
def name_the_model_sees(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """00-primer. A tool with id ``lookup-order`` is registered under the key ``orders``: which name is the model
    offered? Checked on the real package (the model without Node.js)."""
    if not isinstance(answer, str):
        return _verdict(False, "a name is a string", "")
    if _live(measurements, version):
        result, source = _one_turn(Scenario("exercise", tools=(PRIMER_TOOL,)), version).result_json(), _real(version)
    else:
        result, source = normaliser.normalise([PRIMER_TOOL.key]).to_json(), _MODEL
    if "error" in result:
        return _no_request(result["error"], version, source)
    [sent] = result["names"]
    if answer == sent:
        why = f"the model is offered {sent!r}: the key, not the id {PRIMER_TOOL.id!r}"
        return _verdict(True, why, source)
    hint = " That is the tool's id; Mastra names a tool after its key." if answer == PRIMER_TOOL.id else ""
    offers = "formatTools() gives" if source == _MODEL else "the request's tools list offers"
    return _verdict(False, f"{offers} {sent!r}, not {answer!r}.{hint}", source)


@_exercise("01-key-rule-and-builtins", "a key, as a string")
def key_for_the_id(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """01. The tool ``get-weather`` must reach the model under its id: which key do you register it under?
    Checked by registering it under your key on the real package (the model without Node.js)."""
    wanted = catalogue.WEATHER.id
    if not isinstance(answer, str) or not answer:
        return _verdict(False, "a key is a non-empty string", "")
    result, source = _wire_names([answer], version, measurements)
    if "error" in result:
        return _no_request(result["error"], version, source)
    sent = (result["names"] or [None])[0]
    if sent == wanted:
        why = (
            f"registered under {answer!r}, the tool goes out as {sent!r}: the key is the "
            "name, so the key must be the id"
        )
        return _verdict(True, why, source)
    why = (
        f"registered under {answer!r}, the model is offered {sent!r}, not {wanted!r}: "
        "the name on the wire comes from the key"
    )
    return _verdict(False, why, source)


#: 02: keys whose wire names the learner predicts.
PREDICT_KEYS = ("my.tool", "3d-view", "café", "rocket🚀", "ok")


@_exercise("02-rewrite-rules", "a dict {key: name} for every key")
def predict_wire_names(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """02. For each key of :data:`PREDICT_KEYS`, the name it goes out under: a dict ``{key: name}``. Checked on
    the real package (the names it sends, paired with keys by the model once the two lists agree)."""
    if not isinstance(answer, Mapping) or set(answer) != set(PREDICT_KEYS):
        return _verdict(False, _keys_wanted(answer, PREDICT_KEYS), "")
    result, source = _wire_names(PREDICT_KEYS, version, measurements)
    if "error" in result:
        return _no_request(result["error"], version, source)
    pairs, why_named = _pairs(PREDICT_KEYS), _why_rewritten
    if sorted(result["names"]) == sorted(PREDICT_KEYS):  # a release before the normaliser (V01)
        pairs, why_named = {key: key for key in PREDICT_KEYS}, _as_registered
    elif sorted(result["names"]) != sorted(pairs.values()):
        why = f"the package sent {result} where the model predicts {pairs}: report this"
        return _verdict(False, why, source)
    sent = "what was sent" if source != _MODEL else "what formatTools gives"
    wrong = [key for key in PREDICT_KEYS if answer[key] != pairs[key]]
    if not wrong:
        why = f"every name matches {sent}: " + "; ".join(map(why_named, PREDICT_KEYS))
        return _verdict(True, why, source)
    why = f"{len(wrong)} of {len(PREDICT_KEYS)} wrong: " + "; ".join(
        f"you said {answer[key]!r}, but {why_named(key)}" for key in wrong
    )
    return _verdict(False, why, source)


@_exercise("03-truncation-63-vs-64", "a key, as a string")
def key_mastra_cuts(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """03. A key OpenAI would accept exactly as written, but that Mastra shortens before sending it. Checked
    against OpenAI's documented rule and the real package (the model without Node.js)."""
    if not isinstance(answer, str):
        return _verdict(False, "a key is a string", "")
    openai = name_rules.get_rule("openai")
    if not openai.accepts(answer):
        why = (
            f"OpenAI would refuse {answer!r} itself ({'; '.join(openai.reasons(answer))}): "
            "find one it accepts as written"
        )
        return _verdict(False, why, "data/provider_rules.csv")
    result, source = _wire_names([answer], version, measurements)
    if "error" in result:
        return _no_request(result["error"], version, source)
    if not result["names"]:
        why = f"{answer!r} never reached the wire, and nothing was raised (notebook 05): pick another key"
        return _verdict(False, why, source)
    sent, row = result["names"][0], normaliser.normalise([answer]).rows[0]
    if len(sent) < len(answer) or (row.truncated and sent == row.name):  # the _ prefix can pay for the cut
        prefixed = ", after putting _ in front" if row.prefixed else ""
        why = (
            f"OpenAI accepts its {len(answer)} characters, yet Mastra cuts the name it sends at 63: "
            f"it lost {row.lost!r}{prefixed}"
        )
        return _verdict(True, why, source)
    sends = "it whole" if sent == answer else f"{sent!r}"
    why = f"Mastra sends {sends} ({len(sent)} characters), nothing cut (from 0.13.2 on it cuts names over 63)"
    return _verdict(False, why, source)


#: 04: keys whose wire order the learner predicts.
ORDER_KEYS = ("b", "x.y", "10", "a", "2")


@_exercise("04-ordering-shift", "the list of names in the order the request sends them")
def predict_wire_order(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """04. The names the request's ``tools`` lists for :data:`ORDER_KEYS`, in wire order (a list). Checked on
    the real package (the model without Node.js)."""
    result, source = _wire_names(ORDER_KEYS, version, measurements)
    if "error" in result:
        return _no_request(result["error"], version, source)
    sent = result["names"]
    if isinstance(answer, (list, tuple)) and list(answer) == sent:
        why = (
            f"the request lists {sent}: legal keys keep their order and come first; "
            "rewritten keys follow, integer-like ones (2, then 10) ahead of the rest"
        )
        return _verdict(True, why, source)
    why = (
        f"the request lists {sent}, not {answer}. Legal keys (b, a) keep their place; "
        "rewritten ones move to the end in the order JavaScript enumerates the record: integer-like keys "
        "first, in numeric order"
    )
    return _verdict(False, why, source)


@_exercise("05-collisions", "a key, as a string")
def colliding_key(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """05. A second key that, registered next to ``search.web``, makes Mastra refuse to run. Checked on the real
    package (the model without Node.js)."""
    if answer == "search.web":
        why = "a JavaScript object holds each key once: registering it twice keeps one tool"
        return _verdict(False, why, "")
    if not isinstance(answer, str) or not answer:
        return _verdict(False, "a key is a non-empty string (the empty key crashes, it does not collide)", "")
    result, source = _wire_names(["search.web", answer], version, measurements)
    error = result.get("error") or {}
    if error.get("kind") == "collision":
        if error["name"] == _pairs(["search.web"])["search.web"]:
            why = f"Mastra refused to run: both keys resolve to {error['name']!r}"
        else:  # a name every JavaScript object already carries (F04), not search.web's
            why = (
                f"Mastra refused to run, but not for meeting search.web: {answer!r} resolves to {error['name']!r}, "
                "a name Object.prototype already holds"
            )
        return _verdict(True, why, source)
    if error:
        return _no_request(error, version, source)
    sent = result["names"]
    if _pairs([answer])[answer] in sent:
        went = _why_rewritten(answer)
    elif answer in sent:
        went = f"{answer!r} went out as registered: this version does not rewrite it"
    else:
        went = f"{answer!r} did not reach the wire, and nothing was raised"
    return _verdict(False, f"no collision: the request went out with tools {sent} ({went})", source)


@_exercise("06-toolchoice-break", "a toolName, as a string")
def fix_tool_choice(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """06. The tool ``get-weather`` is registered under ``search.web``; forcing it with ``toolName: 'search.web'``
    breaks. Which ``toolName`` forces it so that the request offers the tool it forces? Checked on the real
    package (without Node.js: the model's names, and the measured fact that Mastra passes toolChoice unchanged)."""
    if isinstance(answer, dict):  # the whole toolChoice, as the question shows it: its toolName is the answer
        if not isinstance(answer.get("toolName"), str):
            return _verdict(
                False, "the answer is the toolName alone, a string (or {type: 'tool', toolName: ...})", "its form"
            )
        answer = answer["toolName"]
    if _live(measurements, version):
        outcome = _one_turn(Scenario("exercise", tools=(catalogue.WEATHER,), tool_choice=named(str(answer))), version)
        if "error" in (result := outcome.result_json()):
            return _no_request(result["error"], version, _real(version))
        offered, forced, source = outcome.wire_names, outcome.forced_name, _real(version)
    else:
        offered, forced, source = normaliser.normalise([catalogue.WEATHER.key]).names, str(answer), _MODEL
    if forced in offered:
        return _verdict(True, f"tool_choice forces {forced!r} and tools offers {offered}: consistent", source)
    why = (
        f"tool_choice forces {forced!r} but tools offers only {offered}: toolChoice is "
        "sent as written, so it must name the tool as it goes out on the wire"
    )
    return _verdict(False, why, source)


#: 07: the names a scripted model may call the tool back by.
CALLABLE_NAMES = ("search.web", "search_web", "get-weather")
_ROUND_TRIPS = {"search.web": "call-by-key", "search_web": "call-by-wire-name", "get-weather": "call-by-id"}


@_exercise("07-round-trip-and-non-mutation", f"a list of the names among {list(CALLABLE_NAMES)} that run the tool")
def names_that_run(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """07. Of :data:`CALLABLE_NAMES`, which make the tool run when the model calls it by that name (a list)?
    Checked by letting the scripted model call each name on the real package (the recordings without Node.js)."""
    if _live(measurements, version):
        outcomes = run_live([catalogue.by_name()[name] for name in _ROUND_TRIPS.values()], version)
        source = _real(version)
    else:
        recorded = RECORDED.measurement(CATALOGUE, Target(mastra.ADAPTER.name, version)).by_name()
        outcomes, source = [recorded[name] for name in _ROUND_TRIPS.values()], f"the recordings of {version}"
    for outcome in outcomes:  # a call the model never got to make says nothing of which names run
        if "error" in (result := outcome.result_json()):
            return _no_request(result["error"], version, source)
    ran = {o.scenario.name for o in outcomes if o.executions}
    truth = {called for called, scenario in _ROUND_TRIPS.items() if scenario in ran}
    given = set(answer) if isinstance(answer, (list, tuple, set)) else {answer}
    if given == truth:
        why = (
            f"{sorted(truth)} run the tool: the wire name, and the id, which Mastra "
            "also looks tools up by; the original key does not"
        )
        return _verdict(True, why, source)
    return _verdict(False, f"the tool ran for {sorted(truth)}, you said {sorted(map(str, given))}", source)


@_exercise("08-versions", f"a version string, one of {list(mastra.ADAPTER.versions())}")
def first_version_honouring_active_tools(
    answer: object, version: str = ARTICLE, measurements: Source = LIVE
) -> Checked:
    """08. The oldest pinned version on which ``activeTools: ['search_web']`` sends only that tool (a version
    string). Checked on the catalogue's measurements of every pinned version (``measurements``' source)."""
    scenario = catalogue.by_name()["active-tools-by-wire-name"]
    if _live(measurements, version):
        outcomes = {v: run_live([scenario], v)[0] for v in mastra.ADAPTER.versions()}
        source = "the real @mastra/core " + ", ".join(outcomes) + ", run live"
    else:
        outcomes = {m.target.version: m.by_name()[scenario.name] for m in measurements.measurements(CATALOGUE)}
        source = f"the catalogue's measurements ({measurements.parameter}) of " + ", ".join(outcomes)
    honours = {v: outcome.wire_names == ["search_web"] for v, outcome in outcomes.items()}
    first = next((v for v, honoured in honours.items() if honoured), None)
    summary = ", ".join(
        f"{v}: {'selects' if honoured else 'ignored, every tool sent'}" for v, honoured in honours.items()
    )
    why = f"the first is {first} ({summary})" if answer == first else f"not {answer}: {summary}"
    return _verdict(answer == first, why, source)


#: 09: the keys the learner gives safe names to.
SAFE_NAME_KEYS = ("search.web", "search web", "weather😀", "9lives")


@_exercise("09-what-to-do", "a dict {key: safe name} for every key")
def safe_names(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """09. A dict ``{key: name}`` for :data:`SAFE_NAME_KEYS` whose names are distinct, accepted by every
    provider's current documented rule (the ``documented`` rows), and left alone by formatTools. Checked against
    ``data/provider_rules.csv`` and by registering the names on the real package (the model without Node.js)."""
    if not isinstance(answer, Mapping) or set(answer) != set(SAFE_NAME_KEYS):
        return _verdict(False, _keys_wanted(answer, SAFE_NAME_KEYS), "")
    names = [str(answer[key]) for key in SAFE_NAME_KEYS]
    if "" in names:
        return _verdict(False, "a name is empty: the empty key crashes generate() (notebook 05, F03)", "")
    if repeated := sorted({name for name in names if names.count(name) > 1}):
        why = (
            f"two keys got the name {repeated[0]!r}: a tools record holds each name once, so registered under "
            "these names one of the two tools would be lost"
        )
        return _verdict(False, why, "")
    refused = {
        f"{name!r} by {rule.label}: {'; '.join(rule.reasons(name))}"
        for name in names
        for rule in name_rules.rules()
        if rule.variant == "documented" and not rule.accepts(name)
    }
    if refused:
        return _verdict(False, "refused: " + " | ".join(sorted(refused)), "data/provider_rules.csv")
    result, source = _wire_names(names, version, measurements)
    if sorted(result.get("names") or []) == sorted(names):
        why = f"every provider's current documented rule accepts {names}, and Mastra sends them unchanged"
        return _verdict(True, why, source)
    if "error" in result:
        return _no_request(result["error"], version, source)
    missing = [name for name in names if name not in result["names"]]
    why = f"Mastra did not send {missing} as given (it sent {result['names']}): each name must go out unchanged"
    return _verdict(False, why, source)


@_exercise("10-mcp-tool-sets", "a tool set's name from the corpus' record column, e.g. 'aws-ecs awslabs/mcp'")
def mcp_server_mastra_cuts(answer: object, version: str = ARTICLE, measurements: Source = LIVE) -> Checked:
    """10. An MCP server of the corpus (a tool set name such as ``"azure Azure/azure-mcp"``, not a Composio
    toolkit) with at least one tool whose ``@mastra/mcp``-joined name Mastra cuts at 63 or refuses. Checked by
    registering the whole set on the real package (the model without Node.js)."""
    from probe_lib.analysis import corpus
    from probe_lib.inputs import keysets

    frame = corpus.load_corpus()
    try:
        keys = corpus.record_keys(frame, str(answer), keysets.prefix_style("mastra"))
    except KeyError as unknown:
        return _verdict(False, str(unknown).strip("'\""), "data/mcp_tool_names.csv")
    if str(answer).startswith("composio "):
        return _verdict(False, "that is a Composio toolkit: find an MCP server", "data/mcp_tool_names.csv")
    result, source = _wire_names(keys, version, measurements)
    error = result.get("error") or {}
    if error.get("kind") == "collision":
        why = (
            f"Mastra refuses its {len(keys)} tools outright: two of them, cut at 63, both resolve to {error['name']!r}"
        )
        return _verdict(True, why, source)
    if error:
        return _no_request(error, version, source)
    if sorted(result["names"]) == sorted(keys) != sorted(row.name for row in normaliser.normalise(keys).rows):
        why = f"this release sends all {len(keys)} names of {answer!r} as registered: it rewrites no key (V01)"
        return _verdict(False, why, source)
    rows = normaliser.normalise(keys).rows
    if sorted(result["names"]) != sorted(row.name for row in rows):
        return _verdict(False, "the package and the model disagree on this set: report it", source)
    cut = [row for row in rows if row.truncated]
    if cut:
        why = (
            f"{len(cut)} of its {len(keys)} names {'is' if len(cut) == 1 else 'are'} cut, e.g. {cut[0].key!r} goes out "
            f"as {cut[0].name!r}, losing {cut[0].lost!r}"
        )
        return _verdict(True, why, source)
    why = f"Mastra sends all {len(keys)} names of {answer!r} whole (none is over 63 characters once joined)"
    return _verdict(False, why, source)
