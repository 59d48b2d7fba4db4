"""Named tools records (key sets) that exercise each rule of Mastra's ``formatTools()`` on purpose.

A :class:`KeySet` is one tools record: its keys in registration order. Every generator below is deterministic
(only :func:`random_sets` draws, from ``random.Random`` seeded by the caller's seed), so a set's name identifies
the same keys in every notebook, chart and capture.

Naming convention, relied on by tables and tests: ``<family>-<what>``, where the family is one of
:data:`FAMILIES`. A set is expected to make formatTools raise exactly when ``collision`` or ``crash`` is one of
the dash-separated words of its name; such sets are kept small, because the first error hides every rewrite
after it. Every other set is a record formatTools accepts.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from probe_lib.core.naming import NameRule, js_length

#: The length Mastra's formatTools cuts names to, one below the 64 OpenAI documents: the boundary the length,
#: MCP and collision families straddle on purpose.
CUT = 63

#: Name prefixes, in catalogue order.
FAMILIES = ("article", "ascii", "unicode", "length", "mcp", "integer", "prototype", "collision", "crash", "random")

_SET_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_ERROR_WORDS = frozenset({"collision", "crash"})


@dataclass(frozen=True, slots=True)
class KeySet:
    """One tools record: ``keys`` in registration order, with a name and a one-line description for tables."""

    name: str
    description: str
    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        if not _SET_NAME.fullmatch(self.name) or self.family not in FAMILIES:
            raise ValueError(f"key set name {self.name!r} must be '<family>-<words>' with a family in {FAMILIES}")
        if len(set(self.keys)) != len(self.keys):
            raise ValueError(f"key set {self.name!r} repeats a key; a tools record holds each key once")

    @property
    def family(self) -> str:
        """The generator family, the first word of the name (``article``, ``ascii``, ``unicode`` …)."""
        return self.name.partition("-")[0]

    @property
    def expects_error(self) -> bool:
        """True for sets built to make formatTools raise (a collision or the empty-key crash)."""
        return not _ERROR_WORDS.isdisjoint(self.name.split("-"))


def _padded(stem: str, length: int, fill: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    """``stem`` followed by ``fill`` repeated, cut to exactly ``length`` characters (ASCII only)."""
    return (stem + fill * (length // len(fill) + 1))[:length]


# -- the article ------------------------------------------------------------------------------------------------

#: The article's spread of awkward keys, RECONSTRUCTED: the article describes a key -> wire table but its text does
#: not hold one, so these keys cover every rule the text states (substitution, the '_' prefix before the cut at 63,
#: a legal key registered third that comes back first). The one key set used everywhere: the catalogue's
#: rewrite-rules scenario measures exactly these keys, and the model's tables and charts show them.
ARTICLE_SPREAD = ("search.web", "9lives", "weather-EU", "my tool", "ns:read/file", "1" + "a" * 62, "b" * 70)

#: 63 legal characters that two article keys share before they differ (the issue-6302 MCP shape).
_ARTICLE_SHARED_63 = _padded("mcp_github_enterprise_server_repository_management_", CUT, "tools_")


def article_sets() -> list[KeySet]:
    """The records the article measured, reconstructed from its text (its spread table is not reproduced)."""
    return [
        KeySet("article-capture", "the capture probe: one tool under 'search.web'", ("search.web",)),
        KeySet(
            "article-docs-examples",
            "the documented key examples: variable name, tool id, custom name (all legal)",
            ("weatherTool", "weather-tool", "my-custom-name"),
        ),
        KeySet("article-rewrites", "the article's spread of awkward keys (see ARTICLE_SPREAD)", ARTICLE_SPREAD),
        KeySet(
            "article-legal-64",
            "a legal 64-character key, cut to 63 although OpenAI documents 64",
            (_padded("customer_support_ticket_", 64),),
        ),
        KeySet(
            "article-long-mcp-name",
            "a 67-character MCP tool name like the one in issue 6302",
            (_ARTICLE_SHARED_63 + "_one",),
        ),
        KeySet(
            "article-collision-dot-space",
            "'search.web' and 'search web' both rewrite to 'search_web'",
            ("search.web", "search web"),
        ),
        KeySet(
            "article-collision-long",
            "two keys longer than 63 that share their first 63 characters",
            (_ARTICLE_SHARED_63 + "_one", _ARTICLE_SHARED_63 + "_two"),
        ),
        KeySet(
            "article-builtins-by-export",
            "built-in tools registered under their export names",
            ("askUserTool", "submitPlanTool", "taskWriteTool", "webFetchTool"),
        ),
        KeySet(
            "article-builtins-by-id",
            "built-in tools registered under their ids",
            ("ask_user", "submit_plan", "task_write", "web_fetch"),
        ),
    ]


# -- ASCII punctuation, whitespace and control characters -------------------------------------------------------


def _tagged(char: str, template: str) -> str:
    """``template`` with ``{c}`` replaced by ``char`` and ``{x}`` by its code in hex, so rewrites stay distinct."""
    return template.replace("{x}", f"x{ord(char):02x}").replace("{c}", char)


def ascii_sets() -> list[KeySet]:
    """One key per ASCII punctuation, whitespace and a few control characters, inside a key and at its start.

    Each key carries the character's hex code (``a.b_x2e``) because ``a.b`` and ``a:b`` would collide.
    ``_`` and ``-`` are legal and serve as controls.
    """
    controls = "\x00\x1b\x7f"
    return [
        KeySet(
            "ascii-punctuation-inside",
            "each ASCII punctuation character between letters: a<c>b_x<hex>",
            tuple(_tagged(char, "a{c}b_{x}") for char in string.punctuation),
        ),
        KeySet(
            "ascii-punctuation-leading",
            "each ASCII punctuation character as the first character: <c>ab_x<hex>",
            tuple(_tagged(char, "{c}ab_{x}") for char in string.punctuation),
        ),
        KeySet(
            "ascii-whitespace",
            "each ASCII whitespace character between letters and as the first character",
            tuple(_tagged(char, "a{c}b_{x}") for char in string.whitespace)
            + tuple(_tagged(char, "{c}ab_{x}") for char in string.whitespace),
        ),
        KeySet(
            "ascii-control", "NUL, ESC and DEL between letters", tuple(_tagged(char, "a{c}b_{x}") for char in controls)
        ),
    ]


# -- non-ASCII --------------------------------------------------------------------------------------------------


def unicode_sets() -> list[KeySet]:
    """Non-ASCII letters, combining marks, astral characters and lone surrogates.

    The regex has no ``i`` or ``u`` flag, so the Kelvin sign (U+212A, case-folds to ``k``) and dotless ``ı``
    (uppercases to ``I``) are illegal like any other non-ASCII unit. Lone surrogates are only ever followed by
    something other than a low surrogate: a high-low pair would be one astral character to JavaScript.
    """
    return [
        KeySet(
            "unicode-letters",
            "non-ASCII letters: é, ß, Cyrillic, CJK, Kelvin sign, dotless i, a Cyrillic homoglyph",
            ("café", "straße", "поиск", "検索", "\u212aelvin", "\u0131ndex", "s\u0435arch"),
        ),
        KeySet(
            "unicode-combining",
            "combining marks: decomposed é, stacked marks, a mark as the first character",
            ("cafe\u0301", "n\u0303o", "a\u0308\u0304b", "\u0301accent"),
        ),
        KeySet(
            "unicode-astral",
            "astral characters (two UTF-16 units each): emoji, ZWJ family, flag, skin tone, math bold, CJK ext B; "
            "and a heart with its emoji selector, two BMP code points",
            (
                "\U0001f600",
                "tool\U0001f600",
                "\U0001f600tool",
                "a\U0001f468\u200d\U0001f469\u200d\U0001f467b",
                "\U0001f1eb\U0001f1f7",
                "ok\U0001f44d\U0001f3fd",
                "\U0001d400bc",
                "\U00020000x",
                "love\u2764\ufe0f",
            ),
        ),
        KeySet(
            "unicode-lone-surrogates",
            "unpaired UTF-16 surrogates: high, low, low-then-high, at the start, inside and at the end",
            ("\ud800", "a\udfffb", "tool\udbff", "\udc00\ud800", "x\ud83d"),
        ),
    ]


# -- lengths around the cut -------------------------------------------------------------------------------------

SWEEP_LENGTHS = range(61, 67)


def length_sets() -> list[KeySet]:
    """Keys of 61 to 66 UTF-16 units, each distinct in its first characters so cuts never collide.

    With a leading digit the ``_`` prefix pushes a 63-unit key to 64; with an astral tail the cut can split
    an emoji's two underscores.
    """
    return [
        KeySet(
            "length-sweep",
            "legal keys of 61 to 66 characters",
            tuple(_padded(f"len{length}_", length) for length in SWEEP_LENGTHS),
        ),
        KeySet(
            "length-sweep-leading-digit",
            "keys of 61 to 66 characters starting with a digit (prefix added before the cut)",
            tuple(_padded(f"{length}_len_", length) for length in SWEEP_LENGTHS),
        ),
        KeySet(
            "length-sweep-astral-tail",
            "keys of 61 to 66 UTF-16 units ending in an emoji (two units) that the cut may split",
            tuple(_padded(f"len{length}_", length - 2) + "\U0001f600" for length in SWEEP_LENGTHS),
        ),
    ]


# -- MCP-style names ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PrefixStyle:
    """How a client joins a server label and a tool name into the name it registers."""

    name: str
    separator: str | None
    #: Who joins names this way. The ``mastra`` style is what the real ``@mastra/mcp`` 1.18.0 does (its
    #: ``dist/index.js`` builds ``${serverName}_${toolName}``; notebook 10 measures it); the others are read from
    #: the named projects' public source and are not measured by the kit.
    used_by: str

    def apply(self, server: str, tool: str) -> str:
        return tool if self.separator is None else f"{server}{self.separator}{tool}"


PREFIX_STYLES: tuple[PrefixStyle, ...] = (
    PrefixStyle("none", None, "a tool registered under its own name"),
    PrefixStyle("mastra", "_", "@mastra/mcp ${serverName}_${toolName}; VoltAgent ${server}_${tool}"),
    PrefixStyle("double-underscore", "__", "MCP adapters (@langchain/mcp-adapters, langchain-mcp-adapters)"),
    PrefixStyle("dot", ".", "server.tool namespacing; MCP names allow '.'"),
    PrefixStyle("colon", ":", "server_id:tool_name (e.g. zeph before its fix)"),
    PrefixStyle("slash", "/", "{server}/{tool} (e.g. netclaw before its fix)"),
)


def prefix_style(name: str) -> PrefixStyle:
    """The style of :data:`PREFIX_STYLES` called ``name`` (``KeyError`` names the known ones)."""
    for candidate in PREFIX_STYLES:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no prefix style {name!r}; choose one of {[known.name for known in PREFIX_STYLES]}")


_MCP_TOOLS = (("server", "tool"), ("github", "create_issue"), ("github", "list_issues"), ("filesystem", "read_file"))


def mcp_sets() -> list[KeySet]:
    """Tool names as MCP clients and registries build them: ``server<sep>tool``, one set per prefix style."""
    per_separator = [
        KeySet(
            f"mcp-{style.name}",
            f"server{style.separator}tool names ({'legal' if style.separator in ('_', '__') else 'rewritten'})",
            tuple(style.apply(server, tool) for server, tool in _MCP_TOOLS),
        )
        for style in PREFIX_STYLES
        if style.separator is not None
    ]
    return per_separator + [
        KeySet(
            "mcp-mixed-separators",
            "one record mixing separators whose rewrites stay distinct",
            (
                "github.create_issue",
                "slack:post_message",
                "filesystem/read_file",
                "linear_create_issue",
                "notion__search",
            ),
        ),
        KeySet(
            "mcp-long-prefix",
            "mcp__server__tool names longer than 63, distinct before the cut",
            (
                "mcp__company-internal-knowledge-base__search_documents_by_semantic_similarity",
                "mcp__company-internal-knowledge-base__fetch_document_with_all_attachments",
                "mcp__company-internal-ticketing-system__create_ticket_with_priority_and_owner",
            ),
        ),
    ]


# -- integer-like keys ------------------------------------------------------------------------------------------


def integer_sets() -> list[KeySet]:
    """Keys that look like numbers; only canonical integers up to 2**32 - 2 are enumerated first by JavaScript."""
    return [
        KeySet(
            "integer-like",
            "integer-like keys out of numeric order; only the indices 0, 42, 4294967294 are enumerated first",
            ("4294967295", "42", "007", "0", "-1", "4294967294", "1.5"),
        ),
        KeySet(
            "integer-like-interleaved",
            "integer-like keys registered out of numeric order between legal keys",
            ("alpha", "4294967295", "42", "beta", "007", "0", "1.5", "gamma", "4294967294", "-1"),
        ),
    ]


# -- Object.prototype names ------------------------------------------------------------------------------------


def prototype_sets() -> list[KeySet]:
    """Legal keys named like ``Object.prototype`` properties: formatTools keeps them all, yet ``__proto__``
    never reaches the wire (likely, not measured: the record is copied by assignment, which sets a prototype instead
    of a key).
    """
    return [
        KeySet(
            "prototype-names",
            "legal keys that Object.prototype also carries; __proto__ vanishes from the wire",
            ("search", "__proto__", "constructor", "toString", "hasOwnProperty", "__defineGetter__", "valueOf"),
        )
    ]


# -- records that raise -----------------------------------------------------------------------------------------


def collision_sets() -> list[KeySet]:
    """Small records that each make formatTools throw ``AGENT_TOOL_NAME_COLLISION``."""
    shared = _padded("9_", CUT - 1)
    long_shared = _padded("inventory_", CUT, "warehouse_")
    return [
        KeySet(
            "collision-long-shared-prefix",
            "two keys of 70 characters that differ only after the 63rd",
            (long_shared + "_alpha1", long_shared + "_beta_2"),
        ),
        KeySet(
            "collision-prefix-cut",
            "two 63-character keys starting with a digit that differ only in the last character",
            (shared + "a", shared + "b"),
        ),
        KeySet(
            "collision-key-and-own-rewrite",
            "'a.b' registered before the legal key 'a_b' it rewrites onto",
            ("a.b", "a_b"),
        ),
        KeySet(
            "collision-mcp-separators",
            "'server.tool' and 'server:tool' both rewrite to 'server_tool'",
            ("server.tool", "server:tool"),
        ),
        KeySet(
            "collision-emoji-units", "an emoji and two dots both become two underscores", ("tool\U0001f600", "tool..")
        ),
        KeySet(
            "collision-array-index", "'42' is enumerated first and rewrites onto the legal key '_42'", ("_42", "42")
        ),
        KeySet("collision-proto", "a lone key rewriting onto Object.prototype's __proto__", ("..proto..",)),
        KeySet(
            "collision-define-getter",
            "a lone key rewriting onto Object.prototype's __defineGetter__",
            ("..defineGetter..",),
        ),
        KeySet(
            "collision-lookup-setter",
            "spaces rewriting onto Object.prototype's __lookupSetter__",
            ("  lookupSetter  ",),
        ),
    ]


def crash_sets() -> list[KeySet]:
    """The empty key: formatTools reads ``key[0].match`` and throws a ``TypeError``."""
    return [KeySet("crash-empty-key", "a legal key and the empty key", ("weather", ""))]


# -- seeded random keys -----------------------------------------------------------------------------------------

#: Alphabets random keys draw from; lone surrogates are low ones only, so no draw ever forms a pair.
ALPHABETS: dict[str, str] = {
    "legal": string.ascii_letters + string.digits + "_-",
    "digits": string.digits,
    "punctuation": string.punctuation + " \t",
    "latin": "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßœ",
    "cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    "cjk": "検索天気道具名前東京漢字",
    "combining": "\u0300\u0301\u0302\u0303\u0308",
    "emoji": "\U0001f600\U0001f680\U0001f4a9\U0001f9ea\U0001f30d",
    "surrogate": "\udc00\udc80\udfff",
}

#: (name, description, alphabets with weights, UTF-16 length range) of each random set.
_RANDOM_RECIPES: tuple[tuple[str, str, dict[str, int], tuple[int, int]], ...] = (
    (
        "random-mixed",
        "random keys mixing every alphabet, 1 to 80 UTF-16 units",
        {name: 1 for name in ALPHABETS} | {"legal": 12},
        (1, 80),
    ),
    (
        "random-ascii",
        "random ASCII keys (letters, digits, punctuation, space, tab), 1 to 70 characters",
        {"legal": 8, "digits": 2, "punctuation": 2},
        (1, 70),
    ),
    (
        "random-long",
        "random keys of 58 to 80 UTF-16 units, mostly legal",
        {"legal": 20, "punctuation": 1, "latin": 1, "emoji": 1},
        (58, 80),
    ),
)


def _random_key(rng: random.Random, weights: dict[str, int], lengths: tuple[int, int]) -> str:
    """One key of about ``randint(*lengths)`` UTF-16 units (an astral last character may add one)."""
    target = rng.randint(*lengths)
    names = list(weights)
    chars: list[str] = []
    units = 0
    while units < target:
        alphabet = ALPHABETS[rng.choices(names, weights=[weights[name] for name in names])[0]]
        char = rng.choice(alphabet)
        chars.append(char)
        units += js_length(char)
    return "".join(chars)


def random_sets(rule: NameRule, seed: int = 0) -> list[KeySet]:
    """Seeded random records of 12 keys each, drawn from :data:`ALPHABETS`.

    Each recipe gets its own ``random.Random``, seeded from ``seed`` and its name, so adding a recipe never
    changes another's keys. A draw is rejected when it, or its rewrite, equals a key or name already in the
    record (or a name ``rule`` holds from the start): these sets measure rewrites, and one collision would hide
    them.
    """
    sets = []
    for name, description, weights, lengths in _RANDOM_RECIPES:
        rng = random.Random(f"{seed}:{name}")
        keys: list[str] = []
        taken = set(rule.INHERITED_NAMES)
        while len(keys) < 12:
            key = _random_key(rng, weights, lengths)
            name_on_wire = rule.rewrite(key)
            if key in taken or name_on_wire in taken:
                continue
            keys.append(key)
            taken.update((key, name_on_wire))
        sets.append(KeySet(name, f"{description} (seed {seed})", tuple(keys)))
    return sets


# -- registry ---------------------------------------------------------------------------------------------------

#: The fixed families, in catalogue order (random sets come last).
_FIXED: tuple[Callable[[], list[KeySet]], ...] = (
    article_sets,
    ascii_sets,
    unicode_sets,
    length_sets,
    mcp_sets,
    integer_sets,
    prototype_sets,
    collision_sets,
    crash_sets,
)


def catalogue(rule: NameRule, seed: int = 0) -> list[KeySet]:
    """Every key set, fixed families first and then the random sets drawn with ``seed`` (kept free of ``rule``'s
    collisions)."""
    return [keyset for family in _FIXED for keyset in family()] + random_sets(rule, seed)


def by_name(name: str, rule: NameRule) -> KeySet:
    """The catalogue's set called ``name`` (random sets drawn with seed 0); ``KeyError`` lists the names."""
    sets = {keyset.name: keyset for keyset in catalogue(rule)}
    try:
        return sets[name]
    except KeyError:
        raise KeyError(f"no key set {name!r}; known: {', '.join(sets)}") from None


# -- adversarial records (the differential tests and benchmarks) --------------------------------------------
# Unlike the sets above, these are meant to collide and crash: a third carry near-duplicates of their own keys.

#: What adversarial keys are built from besides ``ALPHABETS["legal"]``: every ASCII punctuation and whitespace
#: character, and the JavaScript traps (astral characters are two UTF-16 units, lone surrogates one, ZWJ, ...).
TRAP_PUNCTUATION = string.punctuation.replace("_", "").replace("-", "") + " \t\n\r\x0b\x0c\x00\x7f"
TRAP_UNICODE = (
    ["é", "ß", "Ж", "中", "\u212a", "ı", "e\u0301"]  # letters, case-folding traps, a combining mark
    + ["😀", "👨\u200d👩\u200d👧", "🇫🇷", "𝒳"]  # astral: two UTF-16 units each, joined or paired
    + ["\ud800", "\udfff", "\ufeff", "\u2028", "\u00a0", "٣"]  # lone surrogates, invisible and non-ASCII digits
)
#: Whole keys that hit a special path: crash, prototype names, array indices, the 63-unit cut.
TRAP_KEYS = (
    ["", "__proto__", "..proto..", ".._proto__", "..defineGetter..", "__lookupSetter__", "..lookupSetter.."]
    + ["constructor", "toString", "hasOwnProperty", "valueOf"]
    + ["0", "42", "007", "4294967294", "4294967295", "-1", "1.5", "1e3", " 42"]
    + ["a" * 63, "a" * 64, "1" + "a" * 62, "1" + "a" * 63, "😀" * 32, "é" * 64]
)


def adversarial_key(rng: random.Random) -> str:
    """One key: mostly legal characters, with traps mixed in and lengths clustered around the 63 cut."""
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(TRAP_KEYS)
    length = rng.choice([rng.randint(1, 12), rng.randint(58, 68), rng.randint(13, 40)])
    pieces = []
    for _ in range(length):
        kind = rng.random()
        if kind < 0.75:
            pieces.append(rng.choice(ALPHABETS["legal"]))
        elif kind < 0.9:
            pieces.append(rng.choice(TRAP_PUNCTUATION))
        else:
            pieces.append(rng.choice(TRAP_UNICODE))
    return "".join(pieces)


def near_duplicate(rng: random.Random, key: str) -> str:
    """A key likely to rewrite onto ``key``'s name: one character swapped for another illegal one, or a longer tail."""
    if not key:
        return "."
    choice = rng.random()
    if choice < 0.4:
        position = rng.randrange(len(key))
        return key[:position] + rng.choice(TRAP_PUNCTUATION + "_") + key[position + 1 :]
    if choice < 0.7:
        return (key + "x" * 64)[:64] + rng.choice(ALPHABETS["legal"])
    return key.replace("_", rng.choice(". :/"))


def adversarial_records(seed: int, count: int) -> list[list[str]]:
    """``count`` records of distinct keys (1 to 20 drawn); about a third carry near-duplicates meant to collide."""
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        size = rng.randint(1, 20)
        keys = [adversarial_key(rng) for _ in range(size)]
        if rng.random() < 0.33:
            keys += [near_duplicate(rng, rng.choice(keys)) for _ in range(rng.randint(1, 3))]
        records.append(list(dict.fromkeys(keys)))
    return records
