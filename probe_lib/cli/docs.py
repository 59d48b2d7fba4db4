"""``docs``: the README's and docs/' tables of measured behaviour, filled from the data."""

from __future__ import annotations

import argparse

from probe_lib.core import paths


def cmd_docs(args: argparse.Namespace) -> int:
    """Fill the generated tables of the README and docs/ from the data; with ``--check``, only name the stale."""
    from probe_lib.present import docs

    documents = docs.documents()
    if args.check:
        stale = docs.stale(documents)
        for path in stale:
            print(f"{path.relative_to(paths.ROOT)}: its generated tables differ from the data; run `probe-lib docs`")
        return 1 if stale else 0
    for path in docs.write(documents):
        print(f"wrote {path.relative_to(paths.ROOT)}")
    return 0


def add_docs(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("docs", help="fill the README's and docs/' tables of measured behaviour from the data")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale file")
    parser.set_defaults(handler=cmd_docs)
