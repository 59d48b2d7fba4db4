"""How a notebook tells its reader what it is doing: a line when it starts measuring, a banner that cannot be
missed when it shows recordings instead of a live run, and pandas set to show text whole.

Outside a notebook (scripts, tests) the banner is printed as text, framed so it still stands out.
"""

from __future__ import annotations

import html

import pandas as pd

#: pandas options that show verdicts, error texts, lint messages and long keys whole (the default cuts text
#: at 50 characters, which hides the end of a message and the lost character of a long key).
WHOLE_TEXT = {"display.max_colwidth": None, "display.max_columns": None, "display.width": 0}


def show_text_whole() -> None:
    """Set pandas to show every cell's text whole, in this process."""
    for option, value in WHOLE_TEXT.items():
        pd.set_option(option, value)


def announce(text: str) -> None:
    """One line saying what the notebook is about to do (printed at once, before the work starts)."""
    print(text, flush=True)


class Banner:
    """A warning a reader must not miss: red in a notebook or the HTML report, framed in plain text."""

    def __init__(self, title: str, text: str) -> None:
        self.title, self.text = title, text

    def _repr_html_(self) -> str:
        return (
            f'<div class="probe-banner" style="background:#f8d0d0;border:2px solid #b71c1c;padding:0.6em 1em;'
            f'border-radius:4px"><b>{html.escape(self.title)}</b> {html.escape(self.text)}</div>'
        )

    def __repr__(self) -> str:
        rule = "!" * 100
        return f"{rule}\n{self.title} {self.text}\n{rule}"


def banner(title: str, text: str) -> None:
    """Show ``Banner(title, text)`` now: rich in IPython, printed elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(Banner(title, text))
    else:
        print(repr(Banner(title, text)), flush=True)
