"""``repro``: a standalone reproduction of one finding on one release, and the fix verified on it."""

from __future__ import annotations

import argparse

from probe_lib.cli import shell


def cmd_repro(args: argparse.Namespace) -> int:
    """Write and run a standalone reproduction of one claim on one release; its exit code is the script's."""
    from probe_lib.repro import folder

    result = folder.write(args.claim, args.version, args.out, fixed=args.fixed)
    print(f"{result.line}\n(folder: {result.folder}; report for the tracker: {result.folder / 'ISSUE.md'})")
    return result.code


def add_repro(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("repro", help="a folder that reproduces one finding on one release without probe_lib")
    parser.add_argument("claim", metavar="CLAIM", help="a ledger claim about one release's wire (A10, F09, T07 ...)")
    parser.add_argument("--version", required=True, help="a served release of the claim's framework")
    parser.add_argument(
        "--out", type=shell.folder, help="a new or empty folder (default repro/CLAIM-framework-VERSION/)"
    )
    parser.add_argument(
        "--fixed",
        action="store_true",
        help="run it again with the kit's fix applied; print that run's verdict (ISSUE.md holds both)",
    )
    parser.set_defaults(handler=cmd_repro)
