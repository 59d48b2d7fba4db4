"""The measurement file schema: the shipped recordings converted to it hold every outcome the old formats held.

The recordings changed format once (commit after 995eb89): four formats (per Mastra version, ``frameworks.json``, the
list probes' file, ``run --out``'s) became one file per collection and target. The old files are read from git, as
JSON, so this test needs none of the code that wrote them.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from probe_lib.core import paths
from probe_lib.core.errors import InputError
from probe_lib.core.scenarios import ROUND_TRIP, for_keys
from probe_lib.core.target import Target
from probe_lib.frameworks.mastra import catalogue
from probe_lib.inputs import scenario_files
from probe_lib.measure import measurement, sources
from probe_lib.measure.collection import CATALOGUE, MATRIX
from probe_lib.measure.measurement import Made, Measurement
from probe_lib.measure.provenance import Provenance

#: The last commit with the old formats, and its recordings of outcomes.
BEFORE = "995eb89"
OLD_FILES = (
    "data/captures/mastra-1.0.4.json",
    "data/captures/mastra-1.67.0.json",
    "data/captures/mastra-1.71.0.json",
    "data/captures/frameworks.json",
    "data/captures/claude-agent-sdk-permissions.json",
    "data/captures/example/mastra-1.0.4.json",
    "data/captures/example/mastra-1.67.0.json",
    "data/captures/example/mastra-1.71.0.json",
)


#: The files measured again since the conversion, each with why: Mastra's matrix targets, whose recordings predated
#: the runner recording each error link's code (test_recordings holds every matrix recording to a live run).
MEASURED_AGAIN = {("matrix", f"mastra@{version}") for version in ("1.0.4", "1.67.0", "1.71.0")}


def _without_codes(value):
    """``value`` without the ``code`` of any error link (JSON as read: dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {key: _without_codes(item) for key, item in value.items() if key != "code" or "class" not in value}
    return [_without_codes(item) for item in value] if isinstance(value, list) else value


def _old(path: str) -> dict:
    shown = subprocess.run(
        ["git", "show", f"{BEFORE}:{path}"], cwd=paths.ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(shown.stdout)


def _key(entry: dict) -> tuple[str, str, str, str]:
    return entry["framework"], entry["version"], entry["scenario"], entry["collection"]


@pytest.fixture(scope="module")
def old() -> dict[str, dict]:
    return {path: _old(path) for path in OLD_FILES}


@pytest.fixture(scope="module")
def new() -> list[Measurement]:
    return [measurement.read(found.file) for found in measurement.measurements(paths.CAPTURES)]


def _collection_of(path: str) -> str:
    if "example/" in path:
        return "example"
    return {"frameworks.json": "matrix", "claude-agent-sdk-permissions.json": "lists"}.get(
        path.rpartition("/")[2], "catalogue"
    )


def test_every_old_outcome_reads_back_equal_from_the_new_files(old, new):
    """Each outcome of the old files, as its JSON entry, equals the new file's outcome read back and written out
    again; no outcome is lost or added. (The old list-probe file predates the placeholders for a run's incidentals,
    the Claude CLI's temporary home and session ids; its conversion names them as every other file does.)"""
    before = {
        _key({**entry, "collection": _collection_of(path)}): entry
        for path, document in old.items()
        for entry in document["outcomes"]
    }
    after = {
        (m.target.framework, m.target.version, o.scenario.name, m.collection): measurement.outcome_to_json(o)
        for m in new
        for o in m.outcomes
    }
    assert len(before) == sum(len(document["outcomes"]) for document in old.values()) == 870
    assert after.keys() == before.keys()
    again = {key for key in before if (key[3], f"{key[0]}@{key[1]}") in MEASURED_AGAIN}
    unequal = [key for key, entry in before.items() if after[key] != measurement.without_incidentals(entry)]
    assert set(unequal) <= again, sorted(set(unequal) - again)[:5]
    # Measured again, they differ from the old files in the error links' code alone.
    assert not [key for key in again if _without_codes(after[key]) != measurement.without_incidentals(before[key])]


def test_the_new_files_carry_the_scenarios_the_old_ones_named(old, new):
    """A catalogue outcome's scenario is the catalogue's; a matrix or list probe's, the one its old file carried (a
    round trip's keys as it listed them, its scripted call now kept beside them)."""
    carried = {
        _collection_of(path): {
            s.name: s for s in scenario_files.parse(json.dumps(doc["scenarios"]), path, is_json=True)
        }
        for path, doc in old.items()
        if "scenarios" in doc
    }
    carried["catalogue"] = catalogue.by_name()
    for m in new:
        for outcome in m.outcomes:
            scenario = carried[m.collection][outcome.scenario.name]
            if outcome.scenario.name.endswith(ROUND_TRIP):
                assert for_keys(scenario.name, tuple(t.key for t in outcome.scenario.tools)) == scenario
                assert outcome.scenario.replies
            else:
                assert outcome.scenario == scenario


def test_the_new_files_note_how_the_old_ones_were_made(old, new):
    """Made live, on the runtime and day the old files noted (Mastra's catalogue by ``node``, the matrix per target,
    the list probes with the SDK's matrix target); the old ``run --out`` files noted neither."""
    matrix = old["data/captures/frameworks.json"]["measured"]
    for m in new:
        assert m.made.how is Provenance.LIVE
        if m.collection == "catalogue":
            document = old[f"data/captures/mastra-{m.target.version}.json"]
            assert (m.made.runtime, m.made.on) == (f"Node.js {document['node']}", document["measured_on"])
        elif (m.collection, str(m.target)) in MEASURED_AGAIN:
            assert m.made.on > matrix[str(m.target)]["on"]
        elif m.collection in ("matrix", "lists"):
            assert (m.made.runtime, m.made.on) == (matrix[str(m.target)]["runtime"], matrix[str(m.target)]["on"])
        else:
            assert (m.made.runtime, m.made.on) == (None, None)


def test_a_measurement_is_written_and_read_back_whole(tmp_path):
    shipped = sources.RECORDED.measurement(CATALOGUE, Target("mastra", "1.67.0"))
    made = Made(Provenance.RECORDED, "Node.js v20.0.0", "2026-01-02", "2026-01-01")
    file = measurement.path(tmp_path, "mine", shipped.target)
    measurement.write(file, Measurement("mine", shipped.target, made, shipped.outcomes))
    back = measurement.read(file)
    assert (back.collection, back.target, back.made, back.file) == ("mine", shipped.target, made, file)
    assert back.outcomes == shipped.outcomes
    assert back.source == "recorded, mastra@1.67.0, Node.js v20.0.0, 2026-01-02, dependencies as of 2026-01-01"


def test_a_file_of_another_shape_is_one_line_naming_it(tmp_path):
    file = tmp_path / "x.json"
    file.write_text('{"outcomes": []}', encoding="utf-8")
    with pytest.raises(InputError, match=r"x\.json is not a measurement file the kit can read \(KeyError"):
        measurement.read(file)


def test_made_text_says_when_the_runtime_and_day_are_unknown():
    assert Made(Provenance.LIVE).text(Target("ai-sdk", "7.0.173")) == "live, ai-sdk@7.0.173, runtime and date not noted"


# -- where a measurement comes from: one answer to "live or recorded" ------------------------------------------------


def test_the_recordings_never_measure_live_and_a_folder_measures_its_own_scenarios_as_it_was_measured(tmp_path):
    from probe_lib.report import build as report

    target = Target("mastra", "1.67.0")
    assert not sources.RECORDED.live(target) and sources.RECORDED.own() is sources.RECORDED
    report.measure_all(tmp_path, sources.RECORDED)
    assert sources.parse(tmp_path).own() is sources.RECORDED  # a folder copied from recordings runs nothing live
    assert sources.parse(tmp_path / "catalogue").own() is sources.LIVE  # a folder holding no catalogue (run --out)


def test_a_live_source_falls_back_to_the_recording_of_a_target_not_installed_and_says_so(private_cache):
    """In an empty kit cache no pin is installed: the live source reads each target's recording, warns once naming
    them, and each measurement says it was copied from a recording."""
    targets = MATRIX.targets()[:2]
    assert not any(map(sources.LIVE.live, targets))
    with pytest.warns(sources.RecordedFallback, match=f"{targets[0]}, {targets[1]} cannot run here"):
        measured = sources.LIVE.measurements(MATRIX, targets)
    assert [m.target for m in measured] == targets
    assert {m.made.how for m in measured} == {Provenance.RECORDED}
    assert [sources.LIVE.label(m) for m in measured] == ["recorded (Node.js missing)"] * 2
