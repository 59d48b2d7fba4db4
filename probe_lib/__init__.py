"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the README's map of the package; the layers, from the bottom: ``core``, ``wire``, ``capture``,
``providers``, ``inputs``, ``adapters``, ``study``, ``analysis``, ``present``, and the ``cli`` on top.

A notebook needs one import, ``import probe_lib as pl``: the modules it uses are ``pl.<name>`` (:data:`FOR_NOTEBOOKS`),
each imported on first use (with :mod:`probe_lib.present`, which shows a table's missing values as a dash), so the
command line does not pay for the notebooks' pandas and matplotlib.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: What a notebook reaches as ``pl.<name>``: the module behind each name.
FOR_NOTEBOOKS = {
    "adapters": "probe_lib.adapters",
    "api": "probe_lib.study.api",
    "charts": "probe_lib.present.charts",
    "compare": "probe_lib.study.compare",
    "corpus": "probe_lib.analysis.corpus",
    "errors": "probe_lib.core.errors",
    "evidence": "probe_lib.study.evidence",
    "exercises": "probe_lib.teach.exercises",
    "explorer": "probe_lib.present.explorer",
    "explorer_view": "probe_lib.present.explorer_view",
    "keysets": "probe_lib.inputs.keysets",
    "ledger": "probe_lib.claims.ledger",
    "lint": "probe_lib.providers.lint",
    "mastra": "probe_lib.adapters.mastra",
    "matrix": "probe_lib.analysis.matrix",
    "mcp": "probe_lib.adapters.mastra.mcp",
    "measured": "probe_lib.analysis.measured",
    "normaliser": "probe_lib.adapters.mastra.normaliser",
    "paths": "probe_lib.core.paths",
    "permissions": "probe_lib.analysis.permissions",
    "primer": "probe_lib.teach.primer",
    "providers": "probe_lib.providers",
    "ranges": "probe_lib.claims.ranges",
    "remedy": "probe_lib.adapters.mastra.remedy",
    "scenario_files": "probe_lib.inputs.scenario_files",
    "scenarios": "probe_lib.core.scenarios",
    "sources": "probe_lib.study.sources",
    "styles": "probe_lib.present.styles",
    "tables": "probe_lib.analysis.tables",
    "target": "probe_lib.core.target",
    "tidy": "probe_lib.study.tidy",
    "timeline": "probe_lib.analysis.timeline",
    "traffic": "probe_lib.analysis.traffic",
}


def __getattr__(name: str) -> ModuleType:
    if name in FOR_NOTEBOOKS:
        importlib.import_module("probe_lib.present")  # from then on, a notebook's tables show no value as a dash
        return importlib.import_module(FOR_NOTEBOOKS[name])
    raise AttributeError(f"module 'probe_lib' has no attribute {name!r}")
