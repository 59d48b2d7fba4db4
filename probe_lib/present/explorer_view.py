"""The explorer as ipywidgets: inputs on top, the rendered ``ExplorerResult`` below, updated as you type.

All logic is :func:`probe_lib.present.explorer.explore`; this module wires widgets to it. Each change waits
``debounce_s`` for the next keystroke, then one worker thread runs the exploration, so a live run on the real
package never blocks the kernel and only the newest input's result is drawn. Live runs go through the view's own
:class:`~probe_lib.frameworks.session_pool.SessionPool`, so each version's runner stays warm while the view lives
(:meth:`ExplorerView.close` stops them; the pool's finalizer does when the kernel ends). A run that fails says why in
the status line and leaves the last good result on screen. Displayed outside a live kernel (the HTML report,
nbconvert), the view degrades to a static rendering of its state: no widget, no script.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import ipywidgets as widgets

from probe_lib.analysis import corpus
from probe_lib.core.target import Target
from probe_lib.frameworks import mastra
from probe_lib.frameworks.session_pool import SessionPool
from probe_lib.inputs import keysets
from probe_lib.inputs.records import keys_as_text, shown
from probe_lib.measure import sources
from probe_lib.present import explorer, explorer_html
from probe_lib.present.explorer import ExplorerResult, ExplorerSource
from probe_lib.providers import rules

#: The picker's first entry: whatever is in the text box.
CUSTOM = "(your own keys, typed below)"
_KEYSET = "key set: "
_CORPUS = "MCP corpus: "
#: The corpus' tool sets are registered as @mastra/mcp registers them: ``server_tool``.
CORPUS_STYLE = "mastra"
_FULL_WIDTH = widgets.Layout(width="95%")


def pick_options() -> list[str]:
    """The picker's entries: the kit's key sets (random ones drawn free of Mastra's collisions), then every tool set
    of the real MCP corpus."""
    records = sorted(corpus.record_of(corpus.load_corpus()).unique())
    return (
        [CUSTOM]
        + [_KEYSET + keyset.name for keyset in keysets.catalogue(mastra.ADAPTER.name_rule())]
        + [_CORPUS + record for record in records]
    )


def picked_keys(option: str) -> tuple[str, ...] | None:
    """The keys a picker entry stands for (``None`` for ``CUSTOM``)."""
    if option.startswith(_KEYSET):
        return keysets.by_name(option.removeprefix(_KEYSET), mastra.ADAPTER.name_rule()).keys
    if option.startswith(_CORPUS):
        return corpus.record_keys(
            corpus.load_corpus(), option.removeprefix(_CORPUS), keysets.prefix_style(CORPUS_STYLE)
        )
    return None


class ExplorerView:
    """The explorer's widgets and their state; ``widget`` is what a notebook displays (or display the view)."""

    def __init__(
        self,
        keys: Sequence[str] = explorer.DEFAULT_KEYS,
        source: ExplorerSource | None = None,
        provider: str = explorer.DEFAULT_PROVIDER,
        debounce_s: float = 0.4,
    ) -> None:
        self.debounce_s = debounce_s
        #: The warm runners of this view's live sources.
        self.pool = SessionPool()
        source = source or ExplorerSource(mastra.ADAPTER.name, None)
        self.pick = widgets.Dropdown(options=pick_options(), value=CUSTOM, description="key set", layout=_FULL_WIDTH)
        self.keys = widgets.Textarea(
            value=keys_as_text(keys),
            description="keys",
            rows=8,
            placeholder="one key per line, in registration order (or a JSON array)",
            continuous_update=True,
            layout=_FULL_WIDTH,
        )
        self.source = widgets.Dropdown(
            options=[s.label for s in explorer.sources()],
            value=source.label,
            description="source",
            layout=widgets.Layout(width="50%"),
        )
        self.tool_choice = widgets.Text(
            description="toolChoice",
            placeholder="force a tool by this name (empty: none)",
            continuous_update=True,
            layout=widgets.Layout(width="50%"),
        )
        self.active_tools = widgets.Textarea(
            description="activeTools",
            rows=2,
            continuous_update=True,
            placeholder="tool names, one per line (empty: all tools)",
            layout=widgets.Layout(width="50%"),
        )
        self.provider = widgets.Dropdown(
            options=[rule.label for rule in rules()],  # every rule the linter knows, in file order
            value=provider,
            description="provider",
            layout=widgets.Layout(width="50%"),
        )
        self.status = widgets.HTML()
        self.output = widgets.HTML()
        self.widget = widgets.VBox(
            [
                self.pick,
                self.keys,
                widgets.HBox([self.source, self.provider]),
                widgets.HBox([self.tool_choice, self.active_tools]),
                self.status,
                self.output,
            ]
        )
        self.widget.add_class("probe-explorer")
        #: The last good result (kept on screen when a later run fails) and the last failure, if the newest failed.
        self.result: ExplorerResult | None = None
        self.failure: str | None = None
        self._displayed = False  # set when the notebook first shows the view
        self._lock = threading.Lock()
        self._generation = 0
        self._timer: threading.Timer | None = None
        self._future: Future | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explorer")
        self._picking = False
        for control in (self.keys, self.source, self.tool_choice, self.active_tools, self.provider):
            control.observe(self._changed, names="value")
        self.pick.observe(self._picked, names="value")

    # -- events ---------------------------------------------------------------------------------------------------

    def _picked(self, change: dict) -> None:
        keys = picked_keys(change["new"])
        if keys is not None:
            self._picking = True
            try:
                self.keys.value = keys_as_text(keys)
            finally:
                self._picking = False

    def _changed(self, change: dict) -> None:
        if change["owner"] is self.keys and not self._picking and self.pick.value != CUSTOM:
            self._picking = True
            try:
                self.pick.value = CUSTOM  # the text no longer is the picked set
            finally:
                self._picking = False
        self.schedule()

    def schedule(self) -> None:
        """Run the exploration once input has been still for ``debounce_s``."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.debounce_s, self._submit)
            self._timer.daemon = True
            self._timer.start()

    def _submit(self) -> None:
        with self._lock:
            self._generation += 1
            generation = self._generation
            inputs = {
                "keys": self.keys.value,
                "source": self.source.value,
                "tool_choice": self.tool_choice.value,
                "active_tools": self.active_tools.value,
                "provider": self.provider.value,
            }
            source = explorer.source_named(inputs["source"])
            if source.live:
                first = (
                    ""
                    if source.target in self.pool.running()
                    else " (the first run of a version starts its runner: a second or more)"
                )
                self.status.value = f"<i class='x-measuring'>measuring… on {html.escape(inputs['source'])}{first}</i>"
            self._future = self._worker.submit(self._run, generation, inputs)

    def _run(self, generation: int, inputs: dict) -> None:
        try:
            result = explorer.explore(**inputs, pool=self.pool)
        except Exception as error:  # any failure is shown in the widget; the last good result stays on screen
            if generation == self._generation:
                self.failure = f"{type(error).__name__}: {error}"
                kept = " Showing the last good result below." if self.result is not None else ""
                self.status.value = (
                    f"<div class='x-failure' style='padding:4px 8px;background:#ffe0e0'>"
                    f"<b>This run failed</b>: {html.escape(shown(self.failure))}.{kept}</div>"
                )
            return
        if generation == self._generation:
            self.result, self.failure = result, None
            # Timed once the view is on screen: the first result, measured before, is saved with the notebook.
            self.output.value = explorer_html.render(result, timed=self._displayed)
            self.status.value = f"<span class='x-done'>done: {html.escape(result.source.label)}</span>"

    def settle(self, timeout: float = 120.0) -> ExplorerResult | None:
        """Wait for the pending debounce and run to finish (tests and the first rendering); the last good result."""
        timer = self._timer
        if timer is not None:
            timer.join(timeout)
        future = self._future
        if future is not None:
            future.result(timeout)
        return self.result

    def refresh(self) -> ExplorerResult | None:
        """Explore the current input now and wait for it."""
        self._submit()
        return self.settle()

    def close(self) -> None:
        """Stop the view's runners (a later live run starts them again)."""
        self.pool.close()

    # -- display --------------------------------------------------------------------------------------------------

    def static_html(self) -> str:
        """The view's current state without widgets: what the HTML report shows."""
        inputs = "".join(
            f"<li>{name}: <code>{html.escape(shown(value))}</code></li>"
            for name, value in (
                ("source", self.source.value),
                ("provider", self.provider.value),
                ("toolChoice", self.tool_choice.value or "(none)"),
                ("activeTools", self.active_tools.value or "(all)"),
            )
        )
        body = explorer_html.render(self.result, timed=False) if self.result is not None else ""
        return (
            f'<div class="probe-explorer-static"><p><b>Explorer (static rendering of its state; open the notebook '
            f"in JupyterLab to change the keys)</b></p><ul>{inputs}</ul>{body}</div>"
        )

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/html"] = self.static_html()
        self._displayed = True
        return bundle


def open_view(
    mastra_version: str, measurements: sources.Source, keys: Sequence[str] = explorer.DEFAULT_KEYS
) -> ExplorerView:
    """The explorer as a notebook opens it: on ``mastra_version`` live when ``measurements`` runs now and Node is
    installed, else on the Python model; the first result is measured before returning, and the choice printed."""
    mastra.ADAPTER.check_version(mastra_version)
    live = measurements.live(Target(mastra.ADAPTER.name, mastra_version))  # a served version installs now
    source = ExplorerSource(mastra.ADAPTER.name, mastra_version if live else None)
    if live:
        why = ""
    elif not measurements.runs_now:
        why = (
            f" (measurements={measurements.parameter!r} reads measurements, so it opens on the model; a live source "
            "picked in the selector runs that package now)"
        )
    else:
        why = " (Node.js and `probe-lib setup` are needed for a live source)"
    listed = "\n".join(f"  {s.label}" for s in explorer.sources())  # one a line: a name is never split
    print(f"Explorer opens on {source.label}{why}.\nSources, any of them chosen in the selector:\n{listed}")
    view = ExplorerView(keys, source)
    view.refresh()
    if view.failure:
        print(f"The first run failed: {view.failure}")
    return view
