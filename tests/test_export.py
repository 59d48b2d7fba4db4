"""The export's swept-versions and MCP-corpus tables, checked against their sources read here by hand (csv and json),
not through the code that builds them; and every exported table's dictionary, CSV and Parquet checked together."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from probe_lib.cli import main
from probe_lib.core import folders, paths
from probe_lib.history import sweep
from probe_lib.measure import measurement
from probe_lib.tables import export

SUMMARY = paths.DATA / "timeline.csv"
MCP_RECORDING = paths.CAPTURES / "mcp-mastra.json"


def _summary_lines() -> list[dict]:
    """Mastra's lines of the committed timeline, each with its ``error_kind`` (empty for one that sent)."""
    with SUMMARY.open(newline="", encoding="utf-8") as handle:
        lines = [line for line in csv.DictReader(handle) if line["framework"] == "mastra"]
    return [{**line, "error_kind": "" if line["kind"] == "sent" else line["kind"]} for line in lines]


def _tool_sets() -> tuple[list[dict], dict]:
    document = json.loads(MCP_RECORDING.read_text(encoding="utf-8"))
    return document["tool sets"], document["versions"]


def _absent(value: object) -> bool:
    return value is None or value != value  # the recording's NaN


def test_every_table_is_written_as_csv_and_parquet_that_agree_and_the_dictionary_covers_every_column(exported):
    result, folder = exported
    assert sorted(p.name for p in folder.iterdir()) == sorted([*export.FILES, folders.MANIFEST])
    assert list(result.tables) == ["outcomes", "version_sweep", "mcp_corpus"]
    dictionary = pd.read_csv(folder / "dictionary.csv")
    assert list(dictionary.columns) == ["table", "column", "type", "meaning"]
    assert not dictionary.duplicated(["table", "column"]).any() and dictionary["meaning"].str.len().min() > 10
    for name, table in result.tables.items():
        parquet = pd.read_parquet(folder / f"{name}.parquet")
        described = dictionary[dictionary["table"] == name]
        header = next(csv.reader((folder / f"{name}.csv").open(encoding="utf-8")))
        assert header == list(parquet.columns) == list(described["column"]), name
        assert dict(parquet.dtypes.astype(str)) == dict(zip(described["column"], described["type"])), name
        assert len(parquet) == len(table) > 0, name
        pd.testing.assert_frame_equal(export.read_csv(folder / f"{name}.csv"), parquet, obj=name)
        pd.testing.assert_frame_equal(export.read_csv(str(folder / f"{name}.csv")), parquet, obj=name)  # as docs say
        # Every column says something in some row (no column is always empty).
        assert parquet.notna().any().all(), f"{name}: always empty: {list(parquet.columns[~parquet.notna().any()])}"


def _refusal(name: str) -> str:
    """Mastra's collision refusal for ``name``, as 0.13-0.19 and 1.x word it."""
    return (
        f'Two or more tools resolve to the same name "{name}". Please rename one of the tools to avoid this collision.'
    )


@pytest.mark.slow
def test_version_sweep_rows_match_the_committed_summary():
    table = export.gather_sweep(cached=[])
    lines = _summary_lines()
    behaviours = [json.loads(line["behaviour"]) for line in lines]
    assert len(table) == sum(max(1, len(b.get("names") or [])) for b in behaviours)
    assert set(table["source"]) == {"summary"} and set(table["recording"]) == {"data/timeline.csv"}
    # Plain rows grouped by hand (pandas per group made this loop minutes long); dropna: the present values.
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in table.to_dict("records"):
        groups.setdefault((row["version"], row["scenario"]), []).append(row)
    assert set(groups) == {(line["version"], line["scenario"]) for line in lines}

    def column(rows: list[dict], name: str) -> list:
        return [row[name] for row in rows]

    def dropna(rows: list[dict], name: str) -> list:
        return [value for value in column(rows, name) if not pd.isna(value)]

    for line, behaviour in zip(lines, behaviours):
        rows = groups[line["version"], line["scenario"]]
        where = f"{line['scenario']} on {line['version']}"
        names = behaviour.get("names") or []
        assert dropna(rows, "wire_name") == names, where
        assert dropna(rows, "position_after") == list(range(len(names))), where
        assert set(column(rows, "outcome")) == {line["outcome"]}, where
        assert set(dropna(rows, "error_kind")) == ({line["error_kind"]} if line["error_kind"] else set()), where
        for count in ("requests", "executions"):  # a release that could not be installed or run counted nothing
            if count in behaviour:
                assert set(column(rows, count)) == {behaviour[count]}, where
            else:
                assert all(pd.isna(value) for value in column(rows, count)) and "error" in behaviour, where
        choice = behaviour.get("tool_choice")
        forced = None  # read by hand in each format's shape: Chat Completions, Responses, Anthropic Messages
        if isinstance(choice, dict):
            forced = choice["function"]["name"] if "function" in choice else choice.get("name")
        assert set(dropna(rows, "forced_tool")) == ({forced} if forced else set()), where
        if forced:
            assert set(column(rows, "forced_in_tools")) == {forced in names}, where
        error = behaviour.get("error", {})
        if error.get("kind") == "collision":  # the text the caller saw: 0.20.x says only "Unknown error"
            assert set(column(rows, "collision_name")) == {error["name"]}, where
            seen = ("Unknown error", _refusal(error["name"]), "Error: " + _refusal(error["name"]))  # 0.20, 0.13+, 0.21
            assert rows[0]["error_text"] == behaviour["errors"][0] and behaviour["errors"][0] in seen, where
        elif "message" in error:
            assert set(column(rows, "error_text")) == {error["message"]}, where
    pinned = table[table["pinned"]]
    assert set(pinned["version"]) == {"1.0.4", "1.67.0", "1.71.0"} & {line["version"] for line in lines}


def _cache_row(version: str, scenario: str, behaviour: dict, error_kind: str = "") -> dict:
    return {
        "version": version,
        "scenario": scenario,
        "outcome": "0123456789",
        "error_kind": error_kind,
        "behaviour": json.dumps(behaviour),
    }


def test_the_sweep_cache_is_laid_over_the_summary(tmp_path, monkeypatch):
    """A version cached on this machine replaces its summary rows, a new one is added, and a cached failure alone
    does not hide what the summary measured."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path))
    folder = tmp_path / "sweep" / "digest"
    monkeypatch.setattr(sweep, "cache_dir", lambda subject: folder)
    folder.mkdir(parents=True)
    sent = {"names": ["a", "b_c"], "tool_choice": "auto", "requests": 1, "executions": 0, "errors": []}
    failed = {"error": {"kind": "install failed", "message": "npm said no"}}
    files = {
        "1.67.0": [_cache_row("1.67.0", "single-rewrite", sent)],
        "99.0.0": [_cache_row("99.0.0", "*", failed, "install failed")],
        "1.71.0": [_cache_row("1.71.0", "*", failed, "install failed")],
    }
    for version, rows in files.items():
        (folder / f"{version}.json").write_text(json.dumps(rows), encoding="utf-8")
    table = export.gather_sweep()
    lines = _summary_lines()
    summary = [line for line in lines if line["version"] != "1.67.0"]
    expected = sum(max(1, len(json.loads(line["behaviour"]).get("names") or [])) for line in summary) + 2 + 1
    assert len(table) == expected
    assert table[table["version"] == "1.67.0"]["wire_name"].tolist() == ["a", "b_c"]
    assert set(table[table["version"] == "1.67.0"]["recording"]) == {"<cache>/sweep/digest/1.67.0.json"}
    new = table[table["version"] == "99.0.0"].iloc[0]
    assert (new["scenario"], new["error_kind"], new["error_text"], new["source"]) == (
        "*",
        "install failed",
        "npm said no",
        "cache",
    )
    assert pd.isna(new["requests"]) and table["version"].iloc[-1] == "99.0.0"  # semver order, not text order
    assert set(table[table["version"] == "1.71.0"]["source"]) == {"summary"}


def test_mcp_corpus_rows_match_the_recording(exported):
    result, _ = exported
    table = result.tables["mcp_corpus"]
    tool_sets, versions = _tool_sets()
    assert len(table) == sum(len(tool_set["tools served"]) for tool_set in tool_sets)
    assert set(table["mastra_version"]) == {versions["@mastra/core"]} and set(table["mcp_version"]) == {
        versions["@mastra/mcp"]
    }
    groups = dict(list(table.groupby("record", sort=False)))
    assert list(groups) == [tool_set["record"] for tool_set in tool_sets]
    for tool_set in tool_sets:
        rows = groups[tool_set["record"]]
        where = tool_set["record"]
        assert rows["tool"].tolist() == tool_set["tools served"] and rows["key"].tolist() == tool_set["client keys"], (
            where
        )
        assert set(rows["server"]) == {tool_set["server"]} and set(rows["tools_in_set"]) == {
            len(tool_set["tools served"])
        }
        wire = tool_set["wire names"]
        if _absent(wire):
            assert not rows["on_wire"].any() and set(rows["set_failure"]) == {tool_set["failure"]}, where
            continue
        sent = rows[rows["on_wire"]]
        # Every name sent is on exactly one row, at its index in the request.
        assert Counter(sent["wire_name"]) == Counter(wire) and len(sent) == len(rows), where
        assert all(wire[position] == name for name, position in zip(sent["wire_name"], sent["position_after"])), where
        # Each key is paired with the name its own served tool went out under (the request's descriptions say which).
        served_at = tool_set["wire served"]
        assert all(served_at[position] == tool for tool, position in zip(sent["tool"], sent["position_after"])), where
        assert sent["rewritten"].sum() == sum(1 for key in tool_set["client keys"] if key not in set(wire)), where
        # What the Python model predicts is what the real package sent.
        assert (sent["predicted_name"] == sent["wire_name"]).all(), where
        assert rows["set_failure"].isna().all(), where
    collided = table[table["set_failure"] == "collision"]
    for record, rows in collided.groupby("record"):
        colliding = rows[rows["in_collision"]]
        assert len(colliding) >= 2 and (colliding["key"].str.len() > 63).all(), record
        assert colliding["key"].str[:63].nunique() == 1 == rows["collision_name"].nunique(), record
    # The provider verdicts, spot-checked by hand: a 64+-character key is over OpenAI's 64; a short legal one is not.
    long_keys = table[table["key"].str.len() > 64]
    assert len(long_keys) and long_keys["providers_refusing_key"].str.split("+").map(lambda p: "openai" in p).all()
    assert table.loc[table["key"] == "ado_advsec_get_alerts", "providers_refusing_key"].tolist() == ["none"]


def test_an_interrupted_write_leaves_no_half_written_file(tmp_path):
    good = pd.DataFrame({"scenario": ["a"]})
    unwritable = pd.DataFrame({"mixed": [1, "x"]})  # pyarrow refuses a column of ints and text
    with pytest.raises((TypeError, ValueError)):  # pyarrow's ArrowTypeError or ArrowInvalid
        export.write_tables({"outcomes": good, "version_sweep": unwritable}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outcomes.csv", "outcomes.parquet", "version_sweep.csv"]
    assert pd.read_parquet(tmp_path / "outcomes.parquet").equals(good)


def test_cli_export_names_each_table_and_its_rows(tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path / "x")]) == 0
    out = capsys.readouterr().out
    assert f"rows from {len(measurement.measurements(paths.CAPTURES))} measurement files" in out
    tool_sets, _ = _tool_sets()
    assert f"mcp_corpus: {sum(len(t['tools served']) for t in tool_sets)} rows" in out
    assert "version_sweep: " in out and all((tmp_path / "x" / name).exists() for name in export.FILES)


def test_the_exported_outcomes_feed_the_comparison_tables_one_recording_per_turn(exported):
    """The export holds some turns twice (the catalogue's recording and the framework matrix's); the comparison
    refuses to merge them, saying how to keep one, and takes the table once filtered."""
    from probe_lib.tables import compare

    _, folder = exported
    table = export.read_csv(folder / "outcomes.csv")
    with pytest.raises(ValueError, match=r"from two recordings \(data/captures/.*\); keep one"):
        compare.differences(table, "mastra@1.0.4", "mastra@1.71.0")
    catalogue = table[table["recording"].str.fullmatch(r"data/captures/catalogue/mastra-[0-9.]+\.json")]
    turns = compare.turns(catalogue).set_index(["scenario", "target"])
    assert turns.loc[("choice-by-key", "mastra@1.71.0"), "verdict"] == "forced tool not in tools"
    changed = compare.differences(catalogue, "mastra@1.0.4", "mastra@1.71.0")
    assert "builtins-by-export" in set(changed["scenario"])


def _names_sent(request: dict) -> list[str]:
    """Tool names of a request body read by hand: Chat Completions nests them under ``function``, Responses does not."""
    return [tool["function"]["name"] if "function" in tool else tool["name"] for tool in request.get("tools", [])]


def test_the_framework_matrix_rows_register_each_probes_own_keys(exported):
    """Each matrix measurement carries its probes, so a probe named like a catalogue scenario (length-64) keeps its
    keys."""
    from probe_lib.measure import matrix_runs, measurement
    from probe_lib.measure.collection import MATRIX

    result, _ = exported
    probes = {scenario.name: scenario for scenario in matrix_runs.scenarios()}
    files = sorted((paths.CAPTURES / MATRIX.name).glob("*.json"))
    assert len(files) == len(MATRIX.targets())
    for file in files:
        read = measurement.read(file)
        stale = [
            o.scenario.name
            for o in read.outcomes
            if o.scenario.name in probes and o.scenario != probes[o.scenario.name]
        ]
        assert not stale, f"{file.name}'s probes are stale: `probe-lib record --frameworks` rewrites them"
        table = result.frame[result.frame["recording"] == measurement.shown(file)]
        groups = {key: rows for key, rows in table.groupby("scenario")}
        assert len(groups) == len(read.outcomes)
        for outcome in read.outcomes:
            rows, where = groups[outcome.scenario.name], f"{outcome.scenario.name} on {read.target}"
            assert rows["key"].dropna().tolist() == [tool.key for tool in outcome.scenario.tools], where
            sent = _names_sent(outcome.requests[0]) if outcome.requests else []
            assert Counter(rows[rows["on_wire"]]["wire_name"]) == Counter(sent), where


def test_a_missing_mcp_recording_leaves_its_table_empty_and_says_why(tmp_path, monkeypatch):
    from probe_lib.frameworks.mastra import mcp

    monkeypatch.setattr(mcp, "RECORDING", tmp_path / "mcp-mastra.json")
    result = export.export(tmp_path / "out")
    assert len(result.tables["mcp_corpus"]) == 0 and any("mcp-mastra.json is missing" in why for why in result.skipped)
    header = next(csv.reader((tmp_path / "out" / "mcp_corpus.csv").open(encoding="utf-8")))
    assert (
        header
        == list(pd.read_parquet(tmp_path / "out" / "mcp_corpus.parquet").columns)
        == list(result.tables["mcp_corpus"].columns)
    )


def test_a_lone_surrogate_in_a_table_is_written_as_its_escape_in_csv_and_parquet(tmp_path: Path) -> None:
    frame = pd.DataFrame({"key": pd.Series(["a\ud800b", "plain"], dtype=object), "position": [0, 1]})
    written = export.write_tables(frame, tmp_path)
    assert sorted(path.name for path in written) == ["dictionary.csv", "outcomes.csv", "outcomes.parquet"]
    assert pd.read_parquet(tmp_path / "outcomes.parquet")["key"].tolist() == ["a\\ud800b", "plain"]
    assert "a\\ud800b" in (tmp_path / "outcomes.csv").read_text(encoding="utf-8")
