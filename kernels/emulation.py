"""The kernels' block algorithms in NumPy: what runs when there is no GPU.

One function per ``.cu`` listing, phase for phase. Every block of the grid is a row: where a
kernel keeps ``x_s[j]`` in a block's shared memory, the emulation keeps ``x_s[b, j]`` for every
block ``b`` at once. Arithmetic follows the GPU's: float32 values, and ``acc += a * b`` as one
fused multiply-add (what NVRTC emits), so emulated and GPU outputs agree to the last bit or
close to it; the outputs ``puzzle28`` copies from the input agree exactly.

Timing, asynchrony and the order of threads are not emulated: only values.
"""

from __future__ import annotations

import numpy as np


def _fma(a, b, acc):
    """float32 ``a * b + acc`` rounded once, like the GPU's FFMA (the float32 product is exact
    in float64; a rare double rounding can still leave the last bit different)."""
    return (a.astype(np.float64) * np.float64(b) + acc).astype(np.float32)


def _tile_starts(n: int, tile: int) -> np.ndarray:
    """``blockIdx.x * CONV_TILE`` for every block, as a column."""
    return (np.arange(-(-n // tile)) * tile)[:, None]


def _load(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``x[g]`` where ``0 <= g < n``, else 0.0: the guarded loads into shared memory."""
    inside = (g >= 0) & (g < x.size)
    return np.where(inside, x[np.clip(g, 0, x.size - 1)], np.float32(0))


def _store(acc: np.ndarray, n: int) -> np.ndarray:
    """Write every block's outputs; threads past ``n`` write nothing."""
    return acc.reshape(-1)[:n].copy()


def _load_tile_with_halo(x, k, tile):
    """Phase 1 of tiled_sync and async_halo: the tile, both halos, zeros outside [0, n)."""
    buf_start = _tile_starts(x.size, tile) - k // 2
    return _load(x, buf_start + np.arange(tile + k - 1))


def _convolve_shared(x_s, w, tile):
    """Phase 4 of tiled_sync and async_halo: ``acc += x_s[t + k] * w_s[k]`` for every output t."""
    acc = np.zeros((x_s.shape[0], tile), np.float32)
    for k, wk in enumerate(w):
        acc = _fma(x_s[:, k:k + tile], wk, acc)
    return acc


def naive(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """naive.cu: every tap a guarded global load."""
    i = _tile_starts(x.size, tile) + np.arange(tile)
    acc = np.zeros(i.shape, np.float32)
    for k, wk in enumerate(w):
        j = i + k - w.size // 2
        inside = (j >= 0) & (j < x.size)
        acc = np.where(inside, _fma(_load(x, j), wk, acc), acc)
    return _store(acc, x.size)


def tiled_sync(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """tiled_sync.cu: tile and halos staged with plain loads, barrier, compute."""
    x_s = _load_tile_with_halo(x, w.size, tile)    # Phase 1: tile + halos
    w_s = w.copy()                                 # Phase 2: the kernel
    # Phase 3 (barrier): nothing to emulate, the rows are complete.
    return _store(_convolve_shared(x_s, w_s, tile), x.size)   # Phase 4


def puzzle28(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """puzzle28.cu: the tile only, no halo; the tile's first and last K//2 outputs copy x."""
    k, halo = w.size, w.size // 2
    x_s = _load(x, _tile_starts(x.size, tile) + np.arange(tile))   # Phase 1: async copy, tile only
    w_s = w.copy()                                                 # Phase 2: meanwhile, the kernel
    # Phase 3 (wait, barrier): nothing to emulate.
    t = np.arange(tile)                                            # Phase 4
    interior = (t >= halo) & (t < tile - halo)
    acc = np.zeros(x_s.shape, np.float32)
    for kk in range(k):
        j = t + kk - halo
        use = interior & (j >= 0) & (j < tile)
        acc = np.where(use, _fma(x_s[:, np.clip(j, 0, tile - 1)], w_s[kk], acc), acc)
    return _store(np.where(interior, acc, x_s), x.size)


def async_halo(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """async_halo.cu: the same values as tiled_sync; on the GPU only the copy's timing differs."""
    x_s = _load_tile_with_halo(x, w.size, tile)    # Phase 1: async copy of tile + halos
    w_s = w.copy()                                 # Phase 2: meanwhile, the kernel
    # Phase 3 (wait, barrier): nothing to emulate.
    return _store(_convolve_shared(x_s, w_s, tile), x.size)   # Phase 4


def _round4(v: int) -> int:
    return (v + 3) // 4 * 4


def _windows4(k):
    """CONV_LEFT4 and CONV_WINDOW4: where a thread's window starts before its first output, and
    its length (whole 16-byte chunks)."""
    halo = k // 2
    left4 = _round4(halo)
    return left4, left4 + 4 + _round4(k - 1 - halo)


def _convolve4(v, w):
    """convolve4 (conv1d_common.cuh): 4 outputs per window, ``acc += v[CONV_LEFT4 - CONV_HALO
    + o + k] * w_r[k]``, the taps in order. ``v`` holds one window per row; returns (rows, 4)."""
    k = w.size
    first = _windows4(k)[0] - k // 2
    acc = np.zeros(v.shape[:-1] + (4,), np.float32)
    for kk, wk in enumerate(w):
        acc = _fma(v[..., first + kk:first + kk + 4], wk, acc)
    return acc


def vec4(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """vec4.cu: each thread's window x[i0 - CONV_LEFT4, i0 + 4 + CONV_RIGHT4) in registers
    (zeros outside), four outputs from it. Every thread of every block is a row here."""
    left4, window = _windows4(w.size)
    w_r = w.copy()                                                              # load_taps
    i0 = (_tile_starts(x.size, tile) + np.arange(0, tile, 4)).reshape(-1, 1)   # a row per thread
    v = _load(x, i0 - left4 + np.arange(window))                                # Load
    return _store(_convolve4(v, w_r), x.size)                                   # Compute, store4


def _load_span(x, k, tile):
    """Phase 1 of pipelined and bulk: the tile with each halo rounded up to whole 16-byte chunks
    (CONV_SPAN floats from tile_start - CONV_LEFT4), zeros outside [0, n)."""
    left4, window = _windows4(k)
    span = tile + window - 4
    return _load(x, _tile_starts(x.size, tile) - left4 + np.arange(span))


def _convolve_span(x_s, w, tile):
    """Phase 4 of pipelined and bulk: thread c reads the window x_s[4c, 4c + CONV_WINDOW4)
    (load_window4) and makes outputs 4c .. 4c + 3 (convolve4)."""
    window = _windows4(w.size)[1]
    v = np.lib.stride_tricks.sliding_window_view(x_s, window, axis=1)[:, :tile:4]
    return _convolve4(v, w)


def pipelined(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """pipelined.cu: which block computes which tile, and when, changes nothing in the values."""
    x_s = _load_span(x, w.size, tile)             # Phase 1: 16-byte cp.async of the span
    w_r = w.copy()                                # Phase 2: the taps, into registers
    return _store(_convolve_span(x_s, w_r, tile), x.size)   # Phases 3-4


def bulk(x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """bulk.cu: the same buffers as pipelined, filled by the bulk copy engine."""
    x_s = _load_span(x, w.size, tile)             # Phase 1: cp.async.bulk + plain loads at the ends
    w_r = w.copy()                                # Phase 2: the taps, into registers
    return _store(_convolve_span(x_s, w_r, tile), x.size)   # Phases 3-4


VARIANT_FUNCTIONS = {"naive": naive, "tiled_sync": tiled_sync, "puzzle28": puzzle28,
                     "async_halo": async_halo, "vec4": vec4, "pipelined": pipelined, "bulk": bulk}


def run(variant: str, x: np.ndarray, w: np.ndarray, tile: int) -> np.ndarray:
    """Emulate ``variant``; inputs are assumed already validated (``kernels.conv1d`` does that)."""
    return VARIANT_FUNCTIONS[variant](x, w, tile)
