"""The fixes the kit proposes for two findings, applied to the files a release ships.

**Mastra.** ``Agent.formatTools()`` renames a tool key a provider would refuse (``search.web`` to ``search_web``),
but a named ``toolChoice`` and ``activeTools`` still name the key, so the request forces, or keeps, a tool it no
longer offers under that name (claims A10, F09). The smallest fix in Mastra's terms: the options that name tools
follow the same rewrite. :data:`MASTRA_HELPER` is that rewrite, formatTools' own rule applied to one name, and each
of the Agent's public call methods (``generate``, ``stream`` and their legacy and vNext forms, taking ``(messages,
options)``) passes its options through it first. A name that is already legal is unchanged, so every other call is
the same call. The change is made by text on the shipped ``dist`` files (each ESM and CommonJS chunk that defines
``formatTools``), since a release's bundle names its chunks by hash.

**LlamaIndex.** From llama-index-core 0.14.12 ``ToolMetadata.to_openai_tool()`` sends a name sanitized to
``[a-zA-Z0-9_-]`` (``_sanitize_name``), but the OpenAI LLM's ``resolve_tool_choice`` forces the name as registered
and ``call_tool_with_selection`` looks the model's call up by the registered name only (T09, T10). The fix: the
forced name gets the same substitution, and the lookup finds a tool by the name it was sent under too (a registered
name still wins, so a call that ran before runs the same tool).

Both are hand-written against the shipped files, not built from the frameworks' sources by the kit.
:func:`fix_patch` writes a fix as a unified diff against a release's installed files, :func:`patched_copy` installs
Mastra's into a cache entry of its own beside the release's (never the kit's pins).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from probe_lib.core import paths
from probe_lib.core.errors import ProbeError
from probe_lib.frameworks import base
from probe_lib.frameworks.mastra import versions as mastra_versions
from probe_lib.install import cache, pyvenv

#: Framework -> what its fix makes consistent.
FIXES: dict[str, str] = {
    "mastra": "a named toolChoice and activeTools follow formatTools' rewrite",
    "llama-index": "the forced name and the tool lookup follow ToolMetadata's own rename",
}

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
#: The header of an Agent call method that takes ``(messages, options)`` (pretty or minified, as releases ship it),
#: and the line break and indentation of its body when it has them; the options go through the helper first.
CALL_METHOD = re.compile(
    r"(?<![\w$.])(?P<head>(?:async\s+)?(?:generate|stream|generateLegacy|streamLegacy|generateVNext|streamVNext)"
    r"\(messages,\s*(?P<options>\w+)(?:\s*=\s*\{\})?\)\s*\{)(?P<body>\n[ \t]*)?"
)
_DEFINES_FORMAT_TOOLS = re.compile(r"\bformatTools\(tools\)\s*\{")


class PatchDoesNotApply(ProbeError):
    """A release whose shipped files lack what the fix changes; the message says what is missing."""


def _patched_text(text: str) -> str | None:
    """``text`` (a shipped chunk) with the fix, or ``None`` when it does not define formatTools."""
    if not _DEFINES_FORMAT_TOOLS.search(text):
        return None

    def guard(match: re.Match[str]) -> str:
        line = f"{match['options']} = formatToolNamesInOptions({match['options']});"
        body = match["body"]
        return f"{match['head']}{body}{line}{body}" if body else f"{match['head']}{line}"

    patched, count = CALL_METHOD.subn(guard, text)
    return patched + MASTRA_HELPER if count else None


def _chunks(package: Path) -> list[Path]:
    """The shipped files of ``package`` (an installed ``@mastra/core``) that define formatTools."""
    found = []
    for path in sorted((package / "dist").rglob("*")):
        if path.suffix in (".js", ".cjs", ".mjs") and path.is_file():
            if _DEFINES_FORMAT_TOOLS.search(path.read_text(encoding="utf-8", errors="replace")):
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


#: LlamaIndex: each file the fix changes (inside ``site-packages``), and its (shipped, fixed) texts.
LLAMA_INDEX_CHANGES = {
    "llama_index/llms/openai/utils.py": (
        (
            '        return {"type": "function", "function": {"name": tool_choice}}\n',
            "        # The name the tool is sent under (ToolMetadata._sanitize_name's rule).\n"
            '        name = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in tool_choice)\n'
            '        return {"type": "function", "function": {"name": name}}\n',
        ),
    ),
    "llama_index/core/tools/calling.py": (
        (
            "    tools_by_name = {tool.metadata.name: tool for tool in tools}\n",
            "    # A call by the name a tool was sent under (sanitized) finds it too; a registered name wins.\n"
            "    tools_by_name = {tool.metadata._sanitize_name(tool.metadata.name): tool for tool in tools}\n"
            "    tools_by_name.update({tool.metadata.name: tool for tool in tools})\n",
        ),
    ),
}


def llama_index_changes(site_packages: Path) -> dict[Path, str]:
    """Each file of an installed LlamaIndex (its ``site-packages``) the fix changes and its fixed text;
    :class:`PatchDoesNotApply` when a file lacks the text it changes (a release before the rename, 0.14.12)."""
    changes = {}
    for relative, replacements in LLAMA_INDEX_CHANGES.items():
        path = site_packages / relative
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        for shipped, fixed in replacements:
            if shipped not in text:
                raise PatchDoesNotApply(f"{relative} does not hold {shipped.strip()!r}")
            text = text.replace(shipped, fixed)
        changes[Path(relative)] = text
    if "def _sanitize_name" not in (site_packages / "llama_index/core/tools/types.py").read_text(encoding="utf-8"):
        raise PatchDoesNotApply("llama_index/core/tools/types.py has no _sanitize_name (a release before 0.14.12)")
    return changes


def _installed_package(version: str) -> Path:
    return mastra_versions.PINS.modules(version) / f"mastra-{version}"


def _site_packages(version: str) -> Path:
    pins = base.get("llama-index").pins
    pins.install(version)
    found = sorted((pyvenv.install_dir(pins.folder(version)) / "lib").glob("python3*/site-packages"))
    if not found:
        raise ProbeError(f"llama-index {version}'s environment has no site-packages")
    return found[0]


def fix_patch(framework: str, version: str) -> str:
    """``framework``'s fix as a unified diff against ``version``'s installed files (``patch -p1`` in the installed
    package, or in ``site-packages``), with a header saying what it is and that the kit did not build it."""
    if framework == "mastra":
        root, changes = _installed_package(version), None
        where = "node_modules/@mastra/core"
        source = (
            "In Mastra's source the same change is: each Agent call method passes its options through\n"
            "formatToolNamesInOptions() (formatTools' rule applied to toolChoice's toolName and to each activeTools\n"
            "name) before it reads them."
        )
        changes = mastra_changes(root)
        package = f"@mastra/core {version}"
    elif framework == "llama-index":
        root = _site_packages(version)
        changes = llama_index_changes(root)
        where = ".venv/lib/python3*/site-packages"
        source = (
            "The shipped files are the package's source: llama-index-core's llama_index/core/tools/calling.py and\n"
            "llama-index-llms-openai's llama_index/llms/openai/utils.py, as installed with this release."
        )
        package = f"llama-index-core {version}"
    else:
        raise ProbeError(f"the kit has no fix for {framework}")
    header = [
        f"Fix for {package}: {FIXES[framework]}.",
        "Hand-written against the shipped files (not built from the framework's source by the kit); apply with",
        f"`patch -p1 -d {where} < fix.patch`.",
        source,
        "",
    ]
    diffs = []
    with tempfile.TemporaryDirectory() as scratch:
        for relative, text in changes.items():
            fixed = Path(scratch) / relative.name
            fixed.write_text(text, encoding="utf-8")
            labels = ["--label", f"a/{relative.as_posix()}", "--label", f"b/{relative.as_posix()}"]
            done = subprocess.run(
                ["diff", "-u", *labels, str(root / relative), str(fixed)], capture_output=True, text=True
            )
            if done.returncode != 1:
                raise ProbeError(f"diff failed on {relative}: {done.stderr.strip() or 'no difference'}")
            diffs.append(done.stdout)
    return "\n".join(header) + "".join(diffs)


def _digest() -> str:
    return hashlib.sha256((MASTRA_HELPER + CALL_METHOD.pattern).encode()).hexdigest()[:16]


def patched_copy(version: str) -> Path:
    """The ``node_modules`` of ``version`` with the fix applied: a cache entry of its own
    (``<cache>/node/mastra-fixed-<version>-<fix digest>/``), its unchanged files hard links into the release's
    install, the changed ones files of their own. The release's own entry is never written."""
    source = mastra_versions.PINS.modules(version)
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


def patched_environment(version: str) -> list[str]:
    """The LlamaIndex runner's command line on ``version`` with the fix applied: a copy of the release's environment
    in a cache entry of its own (``<cache>/python/llama-index-fixed-<version>-<fix digest>/``), every file a hard
    link into the release's but the two changed, which are files of their own (without the release's bytecode)."""
    pins = base.get("llama-index").pins
    command = pins.command(version)  # installs the release first; its python is the first word
    source = pyvenv.install_dir(pins.folder(version))
    digest = hashlib.sha256(repr(LLAMA_INDEX_CHANGES).encode()).hexdigest()[:16]
    entry = paths.cache() / "python" / f"llama-index-fixed-{version}-{digest}"

    def build(staging: Path) -> None:
        environment = staging / "env"
        shutil.copytree(source, environment, symlinks=True, copy_function=os.link)
        site = sorted((environment / "lib").glob("python3*/site-packages"))[0]
        for relative, text in llama_index_changes(site).items():
            fresh = site / relative.with_name(relative.name + ".fixed")
            fresh.write_text(text, encoding="utf-8")
            os.replace(fresh, site / relative)  # a new file: the release's hard-linked copy stays as shipped
            # The release's bytecode of the shipped text, which Python would rewrite at the first run: a listed file
            # changing size, so the entry would look broken to the next process and be rebuilt under its readers.
            for stale in (site / relative.parent / "__pycache__").glob(f"{relative.stem}.*.pyc"):
                stale.unlink()

    cache.publish(entry, lambda folder: (folder / "env").is_dir(), build)
    return [str(entry / "env" / "bin" / "python"), *command[1:]]
