"""Where a tile's halo cells come from: the neighbouring tile, or zero past the vector's ends."""

from __future__ import annotations

from dataclasses import dataclass

from ..geometry import launch_config

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
