"""environment.yml (conda users) and pyproject.toml (pip users) declare the same dependencies, and
data/environment.lock pins them all, as the environment the tests run in has them; CI runs the README's test
command."""

import re
import tomllib
from importlib.metadata import distributions

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from probe_lib.core import paths


def _normalised(requirement: str) -> str:
    return requirement.replace(" ", "").lower()


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    # An extra may name another of the kit's own (``probe-lib[providers]``): conda installs what that one holds.
    test = [r for name in extras["test"] for r in (extras[name[10:-1]] if name.startswith("probe-lib[") else [name])]
    declared = {_normalised(r) for r in project["dependencies"] + test}
    environment = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    conda = {_normalised(d) for d in environment["dependencies"] if isinstance(d, str)}
    assert declared <= conda, f"missing from environment.yml: {sorted(declared - conda)}"
    extra = conda - declared - {"pip", "python>=3.11", "nodejs>=20"}
    assert not extra, f"environment.yml has packages pyproject.toml does not declare: {sorted(extra)}"
    assert f"python{project['requires-python']}" in conda


def _lock() -> dict[str, str]:
    """data/environment.lock as distribution name (canonical) -> pinned version."""
    pins = {}
    for line in (paths.DATA / "environment.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"data/environment.lock pins every line with ==, not {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def test_the_environment_lock_pins_every_declared_requirement_within_its_range():
    """Each dependency pyproject.toml declares (the test extras' too) is pinned, at a version its range allows."""
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    declared = [Requirement(r) for r in project["dependencies"]] + [
        Requirement(r) for extra in project["optional-dependencies"].values() for r in extra
    ]
    pins = _lock()
    for requirement in declared:
        if requirement.name == "probe-lib":  # the kit's own extra, expanded above
            continue
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"data/environment.lock lacks {requirement.name}: run .ci/refresh-lock"
        allowed = requirement.specifier.contains(pinned, prereleases=True)
        assert allowed, f"{requirement.name}=={pinned} vs {requirement}"


def test_this_environment_is_the_locked_one():
    """The README's commands install through the lock, so every locked distribution is here at its pinned version
    (a venv made another way fails here: remake it with the README's command)."""
    pins = _lock()
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in distributions()}
    differing = {name: (pin, installed.get(name)) for name, pin in pins.items() if installed.get(name) != pin}
    assert not differing, f"locked version vs installed: {differing}"


def _readme_test_command() -> str:
    """The README's test command: the line of a code block that makes ``.venv`` and ends in a pytest run."""
    readme = (paths.ROOT / "README.md").read_text(encoding="utf-8")
    [command] = re.findall(r"^python3 -m venv \.venv .*&& \.venv/bin/pytest[^\n]*$", readme, flags=re.MULTILINE)
    return command


def test_ci_runs_exactly_the_readmes_test_command_last():
    """Last, so the run's exit status is pytest's (5 when it collected no test), and under ``set -e`` any part
    before it that fails stops the run."""
    ci = (paths.ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line and not line.startswith("#")]
    assert commands[-1] == _readme_test_command()
    assert "set -euo pipefail" in commands[:-1]
