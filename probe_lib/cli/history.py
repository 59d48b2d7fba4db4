"""``sweep`` and ``bisect``: a framework's behaviour across its served releases."""

from __future__ import annotations

import argparse
import json


def _add_range(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--framework",
        default="mastra",
        metavar="NAME",
        help="the framework whose releases to measure (default: mastra; any of the matrix's, as `probe --framework`)",
    )
    parser.add_argument(
        "--prereleases", action="store_true", help="include prereleases (default: stable versions only)"
    )
    parser.add_argument("--since", metavar="VERSION", help="first version to include")
    parser.add_argument("--until", metavar="VERSION", help="last version to include")


def cmd_sweep(args: argparse.Namespace) -> int:
    from probe_lib.core.progress import Stages
    from probe_lib.history import framework_sweep, release_map, sweep, timeline

    subject = framework_sweep.subject(args.framework)
    if args.version:
        chosen = [subject.check(version) for version in args.version]
    else:
        chosen = sweep.selected(prereleases=args.prereleases, since=args.since, until=args.until, subject=subject)
    every = args.every or bool(args.version)
    mapped = release_map.map_releases(subject, chosen, every=every, retry_failed=args.retry_failed, stages=Stages())
    print(mapped.to_text())
    if args.write:
        partial = bool(args.version or args.since or args.until)  # a sample of part of the range is no sample of it
        print(*timeline.write(mapped, subject, roles_kept=partial), sep="\n")
    return 0


def add_sweep(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "sweep",
        help="a framework's served releases: the newest of each minor series measured, each change bisected "
        "(Mastra: its scenario catalogue; the others: the matrix's probes); cached per release",
    )
    _add_range(parser)
    parser.add_argument("--version", action="append", metavar="VERSION", help="only this release, repeatable")
    parser.add_argument(
        "--every", action="store_true", help="measure every release in the range instead of sampling each series"
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="measure again versions that failed to install or run, or crashed on a scenario",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the releases this run measured into the committed timeline (data/timeline.csv and "
        "data/framework_releases.csv), keeping every other release's",
    )
    parser.set_defaults(handler=cmd_sweep)


def cmd_bisect(args: argparse.Namespace) -> int:
    from probe_lib.core.progress import Stages
    from probe_lib.history import bisect, framework_sweep, sweep

    subject, scenario = framework_sweep.for_bisect(args.framework, args.scenario)
    chosen = sweep.selected(prereleases=args.prereleases, since=args.since, until=args.until, subject=subject)
    boundary = bisect.bisect(scenario, chosen, subject=subject, stages=Stages())
    print(json.dumps(boundary.to_json(), ensure_ascii=False) if args.json else boundary.to_text())
    return 0


def add_bisect(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bisect", help="the first served release where one scenario's behaviour changed")
    parser.add_argument(
        "scenario",
        help="a scenario of the catalogue for Mastra (probe_lib/frameworks/mastra/catalogue.yaml), a matrix probe "
        "for the other frameworks (legal, dot, legal+forced, dot+round-trip ...), or a scenario file (.yaml/.json: "
        "its scenarios together)",
    )
    _add_range(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object: last_before, first_with, both behaviours")
    parser.set_defaults(handler=cmd_bisect)
