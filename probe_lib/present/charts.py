"""Small matplotlib charts of the :mod:`probe_lib.analysis.tables` DataFrames, each returned as a Figure, and the
category grids of measured outcomes (:func:`category_grid`), each grid function beside the palette of its categories.

Figures are built with ``matplotlib.figure.Figure`` rather than pyplot, so this module never selects, forces
or queries a backend: a notebook's own backend displays them, and ``fig.savefig`` renders them headless (Agg
for raster formats). Nothing here calls ``show()`` or keeps figures alive in pyplot's registry.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from probe_lib.analysis import measured
from probe_lib.analysis import tables as t
from probe_lib.core.errors import InputError
from probe_lib.core.naming import NameRule
from probe_lib.core.outcome import Outcome
from probe_lib.providers import name_rules
from probe_lib.tables.evidence import Evidence

#: A category grid: the category of each cell (coloured by a palette) and the text it shows, both scenarios by columns.
Grid = tuple[pd.DataFrame, pd.DataFrame]


class Chart(Figure):
    """A kit chart: a matplotlib ``Figure`` whose text form says what it shows (title, axes, legend), so a notebook
    keeps that description beside the PNG and the HTML report gives it to the image as its alt text."""

    def __repr__(self) -> str:
        return describe(self)

    @classmethod
    def of_size(cls, width: float, height: float) -> tuple[Chart, Axes]:
        """A chart of ``width`` by ``height`` inches (constrained layout) and its one axes."""
        figure = cls(figsize=(width, height), layout="constrained")
        return figure, figure.add_subplot()


def describe(figure: Figure) -> str:
    """One sentence on what ``figure`` shows: its titles, its axis labels, and its legend's entries."""
    parts = [title for ax in figure.axes for title in (ax.get_title("left"), ax.get_title()) if title]
    axes = [label for ax in figure.axes for label in (ax.get_xlabel(), ax.get_ylabel()) if label]
    legend = [text.get_text() for ax in figure.axes if ax.get_legend() for text in ax.get_legend().get_texts()]
    sentence = "Chart: " + ("; ".join(parts) or "untitled")
    if axes:
        sentence += f". Axes: {', '.join(axes)}"
    if legend:
        sentence += f". Legend: {', '.join(legend[:16])}" + (
            f" and {len(legend) - 16} more" if len(legend) > 16 else ""
        )
    return sentence + "."


def _documented_limit(provider: str) -> int:
    """The longest name ``provider``'s documented rule allows (data/provider_rules.csv)."""
    limit = name_rules.get_rule(provider, "documented").max_length
    if limit is None:
        raise InputError(f"data/provider_rules.csv: {provider}/documented states no max_length; the charts draw it")
    return limit


#: The limit the length charts draw: OpenAI's documented Chat Completions limit, the one issue 6302's error quotes
#: (Anthropic's, Azure's, Bedrock's and Groq's documented rules say the same 64; Gemini's says 128). A name rule may
#: cut shorter (formatTools: 63).
PROVIDER_NAME_LIMIT = _documented_limit("openai")

#: The rules :func:`rules_fired` draws, in bar order, with their colours.
RULES = (("substituted", "tab:blue"), ("prefixed", "tab:orange"), ("truncated", "tab:red"))

_LABEL_WIDTH = 32


def key_label(key: str) -> str:
    """A key as a chart label: characters the default font lacks (CJK, emoji, surrogates) and control
    characters as escapes (:func:`_drawable`), long keys cut."""
    shown = _drawable(key)
    return shown if len(shown) <= _LABEL_WIDTH else shown[: _LABEL_WIDTH - 1] + "…"


def _drawable(key: str) -> str:
    """``key`` with characters the default font lacks (CJK, emoji, surrogates) and control characters as escapes,
    and the empty key and edge spaces quoted. Escaping keeps distinct keys distinguishable and avoids missing-glyph
    boxes and warnings."""
    shown = "".join(
        char if char.isprintable() and ord(char) < 0x0530 else f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF
        else f"\\U{ord(char):08x}"
        for char in key
    )  # fmt: skip
    return f'"{shown}"' if not shown or shown != shown.strip() else shown  # the empty key and edge spaces visible


def rules_fired(summary: pd.DataFrame) -> Figure:
    """Horizontal grouped bars: for each key set (a :func:`tables.summary` row), how many keys each rule touched.

    One bar per set and rule, so ``3 * len(summary)`` bars.
    """
    count = len(summary)
    fig, ax = Chart.of_size(8, 1.2 + 0.32 * max(count, 1))
    height = 0.8 / len(RULES)
    for offset, (rule, colour) in enumerate(RULES):
        positions = [row + (offset - 1) * height for row in range(count)]
        ax.barh(positions, summary[rule].to_numpy(), height=height, color=colour, label=rule)
    ax.set_yticks(range(count), summary["set"].tolist())
    ax.invert_yaxis()
    ax.set(xlabel="keys", title="Rules fired per key set (Python model)")
    ax.legend(loc="lower right")
    return fig


def lengths(rewrites: pd.DataFrame, rule: NameRule | None = None) -> Figure:
    """Scatter of key length against wire-name length (:func:`tables.rewrites`), with the rule's cut and the 64 limit.

    Two point groups (kept whole, truncated) and three reference lines (name = key, the rule's cut, limit 64).
    ``rule`` is the one the table was computed with (default: the default framework's).
    """
    rule = rule or t.default_rule()
    fig, ax = Chart.of_size(6, 5)
    truncated = rewrites["truncated"].to_numpy(dtype=bool)
    for label, mask, colour in (("kept whole", ~truncated, "tab:blue"), ("truncated", truncated, "tab:red")):
        ax.scatter(rewrites["key_length"][mask], rewrites["name_length"][mask], s=14, color=colour, label=label)
    longest = max(int(rewrites["key_length"].max()) if len(rewrites) else 0, PROVIDER_NAME_LIMIT) + 2
    ax.plot([0, longest], [0, longest], color="grey", linewidth=0.8, linestyle=":", label="name = key")
    ax.axhline(rule.MAX_NAME_LENGTH, color="tab:red", linewidth=1, label=f"cut ({rule.MAX_NAME_LENGTH})")
    ax.axhline(PROVIDER_NAME_LIMIT, color="black", linewidth=1, linestyle="--",
               label=f"OpenAI's documented limit ({PROVIDER_NAME_LIMIT})")  # fmt: skip
    title = f"Key length before and after {rule.LABEL}() (Python model)"
    ax.set(xlabel="key length (UTF-16 units)", ylabel="wire name length", title=title)
    ax.legend(loc="upper left")
    return fig


def ordering_slope(rewrites: pd.DataFrame, keyset: str) -> Figure:
    """Slope chart of one set's tools: registration position (left) to wire position (right), one line per key.

    Rewritten keys are drawn in colour, untouched ones in grey; a key that vanishes from the wire is a lone
    cross on the left. Raises ``ValueError`` for a set with no wire order (it raised) or one the table lacks.
    """
    rows = rewrites[rewrites["set"] == keyset]
    if rows.empty:
        raise ValueError(f"the table holds no key set {keyset!r}")
    if (rows["position_after"].isna() & ~rows["vanished"]).any():
        raise ValueError(f"key set {keyset!r} makes formatTools raise, so it has no wire order")
    fig, ax = Chart.of_size(7, 1 + 0.3 * len(rows))
    for row in rows.itertuples(index=False):
        before, key = row.position_before, key_label(row.key)
        ax.annotate(key, (0, before), xytext=(-6, 0), textcoords="offset points", ha="right", va="center", fontsize=8)
        if row.vanished:
            ax.plot([0], [before], marker="x", color="tab:red")
            continue
        after = int(row.position_after)
        ax.plot([0, 1], [before, after], marker="o", color="tab:orange" if row.rewritten else "grey")
        ax.annotate(key_label(row.wire_name), (1, after), xytext=(6, 0), textcoords="offset points",
                    ha="left", va="center", fontsize=8)  # fmt: skip
    ax.set(xlim=(-0.05, 1.05), xticks=[0, 1], xticklabels=["registered", "on the wire"], yticks=[])
    ax.invert_yaxis()
    ax.spines[["left", "right", "top"]].set_visible(False)
    ax.set_title(f"Tool order: {keyset} (Python model)", pad=12)
    return fig


#: One colour per ledger status, shared by this chart and the HTML report.
STATUS_COLOURS = {
    "confirmed": "#8fd18f",
    "refined": "#f5d76e",
    "refuted": "#e57373",
    "not testable": "#c8c8c8",
    "failed": "#b71c1c",
}


def ledger_statuses(ledger: pd.DataFrame) -> Figure:
    """Stacked bars: how many claims each status has, per version (a ``ledger.ledger`` table)."""
    counts = ledger.groupby(["version", "status"]).size().unstack(fill_value=0)
    figure, axes = Chart.of_size(7, 2.6)
    left = pd.Series(0, index=counts.index)
    for status, colour in STATUS_COLOURS.items():
        if status in counts:
            axes.barh(counts.index, counts[status], left=left, color=colour, label=status)
            left = left + counts[status]
    axes.set(xlabel="claims", ylabel="@mastra/core", title="Claims ledger: status per version")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncols=len(STATUS_COLOURS), frameon=False)
    return figure


# -- the category grids of measured outcomes: each palette (one colour per category) beside the function whose
# -- categories it colours, a (categories, labels) pair for category_grid

#: :func:`offered_grid`: is the key, or the id, the name offered to the model?
OFFERED_COLOURS = {"offered to the model": "#8fd18f", "not offered": "#e57373", "sent": "#dddddd"}


def offered_grid(ev: Evidence, scenario_names: Sequence[str], labels: Mapping[str, str]) -> Grid:
    """``measured.names_per_tool`` as a grid: is the key, and is the id, exactly the name offered to the model?"""
    names = measured.names_per_tool(ev, scenario_names, labels)
    offered = {True: "offered to the model", False: "not offered"}
    categories = pd.DataFrame(
        {
            "registered key": (names["registered key"] == names["name on the wire"]).map(offered),
            "tool id": (names["tool id"] == names["name on the wire"]).map(offered),
            "name on the wire": "sent",
        }
    )
    return categories, names


#: :func:`error_grid`: each link of an error chain by its ``id`` (or ``code``).
ERROR_COLOURS = {
    "AGENT_GENERATE_FAILED": "#f5d76e",
    "AGENT_TOOL_NAME_COLLISION (as code)": "#8fd18f",
    "no id": "#dddddd",
}


_LINK_NAMES = {0: "error generate() rejects with", 1: "its cause"}


def error_grid(ev: Evidence, scenario_names: Sequence[str]) -> Grid:
    """``measured.error_chains`` as a grid: one row per scenario, one column per link, coloured by the link's ``id``
    (or, without one, its ``code``); each cell reads the link's name, id or code, message and
    ``details.toolName``."""
    chains = measured.error_chains(ev, scenario_names)
    tool = ("\ndetails.toolName: " + chains["details.toolName"]).fillna("")
    said = ("id: " + chains["id"]).fillna("code: " + chains["code"]).fillna("id: none")
    # A plain "Error" is named by its class (MastraError, or Error for one rebuilt from it); a TypeError by its name.
    named = chains["class"].where(chains["name"] == "Error", chains["name"]).fillna(chains["name"])
    label = named + "\n" + said + "\n" + chains["message"] + tool
    category = chains["id"].fillna(chains["code"] + " (as code)").fillna("no id")
    cells = chains.assign(category=category, label=label)
    grid, text = (
        cells.pivot(index="scenario", columns="link", values=column).reindex(list(scenario_names))
        for column in ("category", "label")
    )
    grid.columns = text.columns = [_LINK_NAMES.get(link, f"link {link}") for link in grid.columns]
    return grid, text


#: :func:`choice_grid`: tools sent, the forced tool offered or not, the linter's word.
CHOICE_COLOURS = {
    "caller's option": "#eeeeee",
    "tools sent": "#cfe2f3",
    "no tools sent": "#f5d76e",
    "forced tool offered": "#8fd18f",
    "forced tool not offered": "#e57373",
    "no tool forced": "#dddddd",
    "mismatch flagged": "#e57373",
    "no tools to offer": "#f4a261",
    "clean": "#8fd18f",
}


def _emptied(outcome: Outcome) -> bool:
    """The request offers no tools (an empty list or no field at all) although the caller registered some and did
    not ask for ``toolChoice: 'none'``."""
    return outcome.wire_names == [] and bool(outcome.scenario.tools) and outcome.scenario.tool_choice != "none"


def choice_grid(ev: Evidence, scenario_names: Sequence[str], provider: str = "openai") -> Grid:
    """``measured.choice_table`` and ``measured.lint_findings`` as a grid: were tools sent, is the forced tool
    offered, did the linter flag the mismatch? Cells read the option, ``tools``, ``tool_choice`` and the lint codes."""
    calls, findings = measured.choice_table(ev, scenario_names), measured.lint_findings(ev, scenario_names, provider)
    mismatched = set(findings.loc[findings["code"] == "choice-not-in-tools", "scenario"])
    labels = (
        calls[["option given", "tools sent", "tool_choice sent"]]
        .astype(str)
        .assign(
            lint=[
                ", ".join(findings.loc[findings["scenario"] == name, "code"]) or "no finding" for name in scenario_names
            ]
        )
    )
    categories = pd.DataFrame(
        {
            "option given": "caller's option",
            "tools sent": ["tools sent" if ev[name].wire_names else "no tools sent" for name in scenario_names],
            "tool_choice sent": [
                "forced tool not offered"
                if name in mismatched
                else "forced tool offered"
                if ev[name].forced_name
                else "no tool forced"
                for name in scenario_names
            ],
            "lint": [
                "mismatch flagged" if name in mismatched else "no tools to offer" if _emptied(ev[name]) else "clean"
                for name in scenario_names
            ],
        },
        index=list(scenario_names),
    )
    empty = categories["lint"] == "no tools to offer"  # the linter sees no mismatch; the turn can call nothing
    labels.loc[empty, "lint"] = "no tools sent:\nthe turn can call nothing"
    return categories, labels


#: :func:`remedy_grid`: was anything sent, and what did the turn come to?
REMEDY_COLOURS = {
    "caller's option": "#eeeeee",
    "sent": "#cfe2f3",
    "nothing sent": "#dddddd",
    "consistent": "#8fd18f",
    "selects what it names": "#8fd18f",
    "forced tool not offered": "#e57373",
    "refused (collision)": "#e57373",
    "selects no tool at all": "#e57373",
    "does not select what it names": "#f5d76e",
}


def _one_per_line(names: object) -> object:
    """A list of names one per line (``"(no tools)"`` when empty); anything else (``"no request"``) unchanged."""
    return "\n".join(names) or "(no tools)" if isinstance(names, list) else names


def remedy_grid(ev: Evidence, scenario_names: Sequence[str], provider: str = "openai") -> Grid:
    """``measured.remedy_table`` and ``measured.remedy_outcomes`` as a grid: was anything sent, and what did the
    turn come to?"""
    requests, outcome = (
        measured.remedy_table(ev, scenario_names),
        measured.remedy_outcomes(ev, scenario_names, provider),
    )
    labels = requests[["option given", "tools sent", "tool_choice sent"]].assign(
        **{"tools sent": requests["tools sent"].map(_one_per_line), "outcome": outcome}
    )
    sent = ["sent" if ev[name].requests else "nothing sent" for name in scenario_names]
    categories = pd.DataFrame(
        {"option given": "caller's option", "tools sent": sent, "tool_choice sent": sent, "outcome": outcome},
        index=list(scenario_names),
    )
    return categories, labels


#: :func:`round_trip_grid`: did the tool run, and what did the model get back?
ROUND_TRIP_COLOURS = {
    "the model's call": "#eeeeee",
    "tool ran": "#8fd18f",
    "tool did not run": "#e57373",
    "reported": "#cfe2f3",
    "nothing reported": "#dddddd",
    "tool result": "#8fd18f",
    "told the tool was not found": "#f5d76e",
    "turn failed": "#e57373",
}


def _wrapped(text: object) -> str:
    return textwrap.fill(str(text), 30, max_lines=2, placeholder=" ...")


def round_trip_grid(ev: Evidence, scenario_names: Sequence[str]) -> Grid:
    """``measured.round_trip`` as a grid: did the tool run, was a ``toolName`` reported, and what did the model get
    back (the tool's result, a not-found message, or nothing because the turn failed)?"""
    labels = measured.round_trip(ev, scenario_names)[
        ["model called", "execute ran with", "toolName reported", "model got back"]
    ].map(_wrapped)
    categories = pd.DataFrame(
        {
            "model called": "the model's call",
            "execute ran with": ["tool ran" if ev[name].executions else "tool did not run" for name in scenario_names],
            "toolName reported": ["reported" if ev[name].tool_names else "nothing reported" for name in scenario_names],
            "model got back": [
                "tool result"
                if ev[name].executions
                else "told the tool was not found"
                if ev[name].tool_replies
                else "turn failed"
                for name in scenario_names
            ],
        },
        index=list(scenario_names),
    )
    return categories, labels


#: :func:`probe_lib.tables.compare.verdict_grid`: what a turn did, worst first (the first that applies is its verdict).
VERDICT_COLOURS = {
    "error": "#e07b7b",
    "forced tool not in tools": "#f0a35e",
    "keys left out": "#f3d36b",
    "sent, renamed": "#9cc7e8",
    "sent as registered": "#8fd18f",
    "Python model": "#d9d9d9",
}
#: :func:`probe_lib.tables.compare.versus_grid`: each turn against the same scenario on a baseline target.
VERSUS_COLOURS = {
    "baseline": "#dddddd",
    "same as baseline": "#8fd18f",
    "differs": "#f5d76e",
    "feature missing": "#f8d0d0",
}


#: Where a grid cell's text may wrap: after a space, an underscore, a hyphen, a dot or a slash.
_WRAP_AFTER = re.compile(r"(?<=[ _\-./])")


def _cell_text(value: object, width: int = 24, most: int = 4) -> str:
    """A grid cell's text: each line drawable (:func:`_drawable`) and wrapped to ``width`` characters after a space
    or a separator (``AGENT_TOOL_NAME_`` / ``COLLISION``), never cut mid-word (a run longer than ``width`` with no
    such place goes on over lines of ``width``); past ``most`` lines, the last shown ends in "…"."""
    lines = []
    for line in str(value).split("\n"):
        parts = [run[at : at + width] for run in _WRAP_AFTER.split(_drawable(line)) for at in range(0, len(run), width)]
        current = ""
        for part in parts:
            if current and len(current) + len(part) > width:
                lines.append(current.rstrip())
                current = ""
            current += part
        lines.append(current.rstrip())
    return "\n".join(lines if len(lines) <= most else [*lines[: most - 1], lines[most - 1] + " …"])


def category_grid(
    categories: pd.DataFrame, colours: Mapping[str, str], title: str, labels: pd.DataFrame | None = None
) -> Figure:
    """A table drawn as coloured cells: rows and columns as in ``categories``, each cell coloured by its category.

    ``categories`` holds one category name per cell (a key of ``colours``; anything else is drawn white, without
    a legend entry). Each cell shows its ``labels`` value (same shape; default: the category itself), so a cell
    can name what was measured while its colour says what that means. One rectangle per cell, one legend entry
    per category that occurs.
    """
    text = categories if labels is None else labels.reindex(index=categories.index, columns=categories.columns)
    text = text.map(lambda value: _cell_text(value) if isinstance(value, str) or not pd.isna(value) else value)
    height = max((str(value).count("\n") + 1 for value in text.to_numpy().ravel()), default=1)
    rows, columns = len(categories.index), len(categories.columns)
    fig, ax = Chart.of_size(2.4 + 2.1 * columns, 1.6 + 0.26 * height * max(rows, 1))
    present = set()
    for row in range(rows):
        for column in range(columns):
            category = categories.iat[row, column]
            colour = colours.get(category, "white") if isinstance(category, str) else "white"
            present.add(category)
            ax.add_patch(Rectangle((column, row), 1, 1, facecolor=colour, edgecolor="white", linewidth=2))
            value = text.iat[row, column]
            if isinstance(value, str) or not pd.isna(value):
                ax.text(column + 0.5, row + 0.5, value, ha="center", va="center", fontsize=8)
    ax.set(xlim=(0, columns), ylim=(rows, 0))
    ax.xaxis.tick_top()
    ax.set_xticks([column + 0.5 for column in range(columns)], [str(name) for name in categories.columns], fontsize=9)
    ax.set_yticks([row + 0.5 for row in range(rows)], [key_label(str(name)) for name in categories.index], fontsize=9)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    handles = [Patch(facecolor=colour, label=name) for name, colour in colours.items() if name in present]
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0), ncols=min(len(handles), 3),
                  frameon=False, fontsize=9)  # fmt: skip
    ax.set_title(title)
    return fig


#: Name-length limits drawn on corpus charts besides the rule's cut: (length, what it is, colour, line style).
LENGTH_LIMITS = (
    (PROVIDER_NAME_LIMIT, "OpenAI's documented limit", "black", "--"),
    (_documented_limit("gemini"), "Gemini's documented limit", "grey", ":"),
)

#: Subsets of the tool-name corpus, in drawing order, with their colours.
CORPUS_SUBSETS = (("mcp", "tab:blue"), ("composio", "tab:purple"))


def name_lengths(
    names: pd.DataFrame, title: str = "Registered tool-name lengths", rule: NameRule | None = None
) -> Figure:
    """Stacked histogram of name lengths (a ``corpus.names`` table: ``subset`` and ``length``), one bar per length.

    The count axis is logarithmic so the few names near the limits stay visible; each limit of
    :data:`LENGTH_LIMITS`, and the cut of ``rule`` (default: the default framework's), is a vertical line whose
    legend entry says how many names are longer.
    """
    rule = rule or t.default_rule()
    limits = ((rule.MAX_NAME_LENGTH, "cut of " + rule.LABEL, "tab:red", "-"), *LENGTH_LIMITS)
    fig, ax = Chart.of_size(8, 4)
    longest = max(int(names["length"].max()) if len(names) else 0, LENGTH_LIMITS[-1][0]) + 2
    groups = [names.loc[names["subset"] == subset, "length"].to_numpy() for subset, _colour in CORPUS_SUBSETS]
    ax.hist(
        groups,
        bins=range(0, longest + 1),
        stacked=True,
        color=[colour for _s, colour in CORPUS_SUBSETS],
        label=[f"{subset} ({len(group):,} names)" for (subset, _c), group in zip(CORPUS_SUBSETS, groups)],
    )
    for limit, what, colour, style in limits:
        over = int((names["length"] > limit).sum())
        label = f"{what} ({limit}): {over:,} longer"
        ax.axvline(limit + 0.5, color=colour, linestyle=style, linewidth=1.2, label=label)  # between limit and limit+1
    ax.set(yscale="log", xlabel="name length (UTF-16 units)", ylabel="names (log scale)", title=title)
    ax.legend(loc="upper right", fontsize=8)
    return fig


def rewrites_per_record(per_record: pd.DataFrame, top: int = 15, title: str | None = None) -> Figure:
    """Horizontal bars for the ``top`` tool sets with the most rewritten names (a ``corpus.per_record`` table).

    Each bar splits a set's rewritten names into: cut at 63 with a name still its own (red), cut and now equal to
    another name of the set (dark red, hatched: the suffix that told them apart is gone), and rewritten without a
    cut (blue). A set whose registration makes formatTools throw is labelled ``(collides)``. Sets with no
    rewritten name are left out, so fewer than ``top`` bars can be drawn.
    """
    shown = per_record[per_record["rewritten"] > 0].nlargest(top, "rewritten").reset_index(drop=True)
    fig, ax = Chart.of_size(8, 1.2 + 0.32 * max(len(shown), 1))
    rows = range(len(shown))
    kept = (shown["truncated"] - shown["suffix_lost"]).to_numpy()
    lost = shown["suffix_lost"].to_numpy()
    other = (shown["rewritten"] - shown["truncated"]).to_numpy()
    ax.barh(rows, kept, color="tab:red", label="cut at 63, still distinct")
    ax.barh(rows, lost, left=kept, color="darkred", hatch="//", label="cut at 63, distinguishing end lost")
    ax.barh(rows, other, left=kept + lost, color="tab:blue", label="rewritten, not cut")
    for row, item in enumerate(shown.itertuples(index=False)):
        ax.annotate(f"{item.rewritten} of {item.tools}", (item.rewritten, row), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=8)  # fmt: skip
    labels = [f"{record} (collides)" if collision else record
              for record, collision in zip(shown["record"], shown["collision"])]  # fmt: skip
    ax.set_yticks(list(rows), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(int(shown["rewritten"].max()) if len(shown) else 0, 1) * 1.18)  # room for the labels
    title = title or f"The {len(shown)} tool sets with the most rewritten names (Python model)"
    ax.set(xlabel="rewritten names in the tool set", title=title)
    ax.legend(loc="lower right", fontsize=8)
    return fig
