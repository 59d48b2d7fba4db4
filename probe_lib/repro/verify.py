"""The fix, verified: Mastra's scenario catalogue on a release, unpatched against patched, scenario by scenario.

Each scenario's behaviour is the sweep's (:func:`probe_lib.history.sweep.row`: what went out, the error, how many
requests and tool executions), measured twice in one run on the same machine: on the release's install and on its
patched copy (:func:`probe_lib.repro.patches.patched_copy`). A scenario is *targeted* when it names a tool in
``toolChoice`` or ``activeTools`` by a key formatTools rewrites (the Python model of the rewrite,
:func:`probe_lib.frameworks.mastra.normaliser.rewrite`, says which): the fix must make its request consistent (the
forced name among the tools sent; an active tool offered). Every other scenario must behave the same, byte for
byte. The rows go to ``data/fix_verification.csv`` (one per release and scenario; a release measured again
replaces its rows).

    python -m probe_lib.repro.verify VERSION [VERSION ...]                # Mastra's catalogue
    python -m probe_lib.repro.verify --llama-index VERSION [VERSION ...]  # the matrix's probes on LlamaIndex
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, fields

import pandas as pd

from probe_lib import frameworks
from probe_lib.capture import CaptureServer
from probe_lib.core import files, paths
from probe_lib.core.errors import ProbeError
from probe_lib.core.outcome import Outcome
from probe_lib.core.scenarios import Scenario
from probe_lib.core.target import release_key, version_key
from probe_lib.frameworks.keyed import KeyedSession, forced_key
from probe_lib.frameworks.mastra import adapter as mastra_adapter
from probe_lib.frameworks.mastra import catalogue, normaliser, runner
from probe_lib.history import sweep, timeline
from probe_lib.install import cache
from probe_lib.measure import matrix_runs
from probe_lib.repro import patches

CSV_PATH = paths.DATA / "fix_verification.csv"
#: Framework -> its first release with the asymmetry its fix closes: Mastra's formatTools rewrite (claim V01),
#: LlamaIndex's rename of the tools it sends (claim T09).
SINCE = {"mastra": mastra_adapter.NORMALISER_SINCE, "llama-index": "0.14.12"}


@dataclass(frozen=True)
class FixRow:
    """One scenario on one release, unpatched and patched."""

    framework: str
    version: str
    scenario: str
    #: ``yes`` when the fix is meant to change this scenario (a tool named by a key formatTools rewrites).
    targeted: str
    #: The sweep's behaviour digest, unpatched and patched; equal digests are equal behaviours.
    before: str
    after: str
    #: For a targeted scenario: whether its first request is consistent (``yes``/``no``; ``-`` when none was sent).
    consistent_before: str
    consistent_after: str
    #: The behaviours themselves when they differ (else empty), so a reader sees what changed.
    before_behaviour: str
    after_behaviour: str


def _rewritten(name: str) -> bool:
    return bool(name) and normaliser.rewrite(name) != name


def targeted(scenario: Scenario) -> bool:
    """Whether ``scenario`` names a tool by a key formatTools rewrites, in a named toolChoice or in activeTools (a
    remedy scenario renames its keys and those names first, so it names none)."""
    if scenario.remedy:
        return False
    choice = scenario.tool_choice
    forced = choice.get("toolName", "") if isinstance(choice, dict) and choice.get("type") == "tool" else ""
    return _rewritten(forced) or any(_rewritten(name) for name in scenario.active_tools or ())


def consistent(outcome: Outcome) -> str:
    """``yes`` when the first request forces only a tool it offers and, with activeTools, offers a tool; for a round
    trip (the model calling a tool by the name it was sent under), when a tool ran (which one, the outcome says)."""
    if not outcome.requests:
        return "-"
    if outcome.scenario.replies:
        return "yes" if outcome.executions else "no"
    names = outcome.wire_names or []
    forced = outcome.forced_name
    ok = (forced is None or forced in names) and (outcome.scenario.active_tools is None or bool(names))
    return "yes" if ok else "no"


def llama_index_targeted(scenario: Scenario) -> bool:
    """Whether a matrix probe forces a key LlamaIndex sanitizes, or calls back a tool by a name other than its key."""
    if scenario.replies:
        return scenario.replies[0].calls[0].name != scenario.tools[0].key
    forced = forced_key(scenario)
    return forced is not None and re.sub(r"[^a-zA-Z0-9_-]", "_", forced) != forced


def compare_llama_index(version: str) -> list[FixRow]:
    """The matrix's probes (plain, forced, round trips) on llama-index-core ``version``, unpatched then patched."""
    adapter = frameworks.get("llama-index")
    patched = patches.patched_environment(version)
    measured = []
    with CaptureServer() as server:
        for command in (None, patched):
            with closing(KeyedSession(adapter, version, command)) as session:
                probed = session.run(matrix_runs.scenarios(), server)
                measured.append(probed + session.run(matrix_runs.round_trips(probed), server))
    before, after = measured
    if missing := sorted({o.scenario.name for o in before} ^ {o.scenario.name for o in after}):
        print(f"{version}: made by one run only, not compared: {', '.join(missing)}", file=sys.stderr, flush=True)
    return _rows("llama-index", version, before, after, llama_index_targeted)


def compare(version: str) -> list[FixRow]:
    """The catalogue on ``version``, unpatched then patched; :class:`PatchDoesNotApply` when the release's shipped
    files lack what the fix changes."""
    scenarios = catalogue.scenarios()
    mastra_adapter.ADAPTER.install(version)
    modules = patches.patched_copy(version)
    with CaptureServer() as server:
        before = runner.run(scenarios, version, server=server)
        after = runner.run(scenarios, version, server=server, modules=modules)
    return _rows("mastra", version, before, after, targeted)


def _rows(
    framework: str,
    version: str,
    before: Sequence[Outcome],
    after: Sequence[Outcome],
    aimed_at: Callable[[Scenario], bool],
) -> list[FixRow]:
    """One row per scenario both runs made, unpatched and patched (a round trip exists only where its plain run
    sent a request, so one run can lack one the other made; the caller names those). A turn that timed out in
    either run is not compared, and is named on stderr (under the load of the recorded runs, a turn timed out in one
    run and not the other)."""
    patched = {outcome.scenario.name: outcome for outcome in after}
    rows, timed_out = [], []
    for old in before:
        if (new := patched.get(old.scenario.name)) is None:
            continue
        if any(o.failure is not None and "timed out" in o.failure.message for o in (old, new)):
            timed_out.append(old.scenario.name)
            continue
        scenario = old.scenario
        old_row, new_row = sweep.row(old), sweep.row(new)
        changed = old_row.outcome != new_row.outcome
        aimed = aimed_at(scenario)
        rows.append(
            FixRow(
                framework,
                version,
                scenario.name,
                "yes" if aimed else "no",
                old_row.outcome,
                new_row.outcome,
                consistent(old) if aimed else "",
                consistent(new) if aimed else "",
                old_row.behaviour if changed else "",
                new_row.behaviour if changed else "",
            )
        )
    if timed_out:
        print(f"{version}: timed out in one run, not compared: {', '.join(timed_out)}", file=sys.stderr, flush=True)
    return rows


def verdict(rows: Iterable[FixRow]) -> str:
    """One line per release: the targeted scenarios made consistent, and every other one unchanged (or which not)."""
    rows = list(rows)
    aimed = [row for row in rows if row.targeted == "yes"]
    fixed = [row for row in aimed if row.consistent_before == "no" and row.consistent_after == "yes"]
    silenced = [row.scenario for row in aimed if row.consistent_before == "no" and row.consistent_after == "-"]
    moved = [row.scenario for row in rows if row.targeted == "no" and row.before != row.after]
    still = [row.scenario for row in aimed if row.consistent_after == "no"]
    text = f"{rows[0].version}: {len(fixed)} of {len(aimed)} targeted scenarios made consistent"
    text += f", still inconsistent: {', '.join(still)}" if still else ""
    text += f", sending no request once patched: {', '.join(silenced)}" if silenced else ""
    return text + (f"; other scenarios changed: {', '.join(moved)}" if moved else "; every other scenario unchanged")


def read() -> list[FixRow]:
    if not CSV_PATH.exists():
        return []
    with CSV_PATH.open(newline="", encoding="utf-8") as handle:
        return [FixRow(**record) for record in csv.DictReader(handle)]


def write(rows: Sequence[FixRow]) -> None:
    """Merge ``rows`` into :data:`CSV_PATH`: their releases' earlier rows replaced, every other release's kept."""
    measured = {(row.framework, row.version) for row in rows}
    with cache.rewriting(CSV_PATH):  # two verifications at once take turns, so neither loses the other's rows
        kept = [row for row in read() if (row.framework, row.version) not in measured]
        merged = sorted([*kept, *rows], key=lambda row: (row.framework, version_key(row.version), row.scenario))
        files.write_csv(CSV_PATH, [field.name for field in fields(FixRow)], map(asdict, merged))


def affected(framework: str) -> list[str]:
    """Every stable release of ``framework`` from :data:`SINCE`, oldest first, as the committed release list holds
    them (``data/framework_releases.csv``: every release its registry served at the last ``probe-lib sweep --write``),
    the releases the issue asks the fix to be verified on."""
    registry = frameworks.get(framework).registry
    first = release_key(SINCE[framework], registry)
    found = {
        release.version
        for release in timeline.read_releases()
        if release.framework == framework
        and release.prerelease == "no"
        and release_key(release.version, registry) >= first
    }
    return sorted(found, key=lambda version: release_key(version, registry))


def unmeasured(framework: str) -> list[str]:
    """The releases of :func:`affected` that ``data/fix_verification.csv`` holds no row of, oldest first."""
    held = {row.version for row in read() if row.framework == framework}
    return [version for version in affected(framework) if version not in held]


def frame(framework: str) -> pd.DataFrame:
    """The committed rows of ``framework`` (``mastra``, ``llama-index``) as a table."""
    return pd.DataFrame([asdict(row) for row in read() if row.framework == framework])


#: A targeted scenario's cell on a release where its turn was left out of the comparison.
NOT_COMPARED = "not compared"


def targeted_table(table: pd.DataFrame) -> pd.DataFrame:
    """Each targeted scenario (rows) on each release (columns): consistent before, then after (``no -> yes``;
    ``-``: the turn sent no request: the release has no such path, or it fails before sending; :data:`NOT_COMPARED`:
    the turn was left out of the comparison on that release)."""
    aimed = table[table["targeted"] == "yes"]
    cells = aimed.assign(change=aimed["consistent_before"] + " -> " + aimed["consistent_after"])
    order = sorted(set(aimed["version"]), key=version_key)
    return cells.pivot(index="scenario", columns="version", values="change")[order].fillna(NOT_COMPARED)


def per_release(table: pd.DataFrame) -> pd.DataFrame:
    """Per release: how many targeted scenarios were inconsistent before and after the fix, and how many other
    scenarios behaved differently patched (the fix should leave them all alone)."""
    aimed = table["targeted"] == "yes"
    summary = pd.DataFrame(
        {
            "inconsistent unpatched": (aimed & (table["consistent_before"] == "no")).groupby(table["version"]).sum(),
            "inconsistent patched": (aimed & (table["consistent_after"] == "no")).groupby(table["version"]).sum(),
            "other scenarios changed": (~aimed & (table["before"] != table["after"])).groupby(table["version"]).sum(),
            "scenarios": table.groupby("version").size(),
        }
    )
    return summary.loc[sorted(summary.index, key=version_key)]


def main(argv: Sequence[str]) -> int:
    if not argv:
        print("usage: python -m probe_lib.repro.verify [--llama-index] VERSION [VERSION ...]", file=sys.stderr)
        return 2
    framework, versions = ("llama-index", argv[1:]) if argv[0] == "--llama-index" else ("mastra", argv)
    for version in versions:
        try:
            rows = compare_llama_index(version) if framework == "llama-index" else compare(version)
        except patches.PatchDoesNotApply as error:
            print(f"{version}: the fix does not apply ({error})", flush=True)
            continue
        except ProbeError as error:
            print(f"{version}: not measured ({error})", flush=True)
            continue
        write(rows)
        print(verdict(rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
