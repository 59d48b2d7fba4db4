"""The browser the report is checked in: Debian's Chromium, installed with apt-get by ``probe-lib setup
--with-browser``."""

from __future__ import annotations

import os
import shutil
import subprocess

from probe_lib.core.errors import BrowserMissing

BROWSER_HELP = (
    "install Debian's Chromium (`apt-get install chromium`, as root), or run `probe-lib setup --with-browser`"
)


def browser_executable() -> str | None:
    """Debian's Chromium, used by the tests to load the HTML report in a real browser."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def install_browser() -> str:
    """Install Debian's Chromium with apt-get unless it is present; return its path."""
    if browser_executable() is None:
        apt = shutil.which("apt-get")
        if apt is None or os.geteuid() != 0:
            raise BrowserMissing(f"Chromium is missing and cannot be installed here: {BROWSER_HELP}")
        for command in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", "chromium"]):
            if subprocess.run(command, capture_output=True, text=True, timeout=900).returncode != 0:
                raise BrowserMissing(f"`{' '.join(command)}` failed: {BROWSER_HELP}")
    return browser_executable()
