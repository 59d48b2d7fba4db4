"""The ``@mastra/core`` versions the kit can run: the pinned ones, and any other the npm registry serves.

Each pinned version is one harness folder, ``harness/versions/<version>/``: a ``package.json`` naming
``@mastra/core`` under the alias ``mastra-<version>`` (the name ``runner.cjs`` loads), and its committed lockfile.
Any other served version gets the same folder generated on first use, in the kit's cache (never the source tree):
``npm install --package-lock-only`` writes its lockfile, then it installs like a pin
(:mod:`probe_lib.install.npm`). This module is the one place that knows pins from served versions; the served list
and publication times are :mod:`probe_lib.install.releases`'s, as for every framework.

Unlike the other frameworks' served releases, a served ``@mastra/core`` is resolved as of the day its folder was
generated, not its publication (its harness names exact zod and provider versions, which an older day's registry
did not serve, and the sweep's many versions were installed that way): its ``resolved_before`` is its lockfile's
time of writing.
"""

from __future__ import annotations

import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

from probe_lib.core import paths
from probe_lib.core.errors import InputError, InstallFailed, NodeMissing
from probe_lib.core.target import version_key
from probe_lib.install import cache, npm
from probe_lib.install.releases import Releases, iso_utc, resolve_npm_harness

PACKAGE = "@mastra/core"
RELEASES = Releases(PACKAGE, "npm", "mastra")
VERSIONS_DIR = paths.HARNESS / "versions"
LIST_HELP = "list the served ones with `probe-lib versions` (or `npm view @mastra/core versions --json`)"
#: The zod every harness builds tool schemas with (satisfies every served version's zod range).
ZOD = "3.25.76"
#: 0.x builds its model from an AI SDK provider (no model router yet): the OpenAI provider of AI SDK 4.
AI_SDK_OPENAI_0X = "1.3.24"


def pinned() -> tuple[str, ...]:
    """The pinned versions, oldest first."""
    folders = (folder.name for folder in VERSIONS_DIR.iterdir() if (folder / "package-lock.json").exists())
    return tuple(sorted(folders, key=version_key))


def served(*, refresh: bool = False) -> tuple[str, ...]:
    """Every version the npm registry serves (prereleases included), oldest first (:class:`Releases`)."""
    return RELEASES.served(refresh=refresh)


def is_stable(version: str) -> bool:
    return "-" not in version


def check(version: str) -> str:
    """``version`` if the kit pins it or the registry serves it, else ``InputError`` saying how to list them."""
    if version in pinned():
        return version
    version_key(version)  # InputError naming the expected form
    try:
        known = RELEASES.is_served(version)  # listed again when it is newer than the cached list
    except (NodeMissing, InstallFailed) as error:
        raise InputError(
            f"@mastra/core {version!r} is not pinned ({', '.join(pinned())}) and the served versions "
            f"could not be listed ({error})"
        ) from None
    if not known:
        raise InputError(
            f"@mastra/core {version!r} is neither pinned ({', '.join(pinned())}) nor served by npm; {LIST_HELP}"
        )
    return version


def harness(version: str) -> Path:
    """The harness folder of ``version``: its pin, else one generated in the cache (lockfile resolved once)."""
    if check(version) in pinned():
        return VERSIONS_DIR / version
    return cache.publish(_generated(version), _is_resolved, lambda staging: _generate(version, staging))


def dependencies(version: str) -> dict[str, str]:
    """What the harness of ``version`` installs: the package under its alias, zod, and per era a model provider."""
    deps = {f"mastra-{version}": f"npm:{PACKAGE}@{version}", "zod": ZOD}
    if version_key(version)[0] == 0:
        deps["@ai-sdk/openai"] = AI_SDK_OPENAI_0X
    return deps


def _generated(version: str) -> Path:
    """Where the harness folder of served version ``version`` is generated: in the cache, never the source tree."""
    return paths.cache() / "mastra" / "harness" / version


def _is_resolved(folder: Path) -> bool:
    return (folder / "package-lock.json").exists()


def _generate(version: str, staging: Path) -> None:
    """Write the harness package of ``version`` into ``staging``: its manifest, and the lockfile npm resolves."""
    description = f"{PACKAGE} {version} for probe_lib's Node runner, generated on first use."
    what = f"{PACKAGE} {version}"
    resolve_npm_harness(staging, f"probe-lib-mastra-{version}", description, dependencies(version), what, None)


def resolved_before(version: str) -> str | None:
    """When the lock of served ``version`` was resolved (its time of writing; ``None`` for a pin or one not yet
    generated)."""
    if version in pinned() or not _is_resolved(_generated(version)):
        return None
    written = (_generated(version) / "package-lock.json").stat().st_mtime
    return iso_utc(datetime.fromtimestamp(written, UTC))


def is_installed(version: str) -> bool:
    """True when Node.js is on PATH and ``version`` is installed, so it can run live."""
    try:
        npm.node_executable()
    except NodeMissing:
        return False
    if version not in pinned() and not _is_resolved(_generated(version)):
        return False
    return npm.is_installed(harness(version))


def installed() -> dict[str, Path]:
    """Every version installed in the cache (pinned or served) and where."""
    folder = paths.cache() / "mastra" / "harness"
    generated = (
        [p.name for p in folder.iterdir() if not p.name.startswith(".") and _is_resolved(p)] if folder.is_dir() else []
    )
    known = dict.fromkeys((*pinned(), *sorted(generated, key=version_key)))
    return {version: install_dir(version) for version in known if is_installed(version)}


def can_run(version: str) -> bool:
    """True when ``version`` can run live now: installed, or served and installable on first use (npm on PATH)."""
    if is_installed(version):
        return True
    return version not in pinned() and shutil.which("npm") is not None and shutil.which("node") is not None


def install_dir(version: str) -> Path:
    """Where ``version`` is (or would be) installed in the cache."""
    return npm.install_dir(harness(version))


def install(version: str) -> Path:
    """Install ``version`` (a no-op when it is there); return its ``node_modules``."""
    return npm.install(harness(version))


def modules_dir(version: str) -> Path:
    """The ``node_modules`` holding ``mastra-<version>``: a pin must be set up, a served version installs now."""
    if check(version) in pinned():
        return npm.modules_dir(harness(version), f"{PACKAGE} {version}")
    if not npm.is_installed(harness(version)):
        print(f"installing {PACKAGE} {version} into {paths.cache() / 'node'} (first use)", file=sys.stderr, flush=True)
    return install(version)
