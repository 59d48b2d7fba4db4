"""Writing a file so that no reader, and no interrupted run, ever finds it half-written.

Each file is written beside its place under a hidden name of its own (``.NAME.partial-XXXX``, unique per writer, so
two processes writing one path never write into, rename or delete each other's partial file) and renamed into place
once complete (a rename within one folder is atomic); a failed write removes its partial file.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path


def write_atomically(path: Path, write: Callable[[Path], None]) -> Path:
    """``write`` into a partial file of this writer's own beside ``path``, then rename it into place; returns
    ``path``. The last writer to finish wins whole; no reader sees a mix."""
    # Named, not made, here: the writer creates it, so it gets the user's usual mode (mkstemp's would be 0600).
    partial = path.with_name(f".{path.name}.partial-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        write(partial)
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


def write_json(path: Path, document: object) -> Path:
    """``document`` as deterministic JSON (keys sorted, one space of indent, UTF-8 text kept), written atomically:
    what every recording and measurement file is, so that reruns differ only where measurements do."""
    # A lone surrogate (legal in a JSON string, so in a user's key) has no UTF-8 form: written as its \uXXXX escape,
    # which JSON reads back as the same string, instead of failing the write.
    data = (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode(
        "utf-8", "backslashreplace"
    )
    return write_atomically(path, lambda partial: partial.write_bytes(data))


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, object]]) -> Path:
    """``rows`` as UTF-8 CSV under a header of ``columns``, each line ended by ``\\n``, written atomically."""

    def write(partial: Path) -> None:
        with partial.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    return write_atomically(path, write)
