"""Chapters 01-03: every sentence a cell computes (kernels.measure.timeline, kernels.teach.explore,
kernels.teach.halo, kernels.teach.widgets, kernels.device.backend_summary) is a Text in both
editions' languages: in the Korean edition Korean, with no run of English prose; with the same
numbers as the English; and the English exactly as the English notebooks show it."""

import dataclasses
import re
from collections import Counter

import numpy as np
import pytest

from kernels import device, edition
from kernels.edition import Text
from kernels.measure import recorded, timeline
from kernels.tables import Table
from kernels.teach import explore, halo, widgets

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# an identifier, a code name or a unit-ish token: tiled_sync, sm_90, compute_75, cp.async, x_s[0]
IDENTIFIER = re.compile(r"[A-Za-z0-9]*[_.^=][A-Za-z0-9_.^=\[\]]*|%globaltimer")
ENGLISH_RUN = re.compile(r"\b[a-z]{2,}\b(?:[\s,;:()]+\b[a-z]{2,}\b){2,}")
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def numbers(s: str) -> Counter:
    """The numbers of ``s``, thousands separators aside (the Korean writes 16,384 where the English
    output keeps 16384)."""
    return Counter(n.replace(",", "") for n in NUMBER.findall(s))


def check(t, monkeypatch):
    """``t`` is a Text whose Korean is Korean (Hangul, no run of 3+ lowercase English words
    outside identifiers, the style's spacing) with the English's numbers, and which is the Korean
    edition's str."""
    assert isinstance(t, Text), type(t)
    ko = t.ko
    assert HANGUL.search(ko), ko
    prose = IDENTIFIER.sub(" ", ko)
    assert not ENGLISH_RUN.search(prose), (ENGLISH_RUN.search(prose).group(0), ko)
    assert numbers(ko) == numbers(t.en), (numbers(t.en) - numbers(ko), numbers(ko) - numbers(t.en), ko)
    assert ";" not in ko and " %" not in ko, ko
    assert not re.search(r"\d (개|배|사이클|바이트|단계|번)", ko), ko
    monkeypatch.setenv(edition.ENV, "ko")
    assert str(Text(t.en, t.ko)) == ko
    monkeypatch.setenv(edition.ENV, "en")


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setenv(edition.ENV, "en")
    return monkeypatch


@pytest.fixture(scope="module")
def h200():
    return recorded.load("h200_timelines")


# --- kernels.measure.timeline -----------------------------------------------------------------

def test_where_the_data_comes_from_in_korean(english, h200, monkeypatch):
    monkeypatch.setattr("kernels.device.gpu_available", lambda: False)   # the recording's note
    _, source = timeline.load_or_measure()
    note = timeline.data_note(h200, source)
    check(note, english)
    p = h200["provenance"]
    assert note.en == (f"RECORDED on {p['device']} (driver {p['driver']}, CuPy {p['cupy']}, "
                       f"{p['date'][:10]}); no GPU here\n%globaltimer ticks every 32 ns at best "
                       "(median step 32 ns): the timelines' resolution")
    assert str(source) == note.en.split("\n")[0]


def test_glued_ratios_read_as_bae_in_korean(english, h200):
    speedup = timeline.model_numbers()["model_speedup"]
    assert (speedup.en, speedup.ko) == ("1.18x", "1.18배")


def _old_tables(h200):
    """Notebook 02's tables as its cells built them before they were in both languages."""
    rows = []
    for blocks in (1, 2, 4, 8):
        t = timeline.model_totals(blocks_per_sm=blocks, bytes_per_cycle=16.0)
        rows.append([blocks, f"{t['sync']:.0f}", f"{t['async']:.0f}", f"{100 * t['less_time']:.1f}%"])
    model = Table("The model at 16 B/cycle, in cycles", ["blocks per SM", "sync", "async", "less time"], rows)
    phases = Table("", ["phase", "puzzle (illustrative)", *timeline.TIMELINE_VARIANTS],
                   [[phase, timeline.SEED_CYCLES.get(phase, ""),
                     *(f"{h200['cycles'][v][phase]:.0f}" for v in timeline.TIMELINE_VARIANTS)]
                    for phase, *_ in timeline.TRACE_PHASES])
    occ = []
    for which, size in (("seed", "N = 2^14"), ("large", "N = 2^24")):
        for v in timeline.TIMELINE_VARIANTS:
            o = timeline.sm_occupancy(timeline.records(h200, v, which))
            occ.append([f"{size} {v}", o["resident"], f"{o['block_ns']:.0f} ns",
                        f"{o['ns_per_block']:.0f} ns", f"{o['block_ns'] / o['ns_per_block']:.1f}"])
    occupancy = Table(f"Recorded on the {h200['provenance']['device']}; at N = 2^24 the first "
                      f"{timeline.KEEP_SMS} SMs, blocks started in the first {timeline.KEEP_US:.0f} µs",
                      ["", "at once", "one block", "SM per block", "overlapped"], occ, align="<>>>>")
    overhead = Table("", ["variant", "N", "plain µs", "traced µs", "overhead"],
                     [[r["variant"], r["n"], f"{r['plain_us']:.2f}", f"{r['traced_us']:.2f}",
                       f"{100 * r['overhead']:+.1f}%"] for r in h200["overhead"]])
    return rows, {"model": model, "phases": phases, "occupancy": occupancy, "overhead": overhead}


def test_notebook_02s_tables_in_both_languages(english, h200):
    rows, old = _old_tables(h200)
    new = {"model": timeline.model_table(rows, bytes_per_cycle=16.0),
           "phases": timeline.phase_table(h200), "occupancy": timeline.occupancy_table(h200),
           "overhead": timeline.overhead_table(h200)}
    for name, table in new.items():
        assert str(table) == str(old[name]) and table._repr_html_() == old[name]._repr_html_(), name
        ko = table.in_("ko")
        words = [h for h in table.headers if isinstance(h, Text)]
        assert words, name
        for h in words:
            check(h, english)
        if isinstance(table.title, Text):
            check(table.title, english)
        assert all(HANGUL.search(h) for h in ko.headers if h in [w.ko for w in words])
        data, meta = table._repr_mimebundle_()
        assert set(meta[edition.KEY]["editions"]) == {"en", "ko"}


# --- kernels.teach.explore --------------------------------------------------------------------

def _gpu_like(run, median_us, copy_us, l2_mib=60):
    return dataclasses.replace(run, backend="GPU", median_us=median_us, copy_us=copy_us,
                               l2_bytes=l2_mib * 2**20)


def test_run_summaries_and_regimes_in_korean(english, monkeypatch):
    monkeypatch.setattr(explore, "gpu_available", lambda: False)   # the emulation's summary
    emulated = explore.run("async_halo", n=16385, tile=128, k=9)
    wrong = explore.run("puzzle28", timed=False)
    timed = _gpu_like(emulated, 1.6, 1.6 / 1.36)
    staged = dataclasses.replace(_gpu_like(emulated, 1.6, None), stages=2, threads=64, arch=80)
    for r in (emulated, wrong, timed, staged):
        check(r.summary(), english)
        for note in r.regime():
            check(note, english)
    assert timed.summary() == ("async_halo, N=16385, tile=128, K=9 [GPU]: correct\n"
                               "  largest error 1.28e-06 (0.15 × the rounding bound)\n"
                               "  1.6 µs kernel time (82 GB/s, 1.36x a copy of the same bytes)")
    assert emulated.summary().en.endswith("\n  no timing in the emulation")
    assert "256 of 16384 outputs WRONG" in wrong.summary()
    assert [n.split(":")[0] for n in timed.regime()] == ["L2-resident", "launch-bound"]


def test_older_build_sentences_in_korean(english):
    cases = [(None, None, 75, None, None), (69.6, 83.4, 75, 90, "NVIDIA H200"),
             (100.0, 102.0, 75, 80, "NVIDIA A100"), (100.0, 90.0, 75, 80, "NVIDIA A100"),
             (100.0, 108.0, 75, 75, "Tesla T4"), (100.0, 120.0, 75, None, None)]
    said = [explore.older_build_sentence(*c) for c in cases]
    for s in said:
        check(s, english)
    assert said[1] == ("On this NVIDIA H200 (sm_90) the compute_75 build took 83.4 µs against the "
                       "native build's 69.6 µs, 1.20x: the compute_75 code path costs this kernel 20% "
                       "more time here.")
    assert said[0].en.startswith("No GPU here: the compute_75 build compiles")


def test_the_older_build_table_in_both_languages(english):
    r = explore.run("async_halo", n=16384, timed=False)
    cost = explore.OlderBuild("async_halo", 75, [_gpu_like(r, 68.0, 33.2),
                                                 dataclasses.replace(_gpu_like(r, 81.8, 33.1), arch=75)],
                              "NVIDIA H200", 90)
    table = cost.table()
    check(table.title, english)
    assert table.title.en == ("async_halo, N = 2^14, tile 256, K = 5: each build beside a copy of "
                              "the same bytes")
    assert table.headers[:2] == ["build", "kernel µs"] and table.rows[0][0] == "native"
    ko = table.in_("ko")
    assert ko.headers[0] == "빌드" and ko.rows[0][0] == "네이티브" and ko.rows[1][0] == "compute_75"
    check(cost.sentence(), english)


def test_wrong_outputs_and_largest_error_lines_in_korean(english):
    rng = np.random.default_rng(28)
    x = rng.standard_normal(16384, dtype=np.float32)
    w = rng.standard_normal(5, dtype=np.float32)
    import kernels
    y_sync = kernels.conv1d(x, w, "tiled_sync", tile=256)
    y_puzzle = kernels.conv1d(x, w, "puzzle28", tile=256)
    lines = [explore.wrong_sentence("tiled_sync", y_sync, x, w),
             explore.wrong_sentence("puzzle28", y_puzzle, x, w, tile=256),
             explore.largest_error(y_sync, x, w)]
    for t in lines:
        check(t, english)
    assert lines[0] == "tiled_sync: 0 of 16384 outputs wrong"
    assert lines[1] == "puzzle28: 256 of 16384 outputs wrong, at positions [0, 1, 254, 255] of every tile"
    assert lines[1].ko.endswith("위치 0, 1, 254, 255")
    assert lines[2] == f"largest error {np.abs(y_sync - kernels.reference(x, w)).max():.2e}"


# --- kernels.teach.halo -----------------------------------------------------------------------

def test_the_puzzles_wrong_positions_are_listed_in_each_language(english):
    import kernels
    p = kernels.PUZZLE28
    rng = np.random.default_rng(28)
    x = rng.standard_normal(p.n, dtype=np.float32)
    w = rng.standard_normal(p.k, dtype=np.float32)
    s = halo.puzzle_errors(kernels.conv1d(x, w, "puzzle28", **p.launch),
                           kernels.conv1d(x, w, "async_halo", **p.launch), x, w, tile=p.tile)
    positions = s["p28_positions"]
    assert isinstance(positions, Text)
    assert (positions.en, positions.ko) == ("0, 1, 254 and 255", "0, 1, 254, 255")


# --- kernels.teach.widgets --------------------------------------------------------------------

def test_the_preview_note_is_markdown_in_both_languages(english):
    data, meta = widgets.PREVIEW_NOTE._repr_mimebundle_()
    assert data["text/markdown"] == ("*On this static page, the output for the controls' default "
                                     "values; run the notebook (Colab, Jupyter) to move them.*")
    ko = meta[edition.KEY]["editions"]["ko"]
    assert set(ko) == {"text/markdown", "text/plain"}
    check(widgets.PREVIEW_NOTE.text, english)
    assert ko["text/markdown"].startswith("*") and ko["text/markdown"].endswith("*")


def test_what_the_widgets_say_in_korean(english):
    line = widgets.model_line(timeline.model_totals())
    check(line, english)
    assert line == "sync 650 cycles, async 550: overlap saves 100 cycles, 15.4% less time, 1.18x"
    runs = [_gpu_like(r, us, 1.0) for r, us in
            zip(explore.compare(["async_halo", "tiled_sync"], n=16384), (1.5, 1.8))]
    lines = widgets.convolution_lines(runs, stages=2, n=2**20)
    for t in lines:
        check(t, english)
    en = "\n".join(t.en for t in lines)
    assert "async_halo takes 0.83x the time of tiled_sync" in en
    assert ("Note: L2-resident: x and y (0.12 MiB) fit in the 60 MiB L2 cache, so these GB/s\n"
            "  are not DRAM's (from N = 2^23 on, x and y outgrow it)") in en
    assert "(error maps are drawn up to N = 100000; the counts above cover every output)" in en
    assert all(edition.columns(part) <= 80 for t in lines for part in t.ko.split("\n"))


# --- kernels.device ---------------------------------------------------------------------------

@pytest.mark.parametrize("info", [
    dict(backend="gpu", device="NVIDIA H200", compute_capability=90, driver="580.159.04",
         cuda_runtime="13.2", cupy="14.2.0"),
    dict(backend="gpu", device="NVIDIA H200", compute_capability=90, as_arch=75,
         driver="580.159.04", cuda_runtime="13.0", cupy="14.2.0"),
    dict(backend="emulation", reason="no usable CUDA driver: cudaErrorInsufficientDriver"),
    dict(backend="emulation", reason="ASYNC_BOOK_BACKEND=emulate"),
])
def test_the_backend_summary_in_korean(english, info):
    english.setattr(device, "device_info", lambda: info)
    summary = device.backend_summary()
    check(summary, english)
    assert all(edition.columns(line) <= 80 for line in summary.ko.split("\n"))
    if info["backend"] == "gpu" and "as_arch" not in info:
        assert summary == ("GPU: NVIDIA H200 (sm_90), driver 580.159.04, CUDA 13.2, CuPy 14.2.0: "
                           "kernels run\nlive.")


# --- the notebooks ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["01_halo_regions", "02_sync_vs_async_timelines",
                                  "03_async_copy_convolution"])
def test_notebooks_01_to_03_show_their_sentences_in_both_languages(name):
    """The cells show the sentences they compute with ``show`` (display data that carries both
    languages, which ``translate sync`` gives the Korean page), never ``print``; no cell builds a
    sentence or a table's words in an f-string of its own (the data lines of 01's halo cells
    excepted)."""
    import nbformat
    from pathlib import Path
    nb = nbformat.read(Path(__file__).resolve().parents[2] / "notebooks" / f"{name}.ipynb", as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"
            and not c.source.startswith("# Setup (Colab)")]   # the generated setup cell
    assert any("from kernels.edition import show" in src for src in code)
    shown = ("backend_summary()", ".summary()", "data_note(", "wrong_sentence(",
             "largest_error(")
    for src in code:
        for line in src.split("\n"):
            if any(s in line for s in shown):
                assert "show(" in line and "print(" not in line, line
            if line.lstrip().startswith("print(f"):
                assert line.lstrip().startswith('print(f"block {c.block}'), line
        assert "Table(\"" not in src or "PTX instruction" in src, src
