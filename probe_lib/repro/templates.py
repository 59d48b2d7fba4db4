"""The text of a reproduction's script, rendered from the files of ``templates/``, and of its ``run.sh``, composed here.

A script is its framework's template (the user's code: one agent, one turn) with the stand-in provider and the
verdict of the Node or Python fragment, and the check of the claim's kind (``check-<kind>.mjs``, ``.py``). Each
placeholder is ``{{NAME}}``; a placeholder left unfilled is a defect of the kit and raises. The files end in
``.tmpl``, so no linter reads a fragment as a program.
"""

from __future__ import annotations

import re
from pathlib import Path

from probe_lib.core.target import version_key
from probe_lib.repro.claims import Reproduction

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The script's file name and the template it is made from, per framework.
SCRIPTS = {
    "mastra": ("repro.mjs", "mastra.mjs"),
    "openai-agents-js": ("repro.mjs", "openai_agents_js.mjs"),
    "llama-index": ("repro.py", "llama_index.py"),
}
#: The installed package a fix patches, per framework (the folder ``patch -d`` is given in ``run.sh``).
PATCHED = {"mastra": "node_modules/@mastra/core", "llama-index": ".venv/lib/python3*/site-packages"}

_LEGAL_TOOL = (
    "createTool({{ id: '{id}', description: '{description}', inputSchema: z.object({{}}), "
    "execute: async () => ({{}}) }})"
)
#: Mastra per kind: the tools record, the call options, and what the comment adds about them.
_MASTRA_TURNS = {
    "forced": (
        "{ 'search.web': weather }",
        "{ toolChoice: { type: 'tool', toolName: 'search.web' } }",
        ", forced by that key",
    ),
    "active-tools": (
        "{\n      'search.web': weather,\n      plain: "
        + _LEGAL_TOOL.format(id="plain", description="A tool")
        + ",\n    }",
        "{ activeTools: ['search.web'] }",
        ", made the only active tool by that key",
    ),
    "collision": (
        "{\n      'search.web': weather,\n      search_web: "
        + _LEGAL_TOOL.format(id="search-legal", description="Search the web")
        + ",\n    }",
        "{}",
        ", beside a tool under the legal key search_web",
    ),
}


def _read(name: str) -> str:
    return (TEMPLATES / f"{name}.tmpl").read_text(encoding="utf-8")


def _fill(text: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        text = text.replace("{{" + name + "}}", value)
    if left := re.findall(r"\{\{[A-Z_]+\}\}", text):
        raise AssertionError(f"unfilled placeholders in a reproduction script: {sorted(set(left))}")
    return text


def _mastra_model(version: str) -> tuple[str, str]:
    """The model line of ``version``'s era, and the import it needs: an AI SDK 4 provider before 0.20 (no model
    router), the router's OpenAI-compatible config after it (0.20.x's first router posts to the full endpoint)."""
    major, minor = version_key(version)[:2]
    if major == 0 and minor < 20:
        model = "createOpenAI({ baseURL: url, apiKey: 'sk-not-a-secret', compatibility: 'strict' }).chat('gpt-4o-mini')"
        return model, "  const { createOpenAI } = await import('@ai-sdk/openai');\n"
    endpoint = "url: `${url}/chat/completions`" if (major, minor) == (0, 20) else "url"
    return f"{{ id: 'openai/gpt-4o-mini', {endpoint}, apiKey: 'sk-not-a-secret' }}", ""


def script(reproduction: Reproduction, version: str) -> tuple[str, str]:
    """The reproduction script of ``reproduction`` on ``version``: its file name and its text, headed by what it
    checks (the report's title; the claim's whole statement, which may range wider, is in ISSUE.md)."""
    name, template = SCRIPTS[reproduction.framework]
    language = Path(name).suffix
    values = {}  # in order of filling: the fragments first, as they hold placeholders too
    if language == ".mjs":
        values["NODE_SERVER"] = _read("node_server.mjs").rstrip("\n")
        values["NODE_VERDICT"] = _read("node_verdict.mjs").rstrip("\n")
    values["CHECK"] = _read(f"check-{reproduction.kind}{language}").rstrip("\n")
    values |= {"CLAIM": reproduction.claim, "VERSION": version, "TITLE": reproduction.title}
    if reproduction.framework == "mastra":
        tools, options, note = _MASTRA_TURNS[reproduction.kind]
        model, model_import = _mastra_model(version)
        values |= {"TOOLS": tools, "OPTIONS": options, "TOOLS_NOTE": note, "MODEL": model, "MODEL_IMPORT": model_import}
    if reproduction.framework == "llama-index":
        forced = reproduction.kind == "forced"
        values |= {
            "CALL_BACK": str(not forced),
            "OPTIONS": ', tool_choice="search.web"' if forced else "",
            "TOOLS_NOTE": ", forced by that name" if forced else "; the model calls it back by the name it was sent as",
        }
    return name, _fill(_read(template), values)


def run_sh(reproduction: Reproduction, version: str, package: str, script_name: str, *, patched: bool) -> str:
    """``run.sh``: the whole run from an empty folder (the locked install, then the script); with ``patched`` (the
    folder has a ``fix.patch``), ``./run.sh --fixed`` applies it to the installed package first. An install that
    fails exits 2, as the script's own failure."""
    head = [
        "#!/bin/sh",
        f"# Reproduces {reproduction.claim} on {package} {version} from an empty folder: installs the locked packages,",
        "# then runs the script. Exit 1: REPRODUCED, 0: NOT REPRODUCED, 2: neither (the run failed, or the turn",
        "# came to something else).",
    ]
    if patched:
        head.append("# ./run.sh --fixed applies fix.patch to the installed package first.")
    head.append('cd "$(dirname "$0")" || exit 2')
    if script_name.endswith(".py"):
        install = [
            # A fresh venv each run, as npm ci's fresh node_modules: a plain run after --fixed runs the release as
            # shipped. pip through the venv's python: its scripts name the folder the venv was made in.
            'python3 -m venv --clear .venv || { echo "FAILED: python3 -m venv .venv"; exit 2; }',
            ".venv/bin/python -m pip install --quiet --no-deps -r requirements.txt"
            + ' || { echo "FAILED: pip install"; exit 2; }',
        ]
        run = f"exec .venv/bin/python {script_name}"
    else:
        install = ['npm ci --no-audit --no-fund --ignore-scripts || { echo "FAILED: npm ci"; exit 2; }']
        run = f"exec node {script_name}"
    if patched:
        folder = PATCHED[reproduction.framework]
        patch = f'patch -s -p1 -d {folder} < fix.patch || {{ echo "FAILED: patch"; exit 2; }}'
        install.append(f'if [ "$1" = "--fixed" ]; then {patch}; fi')
    return "\n".join([*head, *install, run]) + "\n"
