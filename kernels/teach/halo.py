"""Where a tile's halo cells come from: the neighbouring tile, or zero past the vector's ends; and
the numbers notebook 01's sentences glue (:func:`halo_counts`, :func:`puzzle_errors`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import layout
from ..edition import SUPERSCRIPT, Text, listed as both_listed
from ..geometry import launch_config
from ..reference import error_bound, reference, wrong_outputs
from ..tables import Table

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
    """What notebook 01 says about the halo cells, as text for :func:`kernels.teach.page.glue`:
    those of one block, of all blocks, the zeros past the vector's ends among them, and the share
    of a block's buffer they take."""
    cells = halo_cells(n, tile, k)
    return {"halo_per_block": str(k - 1),
            "halo_total": str(len(cells)),
            "halo_zero": str(sum(c.source == "zero" for c in cells)),
            "halo_share": f"{(k - 1) / layout.buf(tile, k):.1%}"}


def _power_of_ten(value: float) -> str:
    """0.000188 -> "2 × 10⁻⁴": a small number as a sentence writes it."""
    if value >= 0.1:
        return f"{value:.1f}"
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def puzzle_errors(y_puzzle, y_correct, x, w, tile: int, tested: int = 10) -> dict[str, str]:
    """What notebook 01 says about the puzzle's outputs against the correct kernel's (in tiles of
    ``tile``; the puzzle's test looks at outputs ``0 .. tested-1``), as text for
    :func:`kernels.teach.page.glue`."""
    ref, bound = reference(x, w), error_bound(x, w)
    puzzle, correct = (np.asarray(y if isinstance(y, np.ndarray) else y.get(), np.float64)
                       for y in (y_puzzle, y_correct))
    wrong = wrong_outputs(y_puzzle, x, w)
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
