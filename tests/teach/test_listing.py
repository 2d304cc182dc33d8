"""kernels.teach.listing and the book's code: diffs, copy instructions, and every listing and code
cell within the code column."""

import nbformat

from kernels.teach import listing
from support import ROOT

CODE_COLUMN = 82  # characters of code that fit the book's code column at 1280 px (book/_static/reader.css)


def test_diff_marks_what_changed():
    d = listing.diff_text("tiled_sync", "async_halo")
    added = [l for l in d.splitlines() if l.startswith("+") and not l.startswith("+++")]
    assert any("memcpy_async" in l for l in added)
    assert any("consumer_wait" in l for l in added)
    assert not any("__syncthreads" in l for l in added)    # the barrier was already there


def test_listings_and_code_cells_fit_the_code_column():
    """Every CUDA source the book shows and every notebook code cell (the exercise skeletons'
    cells too) keeps its lines within CODE_COLUMN characters: a longer one hides behind a
    horizontal scroll."""
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
               for pattern in ("kernels/*.cu", "kernels/*.cuh", "kernels/exercises/*.cu")
               for p in sorted(ROOT.glob(pattern))}
    for nb in sorted(ROOT.glob("notebooks/*.ipynb")):
        cells = nbformat.read(nb, as_version=4).cells
        sources.update({f"{nb.relative_to(ROOT)} cell {c.get('id', i)}": c.source
                        for i, c in enumerate(cells) if c.cell_type == "code"})
    assert len(sources) > 20
    long = [f"{where}, line {n}: {len(line)} characters"
            for where, text in sources.items()
            for n, line in enumerate(text.split("\n"), 1) if len(line) > CODE_COLUMN]
    assert not long, f"longer than {CODE_COLUMN} characters:\n" + "\n".join(long)


def test_copy_instructions_show_the_sm75_fallback():
    assert "cp.async.ca.shared.global" not in listing.copy_instructions("async_halo", 75)
    assert listing.copy_instructions("async_halo", 80)["cp.async.ca.shared.global"] >= 1
