"""The sync/async timeline model, and turning trace records into schedules."""

import dataclasses
import json

import numpy as np
import pytest

from kernels import layout
from kernels.teach import plots, schedule
from kernels.measure import recorded, timeline
import kernels


@pytest.mark.parametrize("dram, weights, compute", [(500, 100, 50), (100, 500, 50), (300, 300, 10),
                                                    (50, 10, 500)])
def test_overlap_saves_the_shorter_load_exactly(dram, weights, compute):
    t = schedule.model_totals(dram_latency=dram, taps_latency=weights, compute=compute)
    assert t["sync"] == dram + weights + compute
    assert t["async"] == max(dram, weights) + compute
    assert t["saved"] == min(dram, weights)


@pytest.mark.parametrize("blocks", [1, 2, 3, 8])
@pytest.mark.parametrize("bandwidth", [None, 64.0, 4.0])
def test_async_is_never_slower_and_work_is_conserved(blocks, bandwidth):
    params = dict(blocks_per_sm=blocks, bytes_per_cycle=bandwidth, tile=512, k=9)
    t = schedule.model_totals(**params)
    assert t["async"] <= t["sync"]
    for mode in ("sync", "async"):
        bars = schedule.model(mode, **params).bars
        assert sum(b.phase == "compute" for b in bars) == blocks
        computes = sorted((b.start, b.start + b.duration) for b in bars if b.phase == "compute")
        assert all(a[1] <= b[0] for a, b in zip(computes, computes[1:]))   # one ALU at a time


def test_more_blocks_hide_latency():
    one = schedule.model_totals(blocks_per_sm=1)["async"]
    four = schedule.model_totals(blocks_per_sm=4)["async"]
    assert four < 4 * one


def test_model_rejects_bad_input():   # a bad mode, blocks_per_sm: test_validation.py
    with pytest.raises(ValueError, match="multiple of 32"):
        schedule.model(tile=100)
    with pytest.raises(ValueError, match="longer than the tile"):
        schedule.model(tile=32, k=33)


POINTS = len(layout.TRACE_POINTS)


def synthetic_records(blocks=6, sms=2):
    """Fake trace records: block b on SM b % sms, phases 100 ns apart, two blocks per SM slot."""
    rec = np.zeros((blocks, layout.TRACE_WORDS), np.uint64)
    for b in range(blocks):
        rec[b, layout.TRACE_SM] = b % sms
        start = 1_000_000 + 50 * b
        rec[b, layout.TRACE_NS] = start + 100 * np.arange(POINTS)
        rec[b, layout.TRACE_CYCLES] = 10_000 + 7 * b + 180 * np.arange(POINTS)
    return rec


def test_trace_phases_run_between_consecutive_trace_points():
    """Each measured phase goes from one trace point of the record layout to the next, in order,
    and the phases are the model's."""
    points = [(a, z) for _, a, z in timeline.TRACE_PHASES]
    assert points == list(zip(layout.TRACE_POINTS, layout.TRACE_POINTS[1:]))
    assert tuple(name for name, *_ in timeline.TRACE_PHASES) == timeline.PHASES
    assert set(timeline.SEED_CYCLES) <= set(timeline.PHASES)


def test_measured_schedule_from_records():
    s = schedule.measured_schedule(synthetic_records(), "synthetic", max_sms=None)
    assert {b.phase for b in s.bars} == set(timeline.PHASES)
    assert min(b.start for b in s.bars) == 0
    assert s.total == pytest.approx((5 * 100 + 50 * 5) / 1e3)
    assert all(b.duration == pytest.approx(0.1) for b in s.bars)
    assert timeline.phase_cycles(synthetic_records()) == {p: 180.0 for p, *_ in timeline.TRACE_PHASES}
    assert plots.plot_schedules(s, schedule.model("async")).axes


def test_measured_schedule_puts_overlapping_blocks_on_separate_lanes():
    rec = synthetic_records(blocks=4, sms=1)       # all on SM 0, overlapping in time
    s = schedule.measured_schedule(rec, "one SM")
    assert len({b.lane for b in s.bars}) == 4


def test_measured_schedule_keeps_the_first_sms_and_the_window():
    rec = synthetic_records(blocks=8, sms=4)       # block b starts 50 b ns after block 0
    s = schedule.measured_schedule(rec, "two SMs", max_sms=2)
    assert {label.split(".")[0] for label in s.meta["labels"].values()} == {"SM 0", "SM 1"}
    assert len(s.bars) == 4 * len(timeline.TRACE_PHASES)     # blocks 0, 1, 4, 5
    early = schedule.measured_schedule(rec, "first 0.1 µs", max_sms=None, window_us=0.1)
    assert len(early.bars) == 3 * len(timeline.TRACE_PHASES)  # blocks 0, 1, 2
    assert "block" not in {f.name for f in dataclasses.fields(schedule.Bar)}


def test_first_keeps_the_blocks_a_recording_keeps():
    rec = synthetic_records(blocks=8, sms=4)
    kept = timeline._first(rec, sms=2, us=0.2)
    assert kept[:, layout.TRACE_SM].tolist() == [0, 1, 0]   # blocks 0, 1 and 4 (200 ns)
    assert np.array_equal(timeline._first(rec, sms=4, us=1.0), rec)


def test_records_come_back_in_the_record_layout():
    rec = synthetic_records()
    data = {"traces": {"async_halo": {"seed": rec.tolist(), "large": []}}}
    assert np.array_equal(timeline.records(data, "async_halo"), rec)
    assert timeline.records(data, "async_halo", "large").shape == (0, layout.TRACE_WORDS)


def test_recorded_timelines_name_their_device():
    data, source = schedule.load_or_measure()
    p = data["provenance"]
    assert p["backend"] == "gpu" and p["device"] and p["driver"] and p["cupy"] and p["date"]
    assert source.short.endswith(p["device"]) and str(source).startswith(source.short)
    if not kernels.gpu_available():   # str(source) in full: test_teach_in_korean.py
        assert source.short == f"RECORDED on {p['device']}"
    for variant in timeline.TIMELINE_VARIANTS:
        seed = timeline.records(data, variant)
        assert seed.shape == (kernels.PUZZLE28.blocks, layout.TRACE_WORDS)   # one per block
        assert np.all(np.diff(seed[:, layout.TRACE_NS].astype(np.int64), axis=1) >= 0)   # in order
        assert timeline.phase_cycles(seed) == data["cycles"][variant]
    assert data["timer"]["min_step_ns"] > 0
    assert {r["variant"] for r in data["overhead"]} == set(timeline.TIMELINE_VARIANTS)


@pytest.mark.gpu
def test_live_trace_is_consistent():
    rec = timeline.trace("async_halo")
    assert rec.shape == (kernels.PUZZLE28.blocks, layout.TRACE_WORDS)
    assert np.all(np.diff(rec[:, layout.TRACE_NS].astype(np.int64), axis=1) >= 0)
    assert np.all(np.diff(rec[:, layout.TRACE_CYCLES].astype(np.int64), axis=1) >= 0)


# --- python -m kernels.measure.timeline: --out checked first, written before the summary -------

@pytest.mark.parametrize("bad", ["missing/t.json", "t.txt", "."])
def test_the_command_line_checks_out_before_measuring(bad, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(timeline, "measure_all", lambda: pytest.fail("measured with a bad --out"))
    with pytest.raises(SystemExit) as caught:
        timeline.main(["--out", str(tmp_path / bad)])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.startswith("usage: python -m kernels.measure.timeline")


def test_the_command_line_writes_the_measurement_first(tmp_path, monkeypatch):
    monkeypatch.setattr(kernels.device, "gpu_available", lambda: True)
    monkeypatch.setattr(timeline, "measure_all", lambda: {"provenance": {}, "timer": {}})
    out = tmp_path / "t.json"
    with pytest.raises(KeyError):                 # the summary fails: no "cycles"
        timeline.main(["--out", str(out)])
    assert json.loads(out.read_text())["provenance"]["command"].endswith(str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]


# --- notebook 02's glued numbers and its statements checked on a live run ----------------------

def test_the_page_numbers_of_the_h200_recording():
    h200 = recorded.load("h200_timelines")
    assert schedule.recording_numbers(h200) == {"rec_device": "NVIDIA H200", "rec_date": "2026-12-04",
                                                "rec_sms": "132", "rec_l2": "60 MiB"}
    assert schedule.recording_numbers(h200)["rec_date"].ko == "2026년 12월 4일"
    assert schedule.model_numbers() == {"model_sync": "650", "model_async": "550", "model_saved": "100",
                                        "model_less": "15.4%", "model_speedup": "1.18x"}
    taps = schedule.taps_numbers(h200)
    assert (taps["tile_sync"], taps["tile_per_load"], taps["taps_sync"]) == ("849", "424", "484")
    assert taps["taps_over_load"] == "1.1" and taps["taps_over_puzzle"] == "4.8"
    saving = schedule.saving_numbers(h200)
    assert (saving["block_sync"], saving["block_async"], saving["block_less"]) == ("1,731", "1,110", "36%")
    assert saving["kernel_less_large"] == "17%"
    occ = schedule.occupancy_numbers(h200)
    assert (occ["occ_seed_sync"], occ["occ_seed_async"], occ["occ_large_resident"]) == ("864", "544", "8")
    assert schedule.overhead_numbers(h200) == {"cost_low": "10%", "cost_high": "26%"}
    for numbers in (taps, saving, occ):
        assert all(isinstance(v, str) and v for v in numbers.values())


def test_the_taps_load_is_compared_request_for_request():
    cycles = {"tile load": 800.0, "taps load": 400.0, "wait": 60.0, "barrier": 1.0, "compute": 1.0}
    lesson = timeline.taps_lesson({"cycles": {"tiled_sync": cycles, "async_halo": cycles}})
    assert lesson["tile_per_load"] == 400.0 and lesson["taps_over_load"] == 1.0


def test_the_puzzle_size_numbers_of_chapter_05_as_02_quotes_them():
    assert schedule.seed_numbers(recorded.load("h200_roofline")) == {"seed_async_less": "20%",
                                                                     "seed_first_less": "26%"}


def test_the_hand_off_picture_writes_the_parity_rule():
    """05's picture: before round r's read, full[s] with parity r & 1; before round r's fill,
    empty[s] with the other parity (round 0's returns at once on a fresh barrier). 03's and 04's:
    the same ring, tile t in buffer t mod stages, the prologue's tiles in flight before the loop."""
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text as Label

    def words(fig):
        return {t.get_text() for t in fig.findobj(Label)}
    said = words(plots.plot_handoff(stages=2, tiles=4))
    for i in range(4):
        s, r = i % 2, i // 2
        assert {f"wait full[{s}] p={r & 1}",
                f"wait empty[{s}] p={(r & 1) ^ 1}" + (": at once" if r == 0 else "")} <= said
    asked = plots.plot_handoff(stages=2, tiles=4, parities=False)   # before exercise 4
    assert not {w for w in words(asked) if "p=" in w} - {"wait full[0] p=?", "wait full[1] p=?",
                                                          "wait empty[0] p=?", "wait empty[1] p=?"}
    assert "parity (r" not in asked.alt
    ring = plots.plot_handoff(stages=3, tiles=6, kind="pipeline")
    assert {f"compute tile {i}" for i in range(6)} <= words(ring)
    boxes = [p for p in ring.axes[0].patches if isinstance(p, Rectangle)]
    for i in range(6):   # tile i's copy, then its compute, in column i % 3
        copy, compute = boxes[2 * i], boxes[2 * i + 1]
        assert int(copy.get_x()) == int(compute.get_x()) == i % 3
    starts = sorted(b.get_y() for b in boxes[0::2])
    assert starts[0] == starts[1] < 0 < starts[2]   # the prologue: tiles 0 and 1, before the loop
    assert "tiles 0 and 1" in ring.alt and "every compute thread" in plots.plot_handoff().alt
    with pytest.raises(ValueError, match="kind"):
        plots.plot_handoff(kind="tma")
