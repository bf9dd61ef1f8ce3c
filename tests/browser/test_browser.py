"""The built book in a real browser: every page, as a reader on a desktop or a phone and as an
attacker would meet it.

Headless Chromium (Debian's package) driven by Playwright for Python; no browser is downloaded.
Every request to a host other than loopback is blocked and recorded. Without Chromium these
tests skip with one line saying why, unless CLAIMBOOK_REQUIRE_BROWSER is set (then they fail).

The books built from hostile data and from a hostile registry are met in
``test_browser_hostile.py`` (a file of its own, so that another test worker runs it). The book is
built once per session (``built_book`` in conftest.py). Each page is loaded once per viewport
(1400x900 and 390x844), all in one browser context, by the ``survey`` fixture, which runs every
layout measurement in one ``page.evaluate`` and keeps what it found, then does on the loaded page
what a reader does there (a download, the explorer's widget: AFTER_MEASURING) and keeps what
happened; the tests below then each assert one property of that survey, naming the page, the chart
or table, the element and its sizes when it fails.

Screenshots of the front page, a chapter, a claim page and the explorer at both widths go to
tests/artifacts/ (with the counts of what was covered, counts.json). With
CLAIMBOOK_UPDATE_SCREENSHOTS=1 the README's screenshots in docs/screenshots/ are written too, and
each of those pages is also pictured whole (NAME-full.png) for review.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from tests.helpers.project import ROOT

CHROMIUM = next(
    (
        path
        for path in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser"))
        if path and Path(path).is_file()
    ),
    None,
)
ARTIFACTS = ROOT / "tests" / "artifacts"
SCREENSHOTS = ROOT / "docs" / "screenshots"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORTS = {"desktop": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}
SKIPPED_PARTS = {"_static", "_sources", "_downloads", "_images"}
SKIPPED_PAGES = {"genindex.html", "search.html"}
FRONT, CHAPTER, CLAIM_PAGE, EXPLORER = (
    "book/index.html",
    "book/generated/rubin_speedup.html",
    "book/generated/amd-v6.1/amd-wan-vs-b300.html",
    "book/generated/explorer.html",
)
METHOD, ECONOMICS = "book/method.html", "book/generated/economics.html"
# page -> artifact name; each is saved at both widths, whole and as its first screen
SCREENSHOT_PAGES = {FRONT: "ledger", CHAPTER: "chapter", CLAIM_PAGE: "claim", EXPLORER: "explorer"}
# the README's pictures: the first screen and a bit more, not a whole 16000-pixel page
DOCS_SCREENSHOTS = {FRONT: "ledger", CHAPTER: "chapter"}
DOCS_SCREENSHOT_HEIGHT = 1.6  # viewports
DOCS_SCREENSHOT_LIMIT = 600_000  # bytes
# A "whole page" screenshot stops here: the explorer is 60000 px tall (its table of every result)
# and a picture of that is seconds to take and of use to no one.
FULL_PAGE_LIMIT = 12_000  # px
# Whole-page pictures (for a person to review) take seconds each: only when pictures are updated.
WHOLE_PAGES = bool(os.environ.get("CLAIMBOOK_UPDATE_SCREENSHOTS"))

if CHROMIUM is None:
    if os.environ.get("CLAIMBOOK_REQUIRE_BROWSER"):
        pytest.fail(
            "Chromium is required (CLAIMBOOK_REQUIRE_BROWSER is set) but /usr/bin/chromium is not installed",
            pytrace=False,
        )
    pytest.skip("browser tests need Debian's chromium (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

# ---------------------------------------------------------------------------------------------
# Serving a built site on loopback, and loading its pages with every outside request blocked


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        # A browser asks the server's root for /favicon.ico when a page names no icon; that file
        # is the host's, not the book's (which may be served from a sub-folder), so this server
        # answers "no content" rather than a 404 that Chromium logs as a console error.
        if self.path == "/favicon.ico" and not (Path(self.directory) / "favicon.ico").is_file():
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


class Site:
    """A built site served on 127.0.0.1 for the duration of a test module."""

    def __init__(self, folder: Path):
        handler = functools.partial(QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.folder = folder
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def pages(self) -> list[str]:
        """Every page of the book: the site's HTML files but its static, source and download
        folders, the index and the search page, and redirect stubs."""
        found = []
        for path in self.folder.rglob("*.html"):
            relative = path.relative_to(self.folder)
            if SKIPPED_PARTS & set(relative.parts) or relative.as_posix() in SKIPPED_PAGES:
                continue
            if 'http-equiv="Refresh"' in path.read_text(errors="replace"):
                continue
            found.append(relative.as_posix())
        return sorted(found)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def is_loopback(url: str) -> bool:
    return url.startswith(("data:", "blob:", "about:")) or urlparse(url).hostname in (
        "127.0.0.1",
        "localhost",
        "::1",
    )


# Every request to a host other than loopback goes to a proxy on a loopback port where nothing
# listens, so it fails in the browser without leaving the machine; the browser's own requests are
# all seen (the "request" event) and every one that is not loopback is recorded. (Intercepting
# each request with page.route would do the same but turns the HTTP cache off, which makes the
# 80 page loads of a session twice as slow.)
DEAD_PROXY = {"server": "http://127.0.0.1:9", "bypass": "127.0.0.1,localhost,[::1]"}


class Browser:
    """One context and one page, at a viewport (``resize`` changes it for the next loads); every
    request to another host is blocked and recorded, every console warning and error (Vega's
    warnings included) and page error kept, per page."""

    def __init__(self, chromium, viewport: dict):
        self.context = chromium.new_context(viewport=viewport, accept_downloads=True, device_scale_factor=1)
        self.viewport = viewport
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", self._request)
        self.page = self.context.new_page()
        self.page.on(
            "console",
            lambda message: (
                message.type in ("error", "warning") and self.errors.append(f"{message.type}: {message.text}")
            ),
        )
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))

    def _request(self, request):
        if not is_loopback(request.url):
            self.blocked.append(request.url)

    def load(self, url: str) -> tuple[int | None, list[str], list[str]]:
        """Load a page and wait until vega-embed drew every chart; (status, blocked, errors)."""
        self.blocked, self.errors = [], []
        response = self.page.goto(url, wait_until="load")
        try:
            self.page.wait_for_function(
                "document.querySelectorAll('.claimbook-chart').length"
                " === document.querySelectorAll('.claimbook-chart svg.marks').length",
                timeout=15000,
            )
        except PlaywrightError:
            self.errors.append("not every chart was drawn within 15 s")
        return (response.status if response else None), list(self.blocked), list(self.errors)

    def resize(self, viewport: dict) -> None:
        """The pages loaded from now on are loaded at this viewport (as a context made with it
        would load them): one context, and its warm cache, serves both widths."""
        self.page.set_viewport_size(viewport)
        self.viewport = viewport

    def close(self):
        self.context.close()


# ---------------------------------------------------------------------------------------------
# Every measurement of one page, in one evaluate

PAGE_CHECKS = r"""
(viewportWidth) => {
  const rect = (element) => { const r = element.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height}; };
  const round = (r) => `${Math.round(r.width)}x${Math.round(r.height)} at (${Math.round(r.left)},${Math.round(r.top)})`;
  const visible = (element) => {
    const r = element.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    for (let e = element; e && e.nodeType === 1; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return false;
      if (e.tagName.toLowerCase() === 'svg') break;
    }
    return true;
  };
  const out = {};
  out.scrollWidth = document.documentElement.scrollWidth;
  out.headings = document.querySelectorAll('h1').length;
  out.navigation = document.querySelectorAll('.bd-sidebar-primary a.reference.internal, .prev-next-area a').length;
  out.links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));

  // ---- tables: open what hides them (a chart's data sits in a <details>), then measure
  const tables = [...document.querySelectorAll('table.claimbook-table')];
  const opened = [];
  for (const table of tables)
    for (let d = table.closest('details'); d; d = d.parentElement && d.parentElement.closest('details'))
      if (!d.open) { d.open = true; opened.push(d); }
  out.scrollWidthOpened = document.documentElement.scrollWidth;
  out.tables = tables.map((table, index) => {
    const details = table.closest('details');
    const caption = (table.caption && table.caption.textContent.trim())
      || (details && details.querySelector('summary') && details.querySelector('summary').textContent.trim())
      || `table ${index + 1}`;
    const item = {caption: caption.slice(0, 100), inScrollBox: false, hidden: false, problems: []};
    if (!visible(table)) { item.hidden = true; return item; }
    let head = [...table.querySelectorAll('thead th, thead td')];
    if (!head.length && table.rows.length) head = [...table.rows[0].cells];
    if (!head.length) { item.problems.push('has no header cell'); return item; }
    const last = head.reduce((a, b) => (b.getBoundingClientRect().right > a.getBoundingClientRect().right ? b : a));
    item.lastHeader = last.textContent.trim().slice(0, 60);
    item.tableWidth = Math.round(table.getBoundingClientRect().width);
    // its scroll box: the book's .claimbook-scroll, or the nearest element that scrolls sideways
    let box = table.closest('.claimbook-scroll');
    for (let e = table.parentElement; !box && e && e !== document.body; e = e.parentElement)
      if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) box = e;
    if (box) {
      item.inScrollBox = true;
      // its caption is read where the box is, without scrolling it
      if (table.caption && table.caption.textContent.trim()) {
        const before = box.scrollLeft;
        box.scrollLeft = 0;
        const range = document.createRange();
        range.selectNodeContents(table.caption);
        const text = range.getBoundingClientRect(), shown = box.getBoundingClientRect();
        if (text.right > shown.left + box.clientLeft + box.clientWidth + 1)
          item.problems.push(`its caption runs to ${Math.round(text.right)} px, past its box's visible `
            + `${Math.round(shown.left + box.clientLeft + box.clientWidth)} px: cut off until the reader scrolls the table`);
        // and it stays in view while the reader scrolls the columns
        box.scrollLeft = box.scrollWidth;
        const scrolled = range.getBoundingClientRect();
        if (scrolled.left < shown.left + box.clientLeft - 1)
          item.problems.push(`its caption leaves its box as the table scrolls (its text starts at `
            + `${Math.round(scrolled.left)} px, the box at ${Math.round(shown.left + box.clientLeft)} px)`);
        box.scrollLeft = before;
      }
      item.scrollBox = box.classList.contains('claimbook-scroll') ? '.claimbook-scroll' : box.tagName.toLowerCase() + '.' + [...box.classList].join('.');
      const before = box.scrollLeft;
      box.scrollLeft = box.scrollWidth;
      const b = box.getBoundingClientRect();
      const visibleLeft = b.left + box.clientLeft, visibleRight = visibleLeft + box.clientWidth;
      const c = last.getBoundingClientRect();
      item.boxWidth = Math.round(box.clientWidth);
      if (c.right > visibleRight + 1 || c.left >= visibleRight)
        item.problems.push(`after scrolling its box (${Math.round(box.clientWidth)} px wide, content `
          + `${box.scrollWidth} px) to the end, the last header cell "${item.lastHeader}" spans `
          + `${Math.round(c.left)}-${Math.round(c.right)} px, the box shows ${Math.round(visibleLeft)}-${Math.round(visibleRight)} px`);
      if (b.right > viewportWidth + 1 || b.left < -1)
        item.problems.push(`its scroll box spans ${Math.round(b.left)}-${Math.round(b.right)} px, past the ${viewportWidth}-px viewport`);
      box.scrollLeft = before;
    } else {
      const t = table.getBoundingClientRect(), column = table.parentElement;
      const c = last.getBoundingClientRect();
      const columnRight = column.getBoundingClientRect().left + column.clientLeft + column.clientWidth;
      item.boxWidth = Math.round(column.clientWidth);
      if (t.right > columnRight + 1 || c.right > viewportWidth + 1)
        item.problems.push(`is in no .claimbook-scroll box and does not fit: the table is ${Math.round(t.width)} px wide `
          + `(right edge at ${Math.round(t.right)} px) in a column of ${Math.round(column.clientWidth)} px ending at `
          + `${Math.round(columnRight)} px; its last header cell "${item.lastHeader}" ends at ${Math.round(c.right)} px `
          + `of a ${viewportWidth}-px viewport`);
    }
    return item;
  });

  // ---- charts
  out.charts = [...document.querySelectorAll('.claimbook-chart')].map((chart, index) => {
    const svg = chart.querySelector('svg.marks');
    const item = {index, id: chart.id, label: chart.getAttribute('aria-label') || '', role: chart.getAttribute('role'),
                  drawn: !!svg, problems: [], marks: 0, cells: 0, emptyCells: [], texts: 0};
    const next = chart.parentElement && chart.parentElement.querySelector('details.claimbook-chart-data');
    item.hasData = !!next;
    item.svgAction = [...chart.querySelectorAll('.vega-actions a')].some(a => /SVG/.test(a.textContent));
    if (!svg) return item;
    // a text of several lines is one <text> with a <tspan> per line
    const words = (t) => { const lines = t.querySelectorAll('tspan');
      return (lines.length ? [...lines].map(l => l.textContent).join(' ') : t.textContent).replace(/\s+/g, ' ').trim(); };
    const titleText = [...svg.querySelectorAll('.role-title-text text')].map(words).join(' ');
    item.title = titleText || item.label.slice(0, 80);
    item.drawnTitle = titleText;
    const s = svg.getBoundingClientRect();
    item.svg = {width: Math.round(s.width), height: Math.round(s.height),
                declaredWidth: Number(svg.getAttribute('width')), declaredHeight: Number(svg.getAttribute('height'))};
    const box = chart.getBoundingClientRect();
    item.chartWidth = Math.round(box.width);
    item.marks = svg.querySelectorAll('.role-mark > *').length;
    // a symbol whose shape has no area ("stroke") drawn filled and without a stroke is invisible
    item.invisible = [];
    for (const symbol of svg.querySelectorAll('.mark-symbol path')) {
      const b = symbol.getBBox();
      const stroke = symbol.getAttribute('stroke'), width = Number(symbol.getAttribute('stroke-width') || 1);
      if ((b.width < 0.5 || b.height < 0.5) && (!stroke || stroke === 'none' || width === 0 || symbol.getAttribute('stroke-opacity') === '0')) {
        const where = symbol.closest('.role-legend') ? 'legend symbol' : 'point';
        const datum = where === 'legend symbol' ? symbol.parentElement.parentElement.textContent.trim()
                                               : (symbol.getAttribute('aria-label') || '');
        item.invisible.push(`${where} ${JSON.stringify(datum.slice(0, 90))} has a ${Math.round(b.width)}x${Math.round(b.height)} px shape, `
          + `filled ${symbol.getAttribute('fill')}, no stroke`);
      }
    }
    // facets and concatenations draw each cell as an item of a role-scope group
    // (a legend draws each of its entries as a role-scope group too: those are not cells)
    for (const scope of [...svg.querySelectorAll('g.role-scope')].filter(g => !g.closest('.role-legend'))) {
      for (const cell of scope.children) {
        if (cell.tagName.toLowerCase() !== 'g') continue;
        item.cells += 1;
        if (!cell.querySelector('.role-mark > *'))
          item.emptyCells.push(`${scope.getAttribute('class')} cell ${item.cells} (${round(cell.getBoundingClientRect())})`);
      }
    }
    const kind = (t) => t.closest('.role-legend-title') ? 'legend title'
      : t.closest('.role-legend-label') ? 'legend label'
      : t.closest('.role-legend') ? 'legend text'
      : t.closest('.role-axis-title') ? 'axis title'
      : t.closest('.role-title-subtitle') ? 'chart subtitle'
      : t.closest('.role-title') ? 'chart title'
      : t.closest('.role-axis-label') ? 'axis label'
      : t.closest('.role-mark') ? 'mark text' : 'other text';
    item.clipped = []; item.overlaps = []; item.truncated = [];
    const boxes = [];
    for (const t of svg.querySelectorAll('text')) {
      const text = words(t);
      if (!text || !visible(t)) continue;
      item.texts += 1;
      const r = t.getBoundingClientRect();
      const k = kind(t);
      if (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1)
        item.clipped.push({kind: k, text: text.slice(0, 80),
          detail: `${k} "${text.slice(0, 80)}" spans x ${Math.round(r.left - s.left)}..${Math.round(r.right - s.left)}, `
            + `y ${Math.round(r.top - s.top)}..${Math.round(r.bottom - s.top)} in an SVG of ${Math.round(s.width)}x${Math.round(s.height)} px`});
      if (text.includes('\u2026') && k !== 'mark text')
        item.truncated.push({kind: k, text: text.slice(0, 80)});
      if (k !== 'mark text' && k !== 'other text')
        boxes.push({kind: k, text: text.slice(0, 60), r});
    }
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        // two lines of 12-px type in adjacent axis labels have 2 px of blank between their
        // text boxes' edges and the glyphs: a label may touch its neighbour's box by that much
        const slack = (boxes[i].kind === 'axis label' || boxes[j].kind === 'axis label') ? 3 : 1;
        // two tick labels side by side need a gap to be read apart ("0.0 0.5", not "0.00.5")
        const apart = (boxes[i].kind === 'axis label' && boxes[j].kind === 'axis label') ? -2 : 1;
        if (w > apart && h > slack)
          item.overlaps.push(`${boxes[i].kind} "${boxes[i].text}" (${round(a)}) `
            + (w > 1 ? 'overlaps' : 'runs into') + ` ${boxes[j].kind} "${boxes[j].text}" (${round(b)}) `
            + (w > 1 ? `by ${Math.round(w)}x${Math.round(h)} px` : `with ${Math.round(-w)} px between them`));
      }
    return item;
  });
  out.chartData = document.querySelectorAll('details.claimbook-chart-data').length;
  for (const d of opened) d.open = false;  // the page as it was loaded, for the screenshots
  return out;
}
"""


# ---------------------------------------------------------------------------------------------
# What a reader meets on a page: tables that fit, the columns a reader needs, controls on the
# first screen, text without markup, every claim named linked to its card, every link labelled

READER_CHECKS = r"""
async ({width, height, claims}) => {
  const out = {};
  const article = document.querySelector('.bd-article') || document.body;
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'
      && !e.closest('[hidden]'); };
  const opened = [];
  for (const table of article.querySelectorAll('table'))
    for (let d = table.closest('details'); d; d = d.parentElement && d.parentElement.closest('details'))
      if (!d.open) { d.open = true; opened.push(d); }
  // as a reader who opens them: the page answers on its next frames (a cue before a table)
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));

  // ---- every table: does it fit its column; are the columns a reader needs in view; a cue
  out.tables = [];
  [...article.querySelectorAll('table')].forEach((table, index) => {
    if (!shown(table)) return;
    const labelled = table.closest('[aria-label]');
    const caption = (table.caption && table.caption.textContent.trim())
      || (labelled && labelled.getAttribute('aria-label')) || `table ${index + 1}`;
    let box = null;
    for (let e = table.parentElement; e && e !== document.body; e = e.parentElement)
      if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) { box = e; break; }
    const item = {caption: caption.slice(0, 90), width: Math.round(table.getBoundingClientRect().width)};
    if (box) {
      box.scrollLeft = 0;
      item.box = box.clientWidth;
      item.scrolls = box.scrollWidth > box.clientWidth + 1;
      item.content = box.scrollWidth;
    } else {
      const column = table.parentElement.getBoundingClientRect();
      item.box = Math.round(column.width);
      item.scrolls = false;
      item.content = item.width;
    }
    item.overflows = item.content > item.box + 1;
    const seen = box ? box.getBoundingClientRect() : table.parentElement.getBoundingClientRect();
    const right = Math.min(width, seen.left + (box ? box.clientLeft + box.clientWidth : seen.width));
    const head = table.tHead && table.tHead.rows.length ? [...table.tHead.rows[0].cells]
      : table.rows.length ? [...table.rows[0].cells] : [];
    item.needed = head.filter(cell => cell.querySelector('.claimbook-badge')
        || /^(claim|verdict|measured)( \(.*\))?$/i.test(cell.textContent.trim()))
      .map(cell => { const r = cell.getBoundingClientRect();
        return {name: cell.textContent.trim().slice(0, 40), left: Math.round(r.left), right: Math.round(r.right),
                inView: r.right <= right + 1 && r.left >= seen.left - 1}; });
    const cue = box && box.previousElementSibling;
    item.cue = !!(cue && cue.classList.contains('claimbook-scroll-cue') && shown(cue));
    out.tables.push(item);
  });
  for (const d of opened) d.open = false;

  // ---- charts with controls (the explorer's): the controls and the whole chart
  out.controls = [...article.querySelectorAll('.claimbook-chart')].map((chart, index) => {
    const bindings = chart.querySelector('.vega-bindings');
    const svg = chart.querySelector('svg.marks');
    if (!bindings || !svg) return null;
    const b = bindings.getBoundingClientRect(), s = svg.getBoundingClientRect();
    const select = bindings.querySelector('select');
    const style = select ? getComputedStyle(select) : null;
    const words = (t) => { const lines = t.querySelectorAll('tspan');
      return (lines.length ? [...lines].map(l => l.textContent).join(' ') : t.textContent).replace(/\s+/g, ' ').trim(); };
    return {
      index, top: Math.round(b.top + window.scrollY), bottom: Math.round(b.bottom + window.scrollY),
      chartTop: Math.round(s.top + window.scrollY), chartBottom: Math.round(s.bottom + window.scrollY),
      chartHeight: Math.round(s.height),
      styled: !!style && parseFloat(style.fontSize) >= 14 && b.height > 0
        && parseFloat(style.minHeight || '0') >= 28 && style.borderRadius !== '0px',
      selected: [...bindings.querySelectorAll('select')].map(s => ({name: s.name, value: s.value,
        label: s.selectedOptions.length ? s.selectedOptions[0].textContent.trim() : ''})),
      title: [...svg.querySelectorAll('.role-title-text text')].map(words).join(' '),
      axisTitles: [...svg.querySelectorAll('.role-axis-title text')].map(words),
    };
  }).filter(Boolean);

  // ---- the text: no markup a reader should never see (code blocks and charts aside)
  const body = document.body.cloneNode(true);
  body.querySelectorAll('pre, script, style, svg, noscript').forEach(e => e.remove());
  const text = document.title + '\n' + body.textContent;
  out.markup = [];
  for (const [name, pattern] of [['double backticks', /``/], ['a {raw} directive', /\{raw\}/],
                                 ['a MyST role', /\{[a-z][a-z0-9-]*\}`/], ['stray **', /\*\*/]]) {
    const found = text.match(pattern);
    if (found) {
      const at = found.index;
      out.markup.push(`${name}: ...${text.slice(Math.max(0, at - 50), at + 50).replace(/\s+/g, ' ')}...`);
    }
  }
  out.curly = [...new Set(text.match(/[\u2018\u2019\u201c\u201d]/g) || [])];
  out.curlyContext = out.curly.length
    ? text.slice(Math.max(0, text.search(/[\u2018\u2019\u201c\u201d]/) - 50), text.search(/[\u2018\u2019\u201c\u201d]/) + 30).replace(/\s+/g, ' ')
    : '';

  // ---- every claim the page names is a link (to its card)
  const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ids = claims.map(c => c.id).sort((a, b) => b.length - a.length);
  const idPattern = ids.length ? new RegExp('(?:^|[^A-Za-z0-9.-])(' + ids.map(escape).join('|') + ')(?![A-Za-z0-9-]|\\.[A-Za-z0-9])') : null;
  const titles = new Set(claims.map(c => c.title).filter(Boolean));
  const skipped = 'a, h1, pre, script, style, svg, title, .claimbook-parameters, details.claimbook-details, .claimbook-chart';
  out.unlinked = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skipped)) continue;
    const own = node.textContent.replace(/\s+/g, ' ').trim();
    if (!own) continue;
    const whole = parent.textContent.replace(/\s+/g, ' ').trim();
    const id = idPattern && own.match(idPattern);
    if (id) out.unlinked.push(`claim id ${id[1]} in <${parent.tagName.toLowerCase()}> "${own.slice(0, 80)}"`);
    else if (titles.has(own) || (titles.has(whole) && !parent.querySelector('a')))
      out.unlinked.push(`claim title "${own.slice(0, 80)}" in <${parent.tagName.toLowerCase()}>`);
  }

  // ---- every link says where it leads
  out.unlabelled = [...article.querySelectorAll('a[href]')].filter(a => {
    // a symbol (Sphinx's "#" beside a heading) is labelled by its title
    const text = a.textContent.trim();
    const name = a.getAttribute('aria-label') || (/[A-Za-z]/.test(text) ? text : '') || a.getAttribute('title') || '';
    return !/[A-Za-z]/.test(name);
  }).map(a => `"${a.textContent.trim()}" -> ${a.getAttribute('href')}`).slice(0, 20);

  // ---- the front page's ledger: one line a claim, its details a click away
  out.ledger = [...document.querySelectorAll('.claimbook-ledger-item')].map(item => ({
    id: item.id, height: Math.round(item.getBoundingClientRect().height)}));
  return out;
}
"""


def named_claims() -> list[dict]:
    """Every claim of the registries (parts too), by id and title: what a page may name."""
    from claimbook.engine import load_registry

    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    top = {claim.id for claim in registry.claims}
    return [
        {"id": claim.id, "title": str(claim.get("title") or ""), "top": claim.id in top}
        for claim in registry.all_claims()
    ]


def source_quotes() -> set[str]:
    """The typographic quotes the book's own sources hold (registries, pages, templates): the
    only ones a page may show, since Sphinx's smart quotes are off."""
    found = set()
    for folder, pattern in (("data", "**/*.yaml"), ("book", "*.md"), ("notebooks", "*.ipynb")):
        for path in (ROOT / folder).glob(pattern):
            found |= set(re.findall("[\u2018\u2019\u201c\u201d]", path.read_text(encoding="utf-8")))
    return found


@dataclass
class PageVisit:
    page: str
    viewport: str
    status: int | None
    blocked: list[str]
    errors: list[str]
    measured: dict = field(default_factory=dict)
    # what the reader's actions on the loaded page did (see AFTER_MEASURING), by action
    acted: dict = field(default_factory=dict)


@contextlib.contextmanager
def launched_chromium():
    """Debian's Chromium, headless, every outside request sent to a dead proxy."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS, proxy=DEAD_PROXY)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def chromium():
    with launched_chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def book_site(built_book):
    site = Site(built_book)
    yield site
    site.close()


def screenshot(browser: Browser, name: str, docs_name: str | None = None) -> None:
    """The page's first screen as tests/artifacts/NAME.png (and, when pictures are being updated,
    the page whole as NAME-full.png), and the README's picture of it (DOCS_NAME) when it has one. The first screen is taken first:
    a taller picture resizes the viewport for a moment, and the charts redraw for it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if docs_name:
        docs_screenshot(browser, docs_name)
    if WHOLE_PAGES:
        total = browser.page.evaluate("document.documentElement.scrollHeight")
        clip = {"x": 0, "y": 0, "width": browser.viewport["width"], "height": min(total, FULL_PAGE_LIMIT)}
        browser.page.screenshot(path=str(ARTIFACTS / f"{name}-full.png"), full_page=True, clip=clip)


def docs_screenshot(browser: Browser, name: str) -> Path:
    """The first screen and a bit more (never the whole page), small enough for the README: the
    viewport is made that tall for the picture (the charts redraw for it) and then put back."""
    width, height = browser.viewport["width"], browser.viewport["height"]
    path = ARTIFACTS / "docs" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    browser.page.set_viewport_size({"width": width, "height": int(height * DOCS_SCREENSHOT_HEIGHT)})
    settle(browser.page)
    browser.page.screenshot(path=str(path))
    browser.page.set_viewport_size(browser.viewport)
    settle(browser.page)
    return path


def settle(page) -> None:
    """Until the charts have redrawn after a resize: two animation frames, then a short wait."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.wait_for_timeout(250)


@pytest.fixture(scope="module")
def survey(chromium, book_site, tmp_path_factory):
    """Every page of the book loaded once at each viewport, with everything measured; at 1400 px,
    once a page is measured and pictured, what a reader does on it (AFTER_MEASURING) is done on
    the page as loaded and kept for the tests that judge it. Every load is in one context and page
    (resized between the widths, as a context made at that width would load it): each page's
    scripts, styles and fonts are fetched and compiled once, and no other browser window opens."""
    visits: dict[str, list[PageVisit]] = {}
    pages = book_site.pages()
    claims = named_claims()
    downloads = tmp_path_factory.mktemp("downloads")
    started, seconds = time.perf_counter(), defaultdict(float)
    browser = Browser(chromium, VIEWPORTS["desktop"])
    try:
        for viewport_name, viewport in VIEWPORTS.items():
            browser.resize(viewport)
            visits[viewport_name] = []
            for page in pages:
                clock = time.perf_counter()
                status, blocked, errors = browser.load(book_site.base + page)
                seconds["loading"] += time.perf_counter() - clock
                clock = time.perf_counter()
                measured = browser.page.evaluate(PAGE_CHECKS, viewport["width"])
                measured["reader"] = browser.page.evaluate(
                    READER_CHECKS,
                    {"width": viewport["width"], "height": viewport["height"], "claims": claims},
                )
                seconds["measuring"] += time.perf_counter() - clock
                # after measuring: a whole-page screenshot resizes the viewport to the page's
                # height for a moment, and the charts redraw for it
                clock = time.perf_counter()
                if page in SCREENSHOT_PAGES:
                    suffix = "" if viewport_name == "desktop" else "-phone"
                    screenshot(
                        browser,
                        f"{SCREENSHOT_PAGES[page]}{suffix}",
                        f"{DOCS_SCREENSHOTS[page]}{suffix}" if page in DOCS_SCREENSHOTS else None,
                    )
                seconds["screenshots"] += time.perf_counter() - clock
                visit = PageVisit(page, viewport_name, status, blocked, errors, measured)
                if viewport_name == "desktop":
                    clock = time.perf_counter()
                    for name, action in AFTER_MEASURING.get(page, {}).items():
                        visit.acted[name] = acted(action, browser, downloads)
                    seconds["acting"] += time.perf_counter() - clock
                visits[viewport_name].append(visit)
    finally:
        browser.close()
    charts = sum(len(visit.measured["charts"]) for visit in visits["desktop"])
    tables = sum(len(visit.measured["tables"]) for visit in visits["desktop"])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "counts.json").write_text(
        json.dumps(
            {
                "pages": len(pages),
                "viewports": {name: [size["width"], size["height"]] for name, size in VIEWPORTS.items()},
                "page_loads": sum(len(found) for found in visits.values()),
                "charts": charts,
                "tables": tables,
                "chart_texts": sum(
                    chart["texts"] for visit in visits["desktop"] for chart in visit.measured["charts"]
                ),
                "chart_specs": len(chart_specs(book_site)),
                "seconds": {
                    "survey": round(time.perf_counter() - started, 1),
                    **{name: round(value, 1) for name, value in seconds.items()},
                },
            },
            indent=2,
        )
        + "\n"
    )
    return visits


def all_visits(survey) -> list[PageVisit]:
    return [visit for found in survey.values() for visit in found]


def failing(problems: list[str], what: str) -> None:
    assert not problems, f"{len(problems)} {what}:\n  " + "\n  ".join(problems)


# ---------------------------------------------------------------------------------------------
# Loading: offline, no errors, a table of contents, links that lead somewhere


def test_the_book_has_its_pages(book_site, survey):
    pages = book_site.pages()
    for page in (FRONT, CHAPTER, CLAIM_PAGE, EXPLORER, METHOD, ECONOMICS):
        assert page in pages, f"{page} was not built"
    # The site's root (the book's sources lie in book/, as jupyter-book's layout has them) sends a
    # reader to the front page.
    assert 'url=book/index.html"' in (book_site.folder / "index.html").read_text()
    from claimbook.engine import load_registry

    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    assert len(pages) >= len(registry.chapters) + len(registry.page_claims())


def test_every_page_loads_offline_without_errors(survey):
    problems = []
    for visit in all_visits(survey):
        where = f"{visit.page} at {visit.viewport}"
        if visit.status != 200:
            problems.append(f"{where}: HTTP status {visit.status}")
        if visit.blocked:
            problems.append(f"{where}: requested outside hosts (blocked): {visit.blocked}")
        if visit.errors:
            problems.append(f"{where}: console warnings or errors: {visit.errors}")
        if visit.measured.get("headings", 0) < 1:
            problems.append(f"{where}: no <h1>")
        if visit.measured.get("navigation", 0) < 1:
            problems.append(f"{where}: no table of contents or previous/next links")
    failing(problems, "pages did not load cleanly offline")


def test_outside_requests_are_blocked_and_recorded(survey):
    """The harness itself: a request to another host fails and is recorded (".invalid" never
    resolves, so even without the proxy nothing would leave the machine). The page asks for it
    once loaded and measured (AFTER_MEASURING)."""
    probe = desktop_visit(survey, METHOD).acted["outside request"]
    assert "error" not in probe, probe["error"]
    assert probe["outcome"].startswith("failed"), probe["outcome"]
    assert probe["blocked"] == ["http://outside.invalid/probe"]


def test_every_in_book_link_leads_to_a_built_file(book_site, survey):
    problems, checked = [], 0
    ids_of: dict[Path, set[str]] = {}
    for visit in survey["desktop"]:
        url = book_site.base + visit.page
        for href in dict.fromkeys(visit.measured["links"]):
            target_url = urlparse(urljoin(url, href))
            if not is_loopback(urljoin(url, href)) or target_url.scheme not in ("http", "https"):
                continue  # outside links and mailto: are not followed
            target = book_site.folder / unquote(target_url.path).lstrip("/")
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if not target.is_file():
                problems.append(
                    f"{visit.page}: link {href!r} leads to no built file ({target.relative_to(book_site.folder)})"
                )
                continue
            if target_url.fragment and target.suffix == ".html":
                if target not in ids_of:
                    ids_of[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text(errors="replace")))
                if unquote(target_url.fragment) not in ids_of[target]:
                    problems.append(
                        f"{visit.page}: link {href!r} names #{target_url.fragment}, which "
                        f"{target.relative_to(book_site.folder)} does not have"
                    )
    assert checked > 100
    failing(problems, "in-book links lead nowhere")


# ---------------------------------------------------------------------------------------------
# Charts: drawn, labelled, with marks in every cell, their text inside and apart


def test_every_chart_is_drawn_with_marks(book_site, survey):
    problems, drawn = [], 0
    for visit in all_visits(survey):
        for chart in visit.measured["charts"]:
            where = f"{visit.page} at {visit.viewport}, chart {chart['index'] + 1} ({chart.get('title') or chart['id']})"
            if not chart["drawn"]:
                problems.append(f"{where}: not drawn (no svg.marks)")
                continue
            drawn += 1
            if chart["marks"] == 0:
                problems.append(f"{where}: draws no mark (svg.marks .role-mark > * is empty)")
            for cell in chart["emptyCells"]:
                problems.append(f"{where}: empty facet or concatenated view: {cell}")
            for mark in chart["invisible"]:
                problems.append(f"{where}: a mark cannot be seen: {mark}")
    in_html = sum(
        (book_site.folder / visit.page).read_text().count('class="claimbook-chart"')
        for visit in survey["desktop"]
    )
    assert drawn == in_html * len(VIEWPORTS), f"{drawn} charts drawn, the HTML has {in_html} per viewport"
    from claimbook.engine import load_registry

    registry = load_registry(ROOT / "data" / "claims", ROOT / "data" / "chapters.yaml")
    for name in registry.chapters:
        if not registry.chapter_claims(name):
            continue  # a page of the round (where_they_meet) need not draw a chart
        visit = next(v for v in survey["desktop"] if v.page == f"book/generated/{name}.html")
        assert visit.measured["charts"], f"chapter {name} has no chart"
    failing(problems, "charts are empty or draw a mark that cannot be seen")


def test_every_chart_is_labelled_and_has_its_data(survey):
    problems = []
    for visit in survey["desktop"]:
        charts = visit.measured["charts"]
        for chart in charts:
            where = f"{visit.page}, chart {chart['index'] + 1} ({chart.get('title') or chart['id']})"
            label = chart["label"]
            if chart["role"] != "figure" or len(label) < 40:
                problems.append(
                    f"{where}: role {chart['role']!r} and aria-label {label!r}: a chart is a figure "
                    "labelled with its title and a description"
                )
            if chart.get("drawnTitle") and not label.startswith(chart["drawnTitle"][:30]):
                problems.append(
                    f"{where}: the aria-label does not start with the chart's title "
                    f"{chart['drawnTitle'][:60]!r}: it reads {label[:90]!r}"
                )
            if not chart.get("drawnTitle"):
                problems.append(f"{where}: draws no title")
            if not chart["svgAction"]:
                problems.append(f"{where}: its menu offers no SVG export")
        if visit.measured["chartData"] != len(charts):
            problems.append(
                f"{visit.page}: {len(charts)} charts but {visit.measured['chartData']} "
                "'Data behind this chart' tables"
            )
    failing(problems, "charts lack a label, a title, an export or their data")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_chart_text_is_clipped_or_overlapping(survey, viewport):
    problems = []
    for visit in survey[viewport]:
        for chart in visit.measured["charts"]:
            where = (
                f"{visit.page} at {VIEWPORTS[viewport]['width']} px, chart {chart['index'] + 1} "
                f"{chart.get('title', '')[:70]!r}"
            )
            for clipped in chart.get("clipped", []):
                problems.append(f"{where}: {clipped['detail']}")
            for overlap in chart.get("overlaps", []):
                problems.append(f"{where}: {overlap}")
    failing(problems, f"chart texts are clipped by their SVG or overlap at {viewport} width")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_legend_label_is_truncated(survey, viewport):
    problems = []
    for visit in survey[viewport]:
        for chart in visit.measured["charts"]:
            for truncated in chart.get("truncated", []):
                problems.append(
                    f"{visit.page} at {VIEWPORTS[viewport]['width']} px, chart {chart['index'] + 1} "
                    f"{chart.get('title', '')[:70]!r}: {truncated['kind']} cut with an ellipsis: "
                    f"{truncated['text']!r}"
                )
    failing(problems, f"chart texts are truncated at {viewport} width")


# ---------------------------------------------------------------------------------------------
# The page never scrolls sideways; every table's last column can be reached


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_page_scrolls_sideways(survey, viewport):
    width = VIEWPORTS[viewport]["width"]
    problems = []
    for visit in survey[viewport]:
        if visit.measured["scrollWidth"] > width + 1:
            problems.append(
                f"{visit.page}: the page is {visit.measured['scrollWidth']} px wide at {width} px"
            )
        elif visit.measured["scrollWidthOpened"] > width + 1:
            problems.append(
                f"{visit.page}: the page becomes {visit.measured['scrollWidthOpened']} px wide at {width} px "
                "once its tables' <details> are opened"
            )
    failing(problems, f"pages scroll sideways at {width} px")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_every_table_s_caption_and_last_column_can_be_read(survey, viewport):
    problems, measured = [], 0
    for visit in survey[viewport]:
        for index, table in enumerate(visit.measured["tables"]):
            if table["hidden"]:
                continue
            measured += 1
            for problem in table["problems"]:
                problems.append(
                    f"{visit.page} at {VIEWPORTS[viewport]['width']} px, table {index + 1} "
                    f"{table['caption'][:70]!r} {problem}"
                )
    assert measured > 0
    failing(problems, f"tables whose caption or last column cannot be read at {viewport} width")


# ---------------------------------------------------------------------------------------------
# A reader on a laptop or a phone: tables that fit, the answer in view, the explorer ready,
# text as written, every claim a link


def test_no_table_is_wider_than_its_column_on_a_laptop(survey):
    """At 1400 px every table fits its content column: nothing to scroll sideways."""
    problems, measured = [], 0
    for visit in survey["desktop"]:
        for table in visit.measured["reader"]["tables"]:
            measured += 1
            if table["overflows"]:
                problems.append(
                    f"{visit.page}: table {table['caption']!r} is {table['content']} px wide in a column of "
                    f"{table['box']} px"
                )
    assert measured > 50
    failing(problems, "tables wider than their column at 1400 px")


def test_a_phone_shows_the_claim_verdict_and_measured_columns(survey):
    """At 390 px the columns a reader needs (claim, verdict, measured: any heading so named or
    holding a verdict badge) are in view without scrolling the table."""
    problems, needed = [], 0
    for visit in survey["phone"]:
        for table in visit.measured["reader"]["tables"]:
            for column in table["needed"]:
                needed += 1
                if not column["inView"]:
                    problems.append(
                        f"{visit.page}: table {table['caption']!r}, column {column['name']!r} spans "
                        f"{column['left']}-{column['right']} px: out of view at 390 px until the table is scrolled"
                    )
    assert needed > 20, "no table names a claim, verdict or measured column"
    failing(problems, "needed columns out of view on a phone")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_table_that_scrolls_says_so(survey, viewport):
    """A table wider than its box shows a visible cue before it: the reader knows there is more."""
    problems, scrolling = [], 0
    for visit in survey[viewport]:
        for table in visit.measured["reader"]["tables"]:
            if table["scrolls"]:
                scrolling += 1
                if not table["cue"]:
                    problems.append(
                        f"{visit.page}: table {table['caption']!r} scrolls ({table['content']} px in "
                        f"{table['box']} px) with no visible cue"
                    )
    if viewport == "phone":
        assert scrolling > 0, "no table scrolls at 390 px: the check saw nothing"
    failing(problems, f"tables that scroll without a cue at {viewport} width")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_explorer_opens_ready(survey, book_site, viewport):
    """The explorer's controls are on the first screen, above the chart; the chart's title says
    what is selected and its axis the unit; on a laptop the whole chart fits the screen; the
    controls are styled."""
    size = VIEWPORTS[viewport]
    visit = next(visit for visit in survey[viewport] if visit.page == EXPLORER)
    controls = visit.measured["reader"]["controls"]
    assert controls, f"{EXPLORER}: no chart with controls"
    first = controls[0]
    problems = []
    if first["bottom"] > size["height"]:
        problems.append(
            f"its controls end at {first['bottom']} px, below the first screen ({size['height']} px)"
        )
    if first["bottom"] > first["chartTop"] + 1:
        problems.append(
            f"its controls (down to {first['bottom']} px) are not above the chart ({first['chartTop']} px)"
        )
    if viewport == "desktop" and first["chartHeight"] > size["height"]:
        problems.append(
            f"the chart is {first['chartHeight']} px tall: it does not fit a {size['height']}-px screen"
        )
    if not first["styled"]:
        problems.append("its controls are unstyled (font under 14 px, no minimum height or square corners)")
    chosen = {item["name"]: item for item in first["selected"]}
    for name in ("benchmark", "scenario"):
        if name not in chosen:
            problems.append(f"no {name} control")
        elif chosen[name]["label"] not in first["title"]:
            problems.append(
                f"the chart's title {first['title']!r} does not say the {name} shown ({chosen[name]['label']!r})"
            )
    records = [
        record
        for page, spec in chart_specs(book_site)
        if page == EXPLORER
        for records in (spec.get("datasets") or {}).values()
        for record in records
    ]
    units = {
        record["units"]
        for record in records
        if record.get("benchmark") == chosen.get("benchmark", {}).get("value")
        and record.get("scenario") == chosen.get("scenario", {}).get("value")
    }
    axis = " ".join(first["axisTitles"])
    if not units or not any(unit in axis for unit in units):
        problems.append(
            f"the axis titles {first['axisTitles']} name no unit of the results shown ({sorted(units)})"
        )
    failing(problems, f"ways the explorer is not ready at {size['width']} px")


def test_no_raw_markup_in_the_text(survey):
    """No page shows markup meant for a machine: double backticks, a {raw} directive, a MyST
    role, stray ** or quotes Sphinx curled (registry text renders as written)."""
    allowed = source_quotes()
    problems = []
    for visit in survey["desktop"]:
        found = visit.measured["reader"]
        problems += [f"{visit.page}: {markup}" for markup in found["markup"]]
        curled = sorted(set(found["curly"]) - allowed)
        if curled:
            problems.append(
                f"{visit.page}: typographic quotes {curled} the sources do not have (smart quotes): "
                f"...{found['curlyContext']}..."
            )
    failing(problems, "raw markup in the pages' text")


def test_every_claim_a_page_names_is_a_link(survey):
    """Where a page names a claim (its id, or its title alone in a cell or a line), the name is a
    link to the claim's card."""
    problems = []
    for visit in survey["desktop"]:
        problems += [f"{visit.page}: {item}" for item in visit.measured["reader"]["unlinked"]]
    failing(problems, "claims named without a link")


def test_every_link_has_a_label(survey):
    problems = []
    for visit in survey["desktop"]:
        problems += [f"{visit.page}: link {item}" for item in visit.measured["reader"]["unlabelled"]]
    failing(problems, "links without a label (a number or nothing)")


def test_the_front_page_ledger_is_a_line_a_claim(survey):
    """On a laptop the ledger gives each claim one line (two if its title wraps); its details
    open on a click."""
    visit = next(visit for visit in survey["desktop"] if visit.page == FRONT)
    ledger = visit.measured["reader"]["ledger"]
    assert len(ledger) == len([claim for claim in named_claims() if claim["top"]]), (
        f"the front page lists {len(ledger)} claims in its ledger"
    )
    tall = [f"{item['id']}: {item['height']} px" for item in ledger if item["height"] > 64]
    failing(tall, "ledger lines taller than two lines of text at 1400 px")


# ---------------------------------------------------------------------------------------------
# One colour and one shape per accelerator family across the book

SPEC = re.compile(r"^\s*var spec = (\{.*\});\s*$", re.MULTILINE)
COLOUR_CHANNELS = ("color", "fill", "stroke")


def chart_specs(site: Site) -> list[tuple[str, dict]]:
    """Every chart's Vega-Lite spec, as the page's inline script holds it."""
    found = []
    for page in site.pages():
        text = (site.folder / page).read_text(encoding="utf-8")
        found += [(page, json.loads(match.group(1))) for match in SPEC.finditer(text)]
    return found


def _title(spec: dict) -> str:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(title)
    return str(title or "untitled")


def _family_encodings(spec: dict):
    """(channel, encoding) for every channel of the spec and its layers that encodes ``family``."""
    stack = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for channel, encoding in (node.get("encoding") or {}).items():
                if isinstance(encoding, dict) and encoding.get("field") == "family":
                    yield channel, encoding
            stack += [
                value for key, value in node.items() if key != "encoding" and isinstance(value, (dict, list))
            ]
        elif isinstance(node, list):
            stack += node


def _families_in_data(spec: dict) -> set[str]:
    return {
        str(record["family"])
        for records in (spec.get("datasets") or {}).values()
        for record in records
        if isinstance(record, dict) and "family" in record
    }


def test_one_colour_and_one_shape_per_accelerator_family(book_site, survey):
    seen = {"colour": defaultdict(dict), "shape": defaultdict(dict)}  # kind -> family -> value -> [where]
    problems, scales = [], 0
    for page, spec in chart_specs(book_site):
        where = f"{page}, chart {_title(spec)[:70]!r}"
        encoded = list(_family_encodings(spec))
        if not encoded:
            continue
        channels = {channel for channel, _ in encoded}
        if not channels & set(COLOUR_CHANNELS):
            problems.append(f"{where}: encodes the accelerator family without a colour")
        for channel, encoding in encoded:
            kind = "colour" if channel in COLOUR_CHANNELS else "shape" if channel == "shape" else None
            if kind is None:
                continue
            scale = encoding.get("scale") or {}
            domain, values = scale.get("domain"), scale.get("range")
            if not isinstance(domain, list) or not isinstance(values, list) or len(values) < len(domain):
                problems.append(
                    f"{where}: the {channel} of the family has no explicit domain and range "
                    f"(it would take the default palette): {scale}"
                )
                continue
            scales += 1
            missing = _families_in_data(spec) - set(domain)
            if missing:
                problems.append(
                    f"{where}: families {sorted(missing)} are in the data but not in the {channel} domain"
                )
            for family, value in zip(domain, values):
                seen[kind][family].setdefault(value, []).append(where)
    for kind, families in seen.items():
        for family, values in sorted(families.items()):
            if len(values) > 1:
                problems.append(
                    f"{family} has {len(values)} {kind}s: "
                    + "; ".join(
                        f"{value} on {places[0]} (and {len(places) - 1} more)"
                        for value, places in values.items()
                    )
                )
    looks = defaultdict(list)
    for family in seen["colour"].keys() | seen["shape"].keys():
        colour = next(iter(seen["colour"].get(family, {None: 0})))
        shape = next(iter(seen["shape"].get(family, {None: 0})))
        looks[(colour, shape)].append(family)
    for (colour, shape), families in looks.items():
        if len(families) > 1:
            problems.append(f"families {sorted(families)} share colour {colour} and shape {shape}")
    assert scales > 0, "no chart colours its marks by accelerator family"
    failing(problems, "accelerator families are drawn inconsistently")


# ---------------------------------------------------------------------------------------------
# The explorer's widgets, the downloads, the screenshots


def _marks_of(page, chart_index: int = 0) -> list[tuple]:
    return page.evaluate(
        """(index) => {
             const svg = document.querySelectorAll('.claimbook-chart svg.marks')[index];
             return [...svg.querySelectorAll('.role-mark > *')].map(m => {
               const r = m.getBoundingClientRect(); return [Math.round(r.x), Math.round(r.y)]; });
           }""",
        chart_index,
    )


def probe_outside(browser: Browser, folder: Path) -> dict:
    """A request to another host from the loaded page: how it ended and what was recorded."""
    outcome = browser.page.evaluate(
        "fetch('http://outside.invalid/probe').then(() => 'loaded', error => 'failed: ' + error.message)"
    )
    return {"outcome": outcome, "blocked": list(browser.blocked)}


def choose_benchmarks(browser: Browser, folder: Path) -> dict:
    """The explorer's first chart: its benchmark <select>, its marks, and its marks and the
    page's errors after each of three other choices."""
    page = browser.page
    select = page.locator(".claimbook-chart").first.locator("select[name='benchmark']")
    found = {"selects": select.count()}
    if found["selects"] != 1:
        return found
    found["options"] = select.locator("option").evaluate_all("options => options.map(option => option.value)")
    found["current"] = select.input_value()
    found["before"] = _marks_of(page)
    found["changes"] = []
    for choice in [option for option in found["options"] if option != found["current"]][:3]:
        select.select_option(choice)
        page.wait_for_timeout(150)
        after = _marks_of(page)
        found["changes"].append((choice, len(after), after != found["before"], list(browser.errors)))
    return found


def download(selector: str, name: str):
    """The action of clicking the page's first link matching SELECTOR and saving what it
    downloads as NAME: how many links matched, where it was saved, what was blocked by then."""

    def act(browser: Browser, folder: Path) -> dict:
        link = browser.page.locator(selector).first
        found = {"links": link.count()}
        if found["links"] == 1:
            with browser.page.expect_download() as started:
                link.click()
            found["saved"] = folder / name
            started.value.save_as(found["saved"])
        found["blocked"] = list(browser.blocked)
        return found

    return act


def acted(action, browser: Browser, folder: Path) -> dict:
    """ACTION's findings, or the browser's error (a timeout, a closed page) as ``error``."""
    try:
        return action(browser, folder)
    except PlaywrightError as error:
        return {"error": f"{type(error).__name__}: {error}"}


# The files each page offers for download, and how each starts.
DOWNLOADS = {
    FRONT: (("scorecard.csv", "announcement,claim,"), ("scorecard.json", "[")),
    ECONOMICS: (("costs.csv", "organization,"),),
}
# What a reader does on a page at 1400 px once the survey measured and pictured it, by page and
# action (in order): done on the page as loaded, not on a second load of it.
AFTER_MEASURING = {
    METHOD: {"outside request": probe_outside},
    EXPLORER: {
        "benchmark widget": choose_benchmarks,
        "round.csv": download("a.download[href$='round.csv']", "round.csv"),
    },
    **{
        page: {name: download(f"a.download[href$='/{name}']", name) for name, _ in files}
        for page, files in DOWNLOADS.items()
    },
}


def desktop_visit(survey, page: str) -> PageVisit:
    visit = next((visit for visit in survey["desktop"] if visit.page == page), None)
    assert visit is not None, f"{page} was not surveyed"
    return visit


def test_the_explorer_s_benchmark_widget_redraws_and_its_csv_downloads(survey):
    visit = desktop_visit(survey, EXPLORER)
    assert (visit.status, visit.blocked, visit.errors) == (200, [], [])
    widget = visit.acted["benchmark widget"]
    assert "error" not in widget, widget["error"]
    assert widget["selects"] == 1, (
        "the explorer's first chart has no benchmark <select> bound to its parameter"
    )
    options, current = widget["options"], widget["current"]
    assert len(options) >= 3 and current in options
    before = widget["before"]
    assert before, "the explorer draws nothing for its first benchmark"
    for choice, _, _, errors in widget["changes"]:
        assert errors == [], f"choosing {choice} logged {errors}"
    changes = [(choice, marks, changed) for choice, marks, changed, _ in widget["changes"]]
    assert any(changed for _, _, changed in changes), (
        f"choosing another benchmark did not change the marks ({len(before)} marks for {current}): {changes}"
    )

    link = visit.acted["round.csv"]
    assert "error" not in link, link["error"]
    assert link["links"] == 1, "the explorer has no round.csv download link"
    header = link["saved"].read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("round,organization,"), header
    from claimbook.inputs.results import load_results

    expected = list(load_results(ROOT / "data" / "mlperf" / "v6.1.csv").columns)
    assert header.split(",")[: len(expected)] == expected[: len(header.split(","))]
    assert link["blocked"] == []


def test_scorecard_and_costs_download(survey):
    for page, downloads in DOWNLOADS.items():
        visit = desktop_visit(survey, page)
        assert (visit.status, visit.blocked, visit.errors) == (200, [], []), page
        for name, start in downloads:
            found = visit.acted[name]
            assert "error" not in found, f"{name} from {page}: {found['error']}"
            assert found["links"] == 1, f"{page} has no {name} download"
            text = found["saved"].read_text(encoding="utf-8")
            assert text.lstrip().startswith(start), f"{name} from {page} starts {text[:80]!r}"


def test_screenshots_for_readers_and_phones(survey):
    for page, name in SCREENSHOT_PAGES.items():
        for suffix in ("", "-phone"):
            for variant in ("", "-full") if WHOLE_PAGES else ("",):
                path = ARTIFACTS / f"{name}{suffix}{variant}.png"
                assert path.is_file() and path.stat().st_size > 10_000, f"{path} was not written for {page}"
    update = os.environ.get("CLAIMBOOK_UPDATE_SCREENSHOTS")
    for page, name in DOCS_SCREENSHOTS.items():
        for suffix in ("", "-phone"):
            made = ARTIFACTS / "docs" / f"{name}{suffix}.png"
            assert 10_000 < made.stat().st_size < DOCS_SCREENSHOT_LIMIT, (
                f"{made} is {made.stat().st_size} bytes"
            )
            if update:
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                shutil.copy2(made, SCREENSHOTS / made.name)
            committed = SCREENSHOTS / made.name
            assert committed.is_file(), f"{committed} is missing (run with CLAIMBOOK_UPDATE_SCREENSHOTS=1)"
            assert committed.stat().st_size < DOCS_SCREENSHOT_LIMIT


# The explorer's first chart: where its controls, axis and legend end, and how tall the page is.
EXPLORER_FIRST_SCREEN = """() => {
  const chart = document.querySelector('.claimbook-chart');
  const bottom = (node) => node ? node.getBoundingClientRect().bottom + window.scrollY : null;
  return {
    controls: bottom(chart.querySelector('.vega-bindings')),
    axis: bottom(chart.querySelector('svg [aria-roledescription=axis]')),
    legend: bottom(chart.querySelector('svg [aria-roledescription=legend]')),
    marks: Math.min(...Array.from(chart.querySelectorAll('svg .mark-symbol path'), bottom)),
    height: document.documentElement.scrollHeight,
  };
}"""
# The page with its table of every result folded: a few screens, not tens of thousands of px.
EXPLORER_MOST_HEIGHT = 6_000


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_explorer_s_first_screen_holds_its_controls_axis_legend_and_marks(chromium, book_site, viewport):
    """At 1400 and at 390 px the first screen holds the explorer's controls, its chart's axis and
    legend (drawn above the marks) and its best result; the table of every result is folded."""
    size = VIEWPORTS[viewport]
    browser = Browser(chromium, size)
    try:
        status, blocked, errors = browser.load(book_site.base + EXPLORER)
        assert (status, blocked, errors) == (200, [], [])
        found = browser.page.evaluate(EXPLORER_FIRST_SCREEN)
    finally:
        browser.close()
    for part in ("controls", "axis", "legend", "marks"):
        assert found[part] is not None, f"the explorer's first chart has no {part}"
        assert found[part] <= size["height"], (
            f"its {part} end at {found[part]} px, below the first screen: {found}"
        )
    assert found["height"] <= EXPLORER_MOST_HEIGHT, f"the explorer is {found['height']} px tall"
