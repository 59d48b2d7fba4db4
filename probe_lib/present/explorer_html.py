"""An ``ExplorerResult`` as one self-contained HTML fragment: the widget shows it, and the HTML report shows the
same fragment statically (inline styles and inline SVG only: no script, no stylesheet, nothing fetched)."""

from __future__ import annotations

import html
import json

from probe_lib.inputs.records import shown
from probe_lib.present.explorer import ExplorerResult, KeyRow, Piece

#: How each kind of character run is drawn (kept runs are plain).
PIECE_STYLES = {
    "changed": "background:#ffc9c9;color:#8b0000",
    "added": "background:#c9e2ff;color:#00366b",
    "cut": "background:#e4e4e4;color:#777;text-decoration:line-through",
}
SEVERITY_COLOURS = {"refused": "#ffc9c9", "mismatch": "#ffd9a8", "hint": "#eef3ff"}
#: The most characters of the request body drawn (a 1,000-tool body is megabytes; the whole is in the result).
BODY_CHARACTERS = 100_000
#: Rows drawn with their labels in the ordering chart; longer sets are drawn as lines only.
CHART_LABELLED_ROWS = 40

_BOX = "padding:6px 10px;border-radius:4px;margin:6px 0"
_CELL = "border:1px solid #ccc;padding:2px 6px;vertical-align:top;text-align:left;overflow-wrap:anywhere"
#: A header cell: a column's name is never split mid-word.
_HEAD = f"{_CELL};overflow-wrap:normal"
#: A box of its own that scrolls, so a table of any size never widens (or endlessly lengthens) the output.
_SCROLL = "max-width:100%;overflow:auto;max-height:36em"
#: Characters of a key or name drawn beside the ordering chart; a longer one ends in "…" (the table has it whole).
CHART_LABEL = 24


def _text(text: str) -> str:
    return html.escape(shown(text))


def pieces_html(pieces: tuple[Piece, ...]) -> str:
    """Runs of a key or name, changed characters highlighted; monospace so lengths line up."""
    spans = []
    for piece in pieces:
        style = PIECE_STYLES.get(piece.kind)
        text = _text(piece.text).replace(" ", "&#9251;") if piece.kind != "kept" else _text(piece.text)
        spans.append(f'<span class="x-{piece.kind}" style="{style}">{text}</span>' if style else text)
    return f'<code style="white-space:pre-wrap;overflow-wrap:anywhere">{"".join(spans)}</code>'


def _row_html(row: KeyRow, sent: bool) -> str:
    if row.name is not None:
        name = pieces_html(row.name_pieces)
    elif sent:
        name = "<em>not sent</em>"
    else:
        name = f"<em>none sent; would be</em> {pieces_html(row.name_pieces)}"
    after = "" if row.after is None else str(row.after)
    rules = "; ".join(_text(rule) for rule in row.rules) or (
        "none: sent as registered" if row.name is not None else "none"
    )
    cells = (str(row.before), after, pieces_html(row.key_pieces), name, rules)
    return "<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in cells) + "</tr>"


def _label(text: str) -> str:
    """A key or name as the ordering chart draws it: cut to :data:`CHART_LABEL` characters with an ellipsis, and
    whole in its tooltip."""
    whole = shown(text)
    if len(whole) <= CHART_LABEL:
        return html.escape(whole)
    return f"<title>{html.escape(whole)}</title>{html.escape(whole[: CHART_LABEL - 1])}…"


def ordering_svg(result: ExplorerResult) -> str:
    """A slope chart: registration position (left) to wire position (right), rewritten keys in orange."""
    rows = result.rows
    if not rows or not result.sent:
        return ""
    labelled = len(rows) <= CHART_LABELLED_ROWS
    step = 16 if labelled else max(2, 400 // len(rows))
    height = step * len(rows) + 24
    left, right, width = (170, 330, 500) if labelled else (45, 195, 240)
    parts = [
        f'<svg class="x-order" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="monospace" font-size="11"><text x="{left}" y="10" text-anchor="middle">registered</text>'
        f'<text x="{right}" y="10" text-anchor="middle">on the wire</text>'
    ]
    for row in rows:
        y0 = 22 + row.before * step
        colour = "#e07000" if row.name is not None and row.name != row.key else "#999"
        if labelled:
            parts.append(f'<text x="{left - 6}" y="{y0 + 4}" text-anchor="end">{_label(row.key)}</text>')
        if row.after is None:
            parts.append(f'<text x="{left}" y="{y0 + 4}" fill="#c00" text-anchor="middle">×</text>')
            continue
        y1 = 22 + row.after * step
        parts.append(f'<line x1="{left}" y1="{y0}" x2="{right}" y2="{y1}" stroke="{colour}" stroke-width="1.5"/>')
        if labelled:
            parts.append(f'<text x="{right + 6}" y="{y1 + 4}">{_label(row.name or "")}</text>')
    parts.append("</svg>")
    return "".join(parts)


def findings_html(result: ExplorerResult) -> str:
    """The linter's findings on the body, whole, one row each (or a line saying there are none)."""
    if not result.sent:
        return ""
    if not result.findings:
        return (
            f"<p>{html.escape(result.provider)}: no findings: every name is accepted and any forced tool is sent.</p>"
        )
    rows = "".join(
        f'<tr style="background:{SEVERITY_COLOURS[finding.severity]}"><td style="{_HEAD}">{finding.severity}</td>'
        f'<td style="{_CELL};overflow-wrap:normal">{finding.code}</td>'
        f'<td style="{_CELL}">{_text(finding.message)}</td></tr>'
        for finding in result.findings
    )
    return (
        f'<div style="{_SCROLL}"><table class="x-findings" style="border-collapse:collapse;font-size:90%">'
        f'<tr><th style="{_HEAD}">'
        f'severity</th><th style="{_HEAD}">finding</th><th style="{_HEAD}">{html.escape(result.provider)} says'
        f"</th></tr>{rows}</table></div>"
    )


def render(result: ExplorerResult, *, timed: bool = True) -> str:
    """The whole result: headline, input notes, the framework's error, the key table, the ordering chart, the
    provider's verdicts and the request body. ``timed``: the headline says how long the run took (a saved
    rendering leaves it out, so that an executed notebook is the same bytes on every execution)."""
    took = f" <small>({result.elapsed_s * 1000:,.0f} ms)</small>" if timed else ""
    parts = [
        '<div class="x-result" style="overflow-wrap:anywhere;max-width:100%">'
        f'<p class="x-headline"><b>{_text(result.headline)}</b>{took}</p>'
    ]
    if result.source.live and result.sent:
        parts.append(
            "<p><small>Measured on the real package: the body below is the first request the capture "
            "server received.</small></p>"
        )
    elif result.source.live:
        if result.keys:
            parts.append("<p><small>Measured on the real package: no request left the process.</small></p>")
    else:
        parts.append(
            "<p><small>The Python model of formatTools (no package ran); the body below is its sketch. "
            "Choose a live source to measure the real package.</small></p>"
        )
    for note in result.notes:
        parts.append(f'<p class="x-note" style="{_BOX};background:#fff3cd">{_text(note)}</p>')
    if result.measurement.error:
        chain = "\n".join(_text(link) for link in result.measurement.error)
        who = "as the framework words it, outermost first" if result.source.live else "the model's prediction"
        parts.append(
            f'<div class="x-error" style="{_BOX};background:#ffe0e0"><b>Raised ({who}):</b>'
            f'<pre style="white-space:pre-wrap;margin:4px 0">{chain}</pre></div>'
        )
    if result.rows:
        head = "".join(
            f'<th style="{_HEAD}">{title}</th>' for title in ("before", "after", "key", "wire name", "rules that fired")
        )
        table = "".join(_row_html(row, result.sent) for row in result.rows)
        parts.append(
            '<div style="display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap">'
            f'<div style="{_SCROLL};flex:1 1 28em;min-width:0"><table class="x-keys" style="border-collapse:collapse;'
            f'font-size:90%;width:100%"><tr>{head}</tr>{table}</table></div>{ordering_svg(result)}</div>'
        )
    parts.append(findings_html(result))
    body = result.measurement.body
    if body is not None:
        whole = json.dumps(body, indent=1, ensure_ascii=False)
        text = "\n".join(_text(line) for line in whole[:BODY_CHARACTERS].split("\n"))
        what = "captured from the wire" if result.measurement.captured else "the model's sketch"
        if len(whole) > BODY_CHARACTERS:
            what += (
                f"; the first {BODY_CHARACTERS:,} of {len(whole):,} characters, the whole body is "
                "result.measurement.body"
            )
        parts.append(
            f'<details class="x-body"><summary>Request body ({what})</summary>'
            f'<pre style="max-height:30em;overflow:auto">{text}</pre></details>'
        )
    parts.append("</div>")
    return "".join(parts)
