"""Provider rules against the texts their sources quote (error messages, docstrings, SDK regexes).

Each oracle below is copied from a source named in ``data/provider_rules.csv``, not from the rules file, so a typo
in the file fails a test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from probe_lib.core.errors import InputError
from probe_lib.providers import name_rules
from probe_lib.providers.name_rules import COLUMNS, check_name, get_rule, load_rules, provider_names, rules, variants

#: Names drawn from legal characters plus the separators and oddities real keys carry.
names = st.text(alphabet=st.sampled_from("aZ_09-.:/ @é😀") | st.characters(codec="utf-8"), min_size=0, max_size=140)


def test_every_provider_the_kit_names_is_known() -> None:
    expected = {
        "openai",
        "openai-responses",
        "azure",
        "anthropic",
        "gemini",
        "bedrock",
        "mistral",
        "groq",
        "cohere",
        "deepseek",
        "mcp",
    }
    assert set(provider_names()) == expected


def test_every_rule_has_a_source_and_a_read_date() -> None:
    for rule in rules():
        assert rule.source and rule.note, rule.label
        assert rule.date_read.year >= 2026, rule.label
        text = rule.source + rule.note
        assert "research" not in text and "../shared" not in text, f"{rule.label} cites notes no reader has"


def test_default_variant_is_documented_where_there_is_one() -> None:
    assert get_rule("openai").variant == "documented"
    assert get_rule("anthropic").variant == "documented"
    assert variants("gemini")[0] == "documented"
    # No documented rule: the provider's first row stands in.
    assert get_rule("openai-responses").variant == "observed"


# OpenAI: "string too long. Expected a string with maximum length 64, but got a string with length 67 instead."
def test_openai_refuses_a_67_character_name_for_its_length() -> None:
    reasons = check_name("a" * 67, "openai")
    assert len(reasons) == 1
    assert "67" in reasons[0] and "64" in reasons[0]
    assert check_name("a" * 64, "openai") == []


def test_search_web_is_refused_by_openai_but_accepted_by_gemini_and_mcp() -> None:
    reasons = check_name("search.web", "openai")
    assert reasons and "'.'" in reasons[0]
    assert check_name("search.web", "gemini") == []
    assert check_name("search.web", "mcp") == []


# Gemini: "Must start with a letter or an underscore."
def test_gemini_refuses_a_leading_digit_that_openai_accepts() -> None:
    reasons = check_name("1password_lookup", "gemini")
    assert reasons and "starts with '1'" in reasons[0]
    assert check_name("1password_lookup", "openai") == []
    assert check_name("_1password", "gemini") == []


def test_conflicting_sources_are_listed_not_settled() -> None:
    conflicts = name_rules.conflicts()
    # Anthropic: docs and live errors say {1,64}; other live errors say {1,128}.
    assert conflicts["anthropic"] == {"documented": 64, "observed": 128}
    # An older rule the provider replaced is not a conflict: Gemini's older 64, Mistral's older API, Bedrock's
    # older service model.
    assert "gemini" not in conflicts and "mistral" not in conflicts and "bedrock" not in conflicts


def test_the_variants_disagree_where_docs_and_errors_do() -> None:
    name_100 = "a" * 100
    assert check_name(name_100, "anthropic") != []
    assert check_name(name_100, "anthropic", "observed") == []
    assert check_name(name_100, "gemini", "documented") == []
    assert check_name(name_100, "gemini", "legacy") != []
    assert check_name("get-item", "bedrock") == []
    assert check_name("get-item", "bedrock", "legacy") != []
    assert check_name("a.b", "mistral", "observed") == []
    assert check_name("a.b", "mistral", "legacy") != []


def test_mistral_refuses_consecutive_dots_only() -> None:
    assert check_name("files.read.all", "mistral") == []
    assert check_name("files..read", "mistral") != []


def test_cohere_refuses_digits_first_and_dashes() -> None:
    assert check_name("9lives", "cohere") != []
    assert check_name("get-item", "cohere") != []
    assert check_name("get_item_" + "x" * 300, "cohere") == []  # no documented length limit


def test_an_empty_name_is_refused_everywhere() -> None:
    for provider in provider_names():
        assert check_name("", provider) == ["the name is empty"], provider


def test_a_name_listing_several_faults_reports_each() -> None:
    reasons = check_name("9" + "é" * 70, "gemini", "legacy")
    assert len(reasons) == 3  # length, first character, character set


# The whole-name regexes as each source prints them; the length limit is part of some.
SOURCE_REGEXES = [
    # openai-python FunctionDefinition docstring and the error "... matches the pattern '^[a-zA-Z0-9_-]+$'" (+ 64)
    ("openai", "documented", r"^[a-zA-Z0-9_-]{1,64}$"),
    ("groq", "documented", r"^[a-zA-Z0-9_-]{1,64}$"),
    # Anthropic: docs ^[a-zA-Z0-9_-]{1,64}$; live error "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
    ("anthropic", "documented", r"^[a-zA-Z0-9_-]{1,64}$"),
    ("anthropic", "observed", r"^[a-zA-Z0-9_-]{1,128}$"),
    # Gemini prose: "Must start with a letter or an underscore ... underscores, dots, colons and dashes"
    ("gemini", "documented", r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$"),
    ("gemini", "legacy", r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"),
    # Bedrock API reference "Pattern: [a-zA-Z0-9_-]+", 1..64; botocore ToolName "[a-zA-Z][a-zA-Z0-9_]*", 1..64
    ("bedrock", "documented", r"^[a-zA-Z0-9_-]{1,64}$"),
    ("bedrock", "legacy", r"^(?=.{1,64}$)[a-zA-Z][a-zA-Z0-9_]*$"),
    # cohere-python Tool.name: "a-z, A-Z, 0-9, _ and must not begin with a digit"
    ("cohere", "documented", r"^[a-zA-Z_][a-zA-Z0-9_]*$"),
    # MCP typescript-sdk toolNameValidation.ts: TOOL_NAME_REGEX = /^[A-Za-z0-9._-]{1,128}$/
    ("mcp", "documented", r"^[A-Za-z0-9._-]{1,128}$"),
]


@pytest.mark.parametrize(("provider", "variant", "source_regex"), SOURCE_REGEXES)
@settings(max_examples=300, deadline=None)
@given(name=names)
@example(name="a" * 64)
@example(name="a" * 65)
@example(name="_" + "a" * 127)
@example(name="a" * 129)
@example(name="9a")
@example(name="a.b:c")
@example(name="abc\n")
def test_rules_agree_with_the_regex_their_source_prints(
    provider: str, variant: str, source_regex: str, name: str
) -> None:
    accepted = re.fullmatch(source_regex, name) is not None
    assert (check_name(name, provider, variant) == []) is accepted


@settings(max_examples=500, deadline=None)
@given(name=names)
def test_the_fast_path_agrees_with_the_reasons(name: str) -> None:
    for rule in rules():
        assert rule.accepts(name) is (rule.reasons(name) == []), rule.label


def test_unknown_provider_and_variant_say_what_exists() -> None:
    with pytest.raises(InputError, match="unknown provider 'openia'.*openai"):
        check_name("x", "openia")
    with pytest.raises(InputError, match="no variant 'live'.*documented"):
        check_name("x", "openai", "live")


GOOD_ROW = "openai,documented,documented,[a-z],,[a-z]+,64,somewhere,docs,,,2026-11-30,a note"


@pytest.mark.parametrize(
    ("row", "complaint"),
    [
        ("openai,documented,documented,[a-z],,[a-z+,64,somewhere,docs,,,2026-11-30,n", "not a valid regex"),
        ("openai,documented,documented,[a-z],,[a-z]+,-3,somewhere,docs,,,2026-11-30,n", "max_length"),
        ("openai,documented,documented,[a-z],,[a-z]+,64,somewhere,blog,,,2026-11-30,n", "source_kind"),
        ("openai,documented,documented,[a-z],,[a-z]+,64,somewhere,docs,,,30/11/2026,n", "date_read"),
        ("OpenAI,documented,documented,[a-z],,[a-z]+,64,somewhere,docs,,,2026-11-30,n", "lower-case"),
        ("openai,documented,documented,a-z,,[a-z]+,64,somewhere,docs,,,2026-11-30,n", "character class"),
        ("openai,documented,documented,[a-z],,[a-z]+,64,somewhere,docs,,,2026-11-30,n,extra", "fields"),
        ("openai,documented,stated,[a-z],,[a-z]+,64,somewhere,docs,,,2026-11-30,n", "basis"),
        ("openai,documented,documented,[a-z],,[a-z]+,64,somewhere,docs,openai,,2026-11-30,n", "package_version"),
        (GOOD_ROW + "\n" + GOOD_ROW, "appears twice"),
    ],
)
def test_a_bad_rules_file_is_refused_with_the_line(tmp_path: Path, row: str, complaint: str) -> None:
    path = tmp_path / "rules.csv"
    path.write_text(",".join(COLUMNS) + "\n" + row + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=complaint) as caught:
        load_rules(path)
    assert "line" in str(caught.value)


def test_a_rules_file_with_wrong_columns_or_no_rows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rules.csv"
    path.write_text("provider,variant\nopenai,documented\n", encoding="utf-8")
    with pytest.raises(InputError, match="columns"):
        load_rules(path)
    path.write_text(",".join(COLUMNS) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="no rules"):
        load_rules(path)
    with pytest.raises(InputError, match="no such file"):
        load_rules(tmp_path / "missing.csv")


def test_a_good_rules_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "rules.csv"
    path.write_text(",".join(COLUMNS) + "\n" + GOOD_ROW + "\n", encoding="utf-8")
    (rule,) = load_rules(path)
    assert rule.max_length == 64 and rule.first_char is None
    assert rule.accepts("abc") and not rule.accepts("ABC")
