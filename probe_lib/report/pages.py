"""The report's pages: a landing page that says what was found and how it was measured, then the ledger; one page
per executed notebook and one for the glossary, each with the contents, previous/next and a search box.

One page per notebook keeps each notebook's styles and element ids on a page of its own, where no other notebook's
CSS can paint its cells. Every page is a file of ``templates/`` (Jinja2, autoescaped: data text is escaped unless
it is HTML the kit made, marked ``Markup``), its charts are the files of ``figures/``, and its search reads a script
beside it, so ``index.html`` opens from the disk without a server. A notebook's rendered body is kept in
``sections/`` and copied by the next rebuild while its executed copy and this rendering are unchanged.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
import nbformat
import pandas as pd
from markupsafe import Markup

from probe_lib.claims import ledger
from probe_lib.claims.verdict import MASTRA, STATUSES
from probe_lib.core import paths
from probe_lib.core.target import baseline
from probe_lib.present import no_value, staleness
from probe_lib.present.charts import STATUS_COLOURS
from probe_lib.present.execution import INJECTED, WIDGET_VIEW
from probe_lib.process import forked

if TYPE_CHECKING:
    from probe_lib.report.build import Report

TEMPLATES = Path(__file__).with_name("templates")
#: The landing page, at the top of the report folder; every other page is in :data:`PAGES`.
INDEX = "index.html"
PAGES = Path("pages")
FIGURES = Path("figures")
#: Where a report keeps each notebook's rendered body, named after the notebook and the digest of what made it
#: (:func:`_rendering_key`): a rebuild renders again only a notebook whose executed copy, or the rendering, changed.
SECTIONS = Path("sections")
#: The glossary every notebook links its terms to, by the term's cell: ``glossary.ipynb#cell-id=<cell id>``, which
#: JupyterLab scrolls to and nbconvert renders as the cell's element id; the report's glossary page keeps those ids.
GLOSSARY = paths.NOTEBOOKS / "glossary.ipynb"
#: The search page and the text it searches (a script, since a page opened from the disk may not fetch a file).
SEARCH, SEARCH_INDEX = "search.html", "search-index.js"
#: The id of the landing page's line saying which notebooks the build reused and which it executed.
REBUILT = "rebuilt"

#: The article's central claim the landing page opens with, and the headline findings listed under it, by claim id
#: (data/claims.csv): their statements, verdicts and evidence are the ledger's.
CENTRAL = "A10"
HEADLINES = ("F15", "F09", "A06", "A08", "X09", "F13")

#: A table with more rows than this scrolls in a box of its own instead of running down the page.
TALL_TABLE_ROWS = 30
_GENERIC_FIGURE = re.compile(r"^<Figure size [0-9.]+x[0-9.]+ with \d+ Axes>$")
_WIDGET_NOTE = "(An interactive widget: open the notebook in JupyterLab and run it to use it.)"
#: The packages whose versions the report names (with Python and Node.js): those that measure, compute and draw.
KEY_PACKAGES = (
    "pandas",
    "numpy",
    "matplotlib",
    "pyarrow",
    "aiohttp",
    "papermill",
    "nbclient",
    "ipykernel",
    "nbconvert",
)


@dataclass(frozen=True)
class Page:
    """One page of the report besides the landing page: ``pages/<stem>.html``."""

    stem: str
    title: str
    source: Path
    #: Whether ``source`` is a notebook this report executed (in its ``notebooks/``), not the kit's own glossary.
    executed: bool = True

    @property
    def href(self) -> str:
        return f"{self.stem}.html"


_JINJA = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
)


def _render(template: str, **context: object) -> str:
    """The file ``template`` of :data:`TEMPLATES` rendered with ``context``."""
    return _JINJA.get_template(template).render(**context)


def write(report: Report, version: str, earlier: Path | None) -> list[Path]:
    """Write the landing page, one page per executed notebook, the glossary's page and the search into
    ``report.folder``; a notebook's body is copied from the report ``earlier`` when it rendered the same."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic")
    folder = report.folder
    pages = [Page(run.executed.stem, title(run.executed), run.executed) for run in report.runs]
    pages.append(Page(GLOSSARY.stem, title(GLOSSARY), GLOSSARY, executed=False))
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    written, searched = [], []
    (folder / PAGES).mkdir(parents=True, exist_ok=True)
    for at, (page, (body, words)) in enumerate(zip(pages, _bodies(pages, folder, earlier, exporter))):
        around = {"previous": pages[at - 1] if at else None, "next": pages[at + 1] if at + 1 < len(pages) else None}
        text = _render("notebook.html.j2", css=css, pages=pages, page=page, body=Markup(body), home="../", **around)
        written.append(_write(folder / PAGES / page.href, text))
        searched.append({"href": page.href, "title": page.title, "text": words})
    landing = landing_page(report, version)
    # The line saying which notebooks this build reused is left out: the search finds the same in any rebuild.
    found = _words(landing, leaving_out=REBUILT)
    searched.insert(0, {"href": f"../{INDEX}", "title": "What was found, and the ledger", "text": found})
    index_html = _render(
        "index.html.j2", css=css, pages=pages, body=Markup(landing), home="", previous=None, next=pages[0]
    )
    written.append(_write(folder / INDEX, index_html))
    search = _render("search.html.j2", css=css, pages=pages, home="../", previous=None, next=None)
    written.append(_write(folder / PAGES / SEARCH, search))
    search_pages = json.dumps(searched, ensure_ascii=False).replace("</", "<\\/")
    written.append(_write(folder / PAGES / SEARCH_INDEX, f"window.SEARCH_PAGES = {search_pages};\n"))
    return written


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _words(page: str, leaving_out: str | None = None) -> str:
    """A page's text as the search reads it: tags dropped, white space collapsed, the element of id ``leaving_out``
    left out."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, features="html.parser")
    if leaving_out is not None and (left := soup.find(id=leaving_out)) is not None:
        left.decompose()
    return " ".join(soup.get_text(" ").split())


def title(notebook: Path) -> str:
    """A notebook's title: its first heading, else its file name."""
    if notebook.exists():
        for cell in nbformat.read(notebook, as_version=4).cells:
            if cell.cell_type == "markdown" and cell.source.startswith("# "):
                return cell.source.split("\n", 1)[0][2:].strip()
    return notebook.stem


# -- the landing page --------------------------------------------------------------------------------------------


def landing_page(report: Report, version: str) -> str:
    """What was found, first: the central finding with its measured evidence, the headline findings, the verdicts
    counted per version and how it was all measured; then the ledger."""
    table = report.ledger
    mastra_rows = table[table["framework"] == MASTRA]
    return _render(
        "landing.html.j2",
        live=report.recorded_because is None and str(report.source) == "live",
        recorded_because=report.recorded_because,
        central=_finding(mastra_rows, CENTRAL),
        headlines=[_finding(table, claim) for claim in HEADLINES if (table["claim"] == claim).any()],
        counts=_counts(table),
        statuses=STATUSES,
        measured=report.measured,
        built_with=built_with(),
        rebuilt=rebuilt_line(report),
        rebuilt_id=REBUILT,
        failed=report.failed,
        version=version,
        article_version=baseline("mastra").version,
        ledger=Markup(readable(_ledger_html(table), {})),
        evidence=Markup(
            readable(
                no_value.frame_html(
                    mastra_rows[["claim", "version", "status", "evidence"]],
                    index=False,
                    escape=True,
                    table_id="evidence",
                ),
                {},
            )
        ),
        frameworks=_framework_rows(table),
        colours=STATUS_COLOURS,
    )


@dataclass(frozen=True)
class Finding:
    """A claim as the landing page states it: its statement, where it is shown, and its verdict and evidence on
    each version (or target) it was judged on."""

    claim: str
    statement: str
    notebook: str
    verdicts: tuple[tuple[str, str, str], ...]  # (version or target, status, evidence)

    @property
    def by_status(self) -> dict[str, list[str]]:
        """The versions (or targets) of each status, statuses in the order first met."""
        grouped: dict[str, list[str]] = {}
        for judged, status, _ in self.verdicts:
            grouped.setdefault(status, []).append(judged)
        return grouped


def _finding(table: pd.DataFrame, claim: str) -> Finding:
    rows = table[table["claim"] == claim]
    first = rows.iloc[0]
    verdicts = tuple(
        (
            str(row.version) if row.framework == MASTRA else f"{row.framework} {row.version}",
            str(row.status),
            str(row.evidence),
        )
        for row in rows.itertuples()
    )
    return Finding(claim, str(first.statement), str(first.notebook), verdicts)


def _counts(table: pd.DataFrame) -> list[tuple[str, list[int]]]:
    """How many claims got each status (in :data:`STATUSES` order) on each Mastra version, then on the other
    frameworks' targets together."""
    mastra_rows = table[table["framework"] == MASTRA]
    rows = [
        (f"@mastra/core {version}", [int((statuses == status).sum()) for status in STATUSES])
        for version, statuses in mastra_rows.groupby("version", sort=False)["status"]
    ]
    others = table[table["framework"] != MASTRA]["status"]
    if len(others):
        rows.append(("the other frameworks", [int((others == status).sum()) for status in STATUSES]))
    return rows


def _ledger_html(table: pd.DataFrame) -> str:
    """Every Mastra claim beside what was measured, its status on each version in its colour."""
    matrix = ledger.status_matrix(table)
    return _render(
        "ledger.html.j2",
        versions=list(matrix.columns),
        rows=[
            (claim, _side_by_side(table[table["claim"] == claim]), list(statuses))
            for claim, statuses in matrix.iterrows()
        ],
        colours=STATUS_COLOURS,
        article_version=baseline("mastra").version,
    )


def _side_by_side(rows: pd.DataFrame) -> dict[str, str]:
    """One claim's statement with its origin and notebook, and what was measured: the evidence on the article's
    version, or, for a claim comparing versions with it (not testable on itself), each other version's evidence."""
    first = rows.iloc[0]
    article = rows["version"] == baseline("mastra").version
    if article.any() and (rows.loc[article, "status"] == "not testable").all() and (~article).any():
        measured = "; ".join(f"{row.version}: {row.evidence}" for row in rows[~article].itertuples())
    elif article.any():
        measured = rows.loc[article, "evidence"].iloc[0]
    else:  # a range claim: its one verdict
        measured = rows["evidence"].iloc[0] if len(rows) else "not measured"
    return {
        "statement": str(first.statement),
        "origin": "article, section" if first.origin == "article" else "our finding",
        "section": str(first.section),
        "notebook": str(first.notebook),
        "measured": str(measured),
    }


def _framework_rows(table: pd.DataFrame) -> list[dict[str, str]]:
    return [
        {key: str(value) for key, value in row._asdict().items()}
        for row in table[table["framework"] != MASTRA].itertuples(index=False)
    ]


def built_with() -> str:
    """The sentence naming what the report was built with: Python, Node.js and the key packages' versions."""
    found = staleness.node_version()
    node = "no Node.js" if found == staleness.ABSENT else f"Node.js {found}"
    packages = ", ".join(f"{name} {staleness.version_of(name)}" for name in KEY_PACKAGES)
    return f"Built with Python {platform.python_version()}, {node}, {packages}."


def rebuilt_line(report: Report) -> str:
    """Which notebooks were kept from the earlier report in the folder and which were executed, and why."""
    reused = [run.executed.stem for run in report.runs if run.reused]
    executed = [run for run in report.runs if not run.reused]
    parts = []
    if reused:
        parts.append(
            f"{len(reused)} reused from the earlier report in this folder, every input unchanged: " + ", ".join(reused)
        )
    if executed:
        reasons = {run.because for run in executed}
        parts.append(
            f"{len(executed)} executed, each because {executed[0].because}"
            if len(executed) > 1 and len(reasons) == 1
            else f"{len(executed)} executed: " + "; ".join(f"{run.executed.stem} ({run.because})" for run in executed)
        )
    return "Notebooks: " + ". ".join(parts) + "."


# -- a notebook's page -------------------------------------------------------------------------------------------


def section(notebook: Path, exporter) -> str:
    """One executed notebook (or the glossary) as the body of its page, made readable (:func:`readable`)."""
    if not notebook.exists():
        return ""
    document = for_reading(nbformat.read(notebook, as_version=4))
    body = exporter.from_notebook_node(document)[0]
    shown = figures(document, notebook.stem)
    return readable(page_links(body), {data: alt for data, _, alt in shown}, {data: file for data, file, _ in shown})


def page_links(body: str) -> str:
    """A rendered notebook's links to another notebook or to the glossary, pointed at that one's page."""
    return re.sub(r'href="((?:[0-9][0-9]-[^"#/]+|glossary))\.ipynb([#"])', r'href="\1.html\2', body)


def for_reading(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` as a page shows it: without papermill's injected parameters cell (the notebook's own
    parameters cell is above it) and without live widgets, which a static page cannot run (their loader script
    fails there).

    A widget output keeps its other representations (the explorer's static HTML rendering); one that has only
    its ``text/plain`` repr left (``interactive(children=...)``) says nothing to a reader, so a note saying where
    the widget works takes its place.
    """
    notebook.metadata.pop("widgets", None)
    notebook.cells = [cell for cell in notebook.cells if INJECTED not in cell.metadata.get("tags", [])]
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.outputs:
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                if set(data) <= {"text/plain"}:
                    output = nbformat.v4.new_output(
                        "display_data", {"text/html": _WIDGET_NOTE, "text/plain": _WIDGET_NOTE}
                    )
            kept.append(output)
        cell.outputs = kept
    return notebook


def figures(notebook: nbformat.NotebookNode, stem: str) -> list[tuple[str, str, str]]:
    """Every PNG the notebook displayed, in order: its base64 data, its file in ``figures/`` (``<stem>-<n>.png``) and
    its alt text: the figure's own description (the kit's charts describe themselves in their ``text/plain``,
    :class:`probe_lib.present.charts.Chart`), else the text of the markdown cell before it."""
    found, caption = [], ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            caption = re.sub(r"[*_`#>\[\]]|\(glossary[^)]*\)", "", cell.source).strip().split("\n")[0][:300]
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if data.get("image/png"):
                plain = str(data.get("text/plain", "")).strip()
                own = plain if plain and not _GENERIC_FIGURE.match(plain) else ""
                alt = own or (f"Chart: {caption}" if caption else "A chart")
                found.append(("".join(data["image/png"].split()), f"{stem}-{len(found) + 1}.png", alt))
    return found


def _png_width(data: str) -> int:
    """The pixel width in a base64 PNG's header (0 when it is not a PNG)."""
    head = base64.b64decode(data[:44] + "=" * (-len(data[:44]) % 4))
    return int.from_bytes(head[16:20], "big") if head[1:4] == b"PNG" else 0


def readable(page: str, descriptions: dict[str, str], files: dict[str, str] | None = None) -> str:
    """The page made readable at any data size: every table in a box that scrolls on its own (long ones also
    downwards), every image described, and every chart drawn in the column from its file in ``figures/``
    (``files``, by its data), a link to that file opening it full size."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, features="html.parser")
    for table in soup.find_all("table"):
        box = soup.new_tag(
            "div", attrs={"class": "scroll tall" if len(table.find_all("tr")) > TALL_TABLE_ROWS else "scroll"}
        )
        table.wrap(box)
    for image in soup.find_all("img"):
        source = image.get("src", "")
        data = "".join(source.split("base64,", 1)[1].split()) if "base64," in source else ""
        image["alt"] = descriptions.get(data, image.get("alt", "A chart"))
        if data in (files or {}):
            image["src"] = f"../{FIGURES.as_posix()}/{files[data]}"
            image["width"] = str(_png_width(data))
            link = soup.new_tag("a", attrs={"class": "figure", "href": image["src"], "title": "open full size"})
            image.wrap(link)
    return str(soup)


# -- keeping a rendered body for the next rebuild ----------------------------------------------------------------


@functools.cache
def _rendering() -> bytes:
    """What every body is made by besides its notebook: this module's code, the widget type it drops, and the
    versions of nbconvert (with its templates), its code highlighter and the HTML parser."""
    packages = " ".join(
        f"{name} {staleness.version_of(name)}"
        for name in ("nbconvert", "jinja2", "mistune", "pygments", "beautifulsoup4")
    )
    return Path(__file__).read_bytes() + f"{WIDGET_VIEW} {packages}".encode()


def _rendering_key(notebook: Path) -> str:
    """The digest of ``notebook``'s bytes and of :func:`_rendering`."""
    hasher = hashlib.sha256(notebook.read_bytes() if notebook.exists() else b"")
    hasher.update(_rendering())
    return hasher.hexdigest()[:16]


def _bodies(pages: list[Page], folder: Path, earlier: Path | None, exporter) -> list[tuple[str, str]]:
    """Each page's body (:func:`section`) and its words as the search reads them (:func:`_words`). A body is copied
    from the report ``earlier`` when it rendered the same; the others are rendered one worker process per page, as
    many at a time as there are CPUs (a body is up to seconds of HTML parsing, and pages do not depend on each
    other), the first of them here: it compiles nbconvert's templates and its code highlighter once, for the workers
    to inherit instead of each compiling them again. Every body is kept in ``folder`` for the next rebuild with its
    words (parsing 18 kept bodies for them again took 3.6 s); a kept section starts with the SHA-256 of the rest, so
    one edited since it was written is rendered again, not copied."""
    names = [SECTIONS / f"{page.source.stem}-{_rendering_key(page.source)}.html" for page in pages]
    kept = [_kept_section(earlier / name) if earlier else None for name in names]
    made = {at: section for at, section in enumerate(kept) if section is not None}
    if missing := [at for at, section in enumerate(kept) if section is None]:
        first, *rest = missing
        made[first] = _rendered(pages[first].source, exporter)
        work, stems = [(pages[at].source, exporter) for at in rest], [pages[at].stem for at in rest]
        made.update(zip(rest, forked.each(_rendered, work, names=stems)))
    (folder / SECTIONS).mkdir(exist_ok=True)
    for at, name in enumerate(names):
        body, words = made[at]
        rest = f"{words}\n{body}"  # the words are one line: _words collapses every white space
        text = rest.encode("utf-8")  # bytes, as _kept_section reads them: no newline translation either way
        (folder / name).write_bytes(hashlib.sha256(text).hexdigest().encode() + b"\n" + text)
    return [made[at] for at in range(len(pages))]


def _rendered(notebook: Path, exporter) -> tuple[str, str]:
    """A page's body (:func:`section`) and its words for the search."""
    body = section(notebook, exporter)
    return body, _words(body)


def _kept_section(kept: Path) -> tuple[str, str] | None:
    """The body and its words in the file ``kept`` of an earlier report, or ``None`` when there is none or it was
    edited."""
    try:
        # Bytes, not read_text: its newline translation would turn a body's \r\n into \n, and the digest refuse it.
        digest, _, rest = kept.read_bytes().decode("utf-8").partition("\n")
    except OSError:  # not rendered by the earlier report, or not this way
        return None
    if digest != hashlib.sha256(rest.encode("utf-8")).hexdigest():
        return None
    words, _, body = rest.partition("\n")
    return body, words
