"""The recordings in data/captures/ are what the real frameworks do today, and they stand alone without Node."""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from probe_lib import frameworks
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.target import Target
from probe_lib.frameworks import mastra
from probe_lib.measure import matrix_runs, measurement, sources
from probe_lib.measure.collection import CATALOGUE, MATRIX
from probe_lib.measure.provenance import Provenance
from probe_lib.present.execution import MEASUREMENTS
from probe_lib.report import build as report

VERSIONS = mastra.ADAPTER.versions()


def _pretty(entry: dict) -> list[str]:
    return json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False).splitlines()


def _live_report_s(live_report, target: Target) -> measurement.Measurement:
    """The catalogue on ``target`` as the live report measured it: ``reproduce`` measures every pin live."""
    measured = measurement.read(measurement.path(live_report.folder / MEASUREMENTS, CATALOGUE.name, target))
    assert measured.made.how is Provenance.LIVE, measured.made
    return measured


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", VERSIONS)
def test_live_catalogue_equals_its_recording(version, live_report, recorded_catalogue):
    recorded = [measurement.outcome_to_json(outcome) for outcome in recorded_catalogue[version].values()]
    target = Target(mastra.ADAPTER.name, version)
    live = [measurement.outcome_to_json(outcome) for outcome in _live_report_s(live_report, target).outcomes]
    assert [entry["scenario"] for entry in live] == [entry["scenario"] for entry in recorded], (
        "the catalogue and the recording list different scenarios: run `probe-lib record`"
    )
    diffs = [
        "\n".join(difflib.unified_diff(_pretty(old), _pretty(new), f"recorded {old['scenario']}", "live", lineterm=""))
        for old, new in zip(recorded, live)
        if old != new
    ]
    assert not diffs, f"{len(diffs)} scenarios changed on {version} (`probe-lib record` if intended):\n" + "\n".join(
        diffs
    )


#: What the Claude Code CLI writes into its system prompt of the machine and the day (this machine's kernel build,
#: today's date): they move with the machine and the calendar, not with the framework.
_MACHINE_AND_DAY = re.compile(r"OS Version: [^\\\"]*|Today's date is \d{4}-\d{2}-\d{2}")


def _as_compared(outcome) -> str:
    """``outcome`` as JSON, but for the machine and the day, and with each connection it tried past loopback listed
    once: the Claude Code CLI retries its own refused ``CONNECT api.anthropic.com:443`` in the background as long as
    it runs, so how often follows the turn's timing (5 in the recording of length-70+round-trip, 6 in one live run)."""
    data = measurement.outcome_to_json(outcome)
    data["unrouted"] = sorted({json.dumps(entry, sort_keys=True) for entry in data.get("unrouted", [])})
    return _MACHINE_AND_DAY.sub("-", json.dumps(data, sort_keys=True))


@pytest.mark.slow
@pytest.mark.node
def test_every_matrix_recording_is_what_the_live_report_measured(live_report, recorded_matrix):
    """Each target's recording of the matrix equals, field for field, what the live report's own run measured (one
    whose runner changed what it records is recorded again: `probe-lib record --frameworks`), but for the machine and
    the day the Claude Code CLI writes into its requests and how often it retried a refused connection
    (:func:`_as_compared`)."""
    recorded = matrix_runs.by_target(recorded_matrix)
    for target in MATRIX.targets():
        measured = measurement.read(measurement.path(live_report.folder / MEASUREMENTS, MATRIX.name, target))
        assert measured.made.how is Provenance.LIVE, target
        assert [o.scenario.name for o in measured.outcomes] == list(recorded[str(target)]), target
        for outcome in measured.outcomes:
            kept = recorded[str(target)][outcome.scenario.name]
            assert _as_compared(outcome) == _as_compared(kept), (
                f"{target} {outcome.scenario.name}: the recording is not what the framework does today"
            )


def test_recordings_load_without_node():
    """In a process whose PATH has no node at all, every collection's recordings load, the catalogue's in catalogue
    order."""
    script = (
        "import shutil; assert shutil.which('node') is None\n"
        "from probe_lib.frameworks.mastra import catalogue\n"
        "from probe_lib.measure import collection, sources\n"
        "names = [s.name for s in catalogue.scenarios()]\n"
        "for m in sources.RECORDED.measurements(collection.CATALOGUE):\n"
        "    assert [o.scenario.name for o in m.outcomes] == names, m.target\n"
        "    assert all(o.target == m.target for o in m.outcomes)\n"
        "assert sources.RECORDED.measurements(collection.MATRIX) and sources.RECORDED.measurements(collection.LISTS)\n"
        "print('ok')\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        env={"PATH": "/nonexistent"},
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (completed.returncode, completed.stdout) == (0, "ok\n"), completed.stderr


def test_recorded_outcomes_round_trip(recorded_catalogue, recorded_matrix, recorded_lists):
    every = (
        [o for outcomes in recorded_catalogue.values() for o in outcomes.values()] + recorded_matrix + recorded_lists
    )
    for outcome in every:
        entry = measurement.outcome_to_json(outcome)
        assert measurement.outcome_from_json(entry, {outcome.scenario.name: outcome.scenario}) == outcome


def test_a_missing_recording_says_how_to_make_it(monkeypatch, tmp_path):
    monkeypatch.setattr(sources.Recorded, "folder", tmp_path)
    with pytest.raises(InputError, match=r"no measurement of catalogue on mastra@1\.67\.0 at .*: measure it live"):
        sources.RECORDED.measurement(CATALOGUE, Target("mastra", "1.67.0"))


def test_a_copied_recording_says_how_it_was_made(recorded_catalogue):
    """A shipped recording read as a source is ``recorded``, with the runtime and day it was measured with."""
    version = VERSIONS[0]
    copied = sources.RECORDED.measurement(CATALOGUE, Target("mastra", version))
    noted = measurement.read(measurement.path(paths.CAPTURES, CATALOGUE.name, copied.target)).made
    assert noted.how is Provenance.LIVE and copied.made == noted.copied()
    assert copied.source == f"recorded, mastra@{version}, {noted.runtime}, {noted.on}"
    assert copied.by_name() == recorded_catalogue[version]


def test_a_report_from_the_recordings_keeps_the_node_and_day_each_was_measured_with(tmp_path):
    """``reproduce --recorded`` copies each pin's recording with the Node.js version and day it notes, so the
    ledger's source says how the outcomes it judges were measured."""
    written = report.measure_all(tmp_path, sources.RECORDED)
    assert [m.target.version for m in written] == list(VERSIONS)
    for m in written:
        noted = measurement.read(measurement.path(paths.CAPTURES, CATALOGUE.name, m.target)).made
        said = measurement.read(measurement.path(tmp_path, CATALOGUE.name, m.target)).source
        assert said == f"recorded, {m.target}, {noted.runtime}, {noted.on}" == m.source


@pytest.mark.slow
@pytest.mark.node
def test_a_live_measurement_file_names_node_and_the_day(live_report):
    """A report measured live writes each pin's file with the Node.js that ran it and the UTC day (this run's, which
    began at most a day ago); the ledger's source for that pin says both."""
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True, timeout=10).stdout
    today = datetime.now(UTC).date()
    days = {today.isoformat(), (today - timedelta(days=1)).isoformat()}  # a run across midnight names either
    ledger = pd.read_csv(live_report.folder / "ledger.csv")
    for version in VERSIONS:
        target = Target(mastra.ADAPTER.name, version)
        said = _live_report_s(live_report, target).source
        assert said in {f"live, {target}, Node.js {node.strip()}, {day}" for day in days}
        assert set(ledger.loc[ledger["version"] == version, "source"]) == {said}


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("framework", ["openai", "claude-agent-sdk"])
def test_two_live_measurements_of_one_behaviour_write_the_same_bytes(framework):
    """The capture server's port (quoted in the Python SDK's error) and the Claude CLI's fresh home and session ids
    differ between two runs; the measurement files name them by placeholders, so they are the same bytes (and a
    rebuilt report keeps the notebooks reading them)."""
    adapter = frameworks.get(framework)
    version = adapter.versions()[-1]
    scenario = matrix_runs.scenarios()[:1]
    runs = [adapter.run(scenario, version) for _ in range(2)]
    measured = [(run[0].error, run[0].requests) for run in runs]
    assert measured[0] != measured[1], "the two runs differ in nothing: this test would show nothing"
    written = [json.dumps([measurement.outcome_to_json(outcome) for outcome in run], sort_keys=True) for run in runs]
    assert written[0] == written[1]
    assert "127.0.0.1:<port>" in written[0] if framework == "openai" else "<claude home>" in written[0]
