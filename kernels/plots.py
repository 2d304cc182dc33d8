"""Figures for the book. Each function draws data it is given (or computes with the public API)
and returns a matplotlib Figure, made without pyplot so that a notebook shows it exactly once, as
the value of its cell; nothing here measures or decides correctness."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from .halo import halo_cells
from .launch import launch_config
from .reference import error_bound, reference

TILE_COLOURS = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff", "#f6bd60"]


def _tile_colour(t: int) -> str:
    return TILE_COLOURS[t % len(TILE_COLOURS)]


def draw_tiles(n: int = 100, tile: int = 32, k: int = 5):
    """The vector cut into tiles (top row) and, under it, each block's shared-memory buffer:
    its own tile and its halo cells, each drawn under the input it copies, in the colour of the
    tile it comes from; cells outside the vector (at both ends, and the rest of a last partial
    tile) are zeros."""
    cfg = launch_config(n, k, tile)
    left, right = k // 2, k - 1 - k // 2
    rows, end = cfg.tiles, cfg.tiles * tile   # the last tile may run past n
    fig = Figure(figsize=(12, 1.2 + 0.55 * rows))
    ax = fig.subplots()
    top = rows + 0.6

    def cell(i, y, fc, **style):
        ax.add_patch(Rectangle((i, y), 1, 0.8, fc=fc, **style))

    zero = dict(ec="black", lw=0.6, hatch="xx")
    for i in range(-left, end + right):
        if 0 <= i < n:
            cell(i, top, _tile_colour(i // tile), ec="white", lw=0.3)
        else:
            cell(i, top, "white", ec="grey", ls=":", lw=0.6)   # the implicit zeros
    ax.text(-left - 1, top + 0.4, "x", ha="right", va="center", fontsize=10, weight="bold")
    for b in range(rows):
        y, start = rows - 1 - b, b * tile
        for i in range(start, start + tile):
            if i < n:
                cell(i, y, _tile_colour(b), ec="white", lw=0.3)
            else:
                cell(i, y, "white", **zero)   # past the end of the vector: zero-filled
        ax.text(start - left - 1, y + 0.4, f"block {b}", ha="right", va="center", fontsize=9)
    for h in halo_cells(n, tile, k):
        y = rows - 1 - h.block
        if h.source == "zero":
            cell(h.index, y, "white", **zero)
        else:
            cell(h.index, y, _tile_colour(h.index // tile), ec="black", lw=0.6, hatch="//")
    ax.set_xlim(-left - 12, end + right + 1)
    ax.set_ylim(-0.3, top + 1.1)
    ax.set_yticks([])
    ax.set_xlabel("global index i")
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.legend(handles=[Patch(fc="#dddddd", ec="black", hatch="//", label="halo copied from a neighbour tile"),
                       Patch(fc="white", ec="black", hatch="xx", label="outside the vector: zero")],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False, fontsize=9)
    ax.set_title(f"n = {n}, tile = {tile}, K = {k}: halo {left} left + {right} right, "
                 f"buffer {tile + k - 1} floats per block", fontsize=10, pad=22)
    fig.tight_layout()
    return fig


def plot_error_map(outputs: dict, x, w, tile: int):
    """|y - reference| for each named output over the whole vector (log scale, tile boundaries
    marked), and, for each output, where inside a tile its wrong outputs fall."""
    ref, bound = reference(x, w), error_bound(x, w)
    n = ref.size
    floor = np.finfo(np.float32).tiny
    fig = Figure(figsize=(12, 6.5))
    ax, hist = fig.subplots(2, 1, gridspec_kw={"height_ratios": [3, 2]})
    for (name, y), marker in zip(outputs.items(), "o.sx"):
        y = np.asarray(y if isinstance(y, np.ndarray) else y.get(), np.float64)
        err = np.abs(y - ref)
        wrong = ~(err <= bound)
        ax.plot(np.arange(n), np.maximum(err, floor), marker, ms=2.5, ls="none",
                label=f"{name}: {wrong.sum()} wrong of {n}")
        counts = np.bincount(np.flatnonzero(wrong) % tile, minlength=tile)
        hist.bar(np.arange(tile), counts, width=1.0, alpha=0.7, label=name)
    ax.plot(np.arange(n), bound, color="black", lw=0.5, alpha=0.6, label="float32 rounding bound")
    for b in range(0, n, tile):
        ax.axvline(b, color="grey", lw=0.3, alpha=0.5)
    ax.set_yscale("log")
    ax.set_xlim(0, n)
    ax.set_xlabel("output index i (grey lines: tile boundaries)")
    ax.set_ylabel("|y[i] - reference[i]|")
    ax.legend(loc="center right", fontsize=9)
    hist.set_xlim(-1, tile)
    hist.set_xlabel("position inside the tile, i mod tile")
    hist.set_ylabel("wrong outputs")
    hist.legend(fontsize=9)
    fig.tight_layout()
    return fig
