"""``python -m probe_lib`` (also ``probe-lib``): one subcommand per job, each a thin call into its module.

Exit codes: 0 done, 1 the command found what it looks for (``lint``: a request a provider would refuse),
2 bad input or a missing prerequisite (one line on stderr, nothing half-printed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Sequence

from probe_lib.adapters import mastra
from probe_lib.adapters.mastra.normaliser import normalise
from probe_lib.core.errors import InputError, ProbeError
from probe_lib.core.target import DEFAULT_FRAMEWORK, baseline
from probe_lib.inputs.records import check_record, parse_records

Handler = Callable[[argparse.Namespace], int]


def _read_keys(args: argparse.Namespace) -> tuple[list[list[str]], bool]:
    """Keys from the command line, else a JSON record or batch from stdin."""
    if args.keys:
        check_record(args.keys, "the keys given as arguments")
        return [args.keys], False
    return parse_records(sys.stdin.read())


def _emit(results: list[dict], is_batch: bool) -> None:
    print(json.dumps(results if is_batch else results[0], ensure_ascii=False))


def _print_rows(result) -> None:
    """A readable table of one record: key, wire name, rules that fired, positions."""
    header = f"{'before':>6} {'after':>5}  {'rules':<9} {'key':<32} wire name"
    print(header)
    for row in result.rows:
        rules = "".join(flag for flag, on in zip("SPT", (row.substituted, row.prefixed, row.truncated)) if on) or "-"
        after = "" if row.position_after is None else row.position_after
        print(f"{row.position_before:>6} {after:>5}  {rules:<9} {json.dumps(row.key, ensure_ascii=False):<32} {row.name}")
    if result.error is not None:
        print(f"error: {json.dumps(result.error.to_json(), ensure_ascii=False)}")
    print("rules: S substituted, P prefixed with _, T truncated to 63")


def cmd_normalise(args: argparse.Namespace) -> int:
    records, is_batch = _read_keys(args)
    results = [normalise(keys) for keys in records]
    if args.json:
        _emit([result.to_json() for result in results], is_batch)
    else:
        for number, result in enumerate(results):
            if is_batch:
                print(f"# record {number}")
            _print_rows(result)
    return 0


def _add_normalise(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("normalise", help="what the Python model of formatTools makes of tool keys")
    parser.add_argument("keys", nargs="*", help="keys of one tools record, in registration order (else JSON on stdin)")
    parser.add_argument("--json", action="store_true", help="print result objects as JSON")
    parser.set_defaults(handler=cmd_normalise)


def cmd_lint(args: argparse.Namespace) -> int:
    from probe_lib import adapters
    from probe_lib.providers.lint import lint_file

    name_rule = None if args.framework == "none" else adapters.get(args.framework).name_rule
    report = lint_file(args.file, args.provider, args.variant, name_rule)
    print(json.dumps(report.to_json(), ensure_ascii=False) if args.json else report.to_text())
    return 1 if report.failed else 0


def _add_lint(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("lint", help="find tool names a provider would refuse and forced tools missing from tools")
    parser.add_argument("file", help="a request body, a JSON array of them, capture JSON lines or a HAR export")
    parser.add_argument("--provider", default="openai", help="provider rule to check (default openai; see data/provider_rules.csv)")
    parser.add_argument("--variant", help="rule variant such as documented or observed (default: documented)")
    parser.add_argument("--framework", default=DEFAULT_FRAMEWORK,
                        help=f"whose renaming to suggest fixes from (default {DEFAULT_FRAMEWORK}; 'none' for no suggestions)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=cmd_lint)


def cmd_setup(args: argparse.Namespace) -> int:
    from probe_lib.core import paths
    from probe_lib.present import browser

    for version in mastra.ADAPTER.versions():
        mastra.ADAPTER.install(version)
    print(f"@mastra/core {', '.join(mastra.ADAPTER.versions())} installed in {paths.CACHE / 'node'}")
    if args.with_browser:
        print(f"browser for the report tests: {browser.install_browser()}")
    return 0


def _add_setup(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("setup", help="install the pinned @mastra/core versions (npm ci into a cache)")
    parser.add_argument("--verbose", action="store_true", help="show npm's output")
    parser.add_argument("--with-browser", action="store_true", help="also install Debian's Chromium (tests load the report in it)")
    parser.set_defaults(handler=cmd_setup)


def cmd_probe(args: argparse.Namespace) -> int:
    from probe_lib.core import scenarios

    records, is_batch = _read_keys(args)
    tool_choice = scenarios.named(args.tool_choice) if args.tool_choice is not None else None
    batch = [scenarios.for_keys(f"probe-{number}", keys, tool_choice) for number, keys in enumerate(records)]
    outcomes = mastra.run(batch, args.mastra, workers=args.workers)
    if args.json:
        _emit([outcome.result_json() for outcome in outcomes], is_batch)
    else:
        for number, outcome in enumerate(outcomes):
            print(f"# record {number} on @mastra/core {outcome.version}")
            print(json.dumps(outcome.result_json(), ensure_ascii=False, indent=2))
    return 0


def _add_probe(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("probe", help="what the real @mastra/core sends for tool keys (one generate() turn each)")
    parser.add_argument("keys", nargs="*", help="keys of one tools record, in registration order (else JSON on stdin)")
    parser.add_argument("--mastra", default=baseline("mastra").version, metavar="VERSION",
                        help=f"pinned @mastra/core version ({', '.join(mastra.ADAPTER.versions())})")
    parser.add_argument("--tool-choice", metavar="NAME", help="force a tool by this name (toolChoice {type:'tool'})")
    parser.add_argument("--workers", type=int, default=2, help="Node processes sharing the batch (default 2)")
    parser.add_argument("--json", action="store_true", help="print result objects as JSON")
    parser.set_defaults(handler=cmd_probe)


def _read_replies(path: str) -> list:
    """The reply forms of a ``--replies`` file, checked; every fault is an ``InputError`` naming the file."""
    from probe_lib.wire.replies import replies_from_json

    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except OSError as error:
        raise InputError(f"cannot read --replies {path}: {error.strerror}") from None
    except ValueError as error:
        raise InputError(f"--replies {path} is not JSON ({error})") from None
    try:
        return replies_from_json(data)
    except InputError as error:
        raise InputError(f"--replies {path}: {error}") from None


def cmd_capture(args: argparse.Namespace) -> int:
    import signal

    from probe_lib.capture import Capture, CaptureServer

    replies = _read_replies(args.replies) if args.replies else []
    try:
        out = open(args.out, "a", encoding="utf-8") if args.out else sys.stdout
    except OSError as error:
        raise InputError(f"cannot open --out {args.out}: {error.strerror}") from None

    def write(record: Capture) -> None:
        out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        out.flush()

    stops = {signal.SIGINT, signal.SIGTERM}
    # Blocked before the server thread starts, which inherits the mask, so only sigwait below receives them.
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    server = CaptureServer(port=args.port, on_record=write)
    try:
        try:
            server.start()
        except OSError as error:
            raise InputError(f"cannot listen on port {args.port}: {error.strerror}; choose another --port") from None
        server.script("default", replies)
        base = server.base_url
        print(f"probe-lib capture: listening on {base}; give Mastra url {base}/v1 "
              f"(or {base}/s/<scenario>/v1); Ctrl-C stops", file=sys.stderr, flush=True)
        signal.sigwait(stops)
    finally:
        server.close()
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if out is not sys.stdout:
            out.close()
    return 0


def _add_capture(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("capture", help="serve a recording OpenAI-compatible endpoint on loopback until Ctrl-C")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default 0: any free port)")
    parser.add_argument("--replies", metavar="FILE", help="JSON array of replies for scenario default, in order")
    parser.add_argument("--out", metavar="FILE", help="append each record as a JSON line (default stdout)")
    parser.set_defaults(handler=cmd_capture)


def cmd_record(args: argparse.Namespace) -> int:
    from probe_lib.study import recordings

    versions = [mastra.ADAPTER.check_version(version) for version in args.mastra or mastra.ADAPTER.versions()]
    for path in recordings.record(versions):
        print(path)
    return 0


def _add_record(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("record", help="rerun the scenario catalogue live and rewrite data/captures/")
    parser.add_argument("--mastra", action="append", metavar="VERSION",
                        help=f"a pinned @mastra/core version, repeatable (default all: {', '.join(mastra.ADAPTER.versions())})")
    parser.set_defaults(handler=cmd_record)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from probe_lib.present import report

    mastra.ADAPTER.check_version(args.mastra)
    result = report.reproduce(args.out, live=not args.recorded, jobs=args.jobs, version=args.mastra)
    print(report.summary(result))
    return 1 if result.failed else 0


def _add_reproduce(sub: argparse._SubParsersAction) -> None:
    from probe_lib.core import paths

    parser = sub.add_parser("reproduce", help="measure every pinned version, judge every claim, run every notebook, write the report")
    parser.add_argument("--out", type=Path, default=paths.REPORT, help=f"report folder: new, empty, or an earlier report, which is replaced (default {paths.REPORT})")
    parser.add_argument("--recorded", action="store_true", help="use data/captures/ instead of running Node")
    parser.add_argument("--jobs", type=int, help="notebooks executed at once (default: one per core)")
    parser.add_argument("--mastra", default=baseline("mastra").version, metavar="VERSION", help="version the finding notebooks show")
    parser.set_defaults(handler=cmd_reproduce)


def _run_targets(args: argparse.Namespace) -> list[str]:
    """``--mastra`` versions, ``--framework`` names (every version the kit pins) and ``--target`` pairs, as text."""
    from probe_lib import adapters

    chosen = [f"mastra@{version}" for version in args.mastra or []] + list(args.target or [])
    for framework in args.framework or []:
        if framework == "mastra" and args.mastra:
            continue  # its versions are the --mastra ones
        chosen += [f"{framework}@{version}" for version in adapters.get(framework).versions()]
    return chosen or [f"mastra@{baseline('mastra').version}"]


def cmd_run(args: argparse.Namespace) -> int:
    from probe_lib.study import api, export, measurement_files

    if args.out is not None:
        export.check_folder(args.out, also_ours=measurement_files.is_written_by_run)
    def announce(target, count: int) -> None:
        print(f"probe-lib run: {count} scenario(s) on {target} …", file=sys.stderr, flush=True)

    result = api.study(args.file, _run_targets(args), measurements="live", on_target=announce)
    if args.out is not None:
        by_target: dict = {}
        for outcome, source in zip(result.outcomes, result.sources):
            by_target.setdefault((outcome.target, source), []).append(outcome)
        written = [measurement_files.write(args.out, target, outcomes, source) for (target, source), outcomes in by_target.items()]
        for path in written + export.write_tables(result.frame, args.out):
            print(path)
    elif args.json:
        print(json.dumps([{"scenario": o.scenario.name, "target": str(o.target), "source": source, **o.result_json()}
                          for o, source in zip(result.outcomes, result.sources)], ensure_ascii=False))
    else:
        for outcome, source in zip(result.outcomes, result.sources):
            print(f"{outcome.scenario.name} on {outcome.target} ({source}): {json.dumps(outcome.result_json(), ensure_ascii=False)}")
    return 0


def _add_run(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="run the scenarios of a scenario file (YAML or JSON) on real targets")
    parser.add_argument("file", type=Path, help="a scenario file (format: probe_lib/inputs/scenario_files.py; example: data/scenarios/example.yaml)")
    parser.add_argument("--mastra", action="append", metavar="VERSION", help=f"a pinned @mastra/core version, repeatable ({', '.join(mastra.ADAPTER.versions())})")
    parser.add_argument("--framework", action="append", metavar="NAME", help="a framework adapter, at every version the kit pins for it; repeatable")
    parser.add_argument("--target", action="append", metavar="FRAMEWORK@VERSION", help="one exact target, repeatable")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON array: scenario, target, source and the names sent (or the error)")
    output.add_argument("--out", type=Path, metavar="DIR", help="write measurement files and the tidy table (CSV, Parquet, dictionary) into DIR")
    parser.set_defaults(handler=cmd_run)


def cmd_export(args: argparse.Namespace) -> int:
    from probe_lib.study import export

    result = export.export(args.out)
    print(f"{len(result.frame)} rows from {len(result.read)} measurement files:")
    for path in result.written:
        print(path)
    for reason in result.skipped:
        print(f"skipped: {reason}")
    return 0


def _add_export(sub: argparse._SubParsersAction) -> None:
    from probe_lib.core import paths

    parser = sub.add_parser("export", help="every measured outcome under data/captures/ as tidy CSV and Parquet, with a data dictionary")
    parser.add_argument("--out", type=Path, default=paths.ROOT / "export", help=f"folder: new, empty, or an earlier export (default {paths.ROOT / 'export'})")
    parser.set_defaults(handler=cmd_export)


#: Each adds one subcommand; keep one entry per concern.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_setup, _add_reproduce, _add_normalise, _add_probe, _add_capture, _add_record, _add_lint, _add_run, _add_export]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="probe-lib", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except ProbeError as error:
        print(f"probe-lib {args.handler.__name__.removeprefix('cmd_')}: {error}", file=sys.stderr)
        return 2
