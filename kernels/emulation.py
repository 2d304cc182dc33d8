"""The kernels' block algorithms in NumPy: what runs when there is no GPU.

One function per ``.cu`` listing, phase for phase. Every block of the grid is a row: where a
kernel keeps ``x_s[j]`` in a block's shared memory, the emulation keeps ``x_s[b, j]`` for every
block ``b`` at once. Arithmetic follows the GPU's: float32 values, and ``acc += a * b`` as one
fused multiply-add (what NVRTC emits), so emulated and GPU outputs agree to the last bit or
close to it; the outputs ``puzzle28`` copies from the input agree exactly.

Timing, asynchrony and the order of threads are not emulated: only values. Each function
emulates the blocks ``blocks`` (a range of block indices; default all of them), and :func:`run`
walks the grid in chunks of blocks, so memory stays bounded whatever ``n``. It takes a
:class:`~kernels.geometry.LaunchConfig`: the sizes are checked where the launch is made, not here.
"""

from __future__ import annotations

import numpy as np

from . import layout
from .geometry import LaunchConfig

CHUNK_OUTPUTS = 2**18   # outputs emulated at once (a few tens of MB of temporaries at most)


def _fma(a, b, acc):
    """float32 ``a * b + acc`` rounded once, like the GPU's FFMA (the float32 product is exact
    in float64; a rare double rounding can still leave the last bit different)."""
    return (a.astype(np.float64) * np.float64(b) + acc).astype(np.float32)


def _blocks(n: int, tile: int, blocks: range | None) -> range:
    return range(-(-n // tile)) if blocks is None else blocks


def _tile_starts(n: int, tile: int, blocks: range | None = None) -> np.ndarray:
    """``blockIdx.x * CONV_TILE`` for every block emulated, as a column."""
    b = _blocks(n, tile, blocks)
    return (np.arange(b.start, b.stop) * tile)[:, None]


def _load(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``x[g]`` where ``0 <= g < n``, else 0.0: the guarded loads into shared memory."""
    inside = (g >= 0) & (g < x.size)
    return np.where(inside, x[np.clip(g, 0, x.size - 1)], np.float32(0))


def _store(acc: np.ndarray, n: int, tile: int, blocks: range | None) -> np.ndarray:
    """Write the emulated blocks' outputs; threads past ``n`` write nothing."""
    first = _blocks(n, tile, blocks).start * tile
    return acc.reshape(-1)[:n - first].copy()


def _load_tile_with_halo(x, k, tile, blocks=None):
    """Phase 1 of tiled_sync and async_halo: the tile, both halos, zeros outside [0, n)."""
    buf_start = _tile_starts(x.size, tile, blocks) - layout.halo(k)
    return _load(x, buf_start + np.arange(layout.buf(tile, k)))


def _convolve_shared(x_s, w, tile):
    """Phase 4 of tiled_sync and async_halo: ``acc += x_s[t + k] * w_s[k]`` for every output t."""
    acc = np.zeros((x_s.shape[0], tile), np.float32)
    for k, wk in enumerate(w):
        acc = _fma(x_s[:, k:k + tile], wk, acc)
    return acc


def naive(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """naive.cu: every tap a guarded global load (0.0 outside the vector, multiplied by the tap
    like every other variant's zero halo: an infinite tap gives NaN there, as the reference)."""
    i = _tile_starts(x.size, tile, blocks) + np.arange(tile)
    acc = np.zeros(i.shape, np.float32)
    for k, wk in enumerate(w):
        acc = _fma(_load(x, i + k - w.size // 2), wk, acc)
    return _store(acc, x.size, tile, blocks)


def tiled_sync(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """tiled_sync.cu: tile and halos staged with plain loads, barrier, compute."""
    x_s = _load_tile_with_halo(x, w.size, tile, blocks)   # Phase 1: tile + halos
    w_s = w.copy()                                        # Phase 2: the taps
    # Phase 3 (barrier): nothing to emulate, the rows are complete.
    return _store(_convolve_shared(x_s, w_s, tile), x.size, tile, blocks)   # Phase 4


def tiled_loads_first(x: np.ndarray, w: np.ndarray, tile: int,
                      blocks: range | None = None) -> np.ndarray:
    """tiled_loads_first.cu: tiled_sync's values; on the GPU only the order of its loads differs."""
    return tiled_sync(x, w, tile, blocks)


def puzzle28(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """puzzle28.cu: the tile only, no halo; the tile's first and last K//2 outputs copy x."""
    k, halo = w.size, layout.halo(w.size)
    x_s = _load(x, _tile_starts(x.size, tile, blocks) + np.arange(tile))   # Phase 1: async copy, tile only
    w_s = w.copy()                                                         # Phase 2: meanwhile, the taps
    # Phase 3 (wait, barrier): nothing to emulate.
    t = np.arange(tile)                                            # Phase 4
    interior = (t >= halo) & (t < tile - halo)
    acc = np.zeros(x_s.shape, np.float32)
    for kk in range(k):
        j = t + kk - halo
        use = interior & (j >= 0) & (j < tile)
        acc = np.where(use, _fma(x_s[:, np.clip(j, 0, tile - 1)], w_s[kk], acc), acc)
    return _store(np.where(interior, acc, x_s), x.size, tile, blocks)


def async_halo(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """async_halo.cu: the same values as tiled_sync; on the GPU only the copy's timing differs."""
    x_s = _load_tile_with_halo(x, w.size, tile, blocks)   # Phase 1: async copy of tile + halos
    w_s = w.copy()                                        # Phase 2: meanwhile, the taps
    # Phase 3 (wait, barrier): nothing to emulate.
    return _store(_convolve_shared(x_s, w_s, tile), x.size, tile, blocks)   # Phase 4


def _convolve4(v, w):
    """convolve4 (conv1d_common.cuh): 4 outputs per window, ``acc += v[CONV_LEFT4 - CONV_HALO
    + o + k] * w_r[k]``, the taps in order. ``v`` holds one window per row; returns (rows, 4)."""
    k = w.size
    first = layout.left4(k) - layout.halo(k)
    acc = np.zeros(v.shape[:-1] + (4,), np.float32)
    for kk, wk in enumerate(w):
        acc = _fma(v[..., first + kk:first + kk + 4], wk, acc)
    return acc


def vec4(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """vec4.cu: each thread's window x[i0 - CONV_LEFT4, i0 + 4 + CONV_RIGHT4) in registers
    (zeros outside), four outputs from it. Every thread of every block is a row here."""
    k = w.size
    w_r = w.copy()                                                         # load_taps
    i0 = (_tile_starts(x.size, tile, blocks) + np.arange(0, tile, 4)).reshape(-1, 1)   # a row per thread
    v = _load(x, i0 - layout.left4(k) + np.arange(layout.window4(k)))     # Load
    return _store(_convolve4(v, w_r), x.size, tile, blocks)               # Compute, store4


def _load_span(x, k, tile, blocks=None):
    """Phase 1 of staged_sync, pipelined, bulk and warp_specialized: the tile with each halo
    rounded up to a whole 128-byte line (CONV_SPAN floats from tile_start - CONV_LEFTL), zeros
    outside [0, n)."""
    starts = _tile_starts(x.size, tile, blocks) - layout.left_line(k)
    return _load(x, starts + np.arange(layout.span(tile, k)))


def _convolve_span(x_s, w, tile):
    """Phase 4 of staged_sync, pipelined, bulk and warp_specialized: thread c reads the window
    x_s[CONV_SKIP + 4c, + CONV_WINDOW4) (load_window4) and makes outputs 4c .. 4c + 3
    (convolve4)."""
    k = w.size
    v = np.lib.stride_tricks.sliding_window_view(x_s[:, layout.skip(k):], layout.window4(k),
                                                 axis=1)[:, :tile:4]
    return _convolve4(v, w)


def staged_sync(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """staged_sync.cu: pipelined's buffer and compute, filled by plain 16-byte loads."""
    x_s = _load_span(x, w.size, tile, blocks)     # Phase 1: float4 loads of the span into x_s
    w_r = w.copy()                                # Phase 2: the taps, into registers
    # Phase 3 (barrier): nothing to emulate, the rows are complete.
    return _store(_convolve_span(x_s, w_r, tile), x.size, tile, blocks)   # Phase 4


def pipelined(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """pipelined.cu: which block computes which tile, and when, changes nothing in the values."""
    x_s = _load_span(x, w.size, tile, blocks)     # Phase 1: 16-byte cp.async of the span
    w_r = w.copy()                                # Phase 2: the taps, into registers
    return _store(_convolve_span(x_s, w_r, tile), x.size, tile, blocks)   # Phases 3-4


def bulk(x: np.ndarray, w: np.ndarray, tile: int, blocks: range | None = None) -> np.ndarray:
    """bulk.cu: the same buffers as pipelined, filled by the bulk copy engine."""
    x_s = _load_span(x, w.size, tile, blocks)     # Phase 1: cp.async.bulk + plain loads at the ends
    w_r = w.copy()                                # Phase 2: the taps, into registers
    return _store(_convolve_span(x_s, w_r, tile), x.size, tile, blocks)   # Phases 3-4


def warp_specialized(x: np.ndarray, w: np.ndarray, tile: int,
                     blocks: range | None = None) -> np.ndarray:
    """warp_specialized.cu: bulk's buffers, filled by a producer warp; who waits for whom
    changes nothing in the values."""
    x_s = _load_span(x, w.size, tile, blocks)     # Phase 1 (producer): cp.async.bulk + edges
    w_r = w.copy()                                # Phase 2 (compute warps): the taps
    return _store(_convolve_span(x_s, w_r, tile), x.size, tile, blocks)   # Phases 3-4


# one per listing, by variant name
EMULATORS = {f.__name__: f for f in (naive, tiled_sync, tiled_loads_first, puzzle28, async_halo,
                                      vec4, staged_sync, pipelined, bulk, warp_specialized)}


def run(cfg: LaunchConfig, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The outputs ``cfg.variant``'s kernel would write for float32 NumPy ``x`` and ``w``, laid
    out as ``cfg`` (made and checked once by the caller, :func:`kernels.conv1d` or
    :func:`kernels.emulate`), as float32; the grid is walked in chunks of blocks."""
    emulate = EMULATORS[cfg.variant]
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    per_chunk = max(1, CHUNK_OUTPUTS // cfg.tile)
    y = np.empty(cfg.n, np.float32)
    for first in range(0, cfg.tiles, per_chunk):
        blocks = range(first, min(first + per_chunk, cfg.tiles))
        y[first * cfg.tile:blocks.stop * cfg.tile] = emulate(x, w, cfg.tile, blocks)
    return y
