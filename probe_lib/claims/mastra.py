"""Mastra's checks for the claims ledger: each claim of ``data/claims.csv`` judged on ``@mastra/core`` outcomes.

Every check reads the catalogue's outcomes (``catalogue.py``) on one version, live or recorded, and tests the whole
statement of its claim against them; each is registered where it is written, under its claim id
(:func:`~probe_lib.claims.registry.claim`). Expected values are written out from the article's own rules (or the
docs it quotes), never taken from the Python model. A check raises :class:`~probe_lib.tables.evidence.CheckError`
when the evidence lacks what it needs, which the ledger shows as failed.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter

from probe_lib import providers
from probe_lib.analysis import measured
from probe_lib.claims.registry import claim
from probe_lib.claims.verdict import Status
from probe_lib.core.naming import js_length
from probe_lib.core.outcome import CAPTURED, Outcome, quoted, wire_names_by_key
from probe_lib.core.target import baseline, version_key
from probe_lib.frameworks.mastra import catalogue, versions
from probe_lib.frameworks.mastra.runner import COLLISION_ID
from probe_lib.providers import lint
from probe_lib.tables.evidence import CheckError, Evidence

#: The version the article measured: the baseline other versions are judged against (data/baselines.csv).
ARTICLE_VERSION = baseline("mastra").version

#: The served version that stands in for the article's 1.0.0, and why (the registry's version list, read 2026-11-30).
STAND_IN = (
    "1.0.4",
    "the npm registry serves no 1.0.0, only its betas; 1.0.4 is the oldest stable 1.x release it serves",
)
#: The article's allowed set, as a regular expression over one character (code point).
_ALLOWED = re.compile(r"[a-zA-Z0-9_-]")
_LEVELS_THAT_SPEAK = ("warn", "error", "exception")
#: The provider rule the length claims (A06, A18) name: OpenAI's documented Chat Completions rule (64 characters);
#: data/provider_rules.csv also holds observed limits of 128 for other rows, which these claims do not speak of.
_OPENAI_DOCUMENTED = ("openai", "documented")
#: The maximum the provider error issue 6302 quotes ("Expected a string with maximum length 64").
_ISSUE_6302_MAXIMUM = 64


# -- helpers the checks share -------------------------------------------------------------------------------------


def _names(outcome: Outcome) -> list[str]:
    if outcome.wire_names is None:
        raise CheckError(f"scenario {outcome.scenario.name} sent no request: {_error_text(outcome)}")
    return outcome.wire_names


def _error_text(outcome: Outcome) -> str:
    return (
        " <- ".join(f"{link.get('id') or link['name']}: {quoted(link['message'], 80)}" for link in outcome.error)
        or "no error"
    )


def _spoken(outcome: Outcome) -> list[str]:
    """What Mastra's logger said at warn level or above, other than relaying the capture server's 400 (its record
    "Upstream LLM API error" carries the reply in its arguments)."""
    said = []
    for record in outcome.log_records(*_LEVELS_THAT_SPEAK):
        relays_capture = record["message"].startswith("Upstream LLM API error") and f'"{CAPTURED}"' in json.dumps(
            record.get("args")
        )
        if not relays_capture:
            said.append(f"{record['level']}: {quoted(record['message'], 100)}")
    return said


def _json_or_none(text: object) -> object:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        return None


def _without_baseline(e: Evidence) -> tuple[Status, str] | None:
    """'not testable' for a cross-version claim on the baseline itself, or when the baseline was not measured."""
    if e.version == ARTICLE_VERSION:
        return "not testable", f"{ARTICLE_VERSION} is the article's version, the baseline others are compared with"
    if ARTICLE_VERSION not in e.by_version:
        return "not testable", f"the baseline {ARTICLE_VERSION} was not measured"
    return None


def _substituted(key: str, *, units: bool) -> str:
    """The article's substitution by hand: each character outside the allowed set becomes one underscore, or (``units``)
    one underscore per UTF-16 code unit it occupies."""
    return "".join(c if _ALLOWED.fullmatch(c) else "_" * (2 if units and ord(c) > 0xFFFF else 1) for c in key)


_COLLISION_START = "Two or more tools resolve to the same name"


def _forces_absent_tool(outcome: Outcome, forced_as: str, context: str = "") -> tuple[Status, str]:
    """Confirmed when the request forces ``forced_as`` verbatim and ``tools`` holds no function by that name."""
    forced, names = outcome.forced_name, _names(outcome)
    if forced != forced_as:
        return "refuted", f"{context}tool_choice was not sent as {forced_as!r}: {outcome.tool_choice}; tools {names}"
    if forced in names:
        return "refuted", f"{context}tool_choice {forced!r} is offered in tools {names}: no mismatch"
    return "confirmed", f"{context}tools {names}, tool_choice names {forced!r}"


# -- article claims -----------------------------------------------------------------------------------------------


@claim("A01")
def _legal_keys_are_names(e: Evidence) -> tuple[Status, str]:
    docs, distinct = e["docs-key-examples"], e["docs-legal-keys"]
    # Ids that no key spells (weather-tool is both a key and another tool's id): offering one is the id leaking.
    ids_alone = {spec.id for spec in distinct.scenario.tools} - set(distinct.registered_keys)
    if leaked := ids_alone & set(_names(distinct)):
        return "refuted", f"the tools' ids {sorted(leaked)} were offered although no key names them"
    for outcome in (docs, distinct):
        keys, names = outcome.registered_keys, _names(outcome)
        if names != keys:
            return "refuted", f"{outcome.scenario.name}: keys {keys} went out as {names}, not as the keys"
    return "confirmed", (
        f"the docs' three examples (one tool, id weather-tool) went out as their keys {_names(docs)}; "
        f"with a distinct id per tool, no id was offered ({_names(distinct)})"
    )


#: The scenarios registering keys that are already valid by the article's own rule (A22 ranges over them), none of
#: them beside a key that rewrites onto it.
_VALID_KEYS = ("docs-key-examples", "docs-legal-keys", "choice-legal-key", "legal-keys-interleaved", "proto-key")


@claim(
    "A22",
    quantified=_VALID_KEYS,
    refuted_as_measured="the valid key __proto__ is never offered (F06)",
    refuted_when=r"valid keys were offered as themselves, but not __proto__ \(proto-key, which sent \['plain'\]\)$",
)
def _valid_keys_are_offered(e: Evidence) -> tuple[Status, str]:
    offered, missing = [], []
    for scenario in _VALID_KEYS:
        outcome = e[scenario]
        valid = [key for key in outcome.registered_keys if not _needs_rewrite(key)]
        if not valid:
            raise CheckError(f"{scenario} registers no valid key: {outcome.registered_keys}")
        names = _names(outcome)
        missing += [f"{key} ({scenario}, which sent {names})" for key in valid if key not in names]
        offered += [key for key in valid if key in names]
    if missing:
        return "refuted", f"{len(offered)} valid keys were offered as themselves, but not {'; '.join(missing)}"
    return "confirmed", f"every valid key of {', '.join(_VALID_KEYS)} was offered as itself: {sorted(set(offered))}"


#: The catalogue's scenarios that set no toolChoice: A23 reads each.
_NO_TOOL_CHOICE = tuple(name for name, scenario in catalogue.by_name().items() if scenario.tool_choice is None)
#: What "auto" is on each wire: a bare string, except on Anthropic's Messages, where it is an object.
_AUTO = {"anthropic-messages": {"type": "auto"}}


@claim("A23", quantified=_NO_TOOL_CHOICE)
def _auto_by_default(e: Evidence) -> tuple[Status, str]:
    with_tools, without, silent = Counter(), 0, 0
    for scenario in _NO_TOOL_CHOICE:
        outcome = e[scenario]
        silent += not outcome.requests
        for number, request in enumerate(outcome.requests, 1):
            tools = outcome._format.tool_names(request)
            expected = _AUTO.get(str(outcome.wire), "auto") if tools else None
            if request.get("tool_choice") != expected:
                return "refuted", (
                    f"{scenario}, request {number}: no toolChoice set, tools {tools}, yet tool_choice "
                    f"{request.get('tool_choice')!r} (not {expected!r})"
                )
            if tools:
                with_tools[str(outcome.wire)] += 1
            else:
                without += 1
    formats = ", ".join(
        f"{count} request{'' if count == 1 else 's'} on {wire}" for wire, count in sorted(with_tools.items())
    )
    return "confirmed", (
        f"{len(_NO_TOOL_CHOICE)} scenarios set no toolChoice: every request offering tools carried auto "
        f"({formats}), the {without} offering none no tool_choice; {silent} scenarios sent nothing"
    )


@claim("A02")
def _neither_id_nor_key(e: Evidence) -> tuple[Status, str]:
    outcome = e["key-not-id"]
    names = _names(outcome)
    if "get-weather" in names:
        return "refuted", f"the tool's id get-weather was offered: {names}"
    if "search.web" in names:
        return "refuted", f"the key search.web was offered as written: {names}"
    if names != ["search_web"]:
        return "refuted", f"went out as {names}, not search_web"
    return "confirmed", "tool id get-weather under key search.web went out as search_web (neither the id nor the key)"


@claim("A03")
def _builtins(e: Evidence) -> tuple[Status, str]:
    by_export, by_id = e["builtins-by-export"], e["builtins-by-id"]
    if by_export.package is None:
        raise CheckError("the built-ins scenario carries no package facts: re-record with `probe-lib record`")
    exported = by_export.package["builtins"]
    if not exported:
        return "not testable", f"@mastra/core {e.version} exports no built-in tools to register"
    wrong_ids = {
        name: exported.get(name)
        for name, tool_id in catalogue.DOCS_BUILTIN_TABLE.items()
        if exported.get(name) != tool_id
    }
    if wrong_ids:
        return "refuted", f"the docs' table does not match the package: exported ids {wrong_ids}"
    if _names(by_export) != list(exported):
        return "refuted", f"registered by export name, they went out as {_names(by_export)}, not {list(exported)}"
    if _names(by_id) != list(exported.values()):
        return "refuted", f"registered by id, they went out as {_names(by_id)}, not {list(exported.values())}"
    return "confirmed", (
        f"all {len(exported)} built-ins the package exports (the docs' 4 among them, with the docs' ids) "
        f"went out by export name {_names(by_export)} and by id {_names(by_id)}"
    )


@claim(
    "A04",
    quantified=("rewrite-rules", "unicode-keys"),
    refuted_as_measured="a character outside the BMP (an emoji such as 😀) is two UTF-16 units, two underscores (F01)",
    refuted_when=r"^one underscore per UTF-16 code unit, so a character outside the BMP becomes two: ",
)
def _substitution(e: Evidence) -> tuple[Status, str]:
    # Each key only the substitution touches (first character a letter or underscore, at most 63 UTF-16 units),
    # paired with the name its own tool went out under (read from the tool's description, not by set membership).
    sent: dict[str, str | None] = {}
    for name in ("rewrite-rules", "unicode-keys"):
        outcome = e[name]
        _names(outcome)  # a scenario that sent no request is a CheckError, not a key with no name
        by_key = wire_names_by_key(outcome.registered_keys, outcome)
        sent |= {
            key: by_key.get(key)
            for key in outcome.registered_keys
            if re.fullmatch(r"[a-zA-Z_]", key[:1]) and js_length(key) <= 63 and _substituted(key, units=False) != key
        }
    per_character = {key: _substituted(key, units=False) for key in sent}
    split = {key: _substituted(key, units=True) for key, name in per_character.items() if sent[key] != name}
    if not sent or any(sent[key] != name for key, name in split.items()):
        return (
            "refuted",
            f"not one underscore per character (nor per UTF-16 unit), key by key: expected {per_character}, "
            f"sent {sent}",
        )
    shown = ", ".join(f"{key} -> {name}" for key, name in per_character.items() if key not in split)
    if split:
        units = ", ".join(f"{key} -> {name}" for key, name in split.items())
        return (
            "refuted",
            f"one underscore per UTF-16 code unit, so a character outside the BMP becomes two: {units} (F01); "
            f"inside it, one per character: {shown}",
        )
    return "confirmed", shown


@claim("A05")
def _prefix_before_cut(e: Evidence) -> tuple[Status, str]:
    names = _names(e["rewrite-rules"])
    digit_63 = "1" + "a" * 62
    if "_9lives" not in names:
        return "refuted", f"9lives did not gain a leading underscore: {names}"
    integers = _names(e["integer-keys"])
    if not {"_7", "_42"} <= set(integers):
        return "refuted", f"the keys 7 and 42 went out as {integers}, not as _7 and _42"
    if "_" + digit_63[:62] not in names:
        cut = [name for name in names if name.lstrip("_").startswith("1a")]
        return (
            "refuted",
            f"the 63-char key {digit_63[:4]}... went out as {[(n[:4] + '...', len(n)) for n in cut]}, "
            "not prefixed then cut to 63",
        )
    recorded = {key for outcome in e.outcomes.values() for key in outcome.registered_keys}
    if hyphened := sorted(key for key in recorded if key.startswith("-")):
        return "refuted", f"a recorded key starts with a hyphen: {hyphened[:3]}"
    return "confirmed", (
        "9lives -> _9lives, 7 -> _7, 42 -> _42; the 63-char key 1a...a gained '_' and was cut to 63, "
        f"losing its last 'a'; none of the {len(recorded)} keys recorded on {e.version} starts with a hyphen"
    )


@claim("A06")
def _cut_at_63(e: Evidence) -> tuple[Status, str]:
    outcome, long = e["length-64"], e["rewrite-rules"]
    names = _names(outcome)
    rule = providers.get_rule(*_OPENAI_DOCUMENTED)
    if rule.max_length != 64 or providers.check_name("a" * 64, *_OPENAI_DOCUMENTED):
        return "refuted", f"openai's documented rule allows {rule.max_length} characters, not 64 ({rule.source})"
    if "a" * 64 in names or "a" * 63 not in names:
        return "refuted", f"the legal 64-char key went out at lengths {[len(n) for n in names]}, not cut to 63"
    if "b" * 63 not in _names(long):
        return "refuted", f"a 70-char key went out at lengths {[len(n) for n in _names(long)]}, not 63"
    if said := _spoken(outcome):
        return "refuted", f"the cut was not silent: Mastra logged {said}"
    return (
        "confirmed",
        "a legal 64-char key went out as 63 chars (a 70-char one too), no warning logged; openai's documented "
        f"ceiling is {rule.max_length} ({rule.source})",
    )


@claim("A07")
def _rewritten_move_last(e: Evidence) -> tuple[Status, str]:
    outcome = e["rewrite-rules"]
    names = _names(outcome)
    keys = outcome.registered_keys
    # The article's rules applied by hand to the rewrite-rules keys (keysets.ARTICLE_SPREAD), minus weather-EU, in
    # order.
    rewritten_in_registration_order = ["search_web", "_9lives", "my_tool", "ns_read_file", "_1" + "a" * 61, "b" * 63]
    if keys[2:3] != ["weather-EU"]:
        raise CheckError(f"rewrite-rules no longer registers weather-EU third: {keys}")
    if names[:1] != ["weather-EU"]:
        return "refuted", f"weather-EU, registered 3rd, did not go out first: {names}"
    if names[1:] != rewritten_in_registration_order:
        return "refuted", f"the rewritten keys did not follow in registration order: {names[1:]}"
    interleaved = e["legal-keys-interleaved"]
    mixed = _names(interleaved)
    # Registered x.one, alpha, two words, beta-2, ns:read, Gamma_3, last.key, omega: the legal ones, in order, then
    # the rewritten ones, in order.
    legal, rewritten = ["alpha", "beta-2", "Gamma_3", "omega"], ["x_one", "two_words", "ns_read", "last_key"]
    if mixed[: len(legal)] != legal:
        return "refuted", f"the legal keys {legal} did not go out first in their relative order: {mixed}"
    if mixed[len(legal) :] != rewritten:
        return "refuted", f"after the legal keys, the rewritten ones did not follow in registration order: {mixed}"
    integers = _names(e["integer-keys"])  # registered b, 42, 7, x.y (F02)
    if integers != ["b", "_7", "_42", "x_y"]:
        return "refuted", f"registered b, 42, 7, x.y, sent {integers}: the integer-like keys did not come first"
    return (
        "confirmed",
        f"weather-EU registered 3rd of {len(keys)}, went out 1st; the {len(names) - 1} rewritten keys follow in "
        f"registration order; with four legal keys between four rewritten ones: {mixed}; registered b, 42, 7, "
        f"x.y, sent {integers}",
    )


@claim(
    "A08",
    refuted_as_measured="1.0.4 also logs the collision at error level; elsewhere it is refined: the caller finds the "
    "id only as its cause's code (F05)",
    refuted_when=r", but also logged at error level: not thrown rather than logged$",
)
def _collision(e: Evidence) -> tuple[Status, str]:
    found = []
    logged = False
    for scenario, name in (("collision-dot-space", "search_web"), ("collision-long", "t" * 63)):
        outcome = e[scenario]
        if outcome.requests:
            return "refuted", f"{scenario}: a request went out ({_names(outcome)}); Mastra did not refuse"
        if not outcome.error:
            return "refuted", f"{scenario}: generate() raised nothing"
        texts = {link["message"] for link in outcome.error}
        if texts != {f'{_COLLISION_START} "{name}". Please rename one of the tools to avoid this collision.'}:
            return "refuted", f"{scenario}: the error text is not the article's, in full: {sorted(texts)}"
        tracked = [link for record in outcome.log_records("exception") for link in record["error"]]
        where = [("caller's chain", link) for link in outcome.error] + [
            ("logger.trackException", link) for link in tracked
        ]
        hits = [
            place if link.get("class") == "MastraError" and link.get("id") == COLLISION_ID else f"{place} as code"
            for place, link in where
            if COLLISION_ID in (link.get("id"), link.get("code"))
            and (link.get("details") or {}).get("toolName") == name
        ]
        if not hits:
            return (
                "refuted",
                f"{scenario}: no error with id {COLLISION_ID} naming {name[:12]}... anywhere the package exposes it",
            )
        found.append(hits)
        logged |= any(_COLLISION_START in record["message"] for record in outcome.log_records("warn", "error"))
    outer = e["collision-dot-space"].error[0]
    tracked = any(place.startswith("logger") for hits in found for place in hits)
    also = "; the agent's logger.trackException is handed it too" if tracked else ""
    if logged:
        reaches = (
            "the caller finds the id in its error chain (F05)"
            if all(any(place.startswith("caller's chain") for place in hits) for hits in found)
            else "the caller's chain does not carry the id"
        )
        return "refuted", (
            f"both refused before any request with the article's full text and thrown ({reaches}), but also logged "
            "at error level: not thrown rather than logged"
        )
    if all("caller's chain" in hits for hits in found):
        return (
            "confirmed",
            f"both refused before any request with the full text; the caller's error is a MastraError {COLLISION_ID}"
            + also,
        )
    if all("caller's chain as code" in hits for hits in found):
        return "refined", (
            "both refused before any request with the article's full text, thrown, the collision not logged at warn "
            "or above; the caller catches "
            f"{outer.get('class')} {outer.get('id')}, whose cause, a plain Error rebuilt from the MastraError "
            f"(instanceof MastraError and .id no longer hold), carries {COLLISION_ID} as its code (F05)" + also
        )
    return "refuted", (
        "both refused before any request, the article's full text in the caller's error chain, but the caller's "
        f"chain never carries {COLLISION_ID}: it reaches only the agent's logger.trackException"
    )


#: Single keys refused as collisions: scenario -> the one key the article's rules rewrite, and the name it lands on.
_ONE_REWRITE = {
    "collision-onto-legal-key": ("search.web", "search_web"),
    "collision-onto-legal-key-first": ("search.web", "search_web"),
    "collision-proto": ("..proto..", "__proto__"),
}


@claim(
    "A09",
    quantified=("single-rewrite", *_ONE_REWRITE),
    refuted_as_measured="one rewritten key is refused beside a legal key it lands on, or alone on __proto__ (F17, F04)",
    refuted_when=r"; but one rewritten key was refused before any request: ",
)
def _single_rewrite_silent(e: Evidence) -> tuple[Status, str]:
    outcome = e["single-rewrite"]
    if not outcome.requests or _names(outcome) != ["search_web"]:
        return "refuted", f"search.web alone did not go out as search_web: {_error_text(outcome)}"
    if outcome.own_errors:
        return "refuted", f"generate() raised an error of Mastra's own: {_error_text(outcome)}"
    if said := _spoken(outcome):
        return "refuted", f"not silent: Mastra logged {said}"
    alone = (
        f"search.web alone went out as search_web; no error but the capture server's 400, and "
        f"{len(outcome.logs)} log records, none at warn or above but the relayed 400"
    )
    refused = []
    for scenario in _ONE_REWRITE:  # one key to rewrite, alone or beside a legal key
        keys = e[scenario].registered_keys
        if len([key for key in keys if _needs_rewrite(key)]) != 1:
            raise CheckError(f"{scenario} must register exactly one key to rewrite: {keys}")
        if not e[scenario].requests:
            name = e[scenario].collision_name
            why = f"a collision on {name}" if name else _error_text(e[scenario])
            refused.append(f"{' + '.join(keys)} ({why})")
    if refused:
        return (
            "refuted",
            f"{alone}; but one rewritten key was refused before any request: {'; '.join(refused)} (F04, F17)",
        )
    return "confirmed", f"{alone}; and each of {', '.join(_ONE_REWRITE)} went out"


@claim("A10")
def _choice_by_key(e: Evidence) -> tuple[Status, str]:
    return _forces_absent_tool(e["choice-by-key"], "search.web")


@claim("A11")
def _choice_by_id(e: Evidence) -> tuple[Status, str]:
    return _forces_absent_tool(e["choice-by-id"], "get-weather")


@claim("A12")
def _round_trip(e: Evidence) -> tuple[Status, str]:
    outcome = e["call-by-wire-name"]
    ran = [(x["key"], x["args"]) for x in outcome.executions]
    if ran != [("search.web", {"city": "Paris"})]:
        return "refuted", f"the model called search_web but execute ran {ran}"
    replies = outcome.tool_replies
    if [m["tool_call_id"] for m in replies] != ["call_probe_1"] or _json_or_none(replies[0]["content"]) != {
        "tempC": 20
    }:
        return "refuted", f"the follow-up request did not carry the result under call_probe_1: {replies}"
    return (
        "confirmed",
        f"model called search_web: execute ran with {ran[0][1]}; follow-up tool message {replies[0]['content']} "
        "under call_probe_1",
    )


@claim("A13")
def _not_mutated(e: Evidence) -> tuple[Status, str]:
    outcome = e["key-not-id"]
    if outcome.keys_after != ("search.web",):
        return "refuted", f"the caller's record was renamed: keys after the turn {outcome.keys_after}"
    if not outcome.ids_after == outcome.ids_before == ("get-weather",):
        return "refuted", f"the tool's id changed: {outcome.ids_before} -> {outcome.ids_after}"
    return "confirmed", "after the turn the caller's record still has key search.web and the tool id get-weather"


#: What in ``formatTools``' source text is the bundler's, not Mastra's: whitespace, module prefixes, enum comments.
_BUNDLER_NOISE = (
    (re.compile(r"/\*.*?\*/"), ""),
    (re.compile(r"\b\w+_cjs\.|\brequire_\w+\."), ""),
    (re.compile(r"ErrorDomain\.(\w+)|ErrorCategory\.(\w+)"), lambda m: f'"{m.group(1) or m.group(2)}"'),
    (re.compile(r"[{}\s]"), ""),
)
#: The article's constants of formatTools: the allowed set, the first-character rule, the ceiling and the cut.
_CONSTANTS = re.compile(r'/\[\^a-zA-Z0-9_\\?-\]/g|/\[a-zA-Z_\]/|length>\d+|slice\(0,\d+\)|"_"\+newKey')


def _canonical(source: str) -> str:
    for pattern, replacement in _BUNDLER_NOISE:
        source = pattern.sub(replacement, source)
    return source


def _code_differences(source: str, baseline: str) -> list[str]:
    """The statements ``source`` adds (+) or lacks (-) against ``baseline``, both canonical (bundler artefacts
    removed)."""
    here, there = _canonical(source).split(";"), _canonical(baseline).split(";")
    matcher = difflib.SequenceMatcher(None, there, here, autojunk=False)
    changes = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        changes += [f"-{statement}" for statement in there[i1:i2] if tag in ("delete", "replace")]
        changes += [f"+{statement}" for statement in here[j1:j2] if tag in ("insert", "replace")]
    return changes


@claim("A14")
def _same_across_versions(e: Evidence) -> tuple[Status, str]:
    if verdict := _without_baseline(e):
        return verdict
    base = e.by_version[ARTICLE_VERSION]
    here, there = e["package-facts"].package, base["package-facts"].package
    if here is None or there is None:
        raise CheckError("package-facts carries no source text: re-record with `probe-lib record`")
    constants = _CONSTANTS.findall(_canonical(here["formatToolsSource"]))
    base_constants = _CONSTANTS.findall(_canonical(there["formatToolsSource"]))
    stand_in = f"; {STAND_IN[0]} stands in for 1.0.0 ({STAND_IN[1]})" if e.version == STAND_IN[0] else ""
    if len(base_constants) < 5 or constants != base_constants:
        return (
            "refuted",
            f"formatTools' constants differ from {ARTICLE_VERSION}: {constants} vs {base_constants}{stand_in}",
        )
    scenarios = ("rewrite-rules", "choice-by-key", "collision-dot-space", "integer-keys")
    differ = [name for name in scenarios if e[name].result_json() != base[name].result_json()]
    if differ:
        return "refuted", f"same constants, but the wire differs from {ARTICLE_VERSION} in {differ}{stand_in}"
    changes = _code_differences(here["formatToolsSource"], there["formatToolsSource"])
    same = f"the same constants ({', '.join(constants)}) and the same wire in {', '.join(scenarios)}"
    if changes:
        return (
            "refined",
            f"{same}; the code differs from {ARTICLE_VERSION}'s (bundler artefacts aside) only in {changes}{stand_in}",
        )
    return (
        "confirmed",
        f"formatTools' code is identical to {ARTICLE_VERSION}'s (bundler artefacts aside): {same}{stand_in}",
    )


@claim("A15", quantified=("choice-legal-key",))
def _legal_key_forces(e: Evidence) -> tuple[Status, str]:
    outcome = e["choice-legal-key"]
    names, forced = _names(outcome), outcome.forced_name
    if forced != "search_web" or forced not in names:
        return (
            "refuted",
            f"forcing the legal key search_web sent tool_choice {outcome.tool_choice} with tools {names}: absent",
        )
    findings = [
        f.message
        for f in lint.lint_body(outcome.requests[0], providers.get_rule("openai", "documented"))
        if f.severity != "hint"
    ]
    if findings:
        return "refuted", f"the request breaks openai's documented rule: {findings}"
    return (
        "confirmed",
        "registered under the legal key search_web and forced by it: tool_choice names search_web, which tools offers",
    )


@claim("A16", quantified=("collision-64th-unit", "collision-64th-unit-utf16"))
def _collide_after_63(e: Evidence) -> tuple[Status, str]:
    seen = []
    for scenario in ("collision-64th-unit", "collision-64th-unit-utf16"):
        outcome = e[scenario]
        keys = outcome.registered_keys
        expected = _substituted(keys[0], units=True)[:63]
        if outcome.requests:
            return (
                "refuted",
                f"{scenario}: keys differing only after unit 63 went out as {_names(outcome)}: no collision",
            )
        if outcome.collision_name != expected:
            return "refuted", f"{scenario}: refused as {outcome.collision_name!r}, not as their shared first 63 units"
        seen.append(f"{scenario} -> {expected[:3]}...{expected[-3:]} ({len(expected)})")
    return "confirmed", (
        "two ASCII keys that differ only after their 63rd character collide under those 63, and the astral pair, "
        "alike once each UTF-16 unit is substituted, under its first 63 units: " + "; ".join(seen)
    )


@claim("A17")
def _shared_record(e: Evidence) -> tuple[Status, str]:
    outcome = e["shared-record"]
    sent = [lint.tool_names(body) for body in outcome.requests]
    if len(sent) != 2:
        raise CheckError(f"shared-record sent {len(sent)} requests, not one per agent")
    if sent != [["search_web"], ["search_web"]]:
        return "refuted", f"the two agents sharing one record sent {sent}, not search_web each"
    if outcome.keys_after != ("search.web",) or outcome.ids_after != ("get-weather",):
        return "refuted", f"the shared record was renamed: keys {outcome.keys_after}, ids {outcome.ids_after}"
    return (
        "confirmed",
        "two agents on one tools record each sent search_web; the record still has key search.web, id get-weather",
    )


@claim("A18")
def _issue_6302(e: Evidence) -> tuple[Status, str]:
    outcome = e["length-issue-6302"]
    key = outcome.registered_keys[0]
    rule = providers.get_rule(*_OPENAI_DOCUMENTED)
    if rule.max_length != _ISSUE_6302_MAXIMUM:
        return "refuted", (
            f"openai's documented rule allows {rule.max_length} characters ({rule.source}), not the "
            f"{_ISSUE_6302_MAXIMUM} the quoted error names"
        )
    refused = providers.check_name(key, *_OPENAI_DOCUMENTED)
    if len(key) != catalogue.ISSUE_6302_LENGTH or not refused:
        return "refuted", f"openai's documented rule accepts a {len(key)}-char name: the quoted error would not happen"
    names = _names(outcome)
    findings = [f.message for f in lint.lint_body(outcome.requests[0], rule) if f.severity == "refused"]
    if names != [key[:63]] or findings:
        return "refuted", f"a {len(key)}-char key went out as lengths {[len(n) for n in names]}; lint: {findings}"
    return "confirmed", (
        f"quoted (issue 6302, via the article): a provider error in OpenAI's format refused a 67-char name, "
        "maximum 64 (the issue names no provider). "
        f"By openai's documented rule as the kit's table holds it ({rule.source}), such a name is refused "
        f"({refused[0]}). Measured: Mastra {e.version} cuts a {len(key)}-char key to 63, which the rule accepts"
    )


#: Each prompt scenario -> the name its instructions give the weather tool: its id (the article's prompt), its key.
_PROMPTS = {"key-not-id": "get-weather", "instructions-name-key": "search.web"}


@claim("A19")
def _prompt_names_absent_tool(e: Evidence) -> tuple[Status, str]:
    said = []
    for scenario, named in _PROMPTS.items():
        outcome = e[scenario]
        names = _names(outcome)
        system = [m.get("content") for m in outcome.requests[0].get("messages", []) if m.get("role") == "system"]
        instructions = outcome.scenario.instructions
        if named not in instructions:
            raise CheckError(f"{scenario}'s instructions no longer name {named}: {instructions!r}")
        if system != [instructions]:
            return "refuted", f"{scenario}: the instructions {instructions!r} went out as system messages {system}"
        if named in names:
            return "refuted", f"{scenario}: the prompt names {named}, and the request offers it: tools {names}"
        if names != ["search_web"]:  # "while the tool is renamed ... (it offers search_web)"
            return "refuted", f"{scenario}: the request offers {names}, not the renamed tool search_web alone"
        said.append(f"{scenario}: system prompt {instructions!r} sent as written, tools {names}")
    return "confirmed", "; ".join(said)


#: The two docs sections the article quotes, by their headings, as the ``docs-shipped`` scenario asks for them.
_KEY_RULE_SECTION, _BUILTINS_SECTION = catalogue.by_name()["docs-shipped"].docs_sections
#: The article's quotes of the docs (verbatim in the article), compared with the shipped text without Markdown marks.
_KEY_RULE_QUOTES = (
    "The toolName in stream responses is determined by the object key you use, not the id property of the tool, "
    "agent, or workflow.",
    "If you want the toolName to match the tool's id, use the tool's id as the object key.",
)
_BUILTINS_QUOTE = (
    "Each tool has two names: the export you import, and the tool ID the model sees in tool calls, traces, and "
    "toolName fields."
)


def _prose(markdown: str) -> str:
    """Docs text as a reader reads it: without code marks and emphasis, whitespace collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"[`*]", "", markdown))


def _shipped_section(e: Evidence, heading: str) -> tuple[str, str] | None:
    """The first shipped page holding ``heading`` and its section's text; ``None`` when the docs this version ships
    have no such section."""
    package = e["docs-shipped"].package
    if package is None or "docs" not in package:
        raise CheckError("docs-shipped carries no docs: re-record with `probe-lib record`")
    pages = package["docs"].get(heading)
    if pages is None:
        raise CheckError(f"docs-shipped did not ask for the section {heading!r}")
    return (pages[0]["file"], pages[0]["text"]) if pages else None


def _no_section(e: Evidence, heading: str) -> tuple[Status, str]:
    """A version whose shipped docs were read and lack the section: the check reads that section alone, so whether
    another page says the same is not known, and the claim is not testable there rather than refuted."""
    return "not testable", (
        f"the docs @mastra/core {e.version} ships were read and have no section headed {heading!r}, the page the "
        "claim reads; other pages were not searched for its words"
    )


#: A docs line giving toolChoice a value: a string form ('required', 'auto', 'none'), or an object (a named tool).
_CHOICE_GIVEN = re.compile(r"""toolChoice\s*[:=]\s*(?:['"](\w+)['"]|(\{))""")
#: A code line passing toolChoice on from a variable (``toolChoice,`` in an object, ``toolChoice: choice``): it
#: writes no value of its own.
_CHOICE_PASSED = re.compile(r"""\btoolChoice\s*(?:[,}]|$|[:=]\s*(?!['"{])[A-Za-z_$])""")
#: The form :func:`_choice_examples` gives a code line passing toolChoice on.
_PASSED_ON = "passed on from a variable"
#: The named form as the reference's option lists write it.
_NAMED_FORM = "toolName: string"


def _choice_examples(e: Evidence) -> tuple[dict[str, list[str]], list[str]]:
    """What the shipped docs give toolChoice, from every line naming it (``docs-tool-choice``): each form given a
    value -> the pages and lines giving it (``named tool`` for an object; ``passed on`` for a code line giving it a
    variable, :data:`_CHOICE_PASSED`), and the lines writing out the named form (marked when in a code block)."""
    package = e["docs-tool-choice"].package
    if package is None or "mentions" not in package:
        raise CheckError("docs-tool-choice carries no docs mentions: re-record with `probe-lib record`")
    given: dict[str, list[str]] = {}
    described = []
    for line in package["mentions"]["toolChoice"]:
        where = f"{'/'.join(line['file'].rsplit('/', 2)[-2:])}:{line['line']}"  # folder too: pages share names
        for string, _ in _CHOICE_GIVEN.findall(line["text"]):
            given.setdefault(string or "named tool", []).append(where)
        if line["code"] and _CHOICE_PASSED.search(line["text"]):
            given.setdefault(_PASSED_ON, []).append(where)
        if _NAMED_FORM in line["text"]:
            described.append(where + (" (in code)" if line["code"] else ""))
    return given, described


def _forms(given: dict[str, list[str]]) -> str:
    return "; ".join(
        f"{form!r} in {', '.join(places[:3])}{' …' if len(places) > 3 else ''}"
        for form, places in sorted(given.items())
    )


@claim(
    "A24",
    quantified=("docs-tool-choice",),
    refuted_as_measured="the shipped docs also give toolChoice 'auto' and 'none', though no example names a tool (F19)",
    refuted_when=r"^the shipped docs give toolChoice \d+ forms: 'auto' in .*; 'none' in .*; 'required' in ",
    on_shipped_docs=True,
)
def _docs_show_only_required(e: Evidence) -> tuple[Status, str]:
    given, _ = _choice_examples(e)
    given.pop(_PASSED_ON, None)  # writes no form
    if not given:
        return "not testable", f"the docs @mastra/core {e.version} ships give toolChoice no value"
    if set(given) != {"required"}:
        return "refuted", f"the shipped docs give toolChoice {len(given)} forms: {_forms(given)}"
    return "confirmed", f"the shipped docs give toolChoice only 'required': {_forms(given)}"


@claim("F19", quantified=("docs-tool-choice",), on_shipped_docs=True)
def _docs_force_no_named_tool(e: Evidence) -> tuple[Status, str]:
    given, described = _choice_examples(e)
    passed = given.pop(_PASSED_ON, [])
    if "named tool" in given:
        return "refuted", f"a shipped example gives toolChoice an object: {', '.join(given['named tool'])}"
    if not given:
        return "not testable", f"the docs @mastra/core {e.version} ships give toolChoice no value"
    if other := set(given) - {"required", "auto", "none"}:
        return "refuted", f"the shipped docs give toolChoice other values: {_forms({k: given[k] for k in other})}"
    if in_code := [where for where in described if where.endswith("(in code)")]:
        return "refuted", f"the named form is written out in a code block: {', '.join(in_code)}"
    listed = (
        f"of the lines naming toolChoice, {len(described)} write out the named form {{ type: 'tool'; {_NAMED_FORM} }}, "
        f"each outside code ({', '.join(described[:3])}{' …' if len(described) > 3 else ''})"
        if described
        else "no line naming toolChoice writes out the named form"
    )
    passing = f"; {len(passed)} code lines pass toolChoice on from a variable ({', '.join(passed)})" if passed else ""
    return "confirmed", (
        f"no shipped example gives toolChoice a named tool; the values written: {_forms(given)}{passing}; {listed}"
    )


@claim("A20", on_shipped_docs=True)
def _docs_key_rule(e: Evidence) -> tuple[Status, str]:
    page = _shipped_section(e, _KEY_RULE_SECTION)
    if page is None:
        return _no_section(e, _KEY_RULE_SECTION)
    file, text = page
    missing = [quote for quote in _KEY_RULE_QUOTES if quote not in _prose(text)]
    if missing:
        return "refuted", f"{file}'s section {_KEY_RULE_SECTION!r} does not say {missing}"
    examples = e["docs-key-examples"]
    block = re.search(r"^```\w*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    code = block.group(1) if block else ""  # the examples: the section's first code block
    ids = sorted(set(re.findall(r"\bid: '([^']+)'", code)))
    returned = re.findall(r'Stream returns: toolName: "([^"]+)"', code)
    catalogued_ids = sorted({spec.id for spec in examples.scenario.tools})
    if ids != catalogued_ids or returned != examples.registered_keys:
        return "refuted", (
            f"{file}'s examples register a tool with id {ids} and return toolNames {returned}; the catalogue's "
            f"docs-key-examples registers id {catalogued_ids} under {examples.registered_keys}"
        )
    return "confirmed", (
        f"{file} (shipped in @mastra/core {e.version}) says both quoted sentences verbatim; its first code block: "
        f"tool id {ids[0]} under {returned}, each returning its key, as docs-key-examples registers them"
    )


@claim("A21", on_shipped_docs=True)
def _docs_builtins(e: Evidence) -> tuple[Status, str]:
    page = _shipped_section(e, _BUILTINS_SECTION)
    if page is None:
        return _no_section(e, _BUILTINS_SECTION)
    file, text = page
    if _BUILTINS_QUOTE not in _prose(text):
        return "refuted", f"{file}'s section {_BUILTINS_SECTION!r} does not say {_BUILTINS_QUOTE!r}"
    table = measured.docs_table(text)
    differ = {
        name: table.get(name) for name, tool_id in catalogue.DOCS_BUILTIN_TABLE.items() if table.get(name) != tool_id
    }
    if differ:
        return "refuted", f"{file}'s table does not map the article's exports to its ids: it has {differ}"
    package = e["builtins-by-export"].package
    if package is None:
        raise CheckError("builtins-by-export carries no package facts: re-record with `probe-lib record`")
    exported = package["builtins"]
    # A row whose second cell is no tool name (webSearchTool's <provider.defined>) names no id to compare.
    named = {name: tool_id for name, tool_id in table.items() if re.fullmatch(r"[a-zA-Z0-9_-]+", tool_id)}
    wrong = {name: (tool_id, exported.get(name)) for name, tool_id in named.items() if exported.get(name) != tool_id}
    if wrong:
        return "refuted", f"{file}'s table names ids the package's exports do not carry (table, export): {wrong}"
    unnamed = sorted(set(table) - set(named))
    return "confirmed", (
        f"{file} (shipped in @mastra/core {e.version}) says the quoted sentence verbatim; its table maps the "
        f"article's four exports to the article's ids, and each of its {len(named)} ids is the id of the export it "
        f"names in the package"
        + (f" ({', '.join(unnamed)} names no id: {[table[n] for n in unnamed]})" if unnamed else "")
    )


# -- our findings -------------------------------------------------------------------------------------------------


@claim("F01")
def _emoji(e: Evidence) -> tuple[Status, str]:
    names = _names(e["emoji-key"])
    if "weather__" not in names:
        return "refuted", f"weather😀 did not go out as weather__ (two underscores): {names}"
    return "confirmed", "weather😀 went out as weather__ (two underscores for one emoji: two UTF-16 code units)"


@claim("F02")
def _integer_keys(e: Evidence) -> tuple[Status, str]:
    outcome = e["integer-keys"]
    keys = outcome.registered_keys
    names = _names(outcome)
    # Registered b, 42, 7, x.y: moving rewritten keys in registration order alone would give b, _42, _7, x_y.
    if names != ["b", "_7", "_42", "x_y"]:
        return "refuted", f"registered {keys}, sent {names}: integer-like keys not first in numeric order"
    return "confirmed", f"registered {keys}, sent {names}: 7 and 42 are enumerated first, in numeric order"


@claim("F03")
def _empty_key(e: Evidence) -> tuple[Status, str]:
    outcome = e["empty-key"]
    if outcome.requests:
        return "refuted", f"a request went out: {_names(outcome)}"
    innermost = outcome.error[-1] if outcome.error else {}
    if outcome.error_ids[:1] != ["AGENT_GENERATE_FAILED"] or innermost.get("name") != "TypeError":
        return "refuted", f"generate() did not fail with AGENT_GENERATE_FAILED from a TypeError: {_error_text(outcome)}"
    facts = e["package-facts"].package
    if facts is None:
        raise CheckError("package-facts carries no source text: re-record with `probe-lib record`")
    # formatTools reads the first character's .match: undefined for the empty key, the TypeError's own words.
    if "reading 'match'" not in innermost.get("message", "") or "key[0].match(" not in facts["formatToolsSource"]:
        return "refuted", f"the TypeError is not formatTools' key[0].match on the empty key: {_error_text(outcome)}"
    return "confirmed", (
        f"no request; generate() failed: {_error_text(outcome)}, from formatTools' key[0].match (its source, recorded)"
    )


@claim("F04")
def _proto_collision(e: Evidence) -> tuple[Status, str]:
    outcome = e["collision-proto"]
    if len(outcome.registered_keys) != 1:
        raise CheckError("collision-proto must register exactly one tool")
    if outcome.requests or outcome.collision_name != "__proto__":
        return (
            "refuted",
            f"one tool under ..proto.. was not refused as a collision on __proto__: {_error_text(outcome)}",
        )
    return "confirmed", "one tool, key ..proto..: refused as a collision on __proto__"


@claim("F05", quantified=("collision-dot-space",))
def _wrapped_id(e: Evidence) -> tuple[Status, str]:
    outcome = e["collision-dot-space"]
    if outcome.error_ids[:1] != ["AGENT_GENERATE_FAILED"] or COLLISION_ID in outcome.error_ids:
        return "refuted", f"the caller's error chain carries ids {outcome.error_ids}"
    coded = [link for link in outcome.error[1:] if link.get("code") == COLLISION_ID]
    chain = [(link.get("class"), link.get("code")) for link in outcome.error]
    if outcome.error[0].get("class") != "MastraError":
        return "refuted", f"the error generate() rejects with is no MastraError: {chain}"
    if outcome.error[0].get("code") == COLLISION_ID:
        return "refuted", f"the error generate() rejects with carries {COLLISION_ID} as its code: {chain}"
    if not coded or any(link.get("class") == "MastraError" for link in coded):
        return "refuted", f"no plain Error in the cause chain carries {COLLISION_ID} as its code: {chain}"
    cause = outcome.error[1]  # "only as the code of its cause, a plain Error (no MastraError, no id)"
    if coded != [cause] or cause.get("class") != "Error" or cause.get("id"):
        return "refuted", f"{COLLISION_ID} is not the code of the direct cause alone, a plain Error with no id: {chain}"
    return (
        "confirmed",
        f"the error generate() rejects with has id {outcome.error_ids[0]}; {COLLISION_ID} is only the code of its "
        f"cause, a plain {coded[0].get('class')}; chain: {_error_text(outcome)}",
    )


@claim("F06", quantified=("proto-key",))
def _proto_vanishes(e: Evidence) -> tuple[Status, str]:
    outcome = e["proto-key"]
    names = _names(outcome)
    if names != ["plain"] or outcome.keys_after != ("__proto__", "plain"):
        return "refuted", f"registered __proto__ and plain, sent {names}"
    if outcome.own_errors or _spoken(outcome):
        return "refuted", f"not silent: {_error_text(outcome)}; logged {_spoken(outcome)}"
    return "confirmed", (
        "registered __proto__ and plain; only plain was sent, no error raised, nothing logged at warn or above "
        "besides relaying the capture server's refusal"
    )


#: Each call of the key search.web's tool (id get-weather) -> the name the scripted model calls it by.
_CALLS = {
    "call-by-wire-name": "search_web",
    "call-by-wire-name-stream": "search_web",
    "call-by-id": "get-weather",
    "call-by-key": "search.web",
}


@claim("F07", quantified=(*_CALLS, "docs-builtin-example"))
def _tool_name_is_the_called_name(e: Evidence) -> tuple[Status, str]:
    reported = {scenario: e[scenario].tool_names for scenario in _CALLS}
    # The claim lets the call by the key alone make generate() throw (1.0.4), reporting no toolName at all.
    threw = [s for s in ("call-by-key",) if not reported[s] and e[s].own_errors]
    wrong = {s: names for s, names in reported.items() if names != (_CALLS[s],) and s not in threw}
    if wrong:
        return "refuted", f"toolName is not the name the model called: {wrong} (called {_CALLS})"
    said = ", ".join(f"{s} -> {'threw' if s in threw else reported[s][0]}" for s in _CALLS)
    docs = e["docs-builtin-example"]
    if docs.not_applicable:
        return "confirmed", f"toolName is the called name ({said}); {e.version} exports no built-ins to try"
    if docs.tool_names and "submit_plan" not in docs.tool_names:
        return "confirmed", (
            f"toolName is the called name ({said}); the docs' example sees {docs.tool_names[0]}, never submit_plan"
        )
    return "refuted", f"docs example toolNames {docs.tool_names}"


@claim("F08")
def _ids_route_keys_do_not(e: Evidence) -> tuple[Status, str]:
    by_id, by_key = e["call-by-id"], e["call-by-key"]
    if [x["key"] for x in by_id.executions] != ["search.web"]:
        return "refuted", f"the model called the id get-weather, but the tool ran {by_id.executions}"
    if by_key.executions:
        return "refuted", f"the model called the key search.web and the tool ran: {by_key.executions}"
    messages = [m["content"] for m in by_key.tool_replies]
    if messages and "not found" in messages[0]:
        told, how = "reply", f"the model was told: {quoted(messages[0], 90)}"
    elif by_key.own_errors:
        told, how = "throw", f"generate() threw: {_error_text(by_key)}"
    else:
        return (
            "refuted",
            "the model called the key search.web: no tool ran, and neither a 'not found' reply nor an error",
        )
    if _KEY_CALL_TOLD.get(e.version, told) != told:
        return "refuted", f"on {e.version} the statement says {_KEY_CALL_TOLD[e.version]}, but {how}"
    return "confirmed", f"id get-weather ran the tool; key search.web did not, {how}"


#: How F08's statement says each pin answers a model's call by the key: a "not found" reply, or generate() throwing.
_KEY_CALL_TOLD = {"1.0.4": "throw", "1.67.0": "reply", "1.71.0": "reply"}


#: The 1.0 series, which ignores activeTools (V03 measures it on every swept version): from the first, before the
#: second. F09 and F13 state it in their own text.
_ACTIVE_TOOLS_IGNORED = ("1.0.0", "1.1.0")


def _ignores_active_tools(e: Evidence) -> bool:
    """Whether F09 and F13 say ``e.version`` ignores activeTools (a version of the 1.0 series, once
    :func:`_before_the_claims` has left out the earlier ones)."""
    return version_key(e.version) < version_key(_ACTIVE_TOOLS_IGNORED[1])


def _before_the_claims(e: Evidence) -> tuple[Status, str] | None:
    """``not testable`` for a version before the 1.0 series, of which F09 and F13 do not speak."""
    if version_key(e.version) < version_key(_ACTIVE_TOOLS_IGNORED[0]):
        return "not testable", f"the claim speaks of {_ACTIVE_TOOLS_IGNORED[0]} and later, not of {e.version}"
    return None


#: The lookup scenarios' strings: the weather tool's key, id and wire name, and the agent's.
_TOOL_KEY, _TOOL_ID, _TOOL_WIRE = "search.web", "get-weather", "search_web"
_AGENT_KEY, _AGENT_ID, _AGENT_REWRITTEN = "weather.agent", "weather-agent", "weather_agent"
_FINDERS = ("Mastra.getTool", "Mastra.getToolById", "Mastra.getAgent", "Mastra.getAgentById")


def _surfaces(outcome: Outcome) -> dict:
    if not outcome.surfaces:
        raise CheckError(f"scenario {outcome.scenario.name} measured no lookup surfaces: {_error_text(outcome)}")
    return outcome.surfaces


def _found(surfaces: dict, method: str, query: str) -> str | None:
    """Which registration ``method`` answered ``query`` with (``mastra:KEY``, ``agent:KEY``, ``agent``), or None."""
    answers = surfaces.get(method)
    if answers is None:
        raise CheckError(f"this version has no {method}")
    return answers[query].get("found")


@claim("F16")
def _lookups(e: Evidence) -> tuple[Status, str]:
    """Each clause of F16 against the three lookup scenarios: what each finder answers for the key, the id and the
    wire name, the listings, and the tools the agent's request carried."""
    mastra_level, agent_level, both = (
        _surfaces(e[name]) for name in ("lookup-mastra-tool", "lookup-agent-tool", "lookup-both")
    )
    on_mastra, on_agent = f"mastra:{_TOOL_KEY}", f"agent:{_TOOL_KEY}"
    expected = {
        "getTool on a Mastra-level tool": (
            [_found(mastra_level, "Mastra.getTool", q) for q in (_TOOL_KEY, _TOOL_ID, _TOOL_WIRE)],
            [on_mastra, None, None],
        ),
        "getToolById on a Mastra-level tool": (
            [_found(mastra_level, "Mastra.getToolById", q) for q in (_TOOL_KEY, _TOOL_ID, _TOOL_WIRE)],
            [on_mastra, on_mastra, None],
        ),
        "the Mastra instance's listing with an agent-level tool": (
            agent_level["Mastra.listTools"],
            [[_TOOL_ID, _TOOL_ID]],
        ),
        "getTool / getToolById on an agent-level tool": (
            [_found(agent_level, method, q) for method in _FINDERS[:2] for q in (_TOOL_KEY, _TOOL_ID, _TOOL_WIRE)],
            [None, on_agent, None, None, on_agent, None],
        ),
        "the agent's own listing": (
            agent_level.get("Agent.listTools") or agent_level.get("Agent.getTools"),
            [[_TOOL_KEY, _TOOL_ID]],
        ),
        "getTool / getToolById for the id when both register the tool": (
            [_found(both, method, _TOOL_ID) for method in _FINDERS[:2]],
            [on_agent, on_mastra],
        ),
        "getAgent / getAgentById": (
            [_found(both, method, q) for method in _FINDERS[2:] for q in (_AGENT_KEY, _AGENT_ID)],
            ["agent", None, "agent", "agent"],
        ),
        "the wire names": (
            sorted(
                {
                    f"{method}({q})"
                    for surfaces in (mastra_level, agent_level, both)
                    for method in _FINDERS
                    for q in (_TOOL_WIRE, _AGENT_REWRITTEN)
                    if _found(surfaces, method, q) is not None
                }
            ),
            [],
        ),
        "the agent's request (tools sent)": (
            [_names(e["lookup-mastra-tool"]), _names(e["lookup-both"])],
            [[], [_TOOL_WIRE]],
        ),
    }
    wrong = [
        f"{clause}: {measured} (expected {want})" for clause, (measured, want) in expected.items() if measured != want
    ]
    if wrong:
        return "refuted", "; ".join(wrong)
    return (
        "confirmed",
        f"getTool({_TOOL_KEY}) finds the Mastra-level tool, getTool({_TOOL_ID}) does not; getToolById finds it by "
        f"{_TOOL_ID} or {_TOOL_KEY}; an agent-level tool is listed on the Mastra instance as {_TOOL_ID}; "
        "getAgent finds "
        f"{_AGENT_KEY}, getAgentById {_AGENT_ID} or {_AGENT_KEY}; {_TOOL_WIRE} and {_AGENT_REWRITTEN} found by none; "
        "the Mastra-level tool alone sent tools []",
    )


@claim("F09", quantified=("active-tools-by-key", "active-tools-by-wire-name"))
def _active_tools(e: Evidence) -> tuple[Status, str]:
    if verdict := _before_the_claims(e):
        return verdict
    by_key, by_name = e["active-tools-by-key"], e["active-tools-by-wire-name"]
    if _ignores_active_tools(e):
        if set(_names(by_key)) == set(_names(by_name)) == {"plain", "search_web"}:
            return "confirmed", f"{e.version} (1.0 series) ignores activeTools: every tool was sent either way"
        return "refuted", f"{e.version} applied activeTools: by key {_names(by_key)}, by wire name {_names(by_name)}"
    if _names(by_key) == [] and _names(by_name) == ["search_web"]:
        if by_key.own_errors:
            return "refuted", f"activeTools ['search.web'] sent no tools, with an error: {by_key.own_errors[0]}"
        if said := _spoken(by_key):
            return "refuted", f"activeTools ['search.web'] sent no tools, but not silently: {said}"
        shape = "no tools field" if "tools" not in by_key.requests[0] else "an empty tools list"
        return (
            "confirmed",
            f"activeTools ['search.web'] sent {shape}, with no error and no warning logged; "
            "['search_web'] sent ['search_web']",
        )
    return "refuted", f"by key: {_names(by_key)}; by wire name: {_names(by_name)}"


@claim("F10")
def _other_sources(e: Evidence) -> tuple[Status, str]:
    agents, toolsets, client = _names(e["sub-agents-workflows"]), _names(e["toolsets"]), _names(e["client-tools"])
    if "agent-research_bot" not in agents or "workflow-etl_job" not in agents:
        return "refuted", f"sub-agent research.bot / workflow etl.job went out as {agents}"
    if "set_tool" not in toolsets or any("my" in name for name in toolsets):
        return "refuted", f"toolset my.set with tool set.tool went out as {toolsets}"
    if "client_tool" not in client:
        return "refuted", f"client tool client.tool went out as {client}"
    agents, client = [n for n in agents if n != "plain"], [n for n in client if n != "plain"]
    return "confirmed", f"sub-agent/workflow {agents}, toolset my.set -> {toolsets}, client tool -> {client}"


@claim("F11")
def _stream_mismatch(e: Evidence) -> tuple[Status, str]:
    streamed, generated = e["choice-by-key-stream"], e["choice-by-key"]
    status, evidence = _forces_absent_tool(streamed, "search.web", "stream(): ")
    sent = [(o.tool_choice, o.wire_names) for o in (streamed, generated)]
    if status == "confirmed" and sent[0] != sent[1]:  # "the same ... as generate()"
        return (
            "refuted",
            f"stream() sent tool_choice {sent[0][0]} with {sent[0][1]}, generate() {sent[1][0]} with {sent[1][1]}",
        )
    return status, evidence


@claim("F12")
def _version_differences(e: Evidence) -> tuple[Status, str]:
    if verdict := _without_baseline(e):
        return verdict
    base = e.by_version[ARTICLE_VERSION]
    scenarios = ("choice-none", "active-tools-by-key", "call-by-key")
    differing = [name for name in scenarios if e[name].behaviour() != base[name].behaviour()]
    if e.version == versions.PINS.versions()[0]:
        alike = [name for name in scenarios if name not in differing]
        return (
            ("confirmed", f"oldest version: differs from {ARTICLE_VERSION} in every one of {', '.join(scenarios)}")
            if not alike
            else ("refuted", f"oldest version behaves like {ARTICLE_VERSION} in {', '.join(alike)}")
        )
    return (
        ("confirmed", f"newer version: agrees with {ARTICLE_VERSION} in {', '.join(scenarios)}")
        if not differing
        else ("refuted", f"newer version differs from {ARTICLE_VERSION} in {', '.join(differing)}")
    )


@claim("F13", quantified=("remedy-choice-by-key", "remedy-active-tools"))
def _remedy(e: Evidence) -> tuple[Status, str]:
    choice, active = e["remedy-choice-by-key"], e["remedy-active-tools"]
    forced, names = choice.forced_name, _names(choice)
    if active.mapping is None or "search.web" not in active.mapping:
        raise CheckError("remedy-active-tools carries no key mapping")
    selected = active.mapping["search.web"]
    if forced is None or forced not in names:
        return "refuted", f"remedied: tools {names}, tool_choice {choice.tool_choice}"
    if forced != (choice.mapping or {}).get("search.web"):
        return "refuted", f"remedied: tool_choice {forced!r} is not the name the mapping gives search.web"
    if verdict := _before_the_claims(e):
        return verdict
    if _ignores_active_tools(e):
        if set(_names(active)) == set(active.mapping.values()):
            return "confirmed", (
                f"remedied: tool_choice {forced!r} is offered; {e.version} (1.0 series) ignores activeTools and "
                f"sent every tool {_names(active)}"
            )
        return "refuted", f"remedied activeTools sent {_names(active)} on {e.version}, not every tool"
    if _names(active) == [selected]:
        return "confirmed", f"remedied: tools {names}, tool_choice {forced!r}; activeTools sent {_names(active)}"
    return "refuted", f"remedied activeTools sent {_names(active)}"


#: The model router's other provider paths (``Scenario.wire``) and the wire format each must have spoken.
_ROUTER_PATHS = {"responses": "responses", "messages": "anthropic-messages"}


def _path_outcome(e: Evidence, scenario: str, path: str) -> Outcome:
    """``scenario`` measured on the router path ``path``; a request in another wire format is a defect of the probe."""
    outcome = e[f"{scenario}-{path}"]
    if outcome.requests and outcome.wire != _ROUTER_PATHS[path]:
        raise CheckError(f"{scenario}-{path} was sent as {outcome.wire}, not {_ROUTER_PATHS[path]}")
    return outcome


@claim("F14")
def _paths_rename_alike(e: Evidence) -> tuple[Status, str]:
    chat_names = _names(e["rewrite-rules"])
    chat_collision = e["collision-dot-space"].failure
    for path in _ROUTER_PATHS:
        names = _names(_path_outcome(e, "rewrite-rules", path))
        if names != chat_names:
            return (
                "refuted",
                f"{path}: the rewrite-rules keys went out as {names}, not as on Chat Completions {chat_names}",
            )
        collision = _path_outcome(e, "collision-dot-space", path)
        if collision.requests or collision.failure != chat_collision:
            return "refuted", (
                f"{path}: search.web + 'search web' ended as {collision.failure} "
                f"with {len(collision.requests)} request(s), not refused like on Chat Completions"
            )
    return "confirmed", (
        f"Responses and Messages sent the same {len(chat_names)} names in the same order as Chat "
        f"Completions ({chat_names[0]} ..., the longest {max(map(len, chat_names))} characters) "
        "and refused the same collision"
    )


@claim("F15")
def _paths_force_absent_tool(e: Evidence) -> tuple[Status, str]:
    said = []
    for path in _ROUTER_PATHS:
        status, evidence = _forces_absent_tool(_path_outcome(e, "choice-by-key", path), "search.web", f"{path}: ")
        if status != "confirmed":
            return status, evidence
        said.append(f"{evidence} as {json.dumps(e[f'choice-by-key-{path}'].tool_choice)}")
    return "confirmed", "; ".join(said)


def _needs_rewrite(key: str) -> bool:
    """Whether the article's rules rewrite ``key``: a character outside the allowed set, a first character that is
    no letter or underscore, or more than 63 UTF-16 units."""
    return _substituted(key, units=True) != key or not re.fullmatch(r"[a-zA-Z_]", key[:1]) or js_length(key) > 63


def _not_refused_on(outcome: Outcome, name: str, what: str) -> str | None:
    """Why ``outcome`` is not a refusal before any request with a collision on ``name`` (``what``: its keys, in
    words), or ``None`` when it is one."""
    if outcome.requests:
        return f"{what} went out as {_names(outcome)}; Mastra did not refuse"
    if outcome.collision_name != name:
        return f"{what} ended as {_error_text(outcome)}, not a collision on {name}"
    return None


@claim("F17")
def _one_rewrite_collides(e: Evidence) -> tuple[Status, str]:
    said = []
    for scenario, (rewritten, name) in _ONE_REWRITE.items():
        keys = e[scenario].registered_keys
        if [key for key in keys if _needs_rewrite(key)] != [rewritten]:
            raise CheckError(f"{scenario} no longer registers {rewritten} as its one key to rewrite: {keys}")
        if why := _not_refused_on(e[scenario], name, f"{scenario}: keys {keys}"):
            return "refuted", why
        said.append(f"{keys} refused on {name}")
    if (alone := e["collision-proto"].registered_keys) != ["..proto.."]:  # "..proto.. alone"
        raise CheckError(f"collision-proto must register ..proto.. alone: {alone}")
    orders = [
        e[scenario].registered_keys for scenario in ("collision-onto-legal-key", "collision-onto-legal-key-first")
    ]
    if orders[0] != orders[1][::-1]:  # "whichever of the two is registered first"
        raise CheckError(f"the two onto-legal-key scenarios must register their keys in opposite orders: {orders}")
    return "confirmed", "one rewritten key each, no request sent: " + "; ".join(said)


@claim("F18", quantified=("mcp-set-cut-collision",))
def _imported_set_collides(e: Evidence) -> tuple[Status, str]:
    outcome = e["mcp-set-cut-collision"]
    keys = outcome.registered_keys
    if not all(re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_-]*", key) for key in keys):
        raise CheckError("mcp-set-cut-collision holds keys with characters the rules substitute")
    if len(keys) != 38:
        raise CheckError(f"mcp-set-cut-collision registers {len(keys)} tools; F18 speaks of the server's 38")
    sharing: dict[str, list[str]] = {}
    for key in keys:
        sharing.setdefault(key[:63], []).append(key)
    shared = {prefix: group for prefix, group in sharing.items() if len(group) > 1}
    if len(shared) != 1:
        raise CheckError(f"mcp-set-cut-collision's keys share {len(shared)} first-63 prefixes, not one")
    ((prefix, pair),) = shared.items()
    if why := _not_refused_on(outcome, prefix, f"the {len(keys)} keys"):
        return "refuted", why
    return "confirmed", (
        f"the {len(keys)} keys (every character legal, {sum(len(k) > 63 for k in keys)} over 63) were refused before "
        f"any request on {prefix} ({len(prefix)} characters), the first 63 of {' and '.join(pair)}"
    )
