"""What a turn did, comparable across versions and frameworks: the typed value :meth:`Outcome.behaviour` produces,
which the timeline stores as JSON (:meth:`Behaviour.to_json`) and reads back (:meth:`Behaviour.from_json`).

The JSON shape is the timeline's stored one: a field absent from a row is ``None`` here, so a row written by a
release that could not run (its error alone) reads back as such, and writing it again gives the same text (its
digest is the timeline's ``outcome``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Raised:
    """What stopped the turn instead of (or after) sending: its kind (``collision``, ``crash``, ``install failed``
    …) and either its message or, for a collision, the name two keys became."""

    kind: str
    message: str | None = None
    name: str | None = None

    def to_json(self) -> dict[str, str]:
        return {
            key: value
            for key, value in (("kind", self.kind), ("message", self.message), ("name", self.name))
            if value is not None
        }


@dataclass(frozen=True)
class Behaviour:
    """One turn's behaviour. ``names`` is ``None`` when no request was sent (then ``tool_choice`` says nothing);
    ``requests``, ``executions`` and ``errors`` are ``None`` only for a release that could not run at all."""

    #: The tool names of the first request, in wire order.
    names: tuple[str, ...] | None = None
    #: The first request's ``tool_choice`` as sent (a JSON value; ``None`` when absent).
    tool_choice: Any = None
    requests: int | None = None
    executions: int | None = None
    #: The messages the turn raised of its own (not the capture server's scripted refusal).
    errors: tuple[str, ...] | None = None
    error: Raised | None = None
    #: Mastra's lookup surfaces, for the scenarios that ask for them.
    surfaces: dict | None = None

    @property
    def sent(self) -> bool:
        """True when at least one request went out."""
        return bool(self.requests)

    def to_json(self) -> dict[str, Any]:
        """The stored shape: ``names`` and ``tool_choice`` only when a request was sent, the others when known."""
        found: dict[str, Any] = {}
        if self.names is not None:
            found |= {"names": list(self.names), "tool_choice": self.tool_choice}
        if self.error is not None:
            found["error"] = self.error.to_json()
        counts = (("requests", self.requests), ("executions", self.executions))
        found |= {key: value for key, value in counts if value is not None}
        if self.errors is not None:
            found["errors"] = list(self.errors)
        if self.surfaces is not None:
            found["surfaces"] = self.surfaces
        return found

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Behaviour:
        """A stored behaviour back; a key it does not know is an error (a row of another shape is not this)."""
        names, errors, error = data.get("names"), data.get("errors"), data.get("error")
        unknown = set(data) - {"names", "tool_choice", "requests", "executions", "errors", "error", "surfaces"}
        if unknown:
            raise ValueError(f"not a behaviour: unknown fields {sorted(unknown)}")
        return cls(
            names=None if names is None else tuple(names),
            tool_choice=data.get("tool_choice"),
            requests=data.get("requests"),
            executions=data.get("executions"),
            errors=None if errors is None else tuple(errors),
            error=None if error is None else Raised(**error),
            surfaces=data.get("surfaces"),
        )
