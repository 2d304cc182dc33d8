"""The roofline across kernel sizes: how close each variant comes to what the GPU allows, from
K = 1 to 127 taps, beside a synchronous control that stages the same 16-byte chunks
(``staged_sync``), on a GPU.

    python -m kernels.measure.roofline [--out kernels/recorded/h200_roofline.json] [--quick]
                               [--n-repeat 30] [--no-check] [--plan]

The bound of one case (N outputs, K taps) is the larger of two times: a device-to-device copy
of the 8 N bytes a convolution reads and writes, timed in the same run, and N K fused
multiply-adds at the device's sustained FP32 rate (:func:`fma_rate`: a kernel of many
independent FMA chains per thread, enough blocks to fill the GPU). Every variant is tuned per
(N, K) over a small grid (:data:`GRID`, through :func:`kernels.measure.bench.tuning_grid`); each recorded
row is its fastest configuration by median time, with the quartiles, the copy, FMA and bound
times, the ratio to the bound, and the whole grid it was chosen from (``tried``). At the
puzzle's size (N = 16384, K = 5, 64 blocks) the per-launch times under CUDA-graph replay sit
beside an empty kernel's with the same grid: the share of a launch that is launch overhead.

Budget (a few minutes of GPU): inputs are generated once, on the GPU; every kernel is compiled
up front, in parallel; the copy is timed once per (N, K); each configuration is timed with
``n_repeat`` launches (CUDA events). Correctness: the fastest configuration of each variant at
each K is launched again, into outputs poisoned with NaN, and checked on the GPU against the
float64 reference at the smallest N of the sweep (the GPU tests cover every size's indexing).
``--plan`` says what a run times and about how long it takes, without a GPU.

:mod:`kernels.measure.recorded` reads the recording (``roofline_rows``, ``best_per_k``,
``async_vs_sync``, ``launch_overhead``, ``roofline_table``); :func:`kernels.teach.charts.plot_roofline`
draws it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .. import variants as V
from ..device import device_info
from ..files import read_json, write_json
from ..geometry import PUZZLE28, valid_n
from ..launch import prepare
from ..reference import U32
from ..validate import (array_module, flag, integer, needs_gpu, output_file, record,
                        rows as valid_rows, sequence)
from . import bench
from .recorded import roofline_table
from .timing import time_us

SIZES = (2**24, 2**26)                # x and y past the H200's 60 MiB L2: DRAM-bound
KS = (1, 3, 5, 9, 17, 31, 63)         # what every variant takes (the window variants: K <= 64)
LONG_KS = (127,)                      # taps beyond a register window: the one-output kernels
VARIANTS = ("tiled_sync", "tiled_loads_first", "async_halo", "vec4", "staged_sync", "pipelined", "bulk",
            "warp_specialized")
THREADS = (128, 256)
# The tuning grid of each variant (bench.tuning_grid's arguments, threads: THREADS): tiles, and
# for the staged variants stages 1, 2, 4 with persistent blocks plus one block per tile. The
# 16-byte variants share one grid, so that the synchronous controls (vec4, staged_sync) are
# tuned as far as the asynchronous ones.
WINDOW_GRID = dict(tiles=(1024, 2048, 4096))
GRID = {
    "tiled_sync": dict(tiles=(256, 1024)),
    "tiled_loads_first": dict(tiles=(256, 1024)),
    "async_halo": dict(tiles=(256, 1024)),
    "vec4": WINDOW_GRID,
    "staged_sync": WINDOW_GRID,
    "pipelined": dict(WINDOW_GRID, stages=(1, 2, 4)),
    "bulk": dict(WINDOW_GRID, stages=(1, 2, 4)),
    "warp_specialized": dict(WINDOW_GRID, stages=(1, 2, 4)),
}
QUICK = dict(sizes=(2**22,), ks=(5, 31), long_ks=(127,))
N_REPEAT = 30
SEED_VARIANTS = ("tiled_sync", "tiled_loads_first", "async_halo")

FMA_CHAINS, FMA_ITERS, FMA_THREADS, FMA_WAVES = 8, 4096, 256, 4
PROBES = r"""
// The FP32 bound: FMA_CHAINS independent chains of fused multiply-adds per thread, so that no
// FMA waits for the one before it; a and b arrive at run time, so nothing folds.
extern "C" __global__ void fma_throughput(float* out, float a, float b, int iters)
{
    float r[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) r[c] = threadIdx.x + c;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int c = 0; c < FMA_CHAINS; ++c) r[c] = fmaf(r[c], a, b);
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c) s += r[c];
    if (s == 0.0f) out[0] = s;   // never true for a, b > 0: it keeps every chain live
}

// The launch floor: a kernel that does nothing, launched with a convolution's grid.
extern "C" __global__ void empty_kernel() {}
""".replace("FMA_CHAINS", str(FMA_CHAINS))

# What --plan's estimate assumes of an H200 (rough, on the slow side: a kernel at 3x its bound).
EST_COPY_BYTES_PER_S, EST_FMA_PER_S, EST_SLOWDOWN = 4.0e12, 3.3e13, 3.0
EST_LAUNCH_OVERHEAD_S, EST_CONFIG_SETUP_S, EST_COMPILE_S = 50e-6, 0.02, 1.5


def _say(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _integers(name: str, values, lo: int = 1) -> tuple[int, ...]:
    """A non-empty list or tuple of distinct integers from ``lo``."""
    values = tuple(integer(f"{name}[{i}]", v, lo=lo)
                   for i, v in enumerate(sequence(name, values, "integers")))
    if len(set(values)) != len(values):
        raise ValueError(f"{name} repeats a value: {values}")
    return values


def plan(sizes=SIZES, ks=KS + LONG_KS, variants=VARIANTS) -> list[tuple[int, int, str, list]]:
    """Every case the sweep times, as (n, k, variant, its tuning grid of
    :class:`kernels.LaunchConfig`): each variant of ``variants`` at each K it takes, at each N.
    No GPU needed."""
    sizes = tuple(valid_n(n) for n in _integers("sizes", sizes))
    ks = _integers("ks", ks)
    variants = tuple(V.get(v).name for v in sequence("variants", variants, "variant names"))
    for v in variants:
        if v not in GRID:
            raise ValueError(f"{v} has no tuning grid here (roofline.GRID has "
                             f"{', '.join(GRID)})")
    cases = []
    for n in sizes:
        for k in ks:
            for v in variants:
                if not V.get(v).takes_k(k):
                    continue
                grid = bench.tuning_grid(v, n, k, threads=THREADS, **GRID[v])
                if not grid:
                    raise ValueError(f"no configuration of {v}'s grid {GRID[v]} fits {k} taps")
                cases.append((n, k, v, grid))
    return cases


def builds(cases) -> list[tuple[str, object]]:
    """The distinct (variant, LaunchConfig) of a plan, one per compilation (N aside)."""
    seen = {}
    for _, _, v, grid in cases:
        for c in grid:
            seen.setdefault((v, c.tile, c.k, c.threads, c.stages), (v, c))
    return list(seen.values())


def estimate_seconds(cases, n_repeat: int = N_REPEAT, cpus: int | None = None) -> dict:
    """A rough estimate of a run on an H200: the timed configurations, the compilations, and
    seconds for each part (each configuration: ``n_repeat`` + warm-up launches at 3x its bound,
    plus launch overhead and setup; each compilation 1.5 s, ``cpus`` at once)."""
    cpus = cpus or os.cpu_count() or 1
    launches = n_repeat + max(3, n_repeat // 10)
    timed = sum(len(grid) for _, _, _, grid in cases)
    timing = sum(len(grid) * (launches * (EST_SLOWDOWN * max(8 * n / EST_COPY_BYTES_PER_S,
                                                                n * k / EST_FMA_PER_S)
                                          + EST_LAUNCH_OVERHEAD_S) + EST_CONFIG_SETUP_S)
                 for n, k, _, grid in cases)
    compiles = len(builds(cases))
    compiling = -(-compiles // cpus) * EST_COMPILE_S
    return {"cases": len(cases), "timed_configs": timed, "compilations": compiles,
            "timing_s": round(timing, 1), "compile_s": round(compiling, 1),
            "total_s": round(timing + compiling, 1)}


def _probe(name: str):
    import cupy
    return cupy.RawModule(code=PROBES).get_function(name)


def fma_rate(n_repeat: int = N_REPEAT) -> dict:
    """The device's sustained FP32 FMA rate: :data:`PROBES`' fma_throughput on FMA_WAVES full
    waves of blocks (as many threads as every SM holds, times FMA_WAVES), timed with CUDA
    events. Returns the launch, its quartiles and ``fma_per_s`` (FMAs over the median time)."""
    needs_gpu("roofline.fma_rate")
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    blocks = (props["multiProcessorCount"] * (props["maxThreadsPerMultiProcessor"] // FMA_THREADS)
              * FMA_WAVES)
    kernel, out = _probe("fma_throughput"), cupy.zeros(1, cupy.float32)
    args = (out, np.float32(0.5), np.float32(1.0), np.int32(FMA_ITERS))

    def launch():
        kernel((blocks,), (FMA_THREADS,), args)
    times, method = time_us(launch, blocks * FMA_THREADS, n_repeat, graph=False)
    median, q1, q3 = bench.quartiles(times)
    fmas = blocks * FMA_THREADS * FMA_CHAINS * FMA_ITERS
    return {"fmas": fmas, "median_us": median, "q1_us": q1, "q3_us": q3, "method": method,
            "fma_per_s": fmas / (median * 1e-6), "blocks": blocks, "threads": FMA_THREADS,
            "chains": FMA_CHAINS, "iters": FMA_ITERS}


def reference_and_bound(x, w):
    """The float64 reference of ``x`` and ``w`` and the rounding bound of each output, as
    :func:`kernels.reference.reference` and :func:`~kernels.reference.error_bound` define them,
    computed with ``x``'s array module: on the GPU for CuPy arrays (the host reference of 2^24
    outputs with 127 taps takes seconds)."""
    xp = array_module("x", x)
    n, k = x.size, w.size
    padded = xp.pad(x.astype(xp.float64), (k // 2, k - 1 - k // 2))
    ref, mag = xp.zeros(n, xp.float64), xp.zeros(n, xp.float64)
    taps = (w if xp is np else w.get()).astype(np.float64).tolist()
    for j, wj in enumerate(taps):
        seg = padded[j:j + n]
        ref += seg * wj
        mag += xp.abs(seg) * abs(wj)
    return ref, 2 * k * U32 * mag + np.finfo(np.float32).tiny


def count_wrong(y, ref, bound) -> int:
    """Outputs of ``y`` farther from ``ref`` than ``bound`` (NaN, an unwritten output, is
    wrong); the inputs here are finite."""
    xp = array_module("y", y)
    return int(xp.count_nonzero(~(xp.abs(y.astype(xp.float64) - ref) <= bound)))


def bounded(row: bench.Row, fma_per_s: float, tried: list) -> dict:
    """A recorded roofline row: ``row`` (the fastest configuration) with its FMA time, its bound
    (the larger of the copy and the FMA time), its ratio to the bound (and to the copy), which
    of the two bounds it, and every configuration ``tried``."""
    fma_us = row.n * row.k / fma_per_s * 1e6
    bound_us = max(row.copy_us, fma_us)
    return dict(asdict(row), gbps=row.gbps, copy_ratio=row.ratio, fma_us=fma_us,
                bound_us=bound_us, ratio=row.median_us / bound_us,
                limit="copy" if row.copy_us >= fma_us else "fma",
                tried=[dict(config=r.config, median_us=r.median_us, q1_us=r.q1_us, q3_us=r.q3_us)
                       for r in tried])


def seed_size(seed: int = 0, variants=SEED_VARIANTS) -> dict:
    """At the puzzle's size (N = 16384, K = 5, tile 256: 64 blocks of 256 threads), per-launch
    times under CUDA-graph replay of ``variants``, a copy of the same bytes and an empty kernel
    with the same grid: what share of a launch is launch overhead."""
    variants = tuple(V.get(v).name for v in variants)
    needs_gpu("roofline.seed_size")
    import cupy
    p = PUZZLE28
    rs = cupy.random.RandomState(seed)
    x, w = rs.standard_normal(p.n, dtype=cupy.float32), rs.standard_normal(p.k, dtype=cupy.float32)
    y = cupy.empty_like(x)
    copy = bench.time_copy(x, y, p.k)
    rows = [copy] + [bench.time_variant(v, x, w, y, copy.median_us, p.launch) for v in variants]
    kernel = _probe("empty_kernel")
    times, method = time_us(lambda: kernel((p.blocks,), (p.threads,), ()), p.n)
    rows.append(bench.Row("empty", p.n, p.k, *bench.quartiles(times), copy.median_us, method,
                          dict(grid=p.blocks, threads=p.threads)))
    return {"n": p.n, "k": p.k, "blocks": p.blocks, "threads": p.threads,
            "rows": [dict(asdict(r), ratio=r.ratio) for r in rows]}


def run(sizes=SIZES, ks=KS, long_ks=LONG_KS, n_repeat: int = N_REPEAT, check: bool = True,
        seed: int = 0, progress: bool = False) -> dict:
    """The sweep: the FMA rate, the seed size, then every variant tuned at every (N, K) against
    the bound; ``progress`` prints a line to stderr per (N, K). Returns the recording (see
    :mod:`kernels.measure.recorded`)."""
    n_repeat = integer("n_repeat", n_repeat, 3, 1000)
    check, progress = flag("check", check), flag("progress", progress)
    seed = integer("seed", seed, 0, 2**32 - 1)
    all_ks = _integers("ks", ks) + (() if long_ks in ((), []) else _integers("long_ks", long_ks))
    variants, left_out = V.runnable_here(VARIANTS)
    cases = plan(sizes, all_ks, variants)
    needs_gpu("roofline.run")
    import cupy
    started = time.time()
    est = estimate_seconds(cases, n_repeat)
    _say(progress, f"roofline: {est['cases']} cases, {est['timed_configs']} timed configurations, "
                   f"{est['compilations']} compilations (estimate {est['total_s']:.0f} s)")
    bench._warm(builds(cases))
    _say(progress, f"  compiled in {time.time() - started:.0f} s")
    fma = fma_rate(n_repeat)
    _say(progress, f"  FMA rate {fma['fma_per_s'] / 1e12:.1f} T/s")
    seed_rows = seed_size(seed)
    _say(progress, "  N = 16384, graph replay: " + ", ".join(
        f"{r['name']} {r['median_us']:.2f} µs" for r in seed_rows["rows"]))
    rs = cupy.random.RandomState(seed)
    x_all = rs.standard_normal(max(n for n, *_ in cases), dtype=cupy.float32)   # generated once
    y_all = cupy.empty_like(x_all)
    check_n = min(n for n, *_ in cases)
    rows, copies = [], []
    for n in dict.fromkeys(n for n, *_ in cases):
        x, y = x_all[:n], y_all[:n]
        for k in dict.fromkeys(k for m, k, *_ in cases if m == n):
            w = rs.standard_normal(k, dtype=cupy.float32)
            copy = bench.time_copy(x, y, k, n_repeat)
            copies.append({**{key: getattr(copy, key) for key in
                              ("n", "k", "median_us", "q1_us", "q3_us", "method")},
                           "by": copy.config.get("by")})
            ref = reference_and_bound(x, w) if check and n == check_n else None
            line = []
            for _, _, v, grid in (c for c in cases if c[:2] == (n, k)):
                tried = [bench.time_variant(v, x, w, y, copy.median_us, bench.launch_keywords(c),
                                            n_repeat, check=None) for c in grid]
                best = min(tried, key=lambda r: r.median_us)
                row = bounded(best, fma["fma_per_s"], tried)
                row["checked"] = ref is not None
                if ref is not None:
                    _check(v, x, w, y, best, *ref)
                rows.append(row)
                line.append(f"{v} {row['ratio']:.2f}")
            del ref
            _say(progress, f"  n=2^{int(np.log2(n))} k={k:3d} ({time.time() - started:4.0f} s): "
                           f"time over the bound: {', '.join(line)}")
    return {"provenance": {**device_info(),
                           "command": " ".join(["python -m kernels.measure.roofline", *sys.argv[1:]]),
                           "seconds": round(time.time() - started, 1), "n_repeat": n_repeat,
                           "checked_at_n": check_n if check else None},
            "left_out": left_out,
            "grid": {v: {**GRID[v], "threads": list(THREADS)} for v in variants},
            "fma": fma, "seed": seed_rows, "copies": copies, "rows": rows}


def _check(variant, x, w, y, best, ref, bound) -> None:
    """Launch ``best``'s configuration again into NaN-poisoned ``y`` and compare on the GPU."""
    import cupy
    y.fill(cupy.nan)
    kw = {key: best.config[key] for key in bench.TUNED}
    prepare(variant, x, w, y, **kw)()
    wrong = count_wrong(y, ref, bound)
    if wrong:
        raise AssertionError(f"{variant} n={x.size} k={w.size} {kw}: {wrong} outputs wrong")


def ncu_target(recording: dict, n: int = 2**26, k: int = 31) -> None:
    """Launch once each variant's fastest configuration in ``recording`` at (``n``, ``k``): what
    ``ncu`` profiles for the limiter of each (the command is in the README)."""
    record("recording", recording, ("rows",))
    valid_rows("recording['rows']", recording["rows"], ("name", "n", "k", "config"))
    n, k = valid_n(n), integer("k", k, 1)
    rows = [r for r in recording["rows"] if r["n"] == n and r["k"] == k]
    if not rows:
        raise ValueError(f"the recording has no rows at n={n}, k={k}")
    needs_gpu("roofline.ncu_target")
    import cupy
    rs = cupy.random.RandomState(0)
    x, w = rs.standard_normal(n, dtype=cupy.float32), rs.standard_normal(k, dtype=cupy.float32)
    y = cupy.empty_like(x)
    for r in rows:
        prepare(r["name"], x, w, y, **{key: r["config"][key] for key in bench.TUNED})()
    cupy.cuda.runtime.deviceSynchronize()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernels.measure.roofline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the JSON here")
    parser.add_argument("--quick", action="store_true",
                        help=f"N = 2^22, K = 5, 31, 127 only: a smoke test ({QUICK})")
    parser.add_argument("--n-repeat", type=int, default=N_REPEAT,
                        help=f"timed launches per configuration (default {N_REPEAT})")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the correctness check of each variant's fastest configuration")
    parser.add_argument("--plan", action="store_true",
                        help="print what a run times and an estimate of its time (no GPU needed)")
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1,
                        help="with --plan: the GPU machine's CPUs, which compile in parallel")
    parser.add_argument("--ncu-target", type=Path, metavar="RECORDING",
                        help="launch each variant's fastest configuration of RECORDING at "
                             "N = 2^26, K = --ncu-k once (run under ncu)")
    parser.add_argument("--ncu-k", type=int, default=31, help="with --ncu-target (default 31)")
    args = parser.parse_args(argv)
    sweep = QUICK if args.quick else dict(sizes=SIZES, ks=KS, long_ks=LONG_KS)
    try:                        # every argument before anything runs: a usage error, no traceback
        integer("--n-repeat", args.n_repeat, 3, 1000)
        integer("--cpus", args.cpus, 1)
        integer("--ncu-k", args.ncu_k, 1)
        if args.out is not None:
            args.out = output_file("--out", args.out)
        if args.ncu_target is not None and not args.ncu_target.is_file():
            raise ValueError(f"--ncu-target {args.ncu_target}: no such recording")
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    if args.plan:
        cases = plan(sweep["sizes"], sweep["ks"] + sweep["long_ks"])
        return print(json.dumps(estimate_seconds(cases, args.n_repeat, args.cpus)))
    info = device_info()
    if info["backend"] == "gpu" and args.ncu_target:
        return ncu_target(read_json(args.ncu_target), k=args.ncu_k)
    if info["backend"] != "gpu":
        sys.exit(f"the roofline needs a GPU ({info['reason']}); `--plan` runs without one, and "
                 "the recorded results are in kernels/recorded/")
    result = run(**sweep, n_repeat=args.n_repeat, check=not args.no_check, progress=True)
    if args.out:                # written first: the table below cannot lose the run
        write_json(args.out, result, indent=1)
        print(f"wrote {args.out}", file=sys.stderr)
    for n in dict.fromkeys(r["n"] for r in result["rows"]):
        print(roofline_table(result, n))


if __name__ == "__main__":
    main()
