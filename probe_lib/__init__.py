"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the package map in ``docs/architecture.md``. The layers, from the bottom: ``core`` and ``wire``;
``capture``, ``providers`` and ``inputs``; ``install`` and ``process``; ``frameworks`` (one adapter per framework);
``measure`` (collections and their measurements, live or recorded), ``history`` (sweeps and the timeline),
``tables`` (the tidy tables and the exports); ``analysis``; ``claims``; ``present``; ``teach``; ``report``; ``repro``;
and the ``cli`` on top. ``pyproject.toml`` holds the layers as an import-linter contract.

A notebook needs one import, ``import probe_lib as pl``: the modules it uses are ``pl.<name>`` (:data:`FOR_NOTEBOOKS`),
each imported on first use (with :mod:`probe_lib.present`, which shows a table's missing values as a dash), so the
command line does not pay for the notebooks' pandas and matplotlib.

An analyst's entry is :func:`study` (``from probe_lib import study``): :func:`probe_lib.tables.api.study`, loaded on
its first call.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from probe_lib.core.target import Target
    from probe_lib.measure.sources import Source
    from probe_lib.tables.api import ScenarioSource, Study, TargetLike


def study(
    scenarios: ScenarioSource | Iterable[ScenarioSource],
    targets: TargetLike | Iterable[TargetLike],
    *,
    measurements: Source | str | Path = "live",
    on_target: Callable[[Target, int], None] | None = None,
) -> Study:
    """Measure (or read) every scenario on every target (``"framework@version"``): :func:`probe_lib.tables.api.study`,
    whose docstring says what each argument takes. Its pandas and frameworks load on the first call, so that
    ``import probe_lib`` (the command line's first step) stays quick."""
    from probe_lib.tables import api

    return api.study(scenarios, targets, measurements=measurements, on_target=on_target)


#: What a notebook reaches as ``pl.<name>``: the module behind each name.
FOR_NOTEBOOKS = {
    "frameworks": "probe_lib.frameworks",
    "api": "probe_lib.tables.api",
    "charts": "probe_lib.present.charts",
    "collection": "probe_lib.measure.collection",
    "committed": "probe_lib.history.timeline",
    "compare": "probe_lib.tables.compare",
    "corpus": "probe_lib.analysis.corpus",
    "errors": "probe_lib.core.errors",
    "evidence": "probe_lib.tables.evidence",
    "exercises": "probe_lib.teach.exercises",
    "explorer": "probe_lib.present.explorer",
    "explorer_view": "probe_lib.present.explorer_view",
    "folded": "probe_lib.present.folded",
    "framework_ranges": "probe_lib.claims.framework_ranges",
    "keysets": "probe_lib.inputs.keysets",
    "ledger": "probe_lib.claims.ledger",
    "lint": "probe_lib.providers.lint",
    "mastra": "probe_lib.frameworks.mastra",
    "matrix": "probe_lib.analysis.matrix",
    "mcp": "probe_lib.frameworks.mastra.mcp",
    "measured": "probe_lib.analysis.measured",
    "name_tables": "probe_lib.analysis.tables",
    "normaliser": "probe_lib.frameworks.mastra.normaliser",
    "patches": "probe_lib.repro.patches",
    "paths": "probe_lib.core.paths",
    "permissions": "probe_lib.analysis.permissions",
    "primer": "probe_lib.teach.primer",
    "providers": "probe_lib.providers",
    "ranges": "probe_lib.claims.ranges",
    "remedy": "probe_lib.frameworks.mastra.remedy",
    "scenario_files": "probe_lib.inputs.scenario_files",
    "scenarios": "probe_lib.core.scenarios",
    "since": "probe_lib.claims.since",
    "sources": "probe_lib.measure.sources",
    "styles": "probe_lib.present.styles",
    "target": "probe_lib.core.target",
    "tidy": "probe_lib.tables.tidy",
    "timeline": "probe_lib.analysis.timeline",
    "timeline_chart": "probe_lib.present.timeline",
    "traffic": "probe_lib.analysis.traffic",
    "verify": "probe_lib.repro.verify",
}


def __getattr__(name: str) -> ModuleType:
    if name in FOR_NOTEBOOKS:
        importlib.import_module("probe_lib.present")  # from then on, a notebook's tables show no value as a dash
        return importlib.import_module(FOR_NOTEBOOKS[name])
    raise AttributeError(f"module 'probe_lib' has no attribute {name!r}")
