"""The sync/async timeline model, and turning trace records into schedules."""

import numpy as np
import pytest

from kernels import plots, timeline, widgets
import kernels


def test_the_puzzle_numbers():
    t = timeline.model_totals()
    assert (t["sync"], t["async"], t["saved"]) == (650, 550, 100)
    assert t["less_time"] == pytest.approx(100 / 650)        # 15 %, not "45 %"
    assert t["speedup"] == pytest.approx(650 / 550)


@pytest.mark.parametrize("dram, weights, compute", [(500, 100, 50), (100, 500, 50), (300, 300, 10),
                                                    (50, 10, 500)])
def test_overlap_saves_the_shorter_load_exactly(dram, weights, compute):
    t = timeline.model_totals(dram_latency=dram, weight_latency=weights, compute=compute)
    assert t["sync"] == dram + weights + compute
    assert t["async"] == max(dram, weights) + compute
    assert t["saved"] == min(dram, weights)


@pytest.mark.parametrize("blocks", [1, 2, 3, 8])
@pytest.mark.parametrize("bandwidth", [None, 64.0, 4.0])
def test_async_is_never_slower_and_work_is_conserved(blocks, bandwidth):
    params = dict(blocks_per_sm=blocks, bytes_per_cycle=bandwidth, tile=512, k=9)
    t = timeline.model_totals(**params)
    assert t["async"] <= t["sync"]
    for mode in ("sync", "async"):
        bars = timeline.model(mode, **params).bars
        assert sum(b.phase == "compute" for b in bars) == blocks
        computes = sorted((b.start, b.start + b.duration) for b in bars if b.phase == "compute")
        assert all(a[1] <= b[0] for a, b in zip(computes, computes[1:]))   # one ALU at a time


def test_more_blocks_hide_latency():
    one = timeline.model_totals(blocks_per_sm=1)["async"]
    four = timeline.model_totals(blocks_per_sm=4)["async"]
    assert four < 4 * one


def test_model_rejects_bad_input():
    with pytest.raises(ValueError, match="mode"):
        timeline.model("overlapped")
    with pytest.raises(ValueError, match="multiple of 32"):
        timeline.model(tile=100)
    with pytest.raises(ValueError, match="longer than the tile"):
        timeline.model(tile=32, k=33)
    with pytest.raises(ValueError, match="blocks_per_sm"):
        timeline.model(blocks_per_sm=0)


def test_model_widget_offers_only_valid_values():
    c = widgets.model_controls()
    for tile in c["tile"].options:
        for k in range(c["k"].min, c["k"].max + 1):
            for blocks in (c["blocks_per_sm"].min, c["blocks_per_sm"].max):
                for _, bw in c["bytes_per_cycle"].options:
                    timeline.model("async", tile=tile, k=k, blocks_per_sm=blocks, bytes_per_cycle=bw)


def synthetic_records(blocks=6, sms=2):
    """Fake trace records: block b on SM b % sms, phases 100 ns apart, two blocks per SM slot."""
    rec = np.zeros((blocks, 13), np.uint64)
    for b in range(blocks):
        rec[b, 0] = b % sms
        start = 1_000_000 + 50 * b
        rec[b, 1:7] = start + 100 * np.arange(6)
        rec[b, 7:13] = 10_000 + 7 * b + 180 * np.arange(6)
    return rec


def test_measured_schedule_from_records():
    s = timeline.measured_schedule(synthetic_records(), "synthetic", max_sms=None)
    assert {b.phase for b in s.bars} == set(timeline.PHASES)
    assert min(b.start for b in s.bars) == 0
    assert s.total == pytest.approx((5 * 100 + 50 * 5) / 1e3)
    assert all(b.duration == pytest.approx(0.1) for b in s.bars)
    assert timeline.phase_cycles(synthetic_records()) == {p: 180.0 for p, *_ in timeline.TRACE_PHASES}
    assert plots.plot_schedules(s, timeline.model("async")).axes


def test_measured_schedule_puts_overlapping_blocks_on_separate_lanes():
    rec = synthetic_records(blocks=4, sms=1)       # all on SM 0, overlapping in time
    s = timeline.measured_schedule(rec, "one SM")
    assert len({b.lane for b in s.bars}) == 4


def test_recorded_timelines_name_their_device():
    data, label = timeline.load_or_measure()
    p = data["provenance"]
    assert p["backend"] == "gpu" and p["device"] and p["driver"] and p["cupy"] and p["date"]
    if not kernels.gpu_available():
        assert label.startswith("RECORDED on")
    for variant in timeline.TIMELINE_VARIANTS:
        seed = timeline.records(data, variant)
        assert seed.shape == (64, 13)                  # one record per block at the seed config
        assert np.all(np.diff(seed[:, 1:7].astype(np.int64), axis=1) >= 0)   # points in order
    assert data["timer"]["min_step_ns"] > 0
    assert {r["variant"] for r in data["overhead"]} == set(timeline.TIMELINE_VARIANTS)


@pytest.mark.gpu
def test_live_trace_is_consistent():
    rec = timeline.trace("async_halo")
    assert rec.shape == (64, 13)
    assert np.all(np.diff(rec[:, 1:7].astype(np.int64), axis=1) >= 0)
    assert np.all(np.diff(rec[:, 7:13].astype(np.int64), axis=1) >= 0)
    with pytest.raises(ValueError, match="trace points"):
        timeline.trace("naive")
