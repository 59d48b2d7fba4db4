"""Two writers of one path never break each other: each writes a partial file of its own, the last rename wins whole."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from probe_lib.core import files


def _write_many(path: str, number: int) -> None:
    document = {"writer": number, "padding": [number] * 200_000}  # about 1 MB: writes overlap
    for _ in range(40):
        files.write_json(Path(path), document)


@pytest.mark.slow
def test_processes_writing_one_path_leave_one_whole_file_and_no_partial(tmp_path):
    target = tmp_path / "summary.json"
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_many, args=(str(target), number)) for number in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
    assert [writer.exitcode for writer in writers] == [0, 0, 0, 0], "a writer failed (another one's rename or delete)"
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["padding"] == [document["writer"]] * 200_000, "the file mixes two writers"
    assert [path.name for path in tmp_path.iterdir()] == ["summary.json"], "a partial file was left behind"


def test_a_lone_surrogate_is_written_as_its_escape_and_read_back_the_same(tmp_path: Path) -> None:
    document = {"tools": ["a\ud800b", "\udfff"]}  # legal JSON strings: a user's key may hold one
    path = files.write_json(tmp_path / "m.json", document)
    assert json.loads(path.read_bytes()) == document and b"\\ud800" in path.read_bytes()
