"""Target selection, loading and launching: the one way a kernel reaches the GPU.

Everything a notebook or test runs on the GPU goes through :func:`conv1d` (or, for timing,
:func:`prepare`), and everything it runs without a GPU goes through the same validation into
:mod:`kernels.emulation`. The size rules live in :mod:`kernels.geometry`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from . import emulation, layout, variants as V
from .compile import Build, compiled_file, kernel_name, nvrtc_version, source, supported_archs
from .device import (ARCH_ENV, OLDEST_ARCH, _probe, compute_capability,  # noqa: F401
                     gpu_available, simulated_arch)
from .geometry import (DEFAULT_TILE, LaunchConfig, launch_config, max_tile,  # noqa: F401
                       shared_bytes)
from .validate import choice, disjoint, flag, integer, same_length, text, vector

BACKENDS = ("auto", "gpu", "emulate")
TRACE_WORDS = layout.TRACE_WORDS


def _arch(arch):
    """None (this GPU's own code) or a compute capability of the book's oldest GPU or newer."""
    if arch is None:
        return None
    return integer("arch", arch, lo=OLDEST_ARCH, why=" (the book's oldest GPU is the T4, sm_75)")


def gpu_target(variant: str, arch: int | None = None) -> str:
    """What to build ``variant`` as: 'sm_XX', machine code for the generation the book runs as
    when that is this GPU's own, or 'compute_XX' PTX for an older one (``arch``, or
    ``ASYNC_BOOK_ARCH``), which the driver compiles for this GPU. ``ValueError`` when the variant
    cannot run on that generation."""
    v = V.get(variant)
    arch = _arch(arch)
    cc = compute_capability()
    targets = supported_archs()
    if cc < min(targets):
        raise RuntimeError(f"this GPU (sm_{cc}) is older than every target of NVRTC "
                           f"{'.'.join(map(str, nvrtc_version()))} (oldest: sm_{min(targets)}); "
                           "the kernels need a T4 (sm_75) or newer. The emulation runs anywhere: "
                           "backend='emulate'.")
    as_arch = simulated_arch()
    if arch is not None and as_arch is not None and arch > as_arch:
        raise ValueError(f"arch={arch} is newer than the generation the book runs as here "
                         f"({ARCH_ENV}={as_arch})")
    gen = arch or as_arch or cc
    if gen < v.min_arch:
        who = ("this GPU is" if gen == cc else f"running as ({ARCH_ENV})" if arch is None
               else "asked for")
        raise ValueError(f"{variant} needs sm_{v.min_arch} or newer ({v.description}); "
                         f"{who} sm_{gen}. Its emulation runs anywhere: backend='emulate'.")
    if gen == cc and cc in targets:
        return f"sm_{cc}"          # the GPU's own generation: machine code, no PTX to JIT
    if gen == cc:
        return f"compute_{max(a for a in targets if a <= cc)}"   # a newer GPU than NVRTC knows
    if gen not in targets or gen > cc:
        raise ValueError(f"arch={gen}: this GPU (sm_{cc}) with this NVRTC can run PTX for "
                         f"{[a for a in targets if OLDEST_ARCH <= a <= cc]}")
    return f"compute_{gen}"


def explain_load_error(exc: Exception, target: str, driver: int, nvrtc: tuple) -> Exception:
    """The error to raise when the driver refuses a compiled module. PTX newer than the driver
    (``CUDA_ERROR_UNSUPPORTED_PTX_VERSION``: NVRTC newer than the driver, seen on Colab) gets a
    message that says so and what to do; anything else is returned unchanged."""
    if "UNSUPPORTED_PTX_VERSION" not in str(exc):
        return exc
    return RuntimeError(
        f"the CUDA driver (CUDA {driver // 1000}.{driver % 1000 // 10}) cannot load PTX from "
        f"NVRTC {nvrtc[0]}.{nvrtc[1]}, which is newer ({target}). Machine code does not have "
        "this problem: leave arch unset so that the kernels are built for this GPU's own sm_XX, "
        "or install an NVRTC no newer than the driver (pip install "
        f"'nvidia-cuda-nvrtc-cu12=={driver // 1000}.{driver % 1000 // 10}.*'), or update the "
        "driver.")


@functools.lru_cache(maxsize=256)
def _kernel(src: str, name: str, build: Build, device: int):
    import cupy
    try:
        module = cupy.RawModule(path=str(compiled_file(src, name, build)))
        return module.get_function(name)
    except cupy.cuda.driver.CUDADriverError as exc:
        err = explain_load_error(exc, build.target, cupy.cuda.runtime.driverGetVersion(),
                                 nvrtc_version())
        if err is exc:
            raise
        raise err from exc


def blocks_per_sm(kern, cfg: LaunchConfig) -> int:
    """How many blocks of ``cfg`` one multiprocessor holds at once, by threads, registers (the
    compiled kernel's ``num_regs``) and shared memory (1 KiB of it reserved per block)."""
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return max(1, min(props["maxThreadsPerMultiProcessor"] // cfg.block_threads,
                      props["regsPerMultiprocessor"] // max(1, kern.num_regs * cfg.block_threads),
                      props["sharedMemPerMultiprocessor"] // (cfg.shared_bytes + 1024), 32))


def _grid(kern, cfg: LaunchConfig) -> int:
    """One block per tile; for persistent staged variants, as many blocks as fit on the GPU at
    once (:func:`blocks_per_sm` on every multiprocessor), each walking over tiles."""
    if not cfg.persistent:
        return cfg.tiles
    import cupy
    sms = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["multiProcessorCount"]
    return max(1, min(cfg.tiles, blocks_per_sm(kern, cfg) * sms))


@dataclass(frozen=True)
class Launch:
    """A compiled, configured kernel: calling it enqueues one launch on the current stream and
    does nothing else (what the benchmark times)."""

    config: LaunchConfig
    grid: int
    build: Build
    kernel: object
    args: tuple

    def __call__(self) -> None:
        self.kernel((self.grid,), (self.config.block_threads,), self.args)


def _options(arch, src, jitter) -> tuple[int | None, str | None, bool]:
    """The build options of a launch: ``arch``, learner source ``src``, the stress build."""
    if src is not None:
        text("src (CUDA source text)", src)
    return _arch(arch), src, flag("jitter", jitter)


def _gpu_arrays(x, w, y) -> None:
    """``x``, ``w``, ``y``: contiguous float32 CuPy vectors, ``y`` as long as ``x`` and sharing no
    memory with ``x`` or ``w``."""
    import cupy
    for name, a in (("x", x), ("w", w), ("y", y)):
        if not isinstance(a, cupy.ndarray):
            raise TypeError(f"{name} must be a CuPy array here, got {type(a).__name__}")
        vector(name, a)
        if not a.flags.c_contiguous:
            raise ValueError(f"{name} must be contiguous")
    same_length("y", y, x.size)
    disjoint("y", y, {"x": x, "w": w})


def _config(cfg) -> LaunchConfig:
    if not isinstance(cfg, LaunchConfig):
        raise TypeError(f"cfg must be a LaunchConfig (kernels.launch_config(...)), got "
                        f"{type(cfg).__name__}")
    return cfg


def _fits(cfg: LaunchConfig, x, w) -> None:
    """The arrays are the ones ``cfg`` was laid out for."""
    if x.size != cfg.n or w.size != cfg.k:
        raise ValueError(f"cfg was laid out for n={cfg.n}, k={cfg.k}; x has {x.size} elements "
                         f"and w {w.size}")


def prepare(variant: str, x, w, y, *, tile: int = DEFAULT_TILE, threads: int | None = None,
            stages: int | None = None, persistent: bool | None = None, arch: int | None = None,
            src: str | None = None, trace=None, jitter: bool = False) -> Launch:
    """Compile (cached) and return a :class:`Launch` of ``variant`` on ``x``, ``w`` into ``y``.

    ``x``, ``w``, ``y``: contiguous float32 CuPy arrays, ``len(y) == len(x)``, ``y`` sharing no
    memory with ``x`` or ``w``. ``src`` replaces the variant's listing (an exercise's learner
    code); its kernel must keep the variant's name. ``trace``, a CuPy uint64 array of at least
    ``tiles * TRACE_WORDS`` words, selects the build with trace points (notebook 02);
    ``jitter=True`` the stress build, whose warps wait varying times at phase boundaries.
    The launch is laid out here, once (:func:`launch_config`); :func:`prepare_config` takes one
    already made.
    """
    V.get(variant)
    options = _options(arch, src, jitter)
    _gpu_arrays(x, w, y)
    cfg = launch_config(x.size, w.size, tile, threads, variant, stages, persistent)
    return _launch(cfg, x, w, y, *options, trace)


def prepare_config(cfg: LaunchConfig, x, w, y, *, arch: int | None = None,
                   src: str | None = None, trace=None, jitter: bool = False) -> Launch:
    """:func:`prepare` for a launch already laid out (``cfg``, from :func:`launch_config`), on
    arrays of its sizes."""
    cfg = _config(cfg)
    options = _options(arch, src, jitter)
    _gpu_arrays(x, w, y)
    _fits(cfg, x, w)
    return _launch(cfg, x, w, y, *options, trace)


def _launch(cfg: LaunchConfig, x, w, y, arch, src, jitter, trace) -> Launch:
    """Compile (cached) ``cfg``'s kernel and bind it to checked arrays: what every GPU launch
    goes through."""
    import cupy
    v = V.get(cfg.variant)
    if v.aligned16 and (x.data.ptr % 16 or y.data.ptr % 16):
        raise ValueError(f"{v.name} moves 16-byte chunks: x and y must start on a 16-byte boundary")
    if trace is not None:
        if not v.traced:
            raise ValueError(f"only {', '.join(V.names(traced=True))} have trace points")
        words = TRACE_WORDS * cfg.tiles
        if not isinstance(trace, cupy.ndarray) or trace.dtype != np.uint64:
            raise TypeError(f"trace must be a CuPy uint64 array of at least {words} words, got "
                            f"{type(trace).__name__} {getattr(trace, 'dtype', '')}")
        if trace.size < words:
            raise ValueError(f"trace must hold at least {words} words ({TRACE_WORDS} per tile), "
                             f"got {trace.size}")
        disjoint("trace", trace, {"x": x, "w": w, "y": y})
    build = Build(cfg.tile, cfg.k, cfg.threads, gpu_target(v.name, arch), cfg.stages,
                  trace is not None, jitter)
    kern = _kernel(source(v.name) if src is None else src, kernel_name(v.name), build,
                   cupy.cuda.Device().id)
    args = (x, w, y, np.int32(cfg.n)) + (() if trace is None else (trace,))
    return Launch(cfg, _grid(kern, cfg), build, kern, args)


def conv1d(x, w, variant: str = "async_halo", *, tile: int = DEFAULT_TILE,
           threads: int | None = None, stages: int | None = None, persistent: bool | None = None,
           backend: str = "auto", arch: int | None = None):
    """``y[i] = sum_k x[i + k - K//2] * w[k]`` with ``x`` zero outside ``[0, n)``: a
    cross-correlation of ``x`` with the ``K`` taps ``w``.

    Runs ``variant`` on the GPU through CuPy, or, without a GPU (or with
    ``backend="emulate"``), the NumPy emulation of the same block algorithm.

    Parameters
    ----------
    x, w : 1-D float32 NumPy or CuPy arrays, not empty. Other dtypes (bool and complex too) are
        refused (``TypeError``), never cast silently; so are masked arrays and ``np.matrix``.
        Other ndarray subclasses (``np.memmap``) are read as plain arrays; non-contiguous arrays
        are copied. ``len(x)`` at most ``geometry.MAX_N`` (32-bit indices).
    variant : one of ``kernels.VARIANTS`` (``kernels.variants.REGISTRY`` describes each):
        ``"naive"``, ``"tiled_sync"``, ``"puzzle28"`` (the published, wrong algorithm),
        ``"async_halo"``, ``"vec4"`` (16-byte loads into registers), ``"staged_sync"`` (a
        synchronous control), ``"pipelined"`` (multi-stage 16-byte cp.async), ``"bulk"`` (sm_90
        bulk copy) or ``"warp_specialized"`` (sm_90: a producer warp and mbarriers; on an older
        GPU these two are a ``ValueError``); anything else is a ``ValueError``. The last five
        keep the taps in registers: ``len(w) <= 64``.
    tile : outputs per block (per tile for the staged variants): a multiple of 32 from 32 to
        65536 with ``len(w) <= tile`` and the variant's shared memory within 48 KiB
        (``ValueError``); for async_halo that is ``4 * (tile + 2 * len(w) - 1)`` bytes.
    threads : threads per block, a multiple of 32 from 32 to 1024; default ``min(tile, 256)``
        (vec4: ``tile // 4`` rounded down to a multiple of 32, from 32 to 256). For
        warp_specialized the compute threads, at most 992: its producer warp comes on top.
    stages : tile buffers per block for pipelined, bulk and warp_specialized, 1 to 8 (default
        4, or as many as fit in shared memory); ``ValueError`` for any other variant.
    persistent : the same three only (``ValueError`` otherwise): ``True`` (default) launches
        as many blocks as fit on the GPU, each walking over tiles with its ring of stages;
        ``False`` launches one block per tile (then a second stage has nothing to hold).
    backend : ``"auto"`` (the GPU if there is one), ``"gpu"`` (``RuntimeError`` without one)
        or ``"emulate"``.
    arch : run PTX compiled for this older compute capability (e.g. ``75`` for a T4's code
        path, at least 75) instead of this GPU's own machine code. GPU only.

    Returns
    -------
    ``y`` as float32, a CuPy array for CuPy input and a NumPy array otherwise. On the GPU ``y``
    is filled with NaN before the launch, so an output the kernel never writes stays NaN.

    All checks happen before anything is compiled or launched; the launch is laid out once
    (:func:`launch_config`) and handed to what runs it (:func:`run`).
    """
    V.get(variant)
    choice("backend", backend, BACKENDS)
    xp = vector("x", x)
    vector("w", w)
    cfg = launch_config(x.size, w.size, tile, threads, variant, stages, persistent)
    return _run(cfg, xp, x, w, backend, _arch(arch))


def run(cfg: LaunchConfig, x, w, *, backend: str = "auto", arch: int | None = None):
    """:func:`conv1d` for a launch already laid out (``cfg``, from :func:`launch_config`), on
    ``x`` and ``w`` of its sizes: the GPU, or the emulation, runs ``cfg`` as it is."""
    cfg = _config(cfg)
    choice("backend", backend, BACKENDS)
    xp = vector("x", x)
    vector("w", w)
    _fits(cfg, x, w)
    return _run(cfg, xp, x, w, backend, _arch(arch))


def _run(cfg: LaunchConfig, xp, x, w, backend: str, arch: int | None):
    on_gpu = backend == "gpu" or (backend == "auto" and gpu_available())
    if backend == "gpu" and not gpu_available():
        raise RuntimeError(f"backend='gpu' but no GPU is usable here: {_probe()[1]}")
    if not on_gpu:
        if arch is not None:
            raise ValueError("arch selects GPU code; the emulation has none")
        return xp.asarray(emulation.run(cfg, _to_numpy(x), _to_numpy(w)))
    import cupy
    xd = cupy.ascontiguousarray(cupy.asarray(x))
    if xd.data.ptr % 16:
        xd = xd.copy()   # a fresh allocation is 256-byte aligned
    wd = cupy.ascontiguousarray(cupy.asarray(w))
    y = cupy.full(cfg.n, cupy.nan, dtype=cupy.float32)
    _launch(cfg, xd, wd, y, arch, None, False, None)()
    return y if xp is not np else cupy.asnumpy(y)


def emulate(variant: str, x: np.ndarray, w: np.ndarray, tile: int = DEFAULT_TILE) -> np.ndarray:
    """Emulate ``variant`` on float32 NumPy ``x`` and ``w``: the outputs its kernel would write,
    as float32 (``kernels.emulate``). The inputs and sizes are checked as :func:`conv1d` checks
    them, then :mod:`kernels.emulation` runs the layout made here."""
    V.get(variant)
    for name, a in (("x", x), ("w", w)):
        if vector(name, a) is not np:
            raise TypeError(f"{name} must be a NumPy array for the emulation (use .get())")
    cfg = launch_config(x.size, w.size, tile, None, variant)
    return emulation.run(cfg, x, w)


def _to_numpy(a) -> np.ndarray:
    return np.ascontiguousarray(a if isinstance(a, np.ndarray) else a.get())


__all__ = ["BACKENDS", "Launch", "LaunchConfig", "launch_config", "max_tile", "conv1d", "emulate",
           "prepare", "prepare_config", "run", "gpu_target", "shared_bytes"]
