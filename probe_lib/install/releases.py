"""A framework's releases: what its registry serves, when each was published, and the harness of a served release.

One module for every framework of the matrix (and ``@mastra/core``): a framework's main package (the one its
versions name) lives on npm or PyPI. The registry's list of releases and their publication times is fetched once
(``npm view PKG versions time --json``, PyPI's JSON API) and kept in the kit's cache, listed again when a version
is asked for that the list does not hold (a release newer than the list).

A served release that is not pinned runs from a harness folder generated in the cache on first use, resolved *as
of its publication*: a user who installed it then got the dependencies of that day, and a result measured with
today's dependencies could be a false one (today's ``openai`` can break an older agents release before it sends
anything). So the folder's lock is resolved with nothing published later than ``resolved_before``
(:data:`RESOLUTION_MARGIN` after the release, which lets the companion packages a monorepo publishes in the same
release job in): ``npm install --package-lock-only --before`` for Node, ``uv pip compile --exclude-newer`` for
Python (for the Python the kit runs on). The folder then installs as a pin does
(:mod:`probe_lib.install.npm`, :mod:`probe_lib.install.pyvenv`), and keeps ``resolution.json`` naming the date.
``@mastra/core`` alone is resolved as of the day its folder is generated (:data:`Resolution`).

A registry's dates do not always follow its versions (on the npm registry this kit reaches, hundreds of releases are
dated after a later release of their own line). A release dated after a later release of its own minor line was
made no later than that release, so it is resolved as of the earliest such date instead (:func:`dated_late`), and
the release itself, which that bound would filter out, is named outright (on PyPI, by ``uv``'s
``--exclude-newer-package``; what follows is npm's alone). So is any package a release requires at
an exact version that the bound filters out (that version is what every install of it got, whatever its date), and
any range the bound leaves empty (its oldest version: the registry dates its versions later than a release that
asked for them), and an optional dependency published in the release's own job that fits this machine (a platform
binary). ``resolution.json`` records the bound, why, and what was named outright.
"""

from __future__ import annotations

import functools
import json
import platform
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Set
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from packaging.version import InvalidVersion, Version

from probe_lib.core import files, paths
from probe_lib.core.errors import InputError, InstallFailed, ReleaseUnsupported, SetupError
from probe_lib.core.target import release_key, version_key
from probe_lib.install import cache, npm, pyvenv

Registry = Literal["npm", "pypi"]
#: As of when a generated harness folder is resolved: the release's publication (what a user installing it then
#: got), or the day the folder is generated (npm only: ``@mastra/core``, whose harness names exact zod and provider
#: versions an older day's registry did not serve, and whose sweep's releases were installed that way). A folder
#: resolved as of its generation keeps no ``resolution.json``: it is whole once its lock is written.
Resolution = Literal["as-of-publication", "as-of-generation"]
#: How long after its publication a release's dependencies are resolved as of: the companions a monorepo publishes
#: in the same release job (``ai`` and ``@ai-sdk/openai-compatible``, ``autogen-agentchat`` and ``autogen-ext``).
RESOLUTION_MARGIN = timedelta(hours=1)
#: What asking when a release is resolved as of raises where the registry cannot be listed (no Node, offline) or no
#: longer serves it: what was made with the date known then stands as it was made.
UNLISTED: tuple[type[Exception], ...] = (SetupError, InputError)
#: The file of a generated harness folder naming what it was resolved as of.
RESOLUTION = "resolution.json"
PYPI_JSON = "https://pypi.org/pypi/{package}/json"
#: How long one registry listing may take.
LIST_SECONDS = 120
#: How long resolving one release's lock may take.
RESOLVE_SECONDS = 600
#: How many packages one npm resolution may name outright (each found by a failed try) before it gives up.
MOST_NAMED_OUTRIGHT = 24
#: npm's words when ``--before`` filters out every version a dependant asks for.
_NOT_AS_OF = re.compile(r"No matching version found for (?P<name>@?[^@\s]+)@(?P<spec>.+?) with a date before")
#: npm's words when ``--before`` filters out every version of a package the harness asks for itself.
_NONE_AS_OF = re.compile(r"No versions available for (?P<name>@?[^@\s]+)$")

#: Why a release cannot run under the framework's harness (``None``: it can).
Unsupported = Callable[[str], "str | None"]


def iso_utc(moment: datetime) -> str:
    """``moment`` as ISO 8601 UTC to the second (``2025-03-04T12:00:00Z``)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    """A registry's timestamp (npm's ``…T12:00:00.123Z``, PyPI's ``…T12:00:00.123456Z``) as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def with_margin(published: str) -> str:
    """``published`` (ISO 8601 UTC) plus :data:`RESOLUTION_MARGIN`: what a release is resolved as of, by default."""
    return iso_utc(parse_time(published) + RESOLUTION_MARGIN)


def dated_late(
    dated: Mapping[str, str], sort_key: Callable[[str], tuple], line: Callable[[str], tuple]
) -> dict[str, str]:
    """Each release of ``dated`` (stable version -> registry date, ISO 8601 UTC) that the registry dates after a later
    release of its own minor ``line``, mapped to the earliest dated of those later releases. Only the same line is
    compared: a fix released on an older line after a newer line began is no sign of a wrong date."""
    found = {}
    earliest_later: dict[tuple, str] = {}  # per line, the earliest dated of the releases after the one at hand
    for version in sorted(dated, key=sort_key, reverse=True):
        later = earliest_later.get(line(version))
        if later is not None and dated[later] < dated[version]:
            found[version] = later
        if later is None or dated[version] < dated[later]:
            earliest_later[line(version)] = version
    return found


@dataclass(frozen=True)
class Releases:
    """The releases of one registry package, and the harness folders of those the kit does not pin."""

    package: str
    registry: Registry
    #: The framework's name in the cache (``ai-sdk``): generated folders are ``<label>/harness/<folder_name>/``.
    label: str
    #: A generated folder's name (Mastra's, older than the others', are named by their version alone).
    folder_name: str = "{label}-{version}"
    resolution: Resolution = "as-of-publication"

    def __post_init__(self) -> None:
        if self.resolution == "as-of-generation" and self.registry != "npm":
            raise ValueError("only an npm harness is resolved as of its generation")

    # -- versions ---------------------------------------------------------------------------------------------

    def sort_key(self, version: str) -> tuple:
        """Oldest first, in the registry's order (:func:`~probe_lib.core.target.release_key`)."""
        return release_key(version, self.registry)

    def is_prerelease(self, version: str) -> bool:
        """A prerelease (npm ``1.0.0-beta.1``; PyPI ``1.0rc1``, ``1.0.dev0``)."""
        if self.registry == "npm":
            return "-" in version
        try:
            return Version(version).is_prerelease
        except InvalidVersion:
            return True

    def series(self, version: str) -> tuple:
        """The minor line ``version`` belongs to (its major and minor numbers)."""
        if self.registry == "npm":
            return version_key(version)[:2]
        return (*Version(version).release, 0)[:2]

    def check_form(self, version: str) -> str:
        """``version`` if it is written as the registry writes versions, else ``InputError`` naming the form."""
        if self.registry == "npm":
            version_key(version)
            return version
        try:
            Version(version)
        except InvalidVersion:
            raise InputError(f"{self.package} version {version!r} is not a PEP 440 version (such as 1.2.3)") from None
        return version

    # -- the served list --------------------------------------------------------------------------------------

    def _listing_path(self) -> Path:
        return paths.cache() / "releases" / self.registry / f"{quote(self.package, safe='')}.json"

    def listing(self, *, refresh: bool = False) -> dict[str, str]:
        """Every served release and its publication time (ISO 8601 UTC), listed once and kept in the cache (listed
        under a lock and written whole, so processes asking at once neither clash nor read half a list)."""
        return dict(self._kept(refresh=refresh))

    def _kept(self, *, refresh: bool = False) -> tuple[tuple[str, str], ...]:
        """:meth:`listing` as kept, parsed once per version of its file."""
        path = self._listing_path()
        if refresh or not path.exists():
            with cache.locked(path):
                if refresh or not path.exists():  # else listed by another process while this one waited
                    text = json.dumps(self._fetch(), indent=0, sort_keys=True)
                    files.write_atomically(path, lambda partial: partial.write_text(text, encoding="utf-8"))
        stat = path.stat()
        return _read_listing(path, stat.st_mtime_ns, stat.st_size, stat.st_ino)

    def served(self, *, refresh: bool = False) -> tuple[str, ...]:
        """Every release the registry serves of the package, oldest first, prereleases included."""
        return tuple(sorted(self.listing(refresh=refresh), key=self.sort_key))

    def is_served(self, version: str) -> bool:
        """True when the registry serves ``version`` (the list is fetched again once when it does not hold it)."""
        return version in self.listing() or version in self.listing(refresh=True)

    def published(self, version: str) -> str:
        """When ``version`` was published, ISO 8601 UTC; ``InputError`` when the registry does not serve it."""
        if not self.is_served(version):
            raise InputError(f"{self.package} {version!r} is not served by {self.registry}")
        return self.listing()[version]

    def resolved_before(self, version: str) -> str | None:
        """The date a generated harness of ``version`` is resolved as of: :data:`RESOLUTION_MARGIN` after it, or, when
        the registry dates it after a later release of its own line, that release's date (:meth:`bound`); resolved
        as of its generation, its lock's time of writing (``None``: not generated yet)."""
        if self.resolution == "as-of-generation":
            lock = self.generated(version) / "package-lock.json"
            return iso_utc(datetime.fromtimestamp(lock.stat().st_mtime, UTC)) if lock.exists() else None
        later = self.dated_before(version)
        if later is not None:
            return self.listing()[later]
        return with_margin(self.published(version))

    def dated_before(self, version: str) -> str | None:
        """The earliest dated later release of ``version``'s own line, when the registry dates it before ``version``
        (``None``: no such release)."""
        self.published(version)  # served, or InputError
        return _dated_late(self, self._kept()).get(version)

    def bound(self, version: str) -> str:
        """Why ``version`` is resolved as of :meth:`resolved_before`, in words."""
        later = self.dated_before(version)
        if later is None:
            published = self.published(version)
            return f"its registry date, {published}, plus {RESOLUTION_MARGIN} (h:mm:ss) for its release's companions"
        dated = f"the registry dates it {self.published(version)}, after {later} of its own line"
        return f"{dated} ({self.listing()[later]}), so it was made no later than {later}'s date"

    def _fetch(self) -> dict[str, str]:
        return self._fetch_npm() if self.registry == "npm" else self._fetch_pypi()

    def _fetch_npm(self) -> dict[str, str]:
        npm.node_executable()
        data = _npm_view(self.package, ["versions", "time"], None)
        if not data:
            raise InstallFailed(f"`npm view {self.package} versions time` printed no release of {self.package}")
        versions = data["versions"] if isinstance(data["versions"], list) else [data["versions"]]
        return {v: iso_utc(parse_time(data["time"][v])) for v in versions if v in data["time"]}

    def _fetch_pypi(self) -> dict[str, str]:
        url = PYPI_JSON.format(package=quote(self.package))
        try:
            with urllib.request.urlopen(url, timeout=LIST_SECONDS) as response:
                data = json.load(response)
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
            raise InstallFailed(f"listing {self.package}'s releases from {url} failed: {error}") from None
        return {
            version: iso_utc(min(parse_time(file["upload_time_iso_8601"]) for file in uploads))
            for version, uploads in data["releases"].items()
            if uploads  # a release whose every file was deleted is not served
        }

    def declared(self, version: str) -> dict[str, str]:
        """The npm ranges ``version`` itself declares for its dependencies and peers (peers win), from the registry."""
        data = _npm_view(f"{self.package}@{version}", ["dependencies", "peerDependencies"], {})
        return {**data.get("dependencies", {}), **data.get("peerDependencies", {})}

    # -- generated harness folders ----------------------------------------------------------------------------

    def generated(self, version: str) -> Path:
        """Where the harness folder of served release ``version`` is generated: in the cache, never the source tree."""
        return paths.cache() / self.label / "harness" / self.folder_name.format(label=self.label, version=version)

    def generated_versions(self) -> tuple[str, ...]:
        """The served releases whose harness folder is generated in the cache, oldest first (never a hidden folder:
        the cache stages each one under a dot name)."""
        prefix = self.folder_name.format(label=self.label, version="")
        folder = paths.cache() / self.label / "harness"
        named = (p.name.removeprefix(prefix) for p in folder.glob(f"{prefix}*") if not p.name.startswith("."))
        found = [name for name in named if self._is_version(name) and self._is_whole(self.generated(name))]
        return tuple(sorted(found, key=self.sort_key))

    def _is_version(self, text: str) -> bool:
        """Whether ``text`` is written as the registry writes versions (a folder a user left beside the generated
        ones, ``0.13.0.bak``, is none)."""
        try:
            self.check_form(text)
        except InputError:
            return False
        return True

    def is_generated(self, version: str) -> bool:
        return self._is_whole(self.generated(version))

    def generate(self, version: str, requires: Mapping[str, str]) -> Path:
        """The harness folder of ``version`` (generated on first use): ``requires`` (package -> npm range, or
        distribution -> PEP 440 specifier, ``""`` for any) resolved as of :attr:`resolution`."""
        if self.resolution == "as-of-generation":
            description = f"{self.package} {version} for probe_lib's {self.label} runner, generated on first use."
            name, what = f"probe-lib-{self.label}-{version}", f"{self.package} {version}"
            return cache.publish(
                self.generated(version),
                self._is_whole,
                lambda staging: resolve_npm_harness(staging, name, description, requires, what, None),
            )
        before = self.resolved_before(version)
        resolve = self._resolve_npm if self.registry == "npm" else self._resolve_pypi

        def build(staging: Path) -> None:
            outright = resolve(version, requires, before, staging)
            note = {"package": self.package, "version": version, "published": self.published(version)}
            why = {"resolved_before": before, "bound": self.bound(version), "named_outright": outright}
            files.write_json(staging / RESOLUTION, {**note, **why})  # last: marks it whole

        return cache.publish(self.generated(version), self._is_whole, build)

    def _is_whole(self, folder: Path) -> bool:
        """Whether ``folder`` was generated whole (and, resolved as of a publication, as of the date it is now)."""
        if self.resolution == "as-of-generation":
            return (folder / "package-lock.json").exists()
        return self._resolved_as_now(folder)

    def _resolved_as_now(self, folder: Path) -> bool:
        """Whether ``folder`` was generated whole, as of the date its release is resolved as of now (a folder a kit
        resolved as of a registry date that runs late is generated again)."""
        try:
            resolution = json.loads((folder / RESOLUTION).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        try:
            now = self.resolved_before(resolution.get("version", ""))
        except UNLISTED:
            return True
        return resolution.get("resolved_before") == now

    def _resolve_npm(self, version: str, requires: Mapping[str, str], before: str, staging: Path) -> dict[str, str]:
        description = f"{self.package} {version} for probe_lib's {self.label} runner, resolved as of {before}."
        job = self.published(version) if self.dated_before(version) is not None else None
        name, what = f"probe-lib-{self.label}-{version}", f"{self.package} {version}"
        return resolve_npm_harness(staging, name, description, requires, what, before, job)

    def _resolve_pypi(self, version: str, requires: Mapping[str, str], before: str, staging: Path) -> dict[str, str]:
        lines = "".join(f"{name}{spec}\n" for name, spec in requires.items())
        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        lock = staging / pyvenv.LOCK
        command = [pyvenv.uv_executable(), "pip", "compile", "-", "--quiet", "--no-header", "--exclude-newer", before]
        outright = {}
        if self.dated_before(version) is not None:  # the bound filters the release itself out: let it in by name
            command += ["--exclude-newer-package", f"{self.package}={with_margin(self.published(version))}"]
            outright[self.package] = f"{version}, uploaded {self.published(version)}"
        doing = f"resolving {self.package} {version} as of {before} (`uv pip compile`)"
        run_tool([*command, "--python-version", python, "--output-file", str(lock)], doing, "PyPI", stdin=lines)
        header = f"# {''.join(lines).strip().replace(chr(10), ', ')} resolved by uv as of {before}, Python {python}\n"
        lock.write_text(header + lock.read_text(encoding="utf-8"), encoding="utf-8")
        return outright


@functools.lru_cache(maxsize=32)
def _read_listing(path: Path, *version_of_the_file: int) -> tuple[tuple[str, str], ...]:
    """A kept listing, parsed once per version of its file (every line of a sweep asks for it, several times)."""
    return tuple(sorted(json.loads(path.read_text(encoding="utf-8")).items()))


@functools.lru_cache(maxsize=32)
def _dated_late(releases: Releases, listing: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """:func:`dated_late` of the stable releases of ``listing`` (kept per listing: it is asked of every line)."""
    stable = {version: date for version, date in listing if not releases.is_prerelease(version)}
    return dated_late(stable, releases.sort_key, releases.series)


def since(package: str, oldest: str, why: str = "predates the harness's API") -> Unsupported:
    """An :data:`Unsupported` refusing every release older than ``oldest`` (npm or PEP 440 order, by its form)."""

    def older(version: str) -> bool:
        try:
            return version_key(version) < version_key(oldest)
        except InputError:  # a PyPI form semver does not read (1.0.0b1, 0.2.0.dev0): PEP 440 order
            return Version(version) < Version(oldest)

    def unsupported(version: str) -> str | None:
        return f"{package} {version} {why} (needs {package}>={oldest})" if older(version) else None

    return unsupported


def unsupported_reason(unsupported: Unsupported | None, version: str) -> str | None:
    """Why ``unsupported`` says ``version`` cannot run (``None``: it can, or nothing is refused)."""
    return unsupported(version) if unsupported is not None else None


def refuse_unsupported(unsupported: Unsupported | None, version: str) -> None:
    """``ReleaseUnsupported`` when ``unsupported`` says ``version`` cannot run."""
    reason = unsupported_reason(unsupported, version)
    if reason is not None:
        raise ReleaseUnsupported(reason)


#: The lines npm ends a failure with that say nothing of it: where its log is, and its generic hint after a version
#: it could not find ("In most cases you or one of your dependencies are requesting a package version that doesn't
#: exist.", on one line from npm 11, on two before).
_NPM_BOILERPLATE = (
    "complete log of this run",
    "In most cases you or one of your dependencies",
    "notarget a package version that doesn't exist",
)


def last_line(text: str | None) -> str:
    """The last line of a tool's failure output that says what failed."""
    lines = [line for line in (text or "").strip().splitlines() if not any(b in line for b in _NPM_BOILERPLATE)]
    return lines[-1] if lines else "no output"


def run_tool(
    command: list[str],
    doing: str,
    registry: str,
    *,
    timeout: int = RESOLVE_SECONDS,
    cwd: Path | None = None,
    stdin: str | None = None,
) -> str:
    """What ``command`` prints; ``InstallFailed`` saying what it was ``doing`` when it fails or times out (then
    naming the ``registry`` to check)."""
    try:
        done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise InstallFailed(f"{doing} took over {timeout} s; check {registry} is reachable") from None
    if done.returncode != 0:
        raise InstallFailed(f"{doing} failed: {last_line(done.stderr)}")
    return done.stdout


def run_npm(arguments: list[str], doing: str, *, timeout: int, cwd: Path | None = None) -> str:
    """What ``npm <arguments>`` prints; ``InstallFailed`` saying what it was ``doing`` when it fails or times out."""
    return run_tool([npm.executable("npm"), *arguments], doing, "the npm registry", timeout=timeout, cwd=cwd)


def _npm_view(spec: str, fields: list[str], empty: object, doing: str | None = None) -> Any:
    """What ``npm view <spec> <fields> --json`` prints, parsed (``empty`` when it prints nothing: no version matched);
    ``InstallFailed`` saying what it was ``doing`` (by default, that view) when it fails or times out."""
    doing = doing or f"`npm view {spec} {' '.join(fields)}`"
    text = run_npm(["view", spec, *fields, "--json"], doing, timeout=LIST_SECONDS)
    return json.loads(text) if text.strip() else empty


def resolve_npm_harness(
    staging: Path,
    name: str,
    description: str,
    dependencies: Mapping[str, str],
    what: str,
    before: str | None,
    job: str | None = None,
) -> dict[str, str]:
    """Write a harness package into ``staging`` (its ``package.json``) and the lockfile npm resolves for it: as of
    ``before`` (``npm install --before``), or, with ``None``, as of now, preferring what npm's cache holds.

    As of ``before``, a package asked for at a version (or range) the registry dates only later is named outright,
    by its tarball (the dependency itself, or an ``overrides`` entry keyed by that request, which npm applies to the
    requests whose range meets it: a dependant asking for another range keeps it): an exact version is what every
    install got, whatever its date; for a range, the oldest version it allows. With ``job`` (the registry date of a
    release resolved as of an earlier ``before``), an optional dependency at an exact version that the date left out
    is named outright too when the registry dates it within :data:`RESOLUTION_MARGIN` of ``job`` (published in that
    release's job) and it fits this machine (a platform binary: the others are never installed here). Returns what
    was so named (``package@asked`` -> tarball)."""
    manifest = {"name": name, "private": True, "description": description, "dependencies": dict(dependencies)}
    when = [f"--before={before}", "--ignore-scripts"] if before is not None else ["--prefer-offline"]
    command = ["install", "--package-lock-only", *when, "--no-audit", "--no-fund", "--engine-strict=false"]
    doing = f"resolving {what}" + (f" as of {before}" if before else "")
    outright: dict[str, str] = {}
    passed_over: set[str] = set()  # optional dependencies that are no companion of the release's job
    while True:
        (staging / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        try:
            run_npm(command, doing, timeout=RESOLVE_SECONDS, cwd=staging)
        except InstallFailed as error:
            late = _refused_as_of(str(error), manifest["dependencies"])
            if before is None or late is None:
                raise
            asked = f"{late['name']}@{late['spec']}"
            if asked in outright or len(outright) >= MOST_NAMED_OUTRIGHT:
                named = f"{len(outright)} named outright"
                raise InstallFailed(f"{doing} failed: {named}, npm still finds no {asked} as of {before}") from None
            outright[asked] = tarball = _tarball(late["name"], late["spec"], doing)
            if manifest["dependencies"].get(late["name"]) == late["spec"]:
                manifest["dependencies"][late["name"]] = tarball
            else:  # an override applies to the requests whose range meets this one's; the others keep theirs
                manifest.setdefault("overrides", {})[asked] = tarball
            continue
        lock = staging / "package-lock.json"
        companions = [] if job is None else _job_companions(lock, job, outright.keys() | passed_over, doing)
        passed_over |= {asked for asked, tarball in companions if tarball is None}
        if not any(tarball for _, tarball in companions):
            break
        for asked, tarball in companions:
            if tarball is not None:
                outright[asked] = manifest.setdefault("overrides", {})[asked] = tarball
    if before is not None:
        without_unpublished_optionals(staging / "package-lock.json")
    return outright


def _refused_as_of(said: str, asked: Mapping[str, str]) -> Mapping[str, str] | None:
    """The package and spec npm found no version of as of the date (``name``, ``spec``), from what it ``said``:
    a dependant's request, or one of the harness's own (``asked``), whose spec npm does not repeat."""
    if (late := _NOT_AS_OF.search(said)) is not None:
        return late.groupdict()
    if (none := _NONE_AS_OF.search(said)) is not None and none["name"] in asked:
        return {"name": none["name"], "spec": asked[none["name"]]}
    return None


def _job_companions(lockfile: Path, job: str, seen: Set[str], doing: str) -> list[tuple[str, str | None]]:
    """The optional dependencies ``lockfile`` leaves unresolved, asked for at an exact version and not ``seen``:
    each ``package@version`` with its tarball when it fits this machine and the registry dates it within
    :data:`RESOLUTION_MARGIN` of ``job``, else with ``None``."""
    packages = json.loads(lockfile.read_text(encoding="utf-8")).get("packages", {})
    latest = with_margin(job)
    found = []
    for _, package, spec in _unresolved_optionals(packages):
        asked = f"{package}@{spec}"
        if asked in seen or not _is_exact(spec):
            continue
        facts = _npm_view(asked, ["os", "cpu", "libc", "time", "dist.tarball"], {}, doing)
        dated = (facts.get("time") or {}).get(spec)
        job_companion = _fits_here(facts) and dated is not None and iso_utc(parse_time(dated)) <= latest
        found.append((asked, facts["dist.tarball"] if job_companion else None))
    return found


def _fits_here(manifest: Mapping[str, object]) -> bool:
    """Whether a package's ``os``, ``cpu`` and ``libc`` fields admit this machine, as npm reads them: a ``!value``
    entry excludes it, and entries without ``!`` (if any) must name it; ``libc`` counts on Linux alone."""
    here = {"os": npm.OS, "cpu": npm.CPU}
    if sys.platform == "linux":
        here["libc"] = "glibc" if platform.libc_ver()[0] == "glibc" else "musl"
    for field, value in here.items():
        allowed = manifest.get(field) or []
        allowed = [allowed] if isinstance(allowed, str) else list(allowed)
        named = [entry for entry in allowed if not entry.startswith("!")]
        if f"!{value}" in allowed or (named and value not in named):
            return False
    return True


def _is_exact(spec: str) -> bool:
    """Whether npm ``spec`` names one version (``1.2.3``, ``1.2.3-beta.1``), not a range."""
    try:
        version_key(spec)
    except InputError:
        return False
    return True


def _tarball(package: str, spec: str, doing: str) -> str:
    """The tarball of ``package`` at ``spec``: the version it names, or, for a range, the oldest stable version the
    range allows (the one most surely published by the time of a dependant asking for the range)."""
    found = _npm_view(f"{package}@{spec}", ["version", "dist.tarball"], [], doing)
    versions = [found] if isinstance(found, dict) else found  # one object for one version, else a list of them
    if not versions:
        raise InstallFailed(f"{doing} failed: the registry serves no {package} version in {spec}")
    stable = [v for v in versions if "-" not in v["version"]] or versions  # npm's prereleases carry a "-"
    return min(stable, key=lambda v: version_key(v["version"]))["dist.tarball"]


def without_unpublished_optionals(lockfile: Path) -> list[str]:
    """Strike from ``lockfile`` the optional dependencies that ``npm install --before`` left unresolved, because
    they were published after the cutoff, and return them (``"package -> dependency"``).

    npm skips an optional dependency it cannot resolve but keeps it in its dependant's entry, and ``npm ci`` then
    refuses the lockfile as out of sync ("Missing: ... from lock file"). Measured on
    ``@anthropic-ai/claude-agent-sdk`` 0.2.141: its linux-x64 binary package was published with it, its
    darwin-arm64 and win32-x64 ones (of seven others) months later. As of the cutoff those did not exist, so
    leaving them out is the faithful lock.
    """
    lock = json.loads(lockfile.read_text(encoding="utf-8"))
    packages = lock.get("packages", {})
    struck = []
    for path, dependency, _ in list(_unresolved_optionals(packages)):
        del packages[path]["optionalDependencies"][dependency]
        struck.append(f"{path.removeprefix('node_modules/') or 'the harness'} -> {dependency}")
    if struck:
        lockfile.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    return struck


def _unresolved_optionals(packages: Mapping[str, dict]) -> Iterator[tuple[str, str, str]]:
    """Each optional dependency a lockfile's ``packages`` name but do not install where its dependant finds it:
    (the dependant's path, the dependency, the spec asked)."""
    for path, entry in packages.items():
        for dependency, spec in (entry.get("optionalDependencies") or {}).items():
            if not _installed_for(path, dependency, packages):
                yield path, dependency, spec


def _installed_for(path: str, dependency: str, packages: Mapping[str, dict]) -> bool:
    """Whether the lockfile installs ``dependency`` where the package at ``path`` finds it: in its own
    ``node_modules`` or in that of a folder above it, as Node resolves."""
    while True:
        if (f"{path}/node_modules/{dependency}" if path else f"node_modules/{dependency}") in packages:
            return True
        if not path:
            return False
        path = path[: max(path.rfind("/node_modules/"), 0)]
