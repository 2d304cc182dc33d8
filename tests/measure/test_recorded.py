"""The recorded benchmark and profile (kernels/recorded/), and what the book reads from them."""

import pytest

from kernels.measure import bench, nsight, recorded
from kernels import layout
from kernels.teach import charts
from kernels import variants as V

N, K, LONG_K = 2**26, 5, 31


@pytest.fixture(scope="module")
def result():
    return recorded.load()


def test_recorded_benchmark_names_its_device_and_method(result):
    p = result["provenance"]
    for key in ("device", "driver", "cupy", "date", "command", "compute_capability"):
        assert p[key], key
    assert p["backend"] == "gpu"   # its variants: test_roofline.py (check_variants)
    for r in result["rows"]:
        assert r["ratio"] == pytest.approx(r["median_us"] / r["copy_us"])
        assert r["gbps"] == pytest.approx(8 * r["n"] / r["median_us"] / 1e3)


def test_recorded_benchmark_covers_the_sweep(result):
    rows = result["rows"]
    assert {r["n"] for r in rows} == {2**p for p in range(14, 29, 2)}
    assert {r["k"] for r in rows} == {3, 5, 9, 31}


def test_recorded_curves_keep_one_timing_method(result):
    """No curve changes method along N (a switch from graph replay to events bent every curve
    at 2^22): our kernels and the copy are graph-timed at every size, the peers with events (a
    CuPy graph capture does not record PyTorch's launches)."""
    for name in {r["name"] for r in result["rows"]}:
        methods = {r["method"] for r in result["rows"] if r["name"] == name}
        assert methods == ({"events"} if name in bench.PEERS else {"graph"}), name


def test_recorded_tuning_tried_both_schedules(result):
    """Persistent blocks and one block per tile were both measured for each staged variant, and
    the chosen configuration is the fastest tuning row of its variant."""
    best = recorded.best_by_schedule(result)
    staged = V.names(staged=True)
    assert set(best) == {(v, p) for v in staged for p in (True, False)}
    for (variant, persistent), row in best.items():
        rows = [r for r in result["tuning"]
                if r["name"] == variant and r["config"]["persistent"] == persistent]
        assert row["median_us"] == min(r["median_us"] for r in rows)
    for variant in staged:
        rows = [r for r in result["tuning"] if r["name"] == variant]
        fastest = min(rows, key=lambda r: r["median_us"])["config"]
        assert {k: fastest[k] for k in bench.TUNED} == result["configs"][variant]
    assert all(r["config"]["persistent"] for r in result["stage_sweep"])


def test_table_and_plots_from_the_recording(result):
    text = str(recorded.table(result))
    lines = text.splitlines()
    assert lines[0] == f"N = 2²⁶, K = 5 on {result['provenance']['device']}"
    assert len(lines) == 2 + len(recorded.rows_at(result, N, K))
    medians = [float(line.split()[-3]) for line in lines[2:]]
    assert medians == sorted(medians) and "copy" in text and "pipelined" in text   # fastest first
    assert charts.plot_bandwidth(result, k=5).axes
    assert charts.plot_stage_sweep(result).axes


def test_ncu_summary_reads_every_metric_of_every_profiled_kernel():
    prof = nsight.summary()
    assert list(prof) == [f"conv1d_{v}" for v in bench.PROFILED]
    for metrics in prof.values():
        assert set(metrics) == set(nsight.METRICS)
    assert prof["conv1d_async_halo"]["smsp__inst_executed.sum"] == 133_955_586   # "133,955,586"
    assert prof["conv1d_vec4"]["gpu__time_duration.sum"] == pytest.approx(127.81)


# --- the decisions notebook 04 prints -----------------------------------------------------------

def test_rows_at_one_size(result):
    at = recorded.rows_at(result, N, K)
    assert set(at) == set(recorded.variants_expected(result)) | set(bench.PEERS) | {"copy"}
    assert all(r["n"] == N and r["k"] == K for r in at.values())
    assert list(at)[0] == "copy"                                   # the order measured
    with pytest.raises(ValueError, match="no rows at n = 1000 with 5 taps"):
        recorded.rows_at(result, 1000, K)


def test_best_async_is_the_correct_async_variant_closest_to_the_copy(result):
    assert recorded.best_async(recorded.rows_at(result, N, K)) == "warp_specialized"   # 1.00x
    assert recorded.best_async(recorded.rows_at(result, N, LONG_K)) == "bulk"          # 1.32x
    for k in (3, 5, 9, 31):
        at = recorded.rows_at(result, N, k)
        best = recorded.best_async(at)
        assert V.get(best).asynchronous and V.get(best).correct
        assert all(at[best]["ratio"] <= at[v]["ratio"]
                   for v in V.names(asynchronous=True, correct=True))
    rigged = {"puzzle28": {"ratio": 0.5}, "vec4": {"ratio": 0.9}, "async_halo": {"ratio": 2.0}}
    assert recorded.best_async(rigged) == "async_halo"   # neither a wrong nor a plain variant


def test_bytes_in_flight_counts_span_floats(result):
    """Blocks per SM x stages x layout.span(tile, k) floats, as notebook 04 prints: one stage
    has one tile in flight, each more stage one more."""
    sweep = recorded.stage_sweep(result)
    assert [r["config"]["stages"] for r in sweep] == [1, 2, 3, 4]
    kib = [recorded.bytes_in_flight(r, result["provenance"]["multiprocessors"]) / 1024 for r in sweep]
    # blocks per SM (16, 14, 16, 12: registers, then shared memory, limit them) x stages x tile
    # 1024 + 2 x 32 halo floats
    assert kib == [68.0, 119.0, 204.0, 204.0]
    row = {"k": 31, "config": {"tile": 256, "stages": 2, "grid": 132}}
    assert recorded.bytes_in_flight(row, 132) == 2 * 4 * layout.span(256, 31) == 8 * (32 + 256 + 32)
    with pytest.raises(ValueError, match="needs persistent blocks"):
        recorded.bytes_in_flight({"k": 5, "config": dict(row["config"], persistent=False)}, 132)


# --- notebooks 04 and 05: the sentences they glue ----------------------------------------------

def test_stall_per_output_weighs_the_per_issue_ratio_by_instructions():
    prof = nsight.summary("h200_ncu_2e26_k31")
    got = nsight.stall_per_output(prof, ["bulk"], N)
    m = prof["conv1d_bulk"]
    per_issue, inst = m[nsight.LONG_SCOREBOARD], m["smsp__inst_executed.sum"]
    assert got["bulk"] == pytest.approx(per_issue * inst / N)
    fake = {"conv1d_bulk": {nsight.LONG_SCOREBOARD: 2.0, "smsp__inst_executed.sum": 300.0}}
    assert nsight.stall_per_output(fake, ["bulk"], 100) == {"bulk": 6.0}


def test_occupancy_from_the_registers_matches_the_measured_warp_slots():
    """Blocks per SM x warps per block / 64, within a few points of ncu's warps active."""
    roof = recorded.load("h200_roofline")
    prof = nsight.summary("h200_ncu_2e26_k31")
    occ = recorded.occupancy(roof, N, LONG_K, ["staged_sync", "bulk", "warp_specialized"])
    assert occ["bulk"] == {"regs": 64, "blocks_per_sm": 8, "warps_per_block": 4, "warp_share": 0.5}
    assert occ["warp_specialized"]["warps_per_block"] == 5    # the producer warp
    for v, o in occ.items():
        measured = prof[V.get(v).kernel]["sm__warps_active.avg.pct_of_peak_sustained_active"]
        assert measured <= 100 * o["warp_share"] + 1, v
        assert measured >= 100 * o["warp_share"] - 10, v


def test_copy_share_of_peak_and_littles_law(result):
    share = recorded.copy_share_of_peak(result)
    assert share == pytest.approx(recorded.rows_at(result)["copy"]["gbps"] / 4800)
    assert 0.8 < share < 0.9
    law = recorded.littles_law(result)
    assert law["needed"] == pytest.approx(law["copy_gbps"] / 2 * 1e3 / 132)   # reads only
    assert law["enough_up_to_us"] == pytest.approx(law["in_flight"][1] / law["needed"])
    assert law["in_flight"][1] > law["needed"] and sorted(law["in_flight"]) == [1, 2, 3, 4]
    twice = recorded.littles_law(result, latency_us=2.0)["needed"]
    assert twice == pytest.approx(2 * law["needed"])


def test_matched_and_tuned_agree_and_verdicts_cover_every_k():
    roof = recorded.load("h200_roofline")
    assert recorded.matched_agrees(roof, N)
    assert list(recorded.verdicts(roof, N)) == [1, 3, 5, 9, 17, 31, 63]


def test_the_limits_that_05_names():
    """05: at K = 5 and 31 the copy binds and the fastest kernel sits at it; at K = 63 its
    instructions take longer at the issue limit than its FMAs and its shared-memory reads, and no
    limit reaches its time."""
    lim = nsight.limits(recorded.load("h200_roofline"))
    assert list(lim) == [5, 31, 63]
    at = lim[63]
    assert at["issue"] > at["fma"] and at["issue"] > at["shared"]
    assert max(at["copy"], at["fma"], at["issue"], at["shared"]) < at["time"]
    assert lim[5]["time"] <= 1.03 * lim[5]["copy"]
    for k in (5, 31):   # "at K = 5 and 31 the copy binds"
        assert lim[k]["copy"] > max(lim[k]["fma"], lim[k]["issue"], lim[k]["shared"])


def test_the_two_one_output_kernels_at_many_taps():
    got = nsight.one_output_kernels(nsight.summary("h200_ncu_2e26_k31"))
    assert 1.05 < got["instructions"] < 1.1 and 1.1 < got["wavefronts"] < 1.15
    assert got["sm_a"] > 85 and got["sm_b"] > 85


def test_the_producer_warp_runs_one_copy_tuned_and_ties_with_a_ring():
    """05: tuned, warp_specialized runs one stage, one tile per block; in the tuning's
    persistent runs with 1, 2 or 4 stages it ties bulk, but for two rings where it is faster."""
    roof = recorded.load("h200_roofline")
    assert recorded.tuned_one_tile(roof, N) == [1, 3, 5, 9, 17, 31]
    for k in (1, 3, 5, 9, 17, 31, 63):
        best = {}   # (stages, variant): its fastest persistent configuration
        for v in ("warp_specialized", "bulk"):
            for t in recorded.rows_at(roof, N, k)[v]["tried"]:
                c = t["config"]
                key = (c.get("stages") or 1, v)
                if c.get("persistent") and (key not in best or t["median_us"] < best[key]["median_us"]):
                    best[key] = t
        assert sorted({s for s, _ in best if (s, "bulk") in best and (s, "warp_specialized") in best}) == [1, 2, 4]
        for stages in (1, 2, 4):
            ws, bulk = best[stages, "warp_specialized"], best[stages, "bulk"]
            faster = (k, stages) in ((17, 2), (63, 4))
            assert recorded.tie(ws, bulk) != faster, (k, stages, ws["median_us"], bulk["median_us"])
            assert not faster or ws["median_us"] < bulk["median_us"]


def test_what_the_roofline_section_says_of_asynchrony_against_the_control():
    """Notebook 05, against a control whose loads are all in flight before its stores: a tie at
    every K but 31, where the asynchronous kernels are ahead, in the control's own configuration
    as well as each tuned."""
    roof = recorded.load("h200_roofline")
    expected = {1: "tie", 3: "tie", 5: "tie", 9: "tie", 17: "tie", 31: "async", 63: "tie"}
    for k, winner in expected.items():
        tuned, matched = (recorded.async_vs_sync(roof, N, k, matched=m) for m in (False, True))
        assert tuned.winner == matched.winner == winner, k
        assert matched.async_row["config"]["tile"] == matched.control_row["config"]["tile"]
        assert matched.async_row["config"]["threads"] == matched.control_row["config"]["threads"]
        assert not matched.async_row["config"]["persistent"]
    assert recorded.async_vs_sync(roof, N, 31, matched=True).speedup > 1 + recorded.RUN_TO_RUN


# --- what notebook 04 reads beyond its tables ---------------------------------------------

def _row(name, tile=256, threads=256, blocks=8, k=5, ratio=1.0, **config):
    return {"name": name, "n": 2**20, "k": k, "ratio": ratio, "median_us": 100 * ratio,
            "config": {"tile": tile, "threads": threads, "blocks_per_sm": blocks, **config}}


def test_configuration_shared_and_differing():
    rows = {"a": _row("a"), "b": _row("b"), "c": _row("c", tile=1024)}
    assert recorded.configuration(rows, ("a", "b")) == {"tile": 256, "threads": 256, "blocks_per_sm": 8}
    with pytest.raises(ValueError, match="different"):
        recorded.configuration(rows, ("a", "c"))
    with pytest.raises(ValueError, match="no row"):
        recorded.configuration(rows, ("a", "z"))


def test_one_tile_in_flight():
    assert recorded.one_tile_in_flight(_row("a")) == 8 * 260 * 4   # 8 blocks x (256 + 4) floats


def test_recorded_puzzle_configuration(result):
    at = recorded.rows_at(result)
    c = recorded.configuration(at, ("naive", "tiled_sync", "async_halo", "puzzle28"))
    assert c["tile"] == 256 and c["threads"] == 256
    needed = recorded.littles_law(result)["needed"]
    assert recorded.one_tile_in_flight(at["async_halo"]) < needed   # below what the copy rate needs


def test_asynchrony_neither_costs_nor_gains_at_k5(result):
    """04: the tuned asynchronous kernels and the control tie at K = 5, within the drift."""
    at = recorded.rows_at(result)
    c = recorded.against_control(result, at)
    assert set(recorded.tuned_asynchronous(result)) == {"pipelined", "bulk", "warp_specialized"}
    assert c["lo"] <= c["hi"]
    assert all(abs(c[s] / c["control"] - 1) < recorded.RUN_TO_RUN for s in ("lo", "hi"))
    with pytest.raises(ValueError):
        recorded.against_control(result, {"copy": at["copy"]})


def test_schedule_gap(result):
    gap = recorded.schedule_gap(result)
    assert gap and set(gap) <= set(result["configs"])
    for g in gap.values():
        assert g["persistent"] > g["per_tile"]   # same bytes in flight, persistent slower


def test_drift_seen(result):
    rec = recorded.load("h200_roofline")
    seen = recorded.drift_seen(result, rec)
    assert 0 < seen < recorded.RUN_TO_RUN          # the margin sits above what was seen
    assert recorded.drift_seen(result, result) == 0
    with pytest.raises(ValueError):
        recorded.drift_seen(result, {"rows": []})
