"""The recordings in data/captures/ are what the real @mastra/core does today, and they stand alone without Node."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from probe_lib import adapters
from probe_lib.adapters import mastra
from probe_lib.adapters.mastra import catalogue
from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.report import build as report
from probe_lib.study import matrix_runs, recordings, sources
from probe_lib.study.provenance import Provenance

VERSIONS = mastra.ADAPTER.versions()


def _pretty(entry: dict) -> list[str]:
    return json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False).splitlines()


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("version", VERSIONS)
def test_live_catalogue_equals_its_recording(version, node_modules, capture_server):
    recorded = [recordings.outcome_to_json(outcome) for outcome in recordings.load(version)]
    live = [recordings.outcome_to_json(outcome) for outcome in recordings.measure(version, capture_server)]
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


def test_recordings_load_without_node():
    """In a process whose PATH has no node at all, every pinned version's recording loads in catalogue order."""
    script = (
        "import shutil; assert shutil.which('node') is None\n"
        "from probe_lib.adapters import mastra\nfrom probe_lib.adapters.mastra import catalogue\n"
        "from probe_lib.study import recordings\n"
        "names = [s.name for s in catalogue.scenarios()]\n"
        "for version in mastra.ADAPTER.versions():\n"
        "    outcomes = recordings.load(version)\n"
        "    assert [o.scenario.name for o in outcomes] == names, version\n"
        "    assert all(o.version == version for o in outcomes)\n"
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


def test_recorded_outcomes_round_trip():
    for version in VERSIONS:
        for outcome in recordings.load(version):
            entry = recordings.outcome_to_json(outcome)
            assert recordings.outcome_to_json(recordings.outcome_from_json(entry, catalogue.by_name())) == entry


def test_a_missing_recording_says_how_to_make_it(monkeypatch, tmp_path):
    monkeypatch.setattr(paths, "CAPTURES", tmp_path)
    with pytest.raises(InputError, match=r"no recording for @mastra/core 1\.67\.0 at .*: run `probe-lib record`"):
        recordings.load("1.67.0")


def test_an_unpinned_version_has_no_recording():
    with pytest.raises(
        InputError,
        match=r"'0\.0\.1' is neither pinned \(" + ", ".join(VERSIONS).replace(".", r"\.") + r"\) nor served by npm",
    ):
        recordings.load("0.0.1")


def test_a_measurement_file_says_how_it_was_made(tmp_path):
    """A copied recording names its version and that it notes no Node.js or date; a live file names both."""
    version = mastra.ADAPTER.versions()[0]
    outcomes = recordings.load(version)
    copied = recordings.write(tmp_path / "copied.json", version, outcomes, "recorded")
    assert recordings.provenance(copied) == (
        f"recorded, @mastra/core {version}, Node.js and date not noted in the recording"
    )
    live = recordings.write(tmp_path / "live.json", version, outcomes, "live", node="v20.20.2", on="2026-12-01")
    assert recordings.provenance(live) == f"live, @mastra/core {version}, Node.js v20.20.2, 2026-12-01"
    assert recordings.read(live) == recordings.read(copied)  # the stamp is beside the outcomes, not in them


def test_a_report_from_the_recordings_keeps_the_node_and_day_each_was_measured_with(tmp_path):
    """``reproduce --recorded`` copies each pin's recording with the Node.js version and day it notes, so the
    ledger's source says how the outcomes it judges were measured."""
    assert report.measure_all(tmp_path, sources.RECORDED) is Provenance.RECORDED
    for version in mastra.ADAPTER.versions():
        noted = json.loads(recordings.recording_path(version).read_text(encoding="utf-8"))
        said = recordings.provenance(tmp_path / recordings.recording_path(version).name)
        assert said == f"recorded, @mastra/core {version}, Node.js {noted['node']}, {noted['measured_on']}"
        assert sources.RECORDED.provenance_of(version) == said


@pytest.mark.node
def test_a_live_measurement_file_names_node_and_the_day(tmp_path, node_modules):
    """A report measured live writes each pin's file with the Node.js that ran it and the UTC day; the ledger's
    source for that pin says both."""
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True, timeout=10).stdout
    days = {datetime.now(UTC).date().isoformat()}
    assert report.measure_all(tmp_path, sources.LIVE) is Provenance.LIVE
    days.add(datetime.now(UTC).date().isoformat())  # a run across midnight may name either day
    for version in mastra.ADAPTER.versions():
        said = recordings.provenance(tmp_path / recordings.recording_path(version).name)
        assert said in {f"live, @mastra/core {version}, Node.js {node.strip()}, {day}" for day in days}


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("framework", ["openai", "claude-agent-sdk"])
def test_two_live_measurements_of_one_behaviour_write_the_same_bytes(framework):
    """The capture server's port (quoted in the Python SDK's error) and the Claude CLI's fresh home and session ids
    differ between two runs; the measurement files name them by placeholders, so they are the same bytes (and a
    rebuilt report keeps the notebooks reading them)."""
    adapter = adapters.get(framework)
    version = adapter.versions()[-1]
    scenario = matrix_runs.scenarios()[:1]
    runs = [adapter.run(scenario, version) for _ in range(2)]
    measured = [(run[0].error, run[0].requests) for run in runs]
    assert measured[0] != measured[1], "the two runs differ in nothing: this test would show nothing"
    written = [json.dumps([recordings.outcome_to_json(outcome) for outcome in run], sort_keys=True) for run in runs]
    assert written[0] == written[1]
    assert "127.0.0.1:<port>" in written[0] if framework == "openai" else "<claude home>" in written[0]
