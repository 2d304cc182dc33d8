"""The roofline across K: the synchronous staged control, the sweep's plan and bound,
the noise-aware reading of a recording and its figure. CPU tests use a synthetic recording
(tests/inputs.py); the GPU tests run a small sweep."""

import copy
import json
import re

import numpy as np
import pytest
from inputs import check_variants, random_inputs, roofline_recording

import kernels
from kernels.measure import bench, recorded, roofline
from kernels.teach import charts
from kernels import variants as V
from kernels.compile import Build, compile_source

N = 2**26


# --- staged_sync: pipelined's staging without asynchrony --------------------------------------

def test_staged_sync_stages_16_byte_chunks_with_plain_loads():
    """float4 loads from global memory and float4 stores to shared memory, nothing
    asynchronous: the copy pipelined makes on sm_75 (book/generations.md), on every GPU."""
    text = compile_source(kernels.source("staged_sync"), V.get("staged_sync").kernel,
                          Build(1024, 9, 256, "compute_80")).decode()
    assert re.search(r"ld\.global\.nc\.v4\.f32", text)
    assert re.search(r"st\.shared\.v4\.f32", text)
    assert "cp.async" not in text and "mbarrier" not in text
    assert text.count("bar.sync") == 1        # one barrier: the buffer is filled once


def test_staged_sync_differs_from_pipelined_only_in_the_copy():
    """The compute loop (load_window4, convolve4, store4) is pipelined's, line for line, and both
    buffers hold the same span; the emulations agree bit for bit."""
    def compute(variant):
        src = kernels.source(variant)
        body = src[src.index("for (int c = threadIdx.x; c < CONV_TILE / 4"):]
        return [line.strip().replace("x_s[stage]", "x_s").replace("tile * CONV_TILE", "tile_start")
                for line in body.splitlines()[:8]]
    assert compute("staged_sync") == compute("pipelined")
    for tile, k in ((32, 1), (96, 8), (1024, 31)):
        assert (kernels.geometry.shared_bytes("staged_sync", tile, k)
                == kernels.geometry.shared_bytes("pipelined", tile, k, 1))
        x, w = random_inputs(50_001, k)
        y = kernels.emulate("staged_sync", x, w, tile=tile)
        np.testing.assert_array_equal(y, kernels.emulate("pipelined", x, w, tile=tile))
        kernels.assert_correct(y, x, w)


def test_staged_sync_takes_no_stages():
    with pytest.raises(ValueError, match="stages applies to pipelined, bulk and warp_specialized only"):
        kernels.launch_config(10**6, 5, 1024, variant="staged_sync", stages=2)
    with pytest.raises(ValueError, match="at most 64"):
        kernels.launch_config(10**6, 65, 1024, variant="staged_sync")


# --- which variants a recording must hold -------------------------------------------------------

def test_a_variant_added_after_a_recording_is_excused_and_only_then():
    bench_rec = recorded.load()
    held = {r["name"] for r in bench_rec["rows"]}
    excused = check_variants(bench_rec, held)
    assert set(excused) == set(V.NAMES) - held           # only what it lacks
    for name in excused:                                 # ... and each added after it
        assert V.get(name).added > bench_rec["provenance"]["date"]
    newer = dict(bench_rec, provenance=dict(bench_rec["provenance"],
                                            date="2099-01-01T00:00:00+00:00"))
    assert recorded.variants_expected(newer) == V.NAMES
    if excused:
        with pytest.raises(ValueError, match=f"lacks {excused[0]}.*re-record it"):
            check_variants(newer, held)
    with pytest.raises(ValueError, match="lacks vec4, which the registry held"):
        check_variants(bench_rec, held - {"vec4"})


def test_a_recording_date_must_be_an_iso_time_with_its_offset():
    rec = roofline_recording()
    with pytest.raises(ValueError, match="ISO 8601"):   # no offset: test_validation.py
        recorded.variants_expected(dict(rec, provenance={"date": "yesterday"}))
    for v in V.VARIANTS:    # every registry date parses, with its offset
        if v.added is not None:
            assert recorded._instant(v.added, v.name).utcoffset() is not None


# --- noise-aware comparisons and the reading of a roofline recording ---------------------------

def timed(name, median, q1, q3):
    return dict(name=name, median_us=median, q1_us=q1, q3_us=q3)


def test_a_tie_is_overlapping_interquartile_ranges_or_a_difference_within_the_drift():
    a = timed("a", 100.0, 99.0, 101.0)
    assert recorded.tie(a, timed("b", 101.5, 100.9, 102.0))     # overlap: a tie
    assert recorded.tie(a, timed("b", 102.0, 101.0, 103.0))     # touching: still a tie
    assert recorded.tie(a, timed("b", 102.0, 101.1, 103.0))     # 2% apart: within the drift
    assert recorded.RUN_TO_RUN == 0.04
    assert not recorded.tie(a, timed("b", 102.0, 101.1, 103.0), drift=0.01)
    assert not recorded.tie(a, timed("b", 104.5, 104.0, 105.0))
    assert recorded.compare(a, timed("b", 101.5, 100.9, 102.0)) == "tie"
    assert recorded.compare(a, timed("b", 105.0, 104.0, 106.0)) == "a"
    assert recorded.compare(timed("b", 105.0, 104.0, 106.0), a) == "a"
    assert recorded.compare(a, timed("b", 90.0, 89.0, 91.0)) == "b"


def test_roofline_rows_by_variant_fewest_taps_first():
    rec = roofline_recording()
    rows = recorded.roofline_rows(rec, N)
    assert list(rows) == list(roofline.VARIANTS)
    assert [r["k"] for r in rows["async_halo"]] == [1, 3, 5, 31, 63, 127]
    assert [r["k"] for r in rows["bulk"]] == [1, 3, 5, 31, 63]
    for r in (r for rs in rows.values() for r in rs):
        assert r["n"] == N
        assert r["bound_us"] == max(r["copy_us"], r["fma_us"])
        assert r["ratio"] == pytest.approx(r["median_us"] / r["bound_us"])
        assert r["limit"] == ("fma" if r["fma_us"] > r["copy_us"] else "copy")
        assert min(t["median_us"] for t in r["tried"]) == r["median_us"]


def test_async_vs_sync_names_a_winner_only_outside_the_noise():
    rec = roofline_recording()
    sync_wins, tie, async_wins = (recorded.async_vs_sync(rec, N, k) for k in (1, 5, 31))
    assert (sync_wins.best_async, sync_wins.winner) == ("pipelined", "sync")
    assert sync_wins.speedup == pytest.approx(1.2 / 1.05)
    assert (tie.best_async, tie.winner) == ("pipelined", "tie")
    assert (async_wins.best_async, async_wins.winner) == ("bulk", "async")
    assert async_wins.speedup == pytest.approx(1.5 / 1.4)
    # against the other synchronous controls too
    assert recorded.async_vs_sync(rec, N, 5, control="vec4").winner == "sync"


def test_a_difference_inside_the_noise_is_a_tie_whatever_the_medians():
    rec = copy.deepcopy(roofline_recording())
    for r in rec["rows"]:
        if r["n"] == N and r["k"] == 31 and r["name"] == "staged_sync":
            r["q1_us"] = 0.5 * r["median_us"]          # a noisy control reaches bulk's range
    assert recorded.async_vs_sync(rec, N, 31).winner == "tie"


def test_launch_overhead_at_the_seed_size():
    share = recorded.launch_overhead(roofline_recording())
    assert share == pytest.approx({"tiled_sync": 2.0 / 4.0, "tiled_loads_first": 2.0 / 3.4,
                                   "async_halo": 2.0 / 3.6})


def test_plot_roofline():
    rec = roofline_recording()
    fig = charts.plot_roofline(rec, N, label="synthetic")
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert set(roofline.VARIANTS) <= set(labels)
    assert "the bound: max(copy, FMA time)" in labels and "FMAs bound it, not the copy" in labels
    assert ax.get_xscale() == "log" and [int(t) for t in ax.get_xticks()] == [1, 3, 5, 31, 63, 127]
    bound = [line for line in ax.get_lines() if list(line.get_ydata()) == [1.0, 1.0]]
    assert bound and bound[0].get_linestyle() == "--"
    two = charts.plot_roofline(rec, 2**24, variants=["staged_sync", "bulk"])
    assert [t for t in two.axes[0].get_legend_handles_labels()[1] if t in V.NAMES] == [
        "staged_sync", "bulk"]
    no_fma = copy.deepcopy(rec)
    no_fma["rows"] = [r for r in rec["rows"] if r["limit"] == "copy"]
    assert "FMAs bound it, not the copy" not in charts.plot_roofline(
        no_fma).axes[0].get_legend_handles_labels()[1]


# --- the sweep: its plan, its bound, its checks -------------------------------------------------

def test_the_plan_covers_the_issue_and_fits_the_budget():
    cases = roofline.plan()
    assert {n for n, *_ in cases} == {2**24, 2**26}
    by = {}
    for n, k, v, grid in cases:
        by.setdefault(v, set()).add(k)
        assert grid and all(c.n == n and c.k == k and c.variant == v for c in grid)
        assert {c.threads for c in grid} == set(roofline.THREADS)
    assert by["async_halo"] == by["tiled_sync"] == {1, 3, 5, 9, 17, 31, 63, 127}
    for v in ("vec4", "staged_sync", "pipelined", "bulk", "warp_specialized"):
        assert by[v] == {1, 3, 5, 9, 17, 31, 63}                 # a register window: K <= 64
    grid = {v: g for n, k, v, g in cases if (n, k) == (N, 31)}
    # the synchronous controls are tuned over the asynchronous variants' tiles and threads
    for control in ("vec4", "staged_sync"):
        assert ({(c.tile, c.threads) for c in grid[control]}
                == {(c.tile, c.threads) for c in grid["pipelined"]})
    assert {(c.stages, c.persistent) for c in grid["pipelined"]} == {
        (1, True), (2, True), (4, True), (1, False)}
    est = roofline.estimate_seconds(cases, cpus=16)
    assert est["timed_configs"] == sum(len(g) for *_, g in cases) < 1500
    assert est["total_s"] < 120, est                         # the budget: 4 minutes of H200
    assert est["compilations"] == len(roofline.builds(cases)) < est["timed_configs"]


def test_tuning_grid_of_plain_and_staged_variants():
    plain = bench.tuning_grid("staged_sync", N, 5, tiles=(1024, 4096), threads=(256,))
    assert [(c.tile, c.stages, c.persistent) for c in plain] == [(1024, None, None),
                                                                 (4096, None, None)]
    staged = bench.tuning_grid("pipelined", N, 5, tiles=(4096,), threads=(256,))
    assert [(c.stages, c.persistent) for c in staged] == [(1, True), (2, True), (1, False)]
    assert bench.launch_keywords(staged[0]) == dict(tile=4096, threads=256, stages=1,
                                                    persistent=True)


def test_bounded_rows():
    row = bench.Row("bulk", N, 127, 300.0, 299.0, 302.0, 134.0, "events", {"tile": 1024})
    other = bench.Row("bulk", N, 127, 350.0, 349.0, 352.0, 134.0, "events", {"tile": 4096})
    b = roofline.bounded(row, 3.0e13, [row, other])
    assert b["fma_us"] == pytest.approx(N * 127 / 3.0e13 * 1e6)
    assert b["bound_us"] == b["fma_us"] and b["limit"] == "fma"
    assert b["ratio"] == pytest.approx(300.0 / b["fma_us"])
    assert b["copy_ratio"] == pytest.approx(300.0 / 134.0)
    assert [t["config"]["tile"] for t in b["tried"]] == [1024, 4096]
    assert json.loads(json.dumps(b)) == b


def test_reference_and_bound_agree_with_the_host_reference():
    x, w = random_inputs(30_001, 8, 3)
    ref, bound = roofline.reference_and_bound(x, w)
    np.testing.assert_allclose(ref, kernels.reference(x, w), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bound, kernels.error_bound(x, w), rtol=1e-12)
    y = kernels.emulate("staged_sync", x, w, tile=1024)
    assert roofline.count_wrong(y, ref, bound) == 0
    y[[5, 700]] = np.nan, y[700] + 1.0
    assert roofline.count_wrong(y, ref, bound) == kernels.wrong_outputs(y, x, w).size == 2


def test_the_probes_compile_to_independent_fma_chains():
    text = compile_source(roofline.PROBES, "fma_throughput", Build(32, 1, 32, "compute_90"))
    body = text.decode().split(".entry fma_throughput")[1].split(".entry")[0]
    fmas = re.findall(r"fma\.rn\.f32", body)
    assert len(fmas) >= roofline.FMA_CHAINS and len(fmas) % roofline.FMA_CHAINS == 0
    assert ".entry empty_kernel" in text.decode()


def test_the_command_line_plans_without_a_gpu(capsys):
    roofline.main(["--plan", "--cpus", "16"])
    est = json.loads(capsys.readouterr().out)
    assert est == roofline.estimate_seconds(roofline.plan(), cpus=16)
    roofline.main(["--plan", "--quick", "--cpus", "16"])
    assert json.loads(capsys.readouterr().out)["cases"] == 19
    if not kernels.gpu_available():
        with pytest.raises(SystemExit, match="the roofline needs a GPU"):
            roofline.main([])


def test_the_sweep_end_to_end_with_fake_timings(monkeypatch, capsys):
    """run()'s bookkeeping without a GPU: timings faked (a larger tile is slower, persistent
    blocks slower still), everything else real. Every case gets its row, the fastest of its
    grid, checked once per K at the smallest N; the recording survives JSON and reads back."""
    import cupy
    calls = {"warm": 0, "check": []}

    def time_variant(name, x, w, y, copy_us, kw=None, n_repeat=None, check=None):
        assert check is None and n_repeat == 7 and y.size == x.size
        t = copy_us * (1 + kw["tile"] / 8192 + (0.5 if kw.get("persistent") else 0))
        return bench.Row(name, x.size, w.size, t, 0.99 * t, 1.01 * t, copy_us, "events",
                         dict(kw, grid=-(-x.size // kw["tile"])))

    def time_copy(x, y, k, n_repeat=None):
        t = 8 * x.size / 4e12 * 1e6
        return bench.Row("copy", x.size, k, t, t, t, t, "events", {})

    monkeypatch.setattr(roofline, "needs_gpu", lambda what: None)    # the fakes stand in for it
    monkeypatch.setattr(cupy.random, "RandomState", np.random.default_rng)   # on the host
    monkeypatch.setattr(cupy, "empty_like", np.empty_like)
    monkeypatch.setattr(bench, "time_variant", time_variant)
    monkeypatch.setattr(bench, "time_copy", time_copy)
    monkeypatch.setattr(bench, "_warm", lambda pairs: calls.update(warm=len(pairs)))
    monkeypatch.setattr(roofline, "fma_rate", lambda n_repeat: {"fma_per_s": 3.0e13})
    monkeypatch.setattr(roofline, "seed_size", lambda seed: roofline_recording()["seed"])
    monkeypatch.setattr(roofline, "_check", lambda v, x, w, y, best, ref, bound:
                        calls["check"].append((v, x.size, w.size)))
    sizes, ks = (2**12, 2**14), (3, 31)
    rec = json.loads(json.dumps(roofline.run(sizes, ks, (127,), n_repeat=7, progress=True)))
    assert calls["warm"] == len(roofline.builds(roofline.plan(sizes, ks + (127,))))
    cases = roofline.plan(sizes, ks + (127,))
    assert [(r["n"], r["k"], r["name"]) for r in rec["rows"]] == [c[:3] for c in cases]
    assert sorted(calls["check"]) == sorted((v, 2**12, k) for n, k, v, _ in cases if n == 2**12)
    assert all(r["checked"] == (r["n"] == 2**12) for r in rec["rows"])
    for r in rec["rows"]:
        assert r["config"]["tile"] == min(c["config"]["tile"] for c in r["tried"])
        assert r["config"].get("persistent") in (None, False)
    assert [(c["n"], c["k"]) for c in rec["copies"]] == [(n, k) for n in sizes
                                                         for k in ks + (127,)]
    assert rec["provenance"]["n_repeat"] == 7 and rec["provenance"]["checked_at_n"] == 2**12
    assert rec["grid"]["pipelined"] == {"tiles": [1024, 2048, 4096], "stages": [1, 2, 4],
                                        "threads": [128, 256]}
    err = capsys.readouterr().err
    assert "roofline: 38 cases" in err and "n=2^14 k=127" in err
    assert recorded.async_vs_sync(rec, 2**14, 31).winner in ("async", "sync", "tie")
    assert charts.plot_roofline(rec, 2**14).axes


def test_the_recorded_roofline():
    """kernels/recorded/h200_roofline.json, once a GPU run has written it: every case of the plan
    (but the variants its GPU left out), consistent bounds and ratios, each row the fastest of
    its grid, checked at the smallest N, and the seed size with its empty kernel."""
    path = recorded.RECORDED / "h200_roofline.json"
    if not path.exists():
        pytest.skip(f"{path.name} is not recorded yet: python -m kernels.measure.roofline --out "
                    f"kernels/recorded/{path.name} on a GPU")
    rec = recorded.load("h200_roofline")
    p = rec["provenance"]
    assert p["backend"] == "gpu" and p["device"] and p["date"] and p["command"]
    left_out = {v for v in roofline.VARIANTS for note in rec["left_out"]
                if note.startswith(f"{v}:")}
    plan = roofline.plan(variants=tuple(v for v in roofline.VARIANTS if v not in left_out))
    assert [(r["n"], r["k"], r["name"]) for r in rec["rows"]] == [c[:3] for c in plan]
    for r, (_, _, _, grid) in zip(rec["rows"], plan):
        assert r["bound_us"] == max(r["copy_us"], r["fma_us"])
        assert r["ratio"] == pytest.approx(r["median_us"] / r["bound_us"])
        assert r["fma_us"] == pytest.approx(r["n"] * r["k"] / rec["fma"]["fma_per_s"] * 1e6)
        assert r["q1_us"] <= r["median_us"] <= r["q3_us"] and r["method"] == "graph"
        assert len(r["tried"]) == len(grid)
        assert r["median_us"] == min(t["median_us"] for t in r["tried"])
        assert r["checked"] == (r["n"] == min(roofline.SIZES))
    assert {r["name"] for r in rec["seed"]["rows"]} == {"copy", "empty", *roofline.SEED_VARIANTS}
    assert all(r["method"] == "graph" for r in rec["seed"]["rows"])


# --- on a GPU -----------------------------------------------------------------------------------

@pytest.mark.gpu
def test_a_small_sweep_records_every_field():
    """A sweep of one size, two K and K = 127, few repeats: every variant this GPU runs has a
    checked row per K it takes, and the recording reads back through kernels.measure.recorded."""
    rec = roofline.run(sizes=(2**20,), ks=(5, 31), long_ks=(127,), n_repeat=5)
    rec = json.loads(json.dumps(rec))                           # what --out writes
    runnable = V.runnable_here(roofline.VARIANTS)[0]
    assert {(r["name"], r["k"]) for r in rec["rows"]} == {
        (v, k) for v in runnable for k in (5, 31, 127) if V.get(v).takes_k(k)}
    for r in rec["rows"]:
        assert r["checked"] and r["q1_us"] <= r["median_us"] <= r["q3_us"]
        assert r["bound_us"] >= r["copy_us"] > 0 and r["fma_us"] > 0
        assert len(r["tried"]) == len(bench.tuning_grid(r["name"], r["n"], r["k"],
                                                        threads=roofline.THREADS,
                                                        **roofline.GRID[r["name"]]))
    assert 1e11 < rec["fma"]["fma_per_s"] < 1e15
    assert recorded.async_vs_sync(rec, 2**20, 5).winner in ("async", "sync", "tie")
    share = recorded.launch_overhead(rec)
    assert set(share) == set(roofline.SEED_VARIANTS) and all(0 < s < 2 for s in share.values())
    assert all(r["method"] == "graph" for r in rec["seed"]["rows"])
    assert charts.plot_roofline(rec, 2**20).axes


@pytest.mark.gpu
def test_the_gpu_reference_agrees_with_the_host():
    import cupy
    x, w = random_inputs(100_003, 17, 4)
    ref, bound = roofline.reference_and_bound(cupy.asarray(x), cupy.asarray(w))
    np.testing.assert_allclose(ref.get(), kernels.reference(x, w), rtol=1e-12, atol=1e-12)
    y = kernels.conv1d(x, w, "staged_sync", tile=1024)
    assert roofline.count_wrong(cupy.asarray(y), ref, bound) == 0


# --- the command line: usage errors, --out checked first, written before the table ------------

@pytest.mark.parametrize("argv, fragment", [
    (["--plan", "--n-repeat", "2"], "--n-repeat must be from 3 to 1000, got 2"),
    (["--plan", "--cpus", "0"], "--cpus must be at least 1"),
    (["--out", "no/such/folder/roof.json"], "does not exist"),
    (["--out", "roof.csv"], "must be a .json file path"),
    (["--ncu-target", "no-such-recording.json"], "no such recording"),
])
def test_the_command_line_answers_bad_arguments_with_a_usage_line(argv, fragment, monkeypatch,
                                                                  capsys):
    monkeypatch.setattr(roofline, "run", lambda **kw: pytest.fail("ran with bad arguments"))
    with pytest.raises(SystemExit) as caught:
        roofline.main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.startswith("usage: python -m kernels.measure.roofline")
    assert fragment in err


def test_the_command_line_writes_the_run_even_when_the_table_fails(tmp_path, monkeypatch):
    rec = roofline_recording()
    monkeypatch.setattr(roofline, "device_info", lambda: {"backend": "gpu"})
    monkeypatch.setattr(roofline, "run", lambda **kw: rec)
    monkeypatch.setattr(roofline, "roofline_table", lambda r, n: 1 / 0)
    out = tmp_path / "roof.json"
    with pytest.raises(ZeroDivisionError):
        roofline.main(["--quick", "--out", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(rec))
    assert [p.name for p in tmp_path.iterdir()] == ["roof.json"]
