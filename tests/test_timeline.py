"""The sync/async timeline model, and turning trace records into schedules."""

import dataclasses

import numpy as np
import pytest

from kernels import layout
from kernels.teach import plots, widgets
from kernels.measure import timeline
import kernels


def test_the_puzzle_numbers():
    t = timeline.model_totals()
    assert (t["sync"], t["async"], t["saved"]) == (650, 550, 100)
    assert t["less_time"] == pytest.approx(100 / 650)        # 15 %, not "45 %"
    assert t["speedup"] == pytest.approx(650 / 550)


@pytest.mark.parametrize("dram, weights, compute", [(500, 100, 50), (100, 500, 50), (300, 300, 10),
                                                    (50, 10, 500)])
def test_overlap_saves_the_shorter_load_exactly(dram, weights, compute):
    t = timeline.model_totals(dram_latency=dram, taps_latency=weights, compute=compute)
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


def test_measured_schedule_keeps_the_first_sms_and_the_window():
    rec = synthetic_records(blocks=8, sms=4)       # block b starts 50 b ns after block 0
    s = timeline.measured_schedule(rec, "two SMs", max_sms=2)
    assert {label.split(".")[0] for label in s.meta["labels"].values()} == {"SM 0", "SM 1"}
    assert len(s.bars) == 4 * len(timeline.TRACE_PHASES)     # blocks 0, 1, 4, 5
    early = timeline.measured_schedule(rec, "first 0.1 µs", max_sms=None, window_us=0.1)
    assert len(early.bars) == 3 * len(timeline.TRACE_PHASES)  # blocks 0, 1, 2
    assert "block" not in {f.name for f in dataclasses.fields(timeline.Bar)}


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
    data, source = timeline.load_or_measure()
    p = data["provenance"]
    assert p["backend"] == "gpu" and p["device"] and p["driver"] and p["cupy"] and p["date"]
    assert source.short.endswith(p["device"]) and str(source).startswith(source.short)
    if not kernels.gpu_available():
        assert source.short == f"RECORDED on {p['device']}"
        assert str(source) == (f"RECORDED on {p['device']} (driver {p['driver']}, CuPy "
                               f"{p['cupy']}, {p['date'][:10]}); no GPU here")
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
    with pytest.raises(ValueError, match="trace points"):
        timeline.trace("naive")


# --- python -m kernels.measure.timeline: --out checked first, written before the summary -------

@pytest.mark.parametrize("bad", ["missing/t.json", "t.txt", "."])
def test_the_command_line_checks_out_before_measuring(bad, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(timeline, "measure_all", lambda: pytest.fail("measured with a bad --out"))
    with pytest.raises(SystemExit) as caught:
        timeline.main(["--out", str(tmp_path / bad)])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.startswith("usage: python -m kernels.measure.timeline")


def test_the_command_line_writes_the_measurement_first(tmp_path, monkeypatch):
    import json
    monkeypatch.setattr(kernels.device, "gpu_available", lambda: True)
    monkeypatch.setattr(timeline, "measure_all", lambda: {"provenance": {}, "timer": {}})
    out = tmp_path / "t.json"
    with pytest.raises(KeyError):                 # the summary fails: no "cycles"
        timeline.main(["--out", str(out)])
    assert json.loads(out.read_text())["provenance"]["command"].endswith(str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]
