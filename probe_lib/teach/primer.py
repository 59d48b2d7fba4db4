"""What notebook 00-primer shows: the providers' name rules in brief, and one agent turn measured end to end."""

from __future__ import annotations

import copy
import json

import pandas as pd

from probe_lib.core.target import Target
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra import Outcome, catalogue
from probe_lib.measure.sources import Source
from probe_lib.present import charts
from probe_lib.providers import name_rules
from probe_lib.tables.evidence import Evidence

#: The catalogue scenario the primer runs: the article's weather tool, forced by its key.
EXAMPLE = "choice-by-key"


def provider_rules() -> pd.DataFrame:
    """One row per provider rule of ``data/provider_rules.csv``: the characters it allows, the first character
    it requires, its longest name, whether it is documented or observed, and what it was read from (the package
    and version for a rule read from the provider's own package)."""
    return pd.DataFrame(
        [
            {
                "provider": rule.provider,
                "variant": rule.variant,
                "characters allowed": rule.charset.pattern,
                "first character": rule.first_char.pattern if rule.first_char else "any of those",
                "longest name": rule.max_length or "not stated",
                "basis": rule.basis,
                "read from": f"{rule.package} {rule.package_version}" if rule.package else rule.source_kind,
            }
            for rule in name_rules.rules()
        ]
    )


def example(version: str, measurements: Source) -> Outcome:
    """The :data:`EXAMPLE` turn on ``version``: run now on the real package when ``measurements`` runs now and
    Node.js is installed, else read from ``measurements`` (which warns when it falls back)."""
    target = Target(mastra.ADAPTER.name, mastra.ADAPTER.check_version(version))
    return measurements.outcomes([catalogue.by_name()[EXAMPLE]], target)[0][0]


def request_json(outcome: Outcome) -> str:
    """The first request body the capture server recorded, as JSON, with each tool's parameter schema elided; or
    what stopped the turn, on a release that sent no request."""
    if not outcome.requests:
        error = outcome.result_json().get("error", {})
        return f"(no request was sent: {error.get('kind')}: {error.get('message') or error.get('name')})"
    body = copy.deepcopy(outcome.requests[0])
    for tool in body.get("tools") or []:
        tool["function"]["parameters"] = "… (the tool's JSON schema)"
    return json.dumps(body, indent=2, ensure_ascii=False)


def names_grid(outcome: Outcome) -> charts.Grid:
    """:func:`probe_lib.present.charts.offered_grid` for the example's one tool: key, id and wire name."""
    ev = Evidence(outcome.version, {EXAMPLE: outcome}, {})
    return charts.offered_grid(ev, [EXAMPLE], {EXAMPLE: "example"})
