"""probe_lib: measure what agent frameworks send to an LLM provider when a tool key is not a legal tool name.

Start with the package map in ``docs/architecture.md``; the layers, from the bottom: ``core``, ``wire``, ``capture``,
``providers``, ``inputs``, ``adapters``, ``study``, ``analysis``, ``present``, and the ``cli`` on top.
"""
