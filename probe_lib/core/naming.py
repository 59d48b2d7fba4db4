"""How a framework turns tool keys into wire names, in a framework-neutral shape.

A *name rule* is the Python model of one framework's rewrite (Mastra's ``formatTools`` is the first: the module
:mod:`probe_lib.frameworks.mastra.normaliser` satisfies :class:`NameRule`). Key sets, tables, charts and the linter
take a rule as a parameter, so another framework's rule plugs in without copying them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

#: What a rule says of one key on its own: ``(name, substituted, prefixed, truncated, lost)``.
Rules = tuple[str, bool, bool, bool, str]


def js_length(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript's ``String.prototype.length`` counts it."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


@dataclass(frozen=True, slots=True)
class KeyRewrite:
    """How one registered key became (or would have become) a wire name, and which rules did it."""

    key: str
    name: str
    substituted: bool
    prefixed: bool
    truncated: bool
    #: Characters the length cut removed from the end (after substitution and prefix).
    lost: str
    #: Index in the caller's registration order.
    position_before: int
    #: Index in the tools list on the wire (``None`` when the normaliser raised or the key vanished).
    position_after: int | None

    @property
    def rewritten(self) -> bool:
        return self.name != self.key


@dataclass(frozen=True, slots=True)
class Part:
    """One character of a key and what a rule writes for it; ``key`` is empty for what the rule adds of its own
    (Mastra: the ``_`` prefix). A key's parts, their ``name``s joined, are its rewrite before the length cut."""

    key: str
    name: str


@dataclass(frozen=True, slots=True)
class Collision:
    """``key`` rewrites onto ``name``, which is already taken (Mastra: ``AGENT_TOOL_NAME_COLLISION``).

    ``holder`` is the key that holds ``name`` already, or ``None`` when no key does (in JavaScript, a name that
    ``Object.prototype`` carries).
    """

    name: str
    key: str
    holder: str | None

    kind = "collision"

    def to_json(self) -> dict:
        return {"kind": self.kind, "name": self.name}


@dataclass(frozen=True, slots=True)
class Crash:
    """The normaliser threw something other than a collision (``message`` as JavaScript reports it)."""

    message: str
    key: str

    kind = "crash"

    def to_json(self) -> dict:
        return {"kind": self.kind, "message": self.message}


@dataclass(frozen=True)
class Result:
    """What a rule makes of one tools record: wire names, or the error the framework raises.

    ``rows`` are built on first use, since one object per key is most of the cost of a batch that only needs
    the names (the CLI, the differential tests); ``Result`` keeps each key's rules and the wire order instead.
    """

    keys: tuple[str, ...]
    error: Collision | Crash | None
    #: ``_apply_rules`` of each key, in registration order.
    _rules: tuple[Rules, ...] = field(repr=False)
    #: Positions in ``keys`` of the tools on the wire, in wire order (empty when the normaliser raised).
    _wire_order: tuple[int, ...] = field(repr=False)

    @cached_property
    def rows(self) -> tuple[KeyRewrite, ...]:
        """One row per key, in registration order (rows after an error describe the rewrite that would have run)."""
        position_after = {before: after for after, before in enumerate(self._wire_order)}
        return tuple(
            KeyRewrite(key, *rules, before, position_after.get(before))
            for before, (key, rules) in enumerate(zip(self.keys, self._rules))
        )

    @property
    def names(self) -> list[str] | None:
        """Tool names in wire order, or ``None`` when the normaliser raised."""
        if self.error is not None:
            return None
        return [self._rules[before][0] for before in self._wire_order]

    def to_json(self) -> dict:
        """The CLI's result object: ``{"names": [...]}`` or ``{"error": {...}}``."""
        if self.error is not None:
            return {"error": self.error.to_json()}
        return {"names": self.names}


class NameRule(Protocol):
    """A framework's rewrite of tool keys, modelled in Python."""

    #: How tables and charts name the rule ("Mastra formatTools (Python model)").
    LABEL: str
    #: The length the rule cuts names to, in UTF-16 code units.
    MAX_NAME_LENGTH: int
    #: Names taken before any key is registered, so a rewrite onto one collides alone (JavaScript:
    #: ``Object.prototype``'s).
    INHERITED_NAMES: frozenset[str]

    def rewrite(self, key: str) -> str:
        """The name ``key`` gets on its own (no collision check)."""

    def parts(self, key: str) -> tuple[Part, ...]:
        """``key`` rewritten on its own, character by character, before the length cut (what the explorer
        highlights: kept, replaced, added)."""

    def explain(self, key: str) -> tuple[str, ...]:
        """The rules that fire on ``key`` on its own, each in a few words (``"illegal characters → _"``)."""

    def normalise(self, keys: Iterable[str]) -> Result:
        """Wire names of a whole record registered in ``keys`` order, or the error the framework raises."""
