"""Write a reproduction folder that runs without probe_lib, run it once, and write its report for the tracker.

The folder holds the packages the kit resolved for the release (Node: ``package.json`` and ``package-lock.json``
of its harness, the ``@mastra/core`` alias under its own name; Python: ``requirements.txt``, the harness's lock),
the script (:mod:`probe_lib.repro.templates`), ``run.sh`` and, for a finding the kit has a fix for, ``fix.patch``
(:mod:`probe_lib.repro.patches`). The kit then runs ``run.sh`` there, in an environment without the kit's paths,
and writes ``ISSUE.md`` from what that run printed and captured. All of it is built in a staging folder and swapped
in whole (:mod:`probe_lib.core.folders`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from probe_lib.claims.ledger import load_claims
from probe_lib.core import folders
from probe_lib.core.errors import InputError, ProbeError
from probe_lib.frameworks import base
from probe_lib.install import npm, pyvenv
from probe_lib.install.releases import refuse_unsupported
from probe_lib.providers.name_rules import get_rule, rules
from probe_lib.repro import patches, templates
from probe_lib.repro.claims import REPRODUCTIONS, Reproduction, reproduction

#: How long ``run.sh`` may take (its install included) before the kit gives up on it.
RUN_SECONDS = 900
#: Variables that would let the run find the kit or its environment.
_KIT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NODE_PATH", "PROBE_LIB_CACHE")


#: ``run.sh``'s exit codes, which ``probe-lib repro`` passes on: the finding shown, not shown, neither (the run
#: failed, or the turn came to something else).
REPRODUCED, NOT_REPRODUCED, FAILED = 1, 0, 2
#: How a script's verdict line starts when the turn came to neither the finding nor what is expected (exit 2).
NEITHER = "NEITHER"
#: Where ``probe-lib repro --fixed`` keeps the patched run's requests (``request.json`` keeps the unpatched run's).
FIXED_REQUESTS = "request-fixed.json"


@dataclass(frozen=True)
class ReproResult:
    """What the reproduction printed, and the exit code that goes with it (:data:`REPRODUCED`,
    :data:`NOT_REPRODUCED` or :data:`FAILED`)."""

    folder: Path
    line: str
    code: int


def _harness(framework: str, version: str) -> Path:
    """The kit's harness folder of ``version`` (its committed pin, or the one it resolved in its cache)."""
    pins = base.get(framework).pins
    refuse_unsupported(pins.unsupported, version)
    return pins.folder(version)


def _node_packages(harness: Path, framework: str, version: str, into: Path) -> None:
    """``package.json`` and ``package-lock.json`` of ``harness``, named for the reproduction; Mastra's harness
    installs ``@mastra/core`` under the alias ``mastra-<version>``, which the lock keeps under its own name here."""
    manifest = json.loads((harness / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((harness / "package-lock.json").read_text(encoding="utf-8"))
    name = f"repro-{framework}-{version}"
    dependencies = manifest["dependencies"]
    if framework == "mastra":
        alias = f"node_modules/mastra-{version}"
        dependencies = {
            ("@mastra/core" if key == f"mastra-{version}" else key): value for key, value in dependencies.items()
        }
        dependencies["@mastra/core"] = version
        renamed = {}
        for path, entry in lock["packages"].items():
            if path == alias or path.startswith(alias + "/"):
                path = "node_modules/@mastra/core" + path.removeprefix(alias)
                entry = {key: value for key, value in entry.items() if not (key == "name" and path.endswith("core"))}
            renamed[path] = entry
        lock["packages"] = renamed
    manifest = {"name": name, "private": True, "dependencies": dependencies}
    lock["name"] = name
    lock["packages"][""] = {"name": name, "dependencies": dependencies}
    for file, data in (("package.json", manifest), ("package-lock.json", lock)):
        (into / file).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _requirements(harness: Path, package: str, version: str, to: Path) -> None:
    """``requirements.txt``: the harness's lock, every distribution pinned, under a header of its own (the lock's
    comments name the kit)."""
    pinned = [line for line in (harness / pyvenv.LOCK).read_text(encoding="utf-8").splitlines() if line.strip()]
    pinned = [line for line in pinned if not line.lstrip().startswith("#")]
    header = f"# {package} {version} and every dependency, pinned as resolved for this reproduction\n"
    to.write_text(header + "\n".join(pinned) + "\n", encoding="utf-8")


def _runtime(script_name: str) -> str:
    """The runtime ``run.sh`` uses: the ``python3`` or ``node`` on the run's PATH."""
    if script_name.endswith(".py"):
        command = ["python3", "-c", "import platform; print(platform.python_version())"]
        done = subprocess.run(command, env=_clean_environment(), capture_output=True, text=True, timeout=60)
        return f"Python {done.stdout.strip() or 'unknown'}"
    return f"Node.js {npm.node_version()}"


def _clean_environment() -> dict[str, str]:
    """The environment the run gets: the kit's variables dropped and its own virtual environment off PATH."""
    kit_bin = str(Path(sys.prefix) / "bin")
    env = {key: value for key, value in os.environ.items() if key not in _KIT_VARIABLES}
    env["PATH"] = os.pathsep.join(part for part in env.get("PATH", "").split(os.pathsep) if part != kit_bin)
    return env


def run(folder: Path, *, fixed: bool = False) -> ReproResult:
    """Run ``folder``'s ``run.sh`` (``--fixed``: on the patched package) and read its verdict line."""
    command = ["sh", "run.sh", *(["--fixed"] if fixed else [])]
    try:
        done = subprocess.run(
            command, cwd=folder, env=_clean_environment(), capture_output=True, text=True, timeout=RUN_SECONDS
        )
    except subprocess.TimeoutExpired:
        return ReproResult(folder, f"FAILED: run.sh took over {RUN_SECONDS} s", FAILED)
    said = [
        line
        for line in done.stdout.splitlines()
        if line.startswith(("REPRODUCED", "NOT REPRODUCED", NEITHER, "FAILED"))
    ]
    line = (
        said[-1]
        if said
        else f"FAILED: run.sh printed no verdict ({(done.stderr.strip().splitlines() or ['no output'])[-1]})"
    )
    code = done.returncode if done.returncode in (REPRODUCED, NOT_REPRODUCED, FAILED) else FAILED
    return ReproResult(folder, line, code if said else FAILED)


def _trimmed(body: dict) -> dict:
    """A request body with only what the finding is about: each tool's type and name, and ``tool_choice``; a field
    the body lacks stays absent (no ``tools`` is not ``"tools": []``)."""
    trimmed = {}
    if "tools" in body:
        trimmed["tools"] = [
            {"type": tool.get("type"), "function": {"name": tool["function"].get("name")}}
            if "function" in tool
            else {"type": tool.get("type"), "name": tool.get("name")}
            for tool in body["tools"]
        ]
    return trimmed | ({"tool_choice": body["tool_choice"]} if "tool_choice" in body else {})


def _declared_node(folder: Path, package: str) -> str:
    """What ``package`` (installed in ``folder``) declares of Node.js in its ``engines``, in words, or nothing."""
    manifest = folder / "node_modules" / package / "package.json"
    try:
        wanted = json.loads(manifest.read_text(encoding="utf-8")).get("engines", {}).get("node")
    except (OSError, ValueError):
        return ""
    return f" (the package declares node {wanted})" if wanted else ""


def _imported_pins(script: str, folder: Path, package: str) -> str:
    """The locked distributions beside ``package`` that a Python ``script`` imports (``llama_index.llms.openai``:
    ``llama-index-llms-openai``), as ``, with NAME VERSION``, or nothing."""
    requirements = folder / "requirements.txt"
    if not requirements.exists():
        return ""
    pinned = dict(line.split("==", 1) for line in requirements.read_text(encoding="utf-8").splitlines() if "==" in line)
    imports = re.findall(r"^\s*from\s+([\w.]+)", script, re.MULTILINE)
    modules = {module.replace(".", "-").replace("_", "-").lower() for module in imports}
    imported = [
        name
        for name in pinned
        if name != package and any(module == name or module.startswith(name + "-") for module in modules)
    ]
    return "".join(f", with {name} {pinned[name]}" for name in sorted(imported))


def _user_code(script: str, language: str) -> str:
    """The turn of the script: the code a user writes, from its ``turn`` function to the end of it."""
    start = script.index("async def turn" if language == "python" else "async function turn")
    end = script.index("\n\n\n" if language == "python" else "\n}\n", start)
    return script[start:end].rstrip() + ("" if language == "python" else "\n}")


def issue(
    rep: Reproduction,
    package: str,
    version: str,
    script_name: str,
    script: str,
    result: ReproResult,
    fixed: ReproResult | None = None,
) -> str:
    """``ISSUE.md``: a report ready to paste into the framework's tracker (with what the fixed run printed, when
    there was one), citing the provider rule the finding runs into from ``data/provider_rules.csv``."""
    language = "python" if script_name.endswith(".py") else "js"
    captured = json.loads((result.folder / "request.json").read_text(encoding="utf-8"))
    pins = _imported_pins(script, result.folder, package) if language == "python" else ""
    return templates.render(
        "ISSUE.md",
        rep=rep,
        # A run that did not reproduce it says so first, rather than asserting the finding on this release.
        title=rep.title if result.code == REPRODUCED else f"Not reproduced on {package} {version}: {rep.title}",
        versions=f"{package} {version}{pins}",
        runtime=_runtime(script_name) + ("" if language == "python" else _declared_node(result.folder, package)),
        system=f"{platform.system()} {platform.release()} ({platform.machine()})",
        language=language,
        script_name=script_name,
        user_code=_user_code(script, language),
        result=result,
        bodies="\n".join(json.dumps(_trimmed(body), indent=2, ensure_ascii=False) for body in captured[:1]),
        no_tools=bool(captured) and "tools" not in captured[0],
        fixed=fixed,
        fixed_requests=FIXED_REQUESTS,
        rule=get_rule("openai", "documented"),
        responses_documented=any(r.provider == "openai-responses" and r.variant == "documented" for r in rules()),
        statement={claim.id: claim.statement for claim in load_claims()}[rep.claim],
        inline=_inline,
        fenced=_fenced,
    )


def _fence(text: str, least: int) -> str:
    """A run of backticks longer than any in ``text`` (and at least ``least`` long): CommonMark ends a code span or
    block only at a run of its own length, so a backtick in what a run printed cannot end it early."""
    return "`" * max(least, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))


def _inline(text: str) -> str:
    """``text`` (a line the run printed, from the framework's errors) as one code span of the report."""
    fence = _fence(text, 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def _fenced(text: str, language: str) -> str:
    """``text`` as a fenced code block of the report."""
    fence = _fence(text, 3)
    return f"{fence}{language}\n{text}\n{fence}"


def _write_patch(rep: Reproduction, version: str, to: Path, *, required: bool) -> bool:
    """Write the fix for ``version`` into ``to``; ``False`` when it does not apply to that release (a release
    without the finding's rename), which ``--fixed`` (``required``) refuses in one line."""
    try:
        to.write_text(patches.fix_patch(rep.framework, version), encoding="utf-8")
    except patches.PatchDoesNotApply as error:
        if required:
            raise InputError(f"--fixed: the fix does not apply to {rep.framework} {version}: {error}") from None
        return False
    return True


def write(claim: str, version: str, out: Path | None = None, *, fixed: bool = False) -> ReproResult:
    """Write and run the reproduction of ``claim`` on ``version`` into ``out``: a new or empty folder, or an earlier
    one of the kit's, replaced whole once the run is done (:func:`probe_lib.core.folders.replacing`), so an
    interrupted run leaves ``out`` as it was and a file of the user's there is never overwritten."""
    rep = reproduction(claim)
    adapter = base.get(rep.framework)
    version = adapter.check_version(version)
    if fixed and not rep.fixed:
        raise InputError(
            f"--fixed: the kit has no fix for {claim} ({rep.framework}); it has for "
            + ", ".join(each.claim for each in REPRODUCTIONS.values() if each.fixed)
        )
    out = folders.check_replaceable(out or Path("repro") / f"{claim}-{rep.framework}-{version}")  # refused first
    harness = _harness(rep.framework, version)
    script_name, script = templates.script(rep, version)
    with folders.replacing(out) as staging:
        if script_name.endswith(".py"):
            _requirements(harness, adapter.package, version, staging / "requirements.txt")
        else:
            _node_packages(harness, rep.framework, version, staging)
        (staging / script_name).write_text(script, encoding="utf-8")
        patched = rep.fixed and _write_patch(rep, version, staging / "fix.patch", required=fixed)
        run_sh = templates.run_sh(rep, version, adapter.package, script_name, patched=patched)
        (staging / "run.sh").write_text(run_sh, encoding="utf-8")
        (staging / "run.sh").chmod(0o755)
        result = run(staging)
        after = None
        if fixed:  # the patched run writes request.json too: kept apart, so ISSUE.md shows the unpatched request
            unpatched = (staging / "request.json").read_bytes() if (staging / "request.json").exists() else None
            after = run(staging, fixed=True)
            if unpatched is not None and (staging / "request.json").exists():
                (staging / "request.json").replace(staging / FIXED_REQUESTS)
                (staging / "request.json").write_bytes(unpatched)
        for each in (result, after):  # a turn that came to neither is reported, with what it sent; a failed run is not
            if each is not None and each.code == FAILED and not each.line.startswith(NEITHER):
                raise ProbeError(
                    f"the reproduction of {claim} on {version} failed ({out} was left as it was): {each.line}"
                )
        report = issue(rep, adapter.package, version, script_name, script, result, after)
        (staging / "ISSUE.md").write_text(report, encoding="utf-8")
    return dataclasses.replace(after or result, folder=out)
