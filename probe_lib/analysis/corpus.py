"""Real tool names (:mod:`probe_lib.inputs.corpus`) run through client prefixing, provider rules and formatTools.

The corpus holds 3,336 tool names from public MCP servers and 9,998 Composio action slugs. Clients that load MCP
tools prefix each name with its server, in one of a few styles (:data:`PREFIX_STYLES`); the measures below count, per
style, how many prefixed names each provider rule would refuse as they are, how many Mastra's ``formatTools()``
rewrites, how many lose their distinguishing end to the 63-unit cut, and how many server tool sets make formatTools
throw ``AGENT_TOOL_NAME_COLLISION``.

Every measure returns a tidy DataFrame (one row per style, subset and, where it applies, provider rule) with the
stable columns listed in its docstring, so a notebook can chart it directly. :func:`names` and :func:`per_record`
give the same facts per name and per tool set; :func:`model_against_wire` and :func:`against_format_tools` compare
the model with the real package; :func:`readme_quick_stats` reads the README's own counts, an oracle independent of
these measures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from probe_lib.core.errors import InputError
from probe_lib.core.naming import js_length
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra.normaliser import MAX_NAME_LENGTH, Collision, as_sent, normalise
from probe_lib.inputs.corpus import README_PATH, SUBSETS, load_corpus, record_of, subset_of  # noqa: F401  (notebooks load through here)
from probe_lib.inputs.keysets import PREFIX_STYLES, PrefixStyle
from probe_lib.providers import Rule, rules

if TYPE_CHECKING:
    from probe_lib.frameworks.mastra import Outcome


def overview(frame: pd.DataFrame) -> pd.DataFrame:
    """How many names, tool sets (:func:`record_of`), server labels and source repositories each subset holds.

    Rows ``mcp``, ``composio`` and ``all`` (the sum of the two rows above it); columns ``names, tool sets,
    server labels, repositories``.
    """
    subset = subset_of(frame)
    table = pd.DataFrame(
        {
            "names": subset.value_counts(),
            "tool sets": record_of(frame).groupby(subset).nunique(),
            "server labels": frame["server"].groupby(subset).nunique(),
            "repositories": frame["source_repo"].groupby(subset).nunique(),
        }
    ).loc[["mcp", "composio"]]
    table.loc["all"] = table.sum()
    return table


def style_examples(server: str, tool: str) -> pd.DataFrame:
    """The name one tool is registered under in each of :data:`PREFIX_STYLES`, with who joins that way and its length.

    Columns: ``style, join`` (the separator, ``(none)`` for the bare name), ``used by, registered name, length``.
    """
    registered = [style.apply(server, tool) for style in PREFIX_STYLES]
    return pd.DataFrame(
        {
            "style": [style.name for style in PREFIX_STYLES],
            "join": ["(none)" if style.separator is None else repr(style.separator) for style in PREFIX_STYLES],
            "used by": [style.used_by for style in PREFIX_STYLES],
            "registered name": registered,
            "length": [len(name) for name in registered],
        }
    )


def prefixed(frame: pd.DataFrame, style: PrefixStyle) -> pd.Series:
    """The name each row is registered under in ``style``."""
    return pd.Series(
        [style.apply(server, tool) for server, tool in zip(frame["server"], frame["tool"])],
        index=frame.index,
        name="name",
    )


def _by_subset(frame: pd.DataFrame) -> Iterable[tuple[str, pd.Series]]:
    """A boolean row mask per subset, in :data:`SUBSETS` order."""
    subsets = subset_of(frame)
    for subset in SUBSETS:
        yield subset, (subsets == subset) if subset != "all" else pd.Series(True, index=frame.index)


def refusals(
    frame: pd.DataFrame, styles: Iterable[PrefixStyle] = PREFIX_STYLES, provider_rules: Iterable[Rule] | None = None
) -> pd.DataFrame:
    """How many names each provider rule would refuse as registered (before any rewriting).

    Columns: ``style, subset, provider, variant, names, refused, share`` (``share`` = refused / names).
    """
    chosen = tuple(rules() if provider_rules is None else provider_rules)
    rows = []
    for style in styles:
        names = prefixed(frame, style)
        for rule in chosen:
            refused = ~names.map(rule.accepts)
            for subset, mask in _by_subset(frame):
                rows.append(
                    {
                        "style": style.name,
                        "subset": subset,
                        "provider": rule.provider,
                        "variant": rule.variant,
                        "names": int(mask.sum()),
                        "refused": int(refused[mask].sum()),
                    }
                )
    return _with_share(pd.DataFrame(rows), "refused")


#: What :func:`rewrites` and :func:`per_record` count of a set of names.
_COUNTED = ["rewritten", "substituted", "prefixed", "truncated", "suffix_lost"]


def rewrites(frame: pd.DataFrame, styles: Iterable[PrefixStyle] = PREFIX_STYLES) -> pd.DataFrame:
    """What formatTools does to each prefixed name on its own.

    Columns: ``style, subset, names, rewritten, substituted, prefixed, truncated, suffix_lost, share``.
    ``suffix_lost`` counts truncated names whose 63-unit rewrite equals that of another name in the same server
    tool set: the cut removed what told them apart. ``share`` = rewritten / names.
    """
    rows = []
    for style in styles:
        flags = _rule_flags(frame, style)
        for subset, mask in _by_subset(frame):
            counts = flags.loc[mask, _COUNTED].sum().astype(int).to_dict()
            rows.append({"style": style.name, "subset": subset, "names": int(mask.sum()), **counts})
    return _with_share(pd.DataFrame(rows), "rewritten")


def _rule_flags(frame: pd.DataFrame, style: PrefixStyle) -> pd.DataFrame:
    """Per row: the rewritten name, which formatTools rules fired and what the cut removed (``normalise()`` of the
    name alone)."""
    names = prefixed(frame, style)
    found = [normalise([name]).rows[0] for name in names]
    flags = pd.DataFrame(
        [(row.key, row.name, row.rewritten, row.substituted, row.prefixed, row.truncated, row.lost) for row in found],
        columns=["name", "wire", "rewritten", "substituted", "prefixed", "truncated", "lost"],
        index=frame.index,
    )
    sharing = flags.groupby([record_of(frame), flags["wire"]])["name"].transform("nunique")
    flags["suffix_lost"] = flags["truncated"] & (sharing > 1)
    return flags


def collisions(frame: pd.DataFrame, styles: Iterable[PrefixStyle] = PREFIX_STYLES) -> pd.DataFrame:
    """How many tool sets make formatTools throw ``AGENT_TOOL_NAME_COLLISION`` when registered whole, per style.

    Each record of :func:`record_of` is one tools record, run through ``normalise()``. Columns:
    ``style, subset, records, failing, tools_in_failing, share`` (``share`` = failing / records).
    """
    groups = list(frame.groupby(record_of(frame), sort=True))
    rows = []
    for style in styles:
        outcome = []
        for _record, group in groups:
            keys = [style.apply(server, tool) for server, tool in zip(group["server"], group["tool"])]
            failed = isinstance(normalise(keys).error, Collision)
            outcome.append((subset_of(group).iloc[0], failed, len(keys)))
        table = pd.DataFrame(outcome, columns=["subset", "failed", "tools"])
        for subset in SUBSETS:
            part = table if subset == "all" else table[table["subset"] == subset]
            failing = part["failed"]
            rows.append((style.name, subset, len(part), int(failing.sum()), int(part.loc[failing, "tools"].sum())))
    result = pd.DataFrame(rows, columns=["style", "subset", "records", "failing", "tools_in_failing"])
    result["share"] = result["failing"] / result["records"]
    return result


def _with_share(table: pd.DataFrame, counted: str) -> pd.DataFrame:
    table["share"] = table[counted] / table["names"]
    return table


# ---- per name and per tool set, for tables, charts and live runs ---------------------------------------------

#: ``readme_quick_stats`` columns, in the README's order.
QUICK_STATS_COLUMNS = ("rows", "outside_charset", "over_63", "over_64", "server_tool_63", "server_tool_64")
_QUICK_STATS_SUBSETS = {"MCP servers": "mcp", "Composio": "composio", "all": "all"}


def readme_quick_stats(path: Path = README_PATH) -> pd.DataFrame:
    """The README's "Quick stats" table (counted by the corpus' compilers, not by this kit), indexed by subset.

    Columns :data:`QUICK_STATS_COLUMNS`: rows; names with a character outside ``[A-Za-z0-9_-]``; bare names over
    63 and over 64; ``server_tool`` names failing ``^[a-zA-Z_][a-zA-Z0-9_-]*$`` within 63 and within 64. It is an
    oracle independent of this module's measures. Raises ``InputError`` when the table is missing or reshaped.
    """
    try:
        section = path.read_text(encoding="utf-8").split("## Quick stats", 1)[1]
    except (FileNotFoundError, IndexError):
        raise InputError(f"{path}: no '## Quick stats' section; restore the README shipped with the corpus") from None
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] in _QUICK_STATS_SUBSETS:
            if len(cells) != 1 + len(QUICK_STATS_COLUMNS) or not all(cell.isdigit() for cell in cells[1:]):
                raise InputError(f"{path}: Quick stats row {line.strip()!r} is not {len(QUICK_STATS_COLUMNS)} counts")
            rows[_QUICK_STATS_SUBSETS[cells[0]]] = [int(cell) for cell in cells[1:]]
        elif rows and not line.startswith("|"):
            break
    if set(rows) != set(SUBSETS):
        raise InputError(f"{path}: Quick stats has rows for {sorted(rows)}; expected {list(SUBSETS)}")
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(QUICK_STATS_COLUMNS)).loc[list(SUBSETS)]


def names(frame: pd.DataFrame, style: PrefixStyle) -> pd.DataFrame:
    """One row per corpus row: the name registered in ``style`` and what formatTools makes of it.

    Columns: ``record, subset, name, length`` (UTF-16 units), ``wire`` (formatTools' rewrite of the name alone),
    ``rewritten, substituted, prefixed, truncated, lost`` (what the 63-unit cut removed) and ``suffix_lost`` (as
    in :func:`rewrites`: the cut made it equal to another name of its tool set).
    """
    flags = _rule_flags(frame, style)
    return pd.concat(
        [
            pd.DataFrame({"record": record_of(frame), "subset": subset_of(frame)}),
            flags[["name"]].assign(length=flags["name"].map(js_length)),
            flags[["wire", "rewritten", "substituted", "prefixed", "truncated", "lost", "suffix_lost"]],
        ],
        axis=1,
    )


def per_record(frame: pd.DataFrame, style: PrefixStyle) -> pd.DataFrame:
    """One row per tool set (:func:`record_of`) in ``style``, most rewritten first.

    Columns: ``record, subset, tools, rewritten, substituted, prefixed, truncated, suffix_lost`` (counts of
    names) and ``collision``: the name ``AGENT_TOOL_NAME_COLLISION`` reports when the whole set is registered,
    or ``""`` when formatTools accepts it.
    """
    grouped = names(frame, style).groupby("record", sort=True)
    summary = grouped[_COUNTED].sum().astype("int64")
    summary.insert(0, "tools", grouped.size())
    summary.insert(0, "subset", grouped["subset"].first())
    summary["collision"] = [_collision_name(list(group["name"])) for _record, group in grouped]
    summary = summary.reset_index()
    return summary.sort_values(["rewritten", "record"], ascending=[False, True], ignore_index=True)


def _collision_name(keys: list[str]) -> str:
    error = normalise(keys).error
    return error.name if isinstance(error, Collision) else ""


def record_keys(frame: pd.DataFrame, record: str, style: PrefixStyle) -> tuple[str, ...]:
    """The keys one tool set registers in ``style``, in file order (``KeyError`` for an unknown record)."""
    rows = frame[record_of(frame) == record]
    if rows.empty:
        raise KeyError(
            f"the corpus holds no tool set {record!r} (records look like 'aws-ecs awslabs/mcp', 'composio GITHUB')"
        )
    return tuple(style.apply(server, tool) for server, tool in zip(rows["server"], rows["tool"]))


def model_against_wire(outcomes: Iterable[Outcome]) -> pd.DataFrame:
    """For each measured scenario, the Python model's prediction beside what the real package did.

    Both sides are the ``normalise --json`` shape: ``{"names": [...]}`` in wire order, or ``{"error": ...}``
    (the real side drops the ``tool_choice`` it also records). Columns: ``scenario, tools, predicted, measured,
    agree``; ``predicted`` and ``measured`` are one-line summaries (the error, or how many tools were sent and how
    many under a new name), while ``agree`` compares the full objects, every name in order.
    """
    rows = []
    for outcome in outcomes:
        keys = [spec.key for spec in outcome.scenario.tools]
        predicted = normalise(keys).to_json()
        measured = {key: value for key, value in outcome.result_json().items() if key != "tool_choice"}
        rows.append(
            {
                "scenario": outcome.scenario.name,
                "tools": len(keys),
                "predicted": _describe(predicted, keys),
                "measured": _describe(measured, keys),
                "agree": predicted == measured,
            }
        )
    return pd.DataFrame(rows, columns=["scenario", "tools", "predicted", "measured", "agree"])


def against_format_tools(frame: pd.DataFrame, style: PrefixStyle, version: str) -> pd.DataFrame:
    """Every tool set in ``style`` through the real ``Agent.formatTools`` of ``version`` (one Node process) and
    through the model. Columns: ``record, tools, agree``; the corpus-wide counts stand on the real package when
    ``agree`` holds everywhere.
    """
    by_record: dict[str, list[str]] = {}
    for record, server, tool in zip(record_of(frame), frame["server"], frame["tool"]):
        by_record.setdefault(record, []).append(style.apply(server, tool))  # file order, as record_keys gives it
    records = sorted(by_record)
    keys = [by_record[record] for record in records]
    real = mastra.format_records(keys, version)
    agree = [normalise(record).to_json() == as_sent(result) for record, result in zip(keys, real)]
    return pd.DataFrame({"record": records, "tools": [len(record) for record in keys], "agree": agree})


def _describe(result: dict, keys: Sequence[str]) -> str:
    """A ``normalise --json`` object in one line: the error, or how many tools were sent and how many renamed."""
    if "error" in result:
        error = result["error"]
        return f"{error['kind']}: {error.get('name') or error.get('message')}"
    sent = result["names"]
    registered = set(keys)
    renamed = [name for name in sent if name not in registered]
    at_cut = sum(1 for name in renamed if js_length(name) == MAX_NAME_LENGTH)
    return f"{len(sent)} tools sent, {len(renamed)} renamed ({at_cut} of them {MAX_NAME_LENGTH} units long)"
