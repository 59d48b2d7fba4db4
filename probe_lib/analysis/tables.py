"""pandas tables of what a name rule (by default the Mastra formatTools model) does to key sets, each column
described once.

Every function takes one :class:`~probe_lib.inputs.keysets.KeySet` or an iterable of them, and the
:class:`~probe_lib.core.naming.NameRule` to apply (``rule=None``: the default framework's), and returns a fresh
DataFrame whose columns, their dtypes and meanings are the data dictionary :data:`COLUMNS` (the schema mechanism
of :mod:`probe_lib.tables.tidy`, so every table of the kit is described one way).

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

from probe_lib import frameworks
from probe_lib.core.naming import Collision, NameRule, Result, js_length
from probe_lib.core.target import DEFAULT_FRAMEWORK
from probe_lib.inputs.keysets import KeySet
from probe_lib.tables.tidy import Columns, typed_frame

#: What every table here carries as its title (the name of its column index), so no reader takes it for a measurement.
MODEL_TITLE = "Python model of formatTools()"

# Python-backed strings: keys may hold lone surrogates, which Arrow-backed strings cannot store.
_TEXT = pd.StringDtype("python", na_value=float("nan"))

#: Every column a table here may hold: name, pandas dtype, meaning (the data dictionary, as
#: :data:`probe_lib.tables.tidy.COLUMNS` is the tidy table's). Lengths are UTF-16 code units; positions are 0-based.
#: Per-set tables hold the rule flags (``rewritten`` … ``vanished``) as counts of keys.
COLUMNS: Columns = (
    ("set", _TEXT, "key set name"),
    ("family", _TEXT, "key set family (first word of the set name)"),
    ("description", _TEXT, "one-line description of the key set"),
    ("key", _TEXT, "the key as registered"),
    ("wire_name", _TEXT, "the name formatTools gives the key (in a set that raises: the name it would give)"),
    ("rewritten", "bool", "wire name differs from the key (per-set tables: how many keys)"),
    ("substituted", "bool", "an illegal UTF-16 unit was replaced by _ (per-set tables: how many keys)"),
    ("prefixed", "bool", "a _ was put in front: the first character was not a letter or _ (per-set: how many keys)"),
    ("truncated", "bool", "the name was cut to the rule's length (per-set tables: how many keys)"),
    ("lost", _TEXT, "the characters the cut removed (after substitution and prefix)"),
    ("key_length", "int64", "key length in UTF-16 code units"),
    ("name_length", "int64", "wire name length"),
    ("position_before", "int64", "index in registration order"),
    ("position_after", "Int64", "index in the tools list on the wire (<NA> when the set raises or the key vanished)"),
    ("moved_by", "Int64", "position_after - position_before (<NA> when the set raises or the key vanished)"),
    ("vanished", "bool", "kept by formatTools but absent from the wire (__proto__) (per-set tables: how many keys)"),
    ("lost_length", "int64", "number of characters the cut removed"),
    ("prefix_caused", "bool", "cut only because the _ prefix pushed a key no longer than the rule's length over it"),
    ("distinguishing", "bool", "another key of the set has the same wire name, so the cut (or rewrite) merged them"),
    ("tools", "int64", "number of keys in the set"),
    ("untouched", "int64", "keys sent as registered"),
    ("displaced", "Int64", "tools on the wire not at their registration position (<NA> when the set raises)"),
    ("discordant_pairs", "int64", "pairs of tools whose relative order the wire reverses"),
    ("kendall_distance", "float64", "discordant pairs / all pairs (0 = same order, 1 = reversed)"),
    ("error", _TEXT, "'collision' or 'crash' when formatTools raises, else <NA>"),
    ("holder", _TEXT, "key that already holds the colliding name, 'Object.prototype', or <NA> for a crash"),
    ("message", _TEXT, "the crash message as JavaScript reports it (<NA> for a collision)"),
    ("max_key_length", "int64", "longest key in the set"),
    ("max_name_length", "int64", "longest wire name in the set"),
)

#: What :func:`collisions` puts in ``holder`` when the colliding name is inherited, not another tool's.
PROTOTYPE_HOLDER = "Object.prototype"

#: Flag columns that per-set tables hold as counts of keys.
_COUNTED_FLAGS = frozenset({"rewritten", "substituted", "prefixed", "truncated", "vanished"})
_BY_NAME = {column[0]: column for column in COLUMNS}


def _columns(*names: str, per_set: bool = False) -> Columns:
    """The :data:`COLUMNS` entries of one table, in its order; ``per_set`` tables count the rule flags (int64)."""
    return tuple(
        (name, "int64", meaning) if per_set and name in _COUNTED_FLAGS else (name, dtype, meaning)
        for name, dtype, meaning in (_BY_NAME[name] for name in names)
    )


REWRITES_COLUMNS = _columns("set", "key", "wire_name", "rewritten", "substituted", "prefixed", "truncated", "lost",
    "key_length", "name_length", "position_before", "position_after", "moved_by", "vanished")  # fmt: skip
TRUNCATION_COLUMNS = _columns("set", "key", "wire_name", "key_length", "lost", "lost_length", "prefix_caused",
    "distinguishing")  # fmt: skip
ORDERING_COLUMNS = _columns("set", "tools", "rewritten", "vanished", "displaced", "discordant_pairs",
    "kendall_distance", per_set=True)  # fmt: skip
COLLISIONS_COLUMNS = _columns("set", "error", "wire_name", "key", "holder", "message")
SUMMARY_COLUMNS = _columns("set", "family", "description", "tools", "untouched", "rewritten", "substituted",
    "prefixed", "truncated", "vanished", "displaced", "max_key_length", "max_name_length", "error",
    per_set=True)  # fmt: skip

KeySets = KeySet | Iterable[KeySet]


def _as_list(keysets: KeySets) -> list[KeySet]:
    return [keysets] if isinstance(keysets, KeySet) else list(keysets)


def default_rule() -> NameRule:
    """The name rule of the framework the kit studies by default (Mastra's formatTools model)."""
    rule = frameworks.get(DEFAULT_FRAMEWORK).name_rule()
    if rule is None:
        raise TypeError(f"the {DEFAULT_FRAMEWORK} adapter has no name rule to tabulate")
    return rule


@lru_cache(maxsize=256)
def _result(keys: tuple[str, ...], rule: NameRule) -> Result:
    """The rule's result for one record, cached because every table of a notebook asks for the same sets."""
    return rule.normalise(keys)


def _frame(rows: list[dict], columns: Columns) -> pd.DataFrame:
    """A DataFrame with exactly ``columns`` in order and their dtypes, also when ``rows`` is empty."""
    frame = typed_frame(rows, columns)
    frame.columns.name = MODEL_TITLE  # shown in the table's corner: these figures are the model's, not measured
    return frame


def _rewrite_rows(set_name: str, keys: tuple[str, ...], rule: NameRule) -> list[dict]:
    """The ``rewrites`` rows of one tools record."""
    result = _result(keys, rule)
    rows = []
    for row in result.rows:
        after = row.position_after
        rows.append({
            "set": set_name,
            "key": row.key,
            "wire_name": row.name,
            "rewritten": row.rewritten,
            "substituted": row.substituted,
            "prefixed": row.prefixed,
            "truncated": row.truncated,
            "lost": row.lost,
            "key_length": js_length(row.key),
            "name_length": len(row.name),  # a rewritten name is ASCII; an untouched one is the key
            "position_before": row.position_before,
            "position_after": after,
            "moved_by": None if after is None else after - row.position_before,
            "vanished": result.error is None and after is None,
        })  # fmt: skip
    return rows


def rewrites(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per key of each set, in registration order: the name the rule (default: the Python model of
    formatTools) gives it, in the ``wire_name`` column, the rules that fired, its positions. A prediction, not a
    measurement: it is filled for a set that collides and sends nothing, and for ``__proto__``, which never goes out."""
    rule = rule or default_rule()
    rows = [row for keyset in _as_list(keysets) for row in _rewrite_rows(keyset.name, keyset.keys, rule)]
    return _frame(rows, REWRITES_COLUMNS)


def explain(key: str, rule: NameRule | None = None) -> pd.DataFrame:
    """One key on its own, rule by rule: what ``rewrites`` says of a one-tool record (for interactive use)."""
    columns = ["key", "wire_name", "substituted", "prefixed", "truncated", "lost", "key_length", "name_length"]
    return _frame(_rewrite_rows("typed", (key,), rule or default_rule()), REWRITES_COLUMNS)[columns]


def truncation(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per key that the rule's length cut shortened: what it lost, and whether that merged it with another
    key."""
    rule = rule or default_rule()
    table = rewrites(keysets, rule)
    shared = table.groupby("set")["wire_name"].transform(lambda names: names.map(Counter(names)) > 1)
    cut = table[table["truncated"]].assign(
        **{
            "lost_length": lambda frame: frame["lost"].str.len(),
            "prefix_caused": lambda frame: frame["key_length"] <= rule.MAX_NAME_LENGTH,
            "distinguishing": shared[table["truncated"]],
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
            "set": keyset.name,
            "tools": len(result.rows),
            "rewritten": sum(row.rewritten for row in result.rows),
            "vanished": len(result.rows) - len(on_wire),
            "displaced": sum(row.position_after != row.position_before for row in on_wire),
            "discordant_pairs": discordant,
            "kendall_distance": discordant / pairs if pairs else 0.0,
        })  # fmt: skip
    return _frame(rows, ORDERING_COLUMNS)


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
            rows.append(
                {"set": keyset.name, "error": error.kind, "wire_name": error.name, "key": error.key, "holder": holder}
            )
        else:
            rows.append({"set": keyset.name, "error": error.kind, "key": error.key, "message": error.message})
    return _frame(rows, COLLISIONS_COLUMNS)


def summary(keysets: KeySets, rule: NameRule | None = None) -> pd.DataFrame:
    """One row per set: how many keys each rule touched, how many tools moved, and whether the set raised."""
    rule, rows = rule or default_rule(), []
    for keyset in _as_list(keysets):
        result = _result(keyset.keys, rule)
        table = rewrites(keyset, rule)
        rows.append({
            "set": keyset.name,
            "family": keyset.family,
            "description": keyset.description,
            "tools": len(table),
            "untouched": int((~table["rewritten"]).sum()),
            "rewritten": int(table["rewritten"].sum()),
            "substituted": int(table["substituted"].sum()),
            "prefixed": int(table["prefixed"].sum()),
            "truncated": int(table["truncated"].sum()),
            "vanished": int(table["vanished"].sum()),
            "displaced": None if result.error else int((table["moved_by"].dropna() != 0).sum()),
            "max_key_length": int(table["key_length"].max()) if len(table) else 0,
            "max_name_length": int(table["name_length"].max()) if len(table) else 0,
            "error": result.error.kind if result.error else None,
        })  # fmt: skip
    return _frame(rows, SUMMARY_COLUMNS)
