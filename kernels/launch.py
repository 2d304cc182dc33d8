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
from .compile import VARIANTS, check_variant, compiled_file, kernel_name, source
from .device import _probe, compute_capability, gpu_available

STATIC_SHARED_LIMIT = 48 * 1024   # bytes of static __shared__ per block, on every GPU since sm_20
MAX_THREADS = 1024
BACKENDS = ("auto", "gpu", "emulate")
DEFAULT_TILE = 256


@dataclass(frozen=True)
class LaunchConfig:
    """How one convolution is laid out on the GPU."""

    n: int              # outputs
    k: int              # taps
    tile: int           # outputs per block
    threads: int        # threads per block
    blocks: int         # ceil(n / tile)
    shared_bytes: int   # static shared memory per block (largest variant: tile + halos + weights)

    @property
    def halo(self) -> int:
        return self.k // 2


def _int(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    return int(value)


def shared_bytes(tile: int, k: int) -> int:
    """Static shared memory of the largest variant: the tile with both halos, and the weights."""
    return 4 * ((tile + k - 1) + k)


def max_tile(k: int = 1) -> int:
    """Largest valid tile (a multiple of 32) for a kernel of ``k`` taps."""
    return (STATIC_SHARED_LIMIT // 4 - (2 * k - 1)) // 32 * 32


def launch_config(n: int, k: int, tile: int = DEFAULT_TILE, threads: int | None = None) -> LaunchConfig:
    """Check sizes and return the launch geometry; raises ``ValueError``/``TypeError``.

    Rules: ``n >= 1`` and small enough for 32-bit indices; ``1 <= k <= tile``; ``tile`` a
    multiple of 32 whose shared memory, ``4 * (tile + 2k - 1)`` bytes, fits the 48 KiB static
    limit; ``threads`` a multiple of 32 from 32 to 1024 (default ``min(tile, 256)``).
    """
    n, k, tile = _int("n", n), _int("kernel size", k), _int("tile", tile)
    threads = min(tile, 256) if threads is None else _int("threads", threads)
    if n < 1:
        raise ValueError(f"the input must hold at least one element, got n={n}")
    if tile < 32 or tile % 32:
        raise ValueError(f"tile must be a positive multiple of 32 (a whole number of warps), got {tile}")
    if k < 1:
        raise ValueError("the kernel w must hold at least one tap")
    if k > tile:
        raise ValueError(f"kernel size {k} is longer than the tile {tile}: a tile's halo "
                         "would reach past its neighbour tile")
    if shared_bytes(tile, k) > STATIC_SHARED_LIMIT:
        raise ValueError(f"tile {tile} with kernel size {k} needs {shared_bytes(tile, k)} bytes of "
                         f"shared memory, over the {STATIC_SHARED_LIMIT}-byte limit; the largest "
                         f"tile for this kernel is {max_tile(k)}")
    if threads < 32 or threads > MAX_THREADS or threads % 32:
        raise ValueError(f"threads must be a multiple of 32 from 32 to {MAX_THREADS}, got {threads}")
    if n > 2**31 - 1 - 2 * tile:
        raise ValueError(f"n={n} is too large for the kernels' 32-bit indices")
    return LaunchConfig(n=n, k=k, tile=tile, threads=threads, blocks=-(-n // tile),
                        shared_bytes=shared_bytes(tile, k))


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


def _gpu_target(arch: int | None) -> str:
    """'sm_XX' for this GPU's own machine code, or 'compute_XX' PTX for an older generation."""
    from .compile import supported_archs
    cc = compute_capability()
    if arch is None:
        if cc in supported_archs():
            return f"sm_{cc}"
        return f"compute_{max(a for a in supported_archs() if a <= cc)}"   # newer GPU than NVRTC
    arch = _int("arch", arch)
    if arch not in supported_archs() or arch > cc:
        raise ValueError(f"arch={arch}: this GPU (sm_{cc}) with this NVRTC can run PTX for "
                         f"{[a for a in supported_archs() if a <= cc]}")
    return f"compute_{arch}"


@functools.lru_cache(maxsize=256)
def _kernel(src: str, name: str, tile: int, k: int, threads: int, target: str, device: int):
    import cupy
    module = cupy.RawModule(path=str(compiled_file(src, name, tile, k, threads, target)))
    return module.get_function(name)


def prepare(variant: str, x, w, y, *, tile: int = DEFAULT_TILE, threads: int | None = None,
            arch: int | None = None, src: str | None = None):
    """Compile (cached) and return ``launch()``, which enqueues one kernel on the current stream.

    ``x``, ``w``, ``y`` must be contiguous float32 CuPy arrays, ``len(y) == len(x)``. For
    timing: the returned function does nothing but launch. ``src`` replaces the variant's
    listing (the exercise's learner code); its kernel must keep the variant's name.
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
    cfg = launch_config(x.size, w.size, tile, threads)
    kern = _kernel(source(variant) if src is None else src, kernel_name(variant),
                   cfg.tile, cfg.k, cfg.threads, _gpu_target(arch), cupy.cuda.Device().id)
    args = (x, w, y, np.int32(cfg.n))

    def launch():
        kern((cfg.blocks,), (cfg.threads,), args)
    launch.config = cfg
    return launch


def conv1d(x, w, variant: str = "async_halo", *, tile: int = DEFAULT_TILE,
           threads: int | None = None, backend: str = "auto", arch: int | None = None):
    """``y[i] = sum_k x[i + k - K//2] * w[k]`` with ``x`` zero outside ``[0, n)``.

    Runs ``variant`` (one of ``kernels.VARIANTS``) on the GPU through CuPy, or, without a GPU
    (or with ``backend="emulate"``), the NumPy emulation of the same block algorithm.

    Parameters
    ----------
    x, w : 1-D float32 NumPy or CuPy arrays, not empty. Other dtypes are refused
        (``TypeError``), never cast silently. Non-contiguous arrays are copied.
    variant : ``"naive"``, ``"tiled_sync"``, ``"puzzle28"`` (the published, wrong algorithm) or
        ``"async_halo"``; anything else is a ``ValueError``.
    tile : outputs per block: a multiple of 32 with ``len(w) <= tile`` and
        ``4 * (tile + 2 * len(w) - 1)`` bytes of shared memory within 48 KiB (``ValueError``).
    threads : threads per block, a multiple of 32 from 32 to 1024; default ``min(tile, 256)``.
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
    cfg = launch_config(x.size, w.size, tile, threads)
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
    wd = cupy.ascontiguousarray(cupy.asarray(w))
    y = cupy.full(cfg.n, cupy.nan, dtype=cupy.float32)
    prepare(variant, xd, wd, y, tile=cfg.tile, threads=cfg.threads, arch=arch)()
    return y if xp is not np else cupy.asnumpy(y)


def _to_numpy(a) -> np.ndarray:
    return np.ascontiguousarray(a if isinstance(a, np.ndarray) else a.get())


__all__ = ["VARIANTS", "LaunchConfig", "launch_config", "max_tile", "conv1d", "prepare"]
