"""Framework adapters: how each framework is installed and run against the capture server.

:mod:`probe_lib.frameworks.base` defines the seam and the registry (``get``, ``names``, ``register``); each framework
lives in a folder of its own (``mastra/``: its runner, harness, model, catalogue), and :mod:`npm` installs Node
harness packages into the kit's cache.
"""

from probe_lib.frameworks.base import Adapter, check_target, get, install_all, names, register

__all__ = ["Adapter", "check_target", "get", "install_all", "names", "register"]
