"""The CLI as a user runs it: a real subprocess, JSON in and out, one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "probe_lib", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_normalise_one_record_from_stdin():
    done = run_cli("normalise", "--json", stdin=json.dumps(["search.web", "weather-EU"]))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"names": ["weather-EU", "search_web"]}


def test_normalise_batch_keeps_order_and_reports_errors():
    batch = [["a", "b.c"], ["search.web", "search web"], ["", "x"], ["1x"]]
    done = run_cli("normalise", "--json", stdin=json.dumps(batch))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert results[0] == {"names": ["a", "b_c"]}
    assert results[1] == {"error": {"kind": "collision", "name": "search_web"}}
    assert results[2]["error"]["kind"] == "crash" and "match" in results[2]["error"]["message"]
    assert results[3] == {"names": ["_1x"]}


def test_normalise_keys_as_arguments_prints_a_table():
    done = run_cli("normalise", "search.web", "9lives")
    assert done.returncode == 0, done.stderr
    assert "search_web" in done.stdout and "_9lives" in done.stdout and "S" in done.stdout


def test_lone_surrogates_survive_the_json_round_trip():
    done = run_cli("normalise", "--json", stdin='["a\\ud800b"]')
    assert json.loads(done.stdout) == {"names": ["a_b"]}


@pytest.mark.parametrize(
    ("stdin", "fragment"),
    [
        ("not json", "not JSON"),
        ('{"a": 1}', "JSON array"),
        ('["a", 3]', "not a string"),
        ('["a", "a"]', "appears twice"),
        ('[["a"], "b"]', "arrays of keys"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(stdin, fragment):
    done = run_cli("normalise", "--json", stdin=stdin)
    assert done.returncode == 2
    assert done.stdout == "", "nothing may be half-printed"
    assert len(done.stderr.strip().splitlines()) == 1 and fragment in done.stderr


@pytest.mark.slow
def test_unknown_version_is_a_clear_error():
    done = run_cli("probe", "--mastra", "9.9.9", "--json", stdin='["a"]')
    assert (
        done.returncode == 2
        and "'9.9.9' is neither pinned" in done.stderr
        and "probe-lib versions" in done.stderr
        and done.stdout == ""
    )


def test_a_reader_that_goes_away_ends_the_output_quietly():
    """`probe-lib … | head`: the closed pipe ends the command with 141, as for `cat`, and no traceback."""
    keys = json.dumps([f"k.{number}" for number in range(50_000)]).encode()
    process = subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "normalise"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdin.write(keys)
    process.stdin.close()
    assert process.stdout.read(200)  # the table has begun
    process.stdout.close()
    errors = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert b"Traceback" not in errors and b"BrokenPipe" not in errors
