"""Where a tile's halo cells come from: the neighbouring tile, or zero past the vector's ends."""

from __future__ import annotations

from dataclasses import dataclass

from ..geometry import launch_config


@dataclass(frozen=True)
class HaloCell:
    block: int    # the block whose shared memory holds the cell
    side: str     # "left" or "right"
    slot: int     # index in that block's buffer x_s (left halo | tile | right halo)
    index: int    # global index into x
    source: str   # "tile 3" (a neighbour's data) or "zero" (outside [0, n))


def halo_cells(n: int, tile: int, k: int) -> list[HaloCell]:
    """Every halo cell of every block, for ``n`` inputs, tiles of ``tile``, ``k`` taps."""
    cfg = launch_config(n, k, tile)
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
