"""Provider rules read from the providers' own packages, and the refresh that writes them into the rules table.

Where a provider publishes its tool-name rule in a package, the kit reads it there rather than typing it in:

* AWS Bedrock: botocore's bedrock-runtime service model, shape ``ToolName`` (the type of
  ``ToolSpecification.name`` and ``SpecificToolChoice.name``), whose length and pattern constraints are data;
* Gemini: google-genai's ``FunctionDeclaration.name``, whose pydantic field description states the rule in prose;
* OpenAI Chat Completions: the openai package's ``FunctionDefinition.name``, whose docstring (generated from
  OpenAI's OpenAPI description) states it in prose.

Prose is read by :func:`rule_from_prose`, which knows the few phrases these texts use and refuses any other, so a
reworded source stops the refresh instead of being misread. The packages are optional (the ``providers`` extra):
without them the committed ``data/provider_rules.csv`` stands, each row saying which package version it was read
from and when. :func:`refresh` rewrites the table's package rows from the installed packages (``probe-lib
providers --refresh``); every other row (docs pages, error texts) is kept as written.
"""

from __future__ import annotations

import ast
import datetime
import importlib.metadata
import importlib.util
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from probe_lib.core.errors import InputError
from probe_lib.providers import name_rules


class SourceChanged(InputError):
    """A package's text or model no longer has the shape the reader knows: read it and update the reader."""


class PackageMissing(InputError):
    """A package the refresh reads is not installed."""


@dataclass(frozen=True, slots=True)
class StatedRule:
    """A rule's regexes as a source states them, before it becomes a row of the table."""

    charset: str
    first_char: str
    max_length: int | None

    @property
    def pattern(self) -> str:
        """The whole-name regex: the first character's class then the charset, or the charset alone."""
        return f"{self.first_char}{self.charset}*" if self.first_char else f"{self.charset}+"


@dataclass(frozen=True, slots=True)
class Reading:
    """What one package says: the rule, where in the package it was read, and the text read."""

    rule: StatedRule
    source: str
    source_kind: str
    note: str


@dataclass(frozen=True, slots=True)
class PackageSource:
    """One row of the table that is read from an installed package."""

    provider: str
    variant: str
    #: The distribution's name on PyPI (what ``importlib.metadata`` knows it by).
    package: str
    read: Callable[[], Reading]

    def version(self) -> str:
        """The installed version; :class:`PackageMissing` says how to install it."""
        try:
            return importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            raise PackageMissing(
                f"{self.package} is not installed, so {self.provider}/{self.variant} cannot be read from it; "
                "install the providers extra: pip install -e '.[providers]'"
            ) from None

    def row(self, date_read: datetime.date) -> dict[str, str]:
        """The table row this package gives today (its ``date_read`` is ``date_read``)."""
        version = self.version()
        reading = self.read()
        return {
            "provider": self.provider,
            "variant": self.variant,
            "basis": "documented",
            "charset": reading.rule.charset,
            "first_char": reading.rule.first_char,
            "pattern": reading.rule.pattern,
            "max_length": "" if reading.rule.max_length is None else str(reading.rule.max_length),
            "source": reading.source,
            "source_kind": reading.source_kind,
            "package": self.package,
            "package_version": version,
            "date_read": date_read.isoformat(),
            "note": reading.note,
        }


# -- prose ----------------------------------------------------------------------------------------------------------

#: The words the providers' prose uses for characters, as regex class members.
_WORDS = {
    "letter": "a-zA-Z",
    "letters": "a-zA-Z",
    "underscore": "_",
    "underscores": "_",
    "dash": "-",
    "dashes": "-",
    "dot": ".",
    "dots": ".",
    "colon": ":",
    "colons": ":",
    "digit": "0-9",
    "digits": "0-9",
}
_RANGES = {"a-z", "A-Z", "0-9"}
_START = re.compile(r"Must start with (?P<words>[^.]+)\.")
_CHARSET = re.compile(
    r"Must be (?P<ranges>(?:[a-zA-Z0-9]-[a-zA-Z0-9], )+)or contain (?P<words>[^.]+?)"
    r"(?:, with a maximum length of \d+)?\."
)
_LENGTH = re.compile(r"with a maximum length of (?P<length>\d+)\.")


def _members(words: str, where: str) -> list[str]:
    """Class members for ``a letter or an underscore`` / ``underscores, dots and dashes``."""
    members = []
    for word in re.split(r",\s*|\s+(?:and|or)\s+", words.strip()):
        word = re.sub(r"^(?:an?|the)\s+", "", word.strip())
        if word not in _WORDS:
            raise SourceChanged(f"{where}: says {word!r}, a word the kit's prose reader does not know; update it")
        members.append(_WORDS[word])
    return members


def _char_class(members: list[str]) -> str:
    """One bracketed class of ``members`` in the source's order, a dash last (where it is a literal)."""
    ordered = list(dict.fromkeys(members))
    return "[" + "".join(m for m in ordered if m != "-") + ("-" if "-" in ordered else "") + "]"


def rule_from_prose(text: str, where: str) -> StatedRule:
    """The rule a provider's prose states ("Must start with …. Must be a-z, …, or contain …, with a maximum length
    of N."); :class:`SourceChanged` when the text says none of it, or says it in words the reader does not know."""
    flat = " ".join(text.split())
    charset = _CHARSET.search(flat)
    length = _LENGTH.search(flat)
    if charset is None or length is None:
        raise SourceChanged(f"{where}: no longer states the name rule as the kit reads it: {flat!r}")
    ranges = [part for part in charset["ranges"].split(", ") if part]
    if not set(ranges) <= _RANGES:
        raise SourceChanged(f"{where}: names ranges {ranges}, which the kit's prose reader does not know; update it")
    start = _START.search(flat)
    return StatedRule(
        charset=_char_class(ranges + _members(charset["words"], where)),
        first_char=_char_class(_members(start["words"], where)) if start else "",
        max_length=int(length["length"]),
    )


def attribute_docstring(module: str, cls: str, attribute: str) -> tuple[str, str]:
    """The docstring under ``attribute`` in class ``cls`` of the installed ``module`` (read from its source file,
    as Python keeps no attribute docstrings), and the file's path inside the package."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SourceChanged(f"{module} is not importable: the package moved it; update the reader")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            body = node.body
            for index, statement in enumerate(body[:-1]):
                target = statement.target if isinstance(statement, ast.AnnAssign) else None
                following = body[index + 1]
                if (
                    isinstance(target, ast.Name)
                    and target.id == attribute
                    and isinstance(following, ast.Expr)
                    and isinstance(following.value, ast.Constant)
                    and isinstance(following.value.value, str)
                ):
                    return following.value.value, module.replace(".", "/") + ".py"
    raise SourceChanged(f"{module}.{cls}.{attribute} has no docstring: the package changed; update the reader")


# -- the packages ---------------------------------------------------------------------------------------------------


def _bedrock() -> Reading:
    """botocore's bedrock-runtime model: shape ``ToolName``, checked to type both names the kit cares about."""
    from botocore import loaders

    loader = loaders.Loader()
    api_version = loader.determine_latest_version("bedrock-runtime", "service-2")
    shapes = loader.load_service_model("bedrock-runtime", "service-2", api_version)["shapes"]
    users = {
        "ToolSpecification.name": shapes["ToolSpecification"],
        "SpecificToolChoice.name": shapes["SpecificToolChoice"],
    }
    for field, shape in users.items():
        if shape["members"]["name"]["shape"] != "ToolName":
            raise SourceChanged(f"botocore: {field} is no longer of shape ToolName; update the reader")
    tool_name = shapes["ToolName"]
    match = re.fullmatch(r"(\[[^\[\]]+\])?(\[[^\[\]]+\])[+*]", tool_name.get("pattern", ""))
    if tool_name.get("type") != "string" or tool_name.get("min") != 1 or match is None:
        raise SourceChanged(f"botocore: shape ToolName is {tool_name}, not a pattern the reader knows; update it")
    rule = StatedRule(charset=match[2], first_char=match[1] or "", max_length=tool_name.get("max"))
    if rule.pattern != tool_name["pattern"]:
        raise SourceChanged(f"botocore: ToolName pattern {tool_name['pattern']!r} reads back as {rule.pattern!r}")
    return Reading(
        rule=rule,
        source=f"botocore/data/bedrock-runtime/{api_version}/service-2.json, shape ToolName "
        "(ToolSpecification.name, SpecificToolChoice.name)",
        source_kind="API description",
        note=f"ToolName: {json.dumps(dict(tool_name))}. The model's pattern is unanchored; the kit applies it to the "
        f"whole name. {_bedrock_client_check(rule)}",
    )


def _bedrock_client_check(rule: StatedRule) -> str:
    """What botocore's own client validation says of a tool name the rule refuses (does a boto3 user find out
    before the request leaves?), measured with its ``ParamValidator`` on a Converse call."""
    from botocore import session, validate

    converse = session.get_session().get_service_model("bedrock-runtime").operation_model("Converse")
    name = "search.web" * ((rule.max_length or 64) // 10 + 1)
    tool = {"toolSpec": {"name": name, "inputSchema": {"json": {}}}}
    params = {"modelId": "m", "messages": [], "toolConfig": {"tools": [tool], "toolChoice": {"tool": {"name": name}}}}
    report = validate.ParamValidator().validate(params, converse.input_shape)
    verdict = f"refuses it: {report.generate_report()}" if report.has_errors() else "passes it"
    return (
        f"botocore's client validation (ParamValidator, Converse) {verdict}, for a {len(name)}-character dotted name "
        "in toolSpec.name and toolChoice.tool.name."
    )


def _gemini() -> Reading:
    """google-genai's ``FunctionDeclaration.name``: the pydantic field's description."""
    from google.genai import types

    where = "google/genai/types.py, FunctionDeclaration.name (pydantic field description)"
    text = types.FunctionDeclaration.model_fields["name"].description or ""
    return Reading(rule_from_prose(text, "google-genai " + where), where, "SDK source", _quoted(text))


def _openai() -> Reading:
    """The openai package's ``FunctionDefinition.name`` docstring (Chat Completions, from OpenAI's OpenAPI text)."""
    text, path = attribute_docstring("openai.types.shared.function_definition", "FunctionDefinition", "name")
    where = f"{path}, FunctionDefinition.name (docstring)"
    return Reading(rule_from_prose(text, "openai " + where), where, "SDK source", _quoted(text))


def _quoted(text: str) -> str:
    return f'"{" ".join(text.split())}"'


#: Every row of the table read from a package, in the order the refresh checks them.
SOURCES: tuple[PackageSource, ...] = (
    PackageSource("openai", "documented", "openai", _openai),
    PackageSource("gemini", "documented", "google-genai", _gemini),
    PackageSource("bedrock", "documented", "botocore", _bedrock),
)


#: Columns a fresh reading may differ in without the table being stale: the day it was read, and a newer version
#: of the package that says the same.
_WHEN = ("date_read", "package_version")


def stale(source: PackageSource, rows: list[dict[str, str]]) -> str | None:
    """How the table's row for ``source`` differs from what its installed package says, or ``None`` when it
    agrees (in everything but the read date and the package version)."""
    fresh = source.row(datetime.date.today())
    row = next((r for r in rows if (r["provider"], r["variant"]) == (source.provider, source.variant)), None)
    if row is None:
        return f"{source.provider}/{source.variant} is missing from the table; run probe-lib providers --refresh"
    differ = [column for column in name_rules.COLUMNS if column not in _WHEN and row[column] != fresh[column]]
    if not differ:
        return None
    shown = "; ".join(f"{column}: table {row[column]!r}, package {fresh[column]!r}" for column in differ)
    return (
        f"{source.provider}/{source.variant} (read from {row['package']} {row['package_version']} on "
        f"{row['date_read']}) differs from {source.package} {fresh['package_version']}: {shown}; "
        "run probe-lib providers --refresh"
    )


def refreshed(rows: list[dict[str, str]], today: datetime.date) -> list[dict[str, str]]:
    """``rows`` with each package row read again from its installed package, in place; other rows as they are.

    A row whose reading (rule, source, text and version) is unchanged keeps its ``date_read``, so a refresh that
    finds nothing new leaves the file as it was. A package row missing from ``rows`` is added at the end.
    """
    fresh = {(source.provider, source.variant): source.row(today) for source in SOURCES}
    result = []
    for row in rows:
        new = fresh.pop((row["provider"], row["variant"]), None)
        if new is not None and {**new, "date_read": row["date_read"]} == row:
            new = row
        result.append(new or row)
    return result + list(fresh.values())


def refresh(path: Path = name_rules.RULES_PATH, today: datetime.date | None = None) -> list[str]:
    """Rewrite ``path``'s package rows from the installed packages; the labels of the rows that changed.

    Raises :class:`PackageMissing` (before writing anything) when a package is not installed.
    """
    rows = name_rules.load_rows(path)
    new = refreshed(rows, today or datetime.date.today())
    name_rules.load_rules_from_rows(new, str(path))  # what is written must load
    changed = [f"{row['provider']}/{row['variant']}" for row in new if row not in rows]
    if changed:
        name_rules.write_rows(new, path)
    return changed
