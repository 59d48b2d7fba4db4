"""The fix the kit proposes for Mastra's asymmetry, applied to the files a release ships.

Mastra's ``Agent.formatTools()`` renames a tool key a provider would refuse (``search.web`` to ``search_web``), but
a named ``toolChoice`` and ``activeTools`` still name the key, so the request forces, or keeps, a tool it no longer
offers under that name (claims A10, F09). The smallest fix in Mastra's terms: the options that name tools follow the
same rewrite. :data:`MASTRA_HELPER` is that rewrite, formatTools' own rule applied to one name, and each of the
Agent's public call methods (``generate``, ``stream`` and their legacy and vNext forms, taking ``(messages,
options)``) passes its options through it first. A name that is already legal is unchanged, so every other call is
the same call.

The change is made by text on the shipped ``dist`` files (each ESM and CommonJS chunk that defines
``formatTools``), since a release's bundle names its chunks by hash; it is hand-written, not built from Mastra's
source by the kit. :func:`fix_patch` writes it as a unified diff against the shipped files, :func:`patched_copy`
installs it into a cache entry of its own beside the release's (never the kit's pins).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from probe_lib.adapters import cache
from probe_lib.adapters.mastra import versions as mastra_versions
from probe_lib.core import paths
from probe_lib.core.errors import ProbeError

#: Framework -> what its fix makes consistent.
FIXES: dict[str, str] = {"mastra": "a named toolChoice and activeTools follow formatTools' rewrite"}

#: formatTools' rule for one name, applied to the options that name tools; appended to each patched chunk (a
#: function declaration, so hoisted to the top of its module).
MASTRA_HELPER = """
/**
 * The call options with every tool they name written as formatTools() writes a tool key: a named toolChoice and
 * activeTools then name the tools the request offers. A name that is already legal is unchanged.
 */
function formatToolNamesInOptions(options) {
  const INVALID_CHAR_REGEX = /[^a-zA-Z0-9_\\-]/g;
  const STARTING_CHAR_REGEX = /[a-zA-Z_]/;
  const formatName = (key) => {
    if (typeof key !== "string" || key === "") return key;
    if (!(key.length > 63 || key.match(INVALID_CHAR_REGEX) || !key[0].match(STARTING_CHAR_REGEX))) return key;
    let newKey = key.replace(INVALID_CHAR_REGEX, "_");
    if (!newKey[0].match(STARTING_CHAR_REGEX)) newKey = "_" + newKey;
    return newKey.slice(0, 63);
  };
  if (!options || typeof options !== "object") return options;
  const choice = options.toolChoice;
  const named = choice && typeof choice === "object" && choice.type === "tool";
  return {
    ...options,
    ...(named ? { toolChoice: { ...choice, toolName: formatName(choice.toolName) } } : {}),
    ...(Array.isArray(options.activeTools) ? { activeTools: options.activeTools.map(formatName) } : {}),
  };
}
"""
#: The header of an Agent call method that takes ``(messages, options)``; the options go through the helper first.
CALL_METHOD = re.compile(
    r"^(?P<indent>[ \t]+)(?:async )?(?:generate|stream|generateLegacy|streamLegacy|generateVNext|streamVNext)"
    r"\(messages, (?P<options>\w+)(?: = \{\})?\) \{\n",
    re.MULTILINE,
)
_DEFINES_FORMAT_TOOLS = "formatTools(tools) {"


class PatchDoesNotApply(ProbeError):
    """A release whose shipped files lack what the fix changes; the message says what is missing."""


def _patched_text(text: str) -> str | None:
    """``text`` (a shipped chunk) with the fix, or ``None`` when it does not define formatTools."""
    if _DEFINES_FORMAT_TOOLS not in text:
        return None

    def guard(match: re.Match[str]) -> str:
        indent, options = match["indent"], match["options"]
        inner = indent + ("\t" if "\t" in indent else "  ")
        return f"{match[0]}{inner}{options} = formatToolNamesInOptions({options});\n"

    patched, count = CALL_METHOD.subn(guard, text)
    return patched + MASTRA_HELPER if count else None


def _chunks(package: Path) -> list[Path]:
    """The shipped files of ``package`` (an installed ``@mastra/core``) that define formatTools."""
    found = []
    for path in sorted((package / "dist").rglob("*")):
        if path.suffix in (".js", ".cjs", ".mjs") and path.is_file():
            if _DEFINES_FORMAT_TOOLS in path.read_text(encoding="utf-8", errors="replace"):
                found.append(path)
    return found


def mastra_changes(package: Path) -> dict[Path, str]:
    """Each shipped file of ``package`` the fix changes (its path inside the package) and its fixed text;
    :class:`PatchDoesNotApply` when formatTools or a call method taking ``(messages, options)`` is missing."""
    changes = {}
    for path in _chunks(package):
        patched = _patched_text(path.read_text(encoding="utf-8"))
        if patched is not None:
            changes[path.relative_to(package)] = patched
    if not changes:
        raise PatchDoesNotApply(
            f"{package.name}: no shipped file defines formatTools beside a call method taking (messages, options)"
        )
    return changes


def _installed_package(version: str) -> Path:
    return mastra_versions.modules_dir(version) / f"mastra-{version}"


def fix_patch(version: str) -> str:
    """The fix as a unified diff against ``@mastra/core`` ``version``'s shipped files (``patch -p1`` in the
    installed package), with a header saying what it is and that the kit did not build it from source."""
    package = _installed_package(version)
    header = [
        f"Fix for @mastra/core {version} (probe-lib, issue 39): {FIXES['mastra']}.",
        "Hand-written against the shipped dist files (not built from Mastra's source by the kit); apply with",
        "`patch -p1 -d node_modules/@mastra/core < fix.patch`. In Mastra's source the same change is: each Agent call",
        "method passes its options through formatToolNamesInOptions() (formatTools' rule applied to toolChoice's",
        "toolName and to each activeTools name) before it reads them.",
        "",
    ]
    diffs = []
    with tempfile.TemporaryDirectory() as scratch:
        for relative, text in mastra_changes(package).items():
            fixed = Path(scratch) / relative.name
            fixed.write_text(text, encoding="utf-8")
            labels = ["--label", f"a/{relative.as_posix()}", "--label", f"b/{relative.as_posix()}"]
            done = subprocess.run(
                ["diff", "-u", *labels, str(package / relative), str(fixed)], capture_output=True, text=True
            )
            if done.returncode != 1:
                raise ProbeError(f"diff failed on {relative}: {done.stderr.strip() or 'no difference'}")
            diffs.append(done.stdout)
    return "\n".join(header) + "".join(diffs)


def write_patch(framework: str, version: str, to: Path) -> None:
    """Write ``framework``'s fix for ``version`` into ``to`` (the reproduction folder's ``fix.patch``)."""
    if framework != "mastra":
        raise ProbeError(f"the kit has no fix for {framework}")
    to.write_text(fix_patch(version), encoding="utf-8")


def _digest() -> str:
    return hashlib.sha256((MASTRA_HELPER + CALL_METHOD.pattern).encode()).hexdigest()[:16]


def patched_copy(version: str) -> Path:
    """The ``node_modules`` of ``version`` with the fix applied: a cache entry of its own
    (``<cache>/node/mastra-fixed-<version>-<fix digest>/``), its unchanged files hard links into the release's
    install, the changed ones files of their own. The release's own entry is never written."""
    source = mastra_versions.modules_dir(version)
    entry = paths.cache() / "node" / f"mastra-fixed-{version}-{_digest()}"

    def build(staging: Path) -> None:
        modules = staging / "node_modules"
        shutil.copytree(source, modules, symlinks=True, copy_function=os.link)
        package = modules / f"mastra-{version}"
        for relative, text in mastra_changes(package).items():
            target = package / relative
            fresh = target.with_name(target.name + ".fixed")
            fresh.write_text(text, encoding="utf-8")
            os.replace(fresh, target)  # a new file: the release's hard-linked copy stays as shipped

    cache.publish(entry, lambda folder: (folder / "node_modules").is_dir(), build)
    return entry / "node_modules"
