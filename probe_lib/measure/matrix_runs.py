"""The framework matrix's probes, and running them live: the same small set of turns on every registered framework.

Each probe registers one tool per key on one framework at one version, once as it is and once forcing one of its
keys (a framework may refuse only the forced run, and then its names are still seen in the plain one). A third run,
the round trip, scripts the model to call the probe's first key by the name the plain run sent for it, and the
runner reports which tool executed. :mod:`probe_lib.analysis.matrix` tabulates what came of them;
:data:`probe_lib.measure.collection.MATRIX` is their collection, kept in ``data/captures/matrix/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace

from probe_lib import frameworks
from probe_lib.capture import CaptureServer
from probe_lib.core.outcome import Outcome, wire_names_by_key
from probe_lib.core.scenarios import FORCED, ROUND_TRIP, Scenario, for_keys, named
from probe_lib.wire.replies import ToolCall, ToolCallsReply

#: Targets measured at once (:attr:`probe_lib.measure.collection.Collection.parallel`).
PARALLEL_TARGETS = os.cpu_count() or 1
#: The arguments of the round trip's scripted tool call.
ROUND_TRIP_ARGS = {"city": "Paris"}


@dataclass(frozen=True)
class Probe:
    """One row of the matrix: a key family, the keys registered, the key forced (if any)."""

    name: str
    family: str
    keys: tuple[str, ...]
    forced: str | None = None

    def scenarios(self) -> list[Scenario]:
        """The keys registered alone (what names go out), then, if a key is forced, the same with it forced."""
        plain = for_keys(self.name, self.keys)
        return [plain] if self.forced is None else [plain, for_keys(self.name + FORCED, self.keys, named(self.forced))]

    def round_trip(self, plain: Outcome) -> Scenario | None:
        """The keys registered again, the model calling the first key by the wire name ``plain`` sent for it
        (``None`` when ``plain`` sent no request or no tool for that key, so there is no wire name to call)."""
        called = wire_names_by_key(list(self.keys), plain).get(self.keys[0]) if plain.requests else None
        if called is None:
            return None
        reply = ToolCallsReply((ToolCall(called, ROUND_TRIP_ARGS),))
        return replace(for_keys(self.name + ROUND_TRIP, self.keys), replies=(reply,))


PROBES: tuple[Probe, ...] = (
    Probe("legal", "legal", ("get_weather", "lookup-user"), "get_weather"),
    Probe("dot", "punctuation", ("search.web", "plain"), "search.web"),
    Probe("space", "punctuation", ("my tool", "plain"), "my tool"),
    Probe("colon-slash", "punctuation", ("ns:read/file", "plain"), "ns:read/file"),
    Probe("leading-digit", "leading digit", ("9lives", "plain"), "9lives"),
    Probe("accent", "unicode", ("météo", "plain"), "météo"),
    Probe("emoji", "unicode", ("weather😀", "plain"), "weather😀"),
    Probe("length-64", "length", ("a" * 64, "plain"), "a" * 64),
    Probe("length-70", "length", ("b" * 70, "plain"), "b" * 70),
    Probe("mcp-prefixed", "mcp", ("github.create_issue", "github__list_issues"), "github.create_issue"),
    Probe("integer-order", "ordering", ("b", "42", "x.y")),
    Probe("collision", "collision", ("search.web", "search_web")),
    Probe("empty", "empty", ("", "plain")),
    Probe("unregistered-choice", "forced unknown", ("plain",), "missing"),
)


def scenarios() -> list[Scenario]:
    """Every probe's plain and forced runs, in probe order."""
    return [scenario for probe in PROBES for scenario in probe.scenarios()]


def round_trips(outcomes: Iterable[Outcome]) -> list[Scenario]:
    """The round-trip scenario of every probe whose plain run (among ``outcomes``, of one target) sent a request."""
    plain = {outcome.scenario.name: outcome for outcome in outcomes}
    made = (probe.round_trip(plain[probe.name]) for probe in PROBES if probe.name in plain)
    return [scenario for scenario in made if scenario is not None]


def targets() -> list[tuple[str, str]]:
    """``(framework, version)`` for every pin of every registered framework."""
    return [(name, version) for name in frameworks.names() for version in frameworks.get(name).versions()]


def by_target(outcomes: Iterable[Outcome]) -> dict[str, dict[str, Outcome]]:
    """``framework@version`` -> scenario name -> outcome: what the ledger judges the frameworks' claims on."""
    grouped: dict[str, dict[str, Outcome]] = {}
    for outcome in outcomes:
        grouped.setdefault(str(outcome.target), {})[outcome.scenario.name] = outcome
    return grouped


def measure_target(name: str, version: str, server: CaptureServer) -> list[Outcome]:
    """Every probe on one target: the plain and forced runs, then the round trips, which call the names the plain
    runs sent."""
    with frameworks.get(name).session(version) as session:
        probed = session.run(scenarios(), server)
        return probed + session.run(round_trips(probed), server)
