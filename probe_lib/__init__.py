"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the README's map of the package; the layers, from the bottom: ``core``, ``wire``, ``capture``,
``providers``, ``inputs``, ``adapters``, ``study``, ``analysis``, ``present``, and the ``cli`` on top.

A notebook needs one import, ``import probe_lib as pl``: the modules it uses are ``pl.<name>`` (:data:`FOR_NOTEBOOKS`),
each imported on first use (with :mod:`probe_lib.present`, which shows a table's missing values as a dash), so the
command line does not pay for the notebooks' pandas and matplotlib.

An analyst's entry is :func:`study` (``from probe_lib import study``), the one name at the package's top: it stands
for :func:`probe_lib.study.api.study`. The name ``probe_lib.study`` is therefore that function, not the subpackage of
the same name: import the subpackage's modules by ``from probe_lib.study import tidy`` (``import probe_lib.study.tidy``
loads it too, but its dotted name then reaches the function).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from probe_lib.core.target import Target
    from probe_lib.study.api import ScenarioSource, Study, TargetLike
    from probe_lib.study.sources import Source

# The first import of a subpackage sets its parent's attribute of the same name, which would replace the function
# below with the subpackage ``probe_lib.study``; importing it first (its __init__ is a docstring) lets the function
# keep the name.
importlib.import_module("probe_lib.study")


def study(
    scenarios: ScenarioSource | Iterable[ScenarioSource],
    targets: TargetLike | Iterable[TargetLike],
    *,
    measurements: Source | str | Path = "live",
    on_target: Callable[[Target, int], None] | None = None,
) -> Study:
    """Measure (or read) every scenario on every target (``"framework@version"``): :func:`probe_lib.study.api.study`,
    whose docstring says what each argument takes. Its pandas and frameworks load on the first call, so that
    ``import probe_lib`` (the command line's first step) stays quick."""
    from probe_lib.study import api

    return api.study(scenarios, targets, measurements=measurements, on_target=on_target)


#: What a notebook reaches as ``pl.<name>``: the module behind each name.
FOR_NOTEBOOKS = {
    "charts": "probe_lib.present.charts",
    "evidence": "probe_lib.study.evidence",
    "exercises": "probe_lib.teach.exercises",
    "keysets": "probe_lib.inputs.keysets",
    "ledger": "probe_lib.claims.ledger",
    "lint": "probe_lib.providers.lint",
    "measured": "probe_lib.analysis.measured",
    "normaliser": "probe_lib.adapters.mastra.normaliser",
    "paths": "probe_lib.core.paths",
    "providers": "probe_lib.providers",
    "remedy": "probe_lib.adapters.mastra.remedy",
    "sources": "probe_lib.study.sources",
    "styles": "probe_lib.present.styles",
    "tables": "probe_lib.analysis.tables",
    "tidy": "probe_lib.study.tidy",
}


def __getattr__(name: str) -> ModuleType:
    if name in FOR_NOTEBOOKS:
        importlib.import_module("probe_lib.present")  # from then on, a notebook's tables show no value as a dash
        return importlib.import_module(FOR_NOTEBOOKS[name])
    raise AttributeError(f"module 'probe_lib' has no attribute {name!r}")
