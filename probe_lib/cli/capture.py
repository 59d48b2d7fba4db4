"""``capture``: the capture server on its own, until Ctrl-C, for a user's own app."""

from __future__ import annotations

import argparse
import sys

from probe_lib.cli.shell import bounded, fail
from probe_lib.core import json_input
from probe_lib.core.errors import InputError


def _read_replies(path: str) -> list:
    """The reply forms of a ``--replies`` file, checked; every fault is an ``InputError`` naming the file."""
    from probe_lib.wire.replies import replies_from_json

    try:
        with open(path, "rb") as file:
            data = json_input.loads(file.read(), f"--replies {path}")
    except OSError as error:
        raise InputError(f"cannot read --replies {path}: {error.strerror}") from None
    try:
        return replies_from_json(data)
    except InputError as error:
        raise InputError(f"--replies {path}: {error}") from None


def cmd_capture(args: argparse.Namespace) -> int:
    import signal
    import threading

    from probe_lib.capture import Capture, CaptureServer, JsonLines

    replies = _read_replies(args.replies) if args.replies else []
    try:
        out = open(args.out, "ab", buffering=0) if args.out else None
    except OSError as error:
        raise InputError(f"cannot open --out {args.out}: {error.strerror}") from None
    lines = JsonLines(out.fileno() if out else sys.stdout.fileno())
    stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    main_thread = threading.get_ident()

    def write(record: Capture) -> None:
        try:
            lines(record)
        except OSError:  # the server refuses this request and every later one; wake the main thread to stop
            signal.pthread_kill(main_thread, signal.SIGTERM)
            raise

    # Blocked before the server thread starts, which inherits the mask, so only sigwait below receives them.
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    # With --out, records go only to the file: memory stays bounded however long the server runs.
    server = CaptureServer(port=args.port, on_record=write, keep_records=args.out is None)
    try:
        try:
            server.start()
        except OSError as error:
            raise InputError(f"cannot listen on port {args.port}: {error.strerror}; choose another --port") from None
        server.script("default", replies)
        base = server.base_url
        print(
            f"probe-lib capture: listening on {base}; give Mastra url {base}/v1 "
            f"(or {base}/s/<scenario>/v1); Ctrl-C stops",
            file=sys.stderr,
            flush=True,
        )
        signal.sigwait(stops)
    finally:
        server.close()
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if out is not None:
            out.close()
    if server.failure is not None:
        where = args.out or "stdout"
        kept = f"the {lines.written} records written before it are whole lines in {where}"
        fail("probe-lib capture", f"stopped: {server.failure}; {kept}")
        return 1
    return 0


def add_capture(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("capture", help="serve a recording OpenAI-compatible endpoint on loopback until Ctrl-C")
    parser.add_argument(
        "--port", type=bounded(0, 65535), default=0, help="port to listen on (default 0: any free port)"
    )
    parser.add_argument("--replies", metavar="FILE", help="JSON array of replies for scenario default, in order")
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="append each record as a JSON line (default stdout); records are "
        "then kept only in FILE, so GET /_probe/records answers none",
    )
    parser.set_defaults(handler=cmd_capture)
