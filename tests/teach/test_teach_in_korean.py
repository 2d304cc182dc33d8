"""Chapters 01-03: every sentence a cell computes (kernels.teach.schedule, kernels.teach.explore,
kernels.teach.halo, kernels.teach.widgets, kernels.device.backend_summary) is a Text in both
editions' languages: in the Korean edition Korean, with no run of English prose; with the same
numbers as the English; and the English exactly as the English notebooks show it."""

import dataclasses
import re
from collections import Counter

import nbformat
import numpy as np
import pytest

import kernels
from kernels import device, edition
from kernels.edition import Text
from kernels.measure import recorded
from kernels.teach import explore, halo, schedule, widgets
from support import ROOT

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# an identifier, a code name or a unit-ish token: tiled_sync, sm_90, compute_75, cp.async, x_s[0]
IDENTIFIER = re.compile(r"[A-Za-z0-9]*[_.^=][A-Za-z0-9_.^=\[\]]*|%globaltimer")
ENGLISH_RUN = re.compile(r"\b[a-z]{2,}\b(?:[\s,;:()]+\b[a-z]{2,}\b){2,}")
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")   # the Korean writes 16,384, the English 16384


def check(t):
    """``t`` is a Text whose Korean is Korean (Hangul, no run of 3+ lowercase English words
    outside identifiers, the style's spacing) with the English's numbers."""
    assert isinstance(t, Text), type(t)
    ko = t.ko
    assert HANGUL.search(ko), ko
    prose = IDENTIFIER.sub(" ", ko)
    assert not ENGLISH_RUN.search(prose), (ENGLISH_RUN.search(prose).group(0), ko)
    got, want = (Counter(n.replace(",", "") for n in NUMBER.findall(s)) for s in (ko, t.en))
    assert got == want, (want - got, got - want, ko)
    assert ";" not in ko and " %" not in ko, ko
    assert not re.search(r"\d (개|배|사이클|바이트|단계|번)", ko), ko


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv(edition.ENV, "en")


@pytest.fixture(scope="module")
def h200():
    return recorded.load("h200_timelines")


# --- kernels.teach.schedule -------------------------------------------------------------------

def test_where_the_data_comes_from_in_korean(h200, monkeypatch):
    monkeypatch.setattr("kernels.device.gpu_available", lambda: False)   # the recording's note
    _, source = schedule.load_or_measure()
    note = schedule.data_note(h200, source)
    check(note)
    p = h200["provenance"]
    assert note.en == (f"RECORDED on {p['device']} (driver {p['driver']}, CuPy {p['cupy']}, "
                       f"{p['date'][:10]}); no GPU here\n%globaltimer ticks every 32 ns at best "
                       "(median step 32 ns): the timelines' resolution")
    assert str(source) == note.en.split("\n")[0]


def test_glued_ratios_read_as_bae_in_korean(h200):
    speedup = schedule.model_numbers()["model_speedup"]
    assert (speedup.en, speedup.ko) == ("1.18x", "1.18배")


def test_notebook_02s_tables_in_both_languages(h200):
    """A table's title and word headers are Texts, carried in the output; its English is what the
    English notebooks show (the phase table's headers: its rows there are a live run's)."""
    rows = [[b, f"{t['sync']:.0f}", f"{t['async']:.0f}", f"{100 * t['less_time']:.1f}%"]
            for b in (1, 2, 4, 8) for t in [schedule.model_totals(blocks_per_sm=b, bytes_per_cycle=16.0)]]
    for notebook, table, name in (("02", schedule.model_table(rows), "model_table"),
                                  ("02", schedule.phase_table(h200), "phase_table"),
                                  ("02", schedule.occupancy_table(h200), "occupancy_table"),
                                  ("06", schedule.overhead_table(h200), "overhead_table")):
        words = [h for h in (table.title, *table.headers) if isinstance(h, Text)]
        assert words, name
        for t in words:
            check(t)
        assert set(table._repr_mimebundle_()[1][edition.KEY]["editions"]) == {"en", "ko"}, name
        path, = (ROOT / "notebooks").glob(f"{notebook}_*.ipynb")
        cell, = [c for c in nbformat.read(path, as_version=4).cells
                 if c.cell_type == "code" and f"schedule.{name}(" in c.source]
        shown = "\n".join(o.get("text") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert (str(table).split("\n")[0] if name == "phase_table" else str(table)) in shown, name


# --- kernels.teach.explore and halo -----------------------------------------------------------

def _gpu_like(run, median_us, copy_us):
    return dataclasses.replace(run, backend="GPU", median_us=median_us, copy_us=copy_us, l2_bytes=60 * 2**20)


def test_run_summaries_and_regimes_in_korean(monkeypatch):
    monkeypatch.setattr(explore, "gpu_available", lambda: False)   # the emulation's summary
    emulated = explore.run("async_halo", n=16385, tile=128, k=9)
    wrong = explore.run("puzzle28", timed=False)
    timed = _gpu_like(emulated, 1.6, 1.6 / 1.36)
    staged = dataclasses.replace(_gpu_like(emulated, 1.6, None), stages=2, threads=64, arch=80)
    for r in (emulated, wrong, timed, staged):
        check(r.summary())
        for note in r.regime():
            check(note)
    assert timed.summary() == ("async_halo, N=16385, tile=128, K=9 [GPU]: correct\n"
                               "  largest error 1.28e-06 (0.15 × the rounding bound)\n"
                               "  1.6 µs kernel time (82 GB/s, 1.36x a copy of the same bytes)")
    assert emulated.summary().en.endswith("\n  no timing in the emulation")


def test_older_build_sentences_in_korean():
    """No GPU, a cost, a tie, a faster older build, a T4's same code, an unnamed device."""
    for case in [(None, None, 75, None, None), (69.6, 83.4, 75, 90, "NVIDIA H200"),
                 (100.0, 102.0, 75, 80, "NVIDIA A100"), (100.0, 90.0, 75, 80, "NVIDIA A100"),
                 (100.0, 108.0, 75, 75, "Tesla T4"), (100.0, 120.0, 75, None, None)]:
        check(explore.older_build_sentence(*case))


def test_the_older_build_table_in_both_languages():
    r = explore.run("async_halo", n=16384, timed=False)
    cost = explore.OlderBuild("async_halo", 75, [_gpu_like(r, 68.0, 33.2),
                                                 dataclasses.replace(_gpu_like(r, 81.8, 33.1), arch=75)],
                              "NVIDIA H200", 90)
    table = cost.table()
    check(table.title)
    assert table.title.en == ("async_halo, N = 2¹⁴, tile 256, K = 5: each build beside a copy of "
                              "the same bytes")
    assert table.headers[:2] == ["build", "kernel µs"] and table.rows[0][0] == "native"
    ko = table.in_("ko")
    assert ko.headers[0] == "빌드" and ko.rows[0][0] == "네이티브" and ko.rows[1][0] == "compute_75"
    check(cost.sentence())


def test_wrong_outputs_largest_error_and_the_puzzles_positions_in_korean():
    p = kernels.PUZZLE28
    rng = np.random.default_rng(28)
    x = rng.standard_normal(p.n, dtype=np.float32)
    w = rng.standard_normal(p.k, dtype=np.float32)
    y_sync, y_puzzle, y_async = (kernels.conv1d(x, w, v, **p.launch)
                                 for v in ("tiled_sync", "puzzle28", "async_halo"))
    lines = [explore.wrong_sentence("tiled_sync", y_sync, x, w),
             explore.wrong_sentence("puzzle28", y_puzzle, x, w, tile=p.tile),
             explore.largest_error(y_sync, x, w)]
    for t in lines:
        check(t)
    assert lines[0] == "tiled_sync: 0 of 16,384 outputs wrong"
    assert lines[1] == "puzzle28: 256 of 16,384 outputs wrong, at positions [0, 1, 254, 255] of every tile"
    assert lines[2] == f"largest error {np.abs(y_sync - kernels.reference(x, w)).max():.2e}"
    positions = halo.puzzle_errors(y_puzzle, y_async, x, w, tile=p.tile)["p28_positions"]
    assert (positions.en, positions.ko) == ("0, 1, 254 and 255", "0, 1, 254, 255")


# --- kernels.teach.widgets --------------------------------------------------------------------

def test_the_preview_note_is_markdown_in_both_languages():
    data, meta = widgets.PREVIEW_NOTE._repr_mimebundle_()
    assert data["text/markdown"] == ("*On this static page, the output for the controls' default "
                                     "values; run the notebook (Colab, Jupyter) to move them.*")
    ko = meta[edition.KEY]["editions"]["ko"]
    assert set(ko) == {"text/markdown", "text/plain"}
    check(widgets.PREVIEW_NOTE.text)
    assert "*" not in ko["text/markdown"]   # no italics: Hangul fonts have none


def test_what_the_widgets_say_in_korean():
    line = widgets.model_line(schedule.model_totals())
    check(line)
    assert line == "sync 650 cycles, async 550: overlap saves 100 cycles, 15.4% less time, 1.18x"
    runs = [_gpu_like(r, us, 1.0) for r, us in
            zip(explore.compare(["async_halo", "tiled_sync"], n=16384), (1.5, 1.8))]
    lines = widgets.convolution_lines(runs, stages=2, n=2**20)
    for t in lines:
        check(t)
    en = "\n".join(t.en for t in lines)
    assert "async_halo takes 0.83x the time of tiled_sync" in en
    assert "(error maps are drawn up to N = 100000; the counts above cover every output)" in en
    assert all(edition.columns(part) <= 80 for t in lines for part in t.ko.split("\n"))


# --- kernels.device ---------------------------------------------------------------------------

@pytest.mark.parametrize("info", [
    dict(backend="gpu", device="NVIDIA H200", compute_capability=90, driver="580.159.04",
         cuda_runtime="13.2", cupy="14.2.0"),
    dict(backend="gpu", device="NVIDIA H200", compute_capability=90, as_arch=75,
         driver="580.159.04", cuda_runtime="13.0", cupy="14.2.0"),
    dict(backend="emulation", reason="no usable CUDA driver: cudaErrorInsufficientDriver"),
])
def test_the_backend_summary_in_korean(monkeypatch, info):
    monkeypatch.setattr(device, "device_info", lambda: info)
    summary = device.backend_summary()
    check(summary)
    assert all(edition.columns(line) <= 80 for line in summary.ko.split("\n"))
    if info["backend"] == "gpu" and "as_arch" not in info:
        assert summary == ("GPU: NVIDIA H200 (sm_90), driver 580.159.04, CUDA 13.2, CuPy 14.2.0: "
                           "kernels run\nlive.")
    elif info["backend"] == "gpu":   # which generation it runs as, and on which GPU
        assert summary.startswith("GPU: as sm_75, on an NVIDIA H200 (sm_90")


# --- the notebooks ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["01_halo_regions", "02_sync_vs_async_timelines",
                                  "03_async_copy_convolution"])
def test_notebooks_01_to_03_show_their_sentences_in_both_languages(name):
    """The cells show the sentences they compute with ``show`` (display data that carries both
    languages, which ``translate sync`` gives the Korean page), never ``print``; no cell builds a
    sentence or a table's words in an f-string of its own (the data lines of 01's halo cells
    excepted)."""
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"
            and not c.source.startswith("# Setup (Colab)")]   # the generated setup cell
    assert any("from kernels.edition import show" in src for src in code)
    shown = ("backend_summary()", ".summary()", "data_note(", "wrong_sentence(", "largest_error(")
    for src in code:
        for line in src.split("\n"):
            if any(s in line for s in shown):
                assert "show(" in line and "print(" not in line, line
            if line.lstrip().startswith("print(f"):
                assert line.lstrip().startswith('print(f"block {c.block}'), line
        assert "Table(\"" not in src or "PTX instruction" in src, src
