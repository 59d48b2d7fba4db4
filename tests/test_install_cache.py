"""The shared install cache under real use: processes installing one version at once, a killed install, a cache
folder that cannot be used. Each test runs the real CLI in a cache of its own (``PROBE_LIB_CACHE``), installing a
served ``@mastra/core`` version from the npm registry on first use, as a user's first ``probe --mastra`` does.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli_junk import run_main

from probe_lib.core import files
from probe_lib.core.errors import CacheUnusable
from probe_lib.install import cache, npm

#: Served, not pinned, and close to the pinned 1.0.4, so npm's download cache already holds most of its files.
VERSION = "1.1.0"
#: A batch of two records: one key rewritten (and moved to the end), one left as it is.
BATCH = [["search.web", "a"], ["b"]]
SENT = [["a", "search_web"], ["b"]]


def _probe(cache: Path, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "probe_lib", "probe", "--mastra", VERSION, "--json"],
        env={**os.environ, "PROBE_LIB_CACHE": str(cache)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def _finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(json.dumps(BATCH), timeout=600)
    return process.returncode, out, err


def _entries(cache: Path) -> tuple[list[str], list[str]]:
    """The installed entries of the cache's ``node`` folder, and the staging folders left beside them."""
    names = sorted(path.name for path in (cache / "node").iterdir() if path.is_dir())
    return [n for n in names if not n.startswith(".")], [n for n in names if ".partial-" in n]


def _sent(out: str) -> list[list[str]]:
    return [result["names"] for result in json.loads(out)]


@pytest.mark.node
@pytest.mark.slow
def test_processes_installing_one_version_at_once_all_succeed_alike(tmp_path):
    """Each lists the served versions, generates the harness and installs it in the same fresh cache at the same
    time: one installs while the others wait, and every one measures the same. Three: two wait, each as a lone
    waiter would, and on each other."""
    processes = 3
    cache = tmp_path / "cache"
    started = time.monotonic()
    runs = [_finish(process) for process in [_probe(cache) for _ in range(processes)]]
    print(f"{processes} concurrent first installs of {VERSION}: {time.monotonic() - started:.0f} s")
    for code, _, err in runs:
        assert code == 0 and "Traceback" not in err, err
    assert {out for _, out, _ in runs} == {runs[0][1]}, "every process measured the same"
    assert _sent(runs[0][1]) == SENT
    installed, staging = _entries(cache)
    assert len(installed) == 1 and installed[0].startswith(f"{VERSION}-") and not staging, (installed, staging)


@pytest.mark.node
@pytest.mark.slow
def test_an_install_killed_mid_npm_ci_or_missing_a_file_since_is_installed_again_by_the_next_run(tmp_path):
    """SIGKILL to the installing process and its npm while ``npm ci`` writes ``node_modules``: nothing is published,
    and the next run clears the dead install's staging folder, installs and measures. A file deleted from the
    installed release afterwards is reinstalled by the run after, not measured as its runner's crash (one test: the
    second case starts from the install the first ends with, rather than a cold install of its own)."""
    cache = tmp_path / "cache"
    killed = _probe(cache, start_new_session=True)  # its own process group: the kill takes npm with it
    killed.stdin.write(json.dumps(BATCH))
    killed.stdin.close()
    deadline = time.monotonic() + 300
    while not list(cache.glob("node/.*.partial-*/node_modules/*")):
        assert killed.poll() is None, killed.stderr.read()
        assert time.monotonic() < deadline, "npm ci never started writing node_modules"
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(timeout=30)
    killed.stdout.close()
    killed.stderr.close()
    installed, staging = _entries(cache)
    assert not installed and len(staging) == 1, (installed, staging)

    code, out, err = _finish(_probe(cache))
    assert code == 0 and "Traceback" not in err, err
    assert _sent(out) == SENT
    installed, staging = _entries(cache)
    assert len(installed) == 1 and not staging, (installed, staging)

    # A file deleted from that installed release since: reinstalled, not measured as the runner's crash.
    core = cache / "node" / installed[0] / "node_modules" / f"mastra-{VERSION}" / "package.json"  # @mastra/core
    main = core.parent / json.loads(core.read_text())["main"]
    main.unlink()
    code, out, err = _finish(_probe(cache))
    assert code == 0 and _sent(out) == SENT, err
    assert main.exists()


def _setup_in(cache: Path, *wrapper: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*wrapper, sys.executable, "-m", "probe_lib", "setup"],
        env={**os.environ, "PROBE_LIB_CACHE": str(cache)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _assert_one_line_naming(done: subprocess.CompletedProcess, cache: Path) -> None:
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(cache) in lines[0] and "PROBE_LIB_CACHE" in lines[0], done.stderr


def _in_process(*argv: str) -> subprocess.CompletedProcess:
    """``probe-lib ARGV`` in this process (:func:`run_main`): its exit code and output, without a start-up."""
    code, stdout, stderr = run_main(list(argv))
    return subprocess.CompletedProcess(["probe-lib", *argv], code, stdout, stderr)


def test_a_cache_that_is_a_file_is_one_line_and_exit_2(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.write_text("not a folder\n")
    monkeypatch.setenv("PROBE_LIB_CACHE", str(cache))
    _assert_one_line_naming(_in_process("setup"), cache)
    _assert_one_line_naming(_in_process("probe", "--mastra", VERSION, "--json", "a"), cache)
    _assert_one_line_naming(_in_process("probe", "a.b"), cache)  # the pins: not "run probe-lib setup"
    _assert_one_line_naming(_in_process("cache"), cache)  # not an empty cache of 0 B
    assert cache.read_text() == "not a folder\n", "the user's file is untouched"


def test_cache_names_a_framework_given_twice_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path))
    done = _in_process("cache", "--framework", "mastra", "--framework", "mastra")
    assert done.returncode == 0 and [line.split(":")[0] for line in done.stdout.splitlines()] == ["mastra", "together"]


def test_a_read_only_cache_is_one_line_and_exit_2(tmp_path):
    """A cache that holds its folders already (so only writing a lock fails) on a read-only mount. Root writes
    through ``chmod``, so the mount is a real read-only bind, in a mount namespace of the CLI's own."""
    cache = tmp_path / "cache"
    (cache / "node").mkdir(parents=True)
    (cache / "mastra").mkdir()
    unshare = shutil.which("unshare")
    remount = f'mount --bind {cache} {cache} && mount -o remount,bind,ro {cache} && exec "$@"'
    wrapper = (str(unshare), "--mount", "--propagation", "private", "sh", "-c", remount, "sh")
    if unshare is None or subprocess.run([*wrapper, "true"], capture_output=True).returncode != 0:
        pytest.skip("a read-only bind mount needs unshare and the right to mount (root, outside a locked container)")
    _assert_one_line_naming(_setup_in(cache, *wrapper), cache)
    assert sorted(path.name for path in cache.iterdir()) == ["mastra", "node"], "nothing was written"


@pytest.mark.node
def test_without_probe_lib_cache_the_cache_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv("PROBE_LIB_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    done = _in_process("versions")
    assert done.returncode == 0, done.stderr
    assert VERSION in json.loads((tmp_path / "probe_lib" / "releases" / "npm" / "%40mastra%2Fcore.json").read_text())


@pytest.mark.node
def test_a_probe_lib_cache_set_after_import_is_the_one_used(tmp_path, monkeypatch):
    from probe_lib.frameworks.mastra import versions

    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path))
    assert VERSION in versions.PINS.releases.served()
    assert (tmp_path / "releases" / "npm" / "%40mastra%2Fcore.json").exists()


def test_npm_s_failure_is_said_by_its_error_line_not_a_warning_before_it():
    stderr = (
        "npm warn EBADENGINE Unsupported engine {\n"
        "npm error code ETARGET\n"
        "npm error notarget No matching version found for pkce-challenge@5.0.2.\n"
        "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n"
    )
    assert npm.error_reason(stderr) == "notarget No matching version found for pkce-challenge@5.0.2."


def test_an_entry_missing_a_file_its_install_wrote_is_not_intact_and_is_built_again(tmp_path, monkeypatch):
    """The manifest written at install is what an entry is checked against, in a process that has not seen it."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    entry, builds = tmp_path / "cache" / "node" / "x-1", []

    def build(staging: Path) -> None:
        builds.append(staging)
        (staging / "lib").mkdir()
        (staging / "lib" / "index.js").write_text("module.exports = 1;\n")
        (staging / "package.json").write_text("{}")

    cache.publish(entry, Path.exists, build)
    assert cache.intact(entry) and len(builds) == 1
    (entry / "lib" / "index.js").unlink()
    cache._intact.clear()  # as a new process finds it
    assert not cache.intact(entry)
    cache.publish(entry, Path.exists, build)
    assert len(builds) == 2 and (entry / "lib" / "index.js").exists() and cache.intact(entry)


def test_an_entry_that_no_longer_counts_as_complete_stays_readable_until_its_replacement_is_whole(
    tmp_path, monkeypatch
):
    """A generated folder whose release's bound has moved is generated again while another process may still be
    reading it (it found it whole before): the old entry stays in place, whole, until the new one is built, and
    then the new one takes its name; nothing is left beside them."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    entry, wanted, seen_while_building = tmp_path / "cache" / "ai-sdk" / "harness" / "ai-sdk-3.1.0", ["1"], []

    def is_complete(folder: Path) -> bool:
        return (folder / "resolution.json").exists() and (folder / "resolution.json").read_text() == wanted[0]

    def build(staging: Path) -> None:
        seen_while_building.append((entry / "resolution.json").read_text() if entry.exists() else None)
        (staging / "package-lock.json").write_text(f"lock {wanted[0]}")
        (staging / "resolution.json").write_text(wanted[0])

    cache.publish(entry, is_complete, build)
    wanted[0] = "2"  # the bound moved: the entry is whole but no longer complete
    cache.publish(entry, is_complete, build)
    assert seen_while_building == [None, "1"], "the old entry was removed before its replacement was built"
    assert (entry / "package-lock.json").read_text() == "lock 2" and cache.intact(entry)
    assert sorted(path.name for path in entry.parent.iterdir()) == [
        f".{entry.name}.files.json",
        f".{entry.name}.lock",
        entry.name,
    ]


def test_a_swap_that_fails_puts_the_old_entry_back(tmp_path, monkeypatch):
    """The replacement's rename refused (as a full or read-only disk would): the old entry is where it was, whole."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    entry, wanted = tmp_path / "cache" / "ai-sdk" / "harness" / "ai-sdk-3.1.0", ["1"]

    def is_complete(folder: Path) -> bool:
        return (folder / "resolution.json").exists() and (folder / "resolution.json").read_text() == wanted[0]

    def build(staging: Path) -> None:
        (staging / "resolution.json").write_text(wanted[0])

    cache.publish(entry, is_complete, build)
    wanted[0] = "2"
    rename = Path.rename

    def refused(self: Path, target):
        if Path(target) == entry and self.name.startswith(f".{entry.name}.partial-"):
            raise OSError(28, "No space left on device")
        return rename(self, target)

    monkeypatch.setattr(Path, "rename", refused)
    with pytest.raises(OSError):
        cache.publish(entry, is_complete, build)
    assert (entry / "resolution.json").read_text() == "1", "the old entry was lost"


def test_a_file_of_the_user_s_where_an_entry_goes_is_refused_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    entry = tmp_path / "cache" / "node" / "x-1"
    entry.parent.mkdir(parents=True)
    entry.write_text("the user's own notes")
    with pytest.raises(CacheUnusable, match="is a file where the kit's cache keeps a folder"):
        cache.publish(entry, Path.is_dir, lambda staging: (staging / "index.js").write_text("x"))
    assert entry.read_text() == "the user's own notes"


def _file_size_limit() -> None:
    """A disk that takes 2 MB a file, as a full one refuses: writes past it fail (or SIGXFSZ ends the writer)."""
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (2_000_000, 2_000_000))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


@pytest.mark.node
@pytest.mark.slow
def test_an_install_the_disk_refuses_is_the_run_s_error_and_caches_no_result(tmp_path):
    cache_folder = tmp_path / "cache"
    done = subprocess.run(
        [sys.executable, "-m", "probe_lib", "sweep", "--version", VERSION],
        env={**os.environ, "PROBE_LIB_CACHE": str(cache_folder)},
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_file_size_limit,
    )
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert done.stderr.splitlines()[-1].startswith("probe-lib sweep: `npm ci` for "), done.stderr
    assert "nothing was installed" in done.stderr and "Traceback" not in done.stderr
    assert not list((cache_folder / "sweep").rglob("*.json")), "a release's result was cached"
    assert _entries(cache_folder) == ([], []), "a half-installed entry was left"


def test_an_unlisted_entry_is_listed_only_under_its_lock(tmp_path, monkeypatch):
    """An entry installed before lists were written gets its list from a reader only when no installer holds the
    entry's lock: one replacing it meanwhile would otherwise find a list of the tree it is removing."""
    monkeypatch.setenv("PROBE_LIB_CACHE", str(tmp_path / "cache"))
    entry = tmp_path / "cache" / "node" / "x-1"
    (entry / "lib").mkdir(parents=True)
    (entry / "lib" / "index.js").write_text("module.exports = 1;\n")
    with cache.locked(entry):  # an installer at work
        assert cache.intact(entry)
        assert not cache.manifest(entry).exists()
    cache._intact.clear()  # as a new process finds it
    assert cache.intact(entry)
    assert json.loads(cache.manifest(entry).read_text()) == {"lib/index.js": len("module.exports = 1;\n")}


def test_a_listing_names_an_install_without_reading_its_files_and_a_use_still_checks_them(tmp_path):
    """``probe-lib versions`` and ``cache`` list installs inside ``cache.listing()``: an install a file was deleted
    from still counts there (its files are not read), and is found broken when it is used."""
    entry = tmp_path / "entry"
    entry.mkdir()
    (entry / "index.js").write_text("x")
    files.write_json(cache.manifest(entry), {"index.js": 1})
    (entry / "index.js").unlink()
    with cache.listing():
        assert cache.intact(entry)
    assert not cache.intact(entry)
