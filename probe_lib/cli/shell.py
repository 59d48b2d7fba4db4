"""The command line's shell: stdio, exit codes and error lines, shared by every subcommand.

Exit codes: 0 done, 1 the command found what it looks for (``lint``: a request a provider would refuse) or a
run failed (one line saying why and what was kept; also when stdout refused what was printed, a full disk), 2 bad
input or a missing prerequisite (one line on stderr, nothing half-printed; also a closed stdin or stdout), 130
interrupted by Ctrl-C, SIGTERM or SIGHUP (each ends the command's children and its partial files as Ctrl-C
does).
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from probe_lib.core import json_input
from probe_lib.core.errors import ProbeError
from probe_lib.frameworks import mastra

Handler = Callable[[argparse.Namespace], int]

#: An error line longer than this is cut: the message must name the fault, not echo the input.
MESSAGE_CHARS = 400


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``probe-lib: ...``, exit 2) instead of the usage block, and a
    flag must be spelled whole (``setup --verb`` is an error, not ``--verbose``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})

    def error(self, message: str) -> NoReturn:
        fail(self.prog, f"{message} (see {self.prog} --help)")
        raise SystemExit(2)


def fail(prog: str, message: str) -> None:
    """Print one error line on stderr, cut to ``MESSAGE_CHARS``."""
    line = " ".join(message.split())
    if len(line) > MESSAGE_CHARS:
        line = line[:MESSAGE_CHARS] + "..."
    print(f"{prog}: {line}", file=sys.stderr, flush=True)


def bounded(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{json_input.quote(text)} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range; give {low} to {high}")
        return value

    return parse


def utf8_text(text: str) -> str:
    """An argparse type: an argument that was UTF-8 on the command line, as stdin must be. Python hands bytes that
    are not UTF-8 over as surrogates U+DC80..U+DCFF; a key made of them would go out silently rewritten."""
    if any("\udc80" <= char <= "\udcff" for char in text):
        raise argparse.ArgumentTypeError(f"{json_input.quote(text)} is not UTF-8 text")
    return text


def folder(text: str) -> Path:
    """An argparse type: a folder's path, not empty (``--out ''`` would write into the working folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give a folder")
    return Path(text)


def mastra_version(text: str) -> str:
    """An argparse type: a ``@mastra/core`` version the kit pins or the registry serves, checked before any work
    starts."""
    try:
        return mastra.ADAPTER.check_version(text)
    except ProbeError as error:  # its repr of the version shows a stray space; _fail cuts a megabyte
        raise argparse.ArgumentTypeError(str(error)) from None


class OutputLost(ProbeError):
    """stdout refused what the command printed (a full disk, a device that takes nothing)."""


class _Stdout(io.RawIOBase):
    """Descriptor 1 as a raw stream whose write errors are :class:`OutputLost`, told apart from the kit's own file
    errors; a reader that went away stays ``BrokenPipeError``."""

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 1

    def write(self, data: bytes) -> int:
        try:
            return os.write(1, data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputLost(f"cannot write to stdout: {error.strerror}") from None


def open_standard_streams() -> None:
    """Give a descriptor of 0, 1, 2 that the process started without (`0<&-`, `>&-`) to /dev/null, so no file the
    kit opens, and no runner it starts, takes its place; stdin and stdout stay ``None`` and each command that reads
    or prints says so. A closed stderr (`2>&-`) discards the error lines (``print`` to a ``None`` stderr would put
    them on stdout, among the command's output). A stdout on a real descriptor gets :class:`_Stdout` below it."""
    for number, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        if stream is None:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one, as those below are taken
            if null != number:
                os.dup2(null, number)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False)  # the process's own stderr, open until it exits
    if sys.stdout is sys.__stdout__ and isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.flush()
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(_Stdout()), encoding=sys.stdout.encoding, line_buffering=sys.stdout.line_buffering
        )
    # Lone surrogates are legal in JSON strings and reach the output as they came in; printed as \uXXXX escapes
    # they stay valid JSON (and readable in tables) instead of ending the run with UnicodeEncodeError.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")


def _lost(prog: str, error: OutputLost) -> int:
    """What was printed is lost: one line, and exit 1 as a failed run."""
    fail(prog, str(error))
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush finds a sink
    return 1


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its subcommand's handler: every ``ProbeError`` one line and exit 2, a lost stdout or a
    file the machine refused one line and exit 1, a warning one line, Ctrl-C 130, a reader that went away 141."""
    try:
        args, extras = parser.parse_known_args(argv)
    except SystemExit as exit:  # --help printed (a usage error was told on stderr)
        if exit.code or sys.stdout is None:
            raise
        try:
            sys.stdout.flush()
        except OutputLost as error:
            return _lost("probe-lib", error)
        raise
    handler: Handler = args.handler
    prog = f"probe-lib {handler.__name__.removeprefix('cmd_')}"
    if extras:  # the subcommand's own help, which lists what it takes
        fail(prog, f"unrecognized arguments: {' '.join(extras)} (see {prog} --help)")
        return 2
    if sys.stdout is None:
        fail(prog, "stdout is closed; give it a file, or /dev/null to discard what the command prints")
        return 2
    try:
        with warnings.catch_warnings(), _stopping_as_ctrl_c():
            warnings.showwarning = _warning_line(prog)
            code = handler(args)
        sys.stdout.flush()  # a full stdout fails here, not at exit
        return code
    except OutputLost as error:
        return _lost(prog, error)
    except ProbeError as error:
        fail(prog, str(error))
        return 2
    except KeyboardInterrupt:
        fail(prog, "interrupted")
        return 130
    except BrokenPipeError:  # the reader went away (`probe-lib export | head`): stop quietly, as `cat` does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush finds no pipe
        return 141
    except OSError as error:  # the machine refused a file the kit writes or reads (a full disk, a file size limit)
        where = f": {error.filename}" if error.filename else ""
        fail(prog, f"{error.strerror or error}{where}; files the kit was writing were removed, earlier ones kept")
        return 1


#: Signals that ask a command to stop as Ctrl-C does: ``kill``'s default, and a closed terminal.
STOPPING = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def _stopping_as_ctrl_c() -> Iterator[None]:
    """Raise ``KeyboardInterrupt`` on :data:`STOPPING` too, so every path that ends a command's children and removes
    its partial files on Ctrl-C (notebook workers and their kernels, runners, staging folders) runs for them as well,
    instead of the process dying at once and leaving those behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    owner = os.getpid()

    def interrupt(number: int, frame: object) -> None:
        if os.getpid() != owner:  # a forked worker inherited the handler: it ends of the signal, as it would have
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
            return
        raise KeyboardInterrupt(signal.Signals(number).name)

    previous = {number: signal.signal(number, interrupt) for number in STOPPING}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _warning_line(prog: str) -> Callable[..., None]:
    """``warnings.showwarning`` for a command: one line on stderr, as its errors are, without Python's source line."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        fail(prog, f"warning: {message}")

    return show
