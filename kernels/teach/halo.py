"""Where a tile's halo cells come from: the neighbouring tile, or zero past the vector's ends; and
the numbers notebook 01's sentences glue (:func:`halo_counts`, :func:`puzzle_errors`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import layout
from ..edition import Text, listed as both_listed
from ..geometry import launch_config, valid_tile
from ..reference import error_bound, reference, wrong_outputs
from ..tables import Table
from ..validate import integer, same_length, vector

MAX_CELLS = 100_000   # one object per cell: a picture's worth, never a whole vector's


@dataclass(frozen=True)
class HaloCell:
    block: int    # the block whose shared memory holds the cell
    side: str     # "left" or "right"
    slot: int     # index in that block's buffer x_s (left halo | tile | right halo)
    index: int    # global index into x
    source: str   # "tile 3" (a neighbour's data) or "zero" (outside [0, n))


def halo_cells(n: int, tile: int, k: int) -> list[HaloCell]:
    """Every halo cell of every block, for ``n`` inputs, tiles of ``tile``, ``k`` taps (at most
    :data:`MAX_CELLS` of them: one object each)."""
    cfg = launch_config(n, k, tile)
    n, tile, k = cfg.n, cfg.tile, cfg.k
    if cfg.tiles * (k - 1) > MAX_CELLS:
        raise ValueError(f"halo_cells lists every halo cell: at most {MAX_CELLS}, got "
                         f"{cfg.tiles} tiles x {k - 1} = {cfg.tiles * (k - 1)}; use a smaller n "
                         "or a larger tile")
    left, right = k // 2, k - 1 - k // 2
    cells = []
    for b in range(cfg.tiles):
        start = b * tile
        for side, slots in (("left", range(left)), ("right", range(left + tile, left + tile + right))):
            for slot in slots:
                g = start - left + slot
                source = f"tile {g // tile}" if 0 <= g < n else "zero"
                cells.append(HaloCell(b, side, slot, g, source))
    return cells


def halo_table(n: int, tile: int, k: int) -> Table:
    """:func:`halo_cells` as a table for the page, in both languages: each cell's block, side,
    place in the block's buffer, the input it holds and where that input comes from."""
    side = {"left": Text("left", "왼쪽"), "right": Text("right", "오른쪽")}
    return Table("", [Text("block", "블록"), Text("side", "쪽"), "x_s", "x", Text("from", "출처")],
                 [[str(c.block), side[c.side], f"x_s[{c.slot}]", f"x[{c.index}]",
                   Text(c.source, c.source.replace("tile", "타일")) if c.source != "zero"
                   else Text("zero", "0")] for c in halo_cells(n, tile, k)])


def halo_counts(n: int, tile: int, k: int) -> dict[str, str]:
    """What notebook 01 says about the halo cells of ``n`` inputs in tiles of ``tile`` with ``k``
    taps, as text for :func:`kernels.teach.page.glue`: the halo cells of one block
    (``halo_per_block``), of all blocks (``halo_total``), how many of those are zeros past the
    vector's ends (``halo_zero``), and the share of a block's buffer they take (``halo_share``)."""
    cells = halo_cells(n, tile, k)
    cfg = launch_config(n, k, tile)
    k, tile = cfg.k, cfg.tile
    return {"halo_per_block": str(k - 1),
            "halo_total": str(len(cells)),
            "halo_zero": str(sum(c.source == "zero" for c in cells)),
            "halo_share": f"{(k - 1) / layout.buf(tile, k):.1%}"}


def _power_of_ten(value: float) -> str:
    """0.000188 -> "2 × 10⁻⁴": a small number as a sentence writes it."""
    if value >= 0.1:
        return f"{value:.1f}"
    mantissa, exponent = f"{value:.0e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mantissa} × 10{str(int(exponent)).translate(sup)}"


def _host(name: str, y, n: int) -> np.ndarray:
    vector(name, y)
    same_length(name, y, n)
    return np.asarray(y if isinstance(y, np.ndarray) else y.get(), np.float64)


def puzzle_errors(y_puzzle, y_correct, x, w, tile: int, tested: int = 10) -> dict[str, str]:
    """What notebook 01 says about the puzzle's outputs against the correct kernel's, as text for
    :func:`kernels.teach.page.glue`. ``y_puzzle`` and ``y_correct`` are the two kernels' outputs
    for ``x`` and ``w`` in tiles of ``tile``; the puzzle's test looks at outputs ``0 .. tested-1``.

    ``p28_wrong``: outputs farther from the float64 reference than float32 rounding allows;
    ``p28_positions``: where inside a tile they are; ``p28_tiles``: how many tiles have one;
    ``p28_in_test``: how many of them the puzzle's test looks at; ``p28_error_min``,
    ``p28_error_median``, ``p28_error_max``: how far the wrong ones are from the reference;
    ``bound_max``: the largest rounding allowance of any output; ``correct_wrong``: the correct
    kernel's wrong outputs; ``correct_share``: its largest error as a share of its output's
    allowance."""
    tile = valid_tile(tile)
    tested = integer("tested", tested, lo=1)
    ref, bound = reference(x, w), error_bound(x, w)
    puzzle = _host("y_puzzle", y_puzzle, ref.size)
    correct = _host("y_correct", y_correct, ref.size)
    wrong = wrong_outputs(y_puzzle, x, w)
    if wrong.size == 0:
        raise ValueError("y_puzzle has no wrong outputs: these are not the puzzle's outputs")
    errors = np.abs(puzzle - ref)[wrong]
    positions = [str(t) for t in sorted(set((wrong % tile).tolist()))]   # "0, 1, 254 and 255"
    return {"p28_wrong": str(wrong.size),
            "p28_positions": both_listed(positions),
            "p28_tiles": str(np.unique(wrong // tile).size),
            "p28_in_test": str(int((wrong < tested).sum())),
            "p28_error_min": _power_of_ten(float(errors.min())),
            "p28_error_median": _power_of_ten(float(np.median(errors))),
            "p28_error_max": _power_of_ten(float(errors.max())),
            "bound_max": _power_of_ten(float(bound.max())),
            "correct_wrong": str(wrong_outputs(y_correct, x, w).size),
            "correct_share": f"{float(np.max(np.abs(correct - ref) / bound)):.0%}"}
