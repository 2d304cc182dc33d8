"""What a reader sees: every page of both built editions in headless Chromium, at a desktop width
(1280 px) and a phone's (390 px): formulas typeset by MathJax (served by the book: the browser
here, as in CI, reaches nothing else); nothing running off the text column (see OVERFLOW); every
resource from the book and loaded, the favicon included; each figure's smallest text (its PNG's
``min-text-px`` tEXt chunk) legible; in the system's dark theme, figures on a white card; search
results that quote the page. Each page is loaded once per width with its <details>, dropdowns and
hidden cells opened; a screenshot and what was measured go to _build/screenshots/ (CI uploads
them). BOOK_HTML and BOOK_SCREENSHOTS check another build. Console errors and the links between
the editions: test_book.py.
"""

import functools
import json
import os
import re
import struct
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from support import ROOT, toc_files

SHOTS = Path(os.environ.get("BOOK_SCREENSHOTS") or ROOT / "_build" / "screenshots")
DESKTOP, PHONE = 1280, 390
WIDTHS = (DESKTOP, PHONE)
# a figure's smallest text, in CSS px: on a phone the whole figure fits the column (a tap opens
# it at full size), its text smaller but sharp on a phone's dense screen
MIN_FIGURE_TEXT_PX = {DESKTOP: 11, PHONE: 8}
PAGES = [("en", p) for p in toc_files()] + [("ko", p) for p in toc_files("ko")]
VIEWS = [(edition, page, width) for edition, page in PAGES for width in WIDTHS]
IDS = [f"{e}-{p}-{w}" for e, p, w in VIEWS]
# the output images: figures from the notebooks' cells (not logos, badges or the favicon)
FIGURES = ".bd-article .cell_output img, .bd-article div.output img"


def url_of(site, edition, page):
    return f"{site}/{'ko/' if edition == 'ko' else ''}{page}.html"


def slug(edition, page, width, suffix=""):
    return f"{edition}-{page.replace('/', '-')}-{width}{suffix}"


# --- the measurements, in the page -----------------------------------------------------------

OPEN_AND_SETTLE = """async () => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden, .toggle-details__container').forEach(
      e => e.classList.remove('toggle-hidden'));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  await document.fonts.ready;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await new Promise(r => setTimeout(r, 150));
}"""

MATH = r"""() => {
  const nodes = [...document.querySelectorAll('span.math, div.math')];
  const raw = nodes.filter(n => !n.querySelector('mjx-container'));
  return {count: nodes.length, untypeset: raw.map(n => n.textContent.trim().slice(0, 80))};
}"""

# The visible text outside code (code shows TeX or dollars verbatim on purpose).
VISIBLE_PROSE = """() => {
  const style = document.createElement('style');
  style.textContent = 'pre, code, .highlight, mjx-assistive-mml { display: none !important; }';
  document.head.appendChild(style);
  const text = document.body.innerText;
  style.remove();
  return text;
}"""

# An element past the column's edge must sit in a scroll box (overflow-x auto or scroll) within
# the column, which shows that it scrolls (the book's fading mask, book/_static/reader.css, or a
# local background gradient), keeps its scrollbar, and changes its mask when scrolled to its end.
# Only code, tables, HTML outputs and display math may scroll; printed output wraps instead.
OVERFLOW = """async () => {
  const article = document.querySelector('main .bd-article') || document.querySelector('article');
  const vw = document.documentElement.clientWidth;
  const col = article.getBoundingClientRect();
  const left = Math.max(col.left, 0), right = Math.min(col.right, vw);
  const describe = el => {
    const cls = typeof el.className === 'string' && el.className.trim() ?
      '.' + el.className.trim().split(/\\s+/).join('.') : '';
    const text = (el.innerText || el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
    return `<${el.tagName.toLowerCase()}${cls}> "${text}"`;
  };
  const scrolls = el => {
    const o = getComputedStyle(el).overflowX;
    return (o === 'auto' || o === 'scroll') && el.scrollWidth > el.clientWidth + 1;
  };
  const within = r => r.right <= right + 1 && r.left >= left - 1;
  const problems = [], boxes = new Set(), reported = [];
  // an element's own text (a stream's <pre> holds only text) can pass its box's edge too
  const ownText = el => [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
  for (const el of article.querySelectorAll('*')) {
    if (el.closest('mjx-assistive-mml')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (reported.some(p => p.contains(el))) continue;
    const o = getComputedStyle(el).overflowX;
    const wider = el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1;
    if (wider && (o === 'auto' || o === 'scroll')) {
      if (within(r)) boxes.add(el);   // it scrolls its own content (checked for a cue below)
    } else if (wider && (o === 'hidden' || o === 'clip') && ownText(el)) {
      problems.push(`${describe(el)}: its text is cut off by ${el.scrollWidth - el.clientWidth} px (overflow hidden)`);
      reported.push(el);
      continue;
    }
    const extent = wider && o === 'visible' && ownText(el) ? r.left + el.scrollWidth : r.right;
    if (extent <= right + 1 && r.left >= left - 1) continue;
    let box = null, clip = null;
    for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
      if (scrolls(a)) { box = a; break; }
      const o = getComputedStyle(a).overflowX;
      if (o === 'hidden' || o === 'clip') { clip = a; break; }
    }
    if (box && within(box.getBoundingClientRect())) { boxes.add(box); continue; }
    if (box) continue;   // its scroll box is itself too wide: reported as that box
    const by = Math.round(Math.max(extent - right, left - r.left));
    problems.push(clip ? `${describe(el)} is cut off by ${by} px by ${describe(clip)} (overflow hidden)`
                       : `${describe(el)} runs ${by} px past the column, in no scroll box`);
    reported.push(el);
  }
  const masked = el => {
    const cs = getComputedStyle(el);
    return [cs.maskImage, cs.webkitMaskImage].filter(m => m && m.includes('gradient')).join(' ');
  };
  // what may scroll: code (not printed output: it wraps), tables, HTML outputs, display math
  const MAY_SCROLL = 'pre, .highlight, .pst-scrollable-table-container, table, ' +
                     '.cell_output .output.text_html, div.math, div.math mjx-container';
  const cues = [], ends = [];
  for (const box of boxes) {
    const cs = getComputedStyle(box);
    const shadow = cs.backgroundImage.includes('gradient') && cs.backgroundAttachment.includes('local');
    const start = masked(box);
    cues.push({box: describe(box), width: box.clientWidth, content: box.scrollWidth,
               mask: Boolean(start), shadow, scrollbar: cs.scrollbarWidth,
               listing: box.matches('div.highlight pre') && !box.closest('.cell_output')});
    if (!start && !shadow)
      problems.push(`${describe(box)} scrolls (${box.scrollWidth} px in ${box.clientWidth}) with no cue`);
    if (cs.scrollbarWidth === 'none')
      problems.push(`${describe(box)} scrolls with its scrollbar hidden`);
    if (start) ends.push([box, start, box.scrollLeft]);
    if (box.closest('.cell_output .output:not(.text_html)') && box.closest('pre'))
      problems.push(`${describe(box)}: printed output scrolls sideways instead of wrapping`);
    else if (!box.matches(MAY_SCROLL))
      problems.push(`${describe(box)} scrolls: only code, tables, display math and figures may`);
  }
  for (const [box] of ends) box.scrollLeft = box.scrollWidth;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await new Promise(r => setTimeout(r, 50));
  for (const [box, start, was] of ends) {
    if (masked(box) === start)
      problems.push(`${describe(box)}: scrolled to its end it still fades the same edge`);
    box.scrollLeft = was;
  }
  const page = document.scrollingElement;
  if (page.scrollWidth > window.innerWidth + 1)
    problems.push(`the page scrolls sideways: ${page.scrollWidth} px wide in a ${window.innerWidth} px window`);
  return {problems, scroll_boxes: cues, column: [Math.round(left), Math.round(right)]};
}"""

IMAGES = """(selector) => [...document.querySelectorAll(selector)].map(img => {
  const cs = getComputedStyle(img);
  const pad = ['paddingLeft', 'paddingRight', 'borderLeftWidth', 'borderRightWidth']
    .reduce((sum, k) => sum + parseFloat(cs[k] || 0), 0);
  return {src: img.currentSrc || img.src, shown: img.getBoundingClientRect().width - pad,
          natural: img.naturalWidth, loaded: img.complete && img.naturalWidth > 0};
})"""


# --- PNG text chunks ---------------------------------------------------------------------------

def png_text(data: bytes) -> dict:
    """The tEXt chunks of a PNG, keyword to text (none when it is not a PNG)."""
    out, pos = {}, 8
    while data[:8] == b"\x89PNG\r\n\x1a\n" and pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body, pos = data[pos + 8:pos + 8 + length], pos + 12 + length
        if kind == b"tEXt":
            key, _, text = body.partition(b"\0")
            out[key.decode("latin-1")] = text.decode("latin-1")
    return out


@functools.lru_cache(maxsize=None)
def _image_bytes(url):
    with urllib.request.urlopen(url) as response:
        return response.read()


def figure_text(images, where):
    """For each figure: its smallest text as shown, in CSS px (None: the PNG does not say)."""
    out = []
    for img in images:
        name = img["src"].rsplit("/", 1)[-1]
        entry = {"image": name, "shown_px": round(img["shown"], 1), "natural_px": img["natural"]}
        if not img["loaded"]:
            entry["problem"] = f"{where}: figure {name} did not load"
        elif "min-text-px" not in (chunks := png_text(_image_bytes(img["src"]))):
            entry["problem"] = (f"{where}: figure {name} has no 'min-text-px' tEXt chunk (its "
                                "smallest font size in image pixels): re-make the figure as a PNG")
        else:
            entry["min_text_px"] = smallest = float(chunks["min-text-px"])
            entry["shown_text_px"] = round(img["shown"] / img["natural"] * smallest, 2)
        out.append(entry)
    return out


# --- one load per page and width, shared by the tests below ------------------------------------

@pytest.fixture(scope="module")
def view(site, browser):
    """load(edition, page, width): the page's report, measured once. One tab per width serves
    every page (its HTTP cache too: a resource is checked by the first page that requests it)."""
    seen, tabs = {}, {}

    def tab(width):
        if width not in tabs:
            ctx = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
            state = {"outside": [], "failed": []}
            # nothing but the book is reachable here, nor in CI: refuse the rest, and say so
            # (a pattern, so that the browser asks Python only about those)
            ctx.route(re.compile(r"^(?!" + re.escape(site.url) + r"/)[a-z]+://.*"),
                      lambda r: (state["outside"].append(r.request.url), r.abort()))
            pg = ctx.new_page()
            # (ERR_ABORTED: a request cut short by the next navigation, not a failure)
            pg.on("requestfailed", lambda r: r.url.startswith(site.url) and
                  "ERR_ABORTED" not in (r.failure or "") and
                  state["failed"].append(f"{r.url}: {r.failure}"))
            pg.on("response", lambda r: r.status >= 400 and
                  state["failed"].append(f"{r.url}: HTTP {r.status}"))
            tabs[width] = ctx, pg, state
        return tabs[width]

    def load(edition, page, width):
        if (edition, page, width) in seen:
            return seen[edition, page, width]
        _, pg, state = tab(width)
        state["outside"].clear()
        state["failed"].clear()
        site.requests.clear()
        url = url_of(site.url, edition, page)
        response = pg.goto(url, wait_until="load")
        pg.evaluate(OPEN_AND_SETTLE)
        pg.wait_for_load_state("networkidle")
        where = f"{edition} {page} at {width} px"
        report = {"page": url.removeprefix(site.url), "width": width, "status": response.status,
                  "math": pg.evaluate(MATH)}
        report.update(pg.evaluate(OVERFLOW))
        report["figures"] = figure_text(pg.evaluate(IMAGES, FIGURES), where)
        report["prose"] = pg.evaluate(VISIBLE_PROSE)
        failed = state["failed"] + [f"{site.url}{path}: HTTP {int(status)}"
                                    for path, status in site.requests
                                    if isinstance(status, int) and status >= 400]
        # The browser asks for the favicon late, if at all while a test watches: ask for it here.
        # A page that names none makes the browser try /favicon.ico, which the site lacks.
        icons = pg.eval_on_selector_all('link[rel~="icon"]', "links => links.map(l => l.href)")
        if not icons:
            failed.append(f"{url}: names no favicon (<link rel=icon>): browsers ask for "
                          "/favicon.ico, which is not there (404)")
        for icon in icons:
            try:
                _image_bytes(icon)
            except OSError as exc:
                failed.append(f"{icon} (favicon): {exc}")
        report["failed"] = sorted(set(failed))
        report["outside"] = sorted(set(state["outside"]))
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / f"{slug(edition, page, width)}.png"), full_page=True,
                      animations="disabled")
        (SHOTS / f"{slug(edition, page, width)}.json").write_text(
            json.dumps({k: v for k, v in report.items() if k != "prose"}, indent=1,
                       ensure_ascii=False), encoding="utf-8")
        seen[edition, page, width] = report
        return report

    yield load
    for ctx, _, _ in tabs.values():
        ctx.close()


RAW_TEX = re.compile(r"\\\(|\\\[|\$\$|\$[^\s$][^$\n]{0,80}\$")


@pytest.mark.parametrize("edition, page, width", VIEWS, ids=IDS)
def test_every_formula_is_typeset(view, edition, page, width):
    """Every math node (span.math, div.math: `$…$`, `$$…$$`, {math} and MathJax's own `\\(…\\)`)
    holds MathJax's output, and no TeX delimiter is left in the visible text outside code."""
    report = view(edition, page, width)
    math = report["math"]
    assert not math["untypeset"], (f"{report['page']}: {len(math['untypeset'])} of {math['count']} "
                                   f"formulas not typeset, e.g. {math['untypeset'][:3]}")
    raw = sorted({m.group(0)[:40] for m in RAW_TEX.finditer(report["prose"])})
    assert not raw, f"{report['page']}: raw TeX in the text a reader sees: {raw[:5]}"


@pytest.mark.parametrize("edition, page, width", VIEWS, ids=IDS)
def test_nothing_runs_off_the_page(view, edition, page, width):
    """Only code, tables, wide outputs and display math may be wider than the column, each in a
    box of its own that scrolls and shows that it does (see OVERFLOW)."""
    report = view(edition, page, width)
    assert not report["problems"], f"{report['page']} at {width} px:\n  " + "\n  ".join(report["problems"])
    # a listing's lines (82 characters at most: test_listing.py) fit at 1280 px, in dropdowns too
    cut = [b["box"] for b in report["scroll_boxes"] if b["listing"] and width == DESKTOP]
    assert not cut, f"{report['page']}: listings that scroll at {width} px: {cut}"


@pytest.mark.parametrize("edition, page, width", VIEWS, ids=IDS)
def test_every_resource_comes_from_the_book_and_loads(view, edition, page, width):
    report = view(edition, page, width)
    assert not report["outside"], (f"{report['page']} loads from outside the book (blocked here "
                                   f"and in CI): {report['outside']}")
    assert not report["failed"], f"{report['page']}: failed requests: {report['failed']}"


@pytest.mark.parametrize("edition, page, width", VIEWS, ids=IDS)
def test_the_smallest_figure_text_is_legible(view, edition, page, width):
    """Every figure's smallest text (shown width / natural width x min-text-px) is shown at
    MIN_FIGURE_TEXT_PX at that width or more."""
    report, smallest = view(edition, page, width), MIN_FIGURE_TEXT_PX[width]
    problems = [f["problem"] for f in report["figures"] if "problem" in f]
    problems += [f"{edition} {page} at {width} px: figure {f['image']}: smallest text shown at "
                 f"{f['shown_text_px']} px (< {smallest}): {f['min_text_px']} px in the "
                 f"image, shown at {f['shown_px']} of its {f['natural_px']} px"
                 for f in report["figures"] if f.get("shown_text_px", smallest) < smallest]
    assert not problems, "\n".join(problems)


# --- the theme follows the system setting; figures in the dark theme ---------------------------

DARK_CHECK = """(selector) => ({
  theme: document.documentElement.dataset.theme,
  mode: document.documentElement.dataset.mode,
  figures: [...document.querySelectorAll(selector)].map(img => {
    const cs = getComputedStyle(img);
    return {background: cs.backgroundColor, filter: cs.filter, radius: cs.borderTopLeftRadius};
  }),
})"""

THEME_PAGES = [("en", "notebooks/01_halo_regions"), ("ko", "notebooks/01_halo_regions")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("edition, page", THEME_PAGES, ids=[e for e, _ in THEME_PAGES])
def test_the_theme_follows_the_system_setting(site, browser, edition, page, scheme):
    """A first visit (nothing stored) in a browser set to dark shows the dark theme, with no
    console error; its figures sit on a white card with rounded corners, undimmed."""
    ctx = browser.new_context(viewport={"width": DESKTOP, "height": 900}, color_scheme=scheme)
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(site.url) else r.abort())
    pg = ctx.new_page()
    errors = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(url_of(site.url, edition, page), wait_until="load")
    pg.evaluate(OPEN_AND_SETTLE)
    state = pg.evaluate(DARK_CHECK, FIGURES)
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{slug(edition, page, DESKTOP, '-' + scheme)}.png"), full_page=True)
    ctx.close()
    assert not errors, errors
    assert (state["mode"], state["theme"]) == ("auto", scheme), (
        f"{page}: a first visit with the system set to {scheme} shows mode {state['mode']!r}, "
        f"theme {state['theme']!r} (expected 'auto', {scheme!r}: html_context default_mode)")
    if scheme == "dark":
        assert state["figures"], f"{page} has no figure to look at"
        for fig in state["figures"]:
            assert fig["background"] == "rgb(255, 255, 255)" and fig["filter"] == "none" \
                and fig["radius"] not in ("", "0px"), \
                f"{page}: in the dark theme a figure is not on a white, rounded, undimmed card: {fig}"


# --- search results quote the page ---------------------------------------------------------------

SEARCH = """async () => {
  for (let i = 0; i < 100 && !document.querySelector('#search-results p.context'); i++)
    await new Promise(r => setTimeout(r, 100));
  await new Promise(r => setTimeout(r, 500));
  return [...document.querySelectorAll('#search-results li')].map(li => ({
    href: li.querySelector('a').href, summary: (li.querySelector('p.context') || {}).textContent}));
}"""

# what a summary would keep of a formula that plainTeX did not turn into text
LEFTOVER = re.compile(r"\\|\b(dots|lfloor|rfloor|bmod)\b|\^\{")


# the page as the search fetches it: its HTML, before any script (MathJax) has changed it
ARTICLE_TEXT = """async (href) => {
  const doc = new DOMParser().parseFromString(await (await fetch(href)).text(), 'text/html');
  doc.querySelectorAll('.headerlink, script, style').forEach(e => e.remove());
  return (window.plainArticle(doc) || doc.body).textContent;
}"""


@pytest.mark.parametrize("edition, query", [("en", "halo"), ("ko", "헤일로")])
def test_search_summaries_quote_the_page_text(site, browser, edition, query):
    """Each result's summary is a piece of its page's article, not of the header's buttons
    (".ipynb", ".pdf") or the page's table of contents ("....pdf Halo regions Contents"), with
    its formulas as plain text ("N = 2^24"), not TeX, and no code cell's source."""
    ctx = browser.new_context(viewport={"width": DESKTOP, "height": 900})
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(site.url) else r.abort())
    pg = ctx.new_page()
    base = f"{site.url}/{'ko/' if edition == 'ko' else ''}search.html"
    pg.goto(f"{base}?q={urllib.parse.quote(query)}", wait_until="load")
    results = pg.evaluate(SEARCH)
    pg.wait_for_load_state("networkidle")
    results = pg.evaluate(SEARCH)
    assert results, f"no result for {query!r}"
    assert pg.evaluate(r"plainTeX('|y[i] - \\text{기준값}[i]|, x_{i+1}, \\dots')") == "|y[i] - 기준값[i]|, x_i+1, …"
    squash = lambda s: re.sub(r"\s+", " ", s or "").strip()  # noqa: E731
    bad = []
    for r in results:
        if not r["summary"]:
            continue
        text = squash(pg.evaluate(ARTICLE_TEXT, r["href"].split("#")[0]))
        quoted = squash(r["summary"]).removeprefix("...").removesuffix("...").strip()
        if quoted not in text or RAW_TEX.search(quoted) or LEFTOVER.search(quoted):
            bad.append(f"{r['href']}: {squash(r['summary'])[:100]!r}")
    ctx.close()
    assert not bad, "summaries that are not the page's text:\n  " + "\n  ".join(bad)
