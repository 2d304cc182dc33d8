"""What the prose of the book says, checked: the model's presets and their widget, the
statements notebook 02 makes about the H200 recording, the "predict, then run" questions, and the
intro's and references' pages."""

import re

import nbformat
import numpy as np
import pytest

from kernels.teach import schedule, widgets
from kernels import layout
from kernels.measure import recorded, timeline
from support import ROOT

H200 = recorded.load("h200_timelines")


# --- the model's presets -------------------------------------------------------------------

def test_the_presets_are_the_puzzles_illustration_then_the_h200s_synchronous_block():
    """The preset menu offers the puzzle's 500/100/50 cycles first, then the recording's
    tiled_sync phases, whose model total 'reproduces the synchronous block' up to the rounding
    of the medians."""
    presets = schedule.model_presets()
    measured = schedule.preset_name(H200)
    assert list(presets) == [schedule.PRESET_PUZZLE, measured] and measured == "as measured on the H200"
    assert presets[schedule.PRESET_PUZZLE] == {"dram_latency": 500, "taps_latency": 100, "compute": 50}
    assert presets[measured]["taps_latency"] == round(H200["cycles"]["tiled_sync"]["taps load"])
    sync = schedule.model_totals(**presets[measured])["sync"]
    assert abs(sync - timeline.block_cycles(timeline.records(H200, "tiled_sync"))) <= 2


def test_the_model_widget_offers_every_preset_and_only_valid_values():
    """The preset menu offers every preset, the puzzle's first, and each lands on the sliders
    (which would clamp a value out of range); every slider value is a valid model input. (Not that
    async always wins: with the pipe limited, the taps' transfers queued between the tiles' can
    cost the last tile a few cycles.)"""
    c = widgets.model_controls()
    presets = schedule.model_presets()
    assert [value for _, value in c["preset"].options] == list(presets)
    assert c["preset"].options[0][0] == c["preset"].value == schedule.PRESET_PUZZLE
    for name, preset in presets.items():
        c["preset"].value = name
        assert {p: c[p].value for p in preset} == preset, name
    assert all(c[p].step == 1 for p in widgets.MODEL_CYCLES)   # the page's slider lands on it too
    lo = {p: c[p].min for p in widgets.MODEL_CYCLES}
    hi = {p: c[p].max for p in widgets.MODEL_CYCLES}
    for params in (lo, hi, {**lo, "dram_latency": hi["dram_latency"]}, {**hi, "compute": lo["compute"]}):
        for blocks in (c["blocks_per_sm"].min, c["blocks_per_sm"].max):
            for _, bandwidth in c["bytes_per_cycle"].options:
                t = schedule.model_totals(**params, blocks_per_sm=blocks, bytes_per_cycle=bandwidth)
                assert t["sync"] > 0 and t["async"] > 0
    for tile in c["tile"].options:
        for k in range(c["k"].min, c["k"].max + 1):
            for blocks in (c["blocks_per_sm"].min, c["blocks_per_sm"].max):
                for _, bw in c["bytes_per_cycle"].options:
                    schedule.model("async", tile=tile, k=k, blocks_per_sm=blocks, bytes_per_cycle=bw)


# --- notebook 02: what its cells compute from a recording ------------------------------------

def test_sm_occupancy_counts_blocks_at_once_and_time_per_block():
    """SM 0: four blocks of 400 ns, starting 100 ns apart (4 at once); SM 1: two blocks back to
    back, the second starting at the very tick the first ends (never 2 at once)."""
    rec = np.zeros((6, layout.TRACE_WORDS), np.uint64)
    rec[:, layout.TRACE_SM] = [0, 0, 0, 0, 1, 1]
    rec[:, layout.TRACE_NS] = np.linspace([0, 100, 200, 300, 0, 400], [400, 500, 600, 700, 400, 800],
                                          len(layout.TRACE_POINTS), axis=1).round()
    assert timeline.sm_occupancy(rec[:4]) == {"resident": 4, "block_ns": 400.0, "ns_per_block": 700 / 4}
    assert timeline.sm_occupancy(rec[4:]) == {"resident": 1, "block_ns": 400.0, "ns_per_block": 400.0}
    both = timeline.sm_occupancy(rec)
    assert both["resident"] == 4 and both["ns_per_block"] == pytest.approx((175 + 400) / 2)


def test_what_notebook_02_says_about_the_taps():
    """'thread 0's one 4-byte tap takes ... times the puzzle's 100 and about as long as each of its
    tile loads' (one request against one of the two that thread 0 makes in its tile load, not
    20 bytes against two loads in sequence); 'the wait left' is about one trace point's cost;
    'a second latency, about as long as the first'."""
    lesson = timeline.taps_lesson(H200)
    assert all(t >= 4 * timeline.SEED_CYCLES["taps load"] for v, t in lesson["taps"].items()
               if v != "tiled_loads_first")       # its tap was issued with the tile: nothing between
    assert timeline.THREAD0_TILE_LOADS == len(range(0, layout.buf(256, 5), 256)) == 2
    assert 0.8 < lesson["taps_over_load"] < 1.5          # "about the same", the answer
    assert lesson["wait_left"] < 1.5 * lesson["empty_wait"] < lesson["async_taps"] / 2
    assert layout.buf(256, 5) == 260 and 4 * layout.buf(256, 5) / (4 * 5) == 52   # the question


def test_notebook_02_glues_every_number_it_names_and_quotes_the_puzzle_right():
    """Every {glue:text} role of notebook 02 names a value a code cell glues; no prose says
    "the cell's output" or "prints what" instead of the number; the puzzle's claim is quoted as
    "45% better utilization", never "45% improvement"; the `# live` tables' outputs (measured on
    the reader's GPU) are skipped by nbval."""
    nb = nbformat.read(ROOT / "notebooks" / "02_sync_vs_async_timelines.ipynb", as_version=4)
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    used = set(re.findall(r"\{glue:text\}`(\w+)`", md))
    glued = set()
    for name in ("recording", "model", "taps", "saving", "occupancy", "overhead"):
        if f"schedule.{name}_numbers(" in code:
            glued |= set(getattr(schedule, f"{name}_numbers")(*(() if name == "model" else (H200,))))
    if "schedule.seed_numbers(" in code:            # chapter 05's recording, the puzzle's size
        glued |= set(schedule.seed_numbers(recorded.load("h200_roofline")))
    glued |= set(re.findall(r"\b(\w+)=rows\[", code))
    assert used and used <= glued, used - glued
    for vague in ("the cell's output", "cell prints what", "the lines above say", "(the cell"):
        assert vague not in md
    assert "45% better utilization" in " ".join(md.split()) and not re.search("45 ?% improvement", md + code)
    for c in nb.cells:
        if c.cell_type == "code" and c.source.startswith("# live"):
            assert "nbval-ignore-output" in c.metadata.get("tags", []), c.source


def test_what_notebook_02_says_about_the_saving():
    """async_halo saves over tiled_sync per block and in every recorded kernel time, more than
    the tap's whole latency (thread 0's two tile loads overlap too); the model with the measured
    preset, which overlaps only the tap, promises less."""
    s = timeline.overlap_saving(H200)
    taps = H200["cycles"]["tiled_sync"]["taps load"]
    saved = s["block_cycles"]["tiled_sync"] - s["block_cycles"]["async_halo"]
    assert saved > taps   # "three round trips in a row have become about one"
    from kernels.teach.explore import LAUNCH_BOUND_US   # the puzzle-size kernel: "launch-bound"
    assert s["kernel_us"][16384] < LAUNCH_BOUND_US < s["kernel_us"][2**24]
    assert set(s["kernel_less"]) == {16384, 2**24} and all(f > 0 for f in s["kernel_less"].values())
    model = schedule.model_totals(**schedule.measured_preset(H200))
    assert model["less_time"] < s["block_less"]


def test_what_notebook_02_says_about_occupancy_and_asynchrony():
    seed = {v: timeline.sm_occupancy(timeline.records(H200, v)) for v in timeline.TIMELINE_VARIANTS}
    large = {v: timeline.sm_occupancy(timeline.records(H200, v, "large"))
             for v in timeline.TIMELINE_VARIANTS}
    for v in timeline.TIMELINE_VARIANTS:
        assert seed[v]["resident"] == 1                          # one block per SM
        assert large[v]["resident"] > 1                          # several at once
        assert large[v]["block_ns"] > seed[v]["block_ns"]        # longer than alone
        assert large[v]["ns_per_block"] < large[v]["block_ns"] / 2   # "a fraction of one block's time"
    assert seed["async_halo"]["block_ns"] < seed["tiled_sync"]["block_ns"]
    assert large["async_halo"]["ns_per_block"] < large["tiled_sync"]["ns_per_block"]
    # occupancy hides far more than asynchrony: blocks overlapped against async's speed-up
    overlapped = large["tiled_sync"]["block_ns"] / large["tiled_sync"]["ns_per_block"]
    asynchrony = seed["tiled_sync"]["block_ns"] / seed["async_halo"]["block_ns"]
    assert overlapped > 2 * asynchrony
    assert 4 * 2**24 > H200["provenance"]["l2_bytes"]           # "cannot stay in L2"


def test_the_model_answer_on_blocks_per_sm():
    """Answer 1 of notebook 02: at 16 B/cycle, the share saved shrinks as blocks are added; the
    cycles saved do not grow, the total does."""
    rows = [schedule.model_totals(blocks_per_sm=b, bytes_per_cycle=16.0) for b in (1, 2, 4, 8)]
    shares = [r["less_time"] for r in rows]
    assert shares == sorted(shares, reverse=True) and shares[-1] < shares[0]
    assert all(a["saved"] >= b["saved"] - 1e-9 for a, b in zip(rows, rows[1:]))
    assert all(a["sync"] < b["sync"] for a, b in zip(rows, rows[1:]))


# --- "predict, then run" -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["01_halo_regions", "02_sync_vs_async_timelines"])
def test_every_question_is_followed_by_a_cell_that_runs_and_then_its_answer(name):
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    questions = [i for i, c in enumerate(nb.cells)
                 if c.cell_type == "markdown" and c.source.startswith("**Predict, then run.**")]
    assert len(questions) >= 2
    for q, following in zip(questions, questions[1:] + [len(nb.cells)]):
        after = nb.cells[q + 1:following]
        answers = [i for i, c in enumerate(after) if c.cell_type == "markdown"
                   and c.source.startswith(":::{admonition} Answer\n:class: dropdown\n")]
        assert len(answers) == 1, nb.cells[q].source
        assert any(c.cell_type == "code" for c in after[:answers[0]])
        assert re.search(r"\n:::(\n|$)", after[answers[0]].source)   # the fence closes


# --- the markdown pages ----------------------------------------------------------------------

def test_every_reference_has_a_link_and_none_leaves_the_project():
    text = (ROOT / "book" / "references.md").read_text()
    items = re.split(r"\n- ", text.split("\n", 1)[1].strip())
    assert len(items) >= 8
    for item in items:
        assert re.search(r"https://[\w./#-]+", item), item
    assert "shared/" not in text and "SEED" not in text
    for needed in ("puzzles.modular.com", "docs.nvidia.com/cuda", "parallel-thread-execution",
                   "nvidia.github.io/cccl/libcudacxx", "docs.cupy.dev", "compute-sanitizer",
                   "github.com/srush/GPU-Puzzles", "triton-lang.org"):
        assert needed in text, needed


def test_the_intro_names_the_operation_its_cost_and_why_it_matters():
    text = (ROOT / "book" / "intro.md").read_text()
    for needed in ("cross-correlation", "correlate1d", "$2K$", "## Why it matters", "deep learning",
                   "stencils", "image processing", "## What you should know first"):
        assert needed in text, needed
