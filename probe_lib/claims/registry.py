"""Every claim's check, registered where it is written, with what the ledger must know of it.

A check module declares each check with :func:`claim` (a decorator) or :func:`register` (for a check built from
parts): the claim id of ``data/claims.csv`` it judges, what it is judged on (:data:`Kind`), the framework whose
outcomes it reads, the cases its quantifying word ranges over and, for an article claim the kit measured otherwise,
why its refutation is expected. :func:`checks` is the whole registry (it imports the check modules first);
:mod:`probe_lib.claims.ledger` holds it to ``data/claims.csv`` and judges the claims.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

from probe_lib.claims.verdict import MASTRA, Status

#: What a check is judged on: one pinned ``@mastra/core`` version's outcomes (``version``), one framework-matrix
#: target's runs (``target``), both as :class:`~probe_lib.tables.evidence.Evidence`, or once on a timeline of many
#: releases (``timeline``: a framework's :class:`~probe_lib.claims.since.Timeline`).
Kind = Literal["version", "target", "timeline"]
#: A check: what it is judged on (as its :data:`Kind` says) in, a status and one line of evidence out.
Check = Callable[[Any], tuple[Status, str]]
C = TypeVar("C", bound=Check)
E = TypeVar("E")
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Quantified:
    """What a claim's quantifying word ("never", "every", "all", "only", "settles", "identical") ranges over: the
    cases its check must read wherever it confirms or refines the claim (``tests/test_quantifiers.py`` holds every
    check to its declaration).

    ``scenarios`` are catalogue scenarios (a framework claim: matrix probes), read on the version judged; a
    timeline claim must read each on every timeline version that sent a request for it; with ``every_target``
    (a claim about the whole matrix) on every framework target, not only the one judged.
    """

    scenarios: tuple[str, ...]
    every_target: bool = False


@dataclass(frozen=True)
class Registered:
    """One claim's check and its declaration."""

    claim: str
    check: Check
    kind: Kind
    #: The framework whose outcomes the check reads (the adapter name: ``mastra``, ``crewai`` …).
    framework: str
    quantified: Quantified | None
    #: Why the kit measured this article claim otherwise on some pinned version, in a few words (``None``: a
    #: refutation is not expected, and stops the notebook that shows it).
    refuted_as_measured: str | None
    #: A regular expression the evidence of that expected refutation matches (searched): a refutation for another
    #: reason is not excused.
    refuted_when: str | None = None
    #: Whether the check reads the docs a package ships rather than a request it sends (no one turn reproduces it).
    on_shipped_docs: bool = False


#: Claim id -> its registered check, filled as the check modules are imported (read it through :func:`checks`).
CHECKS: dict[str, Registered] = {}


def checks() -> dict[str, Registered]:
    """Every claim's registered check: :data:`CHECKS` once each module that writes checks has been imported."""
    from probe_lib.claims import framework_ranges, frameworks, mastra, ranges  # noqa: F401 (importing registers)

    return CHECKS


def register(
    claim_id: str,
    check: Check,
    *,
    on: Kind = "version",
    framework: str = MASTRA,
    quantified: Iterable[str] = (),
    every_target: bool = False,
    refuted_as_measured: str | None = None,
    refuted_when: str | None = None,
    on_shipped_docs: bool = False,
) -> None:
    """Register ``check`` as the one check of ``claim_id``; a second registration of the claim is a defect, and so is
    an expected refutation without the pattern of its evidence (or the reverse)."""
    if claim_id in CHECKS:
        raise ValueError(f"claim {claim_id} has two checks: {CHECKS[claim_id].check.__name__} and {check.__name__}")
    if (refuted_as_measured is None) != (refuted_when is None):
        raise ValueError(f"claim {claim_id}: an expected refutation needs both its reason and its evidence's pattern")
    cases = tuple(quantified)
    CHECKS[claim_id] = Registered(
        claim_id,
        check,
        on,
        framework,
        Quantified(cases, every_target) if cases else None,
        refuted_as_measured,
        refuted_when,
        on_shipped_docs,
    )


def claim(claim_id: str, **declared: Any) -> Callable[[C], C]:
    """The decorator form of :func:`register`: ``@claim("A04", quantified=(...), refuted_as_measured="...")``."""

    def decorate(check: C) -> C:
        register(claim_id, check, **declared)
        return check

    return decorate


def check_factory(judge: Callable[Concatenate[E, P], R]) -> Callable[P, Callable[[E], R]]:
    """A check factory from ``judge``, written with the evidence first and what the claim states after: decorated,
    ``judge(*stated)`` is the check (or one clause of a check) that judges each evidence as
    ``judge(evidence, *stated)`` would. What the claim states is bound as the claims are registered, so a wrong
    argument is a ``TypeError`` at import, not when the ledger first judges the claim."""
    signature = inspect.signature(judge)

    @functools.wraps(judge)
    def stated(*args: P.args, **kwargs: P.kwargs) -> Callable[[E], R]:
        signature.bind(None, *args, **kwargs)
        return lambda evidence: judge(evidence, *args, **kwargs)

    # help() shows what a claim states: not the evidence the check is later given, nor what judging it returns.
    stated.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=list(signature.parameters.values())[1:], return_annotation=inspect.Signature.empty
    )
    return stated


def ids(kind: Kind | None = None, framework: str | None = None) -> set[str]:
    """The registered claims judged on ``kind`` and reading ``framework``'s outcomes (either left out: any)."""
    return {
        claim_id
        for claim_id, entry in checks().items()
        if kind in (None, entry.kind) and framework in (None, entry.framework)
    }
