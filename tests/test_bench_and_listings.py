"""The benchmark's command line and GPU timing, the listings, and the explore widget (the
recorded results: test_recorded.py)."""

import numpy as np
import pytest

import kernels
from kernels import bench, explore, listing, recorded, timing, widgets


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


def test_bench_cli_prints_the_ncu_metrics(capsys):
    bench.main(["--ncu-metrics"])
    assert capsys.readouterr().out.strip() == ",".join(recorded.NCU_METRICS)


def test_bench_cli_needs_a_gpu():
    if kernels.gpu_available():
        pytest.skip("this machine has a GPU: the benchmark would run")
    with pytest.raises(SystemExit, match="the benchmark needs a GPU"):
        bench.main(["--quick"])


@pytest.mark.gpu
def test_time_us_graphs_small_work_and_times_large_work_with_events():
    """Both methods, for a plain function (the copy) and for a Launch (a callable object)."""
    import cupy
    for n, method in ((2**16, "graph"), (timing.GRAPH_BELOW, "events")):
        x, w = (cupy.asarray(a) for a in kernels.random_inputs(n, 5, 0))
        y = cupy.zeros_like(x)
        times, used = timing.time_us(timing.copy_fn(x, y), n, n_repeat=20)
        assert used == method and np.all(times > 0)
        assert bool((y == x).all())
        launch = kernels.prepare("async_halo", x, w, y)
        times, used = timing.time_us(launch, n, n_repeat=20)
        assert used == method and np.all(times > 0)
        kernels.assert_correct(y, x.get(), w.get())
