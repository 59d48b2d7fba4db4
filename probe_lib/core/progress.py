"""Stage-by-stage progress for long runs: a tqdm bar on a terminal, one plain line per step otherwise.

Every long run reports through :class:`Stages`: ``reproduce`` (half a minute), the framework matrix, the version
sweep and bisection (minutes to hours); without it they would print nothing until the end. Progress goes to
stderr, so a command's result on stdout stays clean for pipes and scripts; library calls pass :data:`QUIET`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from tqdm import tqdm

#: Called once per finished step, with a short label of what finished.
Step = Callable[[str], None]


class Stages:
    """Reports the stages of one long run on ``stream``; ``Stages(None)`` reports nothing (library use)."""

    def __init__(self, stream: TextIO | None = sys.stderr) -> None:
        self._stream = stream
        self._bars = stream is not None and stream.isatty()

    @contextmanager
    def stage(self, name: str, total: int) -> Iterator[Step]:
        """A stage of ``total`` steps; the yielded callable marks one step done."""
        if self._stream is None:
            yield lambda label: None
            return
        if self._bars:
            with tqdm(total=total, desc=name, file=self._stream, unit="step", dynamic_ncols=True) as bar:

                def advance(label: str) -> None:
                    bar.set_postfix_str(label, refresh=False)
                    bar.update()

                yield advance
            return
        done = 0
        print(f"{name}: 0/{total}", file=self._stream, flush=True)

        def step(label: str) -> None:
            nonlocal done
            done += 1
            print(f"{name}: {done}/{total} {label}", file=self._stream, flush=True)

        yield step


#: Reports nothing: what library calls pass (the CLI passes ``Stages()``).
QUIET = Stages(None)
