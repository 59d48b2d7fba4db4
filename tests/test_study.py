"""The study API and the export: tidy rows checked against the recordings' own JSON, read independently of the code."""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys
from collections import Counter

import pandas as pd
import pytest
import yaml

from probe_lib.cli import main
from probe_lib.core import folders, paths
from probe_lib.core.errors import InputError
from probe_lib.frameworks.mastra import catalogue, normaliser
from probe_lib.inputs import keysets
from probe_lib.measure import measurement, sources
from probe_lib.measure.provenance import Provenance
from probe_lib.present import charts
from probe_lib.tables import api, compare, export

RECORDINGS = sorted((paths.CAPTURES / "catalogue").glob("mastra-*.json"))
EXAMPLE = paths.DATA / "scenarios" / "example.yaml"


def _registered_keys() -> dict[str, int]:
    """Keys each catalogue scenario registers, counted from the YAML itself (not through the kit's reader)."""
    document = yaml.safe_load(catalogue.PATH.read_text(encoding="utf-8"))
    counts = {}
    for entry in document["scenarios"]:
        lists = [entry.get(field, []) for field in ("tools", "agents", "workflows", "clientTools")]
        lists += list(entry.get("toolsets", {}).values())
        counts[entry["name"]] = sum(map(len, lists))
    return counts


def _keys_of(entry: dict, counts: dict[str, int]) -> int:
    """The keys one recorded turn registered: its scenario's, plus the built-ins the package reported for a scenario
    that registers all of them."""
    return counts[entry["scenario"]] + len((entry.get("package") or {}).get("builtins") or {}) * bool(
        entry["scenario"].startswith("builtins-by-")
    )


def _raw_outcomes() -> list[dict]:
    """Every outcome entry of the pinned recordings, as plain JSON."""
    return [entry for path in RECORDINGS for entry in json.loads(path.read_text(encoding="utf-8"))["outcomes"]]


def _raw_names(entry: dict) -> list[str]:
    """Tool names of an entry's first request, read by hand from its body: Chat Completions nests each function's
    name (``tools[].function.name``); Responses and Anthropic Messages put it on the tool (``tools[].name``)."""
    if not entry["requests"]:
        return []
    tools = entry["requests"][0].get("tools", [])
    if entry["wire"] == "chat-completions":
        return [tool["function"]["name"] for tool in tools]
    assert entry["wire"] in ("responses", "anthropic-messages"), entry["wire"]
    return [tool["name"] for tool in tools]


def test_export_writes_csv_parquet_and_a_dictionary_of_every_column(exported):
    result, folder = exported
    assert sorted(p.name for p in folder.iterdir()) == sorted([*export.FILES, folders.MANIFEST])
    dictionary = pd.read_csv(folder / "dictionary.csv")
    dictionary = dictionary[dictionary["table"] == "outcomes"]
    csv = pd.read_csv(folder / "outcomes.csv", nrows=1)
    parquet = pd.read_parquet(folder / "outcomes.parquet")
    assert list(csv.columns) == list(parquet.columns) == list(dictionary["column"])
    assert dictionary["meaning"].str.len().min() > 10 and set(dictionary["type"]) <= {"string", "Int64", "boolean"}
    assert dict(parquet.dtypes.astype(str)) == dict(zip(dictionary["column"], dictionary["type"]))
    assert len(parquet) == len(result.frame) and not result.skipped
    pd.testing.assert_frame_equal(export.read_csv(folder / "outcomes.csv"), parquet)
    catalogue_rows = parquet[parquet["recording"].isin([measurement.shown(path) for path in RECORDINGS])]
    assert (catalogue_rows["key"] == "").sum() == len(RECORDINGS)  # the empty-key scenario's "" is a key, not missing


def test_export_rows_match_the_recordings_json(exported):
    _, folder = exported
    table = pd.read_csv(folder / "outcomes.csv", keep_default_na=False, na_values=["<NA>"], dtype=str)
    table = table[table["recording"].isin([measurement.shown(path) for path in RECORDINGS])]
    raw = _raw_outcomes()
    keys = _registered_keys()
    groups = {name: rows for name, rows in table.groupby(["version", "scenario"])}
    assert set(groups) == {(entry["version"], entry["scenario"]) for entry in raw}
    for entry in raw:
        rows = groups[entry["version"], entry["scenario"]]
        names = _raw_names(entry)
        where = f"{entry['scenario']} on {entry['version']}"
        # One row per registered key; every name sent is on some row, at its index in the request.
        assert len(rows) == max(1, _keys_of(entry, keys)), where
        assert rows["key"].notna().sum() == _keys_of(entry, keys), where
        sent = rows[rows["on_wire"] == "True"]
        assert Counter(sent["wire_name"]) == Counter(names), where
        assert all(names[int(position)] == name for name, position in zip(sent["wire_name"], sent["position_after"])), (
            where
        )
        choice = entry["requests"][0].get("tool_choice") if entry["requests"] else None
        # Chat Completions nests the forced name under "function"; Responses and Messages hold it as "name" (a
        # Messages mode such as {"type": "auto"} has none).
        forced = (choice.get("function") or {}).get("name") or choice.get("name") if isinstance(choice, dict) else None
        assert set(rows["forced_tool"].dropna()) == ({forced} if forced else set()), where
        kind = entry["failure"]["kind"] if entry["failure"] else None
        assert set(rows["error_kind"].dropna()) == ({kind} if kind else set()), where
        assert set(rows["requests"]) == {str(len(entry["requests"]))}, where
    assert len(table) == sum(max(1, _keys_of(entry, keys)) for entry in raw)


def test_export_reads_other_recordings_by_file_and_names_what_it_skips(tmp_path):
    captures = tmp_path / "captures"
    (captures / "sweep").mkdir(parents=True)
    shutil.copy(RECORDINGS[0], captures / RECORDINGS[0].name)
    other = json.loads(RECORDINGS[0].read_text(encoding="utf-8"))
    other["framework"] = "otherframework"
    for entry in other["outcomes"]:
        entry["framework"], entry["scenario"] = "otherframework", f"sweep-{entry['scenario']}"
    (captures / "sweep" / "otherframework-0.1.0.json").write_text(json.dumps(other), encoding="utf-8")
    (captures / "notes.json").write_text('{"not": "a recording", "outcomes": 1}', encoding="utf-8")
    frame, read, skipped = export.gather(captures=captures)
    assert len(read) == 2 and len(skipped) == 1 and "notes.json is not a measurement file" in skipped[0]
    sweep = frame[frame["framework"] == "otherframework"]
    mastra_rows = frame[frame["framework"] == "mastra"]
    # A scenario no file or catalogue defines still gets a row per key it measured and every name it sent; an
    # unknown framework has no name rule, so no rule flags.
    assert sweep["key"].notna().sum() == sum(len(entry["keys_after"]) for entry in other["outcomes"])
    assert Counter(sweep[sweep["on_wire"]]["wire_name"]) == Counter(mastra_rows[mastra_rows["on_wire"]]["wire_name"])
    keyed = mastra_rows[mastra_rows["key"].notna()]
    assert sweep["rules_fired"].isna().all() and keyed["rules_fired"].notna().all()
    assert sweep["recording"].str.endswith("sweep/otherframework-0.1.0.json").all()


def test_export_refuses_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(InputError, match="holds mine.txt, which the kit did not write"):
        export.export(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_recorded_study_of_the_catalogue_equals_the_export_rows(exported, capsys):
    result, _ = exported
    frame = api.study(catalogue.scenarios(), ["1.0.4", "mastra@1.71.0"], measurements=sources.RECORDED).frame
    assert capsys.readouterr().out == ""  # reading recordings, it has nothing to announce
    shipped = [f"data/captures/catalogue/mastra-{version}.json" for version in ("1.0.4", "1.71.0")]
    pinned = result.frame["recording"].isin(shipped)
    expected = result.frame[pinned].reset_index(drop=True)
    pd.testing.assert_frame_equal(frame, expected)
    assert len(api.study(catalogue.scenarios(), "1.0.4", measurements=sources.RECORDED).requests) == sum(
        len(entry["requests"]) for entry in json.loads(RECORDINGS[0].read_text())["outcomes"]
    )


def test_a_scenario_without_a_recording_says_to_measure_it_live():
    with pytest.raises(
        InputError, match="scenario 'article-rewrites' has no recording on mastra@1.71.0 .* measure it live.* --out DIR"
    ):
        api.study(keysets.by_name("article-rewrites", normaliser), "1.71.0", measurements=sources.RECORDED)
    changed = [s for s in catalogue.scenarios() if s.name == "choice-auto"][0]
    with pytest.raises(InputError, match="'choice-auto' differs from the recorded one"):
        api.study(
            changed.__class__(**{**changed.__dict__, "method": "stream"}), "1.71.0", measurements=sources.RECORDED
        )


def test_study_inputs_are_checked():
    with pytest.raises(InputError, match="no framework adapter named 'nope'"):
        api.study(EXAMPLE, "nope@1.0.0", measurements=sources.RECORDED)
    with pytest.raises(InputError, match="given twice: .*mcp-keys"):
        api.as_scenarios([EXAMPLE, EXAMPLE])
    with pytest.raises(InputError, match="is not 'live', 'recorded' or a folder"):
        api.study(EXAMPLE, "1.71.0", measurements="/no/such/folder")
    with pytest.raises(InputError, match="'search.web' is not a scenario file: study takes .* a plain list of keys"):
        api.study("search.web", "1.71.0", measurements=sources.RECORDED)


@pytest.mark.parametrize(
    ("scenarios", "targets", "measurements", "said"),
    [
        ({"name": "mine", "tools": ["search.web"]}, "1.71.0", "recorded", "^cannot study a dict: write a scenario"),
        (b"search.web", "1.71.0", "recorded", "^cannot study bytes b'search.web': keys are text"),
        (EXAMPLE, 42, "recorded", "^targets is a target or a list of them .*, not 42$"),
        (EXAMPLE, None, "recorded", "^targets is a target or a list of them .*, not None$"),
        (
            EXAMPLE,
            [1.67],
            "recorded",
            "^a target is 'framework@version' text, a bare Mastra version or a Target, not float 1.67$",
        ),
        (EXAMPLE, "1.71.0", 42, "^measurements is 'live', 'recorded', .* not 42$"),
        (EXAMPLE, "1.71.0", None, "^measurements is 'live', 'recorded', .* not None$"),
        (EXAMPLE, "1.71.0", "", "^measurements is 'live', 'recorded', .* not ''$"),  # it read the working folder
    ],
)
def test_study_refuses_junk_naming_the_argument(scenarios, targets, measurements, said):
    """Each wrong type is one InputError naming what was wrong: a dict was studied as a turn registering its field
    names, and a wrong-typed target or source ended in Python's own TypeError or AttributeError."""
    with pytest.raises(InputError, match=said):
        api.study(scenarios, targets, measurements=measurements)


def test_the_package_top_gives_the_study_function_and_keeps_the_subpackage():
    from probe_lib import study
    from probe_lib.tables import tidy

    assert inspect.isfunction(study) and tidy.COLUMNS is sys.modules["probe_lib.tables.tidy"].COLUMNS
    front, inner = inspect.signature(study).parameters, inspect.signature(api.study).parameters
    assert [(p.name, p.kind) for p in front.values()] == [(p.name, p.kind) for p in inner.values()]
    assert sources.parse(front["measurements"].default) is inner["measurements"].default is sources.LIVE
    assert front["on_target"].default is inner["on_target"].default is None
    recorded = study(EXAMPLE, "1.71.0", measurements="recorded").frame
    pd.testing.assert_frame_equal(recorded, api.study(EXAMPLE, "1.71.0", measurements=sources.RECORDED).frame)


def test_importing_the_package_leaves_pandas_to_the_first_study():
    code = "import sys, probe_lib; from probe_lib import study; print('pandas' in sys.modules, study.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "study"]


def test_a_target_without_a_version_says_a_target_is_framework_at_version():
    with pytest.raises(
        InputError,
        match=r"^'langchain' names a framework, not one of its releases: a target is framework@version "
        r"\(e\.g\. 'langchain@\d+\.\d+\.\d+'\)",
    ):
        api.study(["search.web"], ["langchain"])
    with pytest.raises(InputError, match=r"^'latest' is not a target: a target is framework@version \(e\.g\. 'mastra@"):
        api.study(["search.web"], "latest", measurements=sources.RECORDED)


@pytest.mark.node
def test_a_plain_list_of_keys_is_one_turn_registering_them(node_modules, capsys):
    result = api.study(["search.web", "9lives"], "mastra@1.71.0")
    assert capsys.readouterr().out == "measuring 1 scenario(s) on mastra@1.71.0…\n"  # said before it measured
    assert [outcome.scenario.name for outcome in result.outcomes] == ["keys"]
    assert list(result.frame["key"]) == ["search.web", "9lives"]
    assert set(result.outcomes[0].wire_names) == {"search_web", "_9lives"}


@pytest.mark.slow
@pytest.mark.node
def test_key_sets_measured_live_give_one_row_per_key_matching_the_request(node_modules):
    sets = keysets.article_sets()[:3]
    result = api.study(sets, "mastra@1.71.0")
    frame = result.frame
    assert set(frame["source"]) == {"live"}
    for keyset, outcome in zip(sets, result.outcomes):
        rows = frame[frame["scenario"] == keyset.name]
        assert list(rows["key"]) == list(keyset.keys)
        sent = rows[rows["on_wire"]].sort_values("position_after")["wire_name"].tolist()
        assert sent == [tool["function"]["name"] for tool in outcome.requests[0]["tools"]]
        assert result.requests[result.requests["scenario"] == keyset.name]["body"].iloc[0] == outcome.requests[0]


@pytest.mark.slow
@pytest.mark.node
def test_run_out_writes_files_a_study_reads_back_equal(node_modules, tmp_path):
    """`probe-lib run FILE --out DIR` (the command's main, in this process), then the study API on DIR: the same
    rows."""
    out = tmp_path / "mine"
    assert main(["run", str(EXAMPLE), "--mastra", "1.0.4", "--mastra", "1.71.0", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [
            folders.MANIFEST,
            "outcomes.csv",
            "outcomes.parquet",
            "dictionary.csv",
            "mastra-1.0.4.json",
            "mastra-1.71.0.json",
        ]
    )
    for name in ("mastra-1.0.4.json", "mastra-1.71.0.json"):  # the shipped recording is current
        shipped = paths.CAPTURES / "example" / name
        measured, recorded = measurement.read(out / name), measurement.read(shipped)
        assert measured.made.how == recorded.made.how == "live" and measured.made.on is not None
        assert measured.outcomes == recorded.outcomes, (
            f"{shipped} is stale: probe-lib run {EXAMPLE} --framework mastra --out DIR, then copy DIR/*.json there"
        )
    again = api.study(EXAMPLE, ["1.0.4", "1.71.0"], measurements=sources.parse(out)).frame
    with pd.option_context("mode.string_storage", "python"):  # as the kit's own frames hold text (tidy.TEXT)
        written = pd.read_parquet(out / "outcomes.parquet")
    pd.testing.assert_frame_equal(  # the column labels' own index follows the option; the columns are the same
        again.drop(columns=["source", "recording"]),
        written.drop(columns=["source", "recording"]),
        check_column_type=False,
    )
    # The example's question, answered on the wire: forcing by key names a function the tools do not hold.
    turns = compare.turns(written).set_index(["scenario", "target"])
    assert turns.loc[("mcp-forced-by-key", "mastra@1.71.0"), "verdict"] == "forced tool not in tools"
    assert turns.loc[("mcp-forced-by-key-remedy", "mastra@1.71.0"), "verdict"] != "forced tool not in tools"


def test_cli_run_rejects_a_bad_file_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("scenarios:\n  - name: a\n    tols: [x]\n", encoding="utf-8")
    assert main(["run", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: scenario 'a' (number 1): field 'tols': unknown field" in err


def test_verdict_grid_and_differences_read_the_frame():
    frame = api.study(catalogue.scenarios(), ["1.0.4", "1.71.0"], measurements=sources.RECORDED).frame
    categories, labels = compare.verdict_grid(frame, compare.model_names(catalogue.scenarios(), normaliser))
    assert list(categories.columns) == ["mastra@1.0.4", "mastra@1.71.0", "Python model"]
    assert categories.loc["choice-by-key", "mastra@1.71.0"] == "forced tool not in tools"
    assert categories.loc["collision-dot-space", "mastra@1.0.4"] == "error"
    assert set(categories.stack()) <= set(charts.VERDICT_COLOURS)
    changed = compare.differences(frame, "mastra@1.0.4", "mastra@1.71.0")
    raw = {(e["version"], e["scenario"]): _raw_names(e) for e in _raw_outcomes()}
    moved = {s for s in catalogue.by_name() if sorted(raw["1.0.4", s]) != sorted(raw["1.71.0", s])}
    assert moved <= set(changed["scenario"])


def test_a_measurement_file_reads_back_the_scenarios_it_carries(tmp_path):
    from probe_lib.core.target import Target

    target = Target("mastra", "1.71.0")
    outcomes = tuple(o for o, _ in measurement.find(catalogue.scenarios()[:2], target))
    made = measurement.Made(Provenance.RECORDED)
    written = measurement.write(tmp_path / "mine.json", measurement.Measurement("mine", target, made, outcomes))
    assert [o.scenario for o in measurement.read(written).outcomes] == catalogue.scenarios()[:2]
