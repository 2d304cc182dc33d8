"""Figures for the book. Each function draws data it is given (or computes with the public API)
and returns a matplotlib Figure, made without pyplot so that a notebook shows it exactly once, as
the value of its cell; nothing here measures or decides correctness."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from .. import layout, variants as V
from .halo import halo_cells
from ..geometry import launch_config, valid_tile
from ..reference import error_bound, reference
from ..validate import integer, labelled, record, same_length, sequence, text, vector

TILE_COLOURS = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff", "#f6bd60"]


def _tile_colour(t: int) -> str:
    return TILE_COLOURS[t % len(TILE_COLOURS)]


def draw_tiles(n: int = 100, tile: int = 32, k: int = 5):
    """The vector cut into tiles (top row) and, under it, each block's shared-memory buffer:
    its own tile and its halo cells, each drawn under the input it copies, in the colour of the
    tile it comes from; cells outside the vector (at both ends, and the rest of a last partial
    tile) are zeros."""
    cfg = launch_config(n, k, tile)
    if cfg.tiles * cfg.tile > 4096:
        raise ValueError(f"draw_tiles draws every cell: at most 4096 (tiles x tile), got "
                         f"{cfg.tiles} tiles of {cfg.tile}; use a smaller n or tile")
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
    labelled("outputs", outputs, most=4)   # one marker each
    tile = valid_tile(tile)
    ref, bound = reference(x, w), error_bound(x, w)
    n = ref.size
    for name, y in outputs.items():
        vector(f"outputs[{name!r}]", y)
        same_length(f"outputs[{name!r}]", y, n)
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


PHASE_COLOURS = {"tile load": "#8ecae6", "taps load": "#ffb703", "wait": "#d9d9d9",
                 "barrier": "#b8b8ff", "compute": "#90be6d"}
# In the model, a lane holds the tile load above, and the taps' "taps load" then the wait below.
_SUBLANE = {"tile load": (0.05, 0.38), "taps load": (0.47, 0.38), "wait": (0.47, 0.38)}


def plot_schedules(*schedules):
    """Gantt charts (one panel per schedule, one lane per block or SM slot) on a shared time
    axis. In the model, the tile's and the taps' loads share a lane: tile above, taps below."""
    fig = Figure(figsize=(12, 1.0 + sum(0.35 * (1 + max(b.lane for b in s.bars)) + 0.9
                                        for s in schedules)))
    lanes = [1 + max(b.lane for b in s.bars) for s in schedules]
    axes = fig.subplots(len(schedules), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [n + 1.5 for n in lanes]})[:, 0]
    for ax, sched, n in zip(axes, schedules, lanes):
        for bar in sched.bars:
            low, height = (_SUBLANE.get(bar.phase, (0.05, 0.8)) if sched.lane_label == "block"
                           else (0.05, 0.8))
            ax.broken_barh([(bar.start, bar.duration)], (bar.lane + low, height),
                           facecolors=PHASE_COLOURS[bar.phase], edgecolor="white", lw=0.3)
        labels = sched.meta.get("labels", {})
        ax.set_yticks([i + 0.45 for i in range(n)],
                      [labels.get(i, f"{sched.lane_label} {i}") for i in range(n)], fontsize=8)
        ax.set_ylim(-0.2, n + 0.1)
        ax.invert_yaxis()
        ax.set_title(f"{sched.title}: {sched.total:.4g} {sched.unit}", fontsize=10, loc="left")
    axes[-1].set_xlabel(f"time ({schedules[0].unit})")
    axes[-1].set_xlim(left=0)
    axes[0].legend(handles=[Patch(fc=c, label=p) for p, c in PHASE_COLOURS.items()],
                   loc="lower right", bbox_to_anchor=(1.0, 1.02), ncol=5, frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def _n_label(n: int) -> str:
    return f"$2^{{{int(np.log2(n))}}}$"


def plot_bandwidth(result: dict, k: int = 5, label: str = ""):
    """Effective bandwidth (8 N bytes over the kernel time) against N for every variant and peer,
    under the device copy of the same bytes (the roofline)."""
    record("result", result, ("rows", "provenance"))
    k, label = integer("k (taps)", k), text("label", label)
    recorded = sorted({r["k"] for r in result["rows"]})
    if k not in recorded:
        raise ValueError(f"the recording has no rows for k={k}: it has K = "
                         f"{', '.join(map(str, recorded))}")
    rows = [r for r in result["rows"] if r["k"] == k]
    fig = Figure(figsize=(12, 5.5))
    ax = fig.subplots()
    names = list(dict.fromkeys(r["name"] for r in rows))
    for name in names:
        rs = sorted((r for r in rows if r["name"] == name), key=lambda r: r["n"])
        style = dict(color="black", ls="--", lw=2) if name == "copy" else dict(marker="o", ms=4)
        ax.plot([r["n"] for r in rs], [r["gbps"] for r in rs],
                label="device copy (roofline)" if name == "copy" else name, **style)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (float32 elements); the working set is 8 N bytes")
    ax.set_ylabel("GB/s (8 N bytes / kernel time)")
    l2 = result["provenance"].get("l2_bytes")
    if l2:
        ax.axvline(l2 / 8, color="grey", lw=0.8, ls=":")
        ax.text(l2 / 8, ax.get_ylim()[1] * 0.97, " x and y fill the L2", fontsize=8, va="top")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    ax.set_title(f"K = {k}. {label}", fontsize=10, loc="left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_stage_sweep(result: dict, label: str = ""):
    """Bandwidth of the pipelined kernel against its number of stages, beside the bytes each SM
    keeps in flight (Little's law: bandwidth = bytes in flight / latency)."""
    record("result", result, ("stage_sweep", "provenance"))
    label = text("label", label)
    if not result["stage_sweep"]:
        raise ValueError("result['stage_sweep'] is empty: the recording has no stage sweep")
    rows = sorted(result["stage_sweep"], key=lambda r: r["config"]["stages"])
    sms = result["provenance"]["multiprocessors"]
    fig = Figure(figsize=(9, 4.2))
    ax = fig.subplots()
    stages = [r["config"]["stages"] for r in rows]
    ax.bar(stages, [r["gbps"] for r in rows], color="#8ecae6", label="pipelined, GB/s")
    copy = np.median([r["copy_us"] for r in rows])
    ax.axhline(8 * rows[0]["n"] / (copy * 1e-6) / 1e9, color="black", ls="--", label="device copy")
    ax.set_xlabel("stages (tile buffers per block)")
    ax.set_ylabel("GB/s")
    ax.set_xticks(stages)
    twin = ax.twinx()
    twin.plot(stages, [bytes_in_flight(r, sms) / 1024 for r in rows], "o-", color="#f28482",
              label="KiB in flight per SM")
    twin.set_ylabel("KiB requested per SM (while waiting)")
    twin.set_ylim(0, None)
    ax.legend(loc="upper left", fontsize=8)
    twin.legend(loc="lower right", fontsize=8)
    ax.set_title(f"N = {_n_label(rows[0]['n'])}, K = {rows[0]['k']}, tile {rows[0]['config']['tile']}. "
                 f"{label}", fontsize=10, loc="left")
    fig.tight_layout()
    return fig


def bytes_in_flight(row: dict, multiprocessors: int) -> float:
    """Bytes of input one SM has requested but not yet consumed while its blocks wait for a
    tile, for persistent blocks (all resident at once): blocks per SM x stages (the tile waited
    for and the ``stages - 1`` requested after it) x bytes per tile buffer (``layout.span``
    floats: the tile and its halos in whole 16-byte chunks)."""
    c = row["config"]
    if not c.get("persistent", True):
        raise ValueError("bytes_in_flight needs persistent blocks: with one block per tile, how "
                         "many are resident depends on occupancy, not on the grid")
    blocks_per_sm = c["grid"] / multiprocessors
    return blocks_per_sm * c["stages"] * layout.span(c["tile"], row["k"]) * 4


def plot_roofline(rec: dict, n: int = 2**26, variants=None, label: str = ""):
    """Each variant's time over the bound (the larger of the copy and the FMA time, 1.0: the
    dashed line) against the number of taps K, on a log2 axis: one line per variant, error bars
    from the interquartile range, from a roofline recording (``python -m kernels.measure.roofline``).
    ``variants``: which to draw (default: every one recorded at ``n``)."""
    from ..measure.recorded import roofline_rows
    label = text("label", label)
    by_variant = roofline_rows(rec, n)
    if variants is not None:
        variants = [V.get(v).name for v in sequence("variants", variants, "variant names")]
        absent = [v for v in variants if v not in by_variant]
        if absent:
            raise ValueError(f"the recording has no rows of {', '.join(absent)} at n = {n}: it "
                             f"has {', '.join(by_variant)}")
        by_variant = {v: by_variant[v] for v in variants}
    fig = Figure(figsize=(10, 5))
    ax = fig.subplots()
    for name, rows in by_variant.items():
        ks = [r["k"] for r in rows]
        ratio = np.array([r["ratio"] for r in rows])
        bound = np.array([r["bound_us"] for r in rows])
        low = ratio - np.array([r["q1_us"] for r in rows]) / bound
        high = np.array([r["q3_us"] for r in rows]) / bound - ratio
        style = (dict(ls="-", marker="o") if V.get(name).asynchronous
                 else dict(ls=":", marker="s"))
        ax.errorbar(ks, ratio, yerr=[low, high], ms=4, capsize=3, label=name, **style)
    ax.axhline(1.0, color="black", ls="--", lw=1.2, label="the bound: max(copy, FMA time)")
    all_ks = sorted({r["k"] for rows in by_variant.values() for r in rows})
    fma_bound = sorted({r["k"] for rows in by_variant.values() for r in rows
                        if r["limit"] == "fma"})
    if fma_bound:   # shaded from halfway (on the log axis) past the last K the copy bounds
        copy_bound = [k for k in all_ks if k < fma_bound[0]]
        start = (copy_bound[-1] * fma_bound[0]) ** 0.5 if copy_bound else fma_bound[0] / 2**0.5
        ax.axvspan(start, all_ks[-1] * 2**0.5, color="#f28482", alpha=0.12, lw=0,
                   label="FMAs bound it, not the copy")
    ax.set_xscale("log", base=2)
    ax.set_xticks(all_ks, [str(k) for k in all_ks])
    ax.set_xlabel("K (taps)")
    ax.set_ylabel("kernel time / bound")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    ax.set_title(f"N = {_n_label(n)} on {rec['provenance'].get('device')}; solid lines: "
                 f"asynchronous copies, dotted: plain loads. {label}", fontsize=10, loc="left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
