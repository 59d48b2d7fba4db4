"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the README's map of the package; the layers, from the bottom: ``core``, ``wire``, ``capture``,
``providers``, ``inputs``, ``adapters``, ``study``, ``analysis``, ``present``, and the ``cli`` on top.

An analyst's entry is :func:`study` (``from probe_lib import study``), the one name at the package's top: it stands
for :func:`probe_lib.study.api.study`. The name ``probe_lib.study`` is therefore that function, not the subpackage of
the same name: import the subpackage's modules by ``from probe_lib.study import tidy`` (``import probe_lib.study.tidy``
loads it too, but its dotted name then reaches the function).
"""

from __future__ import annotations

import importlib
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
