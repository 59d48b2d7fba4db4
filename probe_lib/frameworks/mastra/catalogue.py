"""The fixed scenarios behind every claim of the ledger: recorded per version, rerun live by ``reproduce``.

Each scenario is one agent turn that isolates one behaviour. They are written in ``catalogue.yaml`` beside this
module, in the same scenario file format a user writes their own in (:mod:`probe_lib.inputs.scenario_files`), so
there is one way to say what a scenario is. Names are stable: the ledger, the notebooks and the recordings in
``data/captures/`` refer to scenarios by name.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from probe_lib.core.scenarios import Scenario
from probe_lib.inputs import scenario_files

PATH = Path(__file__).with_name("catalogue.yaml")

#: The docs' built-in tools table as the article quotes it (export name -> the id the docs say the model sees).
#: A claim's subject, not the package's facts: the runner reads those from the installed package.
DOCS_BUILTIN_TABLE = {
    "askUserTool": "ask_user",
    "submitPlanTool": "submit_plan",
    "taskWriteTool": "task_write",
    "webFetchTool": "web_fetch",
}
#: The length in the provider error issue 6302 quotes (a tools[].function.name of 67 against a maximum of 64).
ISSUE_6302_LENGTH = 67


@cache
def _loaded() -> tuple[Scenario, ...]:
    return tuple(scenario_files.load(PATH))


def scenarios() -> list[Scenario]:
    """Every catalogued scenario, in a stable order (the file's)."""
    return list(_loaded())


def by_name() -> dict[str, Scenario]:
    return {scenario.name: scenario for scenario in scenarios()}


#: The article's running example: a weather tool whose id is ``get-weather``, registered under ``search.web``.
WEATHER = by_name()["single-rewrite"].tools[0]
