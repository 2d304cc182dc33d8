"""The variant registry: one record per kernel listing, and everything the package knows of it.

Every list of variants in the package, the notebooks and the tests is derived from
:data:`REGISTRY`. Adding a variant is three steps (README, "Adding a variant"):

1. its listing ``kernels/NAME.cu`` with ``extern "C" __global__ void conv1d_NAME(x, w, y, n)``;
2. its emulation, a function ``NAME(x, w, tile, blocks)`` in ``kernels/emulation.py``, named in
   its ``EMULATORS``;
3. one :class:`Variant` entry below.

The registry is the package's lowest floor beside :mod:`kernels.layout` and
:mod:`kernels.validate`: it describes listings and imports nothing that compiles, launches or
emulates them (the emulation finds its function by the variant's name).

``tests/core/test_registry.py`` names whatever is missing, and checks each record against its
listing (shared memory against the compiled CUBIN, copy instructions against the PTX, stress
and trace points).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import device, layout
from .edition import Text
from .validate import choice

KERNEL_DIR = Path(__file__).resolve().parent
COPIES = ("plain", "cp.async", "bulk")
WINDOW_MAX_K = 64   # the register-window variants hold about 2 K + 8 floats per thread
DEFAULT_THREADS_MAX = 256


def threads_per_output(tile: int) -> int:
    """One thread per output, at most 256 (a block walks the rest of its tile)."""
    return max(32, min(tile, DEFAULT_THREADS_MAX) // 32 * 32)


def threads_per_4_outputs(tile: int) -> int:
    """One thread per 4 outputs (vec4: a whole tile in one pass), at most 256."""
    return max(32, min(tile // 4, DEFAULT_THREADS_MAX) // 32 * 32)


@dataclass(frozen=True)
class Variant:
    """What one listing is, needs and takes."""

    name: str
    description: str            # the one line the book prints
    copy: str                   # how x reaches the SM: "plain" loads, "cp.async" or "bulk"
    shared: Callable[[int, int, int], int]   # static shared bytes of a block (tile, k, stages)
    min_arch: int = 75          # oldest compute capability that runs it (the book's oldest: T4)
    staged: bool = False        # a ring of CONV_STAGES buffers; persistent or one block per tile
    window: bool = False        # 4 outputs per thread from a register window: k <= WINDOW_MAX_K
    traced: bool = False        # records its PHASE() points (-DCONV_TRACE builds, notebook 02)
    stressed: bool = False      # has PHASE() points where the stress build (-DCONV_JITTER) waits
    aligned16: bool = False     # 16-byte loads and stores: x and y start on a 16-byte boundary
    correct: bool = True        # False for puzzle28, the published algorithm
    default_threads: Callable[[int], int] = threads_per_output
    # One warp more than ``threads``: a producer warp that only issues copies (the launch adds it;
    # CONV_THREADS counts the compute threads).
    producer_warp: bool = False
    # When it joined the registry (ISO 8601, UTC), for variants added after the first recordings:
    # a recording made before then need not hold it (kernels.measure.recorded.variants_expected). None:
    # every recording must.
    added: str | None = None

    @property
    def listing(self) -> Path:
        return KERNEL_DIR / f"{self.name}.cu"

    @property
    def kernel(self) -> str:
        """The ``extern "C"`` name of its CUDA kernel."""
        return f"conv1d_{self.name}"

    @property
    def max_k(self) -> int | None:
        """The most taps it takes (None: only the tile and shared memory bound them)."""
        return WINDOW_MAX_K if self.window else None

    @property
    def asynchronous(self) -> bool:
        return self.copy != "plain"

    def takes_k(self, k: int) -> bool:
        return self.max_k is None or k <= self.max_k


def _tile_halos_taps(tile: int, k: int, stages: int) -> int:
    return 4 * (layout.buf(tile, k) + k)          # x_s[CONV_BUF] + w_s[CONV_K]


def _span(tile: int, k: int, stages: int) -> int:
    return 4 * layout.span(tile, k)                # x_s[CONV_SPAN]


def _span_stages(tile: int, k: int, stages: int) -> int:
    return 4 * stages * layout.span(tile, k)       # x_s[CONV_STAGES][CONV_SPAN]


def _span_stages_barriers(tile: int, k: int, stages: int) -> int:
    # x_s, 128-byte aligned, then one 8-byte mbarrier per stage (placed after it by NVRTC)
    return -(-_span_stages(tile, k, stages) // 8) * 8 + 8 * stages


def _span_stages_full_empty(tile: int, k: int, stages: int) -> int:
    # bulk's layout with a second (empty) mbarrier per stage
    return _span_stages_barriers(tile, k, stages) + 8 * stages


VARIANTS: tuple[Variant, ...] = (
    Variant("naive", "every tap a global load, no shared memory", "plain",
            shared=lambda tile, k, stages: 0),
    Variant("tiled_sync", "tile and halos staged in shared memory by plain loads, then a barrier",
            "plain", shared=_tile_halos_taps, traced=True, stressed=True),
    Variant("tiled_loads_first", "control: tiled_sync with every load issued before any store, "
            "so the tile's and the taps' latencies overlap", "plain", shared=_tile_halos_taps,
            traced=True, stressed=True, added="2026-12-04T04:00:00+00:00"),
    Variant("puzzle28", "Puzzle 28 as published: an async copy of the tile without its halo "
            "(wrong at every tile's edges)", "cp.async",
            shared=lambda tile, k, stages: 4 * (tile + k), traced=True, stressed=True,
            correct=False),
    Variant("async_halo", "Puzzle 28 done right: an async copy of tile and halos while the taps "
            "load", "cp.async", shared=_tile_halos_taps, traced=True, stressed=True),
    Variant("vec4", "control: 16-byte plain loads into registers, no shared memory", "plain",
            shared=lambda tile, k, stages: 0, window=True, aligned16=True,
            default_threads=threads_per_4_outputs),
    Variant("staged_sync", "control: pipelined's 16-byte chunks staged in shared memory by plain "
            "loads, one buffer, one block per tile, then a barrier", "plain", shared=_span,
            window=True, aligned16=True, stressed=True,
            added="2026-11-29T16:00:00+00:00"),
    Variant("pipelined", "16-byte cp.async into a ring of stages, persistent blocks or one per "
            "tile", "cp.async", shared=_span_stages, staged=True, window=True, aligned16=True,
            stressed=True),
    Variant("bulk", "the Hopper bulk copy engine (cp.async.bulk) and an mbarrier per stage",
            "bulk", shared=_span_stages_barriers, min_arch=90, staged=True, window=True,
            aligned16=True, stressed=True),
    Variant("warp_specialized", "a producer warp keeps a ring of stages full with the bulk copy, "
            "handing each over on a full mbarrier; compute warps hand it back on an empty one",
            "bulk",
            shared=_span_stages_full_empty, min_arch=90, staged=True, window=True, aligned16=True,
            stressed=True, producer_warp=True, added="2026-12-01T12:00:00+00:00"),
)
REGISTRY: dict[str, Variant] = {v.name: v for v in VARIANTS}
NAMES: tuple[str, ...] = tuple(REGISTRY)


def get(name) -> Variant:
    """The record of ``name``; ``ValueError`` (with "did you mean") for anything else."""
    return REGISTRY[choice("variant", name, NAMES)]


def names(*, copy: str | None = None, staged: bool | None = None, window: bool | None = None,
          traced: bool | None = None, stressed: bool | None = None, correct: bool | None = None,
          aligned16: bool | None = None, asynchronous: bool | None = None,
          arch: int | None = None) -> tuple[str, ...]:
    """Names of the variants with the given properties, in registry order; ``arch``: those that
    run on that compute capability."""
    wanted = dict(copy=copy, staged=staged, window=window, traced=traced, stressed=stressed,
                  correct=correct, aligned16=aligned16, asynchronous=asynchronous)
    return tuple(v.name for v in VARIANTS
                 if all(val is None or getattr(v, key) == val for key, val in wanted.items())
                 and (arch is None or v.min_arch <= arch))


def runnable_here(wanted) -> tuple[tuple[str, ...], list[str]]:
    """Of the variants ``wanted``: those that run here (on the GPU, or as ASYNC_BOOK_ARCH's
    generation; every one in the emulation), and one sentence for each left out, saying why and
    what Hopper shows."""
    arch = device.target_arch() if device.gpu_available() else None
    here = tuple(n for n in wanted if n in names(arch=arch))
    notes = [Text(f"{n}: left out on this GPU (sm_{arch}): it needs sm_{get(n).min_arch} "
                  f"({get(n).description}). On Hopper it runs, with the same outputs; the recorded "
                  "results below include it.",
                  f"{n}: 이 GPU(sm_{arch})에서는 실행하지 않습니다. sm_{get(n).min_arch}이 필요합니다. "
                  "Hopper에서는 같은 출력으로 실행되고, 아래의 기록된 결과에도 들어 있습니다.")
             for n in wanted if n not in here]
    return here, notes
