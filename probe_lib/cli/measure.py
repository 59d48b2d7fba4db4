"""``record``, ``reproduce``, ``run`` and ``export``: measurements written to files, a report, and tidy tables."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from probe_lib.cli.shell import bounded, fail, folder, mastra_version
from probe_lib.core import paths
from probe_lib.core.errors import FolderRefused, InputError, ProbeError
from probe_lib.core.target import baseline
from probe_lib.frameworks import mastra


def cmd_record(args: argparse.Namespace) -> int:
    from probe_lib.core.target import Target
    from probe_lib.frameworks.mastra import mcp
    from probe_lib.measure import collection

    if args.frameworks:
        print(*collection.record(collection.MATRIX) + collection.record(collection.LISTS), sep="\n")
        return 0

    targets = [Target(mastra.ADAPTER.name, version) for version in args.mastra or mastra.ADAPTER.versions()]
    print(*collection.record(collection.CATALOGUE, targets), sep="\n")
    if not args.mastra:
        print(mcp.record())  # every MCP tool set through the real @mastra/mcp client (its own pinned @mastra/core)
    return 0


def add_record(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("record", help="rerun the scenario catalogue live and rewrite data/captures/")
    parser.add_argument(
        "--mastra",
        action="append",
        metavar="VERSION",
        type=mastra_version,
        help="a @mastra/core version (pinned or served), repeatable "
        f"(default the pinned: {', '.join(mastra.ADAPTER.versions())})",
    )
    parser.add_argument(
        "--frameworks",
        action="store_true",
        help="instead, rerun the framework matrix on every registered framework and the Claude Agent SDK's list probes "
        "(data/captures/matrix/, lists/)",
    )
    parser.set_defaults(handler=cmd_record)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from probe_lib.core import folders

    folders.check_replaceable(args.out)  # before the heavy imports: a refusal is instant
    from probe_lib.core.progress import Stages
    from probe_lib.measure import sources
    from probe_lib.report import build as report

    try:
        result = report.reproduce(
            args.out,
            sources.RECORDED if args.recorded else sources.LIVE,
            jobs=args.jobs,
            version=args.mastra,
            stages=Stages(),
            solved=args.solutions,
            force=args.force,
        )
    except KeyboardInterrupt:
        fail("probe-lib reproduce", f"interrupted; {args.out} was left as it was (the new report was discarded)")
        return 130
    except FolderRefused as error:  # its line says what was left where
        fail("probe-lib reproduce", str(error))
        return 2
    except ProbeError as error:  # a missing prerequisite or a failed runner: nothing was replaced
        fail("probe-lib reproduce", f"{error}; {args.out} was left as it was")
        return 2
    except Exception as error:  # a defect of the kit: one line too, and the same promise
        fail("probe-lib reproduce", f"failed ({type(error).__name__}: {error}); {args.out} was left as it was")
        return 1
    print(report.summary(result))
    return 1 if result.failed else 0


def add_reproduce(sub: argparse._SubParsersAction) -> None:

    parser = sub.add_parser(
        "reproduce", help="measure every pinned version, judge every claim, run every notebook, write the report"
    )
    parser.add_argument(
        "--out",
        type=folder,
        default=paths.REPORT,
        help="report folder: new, empty, or an earlier report, which is replaced whole once the new one is complete "
        f"(default {paths.REPORT})",
    )
    parser.add_argument("--recorded", action="store_true", help="use data/captures/ instead of running Node")
    parser.add_argument("--jobs", type=bounded(1, 64), help="notebooks executed at once (default: one per core)")
    parser.add_argument(
        "--mastra",
        default=baseline("mastra").version,
        metavar="VERSION",
        type=mastra_version,
        help="version the finding notebooks show",
    )
    parser.add_argument(
        "--solutions", action="store_true", help="answer every exercise with its solution (a teacher's report)"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="execute every notebook (by default one whose every input is unchanged is kept from the earlier report)",
    )
    parser.set_defaults(handler=cmd_reproduce)


def _run_targets(args: argparse.Namespace) -> list[str]:
    """``--mastra`` versions, ``--framework`` names (every version the kit pins) or ``NAME@VERSION`` (any served
    release), and ``--target`` pairs, as text."""
    from probe_lib import frameworks

    chosen = [f"mastra@{version}" for version in args.mastra or []] + list(args.target or [])
    for framework in args.framework or []:
        if "@" in framework:
            chosen.append(framework)
        elif framework != "mastra" or not args.mastra:  # else its versions are the --mastra ones
            chosen += [f"{framework}@{version}" for version in frameworks.get(framework).versions()]
    return chosen or [f"mastra@{baseline('mastra').version}"]


def _made(target, source: str):
    """How ``run`` obtained its outcomes of ``target``: live here now, or read from a recording (``source``)."""
    from probe_lib.measure.measurement import Made
    from probe_lib.measure.provenance import Provenance

    return Made.now(target) if source == Provenance.LIVE else Made(Provenance.RECORDED)


def cmd_run(args: argparse.Namespace) -> int:
    from probe_lib.core import folders
    from probe_lib.measure import measurement, sources
    from probe_lib.measure.measurement import Measurement
    from probe_lib.tables import api, export

    if not Path(args.file).is_file():
        what = "is a folder" if Path(args.file).is_dir() else "does not exist"
        raise InputError(
            f"{str(args.file)!r} {what}: give a scenario file (.yaml or .json, e.g. data/scenarios/example.yaml)"
        )

    def announce(target, count: int) -> None:
        print(f"probe-lib run: {count} scenario(s) on {target} …", file=sys.stderr, flush=True)

    def study() -> api.Study:
        return api.study(args.file, _run_targets(args), measurements=sources.LIVE, on_target=announce)

    if args.out is not None:
        # Staged before measuring, so a folder the kit may not use is refused at once; the run's files replace an
        # earlier run's as a whole. The folder is the scenario file's collection: one file per target in it.
        with folders.replacing(args.out) as staging:
            result = study()
            by_target: dict = {}
            for outcome, source in zip(result.outcomes, result.sources):
                by_target.setdefault((outcome.target, source), []).append(outcome)
            written = [
                measurement.write(
                    staging / measurement.file_name(target),
                    Measurement(Path(args.file).stem, target, _made(target, source), tuple(outcomes)),
                )
                for (target, source), outcomes in by_target.items()
            ] + export.write_tables(result.frame, staging)
        for path in written:
            print(args.out / path.relative_to(staging))
        return 0
    result = study()
    if args.json:
        print(
            json.dumps(
                [
                    {"scenario": o.scenario.name, "target": str(o.target), "source": source, **o.result_json()}
                    for o, source in zip(result.outcomes, result.sources)
                ],
                ensure_ascii=False,
            )
        )
    else:
        for outcome, source in zip(result.outcomes, result.sources):
            result_json = json.dumps(outcome.result_json(), ensure_ascii=False)
            print(f"{outcome.scenario.name} on {outcome.target} ({source}): {result_json}")
    return 0


def add_run(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="run the scenarios of a scenario file (YAML or JSON) on real targets")
    parser.add_argument(
        "file",
        type=Path,
        help="a scenario file (format: probe_lib/inputs/scenario_files.py; example: data/scenarios/example.yaml)",
    )
    parser.add_argument(
        "--mastra",
        action="append",
        metavar="VERSION",
        help=f"a @mastra/core version (pinned or served, installed on first use), repeatable (pinned: "
        f"{', '.join(mastra.ADAPTER.versions())})",
    )
    parser.add_argument(
        "--framework",
        action="append",
        metavar="NAME",
        help="a framework adapter, at every version the kit pins for it, or NAME@VERSION: any release its registry "
        "serves (installed on first use; `probe-lib versions --framework NAME` lists them); repeatable",
    )
    parser.add_argument(
        "--target",
        action="append",
        metavar="FRAMEWORK@VERSION",
        help="one exact target, pinned or served (installed on first use), repeatable",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json",
        action="store_true",
        help="print one JSON array: scenario, target, source and the names sent (or the error)",
    )
    output.add_argument(
        "--out",
        type=folder,
        metavar="DIR",
        help="write measurement files and the tidy table (CSV, Parquet, dictionary) into DIR: new, empty, or an "
        "earlier run's, which is replaced whole",
    )
    parser.set_defaults(handler=cmd_run)


def cmd_export(args: argparse.Namespace) -> int:
    from probe_lib.tables import export

    result = export.export(args.out)
    print(
        f"{len(result.frame)} outcome rows from {len(result.read)} measurement files; "
        + ", ".join(f"{name}: {len(table)} rows" for name, table in result.tables.items())
        + ":"
    )
    for path in result.written:
        print(path)
    for reason in result.skipped:
        print(f"skipped: {reason}")
    return 0


def add_export(sub: argparse._SubParsersAction) -> None:
    from probe_lib.core import paths

    parser = sub.add_parser(
        "export",
        help="every measured outcome (recordings, swept versions, the MCP corpus) as tidy CSV and Parquet, "
        "with a data dictionary",
    )
    parser.add_argument(
        "--out",
        type=folder,
        default=paths.ROOT / "export",
        help=f"folder: new, empty, or an earlier export, which is replaced whole (default {paths.ROOT / 'export'})",
    )
    parser.set_defaults(handler=cmd_export)
