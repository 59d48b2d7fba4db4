"""The package keeps the layering the README's table states: a module imports only from its own layer or lower.

The layers are read from the table under "How the package is laid out", so the table cannot drift from the code;
``core`` and ``wire`` form one base layer, as the README says. Every ``import`` is read, including those inside
functions (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re

from probe_lib.core import paths

#: Packages that share one layer (README: "`core` and `wire` are one base layer").
BASE = ("core", "wire")


def layers() -> dict[str, int]:
    """Each package's layer, in the README table's order (0 is the bottom)."""
    readme = (paths.ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How the package is laid out", 1)[1].split("\n## ", 1)[0]
    packages = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    rank: dict[str, int] = {}
    layer = -1
    for package in packages:
        if package not in BASE[1:]:  # a base package after the first shares the first one's layer
            layer += 1
        rank[package] = layer
    return rank


def imported(tree: ast.AST) -> set[str]:
    """Every ``probe_lib`` module or name an import statement in ``tree`` names."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module == "probe_lib":  # from probe_lib import wire
                found.update(f"probe_lib.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "probe_lib"}


def test_the_readme_names_every_package_of_probe_lib():
    packages = {path.name for path in paths.PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert packages - set(layers()) == set(), "a package the README's layer table does not place"
    assert BASE[0] in layers() and layers()[BASE[0]] == layers()[BASE[1]] == 0


def test_no_module_imports_from_a_layer_above_its_own():
    rank = layers()
    upward = []
    for path in sorted(paths.PACKAGE.rglob("*.py")):
        parts = path.relative_to(paths.PACKAGE).parts
        if "harness" in parts or parts[0] not in rank and path.stem not in rank:
            continue  # a runner lives in its framework's environment; probe_lib/__init__ and __main__ sit above all
        own = parts[0] if parts[0] in rank else path.stem
        for name in imported(ast.parse(path.read_text(encoding="utf-8"))):
            layer = name.split(".")[1] if "." in name else None
            if layer in rank and rank[layer] > rank[own]:
                upward.append(f"{'/'.join(parts)} ({own}) imports {name} ({layer})")
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)
