"""environment.yml (conda users) and pyproject.toml (pip users) declare the same dependencies."""

import tomllib

import yaml

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
