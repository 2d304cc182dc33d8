"""Measure the variants against the device's copy bandwidth and against CuPy and PyTorch, on a
GPU: the sweep over sizes and taps, the tuning of the staged variants, the stage sweep.

    python -m kernels.measure.bench [--quick] [--out FILE.json]

The profile in kernels/recorded/h200_ncu_2e26_k5.txt comes from (metrics: see
kernels.measure.nsight.METRICS)
    ncu --clock-control none --metrics $(python -m kernels.measure.bench --ncu-metrics) \
        -k regex:conv1d_ python -m kernels.measure.bench --ncu-target

Kernel-only times from kernels.measure.timing: CUDA events around each launch, or, for our kernels and
the copy at small N where launch overhead would dominate, around the replay of a CUDA graph of
many launches. The peers are always timed with events: PyTorch launches on its own stream, which
a CuPy graph capture does not record (launch overhead is then included at small N). Medians with
the interquartile range. Every row also carries the time of a device-to-device copy of the same
bytes (read x, write y: 8 N bytes) measured in the same run, and the ratio to it. The JSON
written records the device, driver, CuPy version, date and command; kernels.measure.recorded reads it
back.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .. import variants as V
from ..device import device_info
from ..files import write_json
from ..geometry import MAX_STAGES, MAX_THREADS, launch_config, valid_n, valid_tile
from ..compile import Build, warm_cache
from ..launch import Launch, blocks_per_sm, gpu_target, prepare
from ..reference import assert_correct, random_inputs
from ..validate import (choice, flag, integer, needs_gpu, output_file, rng_seed, sequence,
                        warps)
from .nsight import METRICS as NCU_METRICS
from .recorded import load, table
from .timing import COPIES, copy_fn, time_us

OURS = V.NAMES
PEERS = ("cupyx.ndimage.correlate1d", "torch.conv1d")
CHECK_UP_TO = 2**22          # outputs checked against the float64 CPU reference up to this N


@dataclass
class Row:
    name: str                 # a variant, a peer, or "copy"
    n: int
    k: int                    # taps
    median_us: float
    q1_us: float
    q3_us: float
    copy_us: float            # device-to-device copy of the same 8 N bytes, same run
    method: str               # "events" or "graph"
    config: dict              # tile, threads, stages, persistent, grid

    @property
    def gbps(self) -> float:
        return 8 * self.n / (self.median_us * 1e-6) / 1e9

    @property
    def ratio(self) -> float:
        """Time over the copy time: 1.0 is the copy roofline."""
        return self.median_us / self.copy_us


def peer_fn(name: str, x, w, y):
    """A library's convolution with our definition (zero padding), writing into y where it can."""
    name = choice("name (a peer)", name, PEERS)
    needs_gpu("bench.peer_fn")
    k = w.size
    if name == "cupyx.ndimage.correlate1d":
        from cupyx.scipy import ndimage
        return lambda: ndimage.correlate1d(x, w, mode="constant", cval=0.0, output=y)
    if name == "torch.conv1d":   # output length n (odd K) or n + 1 (even K); checked on [:n]
        import torch
        torch.backends.cudnn.allow_tf32 = False
        xt, wt = torch.from_dlpack(x).view(1, 1, -1), torch.from_dlpack(w).view(1, 1, -1)
        return lambda: torch.nn.functional.conv1d(xt, wt, padding=k // 2)
    raise ValueError(name)


def _check_peer(name, fn, x, w, y):
    import cupy
    out = fn()
    if x.size > CHECK_UP_TO:
        return
    if name == "torch.conv1d":
        out = cupy.from_dlpack(out.view(-1)[:x.size].contiguous())
    else:
        out = y
    assert_correct(out, x.get(), w.get(), name)


def quartiles(times) -> tuple[float, float, float]:
    """Median, first and third quartile of per-launch times."""
    return (float(np.median(times)), *np.percentile(times, [25, 75]).tolist())


def time_copy(x, y, k: int, n_repeat: int | None = None) -> Row:
    """The yardstick: a device-to-device copy of x into y (the 8 N bytes a convolution moves),
    as the "copy" row of a sweep at k taps: the faster of ``cudaMemcpyAsync`` and a 16-byte copy
    kernel (:func:`kernels.measure.timing.copy_fn`), both timed here; its config says which
    ("by") and the median of each."""
    needs_gpu("bench.time_copy")
    import cupy
    timed = {}
    for how in COPIES:
        y.fill(cupy.nan)
        times, method = time_us(copy_fn(x, y, how), x.size, n_repeat)
        if not bool((y == x).all()):
            raise AssertionError(f"the {how} copy did not copy x into y")
        timed[how] = (quartiles(times), method)
    by = min(timed, key=lambda how: timed[how][0][0])
    (median, q1, q3), method = timed[by]
    return Row("copy", x.size, k, median, q1, q3, median, method,
               dict(by=by, **{f"{how}_us": timed[how][0][0] for how in COPIES}))


def check_on_host(y, x, w, name: str) -> None:
    """The float64 CPU reference, up to CHECK_UP_TO outputs (the tests cover every size's
    indexing)."""
    needs_gpu("bench.check_on_host")
    if x.size <= CHECK_UP_TO:
        assert_correct(y, x.get(), w.get(), name)


def time_variant(name: str, x, w, y, copy_us: float, kw: dict | None = None,
                 n_repeat: int | None = None, check=check_on_host) -> Row:
    """Time one variant on CuPy ``x`` and ``w`` into ``y`` with the launch keywords ``kw``
    (tile, threads, stages, persistent): :func:`time_launch` of its :func:`kernels.prepare`.
    ``copy_us``: the copy time of the same run, carried by the row."""
    needs_gpu("bench.time_variant")
    return time_launch(prepare(name, x, w, y, **(kw or {})), copy_us, n_repeat, check)


def time_launch(fn: Launch, copy_us: float, n_repeat: int | None = None,
                check=check_on_host) -> Row:
    """Time a prepared launch (:func:`kernels.prepare`, :func:`kernels.prepare_config`): one
    launch into its NaN-poisoned output, checked by ``check(y, x, w, name)`` when the variant
    is correct (None: not checked), then the timed launches."""
    needs_gpu("bench.time_launch")
    import cupy
    x, w, y = fn.args[:3]
    name, cfg = fn.config.variant, fn.config
    y.fill(cupy.nan)
    fn()
    if check is not None and V.get(name).correct:
        check(y, x, w, name)
    times, method = time_us(fn, x.size, n_repeat)
    config = dict(tile=cfg.tile, threads=cfg.threads, stages=cfg.stages,
                  persistent=cfg.persistent, grid=fn.grid, regs=fn.kernel.num_regs,
                  blocks_per_sm=blocks_per_sm(fn.kernel, cfg))
    return Row(name, x.size, w.size, *quartiles(times), copy_us, method, config)


def measure(names, n: int, k: int, configs: dict | None = None, seed: int = 0) -> list[Row]:
    """Time each name (a variant, a peer or 'copy') at n outputs and k taps, with fresh random
    inputs. ``configs`` maps a variant to its launch keywords (tile, threads, stages)."""
    names = [choice(f"names[{i}]", v, OURS + PEERS)
             for i, v in enumerate(sequence("names", names, "variant or peer names"))]
    n, k, seed = valid_n(n), integer("k (taps)", k, 1), rng_seed("seed", seed)
    if configs is not None:
        if not isinstance(configs, dict):
            raise TypeError(f"configs must be a dict of variant -> launch keywords, "
                            f"got {type(configs).__name__}")
        for v, kw in configs.items():
            V.get(v)
            if not isinstance(kw, dict):
                raise TypeError(f"configs[{v!r}] must be a dict of launch keywords, "
                                f"got {type(kw).__name__}")
            launch_config(n, k, variant=v, **{key: kw[key] for key in kw if key != "arch"})
    needs_gpu("bench.measure")
    import cupy
    configs = configs or {}
    x, w = (cupy.asarray(a) for a in random_inputs(n, k, seed))
    y = cupy.empty_like(x)
    rows = [time_copy(x, y, k)]
    copy_us = rows[0].median_us
    for name in names:
        if name in PEERS:
            try:
                fn = peer_fn(name, x, w, y)
                _check_peer(name, fn, x, w, y)
            except ImportError:
                continue
            times, method = time_us(fn, n, graph=False)
            rows.append(Row(name, n, k, *quartiles(times), copy_us, method, {}))
        else:
            rows.append(time_variant(name, x, w, y, copy_us, configs.get(name)))
    return rows


TUNED = ("tile", "threads", "stages", "persistent")


def tuning_grid(variant: str, n: int, k: int, tiles=(1024, 2048, 4096), threads=(128, 256),
                stages=(1, 2, 4)) -> list:
    """The valid launch configurations (:class:`kernels.LaunchConfig`) of ``variant`` at n
    outputs and k taps among ``tiles`` x ``threads`` and, for a staged variant, ``stages`` with
    persistent blocks plus one block per tile with one stage (a second buffer would have nothing
    to hold); those whose shared memory does not fit are left out. Each argument is checked on
    its own first: only the combinations that do not fit are left out, never a bad value."""
    v = V.get(variant)
    n, k = valid_n(n), integer("k (taps)", k, 1)
    if not v.takes_k(k):
        raise ValueError(f"{v.name} holds the taps and its window in registers: at most "
                         f"{v.max_k} taps, got {k}")
    tiles = tuple(valid_tile(t) for t in sequence("tiles", tiles, "tiles"))
    threads = tuple(warps(f"threads[{i}]", t, MAX_THREADS)
                    for i, t in enumerate(sequence("threads", threads, "thread counts")))
    stages = tuple(integer(f"stages[{i}]", s, 1, MAX_STAGES)
                   for i, s in enumerate(sequence("stages", stages, "stage counts")))
    schedules = ([(s, True) for s in stages] + [(1, False)] if V.get(variant).staged
                 else [(None, None)])
    valid = []
    for tile in tiles:
        for th in threads:
            for s, persistent in schedules:
                try:
                    valid.append(launch_config(n, k, tile, th, variant, s, persistent))
                except ValueError:
                    continue
    return valid


def launch_keywords(cfg) -> dict:
    """What :func:`kernels.prepare` takes to launch the :class:`kernels.LaunchConfig` ``cfg``."""
    return {key: getattr(cfg, key) for key in TUNED}


def tune(variant: str, n: int = 2**26, k: int = 5, tiles=(1024, 2048, 4096),
         threads=(128, 256), stages=(1, 2, 4)) -> tuple[dict, list[Row]]:
    """The fastest (tile, threads, stages, persistent) of a variant at n outputs and k taps
    (:func:`tuning_grid`), all rows kept: one set of random inputs and one copy time for all."""
    valid = tuning_grid(variant, n, k, tiles, threads, stages)
    if not valid:
        raise ValueError(f"no configuration of {variant} among tiles {tiles}, threads {threads}"
                         f" fits {k} taps")
    needs_gpu("bench.tune")
    import cupy
    _warm([(variant, c) for c in valid])
    x, w = (cupy.asarray(a) for a in random_inputs(n, k, 0))
    y = cupy.empty_like(x)
    copy_us = time_copy(x, y, k).median_us
    rows = [time_variant(variant, x, w, y, copy_us, launch_keywords(cfg)) for cfg in valid]
    best = min(rows, key=lambda r: r.median_us)
    return {key: best.config[key] for key in TUNED}, rows


def _warm(pairs) -> None:
    """Compile every (variant, LaunchConfig) at once, in parallel, before timing anything."""
    warm_cache((v, Build(c.tile, c.k, c.threads, gpu_target(v), c.stages)) for v, c in pairs)


def run(quick: bool = False, progress: bool = False) -> dict:
    """The sweep (every variant and peer at every size and number of taps K), the tuning and the
    stage sweep; ``progress`` prints a line to stderr per (K, N)."""
    quick, progress = flag("quick", quick), flag("progress", progress)
    needs_gpu("bench.run")
    sizes = [2**p for p in (range(14, 27, 4) if quick else range(14, 29, 2))]
    ks = (5,) if quick else (3, 5, 9, 31)
    ours = V.runnable_here(OURS)[0]   # what this GPU (or ASYNC_BOOK_ARCH's generation) runs
    started = time.time()
    configs, tuning = {}, []
    # the 16-byte variants, synchronous controls included, each tuned over the same grid
    for variant in (v for v in ours if V.get(v).window):
        best, rows = (tune(variant, tiles=(1024,), threads=(128, 256), stages=(2,)) if quick
                      else tune(variant))
        configs[variant] = {key: value for key, value in best.items() if value is not None}
        tuning += rows
    _warm([(v, launch_config(2**20, k, variant=v, **configs.get(v, {}))) for k in ks for v in ours])
    rows = []
    for k in ks:
        for n in sizes:
            rows += measure(ours + PEERS, n, k, configs)
            if progress:
                print(f"  k={k:2d} n=2^{int(np.log2(n)):2d} done", file=sys.stderr)
    stages = []   # persistent blocks: what more stages (more bytes in flight per block) change
    for s in range(1, 5):
        kw = dict(configs["pipelined"], stages=s, persistent=True)
        try:
            launch_config(2**26, 5, kw["tile"], kw["threads"], "pipelined", s)
        except ValueError:   # this many stages of this tile do not fit in shared memory
            continue
        stages += [r for r in measure(["pipelined"], 2**26, 5, {"pipelined": kw}) if r.name == "pipelined"]
    return {"provenance": {**device_info(), "command": " ".join(["python -m kernels.measure.bench", *sys.argv[1:]]),
                           "seconds": round(time.time() - started, 1)},
            "configs": configs,
            "rows": [dict(asdict(r), gbps=r.gbps, ratio=r.ratio) for r in rows],
            "tuning": [dict(asdict(r), gbps=r.gbps, ratio=r.ratio) for r in tuning],
            "stage_sweep": [dict(asdict(r), gbps=r.gbps, ratio=r.ratio) for r in stages]}


PROFILED = ("async_halo", "vec4", "staged_sync", "pipelined", "bulk", "warp_specialized")


def ncu_target(n: int = 2**26, k: int = 5) -> None:
    """Launch each profiled variant once at (n, k), in the recorded benchmark's configuration:
    what ``ncu`` runs to produce the recorded profile."""
    n, k = valid_n(n), integer("k (taps)", k, 1, 64)
    needs_gpu("bench.ncu_target")
    import cupy
    configs = {"async_halo": dict(tile=256, threads=256), **load()["configs"]}
    x, w = (cupy.asarray(a) for a in random_inputs(n, k, 0))
    y = cupy.empty_like(x)
    for variant in PROFILED:
        prepare(variant, x, w, y, **configs[variant])()
    cupy.cuda.runtime.deviceSynchronize()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kernels.measure.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few sizes, K = 5 only")
    parser.add_argument("--out", type=Path, help="write the JSON here")
    parser.add_argument("--ncu-metrics", action="store_true", help="print the metrics to profile")
    parser.add_argument("--ncu-target", action="store_true",
                        help="launch the profiled variants once each (run under ncu)")
    args = parser.parse_args(argv)
    if args.ncu_metrics:
        return print(",".join(NCU_METRICS))
    if args.out is not None:
        try:                    # before the run: a typo must not cost a GPU run
            args.out = output_file("--out", args.out)
        except (TypeError, ValueError) as exc:
            parser.error(str(exc))
    info = device_info()
    if info["backend"] != "gpu":
        sys.exit(f"the benchmark needs a GPU ({info['reason']}); recorded results: kernels/recorded/")
    if args.ncu_target:
        return ncu_target()
    result = run(quick=args.quick, progress=True)
    if args.out:                # written first: the table below cannot lose the run
        write_json(args.out, result, indent=1)
        print(f"wrote {args.out}", file=sys.stderr)
    print(table(result))


if __name__ == "__main__":
    main()
