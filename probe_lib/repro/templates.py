"""The text of a reproduction's files, rendered with Jinja from the templates of ``templates/``: its script, its
``run.sh`` and its ``ISSUE.md``.

A script is its framework's template (the user's code: one agent, one turn) including the stand-in provider and the
verdict of the Node or Python fragment, and the check of the claim's kind (``check-<kind>.mjs``, ``.py``). A value a
template names but is not given is a defect of the kit and raises (``StrictUndefined``). The files end in ``.tmpl``,
so no linter reads a fragment as a program. Jinja reads all of a script's text: a ``{{``, ``{%`` or ``{#`` that a
script needs as it is goes in ``{% raw %}``.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

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


#: The templates are code and Markdown: nothing is escaped (Jinja's default).
_JINJA = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined)


def render(name: str, **values: object) -> str:
    """The template ``name`` (without ``.tmpl``) rendered with ``values``. Jinja drops each file's last newline, so a
    fragment ends where the line including it goes on; the whole text gets its own back."""
    return _JINJA.get_template(f"{name}.tmpl").render(values) + "\n"


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
    check = f"check-{reproduction.kind}{Path(name).suffix}.tmpl"
    values = {"CLAIM": reproduction.claim, "VERSION": version, "TITLE": reproduction.title, "CHECK": check}
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
    return name, render(template, **values)


def run_sh(reproduction: Reproduction, version: str, package: str, script_name: str, *, patched: bool) -> str:
    """``run.sh``: the whole run from an empty folder (the locked install, then the script); with ``patched`` (the
    folder has a ``fix.patch``), ``./run.sh --fixed`` applies it to the installed package first. An install that
    fails exits 2, as the script's own failure."""
    return render(
        "run.sh",
        rep=reproduction,
        package=package,
        version=version,
        script_name=script_name,
        language="python" if script_name.endswith(".py") else "js",
        patch_folder=PATCHED[reproduction.framework] if patched else None,
    )
