"""The explorer's logic: a tools record through one source (the Python model, or a framework version run live),
and everything a reader wants to see of it, without any widget.

``explore(keys, source, tool_choice, active_tools, provider)`` returns an ``ExplorerResult``: per key its wire
name, the rules that fired and its position before and after; the error the framework raised, in its own words;
the request body that left the process; and the provider linter's findings on that body. The widget view
(:mod:`probe_lib.present.explorer_view`) and the static rendering (:mod:`probe_lib.present.explorer_html`) only
draw it, so tests drive this module directly.

Sources are a framework's Python model or one of its versions live, read from the adapter registry, so a framework
the kit learns to run (or a version it pins) appears in every selector by name.
"""

from __future__ import annotations

import atexit
import json
import re
import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass

from probe_lib.adapters import base as registry
from probe_lib.adapters.base import Adapter, Session
from probe_lib.adapters.mastra.runner import FRAMEWORK as MASTRA
from probe_lib.analysis import matrix
from probe_lib.capture import CaptureServer
from probe_lib.core import scenarios
from probe_lib.core.errors import InputError
from probe_lib.core.naming import Collision, NameRule, js_length
from probe_lib.core.outcome import Outcome
from probe_lib.providers import get_rule, lint, rules
from probe_lib.wire.replies import TextReply

#: The most keys one exploration takes: a table of more cannot be read by eye (notebook 10 covers whole corpora).
MAX_KEYS = 1_000
#: What the explorer opens on: the article's awkward keys, with a legal key in the middle.
DEFAULT_KEYS = ("search.web", "2fa-check", "weather-EU", "github:list issues")
DEFAULT_PROVIDER = "openai/documented"
#: One character formatTools keeps (its regex is /[^a-zA-Z0-9_\\-]/g, applied per UTF-16 unit).
_LEGAL_CHAR = re.compile(r"[a-zA-Z0-9_-]")


# -- input --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyInput:
    """Keys in registration order, and what was wrong with the text they came from (one sentence each)."""

    keys: tuple[str, ...]
    notes: tuple[str, ...] = ()


def shown(text: str) -> str:
    """``text`` with lone surrogates and control characters as ``\\uXXXX`` escapes, safe to send to a browser."""
    return "".join(
        f"\\u{ord(char):04x}" if 0xD800 <= ord(char) <= 0xDFFF or (not char.isprintable() and char != " ") else char
        for char in text
    )


def parse_keys(text: str) -> KeyInput:
    """Keys from a text box: one key per line, or a JSON array of strings (for keys that hold a line break, the
    empty key, or a lone surrogate written as ``"\\ud800"``).

    Never raises for bad text: empty lines are skipped, repeated keys keep their first line, more than
    ``MAX_KEYS`` keys are cut, and each of these is said in ``notes``.
    """
    if not isinstance(text, str):
        raise InputError(f"keys must be text, not {type(text).__name__}")
    notes: list[str] = []
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except json.JSONDecodeError as error:
            return KeyInput(
                (),
                (
                    f"the keys look like a JSON array but are not JSON ({error.msg} at column "
                    f"{error.colno}); fix it, or write one key per line",
                ),
            )
        if not isinstance(parsed, list) or not all(isinstance(key, str) for key in parsed):
            return KeyInput((), ('a JSON array of keys must hold strings only, e.g. ["search.web", ""]',))
        lines = [(number, key) for number, key in enumerate(parsed, start=1)]
        where = "item"
    else:
        raw = text.split("\n")
        if any(line.endswith("\r") for line in raw):
            notes.append(
                "Windows line ends (\\r\\n) were read as line ends; write a JSON array for a key ending in \\r"
            )
        raw = [line.removesuffix("\r") for line in raw]
        lines = [(number, line) for number, line in enumerate(raw, start=1) if line != ""]
        empty = len(raw) - len(lines) - (1 if text.endswith("\n") else 0)
        if empty > 0:
            notes.append(
                f"{empty} empty line(s) skipped; to register the empty key (it crashes formatTools), "
                'write the keys as a JSON array, e.g. ["a", ""]'
            )
        where = "line"
    return checked_keys(lines, where, notes)


def checked_keys(numbered: Sequence[tuple[int, str]], where: str = "item", notes: Sequence[str] = ()) -> KeyInput:
    """Keys as a tools record can hold them: repeats dropped (first kept), at most ``MAX_KEYS``, and a note for
    each of these and for lone surrogates. ``numbered`` pairs each key with its line or item number."""
    notes = list(notes)
    first_at: dict[str, int] = {}
    repeats: list[str] = []
    for number, key in numbered:
        if not isinstance(key, str):
            raise InputError(f"{where} {number} is {type(key).__name__}, not text; keys are strings")
        if key in first_at:
            repeats.append(f"{shown(key)!r} ({where} {number} repeats {where} {first_at[key]})")
        else:
            first_at[key] = number
    if repeats:
        shown_repeats = "; ".join(repeats[:5]) + (f"; and {len(repeats) - 5} more" if len(repeats) > 5 else "")
        notes.append(f"a tools record holds each key once, so later copies were dropped: {shown_repeats}")
    keys = tuple(first_at)
    if len(keys) > MAX_KEYS:
        notes.append(
            f"{len(keys):,} keys given; the explorer takes the first {MAX_KEYS:,} (for whole corpora use "
            "probe_lib.analysis.tables.rewrites, as notebook 10 does)"
        )
        keys = keys[:MAX_KEYS]
    lone = [key for key in keys if any(0xD800 <= ord(char) <= 0xDFFF for char in key)]
    if lone:
        notes.append(
            f"{len(lone)} key(s) hold a lone surrogate, shown as \\udXXX: JavaScript strings can hold one, "
            "so the key is kept and measured as it is"
        )
    return KeyInput(keys, tuple(notes))


def keys_as_text(keys: Sequence[str]) -> str:
    """The text ``parse_keys`` reads back as exactly ``keys``: lines when they can carry them, else a JSON array."""
    lines = "\n".join(keys)
    if keys and all(key and "\n" not in key and "\r" not in key for key in keys) and not lines.strip().startswith("["):
        return lines
    return json.dumps(list(keys))


# -- sources ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurement:
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
LIVE_NEEDS = {"mastra": "Node.js 20+ and `probe-lib setup`"}


@dataclass(frozen=True)
class Source:
    """Where a measurement comes from: a framework's Python model of its name rule, or one of its versions live.

    Frameworks and versions come from the adapter registry (:mod:`probe_lib.adapters.base`), so a framework the
    kit learns to run appears in every selector without a change here.
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
    def label(self) -> str:
        name = PACKAGES.get(self.framework, self.framework)
        return f"{name} {self.version}, live" if self.live else f"{name}, Python model"


def sources() -> list[Source]:
    """Every source, framework by framework: the model first (instant), then each pinned version live."""
    found: list[Source] = []
    for name in registry.names():
        adapter = registry.get(name)
        if adapter.name_rule() is not None:
            found.append(Source(name, None))
        found.extend(Source(name, version) for version in adapter.versions())
    return found


def source_named(label: str) -> Source:
    """The source whose ``label`` is ``label``; ``InputError`` lists the labels."""
    for candidate in sources():
        if candidate.label == label:
            return candidate
    raise InputError(f"no source {label!r}; choose one of: {', '.join(s.label for s in sources())}")


def provider_labels() -> list[str]:
    """``provider/variant`` of every rule the linter knows, in file order."""
    return [rule.label for rule in rules()]


class LivePool:
    """One capture server, and one warm runner per live source (a framework at a version), started on first use
    and stopped at exit (when the kernel ends).

    Starting a runner (Node or Python, loading the framework) costs a second or more, so each is kept between runs
    as its adapter's session (:meth:`~probe_lib.adapters.base.Adapter.session`); a runner that fails is replaced
    on the next run. Runs are serialised (a runner serves one batch at a time).
    """

    def __init__(self) -> None:
        self._server: CaptureServer | None = None
        self._sessions: dict[Source, Session] = {}
        self._open = ExitStack()
        self._lock = threading.Lock()
        atexit.register(self.close)

    def run(self, source: Source, scenario: scenarios.Scenario) -> Outcome:
        """The outcome of ``scenario`` on a live ``source``, through the capture server."""
        with self._lock:
            if self._server is None:
                self._server = self._open.enter_context(CaptureServer())
            session = self._sessions.get(source)
            if session is None:
                session = self._sessions[source] = self._open.enter_context(source.adapter.session(source.version))
            return session.run([scenario], self._server)[0]

    def running(self) -> list[Source]:
        """Live sources with a warm runner (read without the lock, which a run holds: ``dict.copy`` is atomic)."""
        return list(self._sessions.copy())

    def close(self) -> None:
        """Stop every runner and the capture server."""
        with self._lock:
            self._open.close()
            self._sessions.clear()
            self._server = None


POOL = LivePool()


def _model(rule: NameRule, keys: tuple[str, ...], tool_choice: str | None) -> Measurement:
    """The name rule's prediction, with a sketch of the request (tools and tool_choice only)."""
    result = rule.normalise(keys)
    if result.error is not None:
        error = result.error
        if isinstance(error, Collision):
            held = "no key (an inherited name)" if error.holder is None else repr(shown(error.holder))
            text = f"model: collision: {shown(error.key)!r} rewrites to {shown(error.name)!r}, already held by {held}"
        else:
            text = f"model: crash on the key {shown(error.key)!r}: {error.message}"
        return Measurement(None, None, (text,), None, False)
    by_position = {row.position_after: row.key for row in result.rows if row.position_after is not None}
    wire_keys = tuple(by_position[position] for position in range(len(by_position)))
    names = tuple(result.names)
    body: dict = {
        "model": f"(sketch by the Python model of {rule.LABEL}: only tools and tool_choice)",
        "messages": [],
        "tools": [{"type": "function", "function": {"name": name}} for name in names],
    }
    body["tool_choice"] = {"type": "function", "function": {"name": tool_choice}} if tool_choice else "auto"
    return Measurement(names, wire_keys, (), body, False)


def _live(
    source: Source, keys: tuple[str, ...], tool_choice: str | None, active_tools: tuple[str, ...] | None
) -> Measurement:
    """One turn on the real package: the first request the capture server received, and the error chain."""
    scenario = scenarios.Scenario(
        name="explore",
        tools=scenarios.tools(*keys),
        tool_choice=scenarios.named(tool_choice) if tool_choice else None,
        active_tools=active_tools,
        replies=(TextReply("explored"),),
    )
    outcome = POOL.run(source, scenario)
    error = tuple(
        f"{link.get('name') or 'Error'}{' [' + link['id'] + ']' if link.get('id') else ''}: {link.get('message', '')}"
        for link in outcome.error
    )
    if not outcome.requests:
        return Measurement(None, None, error or ("no request was sent and no error was raised",), None, True)
    names = tuple(outcome.wire_names)
    key_of = {name: key for key, name in matrix.wire_names_by_key(list(keys), outcome).items()}
    return Measurement(names, tuple(key_of.get(name, name) for name in names), error, outcome.requests[0], True)


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

    source: Source
    keys: tuple[str, ...]
    notes: tuple[str, ...]
    rows: tuple[KeyRow, ...]
    measurement: Measurement
    tool_choice: str | None
    active_tools: tuple[str, ...] | None
    provider: str
    findings: tuple[lint.Finding, ...]
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
    """The key and its wire name split into runs of kept, changed, added (the ``_`` prefix) and cut characters.

    The runs follow the name rule's flags unit by unit, with formatTools' character class (each illegal UTF-16
    unit becomes one ``_``, so an astral character becomes two); a wire name this does not rebuild exactly (or a
    framework without a modelled rule) is shown whole as changed.
    """
    if name == key:
        return (Piece(key, "kept"),), (Piece(key, "kept"),)
    if rule is None:
        return (Piece(key, "changed"),), (Piece(name, "changed"),)
    rewritten = rule.normalise((key,)).rows[0]
    out_units = [("_", "added")] if rewritten.prefixed else []
    key_marks = []
    for char in key:
        legal = _LEGAL_CHAR.fullmatch(char) is not None
        start = len(out_units)
        units = char if legal else "_" * js_length(char)
        out_units.extend((unit, "kept" if legal else "changed") for unit in units)
        key_marks.append((char, "kept" if legal else "changed", start))
    limit = rule.MAX_NAME_LENGTH
    key_pieces = _merge([Piece(char, "cut" if start >= limit else kind) for char, kind, start in key_marks])
    rebuilt = "".join(unit for unit, _ in out_units[:limit])
    if rebuilt != name:
        return key_pieces, (Piece(name, "changed"),)
    return key_pieces, _merge([Piece(unit, kind) for unit, kind in out_units[:limit]])


def _merge(pieces: list[Piece]) -> tuple[Piece, ...]:
    merged: list[Piece] = []
    for piece in pieces:
        if merged and merged[-1].kind == piece.kind:
            merged[-1] = Piece(merged[-1].text + piece.text, piece.kind)
        else:
            merged.append(piece)
    return tuple(merged)


def _rules_of(
    key: str, name: str | None, moved: bool, sent: bool, active: tuple[str, ...] | None, rule: NameRule | None
) -> tuple[str, ...]:
    """The rules that fired on ``key`` (the name rule's flags), its move, and why it was not sent."""
    fired = []
    modelled = rule.normalise((key,)).rows[0] if rule is not None and key else None
    if not key:
        fired.append("empty key: formatTools reads key[0].match and crashes")
    elif modelled is not None:
        if modelled.substituted:
            fired.append("illegal characters → _")
        if modelled.prefixed:
            fired.append("_ prefixed (first character not a letter or _)")
        if modelled.truncated:
            fired.append(f"cut to {rule.MAX_NAME_LENGTH} (lost {shown(modelled.lost)!r})")
    if moved:
        fired.append("moved to the end (rewritten keys are re-added)")
    if sent and name is None:
        fired.append(
            "not sent (activeTools does not name it)" if active is not None else "not sent (never reaches the wire)"
        )
    if name is not None and modelled is not None and name != modelled.name:
        fired.append(f"differs from the Python model, which predicts {shown(modelled.name)!r}")
    return tuple(fired)


def explore(
    keys: str | Sequence[str],
    source: Source | str | None = None,
    tool_choice: str | None = None,
    active_tools: Sequence[str] | str | None = None,
    provider: str = DEFAULT_PROVIDER,
) -> ExplorerResult:
    """Run ``keys`` (text as ``parse_keys`` reads it, or a sequence) through ``source`` and describe the outcome.

    ``source`` is a ``Source`` or its label (default: Mastra's Python model); ``tool_choice`` forces one tool by
    name (empty: none); ``active_tools`` restricts the tools sent (text: one name per line; empty: no
    restriction); ``provider`` is a ``provider/variant`` label of the linter's rules. Raises ``InputError`` for an
    unknown source or provider, or a live source not installed here, and ``HarnessError`` when a live run fails.
    """
    started = time.perf_counter()
    given = parse_keys(keys) if isinstance(keys, str) else checked_keys(list(enumerate(keys, start=1)))
    if not isinstance(source, Source):
        source = Source(MASTRA, None) if source is None else source_named(source)
    provider_name, _, variant = provider.partition("/")
    provider_rule = get_rule(provider_name, variant or None)
    choice = (tool_choice or "").strip("\n") or None
    if isinstance(active_tools, str):
        active_tools = tuple(line for line in active_tools.split("\n") if line) or None
    active = tuple(active_tools) if active_tools else None
    notes = list(given.notes)
    name_rule = source.adapter.name_rule(source.version)
    if not given.keys:
        measurement = Measurement(None, None, (), None, False)
        return ExplorerResult(
            source,
            (),
            tuple(notes) or ("type or paste keys, one per line",),
            (),
            measurement,
            choice,
            active,
            provider_rule.label,
            (),
            time.perf_counter() - started,
        )
    if source.live:
        if not source.adapter.is_installed(source.version):
            needs = LIVE_NEEDS.get(source.framework, "`probe-lib setup`")
            raise InputError(f"{source.label} cannot run here: it needs {needs}; choose the Python model")
        measurement = _live(source, given.keys, choice, active)
    else:
        if active is not None:
            notes.append("the Python model does not model activeTools; choose a live source to see what it does")
        measurement = _model(name_rule, given.keys, choice)
    after = {key: position for position, key in enumerate(measurement.wire_keys or ())}
    names = dict(zip(measurement.wire_keys or (), measurement.wire_names or ()))
    rows = []
    for before, key in enumerate(given.keys):
        name = names.get(key)
        would_be = name_rule.normalise((key,)).rows[0].name if name_rule is not None else key
        key_pieces, name_pieces = _pieces(key, would_be if name is None else name, name_rule)
        position = after.get(key)
        moved = position is not None and name != key
        fired = _rules_of(key, name, moved, measurement.wire_names is not None, active, name_rule)
        rows.append(KeyRow(key, name, fired, before, position, key_pieces, name_pieces))
    body = measurement.body
    findings = tuple(lint.lint_body(body, provider_rule, name_rule=name_rule)) if body is not None else ()
    return ExplorerResult(
        source,
        given.keys,
        tuple(notes),
        tuple(rows),
        measurement,
        choice,
        active,
        provider_rule.label,
        findings,
        time.perf_counter() - started,
    )
