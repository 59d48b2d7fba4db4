"""JupyterLab as the README installs it, started for a browser test: on loopback (a random free port, a token),
serving copies of notebooks in a folder of its own (Lab may autosave; never into the repository), killed by a
watchdog whatever happens. Shared by the explorer's and the glossary's JupyterLab tests."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from probe_lib.core import paths

#: A test must end well within this; the server is killed after this long whatever happens.
WATCHDOG_SECONDS = 150


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def jupyterlab(tmp_path: Path, notebooks: list[str]):
    """JupyterLab serving copies of ``notebooks`` (names in notebooks/); yields the server and a URL opening the
    first of them (``?token=`` included)."""
    root = tmp_path / "lab"
    root.mkdir()
    for name in notebooks:
        shutil.copy(paths.NOTEBOOKS / name, root)
    port, token = _free_port(), secrets.token_hex(16)
    environment = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
    }
    log = (tmp_path / "lab.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
            *(["--allow-root"] if os.geteuid() == 0 else []),
        ],
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    watchdog = threading.Timer(WATCHDOG_SECONDS, lambda: os.killpg(server.pid, signal.SIGKILL))
    watchdog.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).read()
                break
            except OSError as error:
                if server.poll() is not None or time.monotonic() > deadline:
                    tail = (tmp_path / "lab.log").read_text()[-3000:]
                    raise AssertionError(f"JupyterLab did not start:\n{tail}") from error
                time.sleep(0.3)
        yield server, f"{url}/lab/tree/{notebooks[0]}?token={token}"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)  # Lab shuts its kernels down; each kernel stops its Node runners
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        watchdog.cancel()
        log.close()
