"""Every subcommand, fed generated junk, ends with exit 2 and one short stderr line: never a traceback, never an
echo of the input, never a half-printed result. Lone surrogates are legal JSON and come out escaped.

The property tests call ``cli.main`` in this process with real byte streams for stdin, stdout and stderr (a
subprocess per example would make them minutes long); the catalogue at the end runs the real ``probe-lib``
process on the inputs that used to end in a traceback. Inputs are built to fail before any long work starts,
so no example launches Node, a server or a kernel.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import js_strings

from probe_lib import cli
from probe_lib.frameworks import mastra
from probe_lib.inputs import scenario_files

#: An error line may name the fault and a short quote of it, never much more.
MAX_ERROR_CHARS = 500
JUNK = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_main(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """``probe-lib ARGV`` in this process; stdin, stdout and stderr are UTF-8 byte streams like a real pipe's."""
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr):
            try:
                code = cli.main(argv)
            except SystemExit as exit:  # argparse
                code = exit.code
    finally:
        sys.stdin = saved
    return code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")


def assert_input_error(code: int, stdout: str, stderr: str) -> None:
    assert code == 2, (code, stderr[:2000])
    assert stdout == "", "nothing may be half-printed"
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr[:2000]
    assert len(stderr) <= MAX_ERROR_CHARS and stderr.startswith("probe-lib"), stderr[:2000]


# -- generated junk ------------------------------------------------------------------------------------------

deep_nesting = st.integers(1_000, 5_000).flatmap(
    lambda depth: st.sampled_from([b"[" * depth + b"]" * depth, b'{"a":' * depth + b"1" + b"}" * depth, b"[" * depth])
)
huge_integers = st.integers(4_301, 20_000).map(lambda digits: b'["a", ' + b"7" * digits + b"]")
invalid_utf8 = st.binary(min_size=1, max_size=40).map(lambda tail: b'["\xff' + tail + b'"]')
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | js_strings(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(js_strings(max_size=5), inner, max_size=3),
    max_leaves=12,
)
#: JSON that is never a tools record or batch: not an array, or an array holding a non-string non-array.
wrong_shapes = st.one_of(
    json_values.filter(lambda value: not isinstance(value, list)),
    st.tuples(
        st.lists(js_strings(max_size=5), max_size=3),
        st.none() | st.integers() | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ).map(lambda parts: [*parts[0], parts[1]]),
    st.just("x" * 2_000_000).map(lambda big: [big, 1]),  # a megabyte of input must not be echoed
).map(lambda value: json.dumps(value).encode("utf-8", "surrogatepass"))
bad_stdin = st.one_of(
    deep_nesting,
    huge_integers,
    invalid_utf8,
    wrong_shapes,
    st.binary(max_size=30).filter(lambda data: not data.strip().startswith((b"[", b'"', b"{")) or b"\xff" in data),
)
bad_versions = st.one_of(
    st.sampled_from(["../../etc", "1.67.0 ", " 1.67.0", "1.67", "latest", "", "1.67.0\n", "x" * 100_000]),
    st.text(max_size=12),
).filter(lambda text: text not in mastra.ADAPTER.versions())
bad_counts = st.one_of(
    st.integers(max_value=0), st.integers(min_value=4097), st.sampled_from(["two", "1.5", "", "0x10", "9" * 5000])
)
bad_heaps = st.one_of(st.integers(max_value=63), st.integers(min_value=65_537), st.sampled_from(["big", "1.5", ""]))
bad_ports = st.one_of(st.integers(max_value=-1), st.integers(min_value=65_536), st.sampled_from(["http", "80.0", ""]))


@pytest.mark.slow
@JUNK
@given(stdin=bad_stdin, as_json=st.booleans())
def test_normalise_refuses_junk_stdin_in_one_line(stdin, as_json):
    assert_input_error(*run_main(["normalise", *(["--json"] if as_json else [])], stdin))


@JUNK
@given(
    stdin=bad_stdin | st.just(b'["a"]'), version=bad_versions, count=bad_counts, heap=bad_heaps, which=st.integers(0, 4)
)
def test_probe_refuses_junk_before_starting_node(stdin, version, count, heap, which):
    flags = [
        ["--mastra", version],
        ["--workers", str(count)],
        ["--max-body-mb", str(count)],
        ["--node-heap-mb", str(heap)],
        [],
    ][which]
    if not flags and stdin == b'["a"]':
        flags = ["--workers", "0"]
    assert_input_error(*run_main(["probe", "--json", *flags], stdin))


@JUNK
@given(version=bad_versions, jobs=bad_counts, which=st.integers(0, 2))
def test_reproduce_and_record_refuse_junk_flags(version, jobs, which):
    argv = [["reproduce", "--mastra", version], ["reproduce", "--jobs", str(jobs)], ["record", "--mastra", version]][
        which
    ]
    assert_input_error(*run_main(argv))


@pytest.mark.parametrize("kind", ["file", "symlink", "foreign folder", "root"])
def test_reproduce_refuses_an_out_it_may_not_replace(tmp_path, kind):
    target = {"root": Path("/")}.get(kind, tmp_path / "out")
    if kind == "file":
        target.write_text("mine")
    elif kind == "symlink":
        target.symlink_to(tmp_path)
    elif kind == "foreign folder":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    assert_input_error(*run_main(["reproduce", "--out", str(target)]))


@JUNK
@given(port=bad_ports)
def test_capture_refuses_a_port_out_of_range(port):
    assert_input_error(*run_main(["capture", "--port", str(port)]))


#: Reply files that are never a valid script: not an array, or an array holding an unknown reply form.
bad_replies = st.one_of(
    bad_stdin,
    st.tuples(
        st.lists(st.just({"text": "ok"}), max_size=2),
        json_values.filter(
            lambda value: (
                not (isinstance(value, dict) and len(value) == 1 and set(value) <= {"text", "error", "tool_calls"})
            )
        ),
    ).map(lambda parts: json.dumps([*parts[0], parts[1]]).encode("utf-8", "surrogatepass")),
)


@JUNK
@given(replies=bad_replies)
def test_capture_refuses_a_junk_replies_file(replies):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "replies.json"
        path.write_bytes(replies)
        assert_input_error(*run_main(["capture", "--replies", str(path)]))


def test_capture_refuses_an_out_that_is_a_folder(tmp_path):
    assert_input_error(*run_main(["capture", "--out", str(tmp_path)]))


@JUNK
@given(
    flag=st.text(min_size=1, max_size=20)
    .map(lambda text: "--" + text.lstrip("-"))
    .filter(lambda flag: flag not in ("--verbose", "--with-browser", "--all-frameworks", "--help"))
)
def test_setup_refuses_an_unknown_flag_before_installing_anything(flag):
    assert_input_error(*run_main(["setup", flag]))


@JUNK
@given(file=bad_stdin)
def test_lint_refuses_a_junk_file_in_one_line(file):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "requests.json"
        path.write_bytes(file)
        code, stdout, stderr = run_main(["lint", str(path), "--json"])
    if code == 2:
        assert_input_error(code, stdout, stderr)
    else:  # junk that happens to hold a request body: a real report, and never a traceback
        assert code in (0, 1) and stderr == "" and json.loads(stdout)["requests"] >= 1


#: ``tools`` a provider refuses: not an array, or an array holding an item that is no tool at all.
junk_tools = st.one_of(
    json_values.filter(lambda value: not isinstance(value, list) and value is not None),
    st.lists(
        st.none()
        | st.integers()
        | js_strings(max_size=5)
        | st.lists(st.integers(), max_size=2)
        | st.just({})
        | st.just({"function": {}})
        | st.just({"type": "function"}),
        min_size=1,
        max_size=4,
    ),
)


@JUNK
@given(tools=junk_tools, as_json=st.booleans())
def test_lint_never_calls_junk_tools_clean(tools, as_json):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "body.json"
        path.write_text(json.dumps({"model": "m", "tools": tools}), encoding="utf-8")
        code, stdout, stderr = run_main(["lint", str(path), *(["--json"] if as_json else [])])
    assert code == 1, stdout
    assert "malformed-tool" in stdout


#: Argument bytes that are not UTF-8, as Python hands them over (surrogate escapes U+DC80..U+DCFF), among text.
argv_keys = st.lists(
    st.text(st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF) | st.characters(codec="utf-8"), max_size=6),
    min_size=1,
    max_size=4,
)


@JUNK
@given(keys=argv_keys, command=st.sampled_from(["normalise", "probe"]))
def test_key_arguments_that_were_not_utf8_are_refused_as_stdin_refuses_them(keys, command):
    junk = any("\udc80" <= char <= "\udcff" for key in keys for char in key)
    assume(junk or command == "normalise")  # probe's clean keys would start Node
    code, stdout, stderr = run_main([command, "--json", "--", *keys])
    if junk:
        assert_input_error(code, stdout, stderr)
        assert "is not UTF-8 text" in stderr
    elif command == "normalise":
        assert code in (0, 2) and "Traceback" not in stderr and stderr.count("\n") <= 1, stderr


@JUNK
@given(
    keys=st.lists(js_strings(min_size=1, max_size=6), min_size=1, max_size=5, unique=True).filter(
        lambda keys: any("\ud800" <= char <= "\udfff" for key in keys for char in key)
    )
)
def test_lone_surrogates_are_normalised_and_printed_escaped(keys):
    stdin = json.dumps(keys).encode()  # ASCII escapes, as any JSON encoder may send them
    code, stdout, stderr = run_main(["normalise", "--json"], stdin)
    assert code == 0 and stderr == ""
    assert len(json.loads(stdout).get("names", keys)) == len(keys)
    code, table, stderr = run_main(["normalise"], stdin)
    assert code == 0 and stderr == "" and "\\ud" in table.lower()


def test_lint_json_prints_a_lone_surrogate_name_escaped(tmp_path):
    path = tmp_path / "body.json"
    path.write_text('{"messages": [], "tools": [{"type": "function", "function": {"name": "a\\ud800"}}]}')
    code, stdout, stderr = run_main(["lint", str(path), "--json"])
    assert code == 1 and stderr == ""
    assert json.loads(stdout)["findings"][0]["name"] == "a\ud800"


@pytest.mark.parametrize(
    "argv", [["export"], ["reproduce"], ["run", "scenarios.yaml"], ["repro", "A10", "--version", "1.67.0"]], ids=str
)
def test_an_empty_out_is_refused_in_one_line_and_nothing_is_written(argv, tmp_path, monkeypatch):
    """``--out ''`` once wrote an export into the working folder."""
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run_main([*argv, "--out", ""])
    assert_input_error(code, stdout, stderr)
    assert "argument --out: is empty; give a folder" in stderr
    assert list(tmp_path.iterdir()) == []


# -- the catalogue, as a user meets it: the real process ------------------------------------------------------

CATALOGUE = [
    (["normalise", "--json"], b"[" * 1000 + b"]" * 1000, "too deeply"),
    (["normalise"], b"[" + b"1" * 5000 + b"]", "number"),
    (["normalise", "--json"], b'["\xff\xfe"]', "UTF-8"),
    (["normalise", "--json"], b'{"a": 1}', "JSON array"),
    (["probe", "--mastra", "../../etc", "a"], b"", "is not MAJOR.MINOR.PATCH"),
    (["probe", "--mastra", "1.67.0 ", "a"], b"", "is not MAJOR.MINOR.PATCH"),
    (["probe", "--workers", "0", "a"], b"", "out of range"),
    (["capture", "--port", "70000"], b"", "out of range"),
    (["reproduce", "--jobs", "0"], b"", "out of range"),
    (["record", "--mastra", "1.67"], b"", "is not MAJOR.MINOR.PATCH"),
    (["setup", "--frobnicate"], b"", "unrecognized"),
    (["normalise", "--jsn", "a"], b"", "unrecognized arguments: --jsn (see probe-lib normalise --help)"),
    (["run", str(Path(__file__).parent)], b"", "tests' is a folder: give a scenario file"),
    (["run", "no-such-scenarios"], b"", "'no-such-scenarios' does not exist: give a scenario file"),
    (["normalise", "--json", b"a\xffb"], b"", "is not UTF-8"),  # refused as stdin refuses it, not rewritten
    (["probe", "--tool-choice", b"\xfe", "a"], b"", "is not UTF-8"),
]


@pytest.mark.parametrize(("argv", "stdin", "fragment"), CATALOGUE, ids=lambda value: str(value)[:30])
def test_the_real_process_answers_bad_input_in_one_line(argv, stdin, fragment):
    done = subprocess.run([sys.executable, "-m", "probe_lib", *argv], input=stdin, capture_output=True, timeout=60)
    assert_input_error(done.returncode, done.stdout.decode(), done.stderr.decode())
    assert fragment in done.stderr.decode()


# -- scenario files: every construct YAML offers beyond JSON, through `probe-lib run` ----------------------------
# Run in this process: each file is refused before any runner starts, so a process would add only its start-up.

#: One file per construct; each must be refused before any runner starts, naming the file, scenario and field.
YAML_CONSTRUCTS = {
    "binary": ("    instructions: !!binary aGVsbG8=\n", "field 'instructions': the YAML tag !!binary"),
    "explicit date": ("    instructions: !!timestamp 2020-01-01\n", "field 'instructions': the YAML tag !!timestamp"),
    "set": ("    activeTools: !!set {a, b}\n", "field 'activeTools': the YAML tag !!set"),
    "local tag": ("    maxSteps: !mine 1\n", "field 'maxSteps': the YAML tag !mine"),
    "list as key": ("    toolsets:\n      ? [a, b]\n      : [c]\n", "field 'toolsets': a mapping key must be text"),
    "alias to a list as key": (
        "    activeTools: &k [a]\n    toolsets: {*k : [c]}\n",
        "field 'toolsets': a mapping key must be text, not a list",
    ),
    "mapping as key": ("    toolsets: {{a: 1}: [c]}\n", "field 'toolsets': a mapping key must be text"),
    "scalar key tagged as a mapping": (
        "    toolsets: {!!map 2020-01-01: [c]}\n",
        "field 'toolsets': the YAML tag !!map does not fit the value after it",
    ),
    "list tagged as text": ("    activeTools: !!str [a]\n", "field 'activeTools': the YAML tag !!str does not fit"),
    "deep block nesting": (
        "    replies:\n      " + "- " * 3000 + "x\n",  # a sequence in a sequence …, block style
        "field 'replies[0][0][0][0][0][0][0]…': nested more than 64 levels deep",
    ),
    "deep flow nesting": (
        "    activeTools: " + "[" * 5000 + "]" * 5000 + "\n",
        "field 'activeTools[0][0][0][0][0][0][0]…': nested",
    ),
    "alias in its own anchor": ("    activeTools: &loop [*loop]\n", "field 'activeTools[0]': an alias inside its own"),
    "number past the digit limit": ("    maxSteps: " + "7" * 5000 + "\n", "field 'maxSteps': a number of 5,000 digits"),
    "nan": ("    timeoutMs: .nan\n", "field 'timeoutMs': .nan is not a JSON number"),
    "key given twice": ("    method: stream\n    method: generate\n", "field 'method' is given twice"),
}


@pytest.mark.parametrize("construct", YAML_CONSTRUCTS, ids=str)
def test_the_real_run_refuses_each_yaml_construct_in_one_line(construct, tmp_path):
    body, fragment = YAML_CONSTRUCTS[construct]
    path = tmp_path / "mine.yaml"
    path.write_text("scenarios:\n  - name: mine\n" + body, encoding="utf-8")
    code, stdout, stderr = run_main(["run", str(path), "--json"])
    assert_input_error(code, stdout, stderr)
    assert f"{path}: scenario 'mine' (number 1): {fragment}" in stderr


#: Nine levels of nine aliases each: 49 lines that PyYAML, which shares an alias's node, reads in an instant, and
#: that any walk copying each alias where it is used (a validator, json.dumps, an error message) expands to 9**9.
BILLION_LAUGHS = (
    "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]\n" for n in range(1, 9))
    + "scenarios:\n  - name: laughs\n    replies: [{tool_calls: [{name: a, arguments: {laughs: *l8}}]}]\n"
)
#: Address space for the refusing process: room for the kit's imports, not for the bomb's expansion.
BOMB_MEMORY = 512 << 20
BOMB_SECONDS = 60


def _limited(command: list[str]) -> subprocess.CompletedProcess:
    """``command`` under :data:`BOMB_MEMORY` of address space and :data:`BOMB_SECONDS` of CPU time."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (BOMB_MEMORY, BOMB_MEMORY))
        resource.setrlimit(resource.RLIMIT_CPU, (BOMB_SECONDS, BOMB_SECONDS))

    return subprocess.run(command, capture_output=True, preexec_fn=limit, timeout=BOMB_SECONDS * 2)


@pytest.mark.slow
def test_an_alias_bomb_is_refused_in_bounded_memory_and_time_and_never_expanded(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(BILLION_LAUGHS, encoding="utf-8")
    done = _limited([sys.executable, "-m", "probe_lib", "run", str(path), "--json"])
    assert_input_error(done.returncode, done.stdout.decode(), done.stderr.decode())
    assert "its aliases expand to more than 500,000 values" in done.stderr.decode()
    # The counterfactual: the limits bite. Expanding the same file, as a plain safe_load + json.dumps does, fails.
    expand = "import json, sys, yaml; json.dumps(yaml.safe_load(open(sys.argv[1])))"
    naive = _limited([sys.executable, "-c", expand, str(path)])
    assert naive.returncode != 0 and b"MemoryError" in naive.stderr, naive.stderr[-500:]


def test_yaml_dates_are_text_and_anchors_are_shared_not_refused(tmp_path):
    """What YAML 1.1 reads as a date is the text a user wrote (JSON has no dates); an anchor used a few times is
    the kit's own catalogue's habit and stays allowed."""
    text = (
        "scenarios:\n  - name: 2020-01-01\n    tools: &mine [{key: a, id: 2020-01-01T10:00:00}]\n"
        "    replies: [{tool_calls: [{name: a, arguments: {when: 2020-01-01}}]}]\n  - {name: b, tools: *mine}\n"
    )
    first, second = scenario_files.parse(text)
    assert first.name == "2020-01-01" and first.tools[0].id == "2020-01-01T10:00:00"
    assert first.replies[0].calls[0].arguments == {"when": "2020-01-01"}
    assert second.tools == first.tools


JSON_JUNK = {
    "NaN": ('{"scenarios": [{"name": "j", "timeoutMs": NaN}]}', "holds NaN, which is not a JSON number"),
    "overflow": ('{"scenarios": [{"name": "j", "timeoutMs": 1e999}]}', "holds 1e999, which is not a JSON number"),
    "deep": ('{"scenarios": ' + "[" * 5000 + "]" * 5000 + "}", "nests arrays or objects too deeply"),
    "long number": ('{"scenarios": [{"name": "j", "maxSteps": ' + "7" * 5000 + "}]}", "holds a number the kit"),
}


@pytest.mark.parametrize("junk", JSON_JUNK, ids=str)
def test_the_real_run_refuses_json_junk_in_one_line(junk, tmp_path):
    text, fragment = JSON_JUNK[junk]
    path = tmp_path / "mine.json"
    path.write_text(text, encoding="utf-8")
    code, stdout, stderr = run_main(["run", str(path)])
    assert_input_error(code, stdout, stderr)
    assert f"{path} {fragment}" in stderr


# -- the standard streams: closed, empty, full ---------------------------------------------------------------


def _with_closed(descriptor: int):
    """A ``preexec_fn`` starting the child without ``descriptor``, as a shell's ``0<&-`` or ``>&-`` does."""
    return lambda: os.close(descriptor)


@pytest.mark.parametrize("command", [["normalise"], ["normalise", "--json"], ["probe", "--json"]])
def test_a_command_reading_stdin_says_when_stdin_is_closed_or_empty(command):
    base = [sys.executable, "-m", "probe_lib", *command]
    closed = subprocess.run(base, capture_output=True, preexec_fn=_with_closed(0), timeout=60)
    assert_input_error(closed.returncode, closed.stdout.decode(), closed.stderr.decode())
    assert "stdin is closed; give the keys as arguments" in closed.stderr.decode()
    empty = subprocess.run(base, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert_input_error(empty.returncode, empty.stdout.decode(), empty.stderr.decode())
    assert "stdin is empty; give the keys as arguments" in empty.stderr.decode()


@pytest.mark.parametrize(
    ("argv", "code", "printed"),
    [(["lint", "/no/such/file"], 2, b""), (["normalise", "--json", "a.b"], 0, b'{"names": ["a_b"]}\n')],
    ids=["bad input", "good input"],
)
def test_a_closed_stderr_keeps_error_lines_off_stdout(argv, code, printed):
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", *argv], stdout=subprocess.PIPE, preexec_fn=_with_closed(2), timeout=60
    )
    assert (done.returncode, done.stdout) == (code, printed)


def test_a_command_that_prints_refuses_a_closed_stdout_before_any_work():
    command = [sys.executable, "-m", "probe_lib", "normalise", "a"]
    done = subprocess.run(command, stderr=subprocess.PIPE, preexec_fn=_with_closed(1), timeout=60)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "probe-lib normalise: stdout is closed; give it a file, or /dev/null to discard what the command prints\n"
    )


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["normalise", "a"], b""),  # a few lines, still in the buffer when the command returns
        (["normalise", "--json"], json.dumps([[f"k.{n}" for n in range(20)]] * 500).encode()),  # past the buffer
        (["versions"], b""),
        (["--help"], b""),
    ],
    ids=lambda value: str(value)[:20],
)
def test_a_full_stdout_is_one_line_and_exit_1(argv, stdin):
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "probe_lib", *argv], input=stdin, stdout=full, stderr=subprocess.PIPE, timeout=60
        )
    assert done.returncode == 1
    assert done.stderr.decode().endswith(": cannot write to stdout: No space left on device\n")
    assert done.stderr.decode().count("\n") == 1, done.stderr.decode()[-2000:]


# -- generated YAML scenario files ---------------------------------------------------------------------------

#: Scalars YAML 1.1 reads as something other than text, tags, indicators, escapes and numbers past every limit.
odd_scalars = st.one_of(
    st.sampled_from(
        [
            "2020-01-01",
            "2001-12-14t21:59:43.10-05:00",
            "yes",
            "No",
            "off",
            "~",
            "null",
            ".nan",
            "-.inf",
            "0x1F",
            "0o17",
            "0b101",
            "1_000",
            "190:20:30",
            "1e400",
            "=",
            "<<",
            "'q''s'",
            '"\\ud800"',
            '"a\\x00b"',
            "!!binary aGVsbG8=",
            "!!timestamp 2020-01-01",
            "!!str 42",
            "!!int 7",
            "!!float 1",
            "!!bool yes",
            "!!python/object/apply:os.system [true]",
            "!mine x",
            "!!null ''",
            "7" * 5000,
            "-",
            "?",
            "*nowhere",
        ]
    ),  # fmt: skip
    st.text(alphabet="ab7:-?[]{},#&*!|>'\"%@` .\t\\", max_size=12),
    js_strings(max_size=6).map(lambda text: json.dumps(text)),  # a double-quoted string with any escape
)
#: A YAML node in flow style, on one line: collections, anchors and aliases, tags, complex keys, deep nesting.
yaml_nodes = st.recursive(
    odd_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(inner, inner), max_size=3).map(
            lambda pairs: "{" + ", ".join(f"{key}: {value}" for key, value in pairs) + "}"
        ),
        st.tuples(st.integers(0, 3), inner).map(lambda parts: f"&a{parts[0]} {parts[1]}"),
        st.integers(0, 3).map(lambda number: f"*a{number}"),
        st.tuples(st.sampled_from(["!!set", "!!omap", "!!pairs", "!!map", "!!seq", "!!str", "!x"]), inner).map(
            " ".join
        ),
    ),
    max_leaves=10,
) | st.integers(50, 3000).map(lambda depth: "[" * depth + "]" * depth)
#: Anchors defined before the scenarios: nine levels of ``width`` aliases each, from a handful of values to a bomb.
alias_levels = st.tuples(st.integers(0, 9), st.integers(1, 9)).map(
    lambda shape: "".join(
        f"d{n}: &d{n} [{', '.join([f'*d{n - 1}' if n else 'lol'] * shape[1])}]\n" for n in range(shape[0])
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    aliases=alias_levels,
    field=st.sampled_from([*scenario_files.SCHEMA["$defs"]["ScenarioEntry"]["properties"], "other"]),
    value=yaml_nodes | st.integers(0, 9).map(lambda level: f"*d{level}"),
)
@pytest.mark.slow
def test_generated_yaml_scenario_files_end_in_one_line_naming_the_file(aliases, field, value):
    """Whatever a scenario holds, reading the file ends in one line naming it, before any runner starts (the last
    scenario is always invalid, so no example reaches a runner)."""
    text = f"{aliases}scenarios:\n  - name: mine\n    {field}: {value}\n  - {{name: last, maxSteps: 0}}\n"
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "mine.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        code, stdout, stderr = run_main(["run", str(path), "--json"])
    assert_input_error(code, stdout, stderr)
    assert stderr.startswith(f"probe-lib run: {path}"), stderr


# -- what the machine says: warnings and refused writes, each one line -------------------------------------------


@pytest.mark.slow
def test_a_warning_is_one_line_of_its_command_without_python_s_source_line(tmp_path):
    """Without Node.js, ``run`` reads the recordings and warns: one line, as its errors are."""
    scenarios = tmp_path / "mine.json"
    scenarios.write_text('{"scenarios": [{"name": "only-here", "tools": ["a"]}]}', encoding="utf-8")
    command = [sys.executable, "-m", "probe_lib", "run", str(scenarios)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": str(tmp_path)}
    )
    lines = done.stderr.splitlines()
    assert any(line.startswith("probe-lib run: warning: mastra@") for line in lines), done.stderr
    assert all(line.startswith("probe-lib run: ") for line in lines), done.stderr
    assert done.returncode == 2 and "has no recording" in lines[-1]


@pytest.mark.slow
def test_a_write_the_machine_refuses_is_one_line_exit_1_and_no_half_written_folder(tmp_path):
    """A file size limit fails the kit's writes as a full disk does (``EFBIG`` where ``ENOSPC``)."""
    import resource
    import signal

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails instead of killing

    out = tmp_path / "export"
    command = [sys.executable, "-m", "probe_lib", "export", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, preexec_fn=limited)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("probe-lib export: File too large") and done.stderr.count("\n") == 1, done.stderr
    assert not out.exists()
