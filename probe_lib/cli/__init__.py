"""``python -m probe_lib`` (also ``probe-lib``): one subcommand per job, each a thin call into its module.

The package is argparse, kept rather than typer: every subcommand's flags, help and one-line errors are argparse's
behaviour that the tests and the README hold the kit to, the ``Parser`` of ``shell`` needs only one override to make
a usage error one line, and argparse adds no dependency. ``shell`` holds what every subcommand shares (stdio, exit
codes, error lines, argument types); each other module holds the subcommands of one concern, and ``SUBCOMMANDS``
below lists them in the order ``--help`` shows them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from probe_lib.cli import capture, docs, history, install, keys, measure, providers, repro, shell

#: Each adds one subcommand; keep one entry per concern.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    install.add_setup,
    measure.add_reproduce,
    keys.add_normalise,
    keys.add_probe,
    capture.add_capture,
    measure.add_record,
    providers.add_lint,
    providers.add_providers,
    measure.add_run,
    measure.add_export,
    install.add_versions,
    install.add_cache,
    history.add_sweep,
    history.add_bisect,
    repro.add_repro,
    docs.add_docs,
]


def build_parser() -> argparse.ArgumentParser:
    parser = shell.Parser(prog="probe-lib", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    shell.open_standard_streams()
    return shell.run(build_parser(), argv)
