"""Scenario files: the one way to write down what a :class:`~probe_lib.core.scenarios.Scenario` is, in YAML or JSON.

A file is a mapping with a ``scenarios`` list (and an optional free-text ``description``). Each scenario names the
fields of one agent turn in the runner's own words (``toolChoice``, ``activeTools`` …); every field but ``name`` is
optional and defaults to what :class:`Scenario` says::

    description: my tools, forced by key
    scenarios:
      - name: forced-by-key          # unique in the file; outcomes and tables refer to it
        tools:                       # registered in this order; a bare string is a probe tool whose id is its key
          - search.web
          - {key: weather, id: get-weather}            # optional id, builtin (an export name), hang
        toolChoice: {type: tool, toolName: search.web} # or auto | required | none
        activeTools: [search.web]
        method: stream                                 # or generate (default)
        replies:                                       # the scripted model, one reply per request
          - {tool_calls: [{id: call_1, name: search_web, arguments: {city: Paris}}]}
          - {text: done}
        maxSteps: 2
    # also: agents, workflows, clientTools (lists of tools), toolsets ({name: [tools]}), remedy (true/false),
    # instructions (the system prompt), timeoutMs (the turn's watchdog), wire (chat, the default | responses |
    # messages: Mastra's model router's OpenAI Responses or Anthropic Messages provider), lookups (strings asked of
    # Mastra's own lookup surfaces, with mastraTools registered on a Mastra instance and the agent under agentKey,
    # its id agentId)

:data:`SCHEMA` is the format's JSON Schema, checked with ``jsonschema``; replies are read by
:func:`probe_lib.wire.replies.reply_from_json`. A bad file raises one :class:`InputError` line naming the file, the
scenario and the field. The kit's own catalogue (``adapters/mastra/catalogue.yaml``) is written in this format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from probe_lib.core.errors import InputError
from probe_lib.core.scenarios import Scenario, ToolSpec
from probe_lib.wire.replies import reply_from_json

#: Bigger than any hand-written file (the catalogue is 5 kB): a larger one is most likely the wrong file.
MAX_FILE_BYTES = 1_000_000
_DEFAULT = Scenario(name="defaults")

_TOOL = {
    "x-expected": "a key string or {key, id, builtin, hang}",
    "oneOf": [
        {"type": "string", "description": "a probe tool registered under this key, whose id is the key"},
        {
            "type": "object",
            "required": ["key"],
            "additionalProperties": False,
            "properties": {
                "key": {"type": "string", "description": "the key the tool is registered under"},
                "id": {"type": "string", "description": "the tool's own id (default: the key)"},
                "builtin": {"type": "string", "description": "a built-in export of @mastra/core/tools (askUserTool …)"},
                "hang": {"type": "boolean", "description": "execute never returns (the turn ends by its timeout)"},
            },
        },
    ],
}
_TOOLS = {"type": "array", "items": _TOOL}

#: One scenario's fields: file name -> (``Scenario`` attribute, JSON Schema of the value).
FIELDS: Mapping[str, tuple[str, dict]] = {
    "name": ("name", {"type": "string", "minLength": 1}),
    "tools": ("tools", _TOOLS),
    "agents": ("agents", _TOOLS),
    "workflows": ("workflows", _TOOLS),
    "toolsets": ("toolsets", {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": _TOOLS}),
    "clientTools": ("client_tools", _TOOLS),
    "toolChoice": (
        "tool_choice",
        {
            "x-expected": "auto, required, none or {type: tool, toolName: NAME}",
            "oneOf": [
                {"enum": ["auto", "required", "none"]},
                {
                    "type": "object",
                    "required": ["type", "toolName"],
                    "additionalProperties": False,
                    "properties": {"type": {"const": "tool"}, "toolName": {"type": "string"}},
                },
            ],
        },
    ),
    "activeTools": ("active_tools", {"type": "array", "items": {"type": "string"}}),
    "method": ("method", {"enum": ["generate", "stream"]}),
    "replies": ("replies", {"type": "array", "items": {"type": "object"}}),
    "maxSteps": ("max_steps", {"type": "integer", "minimum": 1, "maximum": 100}),
    "remedy": ("remedy", {"type": "boolean"}),
    "instructions": ("instructions", {"type": "string"}),
    "timeoutMs": ("timeout_ms", {"type": "integer", "minimum": 1, "maximum": 600_000}),
    "allBuiltins": ("all_builtins", {"enum": ["export", "id"]}),
    "reportPackage": ("report_package", {"type": "boolean"}),
    "sharedBy": ("shared_by", {"type": "integer", "minimum": 1, "maximum": 16}),
    "wire": ("wire", {"enum": ["chat", "responses", "messages"]}),
    "lookups": ("lookups", {"type": "array", "items": {"type": "string"}}),
    "mastraTools": ("mastra_tools", _TOOLS),
    "agentKey": ("agent_key", {"type": "string"}),
    "agentId": ("agent_id", {"type": "string", "minLength": 1}),
}

SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "probe-lib scenario file",
    "type": "object",
    "required": ["scenarios"],
    "additionalProperties": False,
    "properties": {
        "description": {"type": "string"},
        "scenarios": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "additionalProperties": False,
                "properties": {field: schema for field, (_, schema) in FIELDS.items()},
            },
        },
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key given twice in one mapping is refused instead of the last one winning."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"field {key!r} is given twice in one mapping", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# -- reading -------------------------------------------------------------------------------------------------------


def _field_path(parts: Iterable[Any]) -> str:
    """``["tools", 0, "id"]`` -> ``tools[0].id``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _where(label: str, document: Any, path: Sequence[Any]) -> str:
    """``FILE: scenario 'NAME' (number N): field 'F'`` for a path into the document."""
    if len(path) >= 2 and path[0] == "scenarios" and isinstance(path[1], int):
        item = document["scenarios"][path[1]]
        name = item.get("name") if isinstance(item, dict) else None
        scenario = (
            f"scenario {name!r} (number {path[1] + 1})" if isinstance(name, str) else f"scenario number {path[1] + 1}"
        )
        field = _field_path(path[2:])
        return f"{label}: {scenario}" + (f": field {field!r}" if field else "")
    return f"{label}: field {_field_path(path)!r}" if path else label


def _schema_error(label: str, document: Any) -> InputError | None:
    """The most telling schema violation of ``document`` as one line, or ``None`` when it is valid."""
    error = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(document))
    return None if error is None else _schema_error_of(label, document, error)


def _schema_error_of(label: str, document: Any, error: jsonschema.ValidationError) -> InputError:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known), key=str)
        return InputError(f"{_where(label, document, path + [unknown[0]])}: unknown field; known: {', '.join(known)}")
    message = error.message
    if error.validator == "oneOf":  # say what the alternatives are; for a tool object, what is wrong inside it
        objects = [n for n, branch in enumerate(error.validator_value) if branch.get("type") == "object"]
        inner = [e for e in error.context if isinstance(error.instance, dict) and e.relative_schema_path[0] in objects]
        if inner:
            return _schema_error_of(label, document, jsonschema.exceptions.best_match(inner))
        message = f"{json.dumps(error.instance, ensure_ascii=False)[:60]} is not {error.schema['x-expected']}"
    if not path and error.validator == "type":
        message = f"the top level must be a mapping with a 'scenarios' list, not {type(error.instance).__name__}"
    expected = str(error.validator_value) if error.validator == "type" else error.schema.get("x-expected", "")
    if isinstance(error.instance, (int, float, bool)) and "string" in expected:
        message += " (quote it: YAML reads 42, 1.5, yes and no as numbers and booleans)"
    return InputError(f"{_where(label, document, path)}: {message[:200]}")


def _tool(value: str | dict) -> ToolSpec:
    return ToolSpec(value) if isinstance(value, str) else ToolSpec(**value)


def _value(field: str, value: Any) -> Any:
    """The ``Scenario`` attribute value of a (schema-valid) file field."""
    if field in ("tools", "agents", "workflows", "clientTools", "mastraTools"):
        return tuple(map(_tool, value))
    if field == "toolsets":
        return {name: tuple(map(_tool, specs)) for name, specs in value.items()}
    if field in ("activeTools", "lookups"):
        return tuple(value)
    if field == "replies":
        return tuple(map(reply_from_json, value))
    return value


def _scenario(label: str, document: dict, number: int) -> Scenario:
    entry = document["scenarios"][number]
    attributes = {}
    for field, value in entry.items():
        try:
            attributes[FIELDS[field][0]] = _value(field, value)
        except InputError as error:  # a reply form; reply_from_json names what is wrong with it
            raise InputError(f"{_where(label, document, ['scenarios', number, field])}: {error}") from None
    return Scenario(**attributes)


def parse(text: str, label: str = "<scenarios>", *, is_json: bool = False) -> list[Scenario]:
    """The scenarios a file's ``text`` holds; ``label`` names the file in errors."""
    try:
        document = json.loads(text) if is_json else yaml.load(text, Loader=_UniqueKeyLoader)
    except json.JSONDecodeError as error:
        raise InputError(f"{label}: not valid JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise InputError(f"{label}: not valid YAML{where}: {problem}") from None
    if document is None:
        raise InputError(
            f"{label}: the file is empty; it needs a 'scenarios' list (see probe_lib.inputs.scenario_files)"
        )
    fault = _schema_error(label, document)
    if fault is not None:
        raise fault
    scenarios = [_scenario(label, document, number) for number in range(len(document["scenarios"]))]
    first: dict[str, int] = {}
    for number, scenario in enumerate(scenarios):
        if scenario.name in first:
            where = _where(label, document, ["scenarios", number, "name"])
            raise InputError(f"{where}: duplicate name, scenario number {first[scenario.name] + 1} has it already")
        first[scenario.name] = number
    return scenarios


def load(path: str | Path) -> list[Scenario]:
    """The scenarios of a YAML or JSON (``*.json``) file, in file order; ``InputError`` names any fault."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise InputError(f"cannot read scenario file {path}: {error.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        size = path.stat().st_size
        raise InputError(
            f"{path}: {size / 1e6:.1f} MB is too big for a scenario file (at most {MAX_FILE_BYTES / 1e6:.0f} MB); "
            "split it, or generate scenarios in Python"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text (byte {error.start})") from None
    return parse(text, str(path), is_json=path.suffix.lower() == ".json")


# -- writing -------------------------------------------------------------------------------------------------------


def _tool_json(spec: ToolSpec) -> str | dict:
    data = spec.to_json()
    return spec.key if data == {"key": spec.key} else data


def _field_json(field: str, value: Any) -> Any:
    if field in ("tools", "agents", "workflows", "clientTools", "mastraTools"):
        return [_tool_json(spec) for spec in value]
    if field == "toolsets":
        return {name: [_tool_json(spec) for spec in specs] for name, specs in value.items()}
    if field in ("activeTools", "lookups"):
        return list(value)
    if field == "replies":
        return [reply.to_json() for reply in value]
    return dict(value) if isinstance(value, Mapping) else value


def to_document(scenarios: Sequence[Scenario], description: str | None = None) -> dict:
    """The file form of ``scenarios``: each field that differs from :class:`Scenario`'s default, in ``FIELDS`` order."""
    entries = []
    for scenario in scenarios:
        entries.append(
            {
                field: _field_json(field, getattr(scenario, attribute))
                for field, (attribute, _) in FIELDS.items()
                if field == "name" or getattr(scenario, attribute) != getattr(_DEFAULT, attribute)
            }
        )
    return ({"description": description} if description else {}) | {"scenarios": entries}


def dump(scenarios: Sequence[Scenario], description: str | None = None) -> str:
    """``scenarios`` as YAML text that :func:`parse` reads back equal (keys YAML would misread are quoted)."""
    return yaml.safe_dump(to_document(scenarios, description), sort_keys=False, allow_unicode=True, width=120)
