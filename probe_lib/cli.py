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
                        help=f"@mastra/core version: pinned ({', '.join(mastra.ADAPTER.versions())}) or any served "
                             "one, installed on first use (`probe-lib versions` lists them)")
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
                        help=f"a @mastra/core version (pinned or served), repeatable (default the pinned: {', '.join(mastra.ADAPTER.versions())})")
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
    parser.add_argument("--mastra", default=baseline("mastra").version, metavar="VERSION", help="version the finding notebooks show (pinned or any served one)")
    parser.set_defaults(handler=cmd_reproduce)


def cmd_versions(args: argparse.Namespace) -> int:
    from probe_lib.adapters.mastra import versions

    pinned = set(versions.pinned())
    for version in versions.served(refresh=args.refresh):
        if args.prereleases or versions.is_stable(version):
            marks = [mark for mark, on in (("pinned", version in pinned), ("installed", versions.is_installed(version))) if on]
            print(version + (f"  ({', '.join(marks)})" if marks else ""))
    return 0


def _add_versions(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("versions", help="the @mastra/core versions the npm registry serves (any can be probed)")
    parser.add_argument("--prereleases", action="store_true", help="list prereleases too")
    parser.add_argument("--refresh", action="store_true", help="ask the registry again instead of the cached list")
    parser.set_defaults(handler=cmd_versions)


def _add_range(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prereleases", action="store_true", help="include prereleases (default: stable versions only)")
    parser.add_argument("--since", metavar="VERSION", help="first version to include")
    parser.add_argument("--until", metavar="VERSION", help="last version to include")


def cmd_sweep(args: argparse.Namespace) -> int:
    from probe_lib.study import sweep

    chosen = args.mastra or sweep.selected(prereleases=args.prereleases, since=args.since, until=args.until)
    rows = sweep.sweep(chosen, retry_failed=args.retry_failed, progress=lambda line: print(line, file=sys.stderr, flush=True))
    failed = [r.version for r in rows if r.scenario == sweep.WHOLE_VERSION]
    print(f"{len({r.version for r in rows})} versions, {len(rows)} rows; could not run: {', '.join(failed) or 'none'}")
    if args.write_summary:
        print(sweep.write_summary(sweep.all_cached()))
    return 0


def _add_sweep(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sweep", help="the scenario catalogue on every served @mastra/core version (cached per version)")
    parser.add_argument("--mastra", action="append", metavar="VERSION", help="only this version, repeatable")
    _add_range(parser)
    parser.add_argument("--retry-failed", action="store_true", help="measure again versions that failed to install or run")
    parser.add_argument("--write-summary", action="store_true",
                        help="write data/version_timeline.csv from every version measured so far")
    parser.set_defaults(handler=cmd_sweep)


def cmd_bisect(args: argparse.Namespace) -> int:
    from probe_lib.study import bisect, sweep

    chosen = sweep.selected(prereleases=args.prereleases, since=args.since, until=args.until)
    boundary = bisect.bisect(args.scenario, chosen, progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(boundary.to_text())
    return 0


def _add_bisect(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bisect", help="the first served version where one scenario's behaviour changed")
    parser.add_argument("scenario", help="a scenario of the catalogue (probe_lib/adapters/mastra/catalogue.py)")
    _add_range(parser)
    parser.set_defaults(handler=cmd_bisect)


#: Each adds one subcommand; keep one entry per concern.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_setup, _add_reproduce, _add_normalise, _add_probe, _add_capture, _add_record, _add_lint,
                                                                    _add_versions, _add_sweep, _add_bisect]


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
