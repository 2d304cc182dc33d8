"""The benchmark's recorded results and helpers, the listings, and the explore widget."""

import numpy as np
import pytest

import kernels
from kernels import bench, explore, listing, plots, widgets


@pytest.fixture(scope="module")
def recorded():
    return bench.load()


def test_recorded_benchmark_names_its_device_and_method(recorded):
    p = recorded["provenance"]
    for key in ("device", "driver", "cupy", "date", "command", "compute_capability"):
        assert p[key], key
    assert p["backend"] == "gpu"
    names = {r["name"] for r in recorded["rows"]}
    assert set(bench.OURS) | {"copy"} <= names
    for r in recorded["rows"]:
        assert r["method"] in ("events", "graph")
        assert r["ratio"] == pytest.approx(r["median_us"] / r["copy_us"])
        assert r["gbps"] == pytest.approx(8 * r["n"] / r["median_us"] / 1e3)


def test_recorded_benchmark_covers_the_sweep(recorded):
    rows = recorded["rows"]
    assert {r["n"] for r in rows} == {2**p for p in range(14, 29, 2)}
    assert {r["k"] for r in rows} == {3, 5, 9, 31}
    assert {r["config"]["stages"] for r in recorded["stage_sweep"]} == {1, 2, 3, 4}


def test_table_and_plots_from_the_recording(recorded):
    text = bench.table(recorded)
    assert "copy" in text and "pipelined" in text
    assert plots.plot_bandwidth(recorded, k=5).axes
    assert plots.plot_stage_sweep(recorded).axes


def test_diff_marks_what_changed():
    d = listing.diff_text("tiled_sync", "async_halo")
    added = [l for l in d.splitlines() if l.startswith("+") and not l.startswith("+++")]
    assert any("memcpy_async" in l for l in added)
    assert any("consumer_wait" in l for l in added)
    assert not any("__syncthreads" in l for l in added)    # the barrier was already there


def test_copy_instructions_show_the_sm75_fallback():
    assert "cp.async.ca.shared.global" not in listing.copy_instructions("async_halo", 75)
    assert listing.copy_instructions("async_halo", 80)["cp.async.ca.shared.global"] >= 1


def test_convolution_widget_offers_only_valid_combinations():
    c = widgets.convolution_controls()
    for variant in c["variant"].options:
        for tile in c["tile"].options:
            for k in range(c["k"].min, c["k"].max + 1):
                for n in c["n"].options:
                    kernels.launch_config(n, k, tile, variant=variant)


def test_explore_run_reports_correctness():
    r = explore.run("async_halo", n=1000, tile=64, k=9)
    assert r.wrong == 0 and r.max_error_over_bound <= 1
    bad = explore.run("puzzle28", n=1000, tile=64, k=9)
    assert bad.wrong > 0 and "WRONG" in bad.summary()


@pytest.mark.gpu
def test_measure_on_the_gpu():
    rows = bench.measure(["async_halo", "pipelined", "cupyx.ndimage.correlate1d"], 2**20, 5)
    assert {r.name for r in rows} >= {"copy", "async_halo", "pipelined"}
    assert all(r.median_us > 0 and r.copy_us > 0 for r in rows)


def test_recorded_peers_were_timed_with_events(recorded):
    """A CuPy graph capture does not record PyTorch's launches: peers are never graph-timed."""
    assert all(r["method"] == "events" for r in recorded["rows"] if r["name"] in bench.PEERS)


def test_recorded_tuning_tried_both_schedules(recorded):
    """Persistent blocks and one block per tile were both measured for each staged variant, and
    the chosen configuration is the fastest tuning row of its variant."""
    best = bench.best_by_schedule(recorded)
    assert set(best) == {(v, p) for v in ("pipelined", "bulk") for p in (True, False)}
    for variant in ("pipelined", "bulk"):
        rows = [r for r in recorded["tuning"] if r["name"] == variant]
        fastest = min(rows, key=lambda r: r["median_us"])["config"]
        assert {k: fastest[k] for k in bench.TUNED} == recorded["configs"][variant]
    assert all(r["config"]["persistent"] for r in recorded["stage_sweep"])
