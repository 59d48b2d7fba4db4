"""The README and ``docs/``: their tables of measured behaviour are what the data give (each able to fail when the
data change), the figures typed in their prose are held to the data, and every command, path, module and notebook
they name exists."""

from __future__ import annotations

import importlib
import json
import math
import re
import shlex
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from probe_lib import cli
from probe_lib.analysis import timeline
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.target import version_key
from probe_lib.history import sweep
from probe_lib.history import timeline as swept
from probe_lib.present import docs

README = paths.ROOT / "README.md"
#: A small count as the prose writes it.
_COUNT = {1: "one", 2: "two", 3: "three"}


@pytest.fixture(scope="module")
def matrix():
    return docs.matrix_table()


@pytest.fixture(scope="module")
def lines():
    return docs.others(*docs.timelines())[0]


@pytest.mark.slow
def test_the_committed_readme_and_docs_are_what_the_data_give():
    assert docs.stale(docs.documents()) == [], "run `probe-lib docs` and commit the result"


@pytest.mark.slow
def test_a_changed_recording_changes_the_readme_table(matrix):
    committed = README.read_text(encoding="utf-8")
    llama = (matrix["target"].str.startswith("llama-index@")) & (matrix["probe"] == "dot")
    assert "| `llama-index@0.14.25` | **6** |" in docs.forced_absent(matrix)
    altered = matrix.copy()
    altered.loc[llama, "forced verdict"] = "forced, in tools"
    table = docs.forced_absent(altered)
    assert "| `llama-index@0.14.25` | **5** | 5 |" in table
    assert docs.render(committed, {"forced-absent": lambda: table}) != committed
    assert docs.render(committed, {"forced-absent": lambda: docs.forced_absent(matrix)}) == committed


@pytest.mark.slow
def test_a_changed_timeline_changes_the_change_points(lines):
    table = docs.framework_changes(lines)
    assert "| crewai | 1.10.0 | 1.10.1 | collision, length-70 (plain, round-trip) | names |" in table
    before = [line for line in lines if line.framework != "crewai" or version_key(line.version) < (1, 10, 1)]
    changed = docs.framework_changes(before)
    assert "| crewai | 1.10.0 | 1.10.1 |" not in changed
    assert "| crewai | - | - | none over the 2 releases that ran (1.9.3 to 1.10.0) | - |" in changed


@pytest.mark.slow
def test_a_release_dated_before_its_predecessor_or_after_a_later_one_of_its_line_is_counted(lines):
    releases = docs.others(*docs.timelines())[1]
    openai = [r for r in releases if r.package == "openai"]
    assert "| `openai` | 472 | 0 | 0 | 0 |" in docs.registry_dates(lines, openai)
    swapped = [*openai[:10], replace(openai[10], published=openai[9].published.replace("20", "19", 1)), *openai[11:]]
    assert "| `openai` | 472 | 1 | 0 | 0 |" in docs.registry_dates(lines, swapped)
    claude = [r for r in releases if r.framework == "claude-agent-sdk"]
    assert "| `@anthropic-ai/claude-agent-sdk` | 343 | 106 | 34 | 34 |" in docs.registry_dates(lines, claude)
    unmeasured = [line for line in lines if (line.framework, line.version) != ("claude-agent-sdk", "0.1.10")]
    assert "| `@anthropic-ai/claude-agent-sdk` | 343 | 106 | 33 | 33 |" in docs.registry_dates(unmeasured, claude)
    as_of_its_date = [  # 0.1.10 as an earlier kit resolved it: as of its own registry date, after 0.1.11's
        replace(line, resolved_before=line.published)
        if (line.framework, line.version) == ("claude-agent-sdk", "0.1.10")
        else line
        for line in lines
    ]
    assert "| `@anthropic-ai/claude-agent-sdk` | 343 | 106 | 34 | 33 |" in docs.registry_dates(as_of_its_date, claude)


def test_a_block_is_filled_afresh_and_an_unknown_one_refused():
    text = "before\n<!-- generated: x -->\nstale\n<!-- /generated -->\nafter\n"
    assert docs.render(text, {"x": lambda: "fresh"}) == text.replace("stale", "fresh")
    with pytest.raises(InputError, match="unknown generated block 'x'"):
        docs.render(text, {})


def test_docs_prose_lists_every_kind_of_generated_block():
    """docs/prose.md says it lists each kind of generated block: its table names every block ``probe-lib docs``
    fills, and no other."""
    page = (paths.ROOT / "docs" / "prose.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", page, flags=re.MULTILINE))
    assert listed == set(docs.blocks())


def test_the_readme_is_read_in_five_minutes():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_the_readme_runs_the_test_command_ci_runs():
    """``.ci/run`` runs exactly the README's test command (its own comment says so)."""
    blocks = re.findall(r"```bash\n(.*?)\n```", README.read_text(encoding="utf-8"), re.DOTALL)
    ci = [line for line in (paths.ROOT / ".ci/run").read_text(encoding="utf-8").splitlines() if "pytest" in line]
    assert ci[-1] in blocks


@pytest.mark.slow
def test_the_readme_findings_are_the_datas(matrix, lines):
    """The README's "What it found" sentences name versions and frameworks; each is read off the data here."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    mastra = timeline.stable(timeline.frame(swept.read(["mastra"])))
    first = timeline.first_with_normaliser(mastra)
    assert f"since the rewrite arrived in {first}" in text
    assert timeline.passthrough_fixed_in(mastra) == []
    since = mastra[[version_key(version) >= version_key(first) for version in mastra["version"]]]
    sent = timeline.sent(since[since["scenario"] == "choice-by-key"])
    silent = since["version"].nunique() - len(sent)
    assert f"that sends the request (all {len(sent)} of them; {_COUNT[silent]} crash before sending" in text
    forced = matrix[(matrix["forced verdict"] == "not in tools") & (matrix["probe"] != "unregistered-choice")]
    assert {target.split("@")[0] for target in forced["target"]} == {"mastra", "llama-index"}
    assert "only LlamaIndex builds the same broken request" in text
    changes = timeline.change_points(timeline.frame(lines), wire_only=True)
    dot = changes[changes["scenario"] == "dot+forced"].set_index("framework")
    assert f"(since {dot.loc['llama-index', 'after']})" in text
    assert f"did up to {dot.loc['openai-agents-js', 'before']} and now refuses it" in text
    others = matrix[(matrix["probe"] == "dot") & ~matrix["target"].str.startswith("mastra@")]
    assert (others["names verdict"] == "verbatim").sum() > len(others) / 2, "'most of the others send ... verbatim'"


@pytest.mark.slow
def test_the_sweeps_figures_are_the_summarys():
    """docs/sweeps.md's counts of the committed Mastra sweep."""
    text = " ".join((paths.ROOT / "docs/sweeps.md").read_text(encoding="utf-8").split())
    rows = swept.rows("mastra")
    stable = {row.version for row in swept.rows("mastra", prereleases=False)}
    pre = {row.version for row in rows} - stable
    unran = {row.version for row in rows if row.version in pre and row.scenario == sweep.WHOLE_VERSION}
    assert f"holds {len(stable) + len(pre)}: {len(stable)} stable" in text
    assert f"and the {len(pre)} prereleases" in text and f"({len(unran)} of them could not run" in text
    ran = timeline.frame(swept.read(["mastra"]))
    ran = ran[ran["prerelease"] & ~ran["version"].isin(unran)]
    silent = {
        v for v, lines in ran.groupby("version") if all(timeline.sent_nothing(line) for line in lines.itertuples())
    }
    assert f"{len(silent)} more sent no request on any scenario" in text
    table = timeline.stable(timeline.frame(swept.read(["mastra"])))
    first = version_key(timeline.first_with_normaliser(table))
    sent = timeline.sent(table[table["scenario"] == "single-rewrite"])
    before = [line.behaviour.names for line in sent.itertuples() if version_key(line.version) < first]
    after = [line.behaviour.names for line in sent.itertuples() if version_key(line.version) >= first]
    assert {tuple(names) for names in before} == {("search.web",)} and {tuple(n) for n in after} == {("search_web",)}
    assert f"all {len(before)} earlier versions that run" in text and f"all {len(after)} versions from it" in text


@pytest.mark.slow
def test_the_releases_that_crash_before_sending_are_the_summarys():
    """docs/sweeps.md's two releases that crash before sending: 0.20.2 sends on no scenario, 1.57.0 on four alone."""
    table = timeline.stable(timeline.frame(swept.read(["mastra"])))
    assert timeline.sent_on(table, "0.20.2") == set()
    assert timeline.sent_on(table, "1.57.0") == {
        "builtins-by-export",
        "builtins-by-id",
        "docs-builtin-example",
        "package-facts",
    }
    crashed = {line.version for line in table.itertuples() if timeline.crashed_before_sending(line)}
    assert {"0.20.2", "1.57.0"} <= crashed
    text = " ".join((paths.ROOT / "docs/sweeps.md").read_text(encoding="utf-8").split())
    assert "1.57.0, in `zod-to-json-schema` (`default is not a function`), on every scenario but the four" in text
    # 0.20.2's crashes, as the same paragraph counts them: a key asked of the environment, nothing at all, Unknown error
    said = {
        line.scenario: json.loads(line.behaviour)["error"]["message"]
        for line in swept.read(["mastra"])
        if line.version == "0.20.2" and line.kind == "crash"
    }
    wants_a_key = [
        m for m in said.values() if "process.env.OPENAI_API_KEY" in m or "process.env.ANTHROPIC_API_KEY" in m
    ]
    assert (len(wants_a_key), len(said)) == (36, 39)
    assert any("ANTHROPIC_API_KEY" in m for m in wants_a_key)
    assert {scenario: m for scenario, m in said.items() if m not in wants_a_key} == {
        "call-by-wire-name-stream": "no request was sent and no error was raised",
        "choice-by-key-stream": "no request was sent and no error was raised",
        "empty-key": "Unknown error",
    }
    assert "on 36 of its 39 crashes it wants `OPENAI_API_KEY`, or `ANTHROPIC_API_KEY` on the Messages path" in text
    assert "two streams send nothing and raise nothing, and the empty key fails with `Unknown error`" in text


@pytest.mark.slow
def test_the_eras_notebook_13_asserts_move_with_the_rows():
    """``timeline.eras``, which notebook 13 holds its sweep bullets to, reads the rows it is given."""
    table = timeline.stable(timeline.frame(swept.read(["mastra"])))
    assert timeline.eras(table)["versions"]["a call by key throws Tool search.web not found"] == "0.24.7 to 1.3.0"
    cut = timeline.eras(table[[version_key(version) < (1, 2, 0) for version in table["version"]]])["versions"]
    assert cut["a call by key throws Tool search.web not found"] == "0.24.7 to 1.1.0"
    assert cut["a call by key is answered back to the model"] == ""


@pytest.mark.slow
def test_the_releases_the_runner_does_not_fit_are_the_ones_named(lines):
    """docs/frameworks.md names the releases recorded as rejecting each run because the runner's call does not fit
    their client (its ``create()`` takes no ``tool_choice``), not because the framework refused a name; notebook 13
    points there."""
    unfit = "unexpected keyword argument 'tool_choice'"
    named = {(line.framework, line.version) for line in lines if line.kind == "rejected" and unfit in line.behaviour}
    assert named == {("autogen", "0.5.7"), ("autogen", "0.6.1")}
    runs = [line for line in lines if (line.framework, line.version) in named and line.kind != "not applicable"]
    assert all(line.kind == "rejected" and unfit in line.behaviour for line in runs), "'rejecting each run'"
    text = " ".join((paths.ROOT / "docs/frameworks.md").read_text(encoding="utf-8").split())
    assert "autogen 0.5.7 and 0.6.1, whose client's `create()` takes no `tool_choice` argument" in text


# What the documents name: commands, files, modules and notebooks.
_COMMAND = re.compile(r"probe-lib ([a-z]+)\b")
_PATH = re.compile(r"`((?:\.ci|benchmarks|data|docs|notebooks|probe_lib|tests)/[^`\s]*)`")
_LINK = re.compile(r"\]\(([^)#\s]+)\)")
_MODULE = re.compile(r"\bprobe_lib(?:\.[A-Za-z_]\w*)+")
_NOTEBOOK = re.compile(r"`(\d\d-[a-z0-9-]+|glossary)`")
#: Files ``reproduce`` writes into its report folder that a source folder's name starts (docs/reproduce.md's table).
REPORT_FILES = {"notebooks/inputs.json"}


def _resolves(dotted: str) -> bool:
    """A module, or a name in one (``probe_lib.analysis.timeline.range_claims``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def _path_exists(named: str, document: Path) -> bool:
    named = named.rstrip(".,:;)")
    # a pattern: `measurements/catalogue/mastra-<version>.json`
    if named in REPORT_FILES or "<" in named or "NN" in named:
        return True
    if any(mark in named for mark in "*?["):
        return any(paths.ROOT.glob(named))
    return (paths.ROOT / named).exists() or (document.parent / named).exists()


def missing_names(text: str, document: Path) -> list[str]:
    """Each command, path, link, module and notebook ``text`` names that the kit does not have."""
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)
    problems = [f"probe-lib {name}" for name in _COMMAND.findall(text) if name not in commands]
    problems += [name for name in _PATH.findall(text) if not _path_exists(name, document)]
    links = [link for link in _LINK.findall(text) if "://" not in link]
    problems += [link for link in links if not (document.parent / link).exists()]
    problems += [name for name in _MODULE.findall(text) if not _resolves(name)]
    notebooks = {path.stem for path in paths.ROOT.glob("notebooks/*.ipynb")}
    problems += [name for name in _NOTEBOOK.findall(text) if name not in notebooks]
    return problems


def _documents() -> list[Path]:
    return docs.documents()


@pytest.mark.parametrize("document", _documents(), ids=lambda path: str(path.relative_to(paths.ROOT)))
def test_every_command_path_module_and_notebook_named_exists(document):
    assert missing_names(document.read_text(encoding="utf-8"), document) == []


def test_a_name_that_does_not_exist_is_caught():
    text = (
        "`probe-lib nosuch`, `data/nosuch.csv`, [a link](docs/nosuch.md), `probe_lib.tables.nosuch`, "
        "`probe_lib.analysis.timeline.nosuch`, `99-nosuch`, and what exists: `probe-lib docs`, `data/claims.csv`, "
        "`probe_lib.analysis.timeline.range_claims`, `00-primer`"
    )
    assert missing_names(text, README) == [
        "probe-lib nosuch",
        "data/nosuch.csv",
        "docs/nosuch.md",
        "probe_lib.tables.nosuch",
        "probe_lib.analysis.timeline.nosuch",
        "99-nosuch",
    ]


def test_the_readme_names_its_commands_as_the_cli_parses_them():
    """Each ``probe-lib`` command line in a bash block of the README and docs parses."""
    parser = cli.build_parser()
    for document in _documents():
        for block in re.findall(r"```bash\n(.*?)\n```", document.read_text(encoding="utf-8"), re.DOTALL):
            for part in re.split(r"&&|\|", block):
                words = shlex.split(part.split("#")[0])
                if words and words[0].endswith("probe-lib"):
                    parser.parse_args(words[1:])


def test_the_docs_command_names_a_stale_file_then_fills_it(tmp_path, monkeypatch, capsys):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("<!-- generated: x -->\nstale\n<!-- /generated -->\n", encoding="utf-8")
    monkeypatch.setattr(paths, "ROOT", tmp_path)  # the command names each file from the root
    monkeypatch.setattr(docs, "documents", lambda: [page])
    monkeypatch.setattr(docs, "blocks", lambda: {"x": lambda: "fresh"})
    assert cli.main(["docs", "--check"]) == 1
    assert "docs/page.md: its generated tables differ from the data" in capsys.readouterr().out
    assert "stale" in page.read_text(encoding="utf-8"), "--check writes nothing"
    assert cli.main(["docs"]) == 0 and "wrote docs/page.md" in capsys.readouterr().out
    assert page.read_text(encoding="utf-8") == "<!-- generated: x -->\nfresh\n<!-- /generated -->\n"
    assert cli.main(["docs", "--check"]) == 0


def test_the_cli_document_names_every_command():
    """The README calls ``docs/cli.md`` "every command": each command the CLI parses is named there."""
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)
    text = (paths.ROOT / "docs/cli.md").read_text(encoding="utf-8")
    assert sorted(name for name in commands if f"probe-lib {name}" not in text) == []


def test_the_readme_route_minutes_follow_the_notebooks_as_they_are_now():
    """Each route notebook's minutes: its markdown at 200 words a minute, half a minute per code cell (papermill's
    parameters cell included) and its execution time as benchmarks/README.md records it, rounded up; the total too.
    A notebook whose text grows past a minute fails here until the README says so."""
    benchmarks = (paths.ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    timed = {
        name: sum(int(part) for part in re.findall(r"(\d+) s", seconds))
        for name, seconds in re.findall(r"^\| `([\w-]+)` \| ([\d s+]+) \|$", benchmarks, re.M)
    }
    readme = README.read_text(encoding="utf-8")
    route = re.findall(r"^\| (\d+) \| `([\w-]+)` \|", readme, re.M)
    assert len(route) == 7, route
    for minutes, name in route:
        notebook = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        words = sum(len(cell.source.split()) for cell in notebook.cells if cell.cell_type == "markdown")
        cells = sum(cell.cell_type == "code" for cell in notebook.cells) + 1
        estimate = math.ceil(words / 200 + cells / 2 + timed[name] / 60)
        assert int(minutes) == estimate, (name, words, cells, timed[name])
        assert timed[name] < 90, "the README says each route notebook executes in under a minute and a half"
    assert "are under a minute and a half each on the route" in " ".join(readme.split())
    total = sum(int(minutes) for minutes, _ in route)
    assert f"That is {total} minutes, leaving {90 - total} for questions." in readme


def test_a_changed_overview_row_changes_the_teachers_table(tmp_path):
    """docs/teaching.md's reading order is the overview notebook's table, generated: a row changed there is changed
    in the table the docs command writes, each notebook named in a code span instead of its link."""
    overview = json.loads(docs.OVERVIEW.read_text(encoding="utf-8"))
    for cell in overview["cells"]:
        cell["source"] = "".join(cell["source"]).replace("the built-in tools |", "the built-in tools, edited |")
    edited = tmp_path / docs.OVERVIEW.name
    edited.write_text(json.dumps(overview), encoding="utf-8")
    table = docs.reading_order(edited).splitlines()
    assert len(table) == 2 + 17
    assert (
        "| 3 | `01-key-rule-and-builtins` | the model sees the key, not the id; where that stops holding; the built-in "
        "tools, edited |" in table
    )
    assert "| 2 | `00-overview` |" in table[3]


def test_an_overview_without_its_reading_order_is_named_in_one_line(tmp_path):
    overview = json.loads(docs.OVERVIEW.read_text(encoding="utf-8"))
    overview["cells"] = [cell for cell in overview["cells"] if "| # | notebook |" not in "".join(cell["source"])]
    edited = tmp_path / docs.OVERVIEW.name
    edited.write_text(json.dumps(overview), encoding="utf-8")
    with pytest.raises(InputError, match=r"^00-overview.ipynb has no reading-order table"):
        docs.reading_order(edited)
