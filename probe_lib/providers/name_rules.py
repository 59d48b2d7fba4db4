"""What each LLM provider accepts as a tool name, loaded from ``data/provider_rules.csv``.

The rules are data, not code, because they differ between a provider's docs and its live API and they change:
each row says whether it is documented or observed, its source (the package and version, for the rows
``package_rules`` reads from the providers' own packages) and the date it was read (see
``data/provider_rules.README.md``). Where a provider's sources disagree both rows are kept (:func:`conflicts`).
``check_name`` says why a provider would refuse a name; an empty list means it would accept it.
"""

from __future__ import annotations

import csv
import datetime
import functools
import re
from dataclasses import dataclass, fields
from pathlib import Path

from probe_lib.core import files, paths
from probe_lib.core.errors import InputError

RULES_PATH = paths.DATA / "provider_rules.csv"

#: The variant used when none is asked for (a provider without one falls back to its first row).
DEFAULT_VARIANT = "documented"

SOURCE_KINDS = frozenset({"docs", "API description", "SDK source", "error text", "third-party"})
#: The variant of a rule the provider has since replaced (an older service model, older docs, an older API).
LEGACY = "legacy"
#: ``documented``: the provider's docs, API description or SDK types state the rule; ``observed``: live error texts
#: or probes show it.
BASES = frozenset({"documented", "observed"})

_LOWER_NAME = re.compile(r"[a-z][a-z0-9-]*")
#: One bracketed character class such as ``[a-zA-Z0-9_-]`` (no nested or escaped brackets needed here).
_CHAR_CLASS = re.compile(r"\[[^\[\]]+\]")


@dataclass(frozen=True, slots=True)
class Rule:
    """One provider's tool-name rule, as one source states it."""

    provider: str
    variant: str
    basis: str
    charset: re.Pattern[str]
    first_char: re.Pattern[str] | None
    pattern: re.Pattern[str]
    max_length: int | None
    source: str
    source_kind: str
    #: The installed package the row was read from (``package_rules``), with its version; empty for a row typed in
    #: from a page or an error text.
    package: str
    package_version: str
    date_read: datetime.date
    note: str

    @property
    def label(self) -> str:
        """``provider/variant``, as reports name the rule."""
        return f"{self.provider}/{self.variant}"

    def accepts(self, name: str) -> bool:
        """True when the provider would accept ``name`` (the fast path of ``reasons``)."""
        return (
            bool(name)
            and (self.max_length is None or len(name) <= self.max_length)
            and (self.first_char is None or self.first_char.fullmatch(name[0]) is not None)
            and self.pattern.fullmatch(name) is not None
        )

    def reasons(self, name: str) -> list[str]:
        """Why the provider would refuse ``name``, most specific first; empty when it would accept it."""
        if not name:
            return ["the name is empty"]
        reasons: list[str] = []
        if self.max_length is not None and len(name) > self.max_length:
            reasons.append(f"{len(name)} characters, over the maximum of {self.max_length}")
        if self.first_char is not None and not self.first_char.fullmatch(name[0]):
            reasons.append(f"starts with {name[0]!r}; the first character must match {self.first_char.pattern}")
        illegal = sorted({char for char in name if not self.charset.fullmatch(char)})
        if illegal:
            shown = ", ".join(repr(char) for char in illegal)
            reasons.append(f"contains {shown}, outside {self.charset.pattern}")
        if not reasons and not self.pattern.fullmatch(name):
            reasons.append(f"does not match {self.pattern.pattern}")
        return reasons


#: The rules file's columns, in its order: the fields of a :class:`Rule`.
COLUMNS = tuple(field.name for field in fields(Rule))


def load_rows(path: Path = RULES_PATH) -> list[dict[str, str]]:
    """The rows of a rules file as text, its header checked (``load_rules`` validates them)."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            header = tuple(reader.fieldnames or ())
            if header != COLUMNS:
                raise InputError(f"{path}: columns are {list(header)}; expected {list(COLUMNS)} in that order")
            return list(reader)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; restore it from git (data/provider_rules.csv)") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None


def write_rows(rows: list[dict[str, str]], path: Path = RULES_PATH) -> None:
    """Write ``rows`` as a rules file (``package_rules.refresh``), whole, by rename."""
    files.write_csv(path, COLUMNS, rows)


def load_rules(path: Path = RULES_PATH) -> tuple[Rule, ...]:
    """Read and validate a rules file; ``InputError`` names the first bad row and what to fix."""
    return load_rules_from_rows(load_rows(path), str(path))


def load_rules_from_rows(rows: list[dict[str, str]], path: str) -> tuple[Rule, ...]:
    """Validate the text rows of the rules file ``path``; ``InputError`` names the first bad row."""
    if not rows:
        raise InputError(f"{path}: holds no rules; add one row per (provider, variant)")

    rules: list[Rule] = []
    seen: set[tuple[str, str]] = set()
    for line, row in enumerate(rows, start=2):
        rule = _parse_row(row, f"{path} line {line}")
        if (rule.provider, rule.variant) in seen:
            raise InputError(f"{path} line {line}: {rule.label} appears twice; keep one row per (provider, variant)")
        seen.add((rule.provider, rule.variant))
        rules.append(rule)
    return tuple(rules)


def _parse_row(row: dict[str, str | None], where: str) -> Rule:
    if None in row or any(row[column] is None for column in COLUMNS):
        raise InputError(f"{where}: has {len(row)} fields; expected {len(COLUMNS)} (quote fields holding commas)")
    text = {column: (row[column] or "").strip() for column in COLUMNS}
    for column in ("provider", "variant"):
        if not _LOWER_NAME.fullmatch(text[column]):
            raise InputError(f"{where}: {column} {text[column]!r} must be a short lower-case name such as 'openai'")
    for column in ("charset", "first_char"):
        value = text[column]
        if (value or column == "charset") and not _CHAR_CLASS.fullmatch(value):
            raise InputError(f"{where}: {column} {value!r} must be one character class such as [a-zA-Z0-9_-]")
    if text["basis"] not in BASES:
        raise InputError(f"{where}: basis {text['basis']!r} must be one of {sorted(BASES)}")
    if text["source_kind"] not in SOURCE_KINDS:
        raise InputError(f"{where}: source_kind {text['source_kind']!r} must be one of {sorted(SOURCE_KINDS)}")
    if not text["source"]:
        raise InputError(f"{where}: source is empty; say where the rule was read")
    if bool(text["package"]) != bool(text["package_version"]):
        raise InputError(f"{where}: package and package_version go together; give both or neither")
    try:
        date_read = datetime.date.fromisoformat(text["date_read"])
    except ValueError:
        raise InputError(f"{where}: date_read {text['date_read']!r} must be a date like 2026-11-30") from None
    max_length: int | None = None
    if text["max_length"]:
        if not text["max_length"].isdigit() or int(text["max_length"]) < 1:
            raise InputError(f"{where}: max_length {text['max_length']!r} must be a positive integer or empty")
        max_length = int(text["max_length"])
    return Rule(
        provider=text["provider"],
        variant=text["variant"],
        basis=text["basis"],
        charset=_compile(text["charset"], "charset", where),
        first_char=_compile(text["first_char"], "first_char", where) if text["first_char"] else None,
        pattern=_compile(text["pattern"], "pattern", where),
        max_length=max_length,
        source=text["source"],
        source_kind=text["source_kind"],
        package=text["package"],
        package_version=text["package_version"],
        date_read=date_read,
        note=text["note"],
    )


def _compile(expression: str, column: str, where: str) -> re.Pattern[str]:
    if not expression:
        raise InputError(f"{where}: {column} is empty; give a regex")
    try:
        return re.compile(expression)
    except re.error as error:
        raise InputError(f"{where}: {column} {expression!r} is not a valid regex ({error})") from None


@functools.cache
def rules() -> tuple[Rule, ...]:
    """The shipped rules (read once per process)."""
    return load_rules()


def provider_names() -> list[str]:
    """Known provider names, in file order."""
    return list(dict.fromkeys(rule.provider for rule in rules()))


def variants(provider: str) -> list[str]:
    """The variants known for ``provider``, default first."""
    found = [rule.variant for rule in rules() if rule.provider == provider]
    if not found:
        raise _unknown_provider(provider)
    return sorted(found, key=lambda variant: variant != DEFAULT_VARIANT)


def get_rule(provider: str, variant: str | None = None) -> Rule:
    """The rule for ``provider`` and ``variant`` (default: ``documented``, else the provider's first row)."""
    candidates = [rule for rule in rules() if rule.provider == provider]
    if not candidates:
        raise _unknown_provider(provider)
    if variant is None:
        return next((rule for rule in candidates if rule.variant == DEFAULT_VARIANT), candidates[0])
    for rule in candidates:
        if rule.variant == variant:
            return rule
    known = ", ".join(rule.variant for rule in candidates)
    raise InputError(f"provider {provider!r} has no variant {variant!r}; choose one of: {known}")


def siblings(rule: Rule) -> list[Rule]:
    """The shipped rules of ``rule``'s provider other than ``rule``: where they disagree, the sources conflict."""
    return [other for other in rules() if other.provider == rule.provider and other.variant != rule.variant]


def conflicts() -> dict[str, dict[str, int | None]]:
    """Providers whose shipped rows disagree on the longest name, each with every variant's limit: shown, never
    settled by picking one (Anthropic's docs say 64, its live errors 128)."""
    limits: dict[str, dict[str, int | None]] = {}
    for rule in rules():
        if rule.variant == LEGACY:
            continue  # an older rule, superseded rather than in conflict
        limits.setdefault(rule.provider, {})[rule.variant] = rule.max_length
    return {provider: found for provider, found in limits.items() if len(set(found.values())) > 1}


def check_name(name: str, provider: str, variant: str | None = None) -> list[str]:
    """Reasons ``provider`` would refuse ``name`` as a tool name; an empty list means it would accept it."""
    return get_rule(provider, variant).reasons(name)


def _unknown_provider(provider: str) -> InputError:
    return InputError(f"unknown provider {provider!r}; choose one of: {', '.join(provider_names())}")
