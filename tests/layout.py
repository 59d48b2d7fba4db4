"""What a reader meets in Chromium: elements wider than their column, images without a description, and empty
values printed as NaN, None or <NA>. Shared by the report's and the explorer's layout tests."""

from __future__ import annotations

from contextlib import contextmanager

from probe_lib.present import browser as kit_browser

#: The window the tests read pages in: a common laptop width.
WINDOW = {"width": 1280, "height": 900}

#: Elements whose right edge passes their column's, outermost only, unless a box of their own scrolls them.
OVERFLOWING = """(column) => {
  const root = document.querySelector(column);
  const style = getComputedStyle(root);
  const limit = root.getBoundingClientRect().right - parseFloat(style.paddingRight) + 1;
  const scrolled = (el) => {
    for (let a = el.parentElement; a && a !== root.parentElement; a = a.parentElement) {
      if (["auto", "scroll", "hidden"].includes(getComputedStyle(a).overflowX)) return true;
    }
    return false;
  };
  const over = (el) => el.getBoundingClientRect().right > limit && !scrolled(el);
  return [...root.querySelectorAll("*")]
    .filter((el) => el.getBoundingClientRect().width > 0 && over(el))
    .filter((el) => !(el.parentElement !== root && over(el.parentElement)))
    .map((el) => `${el.tagName}#${el.id}.${el.getAttribute("class") || ""} in ${(el.closest("section") || {}).id}: `
                 + `${Math.round(el.getBoundingClientRect().width)} px: ${(el.innerText || "").slice(0, 60)}`);
}"""

#: Images whose alt text is missing, nbconvert's placeholder, or too short to say anything.
UNDESCRIBED = """() => [...document.images]
  .filter((i) => !i.alt || /no description/i.test(i.alt) || i.alt.trim().length < 12)
  .map((i) => `${(i.closest("section") || {}).id}: ${JSON.stringify(i.alt)}`)"""

#: Text a reader sees saying NaN, None, nan or <NA>, outside code (a code cell's `answer = None` is code, and an
#: exercise asking to "replace None" names that code).
EMPTY_VALUES = r"""() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode()); ) {
    const el = node.parentElement;
    if (el.closest("code, .highlight, .jp-InputArea, .jp-Cell-inputWrapper, script, style, title")) continue;
    const text = node.textContent.replace(/replace None with|None of /g, "");
    if (/\bNaN\b|\bnan\b|\bNone\b|<NA>|\bNaT\b/.test(text)) {
      found.push(`${(el.closest("section") || {}).id}: ${text.trim().slice(0, 80)}`);
    }
  }
  return found;
}"""


@contextmanager
def chromium_page():
    """A Chromium page at :data:`WINDOW` (Debian's Chromium, as the kit installs it)."""
    from playwright.sync_api import sync_playwright

    executable = kit_browser.browser_executable()
    assert executable, f"Chromium is missing: {kit_browser.BROWSER_HELP}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser.new_page(viewport=WINDOW)
        finally:
            browser.close()
