"""Every documented bad input raises the documented error, before anything compiles or runs.

``CASES`` is the table: one row per bad input to a public function, with the error and a fragment
of the message (which names the argument and the rule); a row's id is its function and its
description. Every row must raise from inside the ``kernels`` package, before NumPy, CuPy or the
compiler sees the input. The launch API (conv1d, prepare, prepare_config, emulate, run and
gpu_target) has a row for each check, the other public functions one for each argument they
check. A recording is checked once, where it is read (``recorded.load``,
``timeline.load``, ``nsight.summary``): the functions that take it afterwards have rows only for
lookups that fail. A GPU-only function checks its arguments before the GPU, so its rows raise
with or without one.
"""

import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

import kernels
from inputs import roofline_recording
from kernels import compile as kcompile, emulation
from kernels.launch import gpu_target
from kernels.measure import bench, nsight, recorded, roofline, timeline, timing
from kernels.publish import translate
from kernels.teach import charts, explore, listing, plots, schedule
from kernels.teach.halo import halo_cells
from support import ROOT

KERNELS_DIR = Path(kernels.__file__).resolve().parent
X = np.arange(1000, dtype=np.float32) * 0.37 - 5
W = np.array([0.25, -1.5, 2.0, 0.5, -0.75], dtype=np.float32)
Y = kernels.reference(X, W).astype(np.float32)           # correct outputs for X, W
HUGE = np.broadcast_to(np.float32(1), (2**31,))           # 2**31 elements, no memory
RECORDED = recorded.load()                                 # the recorded H200 benchmark
ROOF = roofline_recording()                                # a synthetic roofline recording
TL = recorded.load("h200_timelines")
ONES = {k: np.ones(k, np.float32) for k in (33, 64, 65, 3000, 4500, 12000)}


def matrix(a):
    """``np.asmatrix(a)``, without its PendingDeprecationWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(a)


def conv(**kwargs):
    """kernels.conv1d on good inputs (the emulation backend), but for ``kwargs``."""
    return kernels.conv1d, (), dict(x=X, w=W, variant="async_halo", tile=256,
                                    backend="emulate") | kwargs


def on(f, *args, **kwargs):
    return f, args, kwargs


E, LC, MT = kernels.emulate, kernels.launch_config, kernels.max_tile
P, PC = kernels.prepare, kernels.prepare_config
REF, EB, WO, AC, RI = (kernels.reference, kernels.error_bound, kernels.wrong_outputs,
                       kernels.assert_correct, kernels.random_inputs)
PEM, DT = plots.plot_error_map, plots.draw_tiles
MODEL, TOTALS, RUN = schedule.model, schedule.model_totals, explore.run

CASES = [
    # --- kernels.conv1d ---
    ("x not an array", conv(x=list(X)), TypeError, "NumPy or CuPy array"),
    ("x float64", conv(x=X.astype(np.float64)), TypeError, "x must be float32"),
    ("x int32", conv(x=X.astype(np.int32)), TypeError, "x must be float32"),
    ("w float16", conv(w=W.astype(np.float16)), TypeError, "w must be float32"),
    ("x 2-D", conv(x=X.reshape(10, 100)), ValueError, "x must be 1-D"),
    ("x 0-D", conv(x=np.array(3.0, np.float32)), ValueError, "x must be 1-D"),
    ("x empty", conv(x=X[:0]), ValueError, "x is empty"),
    ("w empty", conv(w=W[:0]), ValueError, "w is empty"),
    ("w 2-D", conv(w=W.reshape(1, 5)), ValueError, "w must be 1-D"),
    ("w longer than the tile", conv(w=ONES[33], tile=32), ValueError, "longer than the tile"),
    ("tile not a multiple of 32", conv(tile=100), ValueError, "multiple of 32"),
    ("tile zero", conv(tile=0), ValueError, "multiple of 32"),
    ("tile negative", conv(tile=-256), ValueError, "multiple of 32"),
    ("tile not an int", conv(tile=256.0), TypeError, "tile must be an integer"),
    ("tile a bool", conv(tile=True), TypeError, "tile must be an integer"),
    ("tile over shared memory", conv(tile=12288), ValueError, "shared memory"),
    ("threads not a multiple of 32", conv(threads=100), ValueError, "threads must be"),
    ("threads over 1024", conv(threads=2048, tile=4096), ValueError, "threads must be"),
    ("threads zero", conv(threads=0), ValueError, "threads must be"),
    ("unknown variant", conv(variant="async"), ValueError, "unknown variant"),
    ("unknown backend", conv(backend="cuda"), ValueError, "unknown backend"),
    ("arch with the emulation", conv(backend="emulate", arch=75), ValueError, "arch"),
    ("stages for a one-tile variant", conv(variant="async_halo", stages=2), ValueError,
     "stages applies to"),
    ("stages zero", conv(variant="pipelined", stages=0), ValueError, "stages must be"),
    ("stages nine", conv(variant="bulk", stages=9), ValueError, "stages must be"),
    ("stages not an int", conv(variant="pipelined", stages=2.0), TypeError,
     "stages must be an integer"),
    ("persistent for a one-tile variant", conv(variant="async_halo", persistent=False),
     ValueError, "persistent applies to"),
    ("persistent not a bool", conv(variant="bulk", persistent=1), TypeError, "persistent must be"),
    ("vec4 with a long kernel", conv(variant="vec4", w=ONES[65]), ValueError, "at most 64"),
    ("bulk with a long kernel", conv(variant="bulk", w=ONES[65]), ValueError, "at most 64"),
    ("warp_specialized with 1024 threads", conv(variant="warp_specialized", threads=1024),
     ValueError, "adds a producer warp: at most 1024 threads in all"),
    ("warp_specialized with 65 taps", conv(variant="warp_specialized", w=ONES[65]), ValueError,
     "at most 64"),
    ("pipelined stages over shared memory", conv(variant="pipelined", tile=4096, stages=4),
     ValueError, "shared memory"),
    ("x complex64", conv(x=X.astype(np.complex64)), TypeError, "complex numbers are not supported"),
    ("w complex128", conv(w=W.astype(np.complex128)), TypeError,
     "complex numbers are not supported"),
    ("x bool", conv(x=X > 0), TypeError, "x must be float32, got bool"),
    ("w bool", conv(w=W > 0), TypeError, "w must be float32, got bool"),
    ("x object dtype", conv(x=X.astype(object)), TypeError, "x must be float32"),
    ("x big-endian float32", conv(x=X.astype(">f4")), TypeError, "x must be float32"),
    ("x masked array", conv(x=np.ma.masked_less(X, 0)), TypeError, "x is a masked array"),
    ("w masked array", conv(w=np.ma.masked_array(W)), TypeError, "w is a masked array"),
    ("x numpy.matrix", conv(x=matrix(X)), TypeError, "x is a numpy.matrix"),
    ("w numpy.matrix", conv(w=matrix(W)), TypeError, "w is a numpy.matrix"),
    ("x None", conv(x=None), TypeError, "x must be a NumPy or CuPy array"),
    ("x a tuple", conv(x=tuple(X)), TypeError, "x must be a NumPy or CuPy array"),
    ("w a float", conv(w=0.5), TypeError, "w must be a NumPy or CuPy array"),
    ("w a NumPy scalar", conv(w=np.float32(0.5)), TypeError, "w must be a NumPy or CuPy array"),
    ("x a column", conv(x=X[:, None]), ValueError, "x must be 1-D"),
    ("w 0-D", conv(w=np.array(1.0, np.float32)), ValueError, "w must be 1-D"),
    ("variant typo", conv(variant="asynchalo"), ValueError, "did you mean 'async_halo'"),
    ("variant capitalised", conv(variant="Tiled_Sync"), ValueError, "did you mean 'tiled_sync'"),
    ("variant not a string", conv(variant=None), TypeError, "variant must be a string"),
    ("backend typo", conv(backend="emulat"), ValueError, "did you mean 'emulate'"),
    ("backend upper case", conv(backend="GPU"), ValueError, "did you mean 'gpu'"),
    ("backend not a string", conv(backend=1), TypeError, "backend must be a string"),
    ("arch below 75", conv(arch=70), ValueError, "arch must be at least 75"),
    ("arch below 75, auto backend", conv(arch=60, backend="auto"), ValueError,
     "arch must be at least 75"),
    ("arch a string", conv(arch="sm_90"), TypeError, "arch must be an integer"),
    ("arch a float", conv(arch=7.5), TypeError, "arch must be an integer"),
    ("tile over 65536", conv(tile=2**17), ValueError, "tile must be a multiple of 32"),
    ("tile huge", conv(tile=2**40), ValueError, "to 65536, got 1099511627776"),
    ("tile a string", conv(tile="256"), TypeError, "tile must be an integer"),
    ("tile None", conv(tile=None), TypeError, "tile must be an integer"),
    ("tile a NumPy float", conv(tile=np.float32(256)), TypeError, "tile must be an integer"),
    ("threads a float", conv(threads=128.0), TypeError, "threads must be an integer"),
    ("threads negative", conv(threads=-32), ValueError, "threads must be"),
    ("threads a bool", conv(threads=True), TypeError, "threads must be an integer"),
    ("vec4 threads off a warp", conv(variant="vec4", threads=48), ValueError, "threads must be"),
    ("n over the 32-bit limit", conv(x=HUGE), ValueError, "n must be from 1 to .*32-bit"),
    ("stages negative", conv(variant="pipelined", stages=-1), ValueError,
     "stages must be from 1 to 8"),
    ("stages a bool", conv(variant="pipelined", stages=True), TypeError,
     "stages must be an integer"),
    ("stages for naive", conv(variant="naive", stages=1), ValueError, "stages applies to"),
    ("persistent a string", conv(variant="pipelined", persistent="yes"), TypeError,
     "persistent must be True or False"),
    ("persistent for vec4", conv(variant="vec4", persistent=True), ValueError,
     "persistent applies to"),
    ("pipelined with a long kernel", conv(variant="pipelined", w=ONES[65]), ValueError,
     "at most 64"),
    ("no tile fits the taps", conv(variant="tiled_sync", w=ONES[12000], tile=12288), ValueError,
     "no tile fits 12000 taps"),
    ("shared-memory advice", conv(variant="tiled_sync", w=ONES[3000], tile=8192), ValueError,
     "largest tile for 3000 taps is 6272"),
    ("shared-memory advice never below K", conv(variant="tiled_sync", w=ONES[4500], tile=8192),
     ValueError, "no tile fits 4500 taps"),
    ("bulk 8 stages over shared memory", conv(variant="bulk", tile=8192, stages=8), ValueError,
     "shared memory"),
    # --- kernels.prepare (what is checked before CuPy arrays are needed) ---
    ("x a NumPy array", on(P, "async_halo", X, W, Y), TypeError, "x must be a CuPy array"),
    ("x a list", on(P, "async_halo", list(X), W, Y), TypeError, "x must be a CuPy array"),
    ("variant typo", on(P, "pipelind", X, W, Y), ValueError, "did you mean 'pipelined'"),
    ("variant None", on(P, None, X, W, Y), TypeError, "variant must be a string"),
    ("arch below 75", on(P, "async_halo", X, W, Y, arch=70), ValueError,
     "arch must be at least 75"),
    ("arch a string", on(P, "async_halo", X, W, Y, arch="75"), TypeError,
     "arch must be an integer"),
    ("jitter a string", on(P, "async_halo", X, W, Y, jitter="yes"),
     TypeError, "jitter must be True or False"),
    ("src bytes", on(P, "async_halo", X, W, Y, src=b"__global__"),
     TypeError, r"src \(CUDA source text\) must be a string"),
    # --- kernels.prepare_config: prepare for a launch already laid out ---
    ("cfg a dict", on(PC, {}, X, W, Y), TypeError, "cfg must be a LaunchConfig"),
    ("x a NumPy array", on(PC, LC(X.size, W.size), X, W, Y),
     TypeError, "x must be a CuPy array"),
    ("arch below 75", on(PC, LC(X.size, W.size), X, W, Y, arch=70), ValueError,
     "arch must be at least 75"),
    ("jitter a string", on(PC, LC(X.size, W.size), X, W, Y, jitter=1), TypeError,
     "jitter must be True or False"),
    # --- kernels.emulate ---
    ("x float64", on(E, "async_halo", X.astype(np.float64), W), TypeError, "x must be float32"),
    ("w float64", on(E, "async_halo", X, W.astype(np.float64)), TypeError, "w must be float32"),
    ("x complex", on(E, "naive", X.astype(np.complex64), W), TypeError,
     "complex numbers are not supported"),
    ("x int16", on(E, "naive", X.astype(np.int16), W), TypeError, "x must be float32"),
    ("x bool", on(E, "naive", X > 0, W), TypeError, "x must be float32, got bool"),
    ("x masked", on(E, "naive", np.ma.masked_less(X, 0), W), TypeError, "x is a masked array"),
    ("w matrix", on(E, "naive", X, matrix(W)), TypeError, "w is a numpy.matrix"),
    ("x a list", on(E, "naive", list(X), W), TypeError, "x must be a NumPy"),
    ("x 2-D", on(E, "naive", X.reshape(10, 100), W), ValueError, "x must be 1-D"),
    ("w empty", on(E, "naive", X, W[:0]), ValueError, "w is empty"),
    ("variant typo", on(E, "naiv", X, W), ValueError, "did you mean 'naive'"),
    ("variant None", on(E, None, X, W), TypeError, "variant must be a string"),
    ("tile 100", on(E, "naive", X, W, tile=100), ValueError, "multiple of 32"),
    ("tile a float", on(E, "naive", X, W, tile=256.0), TypeError, "tile must be an integer"),
    ("tile over shared memory", on(E, "async_halo", X, W, tile=12288), ValueError, "shared memory"),
    ("vec4 with 65 taps", on(E, "vec4", X, ONES[65]), ValueError, "at most 64"),
    ("taps longer than the tile", on(E, "naive", X, ONES[64], tile=32), ValueError,
     "longer than the tile"),
    # --- kernels.run: a launch laid out by launch_config, run as it is ---
    ("cfg a dict", on(kernels.run, dict(variant="naive"), X, W), TypeError,
     "cfg must be a LaunchConfig"),
    ("x longer than cfg", on(kernels.run, LC(999, W.size, variant="naive"), X, W),
     ValueError, "laid out for n=999"),
    ("w longer than cfg", on(kernels.run, LC(X.size, 3, variant="naive"), X, W),
     ValueError, "laid out for n=1000, k=3"),
    ("backend typo", on(kernels.run, LC(X.size, W.size), X, W, backend="cpu"),
     ValueError, "backend"),
    # --- kernels.reference, error_bound ---
    ("x float64", on(REF, X.astype(np.float64), W), TypeError, "x must be float32"),
    ("w float64", on(REF, X, W.astype(np.float64)), TypeError, "w must be float32"),
    ("x float64", on(EB, X.astype(np.float64), W), TypeError, "x must be float32"),
    ("w complex", on(EB, X, W.astype(np.complex64)), TypeError,
     "complex numbers are not supported"),
    # --- kernels.wrong_outputs, assert_correct ---
    ("y float64", on(WO, Y.astype(np.float64), X, W), TypeError, "y must be float32"),
    ("x float64", on(WO, Y, X.astype(np.float64), W), TypeError, "x must be float32"),
    ("w complex", on(WO, Y, X, W.astype(np.complex64)), TypeError,
     "complex numbers are not supported"),
    ("y too long", on(AC, np.append(Y, Y[:1]), X, W), ValueError, r"y must have shape \(1000,\)"),
    ("x complex", on(AC, Y, X.astype(np.complex64), W), TypeError,
     "complex numbers are not supported"),
    ("what not a string", on(AC, Y, X, W, what=5), TypeError, "what must be a string"),
    # --- kernels.max_tile ---
    ("k a float", on(MT, 5.0), TypeError, r"k \(taps\) must be an integer"),
    ("variant typo", on(MT, 5, "asynchalo"), ValueError, "did you mean 'async_halo'"),
    ("stages zero", on(MT, 5, "pipelined", 0), ValueError, "stages must be from 1 to 8"),
    # --- kernels.launch_config ---
    ("n a float", on(LC, 1000.0, 5), TypeError, "n must be an integer"),
    ("k zero", on(LC, 1000, 0), ValueError, r"k \(taps\) must be at least 1"),
    ("tile 33", on(LC, 1000, 5, 33), ValueError, "tile must be a multiple of 32"),
    ("threads 16", on(LC, 1000, 5, 256, 16), ValueError, "threads must be"),
    ("variant typo", on(LC, 1000, 5, variant="tiled"), ValueError, "did you mean 'tiled_sync'"),
    ("stages a string", on(LC, 1000, 5, variant="pipelined", stages="4"),
     TypeError, "stages must be an integer"),
    ("persistent 0", on(LC, 1000, 5, variant="pipelined", persistent=0),
     TypeError, "persistent must be True or False"),
    # --- kernels.random_inputs ---
    ("n zero", on(RI, 0, 5), ValueError, "n must be from 1 to"),
    ("k zero", on(RI, 100, 0), ValueError, r"k \(taps\) must be from 1 to"),
    ("seed a string", on(RI, 100, 5, "abc"), TypeError, "seed must be None"),
    # --- kernels.teach.halo.halo_cells ---
    ("tile 100", on(halo_cells, 100, 100, 5), ValueError, "tile must be a multiple of 32"),
    ("k zero", on(halo_cells, 100, 32, 0), ValueError, r"k \(taps\) must be at least 1"),
    # --- plots.draw_tiles ---
    ("tile 48", on(DT, 100, 48, 5), ValueError, "tile must be a multiple of 32"),
    ("k over the tile", on(DT, 100, 32, 40), ValueError, "longer than the tile"),
    ("a million cells", on(DT, 10**6, 32, 5), ValueError, "draw_tiles draws every cell"),
    # --- plots.plot_handoff ---
    ("one stage", on(plots.plot_handoff, 1), ValueError, r"stages must be from 2 to 8 \(a ring"),
    ("tiles zero", on(plots.plot_handoff, 2, 0), ValueError, "tiles must be from 1 to 16"),
    # --- plots.plot_error_map ---
    ("tile 100", on(PEM, {"a": Y}, X, W, 100), ValueError, "tile must be a multiple of 32"),
    ("x float64", on(PEM, {"a": Y}, X.astype(np.float64), W, 256), TypeError, "x must be float32"),
    ("w a list", on(PEM, {"a": Y}, X, list(W), 256), TypeError, "w must be a NumPy or CuPy array"),
    # --- charts.plot_bandwidth, plot_stage_sweep ---
    ("k not recorded", on(charts.plot_bandwidth, RECORDED, 7), ValueError, "3, 5, 9, 31"),
    # --- schedule.model ---
    ("mode typo", on(MODEL, "asyn"), ValueError, "did you mean 'async'"),
    ("dram_latency negative", on(MODEL, dram_latency=-1), ValueError,
     "dram_latency must be at least 0"),
    ("taps_latency negative", on(MODEL, taps_latency=-5), ValueError,
     "taps_latency must be at least 0"),
    ("compute zero", on(MODEL, compute=0), ValueError, "compute must be greater than 0"),
    ("tile a string", on(MODEL, tile="256"), TypeError, "tile must be an integer"),
    ("k zero", on(MODEL, k=0), ValueError, r"k \(taps\) must be at least 1"),
    ("blocks_per_sm 65", on(MODEL, blocks_per_sm=65), ValueError,
     "blocks_per_sm must be from 1 to 64"),
    ("bytes_per_cycle zero", on(MODEL, bytes_per_cycle=0), ValueError,
     "bytes_per_cycle must be greater than 0"),
    # --- schedule.model_totals ---
    ("mode given", on(TOTALS, mode="sync"), TypeError, "model_totals compares both modes"),
    ("unknown parameter", on(TOTALS, latency=5), TypeError,
     "unexpected keyword argument 'latency'"),
    # --- explore.run ---
    ("variant typo", on(RUN, "async-halo"), ValueError, "did you mean 'async_halo'"),
    ("n zero", on(RUN, n=0), ValueError, "n must be from 1 to"),
    ("tile 100", on(RUN, tile=100), ValueError, "tile must be a multiple of 32"),
    ("k zero", on(RUN, k=0), ValueError, r"k \(taps\) must be at least 1"),
    ("seed negative", on(RUN, seed=-1), ValueError, "seed must be at least 0"),
    ("timed a string", on(RUN, timed="yes"), TypeError, "timed must be True or False"),
    # --- the roofline: kernels.measure.roofline, its reading in recorded and plots ---
    ("sizes an integer", on(roofline.plan, 2**24), TypeError, "sizes must be a list or tuple"),
    ("K no tile of the grid holds", on(roofline.plan, ks=(4097,)), ValueError,
     "no configuration of tiled_sync's grid"),
    ("a variant without a grid", on(roofline.plan, variants=("naive",)), ValueError,
     "naive has no tuning grid"),
    ("n_repeat 2", on(roofline.run, n_repeat=2), ValueError, "n_repeat must be from 3 to 1000"),
    ("check a string", on(roofline.run, check="yes"), TypeError, "check must be True or False"),
    ("seed negative", on(roofline.run, seed=-1), ValueError, "seed must be from 0"),
    ("a K in both lists", on(roofline.run, ks=(5,), long_ks=(5,)), ValueError,
     "ks repeats a value"),
    ("n not recorded", on(recorded.roofline_rows, ROOF, 1000), ValueError,
     "no rows at n = 1000: it has n = 16777216, 67108864"),
    ("an async control", on(recorded.async_vs_sync, ROOF, 2**26, 5, "bulk"),
     ValueError, "control must be a synchronous variant"),
    ("n not recorded", on(recorded.async_vs_sync, ROOF, 1000, 5), ValueError,
     "no rows at n = 1000 with 5 taps"),
    ("no control at K", on(recorded.async_vs_sync, ROOF, 2**26, 127), ValueError,
     "no staged_sync row at n = 67108864 with 127 taps"),
    ("no empty kernel", on(recorded.launch_overhead, ROOF | {"seed": {
        "rows": [r for r in ROOF["seed"]["rows"] if r["name"] != "empty"]}}), ValueError,
     "no empty kernel"),
    ("a variant not recorded", on(charts.plot_roofline, ROOF, 2**26, ["naive"]),
     ValueError, "no rows of naive at n = 67108864"),
    ("a date without offset", on(recorded.variants_expected, ROOF | {
        "provenance": {"date": "2026-11-29T09:00:00"}}), ValueError, "UTC offset"),
    # --- launch.gpu_target ---
    ("arch below 75", on(gpu_target, "async_halo", 70), ValueError, "arch must be at least 75"),
    ("variant typo", on(gpu_target, "bulkk"), ValueError, "did you mean 'bulk'"),
    # --- kernels.measure.timing ---
    ("how a typo", on(timing.copy_fn, X, X, "memcopy"), ValueError, "did you mean 'memcpy'"),
    # --- kernels.measure.bench ---
    ("unknown peer", on(bench.peer_fn, "torch.conv", X, W, X), ValueError,
     "did you mean 'torch.conv1d'"),
    ("names a string", on(bench.measure, "bulk", 2**20, 5), TypeError,
     "names must be a list or tuple"),
    ("n zero", on(bench.measure, ["bulk"], 0, 5), ValueError, "n must be from 1"),
    ("k zero", on(bench.measure, ["bulk"], 2**20, 0), ValueError, r"k \(taps\) must be at least 1"),
    ("seed negative", on(bench.measure, ["bulk"], 2**20, 5, None, -1), ValueError,
     "seed must be at least 0"),
    ("a config that does not fit", on(bench.measure, ["bulk"], 2**20, 5, {"bulk": dict(tile=100)}),
     ValueError, "tile must be a multiple of 32"),
    ("variant typo", on(bench.tuning_grid, "pipelind", 2**20, 5), ValueError,
     "did you mean 'pipelined'"),
    ("n zero", on(bench.tuning_grid, "bulk", 0, 5), ValueError, "n must be from 1"),
    ("k a float", on(bench.tuning_grid, "bulk", 2**20, 5.0), TypeError,
     r"k \(taps\) must be an integer"),
    ("a tile of 100", on(bench.tuning_grid, "bulk", 2**20, 5, (100,)), ValueError,
     "tile must be a multiple of 32"),
    ("threads 2048", on(bench.tuning_grid, "bulk", 2**20, 5, threads=(2048,)),
     ValueError, r"threads\[0\] must be a multiple of 32"),
    ("stages 9", on(bench.tuning_grid, "bulk", 2**20, 5, stages=(9,)), ValueError,
     r"stages\[0\] must be from 1 to 8"),
    ("variant typo", on(bench.tune, "bulkk"), ValueError, "did you mean 'bulk'"),
    ("nothing fits", on(bench.tune, "tiled_sync", 2**20, 2000, tiles=(1024,)), ValueError,
     "no configuration of tiled_sync"),
    ("threads a string", on(bench.tune, "bulk", threads="256"), TypeError,
     "threads must be a list or tuple"),
    ("quick a string", on(bench.run, "yes"), TypeError, "quick must be True or False"),
    ("progress 1", on(bench.run, False, 1), TypeError, "progress must be True or False"),
    ("n zero", on(bench.ncu_target, 0), ValueError, "n must be from 1"),
    ("k 65", on(bench.ncu_target, 2**26, 65), ValueError, r"k \(taps\) must be from 1 to 64"),
    # --- kernels.measure.roofline ---
    ("variant typo", on(roofline.seed_size, 0, ("asynchalo",)), ValueError,
     "did you mean 'async_halo'"),
    ("rows without config", on(roofline.ncu_target, {"rows": [{"name": "bulk", "n": 1, "k": 5}]}),
     ValueError, r"recording\['rows'\]\[0\] has no 'config'"),
    ("n not recorded", on(roofline.ncu_target, ROOF, 1000), ValueError, "no rows at n=1000"),
    # --- kernels.measure.recorded ---
    ("unknown recording", on(recorded.load, "h200_bnch"), ValueError, "did you mean 'h200_bench'"),
    ("unknown profile", on(nsight.summary, "h200_ncu"), ValueError, "unknown profile 'h200_ncu'"),
    ("K not profiled", on(nsight.limits, recorded.load("h200_roofline"), (7,)),
     ValueError, "unknown profile 'h200_ncu_2e26_k7'"),
    ("no copy at 2^26", on(nsight.limits, {"copies": [], "fma": {"fma_per_s": 1.0}}),
     ValueError, "roof has no copy timed at n = 67108864"),
    ("n not recorded", on(recorded.table, RECORDED, 3), ValueError, "no rows at n = 3 with 5 taps"),
    ("no async variant", on(recorded.best_async, {
        "copy": recorded.rows_at(RECORDED)["copy"]}), ValueError, "no asynchronous variant"),
    ("n not recorded", on(recorded.roofline_table, ROOF, 3), ValueError, "no rows at n = 3"),
    # --- kernels.measure.timeline ---
    ("unknown recording", on(schedule.model_presets, "h200_timeline"), ValueError,
     "did you mean 'h200_timelines'"),
    ("naive", on(timeline.trace, "naive"), ValueError, "naive has no trace points"),
    ("tile 100", on(timeline.trace, "async_halo", tile=100), ValueError,
     "tile must be a multiple of 32"),
    ("naive", on(timeline.instrumentation_cost, "naive", 16384), ValueError,
     "naive has no trace points"),
    ("n zero", on(timeline.instrumentation_cost, "async_halo", 0),
     ValueError, "n must be from 1"),
    ("k over the tile", on(timeline.instrumentation_cost, "async_halo",
                                                 16384, 32, 33), ValueError,
     "longer than the tile"),
    ("asyn None", on(timeline.overlap_saving, TL, "tiled_sync", None), TypeError,
     "variant must be a string"),
    ("unknown recording", on(schedule.load_or_measure, "h200_timeline"),
     ValueError, "did you mean 'h200_timelines'"),
    ("variant not traced", on(timeline.records, TL, "bulk"), ValueError, "unknown variant 'bulk'"),
    ("which typo", on(timeline.records, TL, "async_halo", "seeds"), ValueError,
     "did you mean 'seed'"),
    # --- kernels.teach.halo, listing, explore ---
    ("a billion cells", on(halo_cells, kernels.geometry.MAX_N, 32, 17),
     ValueError, "halo_cells lists every halo cell: at most 100000"),
    ("variant typo", on(listing.show, "asynchalo"), ValueError, "did you mean 'async_halo'"),
    ("old typo", on(listing.diff_text, "tiled", "async_halo"), ValueError,
     "did you mean 'tiled_sync'"),
    ("new None", on(listing.diff, "tiled_sync", None), TypeError, "variant must be a string"),
    ("old typo", on(listing.diff, "pipelind", "bulk"), ValueError, "did you mean 'pipelined'"),
    ("bulk for sm_80", on(listing.copy_instructions, "bulk", 80), ValueError, "bulk needs sm_90"),
    ("tile 100", on(listing.copy_instructions, "async_halo", 80, 100),
     ValueError, "tile must be a multiple of 32"),
    ("a typo", on(explore.compare, ["asynchalo"]), ValueError, "did you mean 'async_halo'"),
    # --- kernels.publish.translate ---
    ("root not a folder", on(translate.Edition, ROOT / "no such folder"), ValueError,
     "is not a folder"),
    ("not a table", on(translate.load_table, ROOT / "kernels/recorded/h200_bench.json"),
     ValueError, "has no 'cells'"),
]

FUNCTIONS = [f"{f.__module__.rsplit('.', 1)[-1]}.{f.__name__}" for _, (f, _, _), _, _ in CASES]
IDS = [f"{function}: {c[0]}" for function, c in zip(FUNCTIONS, CASES)]
PUBLIC = [   # what a reader calls with arguments of their own: each needs a row
    "launch.conv1d", "launch.prepare", "launch.gpu_target", "launch.emulate", "launch.run",
    "launch.prepare_config", "reference.reference", "reference.error_bound",
    "reference.wrong_outputs", "reference.assert_correct", "reference.random_inputs",
    "geometry.max_tile", "geometry.launch_config", "halo.halo_cells", "schedule.model",
    "schedule.model_totals", "explore.run", "plots.draw_tiles", "plots.plot_error_map",
    "plots.plot_handoff",
    "charts.plot_bandwidth", "roofline.plan", "roofline.run", "recorded.async_vs_sync",
    "charts.plot_roofline", "bench.measure", "bench.ncu_target", "bench.run", "bench.tune",
    "bench.tuning_grid", "explore.compare", "listing.copy_instructions", "listing.diff",
    "listing.diff_text", "listing.show", "recorded.load", "nsight.summary", "roofline.ncu_target",
    "timeline.instrumentation_cost", "schedule.load_or_measure", "translate.Edition"]


@pytest.fixture
def nothing_runs(monkeypatch):
    """Fail loudly if a bad input gets as far as compiling or emulating."""
    def forbidden(*args, **kwargs):
        raise AssertionError("validation let a bad input through to compile/launch/emulation")
    monkeypatch.setattr(kcompile, "compile_source", forbidden)
    monkeypatch.setattr(emulation, "run", forbidden)      # conv1d's and explore.run's way in
    monkeypatch.setattr(emulation, "_load", forbidden)    # kernels.emulate's, every variant
    monkeypatch.setattr(emulation, "_store", forbidden)


@pytest.mark.usefixtures("nothing_runs")
@pytest.mark.parametrize("what, call, error, message", CASES, ids=IDS)
def test_bad_input_raises(what, call, error, message):
    f, args, kwargs = call
    with pytest.raises(error, match=message) as caught:
        f(*args, **kwargs)
    raised_in = Path(str(caught.traceback[-1].path)).resolve()
    assert raised_in.is_relative_to(KERNELS_DIR), f"raised by {raised_in}, not by our checks"


def test_the_table_covers_every_public_function():
    """Each function of PUBLIC has a row; the other rows are lookups that fail in functions
    that take a recording."""
    assert len(set(IDS)) == len(IDS), "a function's descriptions must be unique"
    assert set(PUBLIC) <= set(FUNCTIONS), set(PUBLIC) - set(FUNCTIONS)


@pytest.mark.parametrize("variant", [v for v in kernels.VARIANTS if v not in ("naive", "vec4")])
def test_largest_tile_is_accepted_and_one_more_warp_is_not(variant):
    stages = 1 if kernels.variants.get(variant).staged else None
    for k in (1, 5, 64):
        top = kernels.max_tile(k, variant, stages)
        cfg = kernels.launch_config(10**6, k, top, variant=variant, stages=stages)
        assert cfg.shared_bytes <= 48 * 1024
        with pytest.raises(ValueError, match="shared memory"):
            kernels.launch_config(10**6, k, top + 32, variant=variant, stages=stages)


@pytest.mark.parametrize("variant", ["tiled_sync", "puzzle28", "async_halo"])
@pytest.mark.parametrize("k", [1, 5, 1000, 3000, 4000, 4095, 4096, 4097, 4500, 6000])
def test_shared_memory_advice_is_never_a_tile_smaller_than_k(variant, k):
    with pytest.raises(ValueError, match="shared memory") as caught:
        kernels.launch_config(10**6, k, 65536, variant=variant)
    advised = [int(t) for t in caught.value.args[0].split("taps is ")[1:]]
    if advised:
        assert advised[0] >= k and kernels.launch_config(10**6, k, advised[0], variant=variant)
    else:
        assert f"no tile fits {k} taps" in str(caught.value)
        with pytest.raises(ValueError, match=f"no tile fits {k} taps"):
            kernels.max_tile(k, variant)


def test_default_stages_are_as_many_as_fit():
    assert kernels.launch_config(10**6, 5, 1024, variant="pipelined").stages == 4
    assert kernels.launch_config(10**6, 5, 4096, variant="pipelined").stages == 2


def test_n_has_its_own_bound_whatever_the_tile():
    from kernels.geometry import MAX_N
    for tile in (32, 65536):
        assert kernels.launch_config(MAX_N, 5, tile, variant="naive").n == MAX_N
        with pytest.raises(ValueError, match="n must be from 1 to .*32-bit"):
            kernels.launch_config(MAX_N + 1, 5, tile, variant="naive")


def test_non_contiguous_input_is_copied():
    x = np.random.default_rng(3).standard_normal(2000, dtype=np.float32)[::2]
    assert not x.flags.c_contiguous
    kernels.assert_correct(kernels.conv1d(x, W, backend="emulate"), x, W)


def test_memmap_is_accepted_and_a_plain_array_comes_back(tmp_path):
    x = np.memmap(tmp_path / "x.f32", dtype=np.float32, mode="w+", shape=X.shape)
    x[:] = X
    y = kernels.conv1d(x, W, backend="emulate")
    assert type(y) is np.ndarray
    np.testing.assert_array_equal(y, kernels.conv1d(X, W, backend="emulate"))
    np.testing.assert_array_equal(kernels.emulate("vec4", x, W), kernels.emulate("vec4", X, W))
    assert kernels.wrong_outputs(y, x, W).size == 0   # the reference of a memmap too


@pytest.mark.parametrize("variant", [v for v in kernels.VARIANTS if v != "puzzle28"])
def test_infinite_and_nan_inputs_match_the_reference(variant):
    """Where the reference is inf, -inf or NaN, the emulated kernel gives the same value, and
    that counts as correct."""
    x = X.copy()
    x[[10, 500]], x[300], x[700] = np.inf, -np.inf, np.nan
    y = kernels.emulate(variant, x, W)
    ref = kernels.reference(x, W)
    assert np.isposinf(ref).any() and np.isneginf(ref).any() and np.isnan(ref).any()
    kernels.assert_correct(y, x, W)


def test_a_non_finite_output_must_be_the_same_non_finite_value():
    x = X.copy()
    x[300], x[700] = -np.inf, np.nan
    y = kernels.emulate("async_halo", x, W)
    ref = kernels.reference(x, W)
    neg_inf, nan = np.flatnonzero(np.isneginf(ref))[0], np.flatnonzero(np.isnan(ref))[0]
    y[neg_inf], y[nan], y[0] = np.inf, 0.0, np.nan      # wrong sign, a number for NaN, unwritten
    np.testing.assert_array_equal(kernels.wrong_outputs(y, x, W), sorted({0, neg_inf, nan}))


@pytest.mark.parametrize("variant", kernels.VARIANTS)
def test_chunked_emulation_equals_one_chunk_bit_for_bit(variant, monkeypatch):
    x, w = kernels.random_inputs(10_000, 9, 5)
    x[[17, 4000]] = np.inf, np.nan
    monkeypatch.setattr(emulation, "CHUNK_OUTPUTS", 2**30)
    whole = kernels.emulate(variant, x, w, tile=256)
    monkeypatch.setattr(emulation, "CHUNK_OUTPUTS", 3 * 256)       # 3 blocks a chunk, 40 blocks
    chunked = kernels.emulate(variant, x, w, tile=256)
    np.testing.assert_array_equal(chunked.view(np.uint32), whole.view(np.uint32))


def test_emulation_memory_is_bounded():
    """x and y of 2**22 floats are 32 MB; the emulation's temporaries stay within a few chunks."""
    x, w = kernels.random_inputs(2**22, 63, 0)
    tracemalloc.start()
    try:
        y = kernels.emulate("vec4", x, w, tile=256)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert y.shape == x.shape
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MB"


def test_good_values_of_every_kind_are_accepted():
    assert kernels.random_inputs(np.int64(10), np.int32(3), np.random.default_rng(1))[0].size == 10
    assert kernels.random_inputs(10, 3, np.random.SeedSequence(1))[1].size == 3
    a = schedule.model_totals(dram_latency=np.float32(500), taps_latency=100, compute=50.0,
                              tile=np.int64(256), blocks_per_sm=np.int8(2), bytes_per_cycle=64)
    b = schedule.model_totals(dram_latency=500, taps_latency=100, compute=50, tile=256,
                              blocks_per_sm=2, bytes_per_cycle=64.0)
    assert a == b
    assert schedule.model(dram_latency=0, taps_latency=0).total == 50
    assert kernels.max_tile(64, "vec4") == 65536 and kernels.max_tile(np.int64(5)) == 12256
    assert charts.plot_bandwidth(RECORDED, np.int64(5), "recorded").axes
    assert plots.plot_error_map({"a": Y, "b": Y, "c": Y, "d": Y}, X, W, np.int64(256)).axes
    assert len(halo_cells(np.int64(100), 32, 5)) == 4 * 4
    r = explore.run("naive", n=1000, tile=64, k=9, seed=np.random.default_rng(0), timed=False)
    assert r.wrong == 0


def test_gpu_backend_without_gpu_is_a_clear_error():
    if kernels.gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="no GPU"):
        kernels.conv1d(X, W, backend="gpu")


# --- on a GPU: what prepare checks of CuPy arrays ------------------------------------------

def _sharing(cp, left: int, right: int):
    """Two float32 views of one allocation, of ``left`` and ``right`` elements, sharing one."""
    buf = cp.empty(left + right - 1, cp.float32)
    return buf[:left], buf[left - 1:]


GPU_CASES = [
    # (description, (cupy, x, w, y) -> prepare's (args, kwargs), error, message fragment)
    ("y overlaps x", lambda cp, x, w, y: (lambda a, b: (("async_halo", a, w, b), {}))(
        *_sharing(cp, 1000, 1000)), ValueError, "y overlaps x"),
    ("y overlaps w", lambda cp, x, w, y: (lambda a, b: (("async_halo", x, a, b), {}))(
        *_sharing(cp, 5, 1000)), ValueError, "y overlaps w"),
    ("y a reversed view of x", lambda cp, x, w, y: (("async_halo", x, w, x[::-1]), {}),
     ValueError, "y must be contiguous"),
    ("y float64", lambda cp, x, w, y: (("async_halo", x, w, y.astype(cp.float64)), {}),
     TypeError, "y must be float32"),
    ("y too short", lambda cp, x, w, y: (("async_halo", x, w, y[:999]), {}), ValueError,
     r"y must have shape \(1000,\)"),
    ("x complex", lambda cp, x, w, y: (("async_halo", x.astype(cp.complex64), w, y), {}),
     TypeError, "complex numbers are not supported"),
    ("w 2-D", lambda cp, x, w, y: (("async_halo", x, w[None, :], y), {}), ValueError,
     "w must be 1-D"),
    ("x not contiguous", lambda cp, x, w, y: (("async_halo", cp.repeat(x, 2)[::2], w, y), {}),
     ValueError, "x must be contiguous"),
    ("vec4, x off a 16-byte boundary",
     lambda cp, x, w, y: (("vec4", cp.empty(1001, cp.float32)[1:], w, y), {}), ValueError,
     "16-byte boundary"),
    ("trace for naive", lambda cp, x, w, y: (("naive", x, w, y),
                                             dict(trace=cp.zeros(1000, cp.uint64))), ValueError,
     "have trace points"),
    ("trace float32", lambda cp, x, w, y: (("async_halo", x, w, y),
                                           dict(trace=cp.zeros(1000, cp.float32))), TypeError,
     "trace must be a CuPy uint64 array"),
    ("trace too short", lambda cp, x, w, y: (("async_halo", x, w, y),
                                             dict(trace=cp.zeros(3, cp.uint64))), ValueError,
     "trace must hold at least"),
    ("trace overlaps y", lambda cp, x, w, y: (("async_halo", x, w, y),
                                              dict(trace=y.view(cp.uint64))), ValueError,
     "trace overlaps y"),
    ("arch newer than the GPU", lambda cp, x, w, y: (("async_halo", x, w, y), dict(arch=1000)),
     ValueError, "arch=1000"),
    ("bulk for sm_80", lambda cp, x, w, y: (("bulk", x, w, y), dict(arch=80)), ValueError,
     "bulk needs sm_90"),
    ("tile 100", lambda cp, x, w, y: (("async_halo", x, w, y), dict(tile=100)), ValueError,
     "tile must be a multiple of 32"),
]


@pytest.mark.gpu
@pytest.mark.usefixtures("nothing_runs")
@pytest.mark.parametrize("what, build, error, message", GPU_CASES, ids=[c[0] for c in GPU_CASES])
def test_bad_cupy_input_to_prepare_raises(what, build, error, message):
    import cupy
    x, w = cupy.asarray(X), cupy.asarray(W)
    args, kwargs = build(cupy, x, w, cupy.empty_like(x))
    with pytest.raises(error, match=message):
        kernels.prepare(*args, **kwargs)


@pytest.mark.gpu
def test_conv1d_never_trips_the_overlap_check():
    """conv1d allocates its own y; inputs that share memory with each other are fine."""
    import cupy
    x = cupy.asarray(X)
    w = x[:5]                     # the taps are the first five inputs
    y = kernels.conv1d(x, w)
    kernels.assert_correct(y, X, X[:5])
    kernels.assert_correct(kernels.conv1d(x[1:], w, "vec4"), X[1:], X[:5])   # misaligned: copied


def test_an_output_that_shares_memory_with_an_input_is_refused():
    """The overlap rule of ``prepare``, on host arrays (the GPU table above runs it on CuPy's)."""
    from kernels.validate import disjoint
    x = np.zeros(100, np.float32)
    disjoint("y", np.zeros(100, np.float32), {"x": x})          # separate arrays: fine
    for y in (x, x[10:60], x[::-1]):   # x itself, inside x, x reversed
        with pytest.raises(ValueError, match="y overlaps x"):
            disjoint("y", y, {"x": x})
    disjoint("y", x[50:], {"x": x[:50]})                       # neighbours, no overlap


# --- GPU-only functions say so; naive agrees on non-finite taps ----------------------------

GPU_ONLY = [("timing.time_us", timing.time_us, (print, 1000)),
            ("bench.run", bench.run, ()), ("bench.measure", bench.measure, (["naive"], 1000, 5)),
            ("bench.tune", bench.tune, ("pipelined",)), ("bench.ncu_target", bench.ncu_target, ()),
            ("roofline.fma_rate", roofline.fma_rate, ()),
            ("roofline.seed_size", roofline.seed_size, ()), ("roofline.run", roofline.run, ()),
            ("roofline.ncu_target", roofline.ncu_target, (ROOF, 2**26, 5)),
            ("timeline.trace", timeline.trace, ("async_halo",)),
            ("timeline.timer_resolution", timeline.timer_resolution, ()),
            ("timeline.instrumentation_cost", timeline.instrumentation_cost, ("async_halo", 16384)),
            ("timeline.measure_all", timeline.measure_all, ())]


@pytest.mark.usefixtures("nothing_runs")
@pytest.mark.parametrize("name, f, args", GPU_ONLY, ids=[c[0] for c in GPU_ONLY])
def test_gpu_only_functions_say_so(name, f, args, monkeypatch):
    """With good arguments and no GPU: a RuntimeError naming the function, before CuPy runs."""
    if kernels.gpu_available():
        pytest.skip("a GPU is present")
    import cupy
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount",
                        lambda: pytest.fail("CuPy touched before the GPU check"), raising=False)
    with pytest.raises(RuntimeError, match=f"{name} needs a CUDA GPU"):
        f(*args)


@pytest.mark.parametrize("variant", [v for v in kernels.VARIANTS if v != "puzzle28"])
@pytest.mark.parametrize("tap", [np.inf, -np.inf, np.nan])
def test_non_finite_taps_match_the_reference(variant, tap):
    """Past the vector's ends each variant multiplies a zero by every tap (0 x inf is NaN), as the
    reference does: naive too, whose listing loads 0.0 there rather than skipping the tap."""
    for where in (0, 2, 4):
        w = W.copy()
        w[where] = tap
        with np.errstate(invalid="ignore"):
            y = kernels.emulate(variant, X, w)
        assert kernels.wrong_outputs(y, X, w).size == 0, (variant, where)
    src = kernels.source("naive")
    assert "? x[j] : 0.0f" in src and "if (j >= 0 && j < n) acc" not in src
