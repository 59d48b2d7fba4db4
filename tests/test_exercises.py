"""The exercises: a wrong answer fails its check on the real package and says why, and the placeholder is "not
answered yet". Every solution passes its check on the real package in tests/test_report.py, where every notebook
runs with its solutions filled in (the live report is the solved one).

The truths come from the real ``@mastra/core`` (live) or from hand-written expectations below, never from the
Python model the checks fall back to.
"""

from __future__ import annotations

import nbformat
import pytest

from probe_lib.measure import sources
from probe_lib.measure.provenance import Provenance
from probe_lib.report import build as report
from probe_lib.teach import exercises, primer, solutions

NAMES = list(exercises.EXERCISES)

#: A plausible wrong answer per exercise, and a phrase its verdict must contain (the measured truth or the reason).
WRONG: dict[str, tuple[object, str]] = {
    "name_the_model_sees": ("lookup-order", "That is the tool's id"),
    "key_for_the_id": ("getWeather", "offered 'getWeather'"),
    "predict_wire_names": (
        {"my.tool": "my_tool", "3d-view": "3d-view", "café": "cafe", "rocket🚀": "rocket_", "ok": "ok"},
        "3 of 5 wrong",
    ),
    "key_mastra_cuts": ("a" * 63, "sends it whole (63 characters), nothing cut"),
    "predict_wire_order": (["b", "x_y", "_10", "a", "_2"], "['b', 'a', '_2', '_10', 'x_y']"),
    "colliding_key": ("search-web", "no collision"),
    "fix_tool_choice": ("get-weather", "forces 'get-weather' but tools offers only ['search_web']"),
    "names_that_run": (["search.web"], "the tool ran for ['get-weather', 'search_web']"),
    "first_version_honouring_active_tools": ("1.0.4", "1.0.4: ignored"),
    "safe_names": (
        {"search.web": "search_web", "search web": "search_web2", "weather😀": "weather😀", "9lives": "9lives"},
        "refused",
    ),
    "mcp_server_mastra_cuts": ("aws-ecs awslabs/mcp", "whole"),
}


def test_every_exercise_has_a_solution_and_a_wrong_answer():
    assert set(solutions.SOLUTIONS) == set(NAMES) == set(WRONG)


@pytest.mark.parametrize("name", NAMES)
def test_the_placeholder_is_not_answered_yet(name):
    checked = exercises.EXERCISES[name][1](None, exercises.ARTICLE, sources.LIVE)
    assert checked.state == "not answered yet" and "replace None" in checked.why and not checked.right


# Each solution passes its check on the real package in the live report, which answers every exercise with it:
# test_report's test_every_exercise_is_answered_right_by_its_solution_measured_live.


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("name", NAMES)
def test_a_wrong_answer_fails_its_check_and_says_why(name, node_modules):
    answer, phrase = WRONG[name]
    checked = exercises.EXERCISES[name][1](answer, exercises.ARTICLE, sources.LIVE)
    assert checked.state == "wrong", str(checked)
    assert phrase in checked.why, str(checked)


#: Answers whose verdict must say what the real package did with them, not what the key would suggest: (exercise,
#: answer, right or wrong, a phrase of the reason).
SAID_AS_SENT = [
    ("colliding_key", "__proto__", "wrong", "'__proto__' did not reach the wire"),  # F06
    ("colliding_key", "..proto..", "right", "a name Object.prototype already holds"),  # F04, not search.web's name
    ("key_mastra_cuts", "9lives", "wrong", "sends '_9lives' (7 characters), nothing cut"),
    (
        "key_mastra_cuts",
        "1" + "a" * 63,
        "right",
        "cuts the name it sends at 63: it lost 'aa', after putting _ in front",
    ),
    ("key_mastra_cuts", "9" + "a" * 62, "right", "it lost 'a', after putting _ in front"),  # 63 sent of 63, yet cut
    ("key_mastra_cuts", "__proto__", "wrong", "'__proto__' never reached the wire"),
    (
        "safe_names",
        {"search.web": "a", "search web": "b", "weather😀": "c", "9lives": "__proto__"},
        "wrong",
        "['__proto__'] as given",
    ),
    ("safe_names", {"search.web": "s", "search web": "s", "weather😀": "w", "9lives": "n"}, "wrong", "would be lost"),
    (
        "safe_names",
        {"search.web": "search-web", "search web": "search_web", "weather😀": "weather", "9lives": "nine"},
        "wrong",
        "'search-web' by cohere/documented",
    ),
]


@pytest.mark.node
@pytest.mark.parametrize(("name", "answer", "state", "phrase"), SAID_AS_SENT)
def test_a_verdict_says_what_the_package_did_with_the_answer(name, answer, state, phrase, node_modules):
    checked = exercises.EXERCISES[name][1](answer, exercises.ARTICLE, sources.LIVE)
    assert checked.state == state and phrase in checked.why, str(checked)


def test_the_primer_names_the_notebooks_whose_checks_fall_back_to_the_recordings():
    """The primer's sentence on fallbacks, held to what each check measured on without Node.js."""
    from probe_lib.core import paths

    on_recordings = sorted(
        notebook[:2]
        for name, (notebook, check) in exercises.EXERCISES.items()
        if check(solutions.SOLUTIONS[name], exercises.ARTICLE, sources.RECORDED).measured_on != exercises._MODEL
    )
    cells = nbformat.read(paths.NOTEBOOKS / "00-primer.ipynb", as_version=4).cells
    primer = " ".join(" ".join(cell.source for cell in cells if cell.cell_type == "markdown").split())
    assert f"the exercises of notebooks {' and '.join(on_recordings)} on the recorded turns" in primer, on_recordings


@pytest.mark.parametrize("name", NAMES)
def test_without_node_the_check_says_what_it_fell_back_to(name):
    """The primer's promise: the Python model, except for the exercises of notebooks 07 and 08, which read the
    recorded turns."""
    checked = exercises.EXERCISES[name][1](solutions.SOLUTIONS[name], exercises.ARTICLE, sources.RECORDED)
    assert checked.right, str(checked)
    on_recordings = exercises.EXERCISES[name][0] in ("07-round-trip-and-non-mutation", "08-versions")
    assert (checked.measured_on == exercises._MODEL) != on_recordings, checked.measured_on
    assert "live" not in checked.measured_on and ("record" in checked.measured_on or not on_recordings)


@pytest.mark.slow
@pytest.mark.node
def test_the_tool_choice_exercise_takes_the_object_its_question_shows(node_modules):
    """Answered with the whole toolChoice, as the question writes it, the check judges its toolName, on the real
    package; an object without a toolName is told what the answer is, not judged as a name."""
    whole = exercises.fix_tool_choice({"type": "tool", "toolName": "search_web"}, exercises.ARTICLE, sources.LIVE)
    assert whole.right and "live" in whole.measured_on, str(whole)
    wrong = exercises.fix_tool_choice({"type": "tool", "toolName": "search.web"}, exercises.ARTICLE, sources.LIVE)
    assert wrong.state == "wrong" and "forces 'search.web'" in wrong.why, str(wrong)
    formless = exercises.fix_tool_choice({"type": "tool"}, exercises.ARTICLE, sources.LIVE)
    assert formless.state == "wrong" and "the toolName alone, a string" in formless.why, str(formless)


def test_a_version_that_sent_no_request_judges_no_answer_but_a_collision_is_wrong(monkeypatch):
    """On a release that crashes before sending (0.20.2, 1.57.0 on most turns) an answer is neither right nor wrong;
    a refusal on a collision is the package's answer, and judged."""
    monkeypatch.setattr(exercises, "_wire_names", lambda *_: ({"error": {"kind": "crash", "message": "boom"}}, "live"))
    crashed = exercises.colliding_key("search-web", "1.57.0", sources.LIVE)
    assert crashed.state == "not judged" and not crashed.right
    assert str(crashed).startswith("⚠️ NOT JUDGED [colliding_key] 1.57.0 sent no request (crash: boom)")
    monkeypatch.setattr(exercises, "_wire_names", lambda *_: ({"error": {"kind": "collision", "name": "a_b"}}, "live"))
    refused = exercises.safe_names(solutions.SOLUTIONS["safe_names"], "1.67.0", sources.LIVE)
    assert refused.state == "wrong" and "two tools would go out as 'a_b'" in refused.why


#: A served release that crashes before sending on every exercise's turn (docs/sweeps.md: on all but four scenarios
#: of the catalogue), and one from before the normaliser, which sends every key as registered (V01).
CRASHES, VERBATIM = "1.57.0", "0.12.1"


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("name", [name for name in NAMES if name != "first_version_honouring_active_tools"])
def test_on_a_release_that_sends_nothing_each_exercise_judges_no_answer(name, release_cache):
    """Each check but 08's (judged on the pins) measures its answer on the version the notebook is run on; on one
    that crashes before any request, the solution is neither right nor wrong, and the verdict says why: four checks
    once called it wrong ("the model is offered None"), two raised a TypeError."""
    checked = exercises.EXERCISES[name][1](solutions.SOLUTIONS[name], CRASHES, sources.LIVE)
    assert checked.state == "not judged" and f"{CRASHES} sent no request" in checked.why, str(checked)
    assert "live" in checked.measured_on, str(checked)


@pytest.mark.slow
@pytest.mark.node
def test_before_the_normaliser_names_sent_as_registered_are_the_right_prediction(release_cache):
    """On a release that rewrites no key, predicting every key as its own name is right, and the check says why;
    it once called that answer wrong and asked the learner to report it."""
    as_registered = {key: key for key in exercises.PREDICT_KEYS}
    checked = exercises.predict_wire_names(as_registered, VERBATIM, sources.LIVE)
    assert checked.right and "went out as registered" in checked.why, str(checked)
    rewritten = exercises.predict_wire_names(solutions.SOLUTIONS["predict_wire_names"], VERBATIM, sources.LIVE)
    assert rewritten.state == "wrong" and "report" not in rewritten.why, str(rewritten)
    cut_later = exercises.mcp_server_mastra_cuts(solutions.SOLUTIONS["mcp_server_mastra_cuts"], VERBATIM, sources.LIVE)
    assert cut_later.state == "wrong" and "as registered: it rewrites no key" in cut_later.why, str(cut_later)


@pytest.mark.slow
@pytest.mark.node
def test_the_primer_shows_what_stopped_a_turn_that_sent_no_request(release_cache):
    """The primer prints the example's request body; on a release that sent none it says what stopped the turn (it
    raised an IndexError)."""
    shown = primer.request_json(primer.example(CRASHES, sources.LIVE))
    assert shown.startswith("(no request was sent: crash: ") and shown.endswith(")"), shown


def test_a_dict_answer_with_other_keys_is_told_which():
    """A key typed in another Unicode form looks like the one asked for: the verdict spells both with escapes."""
    answer = {key: key for key in exercises.PREDICT_KEYS if key != "café"} | {"cafe\u0301": "cafe_"}
    checked = exercises.predict_wire_names(answer, exercises.ARTICLE, sources.RECORDED)
    assert checked.state == "wrong" and "(missing 'caf\\xe9'; not asked 'cafe\\u0301')" in checked.why, str(checked)


def test_the_verdict_renders_in_words():
    checked = exercises.colliding_key(None)
    assert str(checked).startswith("✏️ NOT ANSWERED YET [colliding_key]")
    assert "<b>" in checked._repr_html_()


def _exercise_cells(notebook: nbformat.NotebookNode) -> dict[str, str]:
    return {
        name: cell.source
        for cell in notebook.cells
        if cell.cell_type == "code"
        for name in [solutions.exercise_of(cell.source)]
        if name
    }


def test_each_exercise_sits_in_its_notebook_with_the_placeholder():
    found = {}
    for path in report.notebooks():
        for name, source in _exercise_cells(nbformat.read(path, as_version=4)).items():
            found[name] = path.stem
            placeholders = [line for line in source.splitlines() if line.startswith(solutions.PLACEHOLDER)]
            assert len(placeholders) == 1, f"{path.stem}: {name} must hold one 'answer = None' line"
    assert found == {name: notebook for name, (notebook, _check) in exercises.EXERCISES.items()}


def test_a_report_measured_from_recordings_keeps_its_checks_off_the_live_package(tmp_path):
    """``reproduce --recorded`` promised not to run Node: its notebooks' checks fall back as well, and say so."""
    assert {m.made.how for m in report.measure_all(tmp_path, sources.RECORDED)} == {Provenance.RECORDED}
    checked = exercises.key_for_the_id("get-weather", exercises.ARTICLE, sources.parse(str(tmp_path)))
    assert checked.right and "Python model" in checked.measured_on
