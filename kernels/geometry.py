"""Launch geometry, without a GPU: which sizes each variant takes, its shared memory, its grid.

:func:`launch_config` holds every size rule; :func:`kernels.conv1d`, :func:`kernels.prepare`,
the emulation, the timeline model, the widgets and the benchmark all go through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import variants as V
from .validate import flag, integer, listed, warps

STATIC_SHARED_LIMIT = 48 * 1024   # bytes of static __shared__ per block, on every GPU since sm_20
MAX_THREADS = 1024
MAX_TILE = 65536                  # a tile's outputs are counted in an int with the grid's
DEFAULT_TILE = 256
DEFAULT_STAGES = 4
MAX_STAGES = 8                    # what libcu++'s per-thread pipeline can wait on
MAX_N = 2**31 - 1 - 2 * MAX_TILE  # 32-bit indices, with room for a tile and its halos past n


@dataclass(frozen=True)
class LaunchConfig:
    """How one convolution is laid out on the GPU."""

    variant: str
    n: int              # outputs
    k: int              # taps
    tile: int           # outputs per block (per tile, for the staged variants)
    threads: int        # threads per block
    tiles: int          # ceil(n / tile); one block each, except for persistent staged variants
    shared_bytes: int   # static shared memory per block
    stages: int | None  # tile buffers per block (staged variants)
    persistent: bool | None = None   # staged variants: blocks walk over tiles (else one tile each)

    @property
    def halo(self) -> int:
        return self.k // 2

    @property
    def block_threads(self) -> int:
        """Threads a block is launched with: ``threads``, and the producer warp of a variant
        that has one."""
        return self.threads + 32 * V.get(self.variant).producer_warp


def shared_bytes(variant: str, tile: int, k: int, stages: int | None = None) -> int:
    """Static shared memory of one block of ``variant`` (the sizes in its listing; a test
    compares them with the compiled kernels')."""
    return V.get(variant).shared(tile, k, stages or 1)


def valid_n(n) -> int:
    """``n`` inputs (and outputs), as many as the kernels' 32-bit indices allow."""
    return integer("n", n, 1, MAX_N, why=" (the kernels index x with 32-bit ints)")


def valid_tile(tile) -> int:
    """``tile`` as every variant takes it: a whole number of warps, at most MAX_TILE."""
    return warps("tile", tile, MAX_TILE)


def _taps(v: V.Variant, k) -> int:
    """``k`` taps, at least one, and for the register-window variants at most ``v.max_k``."""
    k = integer("k (taps)", k, lo=1)
    if not v.takes_k(k):
        raise ValueError(f"{v.name} holds the taps and its window in registers: at most "
                         f"{v.max_k} taps, got {k}")
    return k


def _largest_tile(v: V.Variant, k: int, stages: int) -> int | None:
    """The largest tile whose shared memory fits, if it holds ``k`` outputs (None otherwise: no
    tile fits, so nothing smaller than ``k`` is ever advised)."""
    top = next((t for t in range(MAX_TILE, 31, -32)
                if v.shared(t, k, stages) <= STATIC_SHARED_LIMIT), 0)
    return top if top >= k else None


def max_tile(k: int = 1, variant: str = "async_halo", stages: int | None = None) -> int:
    """Largest valid tile (a multiple of 32, at least ``k``) for ``k`` taps in ``variant``;
    ``ValueError`` when none is."""
    v = V.get(variant)
    k = _taps(v, k)
    stages = _stages(v, stages, k)
    top = _largest_tile(v, k, stages or 1)
    if top is None:
        raise ValueError(f"no tile fits {k} taps in {variant}: a tile must hold at least {k} "
                         f"outputs, at most {MAX_TILE}, and fit {STATIC_SHARED_LIMIT} bytes of "
                         "shared memory with its halos")
    return top


def _stages(v: V.Variant, stages, k: int, tile: int | None = None):
    """Validated stage count (staged variants; default: as many as fit, up to DEFAULT_STAGES)."""
    if not v.staged:
        if stages is not None:
            raise ValueError(f"stages applies to {listed(V.names(staged=True))} only, "
                             f"not {v.name}")
        return None
    if stages is None:
        if tile is None:
            return 1
        return next((s for s in range(DEFAULT_STAGES, 0, -1)
                     if v.shared(tile, k, s) <= STATIC_SHARED_LIMIT), 1)
    return integer("stages", stages, 1, MAX_STAGES)


def launch_config(n: int, k: int, tile: int = DEFAULT_TILE, threads: int | None = None,
                  variant: str = "async_halo", stages: int | None = None,
                  persistent: bool | None = None) -> LaunchConfig:
    """Check sizes and return the launch geometry; raises ``ValueError``/``TypeError``.

    Rules: ``1 <= n <= MAX_N = 2**31 - 1 - 2 * 65536`` (32-bit indices, whatever the tile);
    ``1 <= k <= tile`` taps; ``tile`` a multiple of 32 from 32 to 65536 whose shared memory fits
    the 48 KiB static limit (for tiled_sync and async_halo ``4 * (tile + 2k - 1)`` bytes);
    ``threads`` a multiple of 32 from 32 to 1024 (default: the variant's, ``min(tile, 256)`` or
    for vec4 ``tile // 4``, rounded down to a multiple of 32 and at least 32); ``stages`` from 1
    to 8 and ``persistent`` (a bool, default True), for the staged variants only (default
    stages: 4, or as many as fit); the register-window variants take ``k <= 64``.
    """
    v = V.get(variant)
    n = valid_n(n)
    k = _taps(v, k)
    tile = valid_tile(tile)
    if threads is not None:
        threads = warps("threads", threads, MAX_THREADS - 32 * v.producer_warp,
                        why=(f" ({variant} adds a producer warp: at most {MAX_THREADS} threads in "
                             "all)") if v.producer_warp else "")
    if k > tile:
        raise ValueError(f"{k} taps are longer than the tile {tile}: a tile's halo would reach "
                         "past its neighbour tile")
    stages = _stages(v, stages, k, tile)
    if v.staged:
        persistent = True if persistent is None else flag("persistent", persistent)
    elif persistent is not None:
        raise ValueError(f"persistent applies to {listed(V.names(staged=True))} only, "
                         f"not {variant}")
    smem = v.shared(tile, k, stages or 1)
    if smem > STATIC_SHARED_LIMIT:
        top = _largest_tile(v, k, stages or 1)
        advice = (f"the largest tile for {k} taps is {top}" if top
                  else f"no tile fits {k} taps; use fewer taps")
        raise ValueError(f"{variant} with tile {tile}, {k} taps"
                         f"{f', {stages} stages' if stages else ''} needs {smem} bytes of shared "
                         f"memory, over the {STATIC_SHARED_LIMIT}-byte limit; {advice}"
                         f"{' or fewer stages' if v.staged and stages > 1 else ''}")
    if threads is None:
        threads = v.default_threads(tile)
    return LaunchConfig(variant=variant, n=n, k=k, tile=tile, threads=threads,
                        tiles=-(-n // tile), shared_bytes=smem, stages=stages, persistent=persistent)


@dataclass(frozen=True)
class Puzzle28:
    """Puzzle 28's configuration: N = 16384, tile 256, K = 5 taps, 256 threads: 64 blocks."""

    n: int = 16384
    tile: int = 256
    k: int = 5
    threads: int = 256

    @property
    def blocks(self) -> int:
        return -(-self.n // self.tile)

    @property
    def launch(self) -> dict:
        """Keywords for conv1d/prepare: ``tile`` and ``threads``."""
        return dict(tile=self.tile, threads=self.threads)


PUZZLE28 = Puzzle28()
