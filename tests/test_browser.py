"""The built book in a real browser: every page, as a reader and as an attacker would meet it.

Headless Chromium (Debian's package) driven by Playwright for Python; no browser is downloaded.
Every request to a host other than loopback is blocked and recorded. Without Chromium these
tests skip with one line saying why, unless CLAIMBOOK_REQUIRE_BROWSER is set (CI sets it).
"""

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from summaries import hostile_rows, summary_from_tidy, write_summary

from claimbook.claims import load_registry
from conftest import ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = ROOT / "tests" / "artifacts"
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]

if CHROMIUM is None:
    if os.environ.get("CLAIMBOOK_REQUIRE_BROWSER"):
        pytest.fail("Chromium is required (CLAIMBOOK_REQUIRE_BROWSER is set) but is not installed", pytrace=False)
    pytest.skip("browser tests need Debian's chromium (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import sync_playwright  # noqa: E402


def build_book(out: Path, results: Path | None = None) -> Path:
    command = [sys.executable, "-m", "claimbook", "build", "--out", str(out)]
    if results is not None:
        command += ["--results", str(results)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return out / "_build" / "html"


class Site:
    """A folder served on 127.0.0.1 for the duration of a test module."""

    def __init__(self, folder: Path):
        handler = functools.partial(QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.folder = folder
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def pages(self) -> list[str]:
        skipped = {"_static", "_sources", "_downloads", "_images"}
        return sorted(
            str(path.relative_to(self.folder)) for path in self.folder.rglob("*.html")
            if not skipped & set(path.relative_to(self.folder).parts)
            and 'http-equiv="Refresh"' not in path.read_text(errors="replace")  # redirect stubs
        )

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def book_site(tmp_path_factory):
    site = Site(build_book(tmp_path_factory.mktemp("book") / "out"))
    yield site
    site.close()


class Visit:
    """One page load with every outside request blocked and every console error kept."""

    def __init__(self, browser, url, viewport=None):
        self.context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900}, accept_downloads=True)
        self.page = self.context.new_page()
        self.blocked, self.errors = [], []
        self.page.route("**/*", self._route)
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.response = self.page.goto(url, wait_until="load")
        # vega-embed draws each chart into an <svg class="marks">; wait until every chart has one.
        self.page.wait_for_function(
            "document.querySelectorAll('.claimbook-chart').length === document.querySelectorAll('.claimbook-chart svg.marks').length",
            timeout=20000,
        )

    def _route(self, route):
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def close(self):
        self.context.close()


def local_target(site: Site, page_url: str, href: str) -> Path:
    url = urlparse(urljoin(page_url, href))
    return site.folder / url.path.lstrip("/")


def test_every_page_loads_offline_with_its_charts_drawn(browser, book_site):
    pages = book_site.pages()
    assert len(pages) >= 10
    charts_seen = 0
    for page in pages:
        url = book_site.base + page
        visit = Visit(browser, url)
        try:
            assert visit.response.ok, page
            assert visit.blocked == [], f"{page} needed outside requests: {visit.blocked}"
            assert visit.errors == [], f"{page} logged errors: {visit.errors}"
            charts = visit.page.locator(".claimbook-chart")
            for index in range(charts.count()):
                marks = charts.nth(index).locator("svg.marks .role-mark > *")
                assert marks.count() > 0, f"chart {index} of {page} has no marks"
            charts_seen += charts.count()
            navigation = visit.page.locator(".bd-sidebar-primary a.reference.internal, .prev-next-area a")
            assert navigation.count() > 0, f"{page} has no table of contents"
            # Every link inside the book (navigation, chapter links of the ledger, downloads)
            # must lead to a file of the built book; outside links are not followed.
            hrefs = visit.page.eval_on_selector_all("a[href]", "links => links.map(link => link.getAttribute('href'))")
            for href in hrefs:
                if urlparse(href).scheme or href.startswith("#"):
                    continue
                target = local_target(book_site, url, href)
                assert target.is_file(), f"{page}: link {href} leads nowhere"
        finally:
            visit.close()
    # every chapter has at least one chart, and every chart in the HTML was drawn
    assert charts_seen >= len(load_registry().written_chapters())
    in_html = sum((book_site.folder / page).read_text().count('class="claimbook-chart"') for page in pages)
    assert charts_seen == in_html
    (ARTIFACTS / "counts.json").parent.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "counts.json").write_text(json.dumps({"pages": len(pages), "charts": charts_seen}))


def test_every_chart_has_a_title_a_description_and_its_data(browser, book_site):
    for page in ("book/claims/rubin_speedup.html", "book/claims/economics.html"):
        visit = Visit(browser, book_site.base + page)
        try:
            charts = visit.page.locator(".claimbook-chart")
            for index in range(charts.count()):
                label = charts.nth(index).get_attribute("aria-label") or ""
                assert len(label) > 40 and charts.nth(index).get_attribute("role") == "figure", f"chart {index} of {page}"
                assert charts.nth(index).locator("svg.marks title, svg.marks text").count() > 0  # a drawn title
            assert visit.page.locator("details.claimbook-chart-data").count() == charts.count()
            # each chart's menu offers its picture as SVG (vega-embed's export action)
            for index in range(charts.count()):
                assert charts.nth(index).locator(".vega-actions a", has_text="SVG").count() == 1
            assert visit.page.locator("table.claimbook-table thead th").count() > 0
        finally:
            visit.close()


def test_scorecard_and_costs_download(browser, book_site, tmp_path):
    for page, name, start in (("book/ledger.html", "scorecard.csv", "claim,chapter"), ("book/claims/economics.html", "costs.csv", "organization,")):
        visit = Visit(browser, book_site.base + page)
        try:
            link = visit.page.locator(f"a.download[href$='{name}']").first
            with visit.page.expect_download() as download:
                link.click()
            saved = tmp_path / name
            download.value.save_as(saved)
            assert saved.read_text().startswith(start)
        finally:
            visit.close()


def test_screenshots_for_readers_and_phones(browser, book_site):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for page, name, viewport in (
        ("book/ledger.html", "ledger.png", None),
        ("book/claims/rubin_speedup.html", "rubin_speedup.png", None),
        ("book/ledger.html", "ledger-phone.png", {"width": 390, "height": 844}),
    ):
        visit = Visit(browser, book_site.base + page, viewport)
        try:
            visit.page.screenshot(path=str(ARTIFACTS / name), full_page=name != "ledger.png")
            if viewport:
                # Wide tables scroll inside their own box; the page itself must not.
                width = visit.page.evaluate("document.documentElement.scrollWidth")
                assert width <= viewport["width"] + 1, f"{page} is {width}px wide at {viewport['width']}px"
        finally:
            visit.close()
        assert (ARTIFACTS / name).stat().st_size > 10_000


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory, committed_results):
    folder = tmp_path_factory.mktemp("hostile")
    honest = summary_from_tidy(committed_results, folder / "honest.csv")
    import csv

    with open(honest, newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    summary = write_summary(folder / "hostile.csv", rows + hostile_rows())
    site = Site(build_book(folder / "out", summary))
    yield site
    site.close()


def test_hostile_text_renders_inert(browser, hostile_site):
    shown_as_text = 0
    for page in hostile_site.pages():
        visit = Visit(browser, hostile_site.base + page)
        try:
            assert visit.page.evaluate("window.__pwned") is None, f"injected script ran on {page}"
            assert visit.blocked == [], f"{page} needed outside requests: {visit.blocked}"
            assert visit.page.locator("h1").count() >= 1, f"{page} lost its heading"
            assert visit.page.locator("img[src='x']").count() == 0, f"an injected image element exists on {page}"
            assert visit.page.locator("a[href^='javascript:']").count() == 0, f"an injected link exists on {page}"
            text = visit.page.inner_text("body")
            shown_as_text += '<img src=x onerror="window.__pwned=2">' in text
        finally:
            visit.close()
    assert shown_as_text >= 3, "the hostile names should be visible as plain text on the pages that list submitters"
