"""pandas tables of what a name rule (by default the Mastra formatTools model) does to key sets, with column
names defined once.

Every function takes one :class:`~probe_lib.inputs.keysets.KeySet` or an iterable of them, and the
:class:`~probe_lib.core.naming.NameRule` to apply (``rule=None``: the default framework's), and returns a fresh
DataFrame whose columns are named by the constants below (documented in :data:`SCHEMA`), so notebooks and
:mod:`probe_lib.present.charts` never spell a column name themselves.

Rule flags and names describe each key's own rewrite even in a set that raises, because formatTools' rewrite of
one key does not depend on the others; wire positions exist only for sets that do not raise, and only for keys
that reach the wire (a ``__proto__`` key is kept by formatTools but vanishes later: ``vanished``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations

import pandas as pd

from probe_lib import adapters
from probe_lib.core.naming import Collision, NameRule, Result, js_length
from probe_lib.core.target import DEFAULT_FRAMEWORK
from probe_lib.inputs.keysets import KeySet

#: What every table here carries as its title (the name of its column index), so no reader takes it for a measurement.
MODEL_TITLE = "Python model of formatTools()"

# -- column names -----------------------------------------------------------------------------------------------

SET = "set"
FAMILY = "family"
DESCRIPTION = "description"
KEY = "key"
WIRE_NAME = "wire_name"
REWRITTEN = "rewritten"
SUBSTITUTED = "substituted"
PREFIXED = "prefixed"
TRUNCATED = "truncated"
LOST = "lost"
KEY_LENGTH = "key_length"
NAME_LENGTH = "name_length"
POSITION_BEFORE = "position_before"
POSITION_AFTER = "position_after"
MOVED_BY = "moved_by"
VANISHED = "vanished"
LOST_LENGTH = "lost_length"
PREFIX_CAUSED = "prefix_caused"
DISTINGUISHING = "distinguishing"
TOOLS = "tools"
UNTOUCHED = "untouched"
DISPLACED = "displaced"
DISCORDANT_PAIRS = "discordant_pairs"
KENDALL_DISTANCE = "kendall_distance"
ERROR = "error"
HOLDER = "holder"
MESSAGE = "message"
MAX_KEY_LENGTH = "max_key_length"
MAX_NAME_LENGTH_COLUMN = "max_name_length"

#: What each column holds. Lengths are UTF-16 code units; positions are 0-based.
SCHEMA: dict[str, str] = {
    SET: "key set name",
    FAMILY: "key set family (first word of the set name)",
    DESCRIPTION: "one-line description of the key set",
    KEY: "the key as registered",
    WIRE_NAME: "the name formatTools gives the key (in a set that raises: the name it would give)",
    REWRITTEN: "wire name differs from the key (per-set tables: how many keys)",
    SUBSTITUTED: "an illegal UTF-16 unit was replaced by _ (per-set tables: how many keys)",
    PREFIXED: "a _ was put in front: the first character was not a letter or _ (per-set: how many keys)",
    TRUNCATED: "the name was cut to the rule's length (per-set tables: how many keys)",
    LOST: "the characters the cut removed (after substitution and prefix)",
    KEY_LENGTH: "key length in UTF-16 code units",
    NAME_LENGTH: "wire name length",
    POSITION_BEFORE: "index in registration order",
    POSITION_AFTER: "index in the tools list on the wire (<NA> when the set raises or the key vanished)",
    MOVED_BY: "position_after - position_before (<NA> when the set raises or the key vanished)",
    VANISHED: "kept by formatTools but absent from the wire (__proto__) (per-set tables: how many keys)",
    LOST_LENGTH: "number of characters the cut removed",
    PREFIX_CAUSED: "cut only because the _ prefix pushed a key no longer than the rule's length over it",
    DISTINGUISHING: "another key of the set has the same wire name, so the cut (or rewrite) merged them",
    TOOLS: "number of keys in the set",
    UNTOUCHED: "keys sent as registered",
    DISPLACED: "tools on the wire whose position differs from their registration position (<NA> if it raises)",
    DISCORDANT_PAIRS: "pairs of tools whose relative order the wire reverses",
    KENDALL_DISTANCE: "discordant pairs / all pairs (0 = same order, 1 = reversed)",
    ERROR: "'collision' or 'crash' when formatTools raises, else <NA>",
    HOLDER: "key that already holds the colliding name, 'Object.prototype', or <NA> for a crash",
    MESSAGE: "the crash message as JavaScript reports it (<NA> for a collision)",
    MAX_KEY_LENGTH: "longest key in the set",
    MAX_NAME_LENGTH_COLUMN: "longest wire name in the set",
}

#: What :func:`collisions` puts in ``holder`` when the colliding name is inherited, not another tool's.
PROTOTYPE_HOLDER = "Object.prototype"

REWRITES_COLUMNS = (
    SET, KEY, WIRE_NAME, REWRITTEN, SUBSTITUTED, PREFIXED, TRUNCATED, LOST,
    KEY_LENGTH, NAME_LENGTH, POSITION_BEFORE, POSITION_AFTER, MOVED_BY, VANISHED,
)  # fmt: skip
TRUNCATION_COLUMNS = (SET, KEY, WIRE_NAME, KEY_LENGTH, LOST, LOST_LENGTH, PREFIX_CAUSED, DISTINGUISHING)
ORDERING_COLUMNS = (SET, TOOLS, REWRITTEN, VANISHED, DISPLACED, DISCORDANT_PAIRS, KENDALL_DISTANCE)
COLLISIONS_COLUMNS = (SET, ERROR, WIRE_NAME, KEY, HOLDER, MESSAGE)
SUMMARY_COLUMNS = (
    SET, FAMILY, DESCRIPTION, TOOLS, UNTOUCHED, REWRITTEN, SUBSTITUTED, PREFIXED, TRUNCATED, VANISHED,
    DISPLACED, MAX_KEY_LENGTH, MAX_NAME_LENGTH_COLUMN, ERROR,
)  # fmt: skip

# Python-backed strings: keys may hold lone surrogates, which Arrow-backed strings cannot store.
_TEXT = pd.StringDtype("python", na_value=float("nan"))
_DTYPES: dict[str, object] = {
    **dict.fromkeys((SET, FAMILY, DESCRIPTION, KEY, WIRE_NAME, LOST, ERROR, HOLDER, MESSAGE), _TEXT),
    **dict.fromkeys((REWRITTEN, SUBSTITUTED, PREFIXED, TRUNCATED, VANISHED, PREFIX_CAUSED, DISTINGUISHING), "bool"),
    **dict.fromkeys(
        (
            KEY_LENGTH,
            NAME_LENGTH,
            POSITION_BEFORE,
            LOST_LENGTH,
            TOOLS,
            UNTOUCHED,
            DISCORDANT_PAIRS,
            MAX_KEY_LENGTH,
            MAX_NAME_LENGTH_COLUMN,
        ),
        "int64",
    ),  # fmt: skip
    **dict.fromkeys((POSITION_AFTER, MOVED_BY, DISPLACED), "Int64"),
    KENDALL_DISTANCE: "float64",
}

KeySets = KeySet | Iterable[KeySet]


def _as_list(keysets: KeySets) -> list[KeySet]:
    return [keysets] if isinstance(keysets, KeySet) else list(keysets)


def default_rule() -> NameRule:
    """The name rule of the framework the kit studies by default (Mastra's formatTools model)."""
    rule = adapters.get(DEFAULT_FRAMEWORK).name_rule()
    if rule is None:
        raise TypeError(f"the {DEFAULT_FRAMEWORK} adapter has no name rule to tabulate")
    return rule


@lru_cache(maxsize=256)
def _result(keys: tuple[str, ...], rule: NameRule) -> Result:
    """The rule's result for one record, cached because every table of a notebook asks for the same sets."""
    return rule.normalise(keys)


#: Flag columns that per-set tables hold as counts of keys.
_COUNTED_FLAGS = frozenset({REWRITTEN, SUBSTITUTED, PREFIXED, TRUNCATED, VANISHED})


def _frame(rows: list[dict], columns: tuple[str, ...], per_set: bool = False) -> pd.DataFrame:
    """A DataFrame with exactly ``columns`` in order and their schema dtypes, also when ``rows`` is empty.

    ``per_set`` tables hold the rule-flag columns as counts (int64) rather than per-key booleans.
    """
    frame = pd.DataFrame(rows, columns=list(columns), dtype=object)  # not inferred: Arrow strings refuse surrogates
    dtypes = {column: "int64" if per_set and column in _COUNTED_FLAGS else _DTYPES[column] for column in columns}
    frame = frame.astype(dtypes)
    frame.columns.name = MODEL_TITLE  # shown in the table's corner: these figures are the model's, not measured
    return frame


def _rewrite_rows(set_name: str, keys: tuple[str, ...], rule: NameRule) -> list[dict]:
    """The ``rewrites`` rows of one tools record."""
    result = _result(keys, rule)
    rows = []
    for row in result.rows:
        after = row.position_after
        rows.append({
            SET: set_name,
            KEY: row.key,
            WIRE_NAME: row.name,
            REWRITTEN: row.rewritten,
            SUBSTITUTED: row.substituted,
            PREFIXED: row.prefixed,
            TRUNCATED: row.truncated,
            LOST: row.lost,
            KEY_LENGTH: js_length(row.key),
            NAME_LENGTH: len(row.name),  # a rewritten name is ASCII; an untouched one is the key
            POSITION_BEFORE: row.position_before,
            POSITION_AFTER: after,
            MOVED_BY: None if after is None else after - row.position_before,
            VANISHED: result.error is None and after is None,
        })  # fmt: skip
    return rows


def rewrites(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per key of each set, in registration order: its wire name, the rules that fired, its positions."""
    rule = rule or default_rule()
    rows = [row for keyset in _as_list(keysets) for row in _rewrite_rows(keyset.name, keyset.keys, rule)]
    return _frame(rows, REWRITES_COLUMNS)


def explain(key: str, rule: NameRule | None = None) -> pd.DataFrame:
    """One key on its own, rule by rule: what ``rewrites`` says of a one-tool record (for interactive use)."""
    columns = [KEY, WIRE_NAME, SUBSTITUTED, PREFIXED, TRUNCATED, LOST, KEY_LENGTH, NAME_LENGTH]
    return _frame(_rewrite_rows("typed", (key,), rule or default_rule()), REWRITES_COLUMNS)[columns]


def truncation(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per key that the rule's length cut shortened: what it lost, and whether that merged it with another
    key."""
    rule = rule or default_rule()
    table = rewrites(keysets, rule)
    shared = table.groupby(SET)[WIRE_NAME].transform(lambda names: names.map(Counter(names)) > 1)
    cut = table[table[TRUNCATED]].assign(
        **{
            LOST_LENGTH: lambda frame: frame[LOST].str.len(),
            PREFIX_CAUSED: lambda frame: frame[KEY_LENGTH] <= rule.MAX_NAME_LENGTH,
            DISTINGUISHING: shared[table[TRUNCATED]],
        }
    )
    return _frame(cut.to_dict("records"), TRUNCATION_COLUMNS)


def _discordant_pairs(wire_order: list[int]) -> int:
    """Pairs ``i < j`` (registration positions) that the wire lists as ``j`` before ``i``."""
    return sum(1 for first, second in combinations(wire_order, 2) if first > second)


def ordering_shift(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per set that formatTools accepts: how far the wire order strays from registration order.

    Order is compared over the tools that reach the wire; vanished keys are counted apart. Sets that raise
    have no wire order and are left out (see :func:`collisions`).
    """
    rule, rows = rule or default_rule(), []
    for keyset in _as_list(keysets):
        result = _result(keyset.keys, rule)
        if result.error is not None:
            continue
        on_wire = sorted(
            (row for row in result.rows if row.position_after is not None), key=lambda row: row.position_after
        )
        wire_order = [row.position_before for row in on_wire]
        pairs = len(wire_order) * (len(wire_order) - 1) // 2
        discordant = _discordant_pairs(wire_order)
        rows.append({
            SET: keyset.name,
            TOOLS: len(result.rows),
            REWRITTEN: sum(row.rewritten for row in result.rows),
            VANISHED: len(result.rows) - len(on_wire),
            DISPLACED: sum(row.position_after != row.position_before for row in on_wire),
            DISCORDANT_PAIRS: discordant,
            KENDALL_DISTANCE: discordant / pairs if pairs else 0.0,
        })  # fmt: skip
    return _frame(rows, ORDERING_COLUMNS, per_set=True)


def collisions(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per set that makes formatTools raise: the colliding name, the key, and who holds the name.

    The empty-key crash is listed too (``error == 'crash'``), since it also leaves no request to send.
    """
    rule, rows = rule or default_rule(), []
    for keyset in _as_list(keysets):
        error = _result(keyset.keys, rule).error
        if error is None:
            continue
        if isinstance(error, Collision):
            holder = PROTOTYPE_HOLDER if error.holder is None else error.holder
            rows.append({SET: keyset.name, ERROR: error.kind, WIRE_NAME: error.name, KEY: error.key, HOLDER: holder})
        else:
            rows.append({SET: keyset.name, ERROR: error.kind, KEY: error.key, MESSAGE: error.message})
    return _frame(rows, COLLISIONS_COLUMNS)


def summary(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per set: how many keys each rule touched, how many tools moved, and whether the set raised."""
    rule, rows = rule or default_rule(), []
    for keyset in _as_list(keysets):
        result = _result(keyset.keys, rule)
        table = rewrites(keyset, rule)
        rows.append({
            SET: keyset.name,
            FAMILY: keyset.family,
            DESCRIPTION: keyset.description,
            TOOLS: len(table),
            UNTOUCHED: int((~table[REWRITTEN]).sum()),
            REWRITTEN: int(table[REWRITTEN].sum()),
            SUBSTITUTED: int(table[SUBSTITUTED].sum()),
            PREFIXED: int(table[PREFIXED].sum()),
            TRUNCATED: int(table[TRUNCATED].sum()),
            VANISHED: int(table[VANISHED].sum()),
            DISPLACED: None if result.error else int((table[MOVED_BY].dropna() != 0).sum()),
            MAX_KEY_LENGTH: int(table[KEY_LENGTH].max()) if len(table) else 0,
            MAX_NAME_LENGTH_COLUMN: int(table[NAME_LENGTH].max()) if len(table) else 0,
            ERROR: result.error.kind if result.error else None,
        })  # fmt: skip
    return _frame(rows, SUMMARY_COLUMNS, per_set=True)
