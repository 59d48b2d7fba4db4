"""``normalise`` and ``probe``: one tools record (or a batch of them) through the Python model or a real framework."""

from __future__ import annotations

import argparse
import json
import sys

from probe_lib.cli.shell import bounded, fail, mastra_version, utf8_text
from probe_lib.core import json_input
from probe_lib.core.errors import InputError
from probe_lib.core.target import DEFAULT_FRAMEWORK, baseline
from probe_lib.frameworks import mastra
from probe_lib.frameworks.mastra.normaliser import normalise
from probe_lib.inputs.records import check_record, parse_records

#: How to give ``normalise`` and ``probe`` their keys, for an error about stdin.
KEYS_HELP = "give the keys as arguments, or a JSON array of them on stdin"


def _read_keys(args: argparse.Namespace) -> tuple[list[list[str]], bool]:
    """Keys from the command line, else a JSON record or batch from stdin."""
    if args.keys:
        check_record(args.keys, "the keys given as arguments")
        return [args.keys], False
    if sys.stdin is None:  # started with its descriptor closed (`0<&-`)
        raise InputError(f"stdin is closed; {KEYS_HELP}")
    try:
        data = sys.stdin.buffer.read()
    except OSError as error:  # a folder given as stdin, a descriptor opened write-only
        raise InputError(f"cannot read stdin: {error.strerror}; {KEYS_HELP}") from None
    if not data.strip():
        raise InputError(f"stdin is empty; {KEYS_HELP}")
    return parse_records(json_input.read_text(data, "stdin"))


def _print_rows(result) -> None:
    """A readable table of one record: key, wire name, rules that fired, positions."""
    header = f"{'before':>6} {'after':>5}  {'rules':<9} {'key':<32} wire name"
    print(header)
    for row in result.rows:
        rules = "".join(flag for flag, on in zip("SPT", (row.substituted, row.prefixed, row.truncated)) if on) or "-"
        after = "" if row.position_after is None else row.position_after
        key = json.dumps(row.key, ensure_ascii=False).encode("utf-8", "backslashreplace").decode("utf-8")
        print(f"{row.position_before:>6} {after:>5}  {rules:<9} {key:<32} {row.name}")
    if result.error is not None:
        print(f"error: {json.dumps(result.error.to_json(), ensure_ascii=False)}")
    print("rules: S substituted, P prefixed with _, T truncated to 63")


def cmd_normalise(args: argparse.Namespace) -> int:
    records, is_batch = _read_keys(args)
    results = [normalise(keys) for keys in records]
    if args.json:
        shown = [result.to_json() for result in results]
        print(json.dumps(shown if is_batch else shown[0], ensure_ascii=False))
    else:
        for number, result in enumerate(results):
            if is_batch:
                print(f"# record {number}")
            _print_rows(result)
    return 0


def add_normalise(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("normalise", help="what the Python model of formatTools makes of tool keys")
    parser.add_argument(
        "keys", nargs="*", type=utf8_text, help="keys of one tools record, in registration order (else JSON on stdin)"
    )
    parser.add_argument("--json", action="store_true", help="print result objects as JSON")
    parser.set_defaults(handler=cmd_normalise)


#: What ``probe`` prints for a record whose runner died before it finished (the batch exits 1).
NOT_RUN = {"error": {"kind": "not-run", "message": "the runner stopped before this record finished; rerun it"}}


def _probe_target(args: argparse.Namespace):
    """The framework and version ``probe`` runs: ``--mastra V`` keeps meaning mastra at V."""
    from probe_lib import frameworks

    if args.mastra is not None:
        if args.framework not in (None, DEFAULT_FRAMEWORK) or args.version is not None:
            raise InputError("--mastra VERSION names mastra's version; use --framework NAME --version V for others")
        return frameworks.get(DEFAULT_FRAMEWORK), args.mastra
    adapter = frameworks.get(args.framework or DEFAULT_FRAMEWORK)
    if args.version is not None:
        return adapter, args.version
    if adapter.name == DEFAULT_FRAMEWORK:
        return adapter, baseline(DEFAULT_FRAMEWORK).version
    return adapter, adapter.versions()[-1]


class _ResultsOut:
    """Prints ``probe``'s results one by one as they finish, exactly as printing them all at once would (a JSON
    batch is one array on one line), so a long batch never holds its results in memory."""

    def __init__(self, as_json: bool, label: str) -> None:
        self.as_json, self.label, self.printed = as_json, label, 0

    def add(self, result: dict) -> None:
        if self.as_json:
            sys.stdout.write(("[" if not self.printed else ", ") + json.dumps(result, ensure_ascii=False))
        else:
            print(f"# record {self.printed} on {self.label}")
            print(json.dumps(result, ensure_ascii=False, indent=2))
        self.printed += 1

    def close(self) -> None:
        if self.as_json:
            sys.stdout.write(("[" if not self.printed else "") + "]\n")
        sys.stdout.flush()


def cmd_probe(args: argparse.Namespace) -> int:
    from probe_lib.capture import CaptureServer
    from probe_lib.core import scenarios

    records, is_batch = _read_keys(args)
    adapter, version = _probe_target(args)
    adapter.check_version(version)
    tool_choice = scenarios.named(args.tool_choice) if args.tool_choice is not None else None
    batch = scenarios.KeySets(records, tool_choice)
    out, single, broken = _ResultsOut(args.json, f"{adapter.name}@{version}"), None, None
    try:
        with CaptureServer(max_body_bytes=args.max_body_mb * 2**20) as server:
            outcomes = adapter.stream(
                batch, version, server=server, workers=args.workers, node_heap_mib=args.node_heap_mb
            )
            for outcome in outcomes:  # printed as the adapter yields each, so memory can stay bounded
                result = NOT_RUN if outcome is None else outcome.result_json()
                if is_batch:
                    out.add(result)
                else:
                    single = result
    except mastra.BatchIncomplete as error:  # keep what finished; the rest is marked, the exit code says so
        broken = error
    except mastra.BodyTooLarge as error:  # the kit's limit, met mid-batch: what finished before is kept
        if not out.printed:
            raise
        broken = error
    if is_batch:
        for _ in range(out.printed, len(batch)):
            out.add(NOT_RUN)
        out.close()
    elif broken is None and args.json:
        print(json.dumps(single, ensure_ascii=False))
    elif broken is None:
        out.add(single)
    if broken is not None:
        partial = '; the results printed are PARTIAL: records marked "not-run" did not finish' if is_batch else ""
        fail("probe-lib probe", f"{broken}{partial}")
        return 1
    return 0


def add_probe(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("probe", help="what a real framework sends for tool keys (one turn each)")
    parser.add_argument(
        "keys", nargs="*", type=utf8_text, help="keys of one tools record, in registration order (else JSON on stdin)"
    )
    parser.add_argument(
        "--framework",
        metavar="NAME",
        help=f"framework adapter (default {DEFAULT_FRAMEWORK}; `probe-lib setup --framework NAME` installs one)",
    )
    parser.add_argument(
        "--version",
        metavar="V",
        help="its version: pinned, or any its registry serves that its runner supports, installed on first use "
        "(`probe-lib versions --framework NAME` lists them; default: mastra's article version, else the newest pin)",
    )
    parser.add_argument(
        "--mastra",
        metavar="VERSION",
        type=mastra_version,
        help=f"shorthand for --framework mastra --version VERSION: pinned ({', '.join(mastra.ADAPTER.versions())}) "
        "or any served one, installed on first use (`probe-lib versions` lists them)",
    )
    parser.add_argument(
        "--tool-choice", metavar="NAME", type=utf8_text, help="force the tool registered under this key"
    )
    parser.add_argument(
        "--workers", type=bounded(1, 64), default=2, help="runner processes sharing the batch (mastra; default 2)"
    )
    parser.add_argument(
        "--max-body-mb",
        type=bounded(1, 4096),
        default=8,
        metavar="MIB",
        help="largest request body the kit's capture server records (default 8; ~30,000 keys need 9)",
    )
    parser.add_argument(
        "--node-heap-mb",
        type=bounded(64, 65536),
        metavar="MIB",
        help=f"Node heap cap of each mastra runner (default {mastra.runner.NODE_HEAP_MIB}, plus "
        f"{mastra.runner.NODE_HEAP_KIB_PER_TOOL} KiB per tool of the largest set)",
    )
    parser.add_argument("--json", action="store_true", help="print result objects as JSON")
    parser.set_defaults(handler=cmd_probe)
