"""The one public entry point: validate, compile (cached), pick the launch geometry, launch.

Everything a notebook or test runs on the GPU goes through :func:`conv1d` (or, for timing,
:func:`prepare`), and everything it runs without a GPU goes through the same validation into
:mod:`kernels.emulation`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from . import emulation
from .compile import (STAGED_VARIANTS, TRACED_VARIANTS, VARIANTS, check_variant, compiled_file,
                      kernel_name, source)
from .device import _probe, compute_capability, gpu_available

STATIC_SHARED_LIMIT = 48 * 1024   # bytes of static __shared__ per block, on every GPU since sm_20
MAX_THREADS = 1024
BACKENDS = ("auto", "gpu", "emulate")
DEFAULT_TILE = 256
DEFAULT_STAGES = 4
MAX_STAGES = 8            # what libcu++'s per-thread pipeline can wait on
WINDOW_VARIANTS = ("vec4", "pipelined", "bulk")   # 4 outputs per thread from a register window
WINDOW_MAX_K = 64         # they hold about 2 K + 8 floats per thread in registers (taps + window)
ALIGNED_VARIANTS = WINDOW_VARIANTS                 # 16-byte loads: x and y 16-byte aligned
MIN_ARCH = {"bulk": 90}   # the bulk copy engine (cp.async.bulk) arrived with Hopper
TRACE_WORDS = 13          # per block: SM id, 6 x %globaltimer, 6 x clock64 (CONV_TRACE_WORDS)


@dataclass(frozen=True)
class LaunchConfig:
    """How one convolution is laid out on the GPU."""

    variant: str
    n: int              # outputs
    k: int              # taps
    tile: int           # outputs per block (per tile, for the persistent variants)
    threads: int        # threads per block
    tiles: int          # ceil(n / tile); one block each, except for persistent pipelined and bulk
    shared_bytes: int   # static shared memory per block
    stages: int | None  # tile buffers per block (pipelined, bulk)
    persistent: bool | None = None   # pipelined, bulk: blocks walk over tiles (else one tile each)

    @property
    def halo(self) -> int:
        return self.k // 2


def _int(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    return int(value)


def _round4(v: int) -> int:
    return (v + 3) // 4 * 4


def shared_bytes(variant: str, tile: int, k: int, stages: int | None = None) -> int:
    """Static shared memory of one block of ``variant`` (the sizes in its listing)."""
    halo = k // 2
    span = _round4(halo) + tile + _round4(k - 1 - halo)   # CONV_SPAN, 16-byte chunks
    return {"naive": 0, "vec4": 0,
            "tiled_sync": 4 * (tile + k - 1 + k), "async_halo": 4 * (tile + k - 1 + k),
            "puzzle28": 4 * (tile + k),
            "pipelined": 4 * (stages or 1) * span,
            "bulk": 4 * (stages or 1) * span + 8 * (stages or 1) + 128,
            }[variant]


def max_tile(k: int = 1, variant: str = "async_halo", stages: int | None = None) -> int:
    """Largest valid tile (a multiple of 32) for ``k`` taps in ``variant``."""
    tile = 32
    while shared_bytes(variant, tile + 32, k, stages) <= STATIC_SHARED_LIMIT and tile < 2**16:
        tile += 32
    return tile


def launch_config(n: int, k: int, tile: int = DEFAULT_TILE, threads: int | None = None,
                  variant: str = "async_halo", stages: int | None = None,
                  persistent: bool | None = None) -> LaunchConfig:
    """Check sizes and return the launch geometry; raises ``ValueError``/``TypeError``.

    Rules: ``n >= 1`` and small enough for 32-bit indices; ``1 <= k <= tile``; ``tile`` a
    multiple of 32 whose shared memory fits the 48 KiB static limit (for tiled_sync and
    async_halo ``4 * (tile + 2k - 1)`` bytes); ``threads`` a multiple of 32 from 32 to 1024
    (default ``min(tile, 256)``; for vec4, ``tile // 4`` rounded down to a multiple of 32, at
    least 32 and at most 256); ``stages`` from 1 to 8 and ``persistent`` (a bool, default
    True), for pipelined and bulk only (default 4 stages, or as many as fit); vec4, pipelined and
    bulk, which keep the taps and a window of x in registers, take ``k <= 64``.
    """
    check_variant(variant)
    n, k, tile = _int("n", n), _int("kernel size", k), _int("tile", tile)
    if threads is None:
        threads = max(32, min(tile // 4 if variant == "vec4" else tile, 256) // 32 * 32)
    threads = _int("threads", threads)
    if variant in STAGED_VARIANTS:
        if stages is None:   # as many as fit, up to DEFAULT_STAGES
            stages = next((s for s in range(DEFAULT_STAGES, 0, -1) if shared_bytes(
                variant, tile, k, s) <= STATIC_SHARED_LIMIT), 1)
        stages = _int("stages", stages)
        if not 1 <= stages <= MAX_STAGES:
            raise ValueError(f"stages must be from 1 to {MAX_STAGES}, got {stages}")
        if persistent is None:
            persistent = True
        if not isinstance(persistent, (bool, np.bool_)):
            raise TypeError(f"persistent must be True or False, got {type(persistent).__name__}")
        persistent = bool(persistent)
    else:
        for name, value in (("stages", stages), ("persistent", persistent)):
            if value is not None:
                raise ValueError(f"{name} applies to {' and '.join(STAGED_VARIANTS)} only, not {variant}")
    if n < 1:
        raise ValueError(f"the input must hold at least one element, got n={n}")
    if tile < 32 or tile % 32:
        raise ValueError(f"tile must be a positive multiple of 32 (a whole number of warps), got {tile}")
    if k < 1:
        raise ValueError("the kernel w must hold at least one tap")
    if k > tile:
        raise ValueError(f"kernel size {k} is longer than the tile {tile}: a tile's halo "
                         "would reach past its neighbour tile")
    if variant in WINDOW_VARIANTS and k > WINDOW_MAX_K:
        raise ValueError(f"{variant} holds the taps and its window in registers: kernel size at most "
                         f"{WINDOW_MAX_K}, got {k}")
    smem = shared_bytes(variant, tile, k, stages)
    if smem > STATIC_SHARED_LIMIT:
        raise ValueError(f"{variant} with tile {tile}, kernel size {k}"
                         f"{f', {stages} stages' if stages else ''} needs {smem} bytes of shared "
                         f"memory, over the {STATIC_SHARED_LIMIT}-byte limit; the largest tile for "
                         f"this kernel is {max_tile(k, variant, stages)}")
    if threads < 32 or threads > MAX_THREADS or threads % 32:
        raise ValueError(f"threads must be a multiple of 32 from 32 to {MAX_THREADS}, got {threads}")
    if n > 2**31 - 1 - 2 * tile:
        raise ValueError(f"n={n} is too large for the kernels' 32-bit indices")
    return LaunchConfig(variant=variant, n=n, k=k, tile=tile, threads=threads,
                        tiles=-(-n // tile), shared_bytes=smem, stages=stages, persistent=persistent)


def _array_module(a):
    if isinstance(a, np.ndarray):
        return np
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None and isinstance(a, cupy.ndarray):
        return cupy
    raise TypeError(f"expected a NumPy or CuPy array, got {type(a).__name__}")


def _check_vector(name: str, a):
    xp = _array_module(a)
    if a.dtype != np.float32:
        raise TypeError(f"{name} must be float32, got {a.dtype}; the kernels compute in float32 "
                        f"and do not cast for you: pass {name}.astype(np.float32)")
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    return xp


def _gpu_target(variant: str, arch: int | None) -> str:
    """'sm_XX' for this GPU's own machine code, or 'compute_XX' PTX for an older generation."""
    from .compile import supported_archs
    cc = compute_capability()
    if arch is not None:
        arch = _int("arch", arch)
    need = MIN_ARCH.get(variant, 0)
    if (arch or cc) < need:
        raise ValueError(f"{variant} needs sm_{need} or newer (the Hopper bulk copy engine); "
                         f"{'this GPU is' if arch is None else 'asked for'} sm_{arch or cc}. "
                         "Its emulation runs anywhere: backend='emulate'.")
    if arch is None:
        if cc in supported_archs():
            return f"sm_{cc}"
        return f"compute_{max(a for a in supported_archs() if a <= cc)}"   # newer GPU than NVRTC
    if arch not in supported_archs() or arch > cc:
        raise ValueError(f"arch={arch}: this GPU (sm_{cc}) with this NVRTC can run PTX for "
                         f"{[a for a in supported_archs() if a <= cc]}")
    return f"compute_{arch}"


@functools.lru_cache(maxsize=256)
def _kernel(src: str, name: str, tile: int, k: int, threads: int, stages, target: str, device: int,
            trace: bool = False):
    import cupy
    module = cupy.RawModule(path=str(compiled_file(src, name, tile, k, threads, target, stages, trace)))
    return module.get_function(name)


def _grid(kern, cfg: LaunchConfig) -> int:
    """One block per tile; for persistent pipelined and bulk, as many blocks as fit on the GPU at
    once (by threads, registers and shared memory per multiprocessor), each walking over tiles."""
    if not cfg.persistent:
        return cfg.tiles
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    per_sm = min(props["maxThreadsPerMultiProcessor"] // cfg.threads,
                 props["regsPerMultiprocessor"] // max(1, kern.num_regs * cfg.threads),
                 props["sharedMemPerMultiprocessor"] // (cfg.shared_bytes + 1024), 32)
    return max(1, min(cfg.tiles, per_sm * props["multiProcessorCount"]))


def prepare(variant: str, x, w, y, *, tile: int = DEFAULT_TILE, threads: int | None = None,
            stages: int | None = None, persistent: bool | None = None, arch: int | None = None,
            src: str | None = None, trace=None):
    """Compile (cached) and return ``launch()``, which enqueues one kernel on the current stream.

    ``x``, ``w``, ``y`` must be contiguous float32 CuPy arrays, ``len(y) == len(x)``. For
    timing: the returned function does nothing but launch. ``src`` replaces the variant's
    listing (the exercise's learner code); its kernel must keep the variant's name. ``trace``, a
    CuPy uint64 array of ``tiles * TRACE_WORDS`` words, selects the build with trace points
    (notebook 02).
    """
    import cupy
    check_variant(variant)
    for name, a in (("x", x), ("w", w), ("y", y)):
        if not isinstance(a, cupy.ndarray):
            raise TypeError(f"{name} must be a CuPy array here, got {type(a).__name__}")
        _check_vector(name, a)
        if not a.flags.c_contiguous:
            raise ValueError(f"{name} must be contiguous")
    if y.size != x.size:
        raise ValueError(f"y holds {y.size} elements, x {x.size}")
    cfg = launch_config(x.size, w.size, tile, threads, variant, stages, persistent)
    if variant in ALIGNED_VARIANTS and (x.data.ptr % 16 or y.data.ptr % 16):
        raise ValueError(f"{variant} moves 16-byte chunks: x and y must start on a 16-byte boundary")
    if trace is not None:
        if variant not in TRACED_VARIANTS:
            raise ValueError(f"only {', '.join(TRACED_VARIANTS)} have trace points")
        words = TRACE_WORDS * cfg.tiles
        if not isinstance(trace, cupy.ndarray) or trace.dtype != np.uint64 or trace.size < words:
            raise ValueError(f"trace must be a CuPy uint64 array of at least {words} words")
    kern = _kernel(source(variant) if src is None else src, kernel_name(variant), cfg.tile,
                   cfg.k, cfg.threads, cfg.stages, _gpu_target(variant, arch), cupy.cuda.Device().id,
                   trace is not None)
    grid = _grid(kern, cfg)
    args = (x, w, y, np.int32(cfg.n)) + (() if trace is None else (trace,))

    def launch():
        kern((grid,), (cfg.threads,), args)
    launch.config = cfg
    launch.grid = grid
    return launch


def conv1d(x, w, variant: str = "async_halo", *, tile: int = DEFAULT_TILE,
           threads: int | None = None, stages: int | None = None, persistent: bool | None = None,
           backend: str = "auto", arch: int | None = None):
    """``y[i] = sum_k x[i + k - K//2] * w[k]`` with ``x`` zero outside ``[0, n)``.

    Runs ``variant`` (one of ``kernels.VARIANTS``) on the GPU through CuPy, or, without a GPU
    (or with ``backend="emulate"``), the NumPy emulation of the same block algorithm.

    Parameters
    ----------
    x, w : 1-D float32 NumPy or CuPy arrays, not empty. Other dtypes are refused
        (``TypeError``), never cast silently. Non-contiguous arrays are copied.
    variant : ``"naive"``, ``"tiled_sync"``, ``"puzzle28"`` (the published, wrong algorithm),
        ``"async_halo"``, ``"vec4"`` (float4 loads into registers), ``"pipelined"``
        (multi-stage 16-byte cp.async) or ``"bulk"`` (sm_90 bulk copy; on an older GPU a
        ``ValueError``); anything else is a ``ValueError``. The last three keep the taps in
        registers: ``len(w) <= 64``.
    tile : outputs per block (per tile for pipelined and bulk): a multiple of 32 with
        ``len(w) <= tile`` and the variant's shared memory within 48 KiB (``ValueError``); for
        async_halo that is ``4 * (tile + 2 * len(w) - 1)`` bytes.
    threads : threads per block, a multiple of 32 from 32 to 1024; default ``min(tile, 256)``
        (vec4: ``tile // 4`` rounded down to a multiple of 32, from 32 to 256).
    stages : tile buffers per block for pipelined and bulk, 1 to 8 (default 4, or as many as
        fit in shared memory); ``ValueError`` for any other variant.
    persistent : pipelined and bulk only (``ValueError`` otherwise): ``True`` (default) launches
        as many blocks as fit on the GPU, each walking over tiles with its ring of stages;
        ``False`` launches one block per tile (then a second stage has nothing to hold).
    backend : ``"auto"`` (the GPU if there is one), ``"gpu"`` (``RuntimeError`` without one)
        or ``"emulate"``.
    arch : run PTX compiled for this older compute capability (e.g. ``75`` for a T4's code
        path) instead of this GPU's own machine code. GPU only.

    Returns
    -------
    ``y`` as float32, a CuPy array for CuPy input and a NumPy array otherwise. On the GPU ``y``
    is filled with NaN before the launch, so an output the kernel never writes stays NaN.

    All checks happen before anything is compiled or launched.
    """
    check_variant(variant)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    xp = _check_vector("x", x)
    _check_vector("w", w)
    cfg = launch_config(x.size, w.size, tile, threads, variant, stages, persistent)
    on_gpu = backend == "gpu" or (backend == "auto" and gpu_available())
    if backend == "gpu" and not gpu_available():
        raise RuntimeError(f"backend='gpu' but no GPU is usable here: {_probe()[1]}")
    if not on_gpu:
        if arch is not None:
            raise ValueError("arch selects GPU code; the emulation has none")
        y = emulation.run(variant, _to_numpy(x), _to_numpy(w), tile=cfg.tile)
        return xp.asarray(y)
    import cupy
    xd = cupy.ascontiguousarray(cupy.asarray(x))
    if xd.data.ptr % 16:
        xd = xd.copy()   # a fresh allocation is 256-byte aligned
    wd = cupy.ascontiguousarray(cupy.asarray(w))
    y = cupy.full(cfg.n, cupy.nan, dtype=cupy.float32)
    prepare(variant, xd, wd, y, tile=cfg.tile, threads=cfg.threads, stages=cfg.stages,
            persistent=cfg.persistent, arch=arch)()
    return y if xp is not np else cupy.asnumpy(y)


def _to_numpy(a) -> np.ndarray:
    return np.ascontiguousarray(a if isinstance(a, np.ndarray) else a.get())


__all__ = ["VARIANTS", "LaunchConfig", "launch_config", "max_tile", "conv1d", "prepare"]
