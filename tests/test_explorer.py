"""The explorer driven as a reader drives it: widget values set, the rendered HTML read back.

Expected names and error texts are written out from the article's rules and Mastra's own wording, never taken
from the Python model under test; the live tests run the real @mastra/core through the capture server.
"""

from __future__ import annotations

import gc
import html
import json
import os
import re
import sys

import pytest
from processes import child_pids

from probe_lib import frameworks
from probe_lib.core import scenarios
from probe_lib.core.target import Target
from probe_lib.frameworks.session_pool import SessionPool
from probe_lib.inputs import records
from probe_lib.present import explorer, explorer_html, explorer_view
from probe_lib.present.explorer import ExplorerSource

LIVE_1_67 = "@mastra/core 1.67.0, live"
MODEL = "@mastra/core, Python model"
COLLISION_TEXT = (
    'Two or more tools resolve to the same name "search_web". Please rename one of the tools to avoid this collision.'
)


@pytest.fixture
def view():
    """A view whose warm runners stop with the test, so a later test in the same worker (one that counts or signals
    this process's runners) never meets them."""
    made = explorer_view.ExplorerView(debounce_s=0.01)
    made.refresh()
    yield made
    made.close()


def cells(view: explorer_view.ExplorerView, column: int) -> list[str]:
    """The text of one column of the key table, as a reader sees it (tags stripped, entities decoded)."""
    table = view.output.value.split('class="x-keys"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
    return [html.unescape(re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", row)[column])) for row in rows]


def test_the_view_opens_on_the_articles_keys_with_each_rewrite_highlighted(view):
    assert "done: @mastra/core, Python model" in view.status.value
    assert cells(view, 2) == ["search.web", "2fa-check", "weather-EU", "github:list␣issues"]  # replaced space: ␣
    assert cells(view, 3) == ["search_web", "_2fa-check", "weather-EU", "github_list_issues"]
    assert cells(view, 1) == ["1", "2", "0", "3"]  # the legal key first, rewritten keys re-added after it
    out = view.output.value
    assert 'class="x-changed"' in out and ">.</span>" in out  # the dot that became "_"
    assert '<span class="x-added" style="background:#c9e2ff;color:#00366b">_</span>2fa-check' in out
    assert "<svg" in out and 'class="x-order"' in out


def test_typing_updates_the_output_and_a_cut_key_shows_what_it_lost(view):
    key = "customer_support_ticket_" + "x" * 39 + "LOST"  # 67 characters: formatTools keeps 63
    view.keys.value = key
    view.settle()
    assert cells(view, 3) == [key[:63]]
    assert ">LOST</span>" in view.output.value and "x-cut" in view.output.value
    assert "cut to 63 (lost &#x27;LOST&#x27;)" in view.output.value


def test_bad_input_is_named_in_the_widget_and_never_breaks_it(view):
    view.keys.value = "a\n\n\nsearch.web\na\n"
    view.settle()
    notes = re.findall(r'class="x-note"[^>]*>(.*?)</p>', view.output.value)
    assert any("2 empty line(s) skipped" in note for note in notes), notes
    assert any("later copies were dropped" in note and "line 5 repeats line 1" in html.unescape(note) for note in notes)
    assert cells(view, 2) == ["a", "search.web"]

    view.keys.value = "\n".join(f"tool.{number}" for number in range(10_000))
    view.settle()
    assert "10,000 keys given; the explorer takes the first 1,000" in view.output.value
    assert len(cells(view, 2)) == 1_000 and view.failure is None

    view.keys.value = "ok\nbad\ud800key"  # what a browser sends for a lone surrogate
    view.settle()
    assert "\\ud800" in view.output.value and "lone surrogate" in view.output.value
    view.output.value.encode("utf-8")  # no raw surrogate reaches the browser
    assert cells(view, 3) == ["ok", "bad_key"]

    view.keys.value = "   "
    view.settle()
    assert cells(view, 2) == ["␣␣␣"] and cells(view, 3) == ["___"]  # a replaced space is drawn as ␣

    view.keys.value = ""
    view.settle()
    assert "no keys to explore" in view.output.value and view.failure is None

    view.keys.value = '["a", ""'
    view.settle()
    assert "not JSON" in view.output.value
    view.keys.value = '["a", ""]'  # the empty key, which only a JSON array can carry
    view.settle()
    assert (
        "crash" in view.output.value
        and "Cannot read properties of undefined (reading &#x27;match&#x27;)" in view.output.value
    )


def test_picking_a_key_set_or_a_corpus_tool_set_fills_the_keys(view):
    view.pick.value = "key set: article-collision-dot-space"
    view.settle()
    assert view.keys.value == "search.web\nsearch web"
    assert "collision" in view.output.value
    view.pick.value = "MCP corpus: composio TRELLO"
    view.settle()
    assert all(key.startswith("composio_TRELLO_") for key in view.keys.value.splitlines())
    view.keys.value += "\nextra"
    assert view.pick.value == explorer_view.CUSTOM  # the text is no longer the picked set


def test_a_model_tool_choice_is_checked_by_the_provider_linter(view):
    view.keys.value = "search.web\nweather"
    view.tool_choice.value = "search.web"
    view.provider.value = "anthropic/documented"
    view.settle()
    findings = view.output.value.split('class="x-findings"', 1)[1]
    assert "choice-not-in-tools" in findings and "anthropic/documented says" in findings
    assert "force that name instead" in findings
    body = json.loads(html.unescape(view.output.value.split("<pre", 2)[-1].split(">", 1)[1].split("</pre>")[0]))
    assert body["tool_choice"] == {"type": "function", "function": {"name": "search.web"}}


def test_static_rendering_has_no_script_and_names_its_state(view):
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    static = bundle["text/html"]
    assert "<script" not in static and "static rendering" in static and MODEL in static
    assert "search_web" in static


def test_a_failed_run_keeps_the_last_good_result(view, monkeypatch):
    good = view.output.value
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))  # Node.js really absent from PATH
    view.source.value = LIVE_1_67
    view.settle()
    assert "This run failed" in view.status.value and "choose the Python model" in view.status.value
    assert "Showing the last good result" in view.status.value
    assert view.output.value == good


def test_sources_list_the_model_and_every_pinned_version_live():
    from probe_lib import frameworks

    labels = [source.label for source in explorer.sources()]
    start = labels.index(MODEL)
    assert labels[start : start + 4] == [MODEL, "@mastra/core 1.0.4, live", LIVE_1_67, "@mastra/core 1.71.0, live"]
    others = [frameworks.get(name) for name in frameworks.names() if name != "mastra"]
    assert len(labels) == 4 + sum(len(a.versions()) + (a.name_rule() is not None) for a in others), (
        "every framework's pins"
    )
    with pytest.raises(explorer.InputError, match="choose one of"):
        explorer.explore(["a"], "@mastra/core 9.9.9, live")


@pytest.mark.node
def test_a_live_source_runs_the_real_package_and_words_the_collision_as_mastra_does(view, node_modules):
    # the view's pool is cold: the first run starts a runner, so "measuring…" is on screen meanwhile
    view.keys.value = "search.web\nsearch web"
    view.source.value = LIVE_1_67
    view._timer.join()
    assert "measuring… on @mastra/core 1.67.0, live" in view.status.value
    view.settle()
    error = html.unescape(view.output.value.split('class="x-error"', 1)[1].split("</pre>")[0])
    assert f"Error [AGENT_GENERATE_FAILED]: {COLLISION_TEXT}" in error
    assert "as the framework words it" in error
    assert view.pool.running() == [Target("mastra", "1.67.0")]
    runners = child_pids(os.getpid(), b"runner.cjs")
    assert runners, "the view keeps its runner warm"
    view.close()
    assert not child_pids(os.getpid(), b"runner.cjs") & runners and view.pool.running() == []


@pytest.mark.node
def test_a_pool_dropped_without_closing_stops_its_runner(node_modules):
    """Nothing registers at import or waits for exit: the pool's own finalizer stops what it started."""
    pool = SessionPool()
    outcome = pool.run(Target("mastra", "1.67.0"), scenarios.for_keys("dropped", ["a.b"]))
    assert outcome.wire_names == ["a_b"]
    runners = child_pids(os.getpid(), b"runner.cjs")
    assert runners
    del pool
    gc.collect()
    assert not child_pids(os.getpid(), b"runner.cjs") & runners


@pytest.mark.node
def test_a_live_forced_tool_choice_shows_the_captured_body_and_the_mismatch(view, node_modules):
    view.source.value = LIVE_1_67
    view.keys.value = "search.web\nweather"
    view.tool_choice.value = "search.web"
    view.settle()
    result = view.result
    assert result.measurement.captured and result.source == ExplorerSource("mastra", "1.67.0")
    assert result.measurement.body["tool_choice"] == {"type": "function", "function": {"name": "search.web"}}
    assert [tool["function"]["name"] for tool in result.measurement.body["tools"]] == ["weather", "search_web"]
    assert cells(view, 1) == ["1", "0"]
    assert "captured from the wire" in view.output.value
    assert any(finding.code == "choice-not-in-tools" for finding in result.findings)


@pytest.mark.node
def test_live_active_tools_naming_the_old_key_sends_no_tools(node_modules):
    result = explorer.explore("search.web\nweather", "@mastra/core 1.71.0, live", active_tools="search.web")
    assert result.measurement.wire_names == ()
    rendered = explorer_html.render(result)
    assert "not sent (activeTools does not name it)" in rendered


@pytest.mark.node
def test_live_lone_surrogate_and_emoji_keys_reach_the_wire_as_javascript_counts_them(node_modules):
    result = explorer.explore(["a\ud800b", "w😀"], LIVE_1_67)
    assert result.measurement.wire_names == ("a_b", "w__")  # one UTF-16 unit, then two
    explorer_html.render(result).encode("utf-8")


def test_every_key_set_round_trips_through_the_text_box():
    """The picker writes a set as lines, or as a JSON array when lines cannot carry its keys (line breaks, the
    empty key, a first key starting with "["); reading the text back gives exactly the set."""
    from probe_lib.frameworks.mastra import normaliser
    from probe_lib.inputs import keysets

    for keyset in keysets.catalogue(normaliser):
        assert records.parse_keys(records.keys_as_text(keyset.keys)).keys == keyset.keys, keyset.name
    assert records.keys_as_text(["[x", "y"]) == '["[x", "y"]'


def test_keys_given_as_a_sequence_are_checked_like_typed_ones():
    result = explorer.explore(["a", "a", "b"])
    assert result.keys == ("a", "b") and "item 2 repeats item 1" in result.notes[0]
    with pytest.raises(explorer.InputError, match="item 2 is int, not text"):
        explorer.explore(["a", 2])


def test_keys_are_taken_from_any_iterable_as_study_takes_them():
    assert explorer.explore({"a.b"}).keys == ("a.b",)
    assert explorer.explore(key for key in ["a.b", "c"]).keys == ("a.b", "c")


def test_a_cleared_box_asks_for_keys_and_an_unknown_source_is_quoted_short():
    assert explorer.explore("").notes == ("type or paste keys, one per line",)  # not "1 empty line(s) skipped"
    with pytest.raises(explorer.InputError) as refused:
        explorer.explore(["a"], "x" * 100_000)
    assert len(str(refused.value)) < 1_000 and "(100,002 characters)" in str(refused.value)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"keys": {"search.web": 1}}, "explore's keys is text, one key per line, or a list of strings, not dict"),
        ({"keys": b"search.web"}, "explore's keys is text, one key per line, or a list of strings, not bytes"),
        ({"keys": ["a"], "source": 1.67}, "explore's source is a label or FRAMEWORK@VERSION, not float 1.67"),
        ({"keys": ["a"], "tool_choice": 7}, "explore's tool_choice is a tool name, not int 7"),
        (
            {"keys": ["a"], "active_tools": 5},
            "explore's active_tools is names, one per line, or a list of them, not int",
        ),
        ({"keys": ["a"], "provider": None}, "explore's provider is a provider/variant label, not NoneType None"),
    ],
)
def test_a_wrong_type_is_one_error_naming_the_argument(given, said):
    """A dict's keys or bytes' integers were read as keys, and other types ended in Python's own errors."""
    with pytest.raises(explorer.InputError, match=re.escape(said)):
        explorer.explore(**given)


def test_a_collision_leaves_every_key_unsent_and_says_what_each_would_have_become(view):
    view.keys.value = "search.web\nsearch web\nok"
    view.settle()
    assert cells(view, 3) == [
        "none sent; would be search_web",
        "none sent; would be search_web",
        "none sent; would be ok",
    ]
    assert cells(view, 4) == ["illegal characters → _", "illegal characters → _", "none"]
    assert "model: collision: 'search web' rewrites to 'search_web', already held by 'search.web'" in html.unescape(
        view.output.value
    )


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["pydantic-ai", "llama-index"])
def test_a_live_run_on_another_framework_traces_each_wire_name_to_its_key(framework):
    """pydantic-ai describes a tool by its function's docstring, LlamaIndex by its key and rewrites the name: on
    both the real framework's request says which key each name came from."""
    adapter = frameworks.get(framework)
    version = adapter.versions()[-1]
    if not adapter.is_installed(version):
        pytest.fail(f"{framework} {version} is not installed: run `probe-lib setup --all-frameworks`")
    measurement = explorer.explore(["b", "a.x"], ExplorerSource(framework, version).label).measurement
    assert measurement.captured
    assert dict(zip(measurement.wire_keys, measurement.wire_names)) == (
        {"b": "b", "a.x": "a.x"} if framework == "pydantic-ai" else {"b": "b", "a.x": "a_x"}
    )


@pytest.mark.slow
def test_two_keys_one_name_on_the_wire_are_each_traced_to_a_key():
    """LlamaIndex lists a name twice when two keys rewrite onto it: both keys are sent, one tool each, as the
    headline and the linter count them (the table once called one of them "not sent")."""
    adapter = frameworks.get("llama-index")
    version = adapter.versions()[-1]
    if not adapter.is_installed(version):
        pytest.fail(f"llama-index {version} is not installed: run `probe-lib setup --all-frameworks`")
    result = explorer.explore(["search.web", "search web", "ok"], ExplorerSource("llama-index", version).label)
    assert result.measurement.wire_names.count("search_web") == 2, result.measurement.wire_names
    assert sorted(result.measurement.wire_keys) == ["ok", "search web", "search.web"]
    assert all(row.name is not None for row in result.rows), [row.rules for row in result.rows]


def test_when_every_key_is_rewritten_none_is_said_to_move():
    result = explorer.explore(["a.b", "c.d"])
    assert [row.after for row in result.rows] == [0, 1]
    assert not any("moved" in rule for row in result.rows for rule in row.rules)
    assert any("moved" in rule for row in explorer.explore(["a.b", "c"]).rows for rule in row.rules)


def test_a_live_source_given_bad_input_is_not_told_to_choose_a_live_source():
    result = explorer.explore('["a",', LIVE_1_67)
    assert "not JSON" in " ".join(result.notes)
    assert "Choose a live source" not in explorer_html.render(result)


#: The width of a notebook's output area in JupyterLab at a 1,280 px window.
OUTPUT_PX = 968


@pytest.mark.parametrize(
    "keys",
    [
        pytest.param(("search.web", "customer-support." + "ticket_escalation_" * 3 + "handler.v2", "ok"), id="70-char"),
        pytest.param(explorer_view.picked_keys("MCP corpus: github github/github-mcp-server"), id="github-117"),
        pytest.param(("search.web", "customer support " + "x" * 53), id="70-char-collision-free"),
    ],
)
@pytest.mark.slow
def test_the_explorer_fits_its_output_at_any_size_the_kit_ships(keys, tmp_path):
    """Drawn in Chromium in an output as wide as JupyterLab's, nothing passes its right edge: long keys wrap, and
    the key table of the largest MCP set scrolls in a box of its own; the ordering chart cuts a label with "…"
    and keeps it whole in its tooltip."""
    from layout import OVERFLOWING, chromium_page

    assert any(len(key) >= 70 for key in keys) or len(keys) >= 117
    result = explorer.explore(keys, tool_choice=keys[0])
    page_html = f'<!doctype html><body style="margin:0"><div id="out" style="width:{OUTPUT_PX}px">'
    page_html += explorer_html.render(result) + "</div></body>"
    (tmp_path / "explorer.html").write_text(page_html, encoding="utf-8")
    with chromium_page() as page:
        page.goto((tmp_path / "explorer.html").as_uri())
        assert page.evaluate(OVERFLOWING, "#out") == []
        tall = page.evaluate("document.querySelector('#out').getBoundingClientRect().height")
        assert tall < 3_000, f"the output is {tall} px tall"
        page.screenshot(path=str(tmp_path / "explorer.png"))
    if len(keys) <= explorer_html.CHART_LABELLED_ROWS:
        longest = max(keys, key=len)
        assert f"<title>{html.escape(longest)}</title>" in page_html and "…</text>" in page_html


def test_a_run_is_timed_on_screen_once_shown_and_never_in_what_the_notebook_saves(view):
    """The first result (measured before the notebook shows the view) and the static rendering say no time, so an
    executed notebook is the same bytes each run; a run after the view is shown says how long it took."""
    timed = re.compile(r"<small>\([\d,]+ ms\)</small>")
    assert not timed.search(view.output.value)
    bundle = view._repr_mimebundle_()
    assert not timed.search(bundle["text/html"])
    view.keys.value = "a.b"
    view.settle()
    assert timed.search(view.output.value)
    assert not timed.search(view.static_html())
