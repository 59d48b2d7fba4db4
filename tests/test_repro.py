"""``probe-lib repro``: a folder that reproduces one finding on one release without probe_lib, run for real.

The slow tests write each framework's reproduction on a release with its finding (exit 1) and one without (exit
0): ``run.sh`` installs the locked packages into the folder (npm's from the registry, LlamaIndex's from a folder of
the same locked wheels kept between runs) and runs the script, in an environment without the kit's paths, so
nothing of probe_lib is importable there.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from probe_lib import cli
from probe_lib.core.target import version_key
from probe_lib.repro import claims, folder, templates


def run_cli(*args: str, timeout: float = 1200, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "probe_lib", "repro", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def run_main(*args: str) -> tuple[int, str, str]:
    """``probe-lib repro ARGS`` in this process (a refusal comes before any install or run)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(["repro", *args])
    return code, out.getvalue(), err.getvalue()


# -- refusals: one line, exit 2, nothing written ------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "why"),
    [
        ("V01", "version-range claim"),
        ("A20", "docs a package ships"),
        ("F19", "docs a package ships"),
        ("A02", "no one-turn reproduction"),
        ("A01", "no one-turn reproduction"),  # the docs' examples, measured on the wire
        ("F07", "no one-turn reproduction"),
        ("Z99", "no claim 'Z99' in data/claims.csv (reproducible: A10,"),
        ("a10", "no claim 'a10' in data/claims.csv; ids are upper-case: A10"),
    ],
)
def test_a_claim_without_a_one_release_reproduction_is_refused_in_one_line(tmp_path, claim, why):
    code, stdout, stderr = run_main(claim, "--version", "1.67.0", "--out", str(tmp_path / "out"))
    assert code == 2, stderr
    assert stderr.count("\n") == 1 and why in stderr, stderr
    assert stdout == "" and not (tmp_path / "out").exists()


def test_a_folder_holding_a_file_is_refused_and_left_as_it_was(tmp_path):
    mine = tmp_path / "mine.txt"
    mine.write_text("not the kit's", encoding="utf-8")
    code, _, stderr = run_main("A10", "--version", "1.67.0", "--out", str(tmp_path))
    assert code == 2 and "which the kit did not write" in stderr and stderr.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"] and mine.read_text(encoding="utf-8") == "not the kit's"


@pytest.mark.parametrize("version", ["not-a-version", "99.0.0"])
def test_a_version_the_registry_does_not_serve_is_refused_in_one_line(tmp_path, version):
    code, stdout, stderr = run_main("A10", "--version", version, "--out", str(tmp_path / "out"))
    assert code == 2 and stderr.count("\n") == 1 and stdout == "", stderr
    assert not (tmp_path / "out").exists()


def test_an_out_under_a_file_is_refused_in_one_line(tmp_path):
    (tmp_path / "file").write_text("mine", encoding="utf-8")
    code, _, stderr = run_main("A10", "--version", "1.67.0", "--out", str(tmp_path / "file" / "out"))
    assert code == 2 and "which is a file" in stderr and stderr.count("\n") == 1, stderr
    assert (tmp_path / "file").read_text(encoding="utf-8") == "mine"


def test_fixed_is_refused_for_a_framework_the_kit_has_no_fix_for(tmp_path):
    code, _, stderr = run_main("T07", "--version", "0.20.0", "--out", str(tmp_path / "out"), "--fixed")
    assert code == 2 and "no fix for T07" in stderr, stderr
    assert not (tmp_path / "out").exists()


# -- the scripts: readable, whole, and valid programs -------------------------------------------------------


@pytest.mark.parametrize("claim", sorted(claims.REPRODUCTIONS))
@pytest.mark.parametrize("version", ["0.13.2", "0.20.1", "1.67.0"])
def test_each_script_is_a_short_valid_program_naming_no_part_of_the_kit(tmp_path, claim, version):
    rep = claims.REPRODUCTIONS[claim]
    name, text = templates.script(rep, version)
    assert len(text.splitlines()) <= 100, "a reproduction is read top to bottom"  # its verdict tells three outcomes
    assert "probe_lib" not in text and "probe-lib" not in text
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    check = ["node", "--check", str(path)] if name.endswith(".mjs") else [sys.executable, "-m", "py_compile", str(path)]
    done = subprocess.run(check, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


_REFUSED = (
    'Two or more tools resolve to the same name "search_web". Please rename one of the tools to avoid this collision.'
)


def _tools(*names: str) -> dict:
    """A request body offering ``names`` as Chat Completions functions."""
    return {"tools": [{"type": "function", "function": {"name": name}} for name in names]}


@pytest.mark.parametrize(
    ("sent", "thrown", "code", "said"),
    [
        (None, {"id": "AGENT_GENERATE_FAILED", "message": _REFUSED}, 1, "REPRODUCED: one rewritten key"),
        (None, {"message": 'Keys "search.web" and "search_web" resolve to one name'}, 0, "NOT REPRODUCED: the refusal"),
        (_tools("search_web", "search_web_2"), None, 0, "NOT REPRODUCED: the request offers both tools"),
        (_tools("search_web"), None, 2, "NEITHER the finding nor what is expected: the request offers"),
        (None, {"message": "socket hang up"}, 2, "NEITHER the finding nor what is expected: no request"),
    ],
)
def test_the_collision_check_tells_the_finding_from_what_is_expected_and_from_neither(
    tmp_path, sent, thrown, code, said
):
    """F17's Expected allows a refusal naming both keys, which is no collision found; one tool of two sent silently
    is neither the finding nor what is expected, and exits 2 rather than pass for fixed. The script's own check,
    run in Node on each outcome."""
    check = (templates.TEMPLATES / "check-collision.mjs.tmpl").read_text(encoding="utf-8")
    program = tmp_path / "check.mjs"
    program.write_text(
        "function verdict(line, code) { console.log(line); process.exit(code); }\n"
        f"function judge(sent, thrown) {{\n{check}}}\n"
        f"judge({json.dumps(sent)}, {json.dumps(thrown)});\n",
        encoding="utf-8",
    )
    done = subprocess.run(["node", str(program)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.startswith(said)) == (code, True), done.stdout + done.stderr


def _forced(name: str | None, *offered: str) -> dict:
    """A request body offering ``offered`` and forcing ``name`` (none: no tool_choice)."""
    return _tools(*offered) | ({"tool_choice": {"type": "function", "function": {"name": name}}} if name else {})


_REFUSAL = 'modelSettings.toolChoice="search.web" does not match any available tool'
#: What the activeTools check says of a request that ignored activeTools (every tool sent).
_EVERY_TOOL = (
    "NEITHER the finding nor what is expected: the request offers [{}], every tool registered, as if activeTools "
    "were not given"
)
#: LangChain's refusal of a choice naming no tool (data/timeline.csv, langchain 0.0.4), written for search.web.
_LANGCHAIN_REFUSAL = (
    "Tool choice {'type': 'function', 'function': {'name': 'search.web'}} was specified, but the only provided tool "
    "was search_web."
)

#: Each check of a kind, the outcomes it can meet and what it must say of each: (check, sent, what was thrown,
#: whether a tool ran, exit code, the verdict's start). Exit 0 is the Expected alone; whatever is neither exits 2.
CHECK_OUTCOMES = [
    ("forced.mjs", _forced("search.web", "search_web"), None, False, 1, "REPRODUCED"),
    ("forced.mjs", _forced("search_web", "search_web"), None, False, 0, "NOT REPRODUCED: tool_choice forces"),
    ("forced.mjs", None, _REFUSAL, False, 0, "NOT REPRODUCED: refused before sending, naming the forced tool"),
    ("forced.mjs", None, "generate is not a function", False, 2, "NEITHER the finding nor what is expected"),
    ("forced.mjs", None, 'Invalid tool name "search.web"', False, 2, "NEITHER the finding nor what is expected"),
    ("forced.mjs", _forced(None, "search_web"), None, False, 2, "NEITHER the finding nor what is expected"),
    ("forced.py", _forced("search.web", "search_web"), None, False, 1, "REPRODUCED"),
    ("forced.py", _forced("search_web", "search_web"), None, False, 0, "NOT REPRODUCED: tool_choice forces"),
    ("forced.py", None, "tool_choice names unknown tool search.web", False, 0, "NOT REPRODUCED: refused before"),
    ("forced.py", None, "invalid tool name search.web", False, 2, "NEITHER the finding nor what is expected"),
    ("forced.py", None, _LANGCHAIN_REFUSAL, False, 0, "NOT REPRODUCED: refused before sending"),
    ("forced.mjs", None, _LANGCHAIN_REFUSAL, False, 0, "NOT REPRODUCED: refused before sending"),
    ("forced.py", None, "connection reset", False, 2, "NEITHER the finding nor what is expected"),
    ("forced.py", _forced(None, "search_web"), None, False, 2, "NEITHER the finding nor what is expected"),
    ("active-tools.mjs", _tools(), None, False, 1, "REPRODUCED"),
    ("active-tools.mjs", _tools("search_web"), None, False, 0, "NOT REPRODUCED"),
    ("active-tools.mjs", _tools("plain"), None, False, 2, "NEITHER the finding nor what is expected"),
    ("active-tools.mjs", _tools("plain", "search_web"), None, False, 2, _EVERY_TOOL.format('"plain","search_web"')),
    ("active-tools.mjs", _tools("search_web", "plain"), None, False, 2, _EVERY_TOOL.format('"search_web","plain"')),
    ("active-tools.mjs", None, "boom", False, 2, "NEITHER the finding nor what is expected"),
    ("round-trip.py", _tools("search_web"), "KeyError", False, 1, "REPRODUCED"),
    ("round-trip.py", _tools("search_web"), None, True, 0, "NOT REPRODUCED"),
    ("round-trip.py", _tools("search_web"), "JSONDecodeError", False, 2, "NEITHER the finding nor"),
    ("round-trip.py", None, "connection reset", False, 2, "NEITHER the finding nor what is expected"),
    ("round-trip.py", {"messages": []}, None, False, 2, "NEITHER the finding nor what is expected: the request"),
]


def _check_program(check: str, sent: dict | None, thrown: str | None, ran: bool) -> tuple[str, str]:
    """A program running the check template ``check`` on one outcome: its file name and text."""
    text = (templates.TEMPLATES / f"check-{check}.tmpl").read_text(encoding="utf-8")
    if check.endswith(".mjs"):
        error = "null" if thrown is None else json.dumps({"message": thrown})
        return "check.mjs", (
            "function verdict(line, code) { console.log(line); process.exit(code); }\n"
            f"function judge(sent, thrown) {{\n{text}}}\n"
            f"judge({json.dumps(sent)}, {error});\n"
        )
    error = {None: "None", "KeyError": "KeyError('search_web')", "JSONDecodeError": "ValueError('Expecting value')"}
    raised = error.get(thrown, f"RuntimeError({thrown!r})")
    return "check.py", (
        "import json\nimport sys\n\n\ndef verdict(line, code):\n    print(line)\n    sys.exit(code)\n\n\n"
        f"def main():\n    sent, thrown, ran = {sent!r}, {raised}, {[1] if ran else []!r}\n{text}\n\nmain()\n"
    )


@pytest.mark.parametrize(("check", "sent", "thrown", "ran", "code", "said"), CHECK_OUTCOMES)
def test_each_check_tells_the_finding_from_what_is_expected_and_from_neither(
    tmp_path, check, sent, thrown, ran, code, said
):
    """A crash, a refusal for another reason or a request changed otherwise is neither the finding nor what is
    expected: it exits 2, where it once passed for fixed (exit 0). The scripts' own checks, run on each outcome."""
    name, text = _check_program(check, sent, thrown, ran)
    program = tmp_path / name
    program.write_text(text, encoding="utf-8")
    command = ["node", str(program)] if name.endswith(".mjs") else [sys.executable, str(program)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.startswith(said)) == (code, True), done.stdout + done.stderr


def test_mastra_scripts_build_the_model_of_their_era():
    rep = claims.REPRODUCTIONS["A10"]
    assert "createOpenAI" in templates.script(rep, "0.13.2")[1]  # AI SDK 4, no model router
    assert "`${url}/chat/completions`" in templates.script(rep, "0.20.1")[1]  # the first router's endpoint
    newest = templates.script(rep, "1.67.0")[1]
    assert "createOpenAI" not in newest and "{ id: 'openai/gpt-4o-mini', url, apiKey" in newest


def test_the_report_shows_a_request_with_the_fields_it_had_and_the_versions_that_built_it(tmp_path):
    """A request without ``tools`` is not shown with an empty list; the Python packages the script imports are named
    beside the framework's; a Node package's declared Node.js range is quoted beside the run's Node.js."""
    assert folder._trimmed({"model": "m", "messages": []}) == {}
    assert folder._trimmed({"tools": [], "tool_choice": "auto"}) == {"tools": [], "tool_choice": "auto"}
    (tmp_path / "requirements.txt").write_text("llama-index-core==0.14.25\nllama-index-llms-openai==0.8.3\nopenai==2\n")
    script = "    from llama_index.core.tools import FunctionTool\n    from llama_index.llms.openai import OpenAI\n"
    assert folder._imported_pins(script, tmp_path, "llama-index-core") == ", with llama-index-llms-openai 0.8.3"
    (tmp_path / "node_modules" / "@mastra" / "core").mkdir(parents=True)
    (tmp_path / "node_modules" / "@mastra" / "core" / "package.json").write_text('{"engines": {"node": ">=22.13.0"}}')
    assert folder._declared_node(tmp_path, "@mastra/core") == " (the package declares node >=22.13.0)"
    assert folder._declared_node(tmp_path, "ai") == ""


@pytest.mark.parametrize("line", ["FAILED: `search.web` is not a tool", "REPRODUCED: ```", "`x`` <b>|</b>", "plain"])
def test_a_printed_line_is_one_code_span_of_the_report_whatever_backticks_it_holds(line):
    from markdown_it import MarkdownIt  # a CommonMark parser, as trackers render the report

    parser = MarkdownIt("commonmark")
    tokens = parser.parseInline(folder._inline(line))[0].children
    assert [(token.type, token.content) for token in tokens] == [("code_inline", line)]
    block = [token for token in parser.parse(folder._fenced(f"a\n{line}\n```", "json")) if token.type == "fence"]
    assert [(token.info, token.content) for token in block] == [("json", f"a\n{line}\n```\n")]


@pytest.mark.parametrize(
    ("claim", "with_fix"),
    [(claim, fix) for claim, rep in claims.REPRODUCTIONS.items() for fix in ((False, True) if rep.fixed else (False,))],
)
@pytest.mark.parametrize("code", [folder.REPRODUCED, folder.NOT_REPRODUCED])
def test_each_report_and_run_sh_is_rendered_whole(tmp_path, monkeypatch, claim, with_fix, code):
    """``ISSUE.md`` and ``run.sh`` of each claim, reproduced or not, with its fix or without: nothing of a template
    left in them, each section of the report once and in order, the fix's section and ``--fixed`` only with a fix."""
    monkeypatch.setattr(folder, "_runtime", lambda script_name: "Runtime 1.0")  # no python3 or node run for it
    rep = claims.REPRODUCTIONS[claim]
    (tmp_path / "request.json").write_text(json.dumps([_tools("search_web")]), encoding="utf-8")
    name, script = templates.script(rep, "1.67.0")
    result = folder.ReproResult(tmp_path, "REPRODUCED: x" if code == folder.REPRODUCED else "NOT REPRODUCED: y", code)
    after = folder.ReproResult(tmp_path, "NOT REPRODUCED: fixed", folder.NOT_REPRODUCED) if with_fix else None
    report = folder.issue(rep, "pkg", "1.67.0", name, script, result, after)
    run_sh = templates.run_sh(rep, "1.67.0", "pkg", name, patched=with_fix)
    for text in (report, run_sh):
        assert not re.search(r"\{[{%#]", text) and text.endswith("\n") and not text.endswith("\n\n")
    fix = ["## With the proposed fix"] if with_fix else []
    sections = ["## Steps to reproduce", "## Expected", "## Actual", *fix, "## Why it matters"]
    assert [line for line in report.splitlines() if line.startswith("## ")] == sections
    title = f"# {rep.title}" if code == folder.REPRODUCED else f"# Not reproduced on pkg 1.67.0: {rep.title}"
    assert report.splitlines()[0] == title and f"`{result.line}`" in report and f"ledger claim {claim}: " in report
    assert f"{rep.expected}." in report and '"name": "search_web"' in report
    assert run_sh.startswith("#!/bin/sh\n# Reproduces ") and run_sh.endswith(f" {name}\n")
    assert ("--fixed" in run_sh) == with_fix and ("`fix.patch`" in report) == with_fix


# -- run for real ------------------------------------------------------------------------------------------


def _assert_standalone(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_file() and path.name != "ISSUE.md":
            assert "probe_lib" not in path.read_text(encoding="utf-8"), path.name


def _reproduce(
    tmp_path: Path, claim: str, version: str, *extra: str, wheels: Path | None = None
) -> tuple[subprocess.CompletedProcess, Path]:
    """``probe-lib repro`` run for real; ``wheels``: the folder ``run.sh``'s pip installs from (:func:`wheelhouse`),
    without compiling every installed module to bytecode first (``PIP_COMPILE``: the script imports each module once,
    and Python compiles what it imports; 11.6 s of user CPU a venv with it, 4.0 s without, on this machine)."""
    out = tmp_path / f"{claim}-{version}"
    pip = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_COMPILE": "false"} if wheels else {}
    env = {**os.environ, **pip} if pip else None
    done = run_cli(claim, "--version", version, "--out", str(out), *extra, env=env)
    return done, out


@pytest.fixture(scope="module")
def wheelhouse() -> Path:
    """The locked wheels of the LlamaIndex releases reproduced here, downloaded once into a folder kept between runs
    (beside the era tests' cache), for ``run.sh``'s pip to install from (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``): the
    same files, without pip reading the package index again for each of five fresh venvs (one venv's install on this
    machine's mirror: 20.7 s of user CPU from the index, 11.8 s from the folder). Downloaded under a lock: xdist's
    workers share it."""
    import fcntl

    from conftest import _kept_release_cache

    from probe_lib.frameworks import base
    from probe_lib.install import pyvenv

    folder = _kept_release_cache() / "repro-wheels"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for version in ("0.14.25", "0.14.10"):
            complete = folder / f".llama-index-{version}.complete"
            if not complete.exists():
                requirements = base.get("llama-index").pins.folder(version) / pyvenv.LOCK
                # The python3 on PATH, which run.sh makes its venv with: the wheels fit that interpreter.
                command = ["python3", "-m", "pip", "download", "-q", "--no-deps", "-r", str(requirements)]
                subprocess.run([*command, "-d", str(folder)], check=True, capture_output=True, timeout=900)
                complete.touch()
    return folder


def _assert_found(done: subprocess.CompletedProcess, out: Path, package: str, version: str, fixed: str | None) -> None:
    """The run on the release with the finding: ``REPRODUCED``, or with ``fixed`` (the text the patched run prints)
    run again with ``--fixed``: ``NOT REPRODUCED`` on the patched package, the unpatched run's ``REPRODUCED`` and
    the fix in the report, and the patch beside it."""
    report = (out / "ISSUE.md").read_text(encoding="utf-8")
    assert f"{package} {version}" in report and done.stdout.splitlines()[0] in report
    _assert_standalone(out)
    if fixed is None:
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.startswith("REPRODUCED: ")
        return
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("NOT REPRODUCED: ") and fixed in done.stdout
    assert "`REPRODUCED: " in report and "## With the proposed fix" in report  # the unpatched run, then the fix
    assert (out / "fix.patch").read_text(encoding="utf-8").startswith(f"Fix for {package} {version}")
    # The request shown under Actual is the unpatched run's (it was the patched one's); the patched ones lie beside.
    unpatched = json.loads((out / "request.json").read_text(encoding="utf-8"))
    shown = json.dumps(folder._trimmed(unpatched[0]), indent=2, ensure_ascii=False)
    assert shown in report.split("## With the proposed fix")[0] and (out / folder.FIXED_REQUESTS).is_file()


def _assert_titled_not_reproduced(out: Path, package: str, version: str) -> None:
    """A report of a run that did not reproduce the finding says so in its title, not the finding."""
    title = (out / "ISSUE.md").read_text(encoding="utf-8").splitlines()[0]
    assert title.startswith(f"# Not reproduced on {package} {version}: "), title


# A claim the kit has a fix for runs with --fixed: its unpatched run is the reproduction, then the patched one.
# The release without the finding: A10's 0.13.1 sends the key it forces, as registered (what is expected); F09's
# 1.0.4 ignores activeTools and sends every tool, which is neither the finding nor what is expected (exit 2).
@pytest.mark.slow
@pytest.mark.parametrize(
    ("claim", "with_finding", "without", "fixed", "without_says"),
    [
        ("A10", "1.67.0", "0.13.1", '"name":"search_web"', (0, "NOT REPRODUCED: ")),
        ("F09", "1.67.0", "1.0.4", None, (2, "NEITHER the finding nor what is expected: ")),
    ],
)
def test_mastra_reproduction_runs_without_the_kit(tmp_path, claim, with_finding, without, fixed, without_says):
    done, out = _reproduce(tmp_path, claim, with_finding, *(["--fixed"] if fixed else []))
    _assert_found(done, out, "@mastra/core", with_finding, fixed)
    assert {"package.json", "package-lock.json", "repro.mjs", "run.sh", "ISSUE.md"} <= {p.name for p in out.iterdir()}
    lock = json.loads((out / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["node_modules/@mastra/core"]["version"] == with_finding
    if claim == "A10":  # the unpatched run's line: the tool sent renamed, the forced name as registered
        report = (out / "ISSUE.md").read_text(encoding="utf-8")
        assert 'tools ["search_web"]' in report and '"function":{"name":"search.web"}' in report

    done, out = _reproduce(tmp_path, claim, without)
    assert (done.returncode, done.stdout.startswith(without_says[1])) == (without_says[0], True), done.stdout
    _assert_titled_not_reproduced(out, "@mastra/core", without)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("claim", "package", "with_finding", "without", "files", "fixed"),
    [
        ("T07", "@openai/agents", "0.5.4", "0.20.0", {"package.json", "package-lock.json", "repro.mjs"}, None),
        ("T09", "llama-index-core", "0.14.25", "0.14.10", {"requirements.txt", "repro.py"}, None),
        ("T10", "llama-index-core", "0.14.25", "0.14.10", {"requirements.txt", "repro.py"}, 'called "search_web"'),
    ],
)
def test_other_frameworks_reproductions_run_without_the_kit(
    request, tmp_path, claim, package, with_finding, without, files, fixed
):
    wheels = request.getfixturevalue("wheelhouse") if "requirements.txt" in files else None
    done, out = _reproduce(tmp_path, claim, with_finding, *(["--fixed"] if fixed else []), wheels=wheels)
    _assert_found(done, out, package, with_finding, fixed)
    assert files | {"run.sh", "ISSUE.md"} <= {p.name for p in out.iterdir()}
    if (out / ".venv").exists():  # the script ran in a venv of its own, where the kit is not importable
        python = out / ".venv" / "bin" / "python"
        probe = subprocess.run([str(python), "-I", "-c", "import probe_lib"], capture_output=True, text=True)
        assert probe.returncode != 0 and "ModuleNotFoundError" in probe.stderr

    done, out = _reproduce(tmp_path, claim, without, wheels=wheels)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("NOT REPRODUCED: ")
    _assert_titled_not_reproduced(out, package, without)


# -- the fix ------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_mastra_fix_changes_only_the_call_methods_of_the_shipped_chunks(node_modules):
    from probe_lib.repro import patches

    package = node_modules["1.67.0"] / "mastra-1.67.0"
    changes = patches.mastra_changes(package)
    assert {path.suffix for path in changes} == {".js", ".cjs"}  # the ESM and the CommonJS build alike
    for relative, text in changes.items():
        shipped = (package / relative).read_text(encoding="utf-8")
        assert text.endswith(patches.MASTRA_HELPER) and text.count("function formatToolNamesInOptions(") == 1
        added = [line for line in text.removesuffix(patches.MASTRA_HELPER).splitlines() if line not in shipped]
        assert added and all(re.fullmatch(r"\s+(\w+) = formatToolNamesInOptions\(\1\);", line) for line in added)
    with pytest.raises(patches.PatchDoesNotApply):
        patches.mastra_changes(node_modules["1.67.0"] / "zod")


def test_the_targeted_table_says_not_compared_exactly_where_the_verification_has_no_row():
    """Notebook 16 reads a missing cell as a turn left out of the comparison: the table must say so in words, on
    each (scenario, release) the committed verification holds no row for, and nowhere else."""
    from probe_lib.repro import verify

    for framework in sorted({row.framework for row in verify.read()}):
        rows = [row for row in verify.read() if row.framework == framework and row.targeted == "yes"]
        held = {(row.scenario, row.version) for row in rows}
        table = verify.targeted_table(verify.frame(framework))
        said = {(scenario, version) for scenario in table.index for version in table.columns}
        missing = {cell for cell in said if table.loc[cell] == verify.NOT_COMPARED}
        assert missing == said - held and not table.isna().any().any(), framework


def test_the_committed_verification_shows_the_fix_consistent_and_nothing_else_changed():
    from probe_lib.repro import verify

    rows = verify.read()
    assert rows, "data/fix_verification.csv holds no release"
    for row in rows:
        if row.targeted == "yes":  # consistent after; "-": a path the release does not have (no request either way)
            assert row.consistent_after == "yes" or row.consistent_before == row.consistent_after == "-", row
        else:
            assert row.before == row.after, row


def test_the_verdict_counts_only_a_turn_made_consistent_and_names_one_the_patch_silenced():
    """A targeted turn that sends no request once patched is not 'made consistent': a patch that breaks the turn
    must show in the verdict line."""
    from probe_lib.repro.verify import FixRow, verdict

    def row(scenario, targeted, before, after, was="", became=""):
        return FixRow("mastra", "9.9.9", scenario, targeted, before, after, was, became, "", "")

    fixed = [row("choice-by-key", "yes", "a", "b", "no", "yes"), row("plain", "no", "c", "c")]
    assert verdict(fixed) == "9.9.9: 1 of 1 targeted scenarios made consistent; every other scenario unchanged"
    silenced = [row("choice-by-key", "yes", "a", "b", "no", "-"), row("plain", "no", "c", "c")]
    assert verdict(silenced) == (
        "9.9.9: 0 of 1 targeted scenarios made consistent, sending no request once patched: choice-by-key; "
        "every other scenario unchanged"
    )


def test_the_verification_readme_lists_the_releases_the_file_holds_and_those_it_does_not():
    from probe_lib.core import paths
    from probe_lib.repro import verify

    readme = (paths.DATA / "fix_verification.README.md").read_text(encoding="utf-8")

    def listed(label: str, framework: str) -> list[str]:
        line = re.search(rf"^{label} \({framework}\): (.*)$", readme, re.MULTILINE)[1]
        return [] if line in ("", "none") else line.split(", ")

    for framework in ("mastra", "llama-index"):
        held = sorted({row.version for row in verify.read() if row.framework == framework}, key=version_key)
        assert listed("Releases", framework) == held, framework
        missing = listed("Not measured", framework)
        assert missing == verify.unmeasured(framework), framework
        # Together the two lines are every affected release the release list holds, and no other.
        assert sorted([*held, *missing], key=version_key) == verify.affected(framework), framework


@pytest.mark.parametrize(("framework", "probe"), [("mastra", "single-rewrite"), ("llama-index", "dot+forced")])
def test_the_fix_is_verified_from_the_first_release_the_timeline_shows_renaming(framework, probe):
    """``verify.SINCE`` (where :func:`verify.affected` starts) is the first stable release whose committed timeline
    sends ``search.web`` renamed to ``search_web``: the asymmetry the fix closes begins there, not by a typed date."""
    from probe_lib.analysis import timeline
    from probe_lib.history import timeline as committed
    from probe_lib.repro import verify

    table = timeline.stable(timeline.frame(committed.read([framework])))
    lines = table[table["scenario"] == probe].sort_values("rank")
    renaming = [line.version for line in lines.itertuples() if "search_web" in (line.behaviour.names or ())]
    assert renaming, f"no {framework} release in the timeline renames search.web on {probe}"
    assert verify.SINCE[framework] == renaming[0]
    assert verify.affected(framework)[0] == renaming[0]
