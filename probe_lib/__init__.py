"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the README's map of the package; the layers, from the bottom: ``core``, ``wire``, ``capture``,
``providers``, ``inputs``, ``adapters``, ``study``, ``analysis``, ``present``, and the ``cli`` on top.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType


def _configure_pandas(pandas: ModuleType) -> None:
    # Tool keys may hold lone UTF-16 surrogates, which JavaScript and JSON allow and the kit probes on purpose;
    # strings backed by pyarrow (pandas' default once pyarrow is installed, as it is for Parquet exports) cannot.
    pandas.options.mode.string_storage = "python"


class _ConfigurePandasOnImport(importlib.abc.MetaPathFinder):
    """Configures pandas the moment it is first imported, so the commands that never use it (``probe``,
    ``normalise``, ``capture``) do not pay for importing it: about 110 MiB of memory and a second or more."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if name != "pandas":
            return None
        sys.meta_path.remove(self)  # the real finders locate it; this one only wraps its loading
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            load = spec.loader.exec_module

            def load_and_configure(module: ModuleType) -> None:
                load(module)
                _configure_pandas(module)

            spec.loader.exec_module = load_and_configure  # type: ignore[method-assign]
        return spec


if "pandas" in sys.modules:
    _configure_pandas(sys.modules["pandas"])
else:
    sys.meta_path.insert(0, _ConfigurePandasOnImport())
