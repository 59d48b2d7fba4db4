"""The package's rooms and layers: the import-linter contract in ``pyproject.toml`` holds the imports, and the package
map in ``docs/architecture.md`` says what each room holds, in the contract's order and module by module.

``lint-imports`` (run by ``.ci/run``) checks every import against the contract; here the contract is shown to catch
an upward import, and the map is held to the contract and to the files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from probe_lib.core import paths

MAP = paths.ROOT / "docs" / "architecture.md"


def contract() -> dict:
    return tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]


def contract_layers() -> list[list[str]]:
    """The contract's layers from the bottom, each a list of its sibling packages."""
    (layers,) = (c["layers"] for c in contract()["contracts"] if c["type"] == "layers")
    return [re.split(r"\s*[|:]\s*", layer) for layer in reversed(layers)]


def _rows(text: str) -> dict[str, str]:
    section = text.split("## How the package is laid out", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([a-z_]+)` \| (.*) \|$", section, flags=re.MULTILINE))


def _modules(folder: Path) -> set[str]:
    """A package's modules and subpackages, by their names."""
    return {path.stem for path in folder.glob("*.py") if path.stem != "__init__"} | {
        path.name for path in folder.iterdir() if (path / "__init__.py").exists()
    }


def unmapped(text: str) -> list[str]:
    """Modules the map's row for their package does not name, and modules a row describes (`` `name` (…``) that
    neither its package nor one of its subpackages has: the map a reader reads the package by, kept to the files."""
    problems = []
    for package, row in _rows(text).items():
        folder = paths.PACKAGE / package
        named, described = set(re.findall(r"`([a-z_]+)/?`", row)), set(re.findall(r"`([a-z_]+)` \(", row))
        modules = _modules(folder)
        nested = modules.union(*(_modules(folder / name) for name in modules if (folder / name).is_dir()))
        problems += [f"{package}.{name}: not in the map" for name in sorted(modules - named)]
        problems += [f"{package}.{name}: in the map, not in the package" for name in sorted(described - nested)]
    return problems


def test_the_map_lists_every_package_in_the_contracts_order():
    packages = {path.name for path in paths.PACKAGE.iterdir() if (path / "__init__.py").exists()}
    layered = [package for layer in contract_layers() for package in layer]
    assert sorted(layered) == sorted(packages), "every package has a layer in the contract, and only those"
    assert list(_rows(MAP.read_text(encoding="utf-8"))) == layered, "the map's rows, bottom up, are the contract's"


def test_the_map_names_every_module_and_only_modules_that_exist():
    text = MAP.read_text(encoding="utf-8")
    assert unmapped(text) == []
    present = _rows(text)["present"]
    renamed = text.replace(present, present.replace("`staleness` (", "`freshness` ("))
    assert unmapped(renamed) == [
        "present.staleness: not in the map",
        "present.freshness: in the map, not in the package",
    ]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the package under ``root``, with ``root``'s ``pyproject.toml``."""
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]
    return subprocess.run(
        command, cwd=root, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)}, capture_output=True, text=True
    )


@pytest.mark.slow
def test_the_contract_holds_and_catches_an_import_from_a_layer_above(tmp_path):
    assert lint_imports(paths.ROOT).returncode == 0
    copy = tmp_path / "kit"
    shutil.copytree(paths.PACKAGE, copy / "probe_lib", ignore=shutil.ignore_patterns("harness", "__pycache__"))
    shutil.copy(paths.ROOT / "pyproject.toml", copy)
    install = copy / "probe_lib" / "install" / "npm.py"
    install.write_text(install.read_text(encoding="utf-8") + "\nfrom probe_lib.claims import ledger  # noqa\n")
    broken = lint_imports(copy)
    assert broken.returncode == 1, broken.stdout
    assert "probe_lib.install.npm -> probe_lib.claims.ledger" in broken.stdout


def test_no_two_classes_of_the_package_share_a_name():
    """A class's name says which it is without its module: two ``Report`` classes (the lint's and the built
    report's) read alike in a traceback and a docstring."""
    import ast

    defined: dict[str, list[str]] = {}
    for module in sorted((paths.ROOT / "probe_lib").rglob("*.py")):
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                defined.setdefault(node.name, []).append(module.relative_to(paths.ROOT).as_posix())
    shared = {name: modules for name, modules in defined.items() if len(modules) > 1}
    assert shared == {}, shared
