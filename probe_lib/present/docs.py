"""The tables of measured behaviour in ``README.md`` and ``docs/``, filled from the recordings and timelines (and the
class's reading order, from the overview notebook), so no such table is typed by hand beside what it describes.

A generated block sits between ``<!-- generated: NAME -->`` and ``<!-- /generated -->``; :func:`blocks` names the
function that renders each. ``probe-lib docs`` rewrites the blocks in place (the prose around them is kept as
written), ``probe-lib docs --check`` says which file differs from what the data give, and a test holds the committed
files to it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd

from probe_lib.analysis import matrix, timeline
from probe_lib.claims.verdict import MASTRA
from probe_lib.core import files, paths
from probe_lib.core.errors import InputError
from probe_lib.history import sweep
from probe_lib.history import timeline as committed
from probe_lib.measure.collection import MATRIX
from probe_lib.measure.matrix_runs import PROBES
from probe_lib.measure.sources import RECORDED

_BLOCK = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- /generated -->)", re.DOTALL)
#: The probes whose forced run forces a key the request registered (``unregistered-choice`` forces a name no tool has).
_UNREGISTERED = "unregistered-choice"


def markdown(frame: pd.DataFrame) -> str:
    """``frame`` as a Markdown table (a ``|`` in a cell escaped, a missing value as a dash)."""

    def cell(value: object) -> str:
        return "-" if value is None or value is pd.NA or value != value else str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def matrix_table() -> pd.DataFrame:
    """The framework matrix as recorded (``data/captures/matrix/``), one row per target and probe."""
    return matrix.table([outcome for m in RECORDED.measurements(MATRIX) for outcome in m.outcomes])


def timelines() -> tuple[list, list]:
    """Every framework's committed timeline lines and swept releases: the one place this module reads them."""
    return committed.read(), committed.read_releases()


def others(lines: Sequence, releases: Sequence) -> tuple[list, list]:
    """The lines and releases of every framework but Mastra."""
    return [line for line in lines if line.framework != MASTRA], [r for r in releases if r.framework != MASTRA]


#: A forced run's verdict (:mod:`probe_lib.analysis.matrix`) as the README's table words it.
_FATES = {
    "not in tools": "sent, absent from its tools",
    "forced, in tools": "sent",
    "rejected": "refused before sending",
    "collision": "refused before sending",
    "crash": "crashed",
    "not applicable": "cannot force",
    "not forced": "not forced",
}


def forced_absent(table: pd.DataFrame) -> str:
    """Per target: of the probes that force a registered key, how many requests named a tool absent from their own
    tools, how many a tool among them, how many the framework refused before sending and how many it cannot force;
    and what became of a forced name no tool has."""
    forced = table[table["forced verdict"].notna()]
    rows = []
    for target, own in forced.groupby("target", sort=False):
        registered = own[own["probe"] != _UNREGISTERED]["forced verdict"]
        missing = own[own["probe"] == _UNREGISTERED]["forced verdict"]
        refused = registered.isin(["rejected", "collision", "crash"]).sum()
        rows.append(
            {
                "target (its pin)": f"`{target}`",
                "absent from its tools": f"**{(registered == 'not in tools').sum()}**",
                "among its tools": (registered == "forced, in tools").sum(),
                "refused before sending": refused,
                "cannot force": (registered == "not applicable").sum(),
                f"`{_UNREGISTERED}` (a name no tool has)": _FATES.get(missing.iloc[0]) if len(missing) else None,
            }
        )
    rows.sort(key=lambda row: (-int(row["absent from its tools"].strip("*")), row["target (its pin)"]))
    return markdown(pd.DataFrame(rows))


def dot_probe(table: pd.DataFrame) -> str:
    """Per target, what became of the key ``search.web`` (the ``dot`` probe): the names sent, the key forced, and
    the model's call by the name sent."""
    dot = table[table["probe"] == "dot"]
    frame = pd.DataFrame(
        {
            "target": "`" + dot["target"] + "`",
            "`search.web`, `plain` go out as": [
                ", ".join(f"`{name}`" for name in names) if verdict not in matrix.REFUSALS else f"{verdict}: {how}"
                for names, verdict, how in zip(dot["names"], dot["names verdict"], dot["how"], strict=True)
            ],
            "`search.web` forced by its key": dot["forced verdict"],
            "forced as sent": dot["forced as sent"],
            "a call by the name sent": dot["round trip"],
        }
    )
    return markdown(frame)


def framework_changes(lines: Sequence) -> str:
    """Each framework's change points on the wire: the two adjacent releases, the probes that changed (a probe's
    forced and round-trip runs folded into it) and the fields of the request that differ."""
    changes = timeline.change_points(timeline.frame(lines), wire_only=True)
    rows = []
    for framework in sorted({line.framework for line in lines}):
        own = changes[changes["framework"] == framework]
        mine = [line for line in lines if line.framework == framework]
        ran = list(dict.fromkeys(line.version for line in mine if line.scenario != sweep.WHOLE_VERSION))
        if own.empty:
            unchanged = f"none over the {len(ran)} releases that ran ({ran[0]} to {ran[-1]})"
            rows.append((framework, "-", "-", unchanged, "-"))
            continue
        order = {version: i for i, version in enumerate(dict.fromkeys(line.version for line in mine))}
        pairs = own.groupby(["before", "after"], sort=False)
        for (before, after), group in sorted(pairs, key=lambda pair: order[pair[0][1]]):
            runs = sorted({name.partition("+")[2] or "plain" for name in group["scenario"]})
            probes = sorted({name.split("+")[0] for name in group["scenario"]})
            named = f"all {len(probes)}" if len(probes) == len(PROBES) else ", ".join(probes)
            fields = sorted({f for differs in group["differs_in"] for f in differs.split(", ")} & timeline.WIRE_FIELDS)
            rows.append((framework, before, after, f"{named} ({', '.join(runs)})", ", ".join(fields)))
    columns = ["framework", "last release before", "first release with", "probes (runs)", "what differs"]
    return markdown(pd.DataFrame(rows, columns=columns))


def registry_dates(lines: Sequence, releases: Sequence) -> str:
    """Per package swept, its stable releases in the registry's version order, how many of them the registry dates
    before the release preceding it, and how many measured ones it dates after a later release of their own line
    (:func:`~probe_lib.history.timeline.backdated`), and of those how many were resolved as of that later release's
    date: how far the publication times, which every resolution "as of its day" reads, can be trusted, and how many
    measurements that touches."""
    backdated = committed.backdated(releases)
    late = {(line.framework, line.version) for line in lines} & backdated.keys()  # measured
    unbounded = {  # measured, not resolved as of the later release's date (as the kit resolves them now)
        (line.framework, line.version)
        for line in lines
        if (line.framework, line.version) in late
        and not backdated[(line.framework, line.version)].resolved_bounded(line.resolved_before)
    }
    rows, seen = [], set()
    for framework in dict.fromkeys(r.framework for r in releases):
        own = [r for r in releases if r.framework == framework and r.prerelease != "yes"]
        if not own or own[0].package in seen:
            continue  # a second path through one package (openai-agents-chat) has the same releases
        seen.add(own[0].package)
        dated = [r for r in own if r.published]
        earlier = sum(later.published < before.published for before, later in zip(dated, dated[1:]))
        routes = {r.framework for r in releases if r.package == own[0].package}  # openai-agents-js and -chat
        touched = [r for r in own if any((route, r.version) in late for route in routes)]
        resolved = sum(not any((route, r.version) in unbounded for route in routes) for r in touched)
        rows.append((f"`{own[0].package}`", len(own), earlier, len(touched), resolved))
    columns = [
        "package",
        "stable releases",
        "dated before the release preceding it",
        "measured, dated after a later release of its line",
        "of those, resolved as of that later release's date",
    ]
    return markdown(pd.DataFrame(rows, columns=columns))


#: The notebook whose reading-order table ``docs/teaching.md`` shows.
OVERVIEW = paths.NOTEBOOKS / "00-overview.ipynb"


def reading_order(overview: Path = OVERVIEW) -> str:
    """The overview notebook's reading-order table (the route a class takes), each notebook named in a code span
    instead of the notebook's link or note: the table is written once, in the notebook a learner opens."""
    sources = ("".join(cell["source"]) for cell in json.loads(overview.read_text(encoding="utf-8"))["cells"])
    table = next((text for text in sources if "| # | notebook |" in text), None)
    if table is None:
        raise InputError(f"{overview.name} has no reading-order table (a cell with '| # | notebook |')")
    rows = [line for line in table.splitlines() if line.startswith("|")]
    named = (re.sub(r"^(\| \d+ \| )[^|]*?(\d\d-[\w-]+)[^|]*( \|)", r"\1`\2`\3", row) for row in rows[2:])
    return "\n".join([*rows[:2], *named])


def blocks() -> dict[str, Callable[[], str]]:
    """Each block's name and the function that renders it from the data, for one pass over the documents: each data
    file is read once, on first use, however many blocks and documents show it."""
    matrix_data, every = functools.cache(matrix_table), functools.cache(timelines)
    sweeps = functools.cache(lambda: others(*every()))
    mastra = functools.cache(lambda: timeline.frame([line for line in every()[0] if line.framework == MASTRA]))
    return {
        "forced-absent": lambda: forced_absent(matrix_data()),
        "matrix-dot": lambda: dot_probe(matrix_data()),
        # each framework's swept range: releases served, measured and those that could not run (its change points
        # are the next block's)
        "framework-sweeps": lambda: markdown(timeline.framework_summary(*sweeps()).drop(columns="wire change points")),
        "framework-changes": lambda: framework_changes(sweeps()[0]),
        "registry-dates": lambda: registry_dates(*sweeps()),
        # the ledger's version-range questions, each answered on every swept stable @mastra/core version
        "mastra-ranges": lambda: markdown(timeline.range_claims(timeline.stable(mastra()))),
        "reading-order": reading_order,
    }


def render(text: str, renderers: Mapping[str, Callable[[], str]] | None = None) -> str:
    """``text`` with each generated block filled afresh (by ``renderers``, default :func:`blocks`); an unknown block
    name is an ``InputError``."""
    renderers = blocks() if renderers is None else renderers
    rendered: dict[str, str] = {}

    def fill(match: re.Match) -> str:
        name = match[2]
        if name not in renderers:
            raise InputError(f"unknown generated block {name!r}; known: {', '.join(renderers)}")
        if name not in rendered:
            rendered[name] = renderers[name]()
        return f"{match[1]}{rendered[name]}\n{match[4]}"

    return _BLOCK.sub(fill, text)


def documents() -> list[Path]:
    """The files whose generated blocks ``probe-lib docs`` fills: the README, ``docs/*.md`` and the benchmarks'."""
    return [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").glob("*.md")), paths.ROOT / "benchmarks/README.md"]


def _filled(documents: Sequence[Path]) -> Iterator[tuple[Path, str, str]]:
    """Each document, its text and that text with its generated blocks filled, each document and data file read
    once."""
    filling = blocks()
    for path in documents:
        text = path.read_text(encoding="utf-8")
        yield path, text, render(text, filling)


def stale(documents: Sequence[Path]) -> list[Path]:
    """The documents whose generated blocks differ from what the data give now."""
    return [path for path, text, new in _filled(documents) if new != text]


def write(documents: Sequence[Path]) -> list[Path]:
    """Fill each document's generated blocks in place (each file replaced whole); the ones that changed."""
    changed = []
    for path, text, new in _filled(documents):
        if new != text:
            files.write_atomically(path, lambda partial, new=new: partial.write_text(new, encoding="utf-8"))
            changed.append(path)
    return changed
