"""Any served release of a framework, on first use: listed from its real registry (npm, PyPI), resolved as of its
publication, installed into a private cache and probed for real; and the faults a user can meet, in one line each.

Every test uses a cache of its own (``PROBE_LIB_CACHE``), shared by this module so each release installs once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import replace

import pytest
from test_cli_junk import run_main

from probe_lib import frameworks
from probe_lib.core.errors import InstallFailed, ReleaseUnsupported
from probe_lib.core.scenarios import Scenario, tools
from probe_lib.frameworks.keyed import KeyedAdapter
from probe_lib.install import disk_usage, pyvenv
from probe_lib.install.releases import Releases, parse_time, since
from probe_lib.present import explorer

#: Served and not pinned, a few weeks older than each pin, so their registries served newer dependencies since.
NODE = ("openai-agents-js-chat", "0.19.0")
PYTHON = ("langchain", "1.7.3")
#: Legal tool names: every framework sends them as given, in order.
KEYS = ["get_weather", "a"]


def _cli(*arguments: str) -> subprocess.CompletedProcess:
    """``probe-lib ARGUMENTS`` in this process (:func:`run_main`), in the module's cache: these tests read its exit
    code and output, which a separate process would add only its start-up to."""
    code, stdout, stderr = run_main(list(arguments))
    return subprocess.CompletedProcess(["probe-lib", *arguments], code, stdout, stderr)


def _probe(framework: str, version: str) -> subprocess.CompletedProcess:
    return _cli("probe", "--framework", framework, "--version", version, "--json", *KEYS)


def _newer_than(package: str, registry: str, resolved: str, before: str) -> list[str]:
    """Releases of ``package`` published after ``before``: what a resolution today could have picked instead."""
    releases = Releases(package, registry, package)
    moment = parse_time(before)
    return [v for v in releases.served() if parse_time(releases.published(v)) > moment and v != resolved]


def _assert_resolved_before(dependency: str, registry: str, resolved: str, before: str) -> None:
    published = Releases(dependency, registry, dependency).published(resolved)
    assert parse_time(published) <= parse_time(before), (dependency, resolved, published, before)
    assert _newer_than(dependency, registry, resolved, before), f"{dependency} has no release after {before}"


@pytest.mark.slow
@pytest.mark.node
def test_a_served_node_release_installs_resolved_as_of_its_publication_and_probes(private_cache):
    name, version = NODE
    adapter = frameworks.get(name)
    assert version in adapter.served() and version not in adapter.versions()
    done = _probe(name, version)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["names"] == KEYS
    assert done.stderr.count("\n") == 1 and "first use" in done.stderr and version in done.stderr
    before = adapter.resolved_before(version)
    assert parse_time(adapter.published(version)) < parse_time(before)
    folder = adapter.pins.releases.generated(version)
    packages = json.loads((folder / "package-lock.json").read_text())["packages"]
    assert packages["node_modules/@openai/agents"]["version"] == version
    _assert_resolved_before("openai", "npm", packages["node_modules/openai"]["version"], before)
    assert adapter.is_installed(version) and version in adapter.installed()
    again = _probe(name, version)
    assert again.returncode == 0 and again.stderr == "", "installed once, then reused"


@pytest.mark.slow
def test_a_served_python_release_installs_resolved_as_of_its_publication_and_is_measured(private_cache, tmp_path):
    name, version = PYTHON
    adapter = frameworks.get(name)
    assert adapter.package == "langchain-openai" and adapter.registry == "pypi"
    assert version in adapter.served() and version not in adapter.versions()
    scenarios = tmp_path / "mine.yaml"
    scenarios.write_text(f"scenarios:\n  - name: plain\n    tools: [{', '.join(KEYS)}]\n")
    done = _cli("run", str(scenarios), "--framework", f"{name}@{version}", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    measured = json.loads((tmp_path / "out" / f"{name}-{version}.json").read_text())
    before = adapter.resolved_before(version)
    assert measured["resolved_before"] == before and measured["made"] == "live"
    [outcome] = measured["outcomes"]
    assert [tool["function"]["name"] for tool in outcome["requests"][0]["tools"]] == KEYS
    lock = (adapter.pins.releases.generated(version) / pyvenv.LOCK).read_text()
    pinned = dict(line.split("==") for line in lock.splitlines() if "==" in line and not line.startswith("#"))
    assert pinned["langchain-openai"] == version
    _assert_resolved_before("openai", "pypi", pinned["openai"], before)
    sized = _cli("cache", "--framework", name)
    env = pyvenv.install_dir(adapter.pins.releases.generated(version))
    assert sized.returncode == 0 and sized.stdout.startswith(f"{name}: 1 release(s) installed, "), sized.stdout
    assert disk_usage.shown(disk_usage.size([env])) in sized.stdout
    explored = explorer.explore(KEYS, f"{name}@{version}")
    assert explored.source == explorer.ExplorerSource(name, version) and explored.measurement.wire_names == tuple(KEYS)


@pytest.mark.slow
def test_the_served_list_is_kept_in_the_cache_and_listed_again_for_an_unknown_version(private_cache):
    releases = frameworks.get("smolagents").pins.releases
    served = releases.served()
    path = private_cache / "releases" / "pypi" / "smolagents.json"
    listing = json.loads(path.read_text())
    assert set(listing) == set(served) and all(parse_time(t) for t in listing.values())
    path.write_text(json.dumps({**listing, "0.0.1.dev0": "2020-01-01T00:00:00Z"}))
    assert "0.0.1.dev0" in releases.served(), "read from the cache, not the registry"
    assert not releases.is_served("99.0.0"), "an unknown version lists again"
    assert "0.0.1.dev0" not in releases.served() and set(releases.served()) == set(served)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("framework", "version", "says"),
    [
        ("langchain", "banana", "is not a PEP 440 version"),
        ("langchain", "99.0.0", "probe-lib versions --framework langchain"),
        ("ai-sdk", "banana", "is not MAJOR.MINOR.PATCH"),
        ("ai-sdk", "99.0.0", "probe-lib versions --framework ai-sdk"),
    ],
)
def test_a_version_neither_pinned_nor_served_is_one_line_and_exit_2(private_cache, framework, version, says):
    done = _probe(framework, version)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


@pytest.mark.slow
def test_a_release_the_harness_cannot_run_is_refused_before_anything_installs(private_cache):
    pinned = frameworks.get("ai-sdk")
    strict = replace(pinned, pins=replace(pinned.pins, unsupported=since("ai", "7.0.0")))
    with pytest.raises(ReleaseUnsupported, match=r"^ai 6\.0\.0 predates the harness's API \(needs ai>=7\.0\.0\)$"):
        strict.install("6.0.0")
    with pytest.raises(ReleaseUnsupported), strict.session("6.0.0") as session:
        session.run([Scenario("p", tools=tools(*KEYS))], None)
    assert not strict.pins.releases.generated("6.0.0").exists()


@pytest.mark.slow
def test_an_install_that_cannot_resolve_is_one_line_and_leaves_no_entry(private_cache):
    name, version = PYTHON
    plain = frameworks.get(name)
    broken: KeyedAdapter = replace(
        plain, pins=replace(plain.pins, requires=lambda v: {"langchain-openai": f"=={v}", "openai": "==0.0.0.0.1"})
    )
    with pytest.raises(InstallFailed) as raised:
        broken.install("1.7.2")
    assert "\n" not in str(raised.value) and "1.7.2" in str(raised.value)
    harness = broken.pins.releases.generated("1.7.2").parent
    assert not [p.name for p in harness.iterdir() if p.name.startswith("langchain-1.7.2") or ".partial-" in p.name]


def test_a_file_hard_linked_twice_is_counted_once(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "file").write_bytes(b"x" * 100_000)
    one = disk_usage.size([tmp_path / "a"])
    (tmp_path / "b").mkdir()
    os.link(tmp_path / "a" / "file", tmp_path / "b" / "file")
    assert disk_usage.size([tmp_path / "a", tmp_path / "b"]) - disk_usage.size([tmp_path / "b"]) < 100_000
    (tmp_path / "b" / "copy").write_bytes(b"x" * 100_000)
    assert disk_usage.size([tmp_path / "a", tmp_path / "b"]) >= one + 100_000


def test_a_mastra_folder_generated_before_is_used_as_is_and_one_being_staged_is_not_listed(tmp_path, monkeypatch):
    """``@mastra/core``'s served releases keep the folders they were generated in (``<cache>/mastra/harness/<v>/``,
    whole once their lock is written, resolved as of that day): such a folder is used as it is, nothing resolves
    again, and its install keeps its name; a folder the cache is still staging (a dot name), or one not named by a
    version, is no release."""
    from probe_lib.frameworks.mastra.versions import PINS
    from probe_lib.install import releases

    def refuse(*arguments, **options):
        raise AssertionError(f"npm ran: {arguments}")

    monkeypatch.setattr(releases, "run_npm", refuse)
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path))
    listing = tmp_path / "releases" / "npm" / "%40mastra%2Fcore.json"
    listing.parent.mkdir(parents=True)
    listing.write_text(json.dumps({"0.13.0": "2025-08-05T10:00:00Z", "0.14.0": "2025-08-12T10:00:00Z"}))
    made = tmp_path / "mastra" / "harness" / "0.13.0"
    made.mkdir(parents=True)
    (made / "package.json").write_text('{"dependencies": {"mastra-0.13.0": "npm:@mastra/core@0.13.0"}}\n')
    (made / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
    written = parse_time("2025-09-01T08:30:00Z").timestamp()
    os.utime(made / "package-lock.json", (written, written))
    staged = made.parent / ".0.14.0.partial-x1y2"
    staged.mkdir()
    (staged / "package-lock.json").write_text("{}\n")
    shutil.copytree(made, made.parent / "0.13.0.bak")  # a user's copy: no version, so no release
    kept = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in made.iterdir()}

    assert PINS.releases.generated_versions() == ("0.13.0",)
    assert PINS.known() == (*PINS.versions(), "0.13.0")
    assert PINS.folder("0.13.0") == made
    assert {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in made.iterdir()} == kept
    assert PINS.resolved_before("0.13.0") == "2025-09-01T08:30:00Z", "the lock's time of writing"
    assert PINS.releases.resolved_before("0.13.0") == "2025-09-01T08:30:00Z", "not its publication and margin"
    assert PINS.resolved_before("0.14.0") is None, "not generated yet"
    assert PINS.resolved_before(PINS.versions()[0]) is None, "a pin: its committed lock"
    entry = PINS.install_dir("0.13.0")
    assert entry.parent == tmp_path / "node" and entry.name.startswith("0.13.0-")
    assert frameworks.get("ai-sdk").pins.releases.generated("3.1.0") == tmp_path / "ai-sdk/harness/ai-sdk-3.1.0"


@pytest.mark.slow
@pytest.mark.node
def test_a_served_mastra_release_is_resolved_as_of_the_day_its_folder_is_generated(private_cache):
    """Generated in the cache, named by its version alone as before (no ``resolution.json``: it is whole with its
    lock), from what its harness names: the release under its alias, the kit's zod and, on 0.x, the OpenAI provider of
    AI SDK 4; its ``resolved_before`` is the lock's time of writing."""
    from probe_lib.frameworks.mastra import versions

    folder = versions.PINS.folder("0.13.0")
    assert folder == private_cache / "mastra" / "harness" / "0.13.0"
    assert sorted(path.name for path in folder.iterdir()) == ["package-lock.json", "package.json"]
    manifest = json.loads((folder / "package.json").read_text())
    assert manifest["dependencies"] == {
        "mastra-0.13.0": "npm:@mastra/core@0.13.0",
        "zod": "3.25.76",
        "@ai-sdk/openai": "1.3.24",
    }
    packages = json.loads((folder / "package-lock.json").read_text())["packages"]
    assert packages["node_modules/mastra-0.13.0"]["version"] == "0.13.0"
    assert packages["node_modules/zod"]["version"] == "3.25.76"
    written = parse_time(versions.PINS.resolved_before("0.13.0")).timestamp()
    assert abs(written - (folder / "package-lock.json").stat().st_mtime) < 1


@pytest.mark.parametrize("name", frameworks.names())
def test_a_pin_not_set_up_names_the_setup_command_that_installs_it(name, tmp_path, monkeypatch):
    """Once said "run `probe-lib setup`" for a Node framework, which sets up Mastra alone."""
    from probe_lib.core.errors import SetupError

    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path))
    pins = frameworks.get(name).pins
    if pins.runtime == "node" and shutil.which("node") is None:
        pytest.skip("needs node on PATH to get past the node check")
    version = pins.versions()[-1]
    with pytest.raises(
        SetupError,
        match=rf"^{pins.label} {version} is not installed.*: run `probe-lib setup --framework {pins.label}`$",
    ):
        pins.modules(version) if pins.runtime == "node" else pins.command(version)
