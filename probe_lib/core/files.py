"""Writing a file so that no reader, and no interrupted run, ever finds it half-written.

Each file is written beside its place as ``.NAME.partial`` and renamed into place once complete (a rename within
one folder is atomic); a failed write removes its partial file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path


def partial_name(name: str) -> str:
    """The hidden name a file is written under before it is renamed to ``name``."""
    return f".{name}.partial"


def write_atomically(path: Path, write: Callable[[Path], None]) -> Path:
    """``write`` into a partial file beside ``path``, then rename it into place; returns ``path``."""
    partial = path.with_name(partial_name(path.name))
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
    text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    return write_atomically(path, lambda partial: partial.write_text(text, encoding="utf-8"))
