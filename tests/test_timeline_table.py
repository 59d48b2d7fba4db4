"""The one committed timeline (``data/timeline.csv``) holds every line of the two tables it replaced, read from git
as they stood (Mastra's ``data/version_timeline.csv`` and the others' ``data/framework_timeline.csv``), with equal
values and nothing else; its release list keeps every release the old one listed; every stored behaviour reads back
as the typed value and writes back as the same text."""

from __future__ import annotations

import csv
import io
import json
import subprocess

import pytest

from probe_lib.core import paths
from probe_lib.core.behaviour import Behaviour
from probe_lib.study import timeline

#: The commit before the two tables became one.
BEFORE = "995eb89"


def _old(name: str) -> list[dict]:
    try:
        text = subprocess.run(
            ["git", "show", f"{BEFORE}:data/{name}"], cwd=paths.ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"the history before {BEFORE} is not here: {error}")
    return list(csv.DictReader(io.StringIO(text)))


def _new(path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def lines() -> list[dict]:
    return _new(timeline.TIMELINE_PATH)


def test_every_line_of_both_old_tables_is_in_the_timeline_with_equal_values_and_no_other(lines):
    others = _old("framework_timeline.csv")
    mastra = _old("version_timeline.csv")
    kept = [line for line in lines if line["framework"] != "mastra"]
    assert kept == others, "the other frameworks' lines, in their order"
    own = [line for line in lines if line["framework"] == "mastra"]
    assert len(own) == len(mastra)
    for new, old in zip(own, mastra):
        kind = old["error_kind"] or timeline.SENT
        assert (new["version"], new["prerelease"], new["scenario"], new["kind"]) == (
            old["version"],
            old["prerelease"],
            old["scenario"],
            kind,
        )
        assert (new["outcome"], new["behaviour"]) == (old["outcome"], old["behaviour"])
        assert timeline.Line(**new).row().error_kind == old["error_kind"]
        assert new["published"] and new["role"] == "sample" and new["resolved_before"] == ""


def test_every_old_release_is_listed_and_each_measured_mastra_version_too(lines):
    releases = _new(timeline.RELEASES_PATH)
    assert [r for r in releases if r["framework"] != "mastra"] == _old("framework_releases.csv")
    listed = {r["version"] for r in releases if r["framework"] == "mastra" and r["role"]}
    assert listed == {line["version"] for line in lines if line["framework"] == "mastra"}


def test_every_stored_behaviour_reads_back_typed_and_writes_back_the_same_text(lines):
    for line in lines:
        behaviour = Behaviour.from_json(json.loads(line["behaviour"]))
        assert json.dumps(behaviour.to_json(), ensure_ascii=False, sort_keys=True) == line["behaviour"], line
        assert (behaviour.names is None) == ("names" not in json.loads(line["behaviour"]))


def test_a_stored_behaviour_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="unknown fields"):
        Behaviour.from_json({"names": [], "tool_choise": None})
