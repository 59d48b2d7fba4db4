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
    "charts": "probe_lib.present.charts",
    "compare": "probe_lib.study.compare",
    "evidence": "probe_lib.study.evidence",
    "exercises": "probe_lib.teach.exercises",
    "keysets": "probe_lib.inputs.keysets",
    "ledger": "probe_lib.claims.ledger",
    "lint": "probe_lib.providers.lint",
    "matrix": "probe_lib.analysis.matrix",
    "measured": "probe_lib.analysis.measured",
    "normaliser": "probe_lib.adapters.mastra.normaliser",
    "paths": "probe_lib.core.paths",
    "permissions": "probe_lib.analysis.permissions",
    "providers": "probe_lib.providers",
    "remedy": "probe_lib.adapters.mastra.remedy",
    "sources": "probe_lib.study.sources",
    "styles": "probe_lib.present.styles",
    "tables": "probe_lib.analysis.tables",
    "target": "probe_lib.core.target",
    "tidy": "probe_lib.study.tidy",
    "traffic": "probe_lib.analysis.traffic",
}


def __getattr__(name: str) -> ModuleType:
    if name in FOR_NOTEBOOKS:
        importlib.import_module("probe_lib.present")  # from then on, a notebook's tables show no value as a dash
        return importlib.import_module(FOR_NOTEBOOKS[name])
    raise AttributeError(f"module 'probe_lib' has no attribute {name!r}")
