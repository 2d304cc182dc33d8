"""The book: its table of contents, its notebooks' provenance, its widgets, its pages' Python
snippets, and the built HTML rendered in headless Chromium."""

import re
import urllib.parse
import urllib.request

import nbformat
import pytest

import kernels
from kernels.publish import notebooks as nbtools
from kernels.teach import widgets
from kernels.teach.plots import draw_tiles
from support import HTML, ROOT, toc_files


# Both editions' pages as paths below the repository root and the site: ko/ holds the Korean one.
BOTH_EDITIONS = toc_files() + [f"ko/{page}" for page in toc_files("ko")]


def counterpart(page):
    """The page of the other edition that a page's language link must open."""
    if page.startswith("ko/"):
        return page[3:] if page[3:] in toc_files() else toc_files()[0]
    return f"ko/{page}" if page in toc_files("ko") else f"ko/{toc_files('ko')[0]}"


def test_every_finished_notebook_is_in_the_book_and_no_draft_is():
    """Drafts (outputs not yet from a GPU) stay out of the book; every other notebook is in it."""
    listed = {p for p in toc_files() if p.startswith("notebooks/")}
    assert listed == {f"notebooks/{p.stem}" for p in nbtools.notebooks()
                      if "draft" not in nbformat.read(p, as_version=4).metadata.get("async_copy_book", {})}


@pytest.mark.parametrize("path", nbtools.notebooks(), ids=lambda p: p.name)
def test_stored_outputs_come_from_a_gpu_run(path):
    """What the book publishes ran on a GPU; a notebook whose outputs come from the CPU
    emulation must be marked a draft (and is then kept out of the book, test above)."""
    nb = nbformat.read(path, as_version=4)
    meta = nb.metadata.get("async_copy_book", {})
    ran = meta.get("executed_on", {})
    if ran.get("backend") != "gpu":
        assert "draft" in meta, f"{path.name}: outputs not from a GPU run and not marked a draft"
        return
    assert "draft" not in meta
    for key in ("device", "driver", "cupy", "date", "compute_capability"):
        assert ran.get(key), f"{path.name}: executed_on lacks {key}"
    assert all(c.execution_count is not None for c in nb.cells if c.cell_type == "code"), \
        f"{path.name}: a code cell was never executed"


def widget_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and "widgets.explore_" in c.source]


@pytest.mark.parametrize("path", [p for p in nbtools.notebooks()
                                  if widget_cells(nbformat.read(p, as_version=4))],
                         ids=lambda p: p.name)
def test_every_widget_cell_stores_a_picture_of_its_default_state(path):
    """The published page is static: each widget cell's stored output holds the figure its
    controls show at their defaults (and no live widget view, which a static page cannot show)."""
    nb = nbformat.read(path, as_version=4)
    for cell in widget_cells(nb):
        assert "remove-output" not in cell.metadata.get("tags", []), cell.source
        kinds = [set(o.get("data", {})) for o in cell.outputs]
        assert any("image/png" in k for k in kinds), f"{path.name}: no picture in {cell.source!r}"
        assert not any(nbtools.WIDGET_VIEW in k for k in kinds)


def test_widget_preview_only_when_executing_for_the_book(monkeypatch):
    """In Jupyter or Colab only the live controls appear; the executor asks for the picture
    (and opens no widget, which nbclient can block on)."""
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.append(a))
    monkeypatch.setattr("ipywidgets.interact", lambda *a, **k: shown.append("interact"))
    monkeypatch.delenv(widgets.PREVIEW_ENV, raising=False)
    widgets.explore_halos()
    assert shown == ["interact"]
    shown.clear()
    monkeypatch.setenv(widgets.PREVIEW_ENV, "1")
    widgets.explore_halos()
    assert len(shown) == 2 and "interact" not in shown   # the note and the figure, no widget


def test_execute_refuses_to_store_outputs_of_a_simulated_generation(monkeypatch):
    monkeypatch.setenv("ASYNC_BOOK_ARCH", "75")
    with pytest.raises(SystemExit, match="ASYNC_BOOK_ARCH is set"):
        nbtools.execute([ROOT / "notebooks" / "does-not-matter.ipynb"])


def test_execute_refuses_to_overwrite_without_a_gpu(monkeypatch):
    monkeypatch.setattr("kernels.device.device_info", lambda: {"backend": "emulation",
                                                               "reason": "test"})
    with pytest.raises(SystemExit, match="no GPU here"):
        nbtools.execute([ROOT / "notebooks" / "does-not-matter.ipynb"])


def test_the_halo_widget_offers_only_sizes_it_can_draw():
    """Every N, tile and K the halo widget's controls offer is a valid launch; the extremes draw."""
    c = widgets.halo_controls()
    for tile in c["tile"].options:
        for k in range(c["k"].min, c["k"].max + 1):
            for n in (c["n"].min, c["n"].max):
                kernels.launch_config(n, k, tile)
    for n, tile, k, alt in [(1, 32, 1, "one tile of 1; under it, each block's shared buffer of 32 "
                                       "floats: its tile alone"),
                            (1, 32, 17, "its tile and 16 halo cells, all zero"),
                            (160, 128, 17, "1 tile of 128 and one of 32"),
                            (33, 32, 2, "1 halo cell copied from the tile on its left")]:
        fig = draw_tiles(n, tile, k)
        assert fig.axes[0].patches and alt in fig.alt.en


# --- the built book in a browser ---------------------------------------------------------

@pytest.mark.parametrize("page", BOTH_EDITIONS)
def test_page_renders_in_chromium(site, browser, page):
    """Every page of both editions loads with no console error (but those of the requests to
    other hosts, blocked here: the book needs none), shows all its figures, links to the same
    page of the other edition (which loads), and, for a notebook, offers Colab."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    blocked, errors = set(), []
    ctx.route("**/*", lambda route: (route.continue_() if route.request.url.startswith(site.url)
                                     else (blocked.add(route.request.url), route.abort())))
    pg.on("console", lambda m: m.type == "error" and errors.append(m))
    pg.on("pageerror", lambda exc: errors.append(exc))
    root = {toc_files()[0]: "index", f"ko/{toc_files('ko')[0]}": "ko/index"}
    url = f"{site.url}/{root.get(page, page)}.html"
    response = pg.goto(url, wait_until="load")
    assert response.ok, url
    if root.get(page):   # index.html redirects to the root page: wait until it has arrived
        pg.wait_for_url(f"{site.url}/{page}.html", wait_until="load", timeout=15000)
    pg.wait_for_timeout(300)
    real = [e for e in errors if not (hasattr(e, "location") and e.location.get("url") in blocked)]
    assert not real, [getattr(e, "text", str(e)) for e in real]

    images = len(pg.query_selector_all("article img"))
    notebook = ROOT / f"{page}.ipynb"
    cells = nbformat.read(notebook, as_version=4).cells if notebook.exists() else []
    figures = sum("image/png" in o.get("data", {}) for c in cells if c.cell_type == "code"
                  and "remove-output" not in c.metadata.get("tags", []) for o in c.outputs)
    assert images >= figures, f"{page}: {images} images shown, {figures} expected"

    language = pg.eval_on_selector_all("article a.edition-link", "links => links.map(a => a.href)")
    assert language == [f"{site.url}/{counterpart(page)}.html"], language
    with urllib.request.urlopen(language[0]) as other:   # the other edition has that page
        assert other.status == 200, language[0]

    colab = pg.eval_on_selector_all(
        "a[href*='colab.research.google.com']", "links => links.map(a => a.href)")
    if page.removeprefix("ko/").startswith("notebooks/"):
        assert any(f"/blob/main/{page}.ipynb" in href for href in colab), colab
    ctx.close()


def test_korean_search_finds_a_word_in_its_inflected_forms_and_headings_have_anchors(site, browser):
    """The Korean edition's search (book/_ext/korean.py) finds, for "헤일로", the pages that write
    it with a particle only ("헤일로는", "헤일로가") as well as those that write it bare; every
    Korean heading's section has an anchor made of its words, not only docutils' id1, id2, …,
    and a hidden output's toggle is in Korean."""
    pg = browser.new_page()
    pg.goto(f"{site.url}/ko/search.html?q=" + urllib.parse.quote("헤일로"), wait_until="load")
    pg.wait_for_selector("ul.search li", timeout=20000)
    pg.wait_for_timeout(1000)
    found = set(pg.eval_on_selector_all("ul.search li a", "links => links.map(a => a.pathname)"))
    pages = [p for p in BOTH_EDITIONS if p.startswith("ko/")]
    # 7 pages (2026-12-01); Sphinx's own search found 5: 02 and 04 write 헤일로 with particles only
    assert len(found) >= 7, sorted(found)
    pg.close()
    for p in pages:
        html_text = (HTML / f"{p}.html").read_text(encoding="utf-8")
        ids = re.findall(r'<section[^>]* id="([^"]+)"', html_text)
        assert ids and not [i for i in ids if re.fullmatch(r"id\d+", i)], (p, ids)
        assert "Show code cell" not in html_text and "Hide code cell" not in html_text, p


def test_a_cpu_execution_marks_the_notebook_a_draft(tmp_path, monkeypatch):
    if kernels.gpu_available():
        pytest.skip("a GPU is present: this run would store GPU outputs")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(6 * 7)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "99_probe.ipynb"
    nbformat.write(nb, path)
    nbtools.execute([path], allow_cpu=True)
    done = nbformat.read(path, as_version=4)
    assert done.cells[0].outputs[0].text == "42\n"
    assert done.metadata["async_copy_book"]["executed_on"]["backend"] == "emulation"
    assert "draft" in done.metadata["async_copy_book"]


@pytest.mark.parametrize("page", [p for p in sorted((ROOT / "book").glob("*.md"))
                                  if "```python" in p.read_text()], ids=lambda p: p.name)
def test_python_snippets_on_the_markdown_pages_run(page):
    """A code listing on a page is something a reader copies: it must run (without a GPU)."""
    for snippet in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
        exec(compile(snippet, str(page), "exec"), {})
