"""What the notebooks' zygote runs before it forks their kernels (:mod:`probe_lib.present.kernels`): the imports
every kernel makes before its first cell, made as a kernel makes them.

Run as a script in the zygote, apart from the kit: a kernel imports ``probe_lib.present`` as it starts (its record
of reads), which installs the tables' formatters in that kernel's IPython; imported here, it would be imported in
none. :mod:`probe_lib.present.reads` is loaded by its file under a name of its own, to remember what the imports
open, for each kernel's record.
"""

import builtins
import importlib.util
import os
import sys
import types
from pathlib import Path

spec = importlib.util.spec_from_file_location("reads", Path(__file__).with_name("reads.py"))
reads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reads)
sys.modules[reads.IN_ZYGOTE] = reads
reads.remember()

import ipykernel.ipkernel  # noqa: E402, F401
import ipykernel.kernelapp  # noqa: E402, F401

# ipykernel names the inline backend unless told another (IPKernelApp.init_gui_pylab); matplotlib reads it on import.
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
# pandas chooses its display defaults by asking IPython whether it runs in a kernel (pandas' is_terminal()).
builtins.get_ipython = lambda: types.SimpleNamespace(kernel=True)
try:
    import pandas  # noqa: F401
finally:
    del builtins.get_ipython

# matplotlib's pyplot (its backend as above), and the packages the kit's own modules import, which every notebook
# imports through probe_lib (~0.35 s of CPU a kernel); the kit's modules themselves are imported in each kernel.
import aiohttp.web  # noqa: E402, F401
import filelock  # noqa: E402, F401
import matplotlib.pyplot  # noqa: E402, F401
import yaml  # noqa: E402, F401
from pydantic import BaseModel, TypeAdapter  # noqa: E402, F401  # pydantic loads these lazily

# A kernel started cold seeds numpy's global generator afresh; a kernel forked from here reseeds it (a process the
# kernel forks itself keeps its state, as a cold kernel's does).
if "numpy.random" in sys.modules:
    zygote = os.getpid()
    reseed = sys.modules["numpy.random"].seed
    os.register_at_fork(after_in_child=lambda: os.getppid() == zygote and reseed())
