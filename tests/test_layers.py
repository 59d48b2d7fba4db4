"""The package keeps the layering the package map states (``docs/architecture.md``): a module imports only from its own
layer or lower.

The layers are read from the table under "How the package is laid out", so the table cannot drift from the code;
``core`` and ``wire`` form one base layer, as the map says. Every import is read: ``import`` statements wherever
they stand (a lazy import inside a function is still a dependency), relative ones resolved, and imports by name
(``importlib.import_module``, ``__import__``): a constant name is that module, and a module that imports a computed
name depends on every ``probe_lib`` module its string constants name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from probe_lib.core import paths

#: The package map, the table the layers are read from.
MAP = paths.ROOT / "docs" / "architecture.md"
#: Packages that share one layer (the map: "`core` and `wire` are one base layer").
BASE = ("core", "wire")
#: The functions that import a module by its name.
IMPORTERS = ("import_module", "__import__")
_MODULE_NAME = re.compile(r"probe_lib(\.[A-Za-z_]\w*)*")
#: Two adjacent rows of the table, the upper importing the lower (the ledger reads the timeline and the matrix).
LOWER_UPPER = ("analysis", "claims")


def layers(readme: str | None = None) -> dict[str, int]:
    """Each package's layer, in the order of the map's table (0 is the bottom)."""
    readme = readme if readme is not None else MAP.read_text(encoding="utf-8")
    section = readme.split("## How the package is laid out", 1)[1].split("\n## ", 1)[0]
    packages = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    rank: dict[str, int] = {}
    layer = -1
    for package in packages:
        if package not in BASE[1:]:  # a base package after the first shares the first one's layer
            layer += 1
        rank[package] = layer
    return rank


def _imports_by_name(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    return (isinstance(function, ast.Name) and function.id in IMPORTERS) or (
        isinstance(function, ast.Attribute) and function.attr in IMPORTERS
    )


def imported(tree: ast.AST, module: str = "probe_lib") -> set[str]:
    """Every ``probe_lib`` module or name the code in ``tree`` (the module named ``module``) imports."""
    found = set()
    by_computed_name = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            # A relative import is resolved against the module's own package (``from . import x`` in a.b.c: a.b).
            base = module.split(".")[: -node.level] if node.level else []
            name = ".".join([*base, *([node.module] if node.module else [])])
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)  # from probe_lib import wire
        elif _imports_by_name(node):
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)
            else:
                by_computed_name = True
    if by_computed_name:
        found.update(
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_NAME.fullmatch(node.value)
        )
    return {name for name in found if name.split(".")[0] == "probe_lib"}


def upward_imports(rank: dict[str, int]) -> list[str]:
    """Each import, anywhere in the package, of a layer above the importing module's own."""
    upward = []
    for path in sorted(paths.PACKAGE.rglob("*.py")):
        parts = path.relative_to(paths.PACKAGE).parts
        if "harness" in parts or parts[0] not in rank and path.stem not in rank:
            continue  # a runner lives in its framework's environment; probe_lib/__init__ and __main__ sit above all
        own = parts[0] if parts[0] in rank else path.stem
        module = ".".join(["probe_lib", *parts[:-1], *([] if path.stem == "__init__" else [path.stem])])
        if path.stem == "__init__":
            module += ".__init__"  # so a relative import resolves against the package itself
        for name in imported(ast.parse(path.read_text(encoding="utf-8")), module):
            layer = name.split(".")[1] if "." in name else None
            if layer in rank and rank[layer] > rank[own]:
                upward.append(f"{'/'.join(parts)} ({own}) imports {name} ({layer})")
    return upward


def test_the_map_names_every_package_of_probe_lib():
    packages = {path.name for path in paths.PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert packages - set(layers()) == set(), "a package the map's layer table does not place"
    assert BASE[0] in layers() and layers()[BASE[0]] == layers()[BASE[1]] == 0


def _rows(readme: str) -> dict[str, str]:
    section = readme.split("## How the package is laid out", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([a-z_]+)` \| (.*) \|$", section, flags=re.MULTILINE))


def _modules(folder: Path) -> set[str]:
    """A package's modules and subpackages, by their names."""
    return {path.stem for path in folder.glob("*.py") if path.stem != "__init__"} | {
        path.name for path in folder.iterdir() if (path / "__init__.py").exists()
    }


def unmapped(readme: str) -> list[str]:
    """Modules the map's row for their package does not name, and modules a row describes (`` `name` (…``) that
    neither its package nor one of its subpackages has: the map a reader reads the package by, kept to the files."""
    problems = []
    for package, text in _rows(readme).items():
        if not (paths.PACKAGE / package).is_dir():
            continue  # the cli, a module of its own
        named, described = set(re.findall(r"`([a-z_]+)/?`", text)), set(re.findall(r"`([a-z_]+)` \(", text))
        folder = paths.PACKAGE / package
        modules = _modules(folder)
        nested = modules.union(*(_modules(folder / name) for name in modules if (folder / name).is_dir()))
        problems += [f"{package}.{name}: not in the map" for name in sorted(modules - named)]
        problems += [f"{package}.{name}: in the map, not in the package" for name in sorted(described - nested)]
    return problems


def test_the_map_names_every_module_and_only_modules_that_exist():
    readme = MAP.read_text(encoding="utf-8")
    assert unmapped(readme) == []
    present = _rows(readme)["present"]
    renamed = readme.replace(present, present.replace("`staleness` (", "`freshness` ("))
    assert unmapped(renamed) == [
        "present.staleness: not in the map",
        "present.freshness: in the map, not in the package",
    ]


def test_no_module_imports_from_a_layer_above_its_own():
    upward = upward_imports(layers())
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_two_rows_of_the_table_swapped_are_caught():
    readme = MAP.read_text(encoding="utf-8")
    lower, upper = (re.search(rf"^\| `{package}` \|.*$", readme, flags=re.MULTILINE)[0] for package in LOWER_UPPER)
    swapped = readme.replace(lower, "\0").replace(upper, lower).replace("\0", upper)
    assert layers(swapped)[LOWER_UPPER[0]] > layers(swapped)[LOWER_UPPER[1]]
    caught = upward_imports(layers(swapped))
    assert any(f" ({LOWER_UPPER[1]}) imports probe_lib.{LOWER_UPPER[0]}" in line for line in caught), caught


def test_every_kind_of_import_is_read():
    source = """
import probe_lib.core.paths
from probe_lib import wire
from . import sibling
from ..present import charts
import importlib

def lazy():
    from probe_lib.teach import exercises
    importlib.import_module("probe_lib.cli")
    __import__("probe_lib.present.report")
"""
    assert imported(ast.parse(source), "probe_lib.analysis.timeline") == {
        "probe_lib.core.paths",
        "probe_lib",
        "probe_lib.wire",
        "probe_lib.analysis",
        "probe_lib.analysis.sibling",
        "probe_lib.present",
        "probe_lib.present.charts",
        "probe_lib.teach",
        "probe_lib.teach.exercises",
        "probe_lib.cli",
        "probe_lib.present.report",
    }
    computed = 'MODULES = ("probe_lib.present.report", "not a module")\nfor m in MODULES:\n    import_module(m)\n'
    assert imported(ast.parse(computed)) == {"probe_lib.present.report"}
