"""Which programs a notebook starts keep it reusable: real processes started under the kernel's real audit hook
(:mod:`probe_lib.present.reads`), judged by :func:`probe_lib.present.staleness.recorded`. Only ``node`` on a
script of the kit's harness folders and on cache entries is known; any other program, or that one given another
file, another folder or its own environment, makes the notebook never reused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probe_lib.core import paths
from probe_lib.install import npm
from probe_lib.present import staleness

SCRIPT = paths.SHARED_HARNESS / "lines.cjs"  # loads and exits: a real kit script that measures nothing


def started(tmp_path: Path, launches: str) -> staleness.Inputs:
    """The inputs of a real Python process that recorded what it read (as a kernel does) and ran ``launches``."""
    log = tmp_path / "reads.jsonl"
    code = f"from probe_lib.present import reads; reads.record({str(log)!r})\nimport os, subprocess\n{launches}"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=tmp_path)
    return staleness.recorded(log, tmp_path, {})


@pytest.fixture
def entry() -> Path:
    """An installed entry of the kit's cache (the pinned @mastra/core the runner is given)."""
    installed = sorted((paths.cache() / "node").glob("1.*-*"))
    if not installed:
        pytest.skip("no @mastra/core installed: run `probe-lib setup`")
    return installed[0]


def test_the_kit_runner_on_a_cache_entry_is_known_with_its_harness_files_and_entry_as_inputs(tmp_path, entry):
    node = npm.node_executable()
    inputs = started(tmp_path, f"subprocess.run([{node!r}, {str(SCRIPT)!r}, {str(entry / 'node_modules')!r}, '1.0'])")
    assert inputs.never_reused is None
    assert inputs.values[f"entry:node/{entry.name}"] == str(entry.stat().st_mtime_ns)
    harness = {name for name in inputs.values if name.startswith("kit:probe_lib/frameworks/")}
    assert "kit:probe_lib/frameworks/harness/lines.cjs" in harness
    assert "kit:probe_lib/frameworks/mastra/harness/runner.cjs" in harness  # every harness folder, not the script's


@pytest.mark.parametrize(
    ("launch", "program"),
    [
        ("subprocess.run(['true'])", "true"),  # another program
        ("subprocess.run([NODE, '-e', '0', '/etc/hostname'])", "node"),  # given a file outside the kit and cache
        ("subprocess.run([NODE, SCRIPT], cwd='/')", "node"),  # in a folder of its own
        ("subprocess.run([NODE, SCRIPT], env={**os.environ, 'NODE_OPTIONS': '--no-warnings'})", "node"),
        ("os.system('true')", "true"),  # started by os.system: no arguments recorded
    ],
)
def test_any_other_program_or_way_of_starting_one_is_never_reused(tmp_path, launch, program):
    node = npm.node_executable()
    inputs = started(tmp_path, f"NODE, SCRIPT = {node!r}, {str(SCRIPT)!r}\n{launch}")
    assert inputs.never_reused is not None and "whose reads are not recorded" in inputs.never_reused
    assert inputs.never_reused.startswith(f"it started {program},")


def test_the_log_names_each_started_program_with_its_arguments_folder_and_environment_changes(tmp_path):
    inputs_log = tmp_path / "reads.jsonl"
    code = (
        f"from probe_lib.present import reads; reads.record({str(inputs_log)!r})\n"
        "import os, subprocess\n"
        "env = {name: value for name, value in os.environ.items() if name != 'GONE'}\n"
        "subprocess.run(['true', 'a'], env={**env, 'EXTRA': '1'}, cwd='/')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, env={**os.environ, "GONE": "x"})
    lines = [json.loads(line) for line in inputs_log.read_text(encoding="utf-8").splitlines()[1:]]
    launched = [line for line in lines if "process" in line]
    assert launched == [{"process": "true", "args": ["true", "a"], "cwd": "/", "env": {"EXTRA": "1", "GONE": None}}]


def test_a_kit_module_is_named_by_its_bytes_even_where_a_distribution_lists_it(tmp_path, monkeypatch):
    """Run from the checkout (``python -m probe_lib``), the checkout is on sys.path and the editable install's
    ``probe_lib.egg-info`` there lists the kit's modules: named ``package:probe-lib`` they would keep its version
    through an edit, and a notebook reading them would be reused stale. A distribution of our own, on sys.path,
    listing one module of the kit, stands for it."""
    module = paths.ROOT / "probe_lib" / "core" / "paths.py"
    listing = tmp_path / "listing-0.1.0.dist-info"
    listing.mkdir()
    (listing / "METADATA").write_text("Metadata-Version: 2.1\nName: listing\nVersion: 0.1.0\n", encoding="utf-8")
    (listing / "RECORD").write_text(f"{os.path.relpath(module, tmp_path)},,\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    staleness._distribution_files.cache_clear()
    try:
        assert staleness._distribution_files().get(str(module)) == "listing"  # the distribution does list it
        assert staleness.name_of(module, tmp_path / "report") == "kit:probe_lib/core/paths.py"
    finally:
        staleness._distribution_files.cache_clear()
