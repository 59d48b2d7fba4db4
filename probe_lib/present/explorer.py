"""The explorer's logic: a tools record through one source (the Python model, or a framework version run live),
and everything a reader wants to see of it, without any widget.

``explore(keys, source, tool_choice, active_tools, provider, pool)`` returns an ``ExplorerResult``: per key its wire
name, the rules that fired (in the words of the framework's name rule) and its position before and after; the error
the framework raised, in its own words; the request body that left the process; and the provider linter's findings
on that body. A live source runs on the warm runners of the caller's ``pool``
(:class:`~probe_lib.frameworks.session_pool.SessionPool`; the view keeps one for its lifetime). The widget view
(:mod:`probe_lib.present.explorer_view`) and the static rendering (:mod:`probe_lib.present.explorer_html`) only
draw it, so tests drive this module directly.
"""

from __future__ import annotations

import reprlib
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing, nullcontext
from dataclasses import dataclass
from itertools import groupby

from probe_lib import wire
from probe_lib.core import scenarios
from probe_lib.core.errors import InputError
from probe_lib.core.json_input import quote
from probe_lib.core.naming import Collision, NameRule
from probe_lib.core.outcome import wire_names_by_key
from probe_lib.core.target import Target
from probe_lib.frameworks import base as registry
from probe_lib.frameworks.base import Adapter
from probe_lib.frameworks.mastra.runner import FRAMEWORK as MASTRA
from probe_lib.frameworks.session_pool import SessionPool
from probe_lib.inputs.records import checked_keys, parse_keys, shown
from probe_lib.providers import get_rule, lint
from probe_lib.wire.replies import TextReply

#: What the explorer opens on: the article's awkward keys, with a legal key in the middle.
DEFAULT_KEYS = ("search.web", "2fa-check", "weather-EU", "github:list issues")
DEFAULT_PROVIDER = "openai/documented"


# -- sources ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExplorerMeasurement:
    """What one source made of a tools record and its call options."""

    #: Tool names in the request's ``tools``, in order; ``None`` when no request was sent.
    wire_names: tuple[str, ...] | None
    #: For each wire name, the registered key it came from.
    wire_keys: tuple[str, ...] | None
    #: The error raised, outermost first, each link as the framework words it (``name [id]: message``).
    error: tuple[str, ...]
    #: The first request body: captured from the wire (live), or the model's sketch of it.
    body: dict | None
    captured: bool


#: The package each framework is published as, by adapter name (how source labels name it).
PACKAGES = {"mastra": "@mastra/core"}
#: What live runs need, by adapter name (said when a live source cannot run here).
LIVE_NEEDS = {"mastra": "Node.js (the kit is measured on 20) and `probe-lib setup`"}


@dataclass(frozen=True)
class ExplorerSource:
    """Where a measurement comes from: a framework's Python model of its name rule, or one of its versions live.

    Frameworks and versions come from the adapter registry (:mod:`probe_lib.frameworks.base`), so a framework the
    kit learns to run (or a version it pins) appears in every selector without a change here.
    """

    framework: str
    version: str | None  # None: the framework's Python model

    @property
    def live(self) -> bool:
        return self.version is not None

    @property
    def adapter(self) -> Adapter:
        return registry.get(self.framework)

    @property
    def target(self) -> Target:
        """The version a live source runs."""
        if self.version is None:
            raise InputError(f"{self.label} runs no version")
        return Target(self.framework, self.version)

    @property
    def name_rule(self) -> NameRule | None:
        """The Python model of the framework's rewrite that rows are explained by (``None``: it has none)."""
        return self.adapter.name_rule(self.version)

    @property
    def label(self) -> str:
        name = PACKAGES.get(self.framework, self.framework)
        return f"{name} {self.version}, live" if self.live else f"{name}, Python model"


def sources() -> list[ExplorerSource]:
    """Every source, framework by framework: the model first (instant), then each pinned version live (any other
    served release is a source by ``FRAMEWORK@VERSION``, :func:`source_named`)."""
    found: list[ExplorerSource] = []
    for name in registry.names():
        if ExplorerSource(name, None).name_rule is not None:
            found.append(ExplorerSource(name, None))
        found.extend(ExplorerSource(name, version) for version in registry.get(name).versions())
    return found


def source_named(label: str) -> ExplorerSource:
    """The source whose ``label`` is ``label``, or ``FRAMEWORK@VERSION``: any release its registry serves, live
    (installed on first use); ``InputError`` lists the labels."""
    for candidate in sources():
        if candidate.label == label:
            return candidate
    framework, at, version = label.partition("@")
    if framework in registry.names() and at:
        target = registry.check_target(Target(framework, version))
        return ExplorerSource(target.framework, target.version)
    raise InputError(
        f"no source {quote(label)}; choose one of: {', '.join(s.label for s in sources())}, or FRAMEWORK@VERSION"
    )


def _model(rule: NameRule, keys: tuple[str, ...], tool_choice: str | None) -> ExplorerMeasurement:
    """The name rule's prediction, with a sketch of the request (tools and tool_choice only)."""
    result = rule.normalise(keys)
    if result.error is not None:
        error = result.error
        if isinstance(error, Collision):
            held = "no key (an inherited name)" if error.holder is None else repr(shown(error.holder))
            text = f"model: collision: {shown(error.key)!r} rewrites to {shown(error.name)!r}, already held by {held}"
        else:
            text = f"model: crash on the key {shown(error.key)!r}: {error.message}"
        return ExplorerMeasurement(None, None, (text,), None, False)
    by_position = {row.position_after: row.key for row in result.rows if row.position_after is not None}
    wire_keys = tuple(by_position[position] for position in range(len(by_position)))
    names = tuple(result.names)
    model = f"(sketch by the Python model of {rule.LABEL}: only tools and tool_choice)"
    return ExplorerMeasurement(names, wire_keys, (), wire.CHAT_COMPLETIONS.request(model, names, tool_choice), False)


def _live(
    source: ExplorerSource,
    keys: tuple[str, ...],
    tool_choice: str | None,
    active_tools: tuple[str, ...] | None,
    pool: SessionPool,
) -> ExplorerMeasurement:
    """One turn on the real package through ``pool``: the first request the capture server received, and the
    error chain."""
    scenario = scenarios.Scenario(
        name="explore",
        tools=scenarios.tools(*keys),
        tool_choice=scenarios.named(tool_choice) if tool_choice else None,
        active_tools=active_tools,
        replies=(TextReply("explored"),),
    )
    outcome = pool.run(source.target, scenario)
    error = tuple(
        f"{link.get('name') or 'Error'}{' [' + link['id'] + ']' if link.get('id') else ''}: {link.get('message', '')}"
        for link in outcome.error
    )
    if not outcome.requests:
        return ExplorerMeasurement(None, None, error or ("no request was sent and no error was raised",), None, True)
    names = tuple(outcome.wire_names)
    keys_of: dict[str, list[str]] = {}  # two keys may go out under one name (a framework that lists it twice)
    for key, name in wire_names_by_key(keys, outcome).items():
        keys_of.setdefault(name, []).append(key)
    wire_keys = tuple(keys_of[name].pop(0) if keys_of.get(name) else name for name in names)
    return ExplorerMeasurement(names, wire_keys, error, outcome.requests[0], True)


# -- one exploration ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """A run of characters of a key or a wire name, and what happened to it (``kept``, ``changed``, ``added``,
    ``cut``)."""

    text: str
    kind: str


@dataclass(frozen=True)
class KeyRow:
    """One registered key: its wire name (``None``: not sent), the rules that fired, and its positions."""

    key: str
    name: str | None
    rules: tuple[str, ...]
    before: int
    after: int | None
    key_pieces: tuple[Piece, ...]
    name_pieces: tuple[Piece, ...]


@dataclass(frozen=True)
class ExplorerResult:
    """Everything the explorer shows for one input (see the module docstring)."""

    source: ExplorerSource
    keys: tuple[str, ...]
    notes: tuple[str, ...]
    rows: tuple[KeyRow, ...]
    measurement: ExplorerMeasurement
    provider: str
    findings: tuple[lint.LintFinding, ...]
    elapsed_s: float

    @property
    def sent(self) -> bool:
        return self.measurement.wire_names is not None

    @property
    def headline(self) -> str:
        """One line: what was measured where, and what happened."""
        where = self.source.label
        if not self.keys:
            return f"{where}: no keys to explore"
        if not self.sent:
            return f"{where}: {len(self.keys)} key(s); no request was sent: {self.measurement.error[-1]}"
        names = self.measurement.wire_names
        renamed = sum(1 for row in self.rows if row.name is not None and row.name != row.key)
        failing = sum(1 for finding in self.findings if finding.severity in lint.FAILING)
        return (
            f"{where}: {len(self.keys)} key(s), {len(names)} tool(s) sent, {renamed} renamed; "
            f"{self.provider}: {failing} failing finding(s)"
        )


def _pieces(key: str, name: str, rule: NameRule | None) -> tuple[tuple[Piece, ...], tuple[Piece, ...]]:
    """The key and its wire name split into runs of kept, changed, added and cut characters.

    The runs are the name rule's own parts of the rewrite (:meth:`~probe_lib.core.naming.NameRule.parts`), cut at
    its length; a wire name they do not rebuild exactly (or a framework without a modelled rule) is shown whole as
    changed.
    """
    if name == key:
        return (Piece(key, "kept"),), (Piece(key, "kept"),)
    if rule is None:
        return (Piece(key, "changed"),), (Piece(name, "changed"),)
    written: list[tuple[str, str]] = []  # each character of the rewrite before the cut, and its kind
    key_marks = []  # each character of the key, its kind, and where its rewrite starts
    for part in rule.parts(key):
        kind = "added" if not part.key else "kept" if part.name == part.key else "changed"
        if part.key:
            key_marks.append((part.key, kind, len(written)))
        written.extend((char, kind) for char in part.name)
    limit = rule.MAX_NAME_LENGTH
    key_pieces = _merge([Piece(char, "cut" if start >= limit else kind) for char, kind, start in key_marks])
    if "".join(char for char, _ in written[:limit]) != name:
        return key_pieces, (Piece(name, "changed"),)
    return key_pieces, _merge([Piece(char, kind) for char, kind in written[:limit]])


def _merge(pieces: list[Piece]) -> tuple[Piece, ...]:
    """Neighbouring pieces of one kind as one."""
    return tuple(Piece("".join(p.text for p in run), kind) for kind, run in groupby(pieces, key=lambda p: p.kind))


def _rules_of(
    key: str, name: str | None, modelled: str, moved: bool, sent: bool, restricted: bool, rule: NameRule | None
) -> tuple[str, ...]:
    """The rules that fired on ``key`` (in the name rule's words), its move, why it was not sent (``restricted``:
    activeTools was given), and whether the name sent differs from ``modelled``, the name ``rule`` gives it."""
    fired = list(rule.explain(key)) if rule is not None else []
    if moved:
        fired.append("moved to the end (rewritten keys are re-added)")
    if sent and name is None:
        fired.append("not sent (activeTools does not name it)" if restricted else "not sent (never reaches the wire)")
    if name is not None and rule is not None and key and name != modelled:
        fired.append(f"differs from the Python model, which predicts {shown(modelled)!r}")
    return tuple(fired)


def _check_types(keys: object, source: object, tool_choice: object, active_tools: object, provider: object) -> None:
    """``InputError`` naming the first argument of :func:`explore` given a type it does not take (a dict's keys or
    bytes' integers would be read as keys)."""

    def listed(value: object) -> bool:  # what study() takes as keys too: any iterable but text, bytes and a mapping
        return isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Mapping))

    wrong = [
        (name, value, takes)
        for name, value, fits, takes in (
            ("keys", keys, isinstance(keys, str) or listed(keys), "text, one key per line, or a list of strings"),
            (
                "source",
                source,
                source is None or isinstance(source, (str, ExplorerSource)),
                "a label or FRAMEWORK@VERSION",
            ),
            ("tool_choice", tool_choice, tool_choice is None or isinstance(tool_choice, str), "a tool name"),
            (
                "active_tools",
                active_tools,
                active_tools is None or isinstance(active_tools, str) or listed(active_tools),
                "names, one per line, or a list of them",
            ),
            ("provider", provider, isinstance(provider, str), "a provider/variant label"),
        )
        if not fits
    ]
    if wrong:
        name, value, takes = wrong[0]
        raise InputError(f"explore's {name} is {takes}, not {type(value).__name__} {reprlib.repr(value)}")


def explore(
    keys: str | Sequence[str],
    source: ExplorerSource | str | None = None,
    tool_choice: str | None = None,
    active_tools: Sequence[str] | str | None = None,
    provider: str = DEFAULT_PROVIDER,
    pool: SessionPool | None = None,
) -> ExplorerResult:
    """Run ``keys`` (text as ``parse_keys`` reads it, or a sequence) through ``source`` and describe the outcome.

    ``source`` is a ``ExplorerSource``, its label or ``FRAMEWORK@VERSION`` (any served release, installed on first use;
    default: Mastra's Python model); ``tool_choice`` forces one tool by name (empty: none); ``active_tools``
    restricts the tools sent (text: one name per line; empty: no restriction); ``provider`` is a
    ``provider/variant`` label of the linter's rules. A live source runs on ``pool``'s warm runner (default: a
    runner started for this run and stopped after it). Raises ``InputError`` for an unknown source or provider, or a
    live source that cannot run here, and ``HarnessError`` when a live run fails.
    """
    started = time.perf_counter()
    _check_types(keys, source, tool_choice, active_tools, provider)
    given = parse_keys(keys) if isinstance(keys, str) else checked_keys(list(enumerate(keys, start=1)))
    if not isinstance(source, ExplorerSource):
        source = ExplorerSource(MASTRA, None) if source is None else source_named(source)
    provider_name, _, variant = provider.partition("/")
    provider_rule = get_rule(provider_name, variant or None)
    choice = (tool_choice or "").strip("\n") or None
    if isinstance(active_tools, str):
        active_tools = tuple(line for line in active_tools.split("\n") if line) or None
    active = tuple(active_tools) if active_tools else None
    notes = list(given.notes)
    name_rule = source.name_rule
    if not given.keys:
        measurement = ExplorerMeasurement(None, None, (), None, False)
        notes = notes or ["type or paste keys, one per line"]
    elif source.live:
        if not source.adapter.can_run(source.version):  # a served release installs on first use
            needs = LIVE_NEEDS.get(source.framework, "`probe-lib setup`")
            raise InputError(f"{source.label} cannot run here: it needs {needs}; choose the Python model")
        with closing(SessionPool()) if pool is None else nullcontext(pool) as running:
            measurement = _live(source, given.keys, choice, active, running)
    else:
        if active is not None:
            notes.append("the Python model does not model activeTools; choose a live source to see what it does")
        measurement = _model(name_rule, given.keys, choice)
    after = {key: position for position, key in enumerate(measurement.wire_keys or ())}
    names = dict(zip(measurement.wire_keys or (), measurement.wire_names or ()))
    rows, sent = [], measurement.wire_names is not None
    for before, key in enumerate(given.keys):
        name = names.get(key)
        would_be = name_rule.normalise((key,)).rows[0].name if name_rule is not None else key
        key_pieces, name_pieces = _pieces(key, would_be if name is None else name, name_rule)
        position = after.get(key)
        moved = position is not None and name != key and position != before  # not when the order held
        fired = _rules_of(key, name, would_be, moved, sent, active is not None, name_rule)
        rows.append(KeyRow(key, name, fired, before, position, key_pieces, name_pieces))
    body = measurement.body
    findings = tuple(lint.lint_body(body, provider_rule, name_rule=name_rule)) if body is not None else ()
    return ExplorerResult(
        source,
        given.keys,
        tuple(notes),
        tuple(rows),
        measurement,
        provider_rule.label,
        findings,
        time.perf_counter() - started,
    )
