"""End to end: JupyterLab as the README installs it, notebook 11 run in headless Chromium, a key set typed into the
explorer, and what the page shows read back, on the real @mastra/core live. Screenshots are kept in tmp_path.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest
from lab import jupyterlab

from probe_lib.present import browser as chromium_browser

COLLISION_TEXT = (
    'Two or more tools resolve to the same name "search_web". Please rename one of the tools to avoid this collision.'
)


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def lab(tmp_path):
    """JupyterLab serving a copy of notebook 11, with the ipywidgets extension the explorer needs."""
    manager = Path(sys.prefix, "share", "jupyter", "labextensions", "@jupyter-widgets", "jupyterlab-manager")
    assert manager.is_dir(), f"the ipywidgets JupyterLab extension is missing from {manager}: pip install ipywidgets"
    with jupyterlab(tmp_path, ["11-explorer.ipynb"]) as running:
        yield running


@pytest.mark.slow
@pytest.mark.node
def test_explorer_in_jupyterlab_measures_typed_keys_live(lab, tmp_path, node_modules):
    from playwright.sync_api import expect, sync_playwright

    server, url = lab
    chromium = chromium_browser.browser_executable()
    assert chromium, f"Chromium is missing: {chromium_browser.BROWSER_HELP}"
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        page.locator(".jp-Notebook").wait_for()
        expect.set_options(timeout=60_000)
        expect(page.get_by_role("button", name="Python 3 (ipykernel) | Idle")).to_be_visible()  # kernel connected
        news = page.get_by_role("alert").filter(has_text="official Jupyter news").get_by_role("button", name="No")
        if news.count():
            news.click()  # the first-run question would cover the explorer in the screenshots
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()

        explorer = page.locator(".probe-explorer")
        done = explorer.locator(".x-done")
        expect(done).to_contain_text("@mastra/core 1.67.0, live")  # the notebook opened it live
        output = page.locator(".jp-OutputArea-output").filter(has_text="Explorer opens on").first
        expect(output).to_contain_text("Explorer opens on @mastra/core 1.67.0, live")
        explorer.locator(".x-keys").scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "explorer-opened.png"))

        keys = explorer.locator("textarea").first
        keys.fill("")
        keys.press_sequentially("search.web\nsearch web\nweather-EU", delay=15)  # typed, so the debounce is used
        error = explorer.locator(".x-error")
        expect(error).to_contain_text(COLLISION_TEXT)
        expect(error).to_contain_text("as the framework words it")
        headline = explorer.locator(".x-headline")
        expect(headline).to_contain_text("@mastra/core 1.67.0, live: 3 key(s); no request was sent")
        explorer.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "explorer-collision.png"))

        keys.fill("search.web\nweather-EU")
        explorer.locator("input[type='text']").first.fill("search.web")  # toolChoice
        expect(headline).to_contain_text("2 key(s), 2 tool(s) sent, 1 renamed")
        findings = explorer.locator(".x-findings")
        expect(findings).to_contain_text('tool_choice forces "search.web", which is not in tools')
        rows = explorer.locator(".x-keys tr")
        expect(rows.nth(1)).to_contain_text("search_web")
        findings.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "explorer-tool-choice.png"))

        source = explorer.locator("select").nth(1)
        source.select_option("@mastra/core 1.71.0, live")  # a version not run yet: Node starts, which takes a while
        expect(explorer.locator(".x-measuring")).to_contain_text("measuring… on @mastra/core 1.71.0, live")
        expect(headline).to_contain_text("@mastra/core 1.71.0, live: 2 key(s), 2 tool(s) sent, 1 renamed")
        source.select_option("@mastra/core, Python model")
        expect(headline).to_contain_text("@mastra/core, Python model: 2 key(s), 2 tool(s) sent, 1 renamed")
        kernel = {pid for pid in _descendants(server.pid) if "runner.cjs" in _cmdline(pid)}
        browser.close()
    assert not errors, errors
    assert kernel, "the live run left no warm Node runner under the kernel"
    server.send_signal(signal.SIGTERM)
    server.wait(30)
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in kernel) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in kernel), "Node runners outlived the kernel"
