"""The provider rules read from the providers' own installed packages (``probe_lib.providers.package_rules``).

The committed ``data/provider_rules.csv`` must say what the installed botocore, google-genai and openai say; each
check is skipped, with the reason, when its package is not installed (the ``providers`` extra). The readers are
shown to fail on edited text and edited rows, so that agreement means something.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from probe_lib.core import paths
from probe_lib.providers import name_rules, package_rules
from probe_lib.providers.package_rules import PackageMissing, PackageSource, SourceChanged

SOURCES = {f"{source.provider}/{source.variant}": source for source in package_rules.SOURCES}


def _installed(source: PackageSource) -> None:
    try:
        importlib.metadata.version(source.package)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{source.package} is not installed (pip install -e '.[providers]'); the committed row stands")


@pytest.mark.parametrize("label", SOURCES)
def test_the_committed_table_says_what_the_installed_package_says(label: str) -> None:
    source = SOURCES[label]
    _installed(source)
    assert package_rules.stale(source, name_rules.load_rows()) is None


@pytest.mark.parametrize("label", SOURCES)
def test_an_edited_row_is_found_stale(label: str) -> None:
    source = SOURCES[label]
    _installed(source)
    rows = name_rules.load_rows()
    row = next(r for r in rows if f"{r['provider']}/{r['variant']}" == label)
    row["max_length"] = str(int(row["max_length"]) + 1)
    message = package_rules.stale(source, rows)
    assert message is not None and "max_length" in message and "--refresh" in message


def test_the_package_rows_say_documented_and_where_they_were_read() -> None:
    for label, source in SOURCES.items():
        rule = name_rules.get_rule(source.provider, source.variant)
        assert (rule.basis, rule.package) == ("documented", source.package), label
        assert rule.package_version and rule.source_kind in {"SDK source", "API description"}, label


def test_bedrock_reads_the_service_model_and_botocore_lets_a_long_dotted_name_through() -> None:
    source = SOURCES["bedrock/documented"]
    _installed(source)
    rule = name_rules.get_rule("bedrock")
    # The AWS API reference, ToolSpecification: "Maximum length of 64. Pattern: [a-zA-Z0-9_-]+".
    assert (rule.max_length, rule.pattern.pattern) == (64, "[a-zA-Z0-9_-]+")
    assert "SpecificToolChoice.name" in rule.source
    assert "passes it" in source.read().note  # botocore checks only the minimum length on the client


def test_the_prose_reader_reads_what_the_text_says() -> None:
    gemini = package_rules.rule_from_prose(
        "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and "
        "dashes, with a maximum length of 100.",
        "edited",
    )
    assert (gemini.first_char, gemini.charset, gemini.max_length) == ("[a-zA-Z_]", "[a-zA-Z0-9_.:-]", 100)
    assert gemini.pattern == "[a-zA-Z_][a-zA-Z0-9_.:-]*"
    openai = package_rules.rule_from_prose(
        "The name.\n\n    Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length\n    of 64.",
        "edited",
    )
    assert (openai.first_char, openai.charset, openai.max_length, openai.pattern) == (
        "",
        "[a-zA-Z0-9_-]",
        64,
        "[a-zA-Z0-9_-]+",
    )


@pytest.mark.parametrize(
    "text",
    [
        "The name of the function to call.",  # states no rule
        "Must be a-z, A-Z, 0-9, or contain underscores and slashes, with a maximum length of 64.",  # unknown word
        "Must be a-z, A-Z, 0-9, or contain underscores and dashes.",  # the length dropped
    ],
)
def test_the_prose_reader_refuses_text_it_does_not_know(text: str) -> None:
    with pytest.raises(SourceChanged):
        package_rules.rule_from_prose(text, "edited")


#: Any wording that states a rule for a name: prose ("Must be ...", "maximum length"), or a regex or pattern.
_STATES_A_RULE = re.compile(
    r"\bmust (?:be|match|start|contain)\b|\bregex|\bpattern\b|maximum length|\^\[", re.IGNORECASE
)


def states_a_rule(text: str) -> bool:
    """True when ``text`` states anything of a name rule."""
    return _STATES_A_RULE.search(" ".join(text.split())) is not None


def test_the_packages_that_state_no_rule_still_state_none() -> None:
    """Anthropic's and OpenAI Responses' SDK types state no name rule; the table's rows say so (their sources are
    docs and error texts). If either package starts stating one, this fails and the rule should be read there."""
    anthropic, _ = package_rules.attribute_docstring("anthropic.types.tool_param", "ToolParam", "name")
    responses, _ = package_rules.attribute_docstring(
        "openai.types.responses.function_tool_param", "FunctionToolParam", "name"
    )
    chat, _ = package_rules.attribute_docstring("openai.types.shared.function_definition", "FunctionDefinition", "name")
    assert not states_a_rule(anthropic)
    assert not states_a_rule(responses)
    assert states_a_rule(chat)  # the detector does see a rule where one is stated
    # ... and in the wording of Anthropic's docs, were its SDK to carry it.
    assert states_a_rule("The name of the tool. Must match the regex ^[a-zA-Z0-9_-]{1,64}$.")


def test_refresh_rewrites_only_what_changed_and_keeps_typed_rows(tmp_path: Path) -> None:
    for source in package_rules.SOURCES:
        _installed(source)
    path = tmp_path / "provider_rules.csv"
    shutil.copy(name_rules.RULES_PATH, path)
    today = datetime.date(2030, 1, 1)
    assert package_rules.refresh(path, today) == []
    assert path.read_bytes() == name_rules.RULES_PATH.read_bytes()

    rows = name_rules.load_rows(path)
    for row in rows:
        if (row["provider"], row["variant"]) in {("gemini", "documented"), ("anthropic", "observed")}:
            row["max_length"] = "99"
    name_rules.write_rows(rows, path)
    assert package_rules.refresh(path, today) == ["gemini/documented"]
    after = {(r["provider"], r["variant"]): r for r in name_rules.load_rows(path)}
    assert after["gemini", "documented"]["max_length"] == "128"
    assert after["gemini", "documented"]["date_read"] == "2030-01-01"
    assert after["anthropic", "observed"]["max_length"] == "99"  # typed in from error texts: left as written


def test_a_missing_package_says_how_to_install_it() -> None:
    missing = PackageSource("bedrock", "documented", "no-such-distribution-here", SOURCES["bedrock/documented"].read)
    with pytest.raises(PackageMissing, match=r"pip install -e '\.\[providers\]'"):
        missing.row(datetime.date(2026, 12, 1))


def test_lint_and_the_table_work_without_the_provider_packages(tmp_path: Path) -> None:
    body = tmp_path / "body.json"
    body.write_text('{"tools": [{"type": "function", "function": {"name": "search.web"}}]}', encoding="utf-8")
    blocked = "import sys\nfor name in ('botocore', 'google', 'google.genai'): sys.modules[name] = None\n"
    run = (
        blocked + "from probe_lib.cli import main\n"
        f"code = main(['lint', {str(body)!r}, '--provider', 'bedrock', '--framework', 'none'])\n"
        "main(['providers'])\nsys.exit(code)"
    )
    result = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, cwd=paths.ROOT, check=False)
    assert result.returncode == 1, result.stderr  # lint found the refused name: it ran
    assert "bedrock/documented would refuse it" in result.stdout
    assert "from botocore 1." in result.stdout  # the committed row says which version it was read from
