"""Which ledger claims a standalone reproduction can show, and the one turn that shows each.

A reproduction is one release's wire behaviour: a claim about a range of releases (V), about the docs a package
ships, or about what the kit has no one-turn script for, is refused in one line saying why. The since-when claims of
the other frameworks (T07, T09, T10) are reproduced on the one release asked for: the script then says whether that
release shows the behaviour the claim dates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from probe_lib.claims.ledger import load_claims
from probe_lib.claims.registry import checks
from probe_lib.core.errors import InputError

#: What the turn does and what its script compares: a tool forced by its registered key (is the forced name among
#: the request's tools?), ``activeTools`` naming a registered key (does the request offer no tool?), a rewritten key
#: beside the legal key it rewrites to (is it refused before sending?), and a call of the first tool by the name the
#: request offered (does a tool run?).
Kind = Literal["forced", "active-tools", "collision", "round-trip"]


@dataclass(frozen=True)
class Reproduction:
    """The turn that shows one claim, on the framework it is about."""

    claim: str
    #: The kit's adapter name (``mastra``, ``llama-index``, ``openai-agents-js``).
    framework: str
    kind: Kind
    #: The title of the report for the framework's tracker.
    title: str
    #: What the request should have been, in the report's words.
    expected: str
    #: Whether the kit has a fix for it (:mod:`probe_lib.repro.patches`), which ``run.sh --fixed`` applies.
    fixed: bool = False


_FORCED_TITLE = "A tool forced by its registered name is sent unrewritten while the tool itself is renamed"
_FORCED_EXPECTED = (
    "tool_choice names a function of the request's own tools (the name the tool was sent under), or the turn is "
    "refused before sending by an error about the tool choice that names the forced tool"
)
_ROUND_TRIP_TITLE = "A model calling a renamed tool by the name the request offered runs no tool"
_ROUND_TRIP_EXPECTED = "the tool runs: a call by the name the request offered finds the tool offered under it"

REPRODUCTIONS: dict[str, Reproduction] = {
    each.claim: each
    for each in (
        Reproduction("A10", "mastra", "forced", f"toolChoice: {_FORCED_TITLE.lower()}", _FORCED_EXPECTED, fixed=True),
        Reproduction(
            "F09",
            "mastra",
            "active-tools",
            "activeTools naming a tool by its registered key sends no tools at all",
            "the request offers the tool activeTools names, and no other (under the name it is sent as)",
            fixed=True,
        ),
        Reproduction(
            "F17",
            "mastra",
            "collision",
            "One rewritten key beside the legal key it rewrites to is refused as a collision, before sending",
            "a request offering both tools under distinct names, or a refusal that names both keys",
        ),
        Reproduction(
            "T07", "openai-agents-js", "forced", f"modelSettings.toolChoice: {_FORCED_TITLE.lower()}", _FORCED_EXPECTED
        ),
        # A LlamaIndex finding of the framework matrix (X) and its since-when claim (T): one turn shows both.
        *(
            Reproduction(
                claim, "llama-index", "forced", f"tool_choice: {_FORCED_TITLE.lower()}", _FORCED_EXPECTED, fixed=True
            )
            for claim in ("T09", "X09")
        ),
        *(
            Reproduction(claim, "llama-index", "round-trip", _ROUND_TRIP_TITLE, _ROUND_TRIP_EXPECTED, fixed=True)
            for claim in ("T10", "X10")
        ),
    )
}


def reproduction(claim_id: str) -> Reproduction:
    """The reproduction of ``claim_id``; ``InputError`` in one line saying why there is none."""
    claims = {claim.id: claim for claim in load_claims()}
    if claim_id not in claims:
        hint = f"; ids are upper-case: {claim_id.upper()}" if claim_id.upper() in claims else ""
        raise InputError(f"no claim {claim_id!r} in data/claims.csv{hint} (reproducible: {', '.join(REPRODUCTIONS)})")
    if claim_id in REPRODUCTIONS:
        return REPRODUCTIONS[claim_id]
    if claim_id.startswith("V"):
        why = "it is a version-range claim, about many releases at once; reproduce a finding on one release instead"
    elif checks()[claim_id].on_shipped_docs:
        why = "it is about the docs a package ships, not about a request on the wire"
    else:
        why = "the kit has no one-turn reproduction of it"
    raise InputError(f"{claim_id} cannot be reproduced standalone: {why} (reproducible: {', '.join(REPRODUCTIONS)})")
