"""The bad-input table of the helpers outside the core (kernels.measure, kernels.teach but its
exercise checker, kernels.publish): rows as tests/core/test_validation.py's ``CASES`` (which takes
them in), and the functions whose arguments they cover (``PUBLIC``). A recording is checked
once, where it is read (``recorded.load``, ``timeline.load``, ``nsight.summary``):
the functions that take it afterwards have rows only for lookups that fail. Every row raises
before anything runs: on a machine without a GPU and on one with a GPU alike (the GPU check of
a GPU-only function comes after its argument checks; test_validation.py's
``test_gpu_only_functions_say_so`` covers it)."""

import numpy as np

import kernels
from inputs import roofline_recording
from kernels.measure import bench, nsight, recorded, roofline, timeline, timing
from kernels.publish import translate
from kernels.teach import explore, halo, listing, schedule
from support import ROOT

X = np.arange(1000, dtype=np.float32) * 0.37 - 5
W = np.array([0.25, -1.5, 2.0, 0.5, -0.75], dtype=np.float32)
RECORDED = recorded.load()
ROOF = roofline_recording()
TL = recorded.load("h200_timelines")
TRACE = timeline.records(TL, "async_halo")
AT = recorded.rows_at(RECORDED)
ED = translate.Edition(ROOT)


def on(f, *args, **kwargs):
    return f, args, kwargs


def without(d: dict, key: str) -> dict:
    return {k: v for k, v in d.items() if k != key}



CASES = [
    # --- kernels.measure.timing ---
    ("copy_fn: how a typo", on(timing.copy_fn, X, X, "memcopy"), ValueError,
     "did you mean 'memcpy'"),
    # --- kernels.measure.bench ---
    ("peer_fn: unknown peer", on(bench.peer_fn, "torch.conv", X, W, X), ValueError,
     "did you mean 'torch.conv1d'"),
    ("peer_fn: name None", on(bench.peer_fn, None, X, W, X), TypeError, "must be a string"),
    ("measure: names a string", on(bench.measure, "bulk", 2**20, 5), TypeError,
     "names must be a list or tuple"),
    ("measure: name typo", on(bench.measure, ["bulkk"], 2**20, 5), ValueError,
     "did you mean 'bulk'"),
    ("measure: n zero", on(bench.measure, ["bulk"], 0, 5), ValueError, "n must be from 1"),
    ("measure: k zero", on(bench.measure, ["bulk"], 2**20, 0), ValueError,
     r"k \(taps\) must be at least 1"),
    ("measure: seed negative", on(bench.measure, ["bulk"], 2**20, 5, None, -1), ValueError,
     "seed must be at least 0"),
    ("measure: configs a list", on(bench.measure, ["bulk"], 2**20, 5, [1]), TypeError,
     "configs must be a dict"),
    ("measure: a config that does not fit", on(bench.measure, ["bulk"], 2**20, 5,
                                               {"bulk": dict(tile=100)}), ValueError,
     "tile must be a multiple of 32"),
    ("tuning_grid: variant typo", on(bench.tuning_grid, "pipelind", 2**20, 5), ValueError,
     "did you mean 'pipelined'"),
    ("tuning_grid: n zero", on(bench.tuning_grid, "bulk", 0, 5), ValueError,
     "n must be from 1"),
    ("tuning_grid: k a float", on(bench.tuning_grid, "bulk", 2**20, 5.0), TypeError,
     r"k \(taps\) must be an integer"),
    ("tuning_grid: vec4 with 65 taps", on(bench.tuning_grid, "vec4", 2**20, 65), ValueError,
     "at most 64 taps"),
    ("tuning_grid: a tile of 100", on(bench.tuning_grid, "bulk", 2**20, 5, (100,)), ValueError,
     "tile must be a multiple of 32"),
    ("tuning_grid: threads 2048", on(bench.tuning_grid, "bulk", 2**20, 5, threads=(2048,)),
     ValueError, r"threads\[0\] must be a multiple of 32"),
    ("tuning_grid: stages 9", on(bench.tuning_grid, "bulk", 2**20, 5, stages=(9,)), ValueError,
     r"stages\[0\] must be from 1 to 8"),
    ("tuning_grid: tiles empty", on(bench.tuning_grid, "bulk", 2**20, 5, ()), ValueError,
     "tiles is empty"),
    ("tune: variant typo", on(bench.tune, "bulkk"), ValueError, "did you mean 'bulk'"),
    ("tune: nothing fits", on(bench.tune, "tiled_sync", 2**20, 2000, tiles=(1024,)), ValueError,
     "no configuration of tiled_sync"),
    ("tune: threads a string", on(bench.tune, "bulk", threads="256"), TypeError,
     "threads must be a list or tuple"),
    ("bench.run: quick a string", on(bench.run, "yes"), TypeError, "quick must be True or False"),
    ("bench.run: progress 1", on(bench.run, False, 1), TypeError,
     "progress must be True or False"),
    ("bench.run: quick None", on(bench.run, None), TypeError, "quick must be True or False"),
    ("bench.ncu_target: n zero", on(bench.ncu_target, 0), ValueError, "n must be from 1"),
    ("bench.ncu_target: k 65", on(bench.ncu_target, 2**26, 65), ValueError,
     r"k \(taps\) must be from 1 to 64"),
    # --- kernels.measure.roofline ---
    ("seed_size: variant typo", on(roofline.seed_size, 0, ("asynchalo",)), ValueError,
     "did you mean 'async_halo'"),
    ("roofline.ncu_target: not a recording", on(roofline.ncu_target, []), TypeError,
     "recording must be a dict"),
    ("roofline.ncu_target: rows without config", on(roofline.ncu_target, {"rows": [
        {"name": "bulk", "n": 1, "k": 5}]}), ValueError, r"recording\['rows'\]\[0\] has no 'config'"),
    ("roofline.ncu_target: n not recorded", on(roofline.ncu_target, ROOF, 1000), ValueError,
     "no rows at n=1000"),
    # --- kernels.measure.recorded ---
    ("load: unknown recording", on(recorded.load, "h200_bnch"), ValueError,
     "did you mean 'h200_bench'"),
    ("load: name None", on(recorded.load, None), TypeError, "recording must be a string"),
    ("ncu_summary: unknown profile", on(nsight.summary, "h200_ncu"), ValueError,
     "unknown profile 'h200_ncu'"),
    ("ncu_summary: a number", on(nsight.summary, 5), TypeError, "profile must be a string"),
    ("ncu_summary: the benchmark", on(nsight.summary, "h200_bench"), ValueError,
     "unknown profile"),
    ("limits: K not profiled", on(nsight.limits, recorded.load("h200_roofline"), (7,)),
     ValueError, "unknown profile 'h200_ncu_2e26_k7'"),
    ("limits: no copy at 2^26", on(nsight.limits, {"copies": [], "fma": {"fma_per_s": 1.0}}),
     ValueError, "roof has no copy timed at n = 67108864"),
    ("table: n not recorded", on(recorded.table, RECORDED, 3), ValueError,
     "no rows at n = 3 with 5 taps"),
    ("best_async: no async variant", on(recorded.best_async, {"copy": AT["copy"]}), ValueError,
     "no asynchronous variant"),
    ("roofline_table: n not recorded", on(recorded.roofline_table, ROOF, 3), ValueError,
     "no rows at n = 3"),
    # --- kernels.measure.timeline ---
    ("model_presets: unknown recording", on(schedule.model_presets, "h200_timeline"), ValueError,
     "did you mean 'h200_timelines'"),
    ("trace: naive", on(timeline.trace, "naive"), ValueError, "naive has no trace points"),
    ("trace: tile 100", on(timeline.trace, "async_halo", tile=100), ValueError,
     "tile must be a multiple of 32"),
    ("instrumentation_cost: naive", on(timeline.instrumentation_cost, "naive", 16384), ValueError,
     "naive has no trace points"),
    ("instrumentation_cost: n zero", on(timeline.instrumentation_cost, "async_halo", 0),
     ValueError, "n must be from 1"),
    ("instrumentation_cost: k over the tile", on(timeline.instrumentation_cost, "async_halo",
                                                 16384, 32, 33), ValueError,
     "longer than the tile"),
    ("overlap_saving: asyn None", on(timeline.overlap_saving, TL, "tiled_sync", None), TypeError,
     "variant must be a string"),
    ("load_or_measure: unknown recording", on(schedule.load_or_measure, "h200_timeline"),
     ValueError, "did you mean 'h200_timelines'"),
    ("records: variant not traced", on(timeline.records, TL, "bulk"), ValueError,
     "unknown variant 'bulk'"),
    ("records: which typo", on(timeline.records, TL, "async_halo", "seeds"), ValueError,
     "did you mean 'seed'"),
    # --- kernels.teach.halo, listing, warmup, explore, plots ---
    ("halo_cells: a billion cells", on(halo.halo_cells, kernels.geometry.MAX_N, 32, 17),
     ValueError, "halo_cells lists every halo cell: at most 100000"),
    ("halo_cells: a million blocks", on(halo.halo_cells, 2**25, 32, 5), ValueError,
     "use a smaller n or a larger tile"),
    ("show: variant typo", on(listing.show, "asynchalo"), ValueError, "did you mean 'async_halo'"),
    ("show: None", on(listing.show, None), TypeError, "variant must be a string"),
    ("diff_text: old typo", on(listing.diff_text, "tiled", "async_halo"), ValueError,
     "did you mean 'tiled_sync'"),
    ("diff: new None", on(listing.diff, "tiled_sync", None), TypeError,
     "variant must be a string"),
    ("diff: old typo", on(listing.diff, "pipelind", "bulk"), ValueError,
     "did you mean 'pipelined'"),
    ("copy_instructions: bulk for sm_80", on(listing.copy_instructions, "bulk", 80), ValueError,
     "bulk needs sm_90"),
    ("copy_instructions: tile 100", on(listing.copy_instructions, "async_halo", 80, 100),
     ValueError, "tile must be a multiple of 32"),
    ("compare: a typo", on(explore.compare, ["asynchalo"]), ValueError,
     "did you mean 'async_halo'"),
    # --- kernels.publish.translate, notebooks ---
    ("Edition: root a number", on(translate.Edition, 5), TypeError, "root must be a path"),
    ("Edition: root not a folder", on(translate.Edition, ROOT / "no such folder"), ValueError,
     "is not a folder"),
    ("load_table: not a table", on(translate.load_table, ROOT / "kernels/recorded/h200_bench.json"),
     ValueError, "has no 'cells'"),
]

# The functions these rows cover that the core's table does not (each with 3 rows or more).
PUBLIC = [
    "bench.measure", "bench.ncu_target", "bench.run", "bench.tune", "bench.tuning_grid",
    "explore.compare", "listing.copy_instructions", "listing.diff", "listing.diff_text",
    "listing.show", "recorded.load", "nsight.summary", "roofline.ncu_target",
    "timeline.instrumentation_cost", "schedule.load_or_measure", "translate.Edition"]
