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
    # its id agentId), docsSections (headings of the docs the installed package ships, reported in Outcome.package),
    # docsMentions (texts whose every line in those docs is reported there too), logs (false: keep only the
    # exceptions the framework's logger tracked)

YAML is read as JSON's data model: a date is the text written, and what JSON cannot say (other tags such as
``!!binary``, a list or mapping as a key, NaN) is refused, as are nesting past :data:`MAX_DEPTH` levels and aliases
that expand past :data:`MAX_VALUES` values; an anchor used a few times is fine. A file is then checked by the
pydantic models of the format (:class:`ScenarioFile`), which also make its JSON Schema (:data:`SCHEMA`); a field's
name is its attribute's JSON name (:func:`~probe_lib.core.scenarios.json_name`), and replies are read by
:func:`probe_lib.wire.replies.reply_from_json`. A bad file raises one :class:`InputError` line naming the file, the
scenario and the field. The kit's own catalogue (``frameworks/mastra/catalogue.yaml``) is written in this format.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

import pydantic
import yaml
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Discriminator, Field, Tag, model_validator
from pydantic_core import PydanticCustomError

from probe_lib.core import json_input
from probe_lib.core.errors import InputError
from probe_lib.core.scenarios import DEFAULTS, AllBuiltins, ChoiceMode, Method, Scenario, ToolSpec, Wire, json_name
from probe_lib.inputs import records
from probe_lib.wire.replies import reply_from_json

#: Bigger than any hand-written file (the catalogue is about 12 kB): a larger one is most likely the wrong file.
MAX_FILE_BYTES = 1_000_000


class _FileMapping(pydantic.BaseModel):
    """A mapping of a scenario file: its fields under their JSON names and no others, each value of its own JSON
    type (no number read from text, no text from a number)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        alias_generator=json_name,
        field_title_generator=lambda name, _: json_name(name),
        frozen=True,
    )


class ToolEntry(_FileMapping):
    """A tool written as a mapping; a key string alone is a probe tool whose id is the key."""

    key: str = Field(description="the key the tool is registered under")
    id: str = Field(None, description="the tool's own id (default: the key)")
    builtin: str = Field(None, min_length=1, description="a built-in export of @mastra/core/tools (askUserTool …)")
    hang: bool = Field(False, description="execute never returns (the turn ends by its timeout)")

    @model_validator(mode="after")
    def _builtin_as_exported(self) -> ToolEntry:
        """A built-in is registered as the package exports it: an id or hang given with it would be recorded
        but not run."""
        if self.builtin is not None and ({"id", "hang"} & self.model_fields_set):
            raise PydanticCustomError(
                "builtin_alone", "a builtin tool takes no id or hang: the package's export is registered as it is"
            )
        return self


class ForcedTool(_FileMapping):
    """A toolChoice that forces one tool by name."""

    type: Literal["tool"]
    tool_name: str


def _key_alone(value: Any) -> Any:
    """A tool written as its key alone is ``{key: KEY}``; neither form is refused here."""
    if isinstance(value, str):
        return {"key": value}
    if not isinstance(value, dict):
        raise PydanticCustomError(_NOT_A_TOOL, "Input should be a key string or a {key, id, builtin, hang} mapping")
    return value


#: The error a tool that is neither a key string nor a mapping gets.
_NOT_A_TOOL = "tool_form"

_Tool = Annotated[
    ToolEntry,
    BeforeValidator(_key_alone, json_schema_input_type=str | ToolEntry),
    AfterValidator(lambda entry: ToolSpec(**entry.model_dump())),
]


def _distinct_keys(specs: list[ToolSpec]) -> tuple[ToolSpec, ...]:
    """The tools, each under a key of its own: a record holds a key once, so a second would drop the first."""
    try:
        records.check_record([spec.key for spec in specs], "the list")
    except InputError as repeated:
        raise PydanticCustomError("duplicate_key", "{message}", {"message": str(repeated)}) from None
    return tuple(specs)


_Tools = Annotated[list[_Tool], AfterValidator(_distinct_keys)]
_Texts = Annotated[list[str], AfterValidator(tuple)]
_Reply = Annotated[dict[str, Any], AfterValidator(reply_from_json)]
#: pydantic names the form an error was found in after the field (``toolChoice.mapping.toolName``).
_ToolChoice = Annotated[
    Annotated[ChoiceMode, Tag("plain")]
    | Annotated[ForcedTool, AfterValidator(lambda forced: forced.model_dump(by_alias=True)), Tag("mapping")],
    Discriminator(
        lambda value: "mapping" if isinstance(value, dict) else "plain" if isinstance(value, str) else None,
        custom_error_type="tool_choice",
        custom_error_message="Input should be auto, required, none or {type: tool, toolName: NAME}",
    ),
]


class ScenarioEntry(_FileMapping):
    """One scenario: each field optional but name, with the default an agent turn has."""

    name: str = Field(min_length=1)
    tools: _Tools = DEFAULTS["tools"]
    agents: _Tools = DEFAULTS["agents"]
    workflows: _Tools = DEFAULTS["workflows"]
    toolsets: dict[str, _Tools] = DEFAULTS["toolsets"]
    client_tools: _Tools = DEFAULTS["client_tools"]
    tool_choice: _ToolChoice = DEFAULTS["tool_choice"]
    active_tools: _Texts = DEFAULTS["active_tools"]
    method: Method = DEFAULTS["method"]
    replies: Annotated[list[_Reply], AfterValidator(tuple)] = DEFAULTS["replies"]
    max_steps: int = Field(DEFAULTS["max_steps"], ge=1, le=100)
    remedy: bool = DEFAULTS["remedy"]
    all_builtins: AllBuiltins = DEFAULTS["all_builtins"]
    report_package: bool = DEFAULTS["report_package"]
    docs_sections: _Texts = DEFAULTS["docs_sections"]
    docs_mentions: Annotated[list[Annotated[str, Field(min_length=1)]], AfterValidator(tuple)] = DEFAULTS[
        "docs_mentions"
    ]
    shared_by: int = Field(DEFAULTS["shared_by"], ge=1, le=16)
    instructions: str = DEFAULTS["instructions"]
    wire: Wire = DEFAULTS["wire"]
    lookups: _Texts = DEFAULTS["lookups"]
    mastra_tools: _Tools = DEFAULTS["mastra_tools"]
    agent_key: str = DEFAULTS["agent_key"]
    agent_id: str = Field(DEFAULTS["agent_id"], min_length=1)
    logs: bool = DEFAULTS["logs"]
    timeout_ms: int = Field(DEFAULTS["timeout_ms"], ge=1, le=600_000)


class ScenarioFile(_FileMapping):
    """A scenario file: an optional description and at least one scenario."""

    description: str = None
    scenarios: list[ScenarioEntry] = Field(min_length=1)


def _without_null_defaults(schema: Any) -> Any:
    """``schema`` without ``"default": null``: an absent field takes the default, and null is refused."""
    if isinstance(schema, dict):
        return {
            key: _without_null_defaults(value) for key, value in schema.items() if (key, value) != ("default", None)
        }
    return [_without_null_defaults(item) for item in schema] if isinstance(schema, list) else schema


#: The format's JSON Schema (what an editor can check a file against), made from the models that read it.
SCHEMA: dict = {"$schema": "https://json-schema.org/draft/2020-12/schema"} | _without_null_defaults(
    ScenarioFile.model_json_schema(by_alias=True) | {"title": "probe-lib scenario file"}
)


#: The YAML tags a scenario file may hold, explicit or implied: what JSON can say. Everything else PyYAML's safe
#: loader offers (dates, ``!!binary``, sets, ordered maps, merge keys) is refused by name.
PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{kind}" for kind in ("null", "bool", "int", "float", "str", "seq", "map"))
#: The tag each kind of node may carry: ``!!map 1`` (a scalar tagged as a mapping) reads as a dict, not a value.
_TAGS_OF = {
    yaml.ScalarNode: PLAIN_TAGS - {"tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"},
    yaml.SequenceNode: {"tag:yaml.org,2002:seq"},
    yaml.MappingNode: {"tag:yaml.org,2002:map"},
}
#: Deeper than any scenario needs (a reply's tool-call arguments start at level 7), and shallow enough that no
#: reader of the document (PyYAML's composer, pydantic, json.dumps) nears Python's recursion limit.
MAX_DEPTH = 64
#: As many values as the biggest file allowed could spell out (each takes at least two bytes): aliases may share
#: parts of a file, but never make it cost more to read than that.
MAX_VALUES = MAX_FILE_BYTES // 2


class _Refused(Exception):
    """A construct a scenario file may not hold, found at ``path`` (while the file is being read, so before the
    document exists); ``name`` is its scenario's name when it was read already."""

    def __init__(self, path: Sequence[Any], name: str | None, message: str, mark: yaml.Mark) -> None:
        super().__init__(f"{message} (line {mark.line + 1})")
        self.path, self.name = tuple(path), name


class _Loader(yaml.SafeLoader):
    """YAML's safe loader, narrowed to the JSON data model as each node is read: only :data:`PLAIN_TAGS` (a date
    is text, as in JSON), keys that are scalars and unique in their mapping, integers Python can read, no NaN or
    infinity, at most :data:`MAX_DEPTH` levels and :data:`MAX_VALUES` values with every alias counted where it is
    used, and no alias inside its own anchor. An alias is never copied: its node is shared, and its size and
    depth are known once, so a small file that would expand enormously ("billion laughs") is refused in the
    time and memory it takes to read it."""

    yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag in PLAIN_TAGS]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    yaml_constructors = {tag: make for tag, make in yaml.SafeLoader.yaml_constructors.items() if tag in PLAIN_TAGS}

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._path: list[Any] = []
        self._names: dict[int, str] = {}  # scenario number -> its name, once read
        self._shape: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels) of each node read whole

    def _refuse(self, message: str, mark: yaml.Mark) -> NoReturn:
        number = self._path[1] if len(self._path) >= 2 and self._path[0] == "scenarios" else None
        raise _Refused(self._path, self._names.get(number) if isinstance(number, int) else None, message, mark)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        # ``index`` is the item's number in a sequence, its key's node in a mapping, None for a key or the root
        is_key = isinstance(parent, yaml.MappingNode) and index is None
        step = [] if parent is None or is_key else [index if isinstance(index, int) else _key_text(index)]
        self._path += step
        try:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                node = self._alias(super().compose_node(parent, index), event.start_mark)
            elif len(self._path) >= MAX_DEPTH:
                self._refuse(f"nested more than {MAX_DEPTH} levels deep; flatten it", event.start_mark)
            else:
                node = super().compose_node(parent, index)
                self._check(node)
            if is_key and not isinstance(node, yaml.ScalarNode):  # an alias may name a list too
                kind = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
                self._refuse(f"a mapping key must be text, not a {kind}", event.start_mark)
            return node
        finally:
            del self._path[len(self._path) - len(step) :]

    def _alias(self, node: yaml.Node, mark: yaml.Mark) -> yaml.Node:
        if id(node) not in self._shape:
            self._refuse("an alias inside its own anchor would nest forever", mark)
        if len(self._path) + self._shape[id(node)][1] > MAX_DEPTH:
            self._refuse(f"this alias nests the file more than {MAX_DEPTH} levels deep", mark)
        return node

    def _check(self, node: yaml.Node) -> None:
        """Refuse what ``node`` may not be, once read whole; note its size and depth for the aliases to it."""
        if node.tag not in PLAIN_TAGS:
            self._refuse(
                f"the YAML tag {_short_tag(node.tag)} is not read in a scenario file; {_PLAIN}", node.start_mark
            )
        if node.tag not in _TAGS_OF[type(node)]:
            self._refuse(
                f"the YAML tag {_short_tag(node.tag)} does not fit the value after it; {_PLAIN}", node.start_mark
            )
        if isinstance(node, yaml.ScalarNode):
            self._check_scalar(node)
            children: list[yaml.Node] = []
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            children = [part for pair in node.value for part in pair]
            self._check_keys(node)
        values = 1 + sum(self._shape[id(child)][0] for child in children)
        if values > MAX_VALUES:
            self._refuse(f"its aliases expand to more than {MAX_VALUES:,} values; repeat less", node.start_mark)
        self._shape[id(node)] = values, 1 + max((self._shape[id(child)][1] for child in children), default=0)
        if self._path[:1] == ["scenarios"] and len(self._path) == 3 and self._path[2] == "name":
            if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":str"):
                self._names[self._path[1]] = node.value

    def _check_scalar(self, node: yaml.ScalarNode) -> None:
        try:
            value = self.construct_object(node)
        except ValueError:  # an integer longer than sys.get_int_max_str_digits()
            self._refuse(f"a number of {len(node.value):,} digits is too long to read; quote it", node.start_mark)
        if isinstance(value, float) and not math.isfinite(value):
            self._refuse(f"{node.value:.20} is not a JSON number; write a number, or quote it", node.start_mark)

    def _check_keys(self, node: yaml.MappingNode) -> None:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node)
            if key in seen:
                self._refuse(f"field {key!r:.60} is given twice in one mapping", key_node.start_mark)
            seen.add(key)


_PLAIN = "write text, a number, true/false, null, a list or a mapping"


def _key_text(node: yaml.Node) -> Any:
    """How a mapping key shows in a field path: its text, or ``?`` for a key that is not a scalar."""
    return node.value if isinstance(node, yaml.ScalarNode) else "?"


def _short_tag(tag: str) -> str:
    """``tag:yaml.org,2002:binary`` -> ``!!binary``; a local tag (``!mine``) as written."""
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


# -- reading -------------------------------------------------------------------------------------------------------


#: How many steps of a field path an error shows: enough to find the field, not a line per level of nesting.
_PATH_STEPS = 8


def _field_path(parts: Sequence[Any]) -> str:
    """``["tools", 0, "id"]`` -> ``tools[0].id``; a path longer than ``_PATH_STEPS`` ends in ``…``."""
    text = ""
    for part in parts[:_PATH_STEPS]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text + ("…" if len(parts) > _PATH_STEPS else "")


def _where(label: str, path: Sequence[Any], name: str | None = None) -> str:
    """``FILE: scenario 'NAME' (number N): field 'F'`` for a path into the document; ``name`` is the scenario's."""
    if len(path) >= 2 and path[0] == "scenarios" and isinstance(path[1], int):
        scenario = f"scenario {name!r} (number {path[1] + 1})" if name else f"scenario number {path[1] + 1}"
        field = _field_path(path[2:])
        return f"{label}: {scenario}" + (f": field {field!r}" if field else "")
    return f"{label}: field {_field_path(path)!r}" if path else label


def _located(document: Any, loc: Sequence[Any]) -> list[Any]:
    """The path in ``document`` of pydantic's ``loc``, up to the first step the document has no place for; the
    form a ``toolChoice`` was read in (the step after it) and ``[key]`` (the key just named is at fault) are not
    fields."""
    path, value = [], document
    for number, step in enumerate(loc):
        if step == "[key]" or number == 3 and loc[2] == "toolChoice":
            continue
        if isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            path.append(step)
        elif isinstance(value, dict) and step in value:
            path.append(str(step))  # a key YAML read as a number is still a name, not a position
        else:
            break
        value = value[step]
    return path


def _fault(label: str, document: Any, error: pydantic.ValidationError, *, is_json: bool = False) -> InputError:
    """The first thing wrong with ``document`` as one line naming the file, the scenario and the field."""
    first = error.errors(include_url=False)[0]
    path, kind, value = _located(document, first["loc"]), first["type"], first["input"]
    shown = json.dumps(value, ensure_ascii=False)[:60]
    if kind in ("extra_forbidden", "invalid_key"):
        known = ", ".join(sorted(field.alias for field in _model_at(path[:-1]).model_fields.values()))
        message = (
            f"unknown field; known: {known}"
            if kind == "extra_forbidden"
            else f"a field name must be text, not {shown}; known: {known}"
        )
    elif kind == "missing":
        message = f"{first['loc'][-1]!r} is required"
    elif kind == "value_error":  # a reply form: reply_from_json says what is wrong with it
        message = str(first["ctx"]["error"])
    elif kind in ("model_type", "dict_type") and not path:
        message = f"the top level must be a mapping with a 'scenarios' list, not {type(value).__name__}"
    elif kind in ("model_type", "dict_type"):
        message = f"Input should be a mapping, not {shown}"
    elif kind == "too_short":  # only the scenarios list has a least length
        message = "at least one scenario is needed"
    else:
        message = f"{first['msg']}, not {shown}"
    if kind in ("string_type", _NOT_A_TOOL) and isinstance(value, int | float | bool) and not is_json:
        message += " (quote it: YAML reads 42, 1.5, yes and no as numbers and booleans)"
    return InputError(f"{_where(label, path, _scenario_name(document, path))}: {message}")


def _model_at(path: Sequence[Any]) -> type[pydantic.BaseModel]:
    """The model of the mapping at ``path``: the file, a scenario, a tool or a forced ``toolChoice``."""
    if len(path) < 3:
        return ScenarioFile if not path else ScenarioEntry
    return ForcedTool if path[2] == "toolChoice" else ToolEntry


def _scenario_name(document: Any, path: Sequence[Any]) -> str | None:
    """The name of the scenario ``path`` leads into, if it has a text one."""
    if len(path) < 2 or path[0] != "scenarios":
        return None
    item = document["scenarios"][path[1]]
    name = item.get("name") if isinstance(item, dict) else None
    return name if isinstance(name, str) else None


def parse(text: str, label: str = "<scenarios>", *, is_json: bool = False) -> list[Scenario]:
    """The scenarios a file's ``text`` holds; ``label`` names the file in errors."""
    try:
        document = json_input.loads(text, label, distinct_fields=True) if is_json else yaml.load(text, Loader=_Loader)
    except _Refused as refused:
        raise InputError(f"{_where(label, refused.path, refused.name)}: {refused}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise InputError(f"{label}: not valid YAML{where}: {problem}") from None
    if document is None:
        raise InputError(
            f"{label}: the file is empty; it needs a 'scenarios' list (see probe_lib.inputs.scenario_files)"
        )
    try:
        entries = ScenarioFile.model_validate(document).scenarios
    except pydantic.ValidationError as error:
        raise _fault(label, document, error, is_json=is_json) from None
    scenarios = [Scenario(**{field: getattr(entry, field) for field in entry.model_fields_set}) for entry in entries]
    first: dict[str, int] = {}
    for number, scenario in enumerate(scenarios):
        if scenario.name in first:
            where = _where(label, ["scenarios", number, "name"], scenario.name)
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
    """A tool as a file writes it: a probe tool whose id is its key as the key alone."""
    return spec.key if spec == ToolSpec(spec.key) else spec.to_json()


def to_document(scenarios: Sequence[Scenario], description: str | None = None) -> dict:
    """The file form of ``scenarios``: each field that differs from :class:`Scenario`'s default."""
    entries = [scenario.changed(_tool_json) for scenario in scenarios]
    return ({"description": description} if description else {}) | {"scenarios": entries}


def dump(scenarios: Sequence[Scenario], description: str | None = None) -> str:
    """``scenarios`` as YAML text that :func:`parse` reads back equal (keys YAML would misread are quoted)."""
    return yaml.safe_dump(to_document(scenarios, description), sort_keys=False, allow_unicode=True, width=120)
