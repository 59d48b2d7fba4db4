"""Notebook kernels forked from a warm zygote (:mod:`probe_lib.process.zygote`) rather than started cold.

Each of a report's kernels would import ipykernel, pandas and matplotlib again, about 2 s of CPU before its first
cell. Inside :func:`warm`, :class:`KernelManager` asks the zygote for each ``python3`` kernel instead: the same
``ipykernel_launcher`` with the same arguments, environment and folder, forked after those imports. What the
imports opened is recorded as each kernel's reads (:func:`probe_lib.present.reads.remember`), so a notebook's inputs
hold every file a kernel started cold would have recorded, and its executed copy is the same bytes. A kernel asked
for with another environment than the zygote's (whose imports may have read it) or another command, or when the
zygote cannot start or is gone, starts cold.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from probe_lib.process import zygote

#: What the zygote runs before it forks a kernel: the imports every notebook's kernel makes before its first cell.
PREPARE = Path(__file__).with_name("warm_kernel.py")
_LAUNCHER = "ipykernel_launcher"
#: What jupyter_client adds to a kernel's environment for that kernel alone.
_PER_KERNEL = ("JPY_",)


@contextlib.contextmanager
def warm() -> Iterator[zygote.Zygote | None]:
    """Within the block, this process's kernels (and those of the processes it forks) come from one zygote, which
    it gives; where the platform cannot watch a forked child (no ``os.pidfd_open``) or the zygote cannot start,
    they start cold, the latter with a warning."""
    if not hasattr(os, "pidfd_open"):
        yield None
        return
    try:
        started = zygote.Zygote(PREPARE)
    except (RuntimeError, OSError) as failed:
        logging.getLogger(__name__).warning("notebook kernels start cold: %s", failed)
        yield None
        return
    with started:
        yield started


class _ForkedProvisioner(LocalProvisioner):
    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> dict:
        warmed = zygote.running()
        env = kwargs.get("env") or dict(os.environ)
        if warmed is None or cmd[:3] != [sys.executable, "-m", _LAUNCHER] or _own(env) != _own(warmed.environment):
            return await super().launch_kernel(cmd, **kwargs)
        cwd = kwargs.get("cwd") or os.getcwd()
        # ipykernel read JPY_PARENT_PID when the zygote imported it: the parent it polls is given here (the zygote,
        # whose end also kills it, PR_SET_PDEATHSIG).
        argv = [*cmd[3:], f"--IPKernelApp.parent_handle={warmed.pid}"]
        try:
            self.process = warmed.spawn(_LAUNCHER, argv, env, cwd)
        except OSError:  # the zygote is gone
            return await super().launch_kernel(cmd, **kwargs)
        self.pid = self.pgid = self.process.pid  # the kernel leads a process group of its own
        self.cwd = cwd
        return self.connection_info

    async def send_signal(self, signum: int) -> None:
        # The zygote reaps a forked kernel as it ends, so its pid (and group) may be another's already: Popen's
        # zombie keeps a cold one's until it is reaped.
        if not isinstance(self.process, zygote.Forked) or self.process.poll() is None:
            await super().send_signal(signum)


class KernelManager(AsyncKernelManager):
    """nbclient's kernel manager, whose kernels come from the zygote running in this process, if any."""

    async def _async_pre_start_kernel(self, **kw: Any) -> tuple[list[str], dict[str, Any]]:
        if self.provisioner is None:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
            self.provisioner = _ForkedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)


def _own(env: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if not name.startswith(_PER_KERNEL)}
