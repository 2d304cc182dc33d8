"""What the prose of the book says, checked: the model's presets and their widget, the
statements notebook 02 makes about the H200 recording (the functions its cells print them with,
and the claims its text makes about their output), the "predict, then run" questions, and the
markdown pages' references and terms."""

import re

import nbformat
import numpy as np
import pytest

from kernels.teach import halo, widgets
from kernels import layout
from kernels.measure import recorded, timeline
from support import ROOT

H200 = recorded.load("h200_timelines")


# --- the model's presets -------------------------------------------------------------------

def test_the_puzzles_preset_is_its_illustration():
    presets = timeline.model_presets()
    puzzle = presets[timeline.PRESET_PUZZLE]
    assert puzzle == {"dram_latency": 500, "taps_latency": 100, "compute": 50}
    t = timeline.model_totals(**puzzle)
    assert (t["sync"], t["async"]) == (650, 550)
    assert list(presets)[0] == timeline.PRESET_PUZZLE


def test_the_measured_preset_comes_from_the_recording():
    presets = timeline.model_presets()
    name = timeline.preset_name(H200)
    assert name == "as measured on the H200" and list(presets) == [timeline.PRESET_PUZZLE, name]
    c = H200["cycles"]["tiled_sync"]
    assert presets[name] == {"dram_latency": round(c["tile load"]),
                             "taps_latency": round(c["taps load"]),
                             "compute": round(c["wait"] + c["barrier"] + c["compute"])}
    assert all(isinstance(v, int) for v in presets[name].values())


def test_the_measured_preset_reproduces_the_synchronous_block():
    """'reproduces the synchronous block': the model's sync total is the measured block's, up
    to the rounding of the medians."""
    sync = timeline.model_totals(**timeline.measured_preset(H200))["sync"]
    assert abs(sync - timeline.block_cycles(timeline.records(H200, "tiled_sync"))) <= 2


def test_measured_preset_of_synthetic_data():
    data = {"cycles": {"tiled_sync": {"tile load": 10.4, "taps load": 20.5, "wait": 1.0,
                                      "barrier": 2.0, "compute": 3.2}},
            "provenance": {"device": "NVIDIA A100-SXM4-80GB"}}
    assert timeline.measured_preset(data) == {"dram_latency": 10, "taps_latency": 20, "compute": 6}
    assert timeline.preset_name(data) == "as measured on the A100-SXM4-80GB"


def test_the_widget_offers_every_preset_and_only_valid_values():
    c = widgets.model_controls()
    presets = timeline.model_presets()
    assert tuple(value for _, value in c["preset"].options) == tuple(presets)
    assert c["preset"].options[0][0] == timeline.PRESET_PUZZLE   # labelled in the edition's words
    assert c["preset"].value == timeline.PRESET_PUZZLE
    for name, preset in presets.items():
        c["preset"].value = name
        for param, value in preset.items():
            slider = c[param]
            assert (slider.min, slider.max) == widgets.MODEL_CYCLES[param]
            assert slider.min <= value <= slider.max and slider.step == 1
            assert slider.value == value, (name, param)
    c["preset"].value = timeline.PRESET_PUZZLE
    assert {p: c[p].value for p in presets[timeline.PRESET_PUZZLE]} == presets[timeline.PRESET_PUZZLE]


def test_the_model_takes_every_slider_extreme():
    """Any slider value is a valid model input. (Not that async always wins: with the pipe
    limited, the taps' transfers queued between the tiles' can cost the last tile a few cycles.)"""
    lo = {p: r[0] for p, r in widgets.MODEL_CYCLES.items()}
    hi = {p: r[1] for p, r in widgets.MODEL_CYCLES.items()}
    for params in (lo, hi, {**lo, "dram_latency": hi["dram_latency"]}, {**hi, "compute": lo["compute"]}):
        for blocks in (1, 8):
            for _, bandwidth in widgets.MODEL_BANDWIDTH:
                t = timeline.model_totals(**params, blocks_per_sm=blocks, bytes_per_cycle=bandwidth)
                assert t["sync"] > 0 and t["async"] > 0


def test_the_model_widget_preview_draws_the_default_state(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.append(a))
    monkeypatch.setattr("ipywidgets.interact", lambda *a, **k: shown.append("interact"))
    monkeypatch.setenv(widgets.PREVIEW_ENV, "1")
    widgets.explore_model()
    assert len(shown) == 2 and "interact" not in shown   # the note and the figure, no widget
    shown.clear()
    monkeypatch.delenv(widgets.PREVIEW_ENV)
    widgets.explore_model()
    assert shown == ["interact"]


# --- notebook 02: what its cells compute from a recording ------------------------------------

POINTS = len(layout.TRACE_POINTS)


def records_at(starts_ns, ends_ns, sms, cycles=None):
    """Synthetic trace records: block b on SM sms[b], from starts_ns[b] to ends_ns[b] (its
    inner trace points evenly between), clock64 ``cycles[b]`` from start to stored."""
    rec = np.zeros((len(starts_ns), layout.TRACE_WORDS), np.uint64)
    for b, (s, e, sm) in enumerate(zip(starts_ns, ends_ns, sms)):
        rec[b, layout.TRACE_SM] = sm
        rec[b, layout.TRACE_NS] = np.linspace(s, e, POINTS).round()
        total = (e - s) if cycles is None else cycles[b]
        rec[b, layout.TRACE_CYCLES] = 1000 + np.linspace(0, total, POINTS).round()
    return rec


def test_sm_occupancy_counts_blocks_at_once_and_time_per_block():
    # SM 0: four blocks of 400 ns, starting 100 ns apart (at most 4 at once); SM 1: two blocks
    # back to back, the second starting at the very tick the first ends (never 2 at once).
    rec = records_at([0, 100, 200, 300, 0, 400], [400, 500, 600, 700, 400, 800], [0, 0, 0, 0, 1, 1])
    o0 = timeline.sm_occupancy(rec[:4])
    assert o0 == {"resident": 4, "block_ns": 400.0, "ns_per_block": 700 / 4}
    o1 = timeline.sm_occupancy(rec[4:])
    assert o1 == {"resident": 1, "block_ns": 400.0, "ns_per_block": 400.0}
    both = timeline.sm_occupancy(rec)
    assert both["resident"] == 4 and both["ns_per_block"] == pytest.approx((175 + 400) / 2)


def test_block_cycles_and_overlap_saving_of_synthetic_data():
    sync = records_at([0, 0], [100, 100], [0, 1], cycles=[1000, 1200])
    asyn = records_at([0, 0], [80, 80], [0, 1], cycles=[800, 1000])
    data = {"traces": {"tiled_sync": {"seed": sync.tolist()}, "async_halo": {"seed": asyn.tolist()}},
            "overhead": [{"variant": "tiled_sync", "n": 16, "plain_us": 2.0},
                         {"variant": "async_halo", "n": 16, "plain_us": 1.5},
                         {"variant": "tiled_sync", "n": 32, "plain_us": 4.0}],
            "cycles": {"tiled_sync": {"taps load": 400.0}}}
    s = timeline.overlap_saving(data)
    assert s["block_cycles"] == {"tiled_sync": 1100.0, "async_halo": 900.0}
    assert s["block_less"] == pytest.approx(200 / 1100)
    assert s["kernel_less"] == {16: pytest.approx(0.25)}        # n = 32 lacks async_halo
    assert s["kernel_us"] == {16: 2.0}


def test_taps_lesson_of_synthetic_data():
    cycles = {"tile load": 800.0, "taps load": 400.0, "wait": 60.0, "barrier": 1.0, "compute": 1.0}
    data = {"cycles": {"tiled_sync": cycles,
                       "async_halo": {**cycles, "tile load": 300.0, "taps load": 500.0, "wait": 90.0}}}
    lesson = timeline.taps_lesson(data)
    assert lesson["taps"] == {"tiled_sync": 400.0, "async_halo": 500.0}
    assert lesson["taps_over_puzzle"] == 4.0 and lesson["taps_over_tile"] == 0.5
    assert (lesson["issue"], lesson["async_taps"], lesson["wait_left"], lesson["empty_wait"]) == \
        (300.0, 500.0, 90.0, 60.0)


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
    "45% better utilization", never "45% improvement"."""
    nb = nbformat.read(ROOT / "notebooks" / "02_sync_vs_async_timelines.ipynb", as_version=4)
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    used = set(re.findall(r"\{glue:text\}`(\w+)`", md))
    glued = set()
    for name in ("recording", "model", "taps", "saving", "occupancy", "overhead"):
        if f"timeline.{name}_numbers(" in code:
            glued |= set(getattr(timeline, f"{name}_numbers")(*(() if name == "model" else (H200,))))
    if "timeline.tuned_numbers(" in code:           # chapter 05's tuned kernels
        from kernels.measure import recorded
        glued |= set(timeline.tuned_numbers(recorded.load("h200_roofline")))
    glued |= set(re.findall(r"\b(\w+)=rows\[", code))
    assert used and used <= glued, used - glued
    for vague in ("the cell's output", "cell prints what", "the lines above say", "(the cell"):
        assert vague not in md
    assert "45% better utilization" in md and "45% improvement" not in md + code
    # "the tables whose cells begin with `# live`": measured on the reader's GPU, so nbval skips
    # their outputs
    for c in nb.cells:
        if c.cell_type == "code" and c.source.startswith("# live"):
            assert "nbval-ignore-output" in c.metadata.get("tags", []), c.source
    assert "45 % improvement" not in md + code


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
    model = timeline.model_totals(**timeline.measured_preset(H200))
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
    rows = [timeline.model_totals(blocks_per_sm=b, bytes_per_cycle=16.0) for b in (1, 2, 4, 8)]
    shares = [r["less_time"] for r in rows]
    assert shares == sorted(shares, reverse=True) and shares[-1] < shares[0]
    assert all(a["saved"] >= b["saved"] - 1e-9 for a, b in zip(rows, rows[1:]))
    assert all(a["sync"] < b["sync"] for a, b in zip(rows, rows[1:]))


def test_the_halo_answer_of_notebook_01():
    cells = halo.halo_cells(n=100, tile=32, k=5)
    assert len(cells) == 16 and sum(c.source == "zero" for c in cells) == 4


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
        assert after[answers[0]].source.split("\n:::")[0].count(":::") == 1   # the fence closes
        assert re.search(r"\n:::(\n|$)", after[answers[0]].source)


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


def test_the_intro_names_the_operation_and_what_is_checked():
    text = (ROOT / "book" / "intro.md").read_text()
    assert "cross-correlation" in text and "correlate1d" in text
    assert "every claim" not in text
    assert "Two floating-point operations per input element read" not in text
    assert "$2K$" in text
    for motive in ("deep learning", "stencils", "image processing"):
        assert motive in text
    assert "## What you should know first" in text and "## Why it matters" in text
