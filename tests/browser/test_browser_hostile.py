"""Books built from hostile data and from a hostile registry, in a real browser: every text shows
as text and runs nothing (the reader's book is surveyed in ``test_browser.py``; these are a file of
their own so that another test worker builds and loads them meanwhile)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.browser.test_browser import VIEWPORTS, Browser, Site, failing, launched_chromium


def load_problems(page, status, blocked, errors, pwned, script: str) -> list[str]:
    """What went wrong in loading ``page``: its HTTP status, ``script`` having run (``pwned``, the
    value it left in ``window.__pwned``), requests to outside hosts, console errors."""
    found = [f"{page}: HTTP status {status}"] if status != 200 else []
    if pwned is not None:
        found.append(f"{page}: {script} ran (window.__pwned = {pwned})")
    if blocked:
        found.append(f"{page}: requested outside hosts: {blocked}")
    if errors:
        found.append(f"{page}: console errors: {errors}")
    return found


@pytest.fixture(scope="module")
def browser():
    """The module's Chromium, and its one context and page: each test sets the width it loads at."""
    with launched_chromium() as chromium:
        browser = Browser(chromium, VIEWPORTS["desktop"])
        yield browser
        browser.close()


# ---------------------------------------------------------------------------------------------
# A book built from hostile data shows the text and runs none of it


@pytest.fixture(scope="module")
def hostile_site(hostile_book):
    site = Site(hostile_book)
    yield site
    site.close()


def test_hostile_text_renders_inert(browser, hostile_site):
    """Each page of the hostile book, at phone width (where a 3000-character name would most
    easily push the page sideways): no injected script runs, no injected element or link
    exists, nothing is fetched from outside, and the names show as plain text."""
    from tests.helpers.summaries import IMAGE

    pages = hostile_site.pages()
    assert {
        "book/generated/scaling.html",
        "book/generated/wan_video.html",
        "book/generated/explorer.html",
    } <= set(pages)
    viewport = VIEWPORTS["phone"]
    shown_as_text, problems = [], []
    browser.resize(viewport)
    for page in pages:
        status, blocked, errors = browser.load(hostile_site.base + page)
        found = browser.page.evaluate("""() => ({
            pwned: window.__pwned === undefined ? null : window.__pwned,
            headings: document.querySelectorAll('h1').length,
            injected: document.querySelectorAll("img[src='x'], [onerror], [onload]").length,
            scripts: [...document.querySelectorAll('a[href], [src], [action]')].filter(element =>
                /^\\s*javascript:/i.test(element.getAttribute('href') || element.getAttribute('src')
                                         || element.getAttribute('action') || '')).length,
            text: document.body.innerText,
            scrollWidth: document.documentElement.scrollWidth,
        })""")
        problems += load_problems(page, status, blocked, errors, found["pwned"], "injected script")
        if found["headings"] < 1:
            problems.append(f"{page}: lost its heading")
        if found["injected"]:
            problems.append(f"{page}: {found['injected']} injected element(s) with an event handler")
        if found["scripts"]:
            problems.append(f"{page}: {found['scripts']} injected javascript: link(s)")
        if found["scrollWidth"] > viewport["width"] + 1:
            problems.append(
                f"{page}: the hostile names make the page {found['scrollWidth']} px wide at "
                f"{viewport['width']} px"
            )
        if IMAGE in found["text"]:
            shown_as_text.append(page)
    failing(problems, "problems with hostile data")
    assert len(shown_as_text) >= 3, (
        f"the hostile names should be visible as plain text on the pages that list submitters; only on {shown_as_text}"
    )


# ---------------------------------------------------------------------------------------------
# A book built from a hostile registry: every text field shows as text and runs nothing


@pytest.fixture(scope="module")
def hostile_registry_site(hostile_registry_book):
    site = Site(hostile_registry_book / "_build" / "html")
    yield site
    site.close()


def test_a_hostile_registry_runs_nothing_in_the_browser(browser, hostile_registry_site):
    """Each page of the book of a registry whose every text field carries a script, elements
    with onerror/onload handlers, a javascript: link and Markdown/MyST markup (the claim's own
    page, its announcement, the ledger, the how-to, the search page): no script of the
    registry's runs (window.__pwned stays unset), no element, handler, frame or javascript: link
    of its is in the page, nothing is fetched from outside, and its text is on the page as text."""
    pages = hostile_registry_site.pages()
    assert {
        "book/index.html",
        "book/generated/evil-v6.1.html",
        "book/generated/evil-v6.1/evil-scaling.html",
        "book/howto.html",
    } <= set(pages)
    problems, shown = [], defaultdict(list)
    browser.resize(VIEWPORTS["desktop"])
    for page in [*pages, "search.html"]:
        status, blocked, errors = browser.load(hostile_registry_site.base + page)
        found = browser.page.evaluate("""() => ({
            pwned: window.__pwned === undefined ? null : window.__pwned,
            injected: [...document.querySelectorAll("*")].filter(element =>
                [...element.attributes].some(attribute =>
                    /^on/i.test(attribute.name) && attribute.value.includes("__pwned"))).length
                + document.querySelectorAll("img[src='x'], iframe, object, embed").length,
            scripts: [...document.querySelectorAll('a[href], [src], [action]')].filter(element =>
                /^\\s*javascript:/i.test(element.getAttribute('href') || element.getAttribute('src')
                                         || element.getAttribute('action') || '')).length,
            ownScripts: [...document.querySelectorAll('script')].filter(element =>
                element.textContent.trim().startsWith('window.__pwned')).length,
            text: document.body.innerText,
            title: document.title,
        })""")
        problems += load_problems(page, status, blocked, errors, found["pwned"], "the registry's script")
        for key, what in (
            ("injected", "element(s) or handler(s) of the registry's"),
            ("scripts", "javascript: link(s)"),
            ("ownScripts", "script element(s) of the registry's"),
        ):
            if found[key]:
                problems.append(f"{page}: {found[key]} {what}")
        for field in ("TITLE", "PUBLISHER", "SOURCE_LABEL", "NOTE", "CLAIM_TITLE", "STATEMENT"):
            if f"{field}-MARK <script>window.__pwned=1</script>" in found["text"]:
                shown[field].append(page)
        if (
            page == "book/generated/evil-v6.1/evil-scaling.html"
            and "CLAIM_TITLE-MARK <script>" not in found["title"]
        ):
            problems.append(
                f"{page}: its title does not read as the registry's text: {found['title'][:120]!r}"
            )
    failing(problems, "problems with a hostile registry")
    missing = [
        field
        for field in ("TITLE", "PUBLISHER", "SOURCE_LABEL", "NOTE", "CLAIM_TITLE", "STATEMENT")
        if not shown[field]
    ]
    assert not missing, f"the registry's text of {missing} is shown on no page (as text)"
    assert "book/generated/evil-v6.1/evil-scaling.html" in shown["CLAIM_TITLE"], dict(shown)
