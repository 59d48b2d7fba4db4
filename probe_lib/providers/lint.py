"""Find, in captured LLM requests, the tool names a provider would refuse and forced tools that are not sent.

A framework that rewrites tool keys but passes a named tool choice through untouched (Mastra's ``formatTools()``
does) builds requests that force a function absent from their ``tools``. The linter reads request bodies from a
file and reports, per request:

* ``refused-name`` (severity ``refused``): a tool name the chosen provider rule would refuse, and why;
* ``malformed-tools`` / ``malformed-tool`` (``refused``): ``tools`` is not an array, or an item in it is
  neither a function tool with a string name nor a typed built-in tool;
* ``duplicate-name`` (``refused``): a name listed twice (Anthropic answers "tools: Tool names must be unique.");
* ``choice-not-in-tools`` (``mismatch``): ``tool_choice`` names a function absent from ``tools``, with, given the
  framework's name rule, the tool it most likely renamed the choice to (the one named ``rewrite(choice)``);
* ``maybe-rewritten`` (``hint``, given a name rule): a name that looks like the rule's rewrite of some other key.

Bodies are read through their wire format (:mod:`probe_lib.wire`): Chat Completions, Responses and Anthropic
Messages, for tools and for the forced tool alike.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from probe_lib import wire
from probe_lib.core import json_input
from probe_lib.core.errors import InputError
from probe_lib.core.naming import NameRule, js_length
from probe_lib.providers import Rule, get_rule
from probe_lib.providers.name_rules import LEGACY, siblings
from probe_lib.wire.base import function_name

Severity = Literal["refused", "mismatch", "hint"]

#: Severities that make ``lint`` exit 1: the provider would refuse the request, or the forced tool is not sent.
FAILING: frozenset[Severity] = frozenset({"refused", "mismatch"})

#: Keys of which at least one marks a dict as an LLM request body (Chat Completions or Responses).
_BODY_KEYS = frozenset({"model", "messages", "input", "tools", "tool_choice"})

#: formatTools prefixes ``_`` to a key whose first character (after substitution) is not a letter or ``_``.
_PREFIXED = re.compile(r"_[0-9-]")
#: formatTools writes one ``_`` per illegal UTF-16 unit, so punctuation runs and astral characters become ``__``.
_UNDERSCORE_RUN = re.compile(r"__+")


@dataclass(frozen=True, slots=True)
class LintFinding:
    """One thing wrong (or suspicious) in one request."""

    severity: Severity
    code: str
    #: Position of the request in the file: array element, JSON line (counting non-blank lines) or HAR entry.
    request: int
    name: str
    message: str
    #: The tool name the request most likely meant (only for ``choice-not-in-tools``).
    suggestion: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class LintReport:
    """All findings in a file, and how many request bodies were read."""

    rule: Rule
    requests: int
    findings: tuple[LintFinding, ...]

    @property
    def failed(self) -> bool:
        """True when some request would be refused or forces a tool it does not send."""
        return any(finding.severity in FAILING for finding in self.findings)

    def counts(self) -> dict[Severity, int]:
        counted = Counter(finding.severity for finding in self.findings)
        return {severity: counted[severity] for severity in ("refused", "mismatch", "hint")}

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.rule.provider,
            "variant": self.rule.variant,
            "requests": self.requests,
            "counts": self.counts(),
            "findings": [finding.to_json() for finding in self.findings],
        }

    def to_text(self) -> str:
        """Readable report: one line per finding, then a summary line."""
        lines = [
            f"request {finding.request}: {finding.severity:<8} {finding.code:<19} {finding.message}"
            for finding in self.findings
        ]
        counts = self.counts()
        summary = ", ".join(f"{count} {severity}" for severity, count in counts.items())
        lines.append(f"{self.requests} request(s) checked against {self.rule.label}: {summary}")
        return "\n".join(lines)


def tool_names(body: Mapping[str, Any]) -> list[str]:
    """Function names in the request's tools, in order, read through its wire format ([] if none is recognised)."""
    wire_format = wire.detect(body)
    return wire_format.tool_names(body) if wire_format else []


def forced_name(body: Mapping[str, Any]) -> str | None:
    """The function the request's tool choice forces, or ``None`` for "auto", "required" and the like."""
    wire_format = wire.detect(body)
    return wire_format.forced_name(body) if wire_format else None


def lint_body(
    body: Mapping[str, Any], rule: Rule, request: int = 0, name_rule: NameRule | None = None
) -> list[LintFinding]:
    """Findings for one request body, checked against the provider's ``rule``; ``name_rule``, the framework's own
    rewrite of tool keys, adds suggestions and rewrite hints."""
    names = tool_names(body)
    findings = _malformed_tools(body.get("tools"), request)
    for name in dict.fromkeys(names):
        reasons = rule.reasons(name)
        if reasons:
            message = f"{json.dumps(name, ensure_ascii=False)}: {rule.label} would refuse it: {'; '.join(reasons)}"
            message += _conflict(rule, name)
            findings.append(LintFinding("refused", "refused-name", request, name, message))

    for name, count in Counter(names).items():
        if count > 1:
            message = (
                f"{json.dumps(name, ensure_ascii=False)} is listed {count} times; Anthropic refuses this "
                '("Tool names must be unique") and a model cannot tell the copies apart'
            )
            findings.append(LintFinding("refused", "duplicate-name", request, name, message))

    choice = forced_name(body)
    if choice is not None and choice not in names:
        findings.append(_mismatch(choice, names, rule, request, name_rule))
    if name_rule is None:
        return findings

    for name in dict.fromkeys(names):
        hint = _rewrite_hint(name, name_rule)
        if hint:
            message = f"{json.dumps(name, ensure_ascii=False)} may be a {name_rule.LABEL} rewrite: {hint}"
            findings.append(LintFinding("hint", "maybe-rewritten", request, name, message))
    return findings


def _conflict(rule: Rule, name: str) -> str:
    """What the provider's other current rules say of a name ``rule`` refuses, when one of them accepts it: the
    sources conflict, and the report says so rather than settling it."""
    accepting = [other.label for other in siblings(rule) if other.variant != LEGACY and other.accepts(name)]
    if not accepting:
        return ""
    if rule.variant == LEGACY:
        return f" (the current {' and '.join(accepting)} would accept it)"
    return f" (but {' and '.join(accepting)} would accept it: {rule.provider}'s sources conflict)"


def _malformed_tools(tools: Any, request: int) -> list[LintFinding]:
    """``tools`` that is not an array, and items that are neither a named function tool nor a typed built-in.

    A provider refuses such a request outright, so a file of them must not pass as clean.
    """
    if tools is None:
        return []
    if not isinstance(tools, list):
        message = f"tools is {json_input.quote(tools)}, not an array of tools; a provider refuses the request"
        return [LintFinding("refused", "malformed-tools", request, "tools", message)]
    findings = []
    for index, tool in enumerate(tools):
        if not _is_tool(tool):
            message = (
                f"tools[{index}] is {json_input.quote(tool)}: neither a function tool with a string name "
                "nor a typed built-in tool; a provider refuses the request"
            )
            findings.append(LintFinding("refused", "malformed-tool", request, f"tools[{index}]", message))
    return findings


def _is_tool(item: Any) -> bool:
    """A function tool of any wire format (a string ``name`` or ``function.name``), or a typed built-in tool."""
    if not isinstance(item, dict):
        return False
    named = function_name(item, "name") is not None or function_name(item, "function", "name") is not None
    if "function" in item or item.get("type") == "function":
        return named
    return named or function_name(item, "type") is not None


def _mismatch(choice: str, names: list[str], rule: Rule, request: int, name_rule: NameRule | None) -> LintFinding:
    """``tool_choice`` forces ``choice``, which ``tools`` does not list."""
    suggestion = name_rule.rewrite(choice) if choice and name_rule else None
    if suggestion not in names:
        suggestion = None
    message = f"tool_choice forces {json.dumps(choice, ensure_ascii=False)}, which is not in tools"
    if suggestion is not None:
        message += (
            f"; the tool sent as {json.dumps(suggestion, ensure_ascii=False)} is its {name_rule.LABEL} rewrite "
            "(the framework renames tool keys but not the forced tool): force that name instead"
        )
    elif not names:
        message += "; the request sends no function tools at all (an activeTools list naming the old key does this)"
    reasons = rule.reasons(choice)
    if reasons:
        message += f"; the forced name itself breaks {rule.label}: {'; '.join(reasons)}"
    return LintFinding("mismatch", "choice-not-in-tools", request, choice, message, suggestion)


def _rewrite_hint(name: str, name_rule: NameRule) -> str | None:
    """Why ``name`` looks like the output of ``name_rule``, or ``None``.

    Only names the rule would leave alone can be its output (every rewrite is a fixed point), so other names get
    no hint. The signs are the traces substituting rules leave: a cut at exactly the rule's length, a ``_`` prefix
    before a digit or a dash, and runs of underscores where illegal characters were.
    """
    if not name or name_rule.rewrite(name) != name:
        return None
    signs = []
    if js_length(name) == name_rule.MAX_NAME_LENGTH:
        signs.append(f"exactly {name_rule.MAX_NAME_LENGTH} units long, the length the rule cuts longer keys to")
    if _PREFIXED.match(name):
        signs.append("'_' before a digit or '-', the prefix added to keys that start with one")
    if _UNDERSCORE_RUN.search(name.strip("_")):
        signs.append("a run of '_', written for each illegal character (two for an emoji)")
    return "; ".join(signs) or None


def read_requests(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(position, request body)`` from a file, streaming JSON lines so a huge capture is read once.

    Accepted: one request body, a JSON array of bodies (or of capture records), JSON lines of capture records
    (the ``body`` field) or of bodies, and a HAR export (``log.entries[].request.postData.text``). Raises
    ``InputError`` for a missing, empty or non-JSON file; yields nothing when no body is found.
    """
    try:
        with path.open(encoding="utf-8-sig") as handle:  # -sig: HAR exports often start with a byte-order mark
            yield from _read_documents(handle, path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; give a request file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as error:  # a path under a file, a name too long, a read error
        raise InputError(f"{path}: {os.strerror(error.errno) if error.errno else error}; give a request file") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start}); give a JSON file") from None


def _read_documents(handle: TextIO, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    first = handle.readline()
    while first and not first.strip():
        first = handle.readline()
    if not first:
        raise InputError(f"{path}: is empty; give a request body, a JSON array, JSON lines or a HAR export")
    start = first.lstrip()[:1]
    if start not in ("{", "["):
        raise InputError(
            f"{path}: is not a JSON object or array (it starts with {start!r}); give a request body, JSON lines or HAR"
        )
    document = _loads(first) if start == "{" else None
    if document is None:
        # Not one object on the first line: the whole file is one JSON document (an array, a HAR, a pretty body).
        handle.seek(0)
        yield from _bodies(json_input.loads(handle.read(), str(path)))
        return
    # JSON lines (or a single one-line document): parse one line at a time.
    yield from _bodies(document, 0)
    position = 0
    for number, line in enumerate(handle, start=2):
        if not line.strip():
            continue
        position += 1
        yield from _bodies(json_input.loads(line, f"{path}: line {number}"), position)


def _loads(line: str) -> Any:
    """The JSON value of ``line``, or ``None`` when it is not (then the caller reads the file another way)."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _bodies(document: Any, position: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Request bodies in one top-level document; ``position`` is its place in the file (``None``: the whole file)."""
    if isinstance(document, list):
        items = ((index if position is None else position, item) for index, item in enumerate(document))
    elif isinstance(document, dict) and isinstance(document.get("log"), dict):
        entries = document["log"].get("entries")
        items = ((index, _har_body(entry)) for index, entry in enumerate(entries if isinstance(entries, list) else []))
    else:
        items = iter([(position or 0, document)])
    for at, item in items:
        body = _as_body(item)
        if body is not None:
            yield at, body


def _har_body(entry: Any) -> Any:
    """The parsed ``request.postData.text`` of a HAR entry, or ``None``."""
    try:
        text = entry["request"]["postData"]["text"]
    except (KeyError, TypeError):
        return None
    return _loads(text) if isinstance(text, str) else None


def _as_body(item: Any) -> dict[str, Any] | None:
    """``item`` if it is a request body, the body of a capture record, else ``None``."""
    if not isinstance(item, dict):
        return None
    if _BODY_KEYS.intersection(item):
        return item
    body = item.get("body")
    if isinstance(body, dict) and _BODY_KEYS.intersection(body):
        return body
    return None


def lint_file(
    path: str | Path, provider: str = "openai", variant: str | None = None, name_rule: NameRule | None = None
) -> LintReport:
    """Lint every request body in ``path`` against one provider rule (and the framework's ``name_rule``, if given).

    Raises ``InputError`` for an unknown provider or variant (before reading), and for a file that is missing,
    empty, not JSON, or holds no request body.
    """
    rule = get_rule(provider, variant)
    path = Path(path)
    findings: list[LintFinding] = []
    requests = 0
    for position, body in read_requests(path):
        requests += 1
        findings.extend(lint_body(body, rule, position, name_rule))
    if not requests:
        raise InputError(
            f"{path}: no request bodies found; expected objects with 'tools', 'messages' or 'input', "
            "capture records with a 'body' field, or a HAR export with request postData"
        )
    return LintReport(rule, requests, tuple(findings))
