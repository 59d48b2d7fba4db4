"""`probe-lib setup --all-frameworks` goes on past a framework that fails to install, and says which failed.

The failure is real: a copy of the openai adapter's harness whose pin names an openai release the registry does
not serve, installed by the kit's own installer (pip against the package index), registered for this test only.
"""

from __future__ import annotations

import shutil

import pytest
from test_cli_junk import run_main

from probe_lib import frameworks
from probe_lib.core import paths
from probe_lib.frameworks import base
from probe_lib.frameworks.keyed import KeyedAdapter
from probe_lib.install import pyvenv
from probe_lib.install.pins import Pins

#: A release number PyPI does not serve for openai.
UNSERVED = "0.0.999"
#: Sorts first, so every real framework comes after the failure.
BROKEN = "a-unserved-openai"


@pytest.mark.slow
def test_setup_all_frameworks_goes_on_past_a_failed_install(tmp_path, monkeypatch):
    harness = tmp_path / "harness"
    shutil.copytree(paths.PACKAGE / "frameworks" / "openai" / "harness", harness)
    [pin] = [folder for folder in harness.iterdir() if (folder / pyvenv.LOCK).exists()]  # not a __pycache__
    lock = (pin / pyvenv.LOCK).read_text(encoding="utf-8")
    assert "\nopenai==" in lock
    broken = pin.rename(harness / f"{BROKEN}-{UNSERVED}")
    (broken / pyvenv.LOCK).write_text(
        "\n".join(f"openai=={UNSERVED}" if line.startswith("openai==") else line for line in lock.splitlines()) + "\n",
        encoding="utf-8",
    )
    monkeypatch.setitem(
        base._REGISTRY,
        BROKEN,
        KeyedAdapter(name=BROKEN, pins=Pins(BROKEN, harness, "python", package=BROKEN), wire="chat-completions"),
    )
    code, out, err = run_main(["setup", "--all-frameworks"])
    target = pyvenv.install_dir(broken)
    left = list(target.parent.glob(f".{target.name}*"))
    for lock in left:  # the shared cache's own folder: leave it as found
        lock.unlink()
    assert not target.exists() and [path.suffix for path in left] == [".lock"], "only its empty lock file is left"
    lines = out.splitlines()
    assert code == 1, (out, err)
    assert lines[0].startswith(f"{BROKEN}: FAILED after ") and UNSERVED in lines[0], lines[0]
    for name in frameworks.names():  # every framework was tried, each with its own line, in order
        assert any(line.startswith((f"{name} ", f"{name}: FAILED")) for line in lines), (name, out)
    assert err.strip().splitlines()[-1].startswith("setup: ") and f"FAILED: {BROKEN}" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
