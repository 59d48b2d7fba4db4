"""What is measured: one framework at one version, and the versions a study singles out.

``Target`` is the unit every measurement is keyed by (``mastra@1.67.0``). Baselines, such as the version the
article measured, are data (``data/baselines.csv``), not constants in an installer, so a study can name its own.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache

from packaging.version import InvalidVersion, Version

from probe_lib.core import paths
from probe_lib.core.errors import InputError

BASELINES_PATH = paths.DATA / "baselines.csv"
#: The framework the article studied: the default wherever a framework is not named.
DEFAULT_FRAMEWORK = "mastra"
_SEMVER = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?")


@dataclass(frozen=True)
class Target:
    """One framework (an adapter's name) at one exact version."""

    framework: str
    version: str

    def __str__(self) -> str:
        return f"{self.framework}@{self.version}"

    @classmethod
    def parse(cls, text: str) -> Target:
        """``"mastra@1.67.0"`` -> ``Target("mastra", "1.67.0")``; raises ``InputError`` naming the expected form."""
        framework, at, version = text.partition("@")
        if not (framework and at and version):
            raise InputError(f"target {text!r} is not FRAMEWORK@VERSION (e.g. mastra@1.67.0)")
        return cls(framework, version)


def version_key(version: str) -> tuple:
    """Sort key in semver order: numeric parts, then a release after its prereleases."""
    match = _SEMVER.fullmatch(version)
    if match is None:
        raise InputError(f"version {version!r} is not MAJOR.MINOR.PATCH[-PRERELEASE]")
    major, minor, patch, pre = match.groups()
    # Prerelease identifiers compare one by one, numeric ones as numbers and before alphanumeric ones (semver 11.4):
    # beta.2 < beta.11.
    identifiers = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in (pre or "").split("."))
    return int(major), int(minor), int(patch), pre is None, identifiers if pre else ()


def release_key(version: str, registry: str | None = None) -> tuple:
    """The one sort key of versions, oldest first. On a ``registry``, its order: semver on ``npm``
    (:func:`version_key`), PEP 440 on PyPI (a version PEP 440 cannot read sorts first). Without one (a table of
    several frameworks), by the version's form: semver order for ``MAJOR.MINOR.PATCH[-PRE]`` (npm's form, and most
    PyPI releases), else PEP 440's numbers with its prereleases (``1.0rc1``) before their release and post-releases
    after."""
    if registry == "npm":
        return version_key(version)
    if registry is not None:
        try:
            return (1, Version(version))
        except InvalidVersion:
            return (0, version)
    if _SEMVER.fullmatch(version):
        return version_key(version)
    try:
        parsed = Version(version)
    except InvalidVersion:
        raise InputError(
            f"version {version!r} is neither MAJOR.MINOR.PATCH[-PRERELEASE] nor a PEP 440 version"
        ) from None
    major, minor, patch = (*parsed.release, 0, 0)[:3]
    return major, minor, patch, not parsed.is_prerelease, str(parsed)


@cache
def baselines() -> dict[tuple[str, str], Target]:
    """``(framework, role) -> Target`` from ``data/baselines.csv`` (roles such as ``article``)."""
    with BASELINES_PATH.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {(row["framework"], row["role"]): Target(row["framework"], row["version"]) for row in rows}


def baseline(framework: str, role: str = "article") -> Target:
    """The version a study singles out for ``framework`` in ``role``; ``InputError`` lists the known ones."""
    try:
        return baselines()[framework, role]
    except KeyError:
        known = ", ".join(f"{f}/{r}" for f, r in baselines())
        raise InputError(f"no {role!r} baseline for {framework!r} in {BASELINES_PATH.name}; known: {known}") from None
