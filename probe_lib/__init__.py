"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the README's map of the package; the layers, from the bottom: ``core``, ``wire``, ``capture``,
``providers``, ``inputs``, ``adapters``, ``study``, ``analysis``, ``present``, and the ``cli`` on top.
"""

import pandas as _pandas

# Tool keys may hold lone UTF-16 surrogates, which JavaScript and JSON allow and the kit probes on purpose; strings
# backed by pyarrow (pandas' default once pyarrow is installed, as it is for Parquet exports) cannot hold them.
_pandas.options.mode.string_storage = "python"

