"""Sync against async as timelines measured inside the kernels (chapter 02; its page, and the
model a reader plays with, are :mod:`kernels.teach.schedule`'s). The timelines (``trace``) come
from the kernel listings built with ``-DCONV_TRACE``: thread 0 of every block records its SM, ``%globaltimer`` and ``clock64()`` at each phase boundary, in the
record layout of :mod:`kernels.layout` (``TRACE_SM``, ``TRACE_NS``, ``TRACE_CYCLES``).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .. import device, layout, variants as V
from ..compile import KERNEL_DIR, Build, compiled_file
from ..files import write_json
from ..geometry import launch_config
from ..launch import prepare
from ..reference import random_inputs
from ..validate import choice, needs_gpu, output_file, record
from . import recorded as recordings
from .timing import time_us

# Thread 0, whose clock the cycles per phase are, copies cells 0 and 256 of the 260-cell buffer
# (Puzzle 28: tile 256 + 2 halos of 2, 256 threads): two 4-byte loads in its tile load, one tap.
THREAD0_TILE_LOADS = len(range(0, layout.buf(256, 5), 256))
PHASES = ("tile load", "taps load", "wait", "barrier", "compute")   # "taps load": the taps
SEED_CYCLES = {"tile load": 500, "taps load": 100, "compute": 50}   # the puzzle's illustration
# Measured phases: (name, from trace point, to trace point), points of layout.TRACE_POINTS
TRACE_PHASES = (("tile load", "start", "issued"), ("taps load", "issued", "taps"),
                ("wait", "taps", "waited"), ("barrier", "waited", "synced"),
                ("compute", "synced", "stored"))


def _traced(variant) -> str:
    v = V.get(variant)
    if not v.traced:
        raise ValueError(f"{v.name} has no trace points: trace one of "
                         f"{', '.join(V.names(traced=True))}")
    return v.name


def point(name: str) -> int:
    """The index of trace point ``name`` within a record's timer or clock values."""
    return layout.TRACE_POINTS.index(name)


# --- measured ----------------------------------------------------------------------------

def trace(variant: str, n: int = 16384, tile: int = 256, k: int = 5, threads: int | None = None,
          seed: int = 0) -> np.ndarray:
    """Run the traced build of ``variant`` once (after a warm-up) on ``random_inputs(n, k, seed)``
    and return its records, one row of ``layout.TRACE_WORDS`` per block: its SM id
    (``layout.TRACE_SM``), then %globaltimer (ns, ``TRACE_NS``) and clock64() (cycles,
    ``TRACE_CYCLES``) at each of ``layout.TRACE_POINTS``."""
    cfg = launch_config(n, k, tile, threads, _traced(variant))
    needs_gpu("timeline.trace")
    import cupy
    x, w = (cupy.asarray(a) for a in random_inputs(n, k, seed))
    y = cupy.empty_like(x)
    records = cupy.zeros(cfg.tiles * layout.TRACE_WORDS, dtype=cupy.uint64)
    launch = prepare(variant, x, w, y, tile=tile, threads=cfg.threads, trace=records)
    launch()
    launch()
    return records.get().reshape(cfg.tiles, layout.TRACE_WORDS)


def phase_cycles(records: np.ndarray) -> dict:
    """Median SM cycles (clock64) per phase over all blocks, as thread 0 of each block saw them."""
    clocks = records[:, layout.TRACE_CYCLES].astype(np.int64)
    return {name: float(np.median(clocks[:, point(z)] - clocks[:, point(a)]))
            for name, a, z in TRACE_PHASES}


def timer_resolution(reads: int = 4096) -> dict:
    """How often %globaltimer ticks on this GPU: the smallest and median nonzero step between
    back-to-back reads (ns)."""
    needs_gpu("timeline.timer_resolution")
    import cupy
    src = (KERNEL_DIR / "globaltimer_probe.cu").read_text()
    path = compiled_file(src, "globaltimer_probe", Build(32, 1, 32, f"sm_{device.compute_capability()}"))
    probe = cupy.RawModule(path=str(path)).get_function("globaltimer_probe")
    out = cupy.zeros(reads, dtype=cupy.uint64)
    probe((1,), (32,), (out, np.int32(reads)))
    steps = np.diff(out.get().astype(np.int64))
    ticks = steps[steps > 0]
    return {"min_step_ns": int(ticks.min()), "median_step_ns": float(np.median(ticks)),
            "reads_per_tick": float(reads / max(1, ticks.size))}


def instrumentation_cost(variant: str, n: int, tile: int = 256, k: int = 5) -> dict:
    """Kernel-only median time (µs) of the plain and the traced build, same inputs."""
    launch_config(n, k, tile, None, _traced(variant))
    needs_gpu("timeline.instrumentation_cost")
    import cupy
    cfg = launch_config(n, k, tile, None, variant)
    x, w = (cupy.asarray(a) for a in random_inputs(n, k, 1))
    y = cupy.empty_like(x)
    records = cupy.zeros(cfg.tiles * layout.TRACE_WORDS, dtype=cupy.uint64)
    plain = float(np.median(time_us(prepare(variant, x, w, y, tile=tile), n)[0]))
    traced = float(np.median(time_us(prepare(variant, x, w, y, tile=tile, trace=records), n)[0]))
    return {"variant": variant, "n": n, "plain_us": plain, "traced_us": traced,
            "overhead": traced / plain - 1}


def block_cycles(records: np.ndarray) -> float:
    """Median SM cycles (clock64) from a block's first trace point to its last, over all blocks."""
    clocks = records[:, layout.TRACE_CYCLES].astype(np.int64)
    return float(np.median(clocks[:, point("stored")] - clocks[:, point("start")]))


def sm_occupancy(records: np.ndarray) -> dict:
    """How the blocks of ``records`` shared their SMs, from %globaltimer: ``resident``, the most
    blocks running at once on any one SM; ``block_ns``, the median time from a block's start to
    its last store; ``ns_per_block``, the time an SM took per block it ran (its first start to its
    last end, over its blocks), the median over the SMs. ``block_ns / ns_per_block`` is how many
    blocks' time overlapped on an SM, on average (Little's law)."""
    ns = records[:, layout.TRACE_NS].astype(np.int64)
    start, end = ns[:, point("start")], ns[:, point("stored")]
    sm_of = records[:, layout.TRACE_SM]
    resident, per_block = [], []
    for sm in np.unique(sm_of):
        mine = sm_of == sm
        # Sweep the starts and ends in time order; at equal times an end goes first, so a block
        # that takes the slot of one that ended at the same tick is not counted twice.
        events = sorted([(t, 1) for t in start[mine]] + [(t, -1) for t in end[mine]])
        running = np.cumsum([step for _, step in events])
        resident.append(int(running.max()))
        per_block.append((end[mine].max() - start[mine].min()) / mine.sum())
    return {"resident": max(resident), "block_ns": float(np.median(end - start)),
            "ns_per_block": float(np.median(per_block))}


def taps_lesson(data: dict, sync: str = "tiled_sync", asyn: str = "async_halo") -> dict:
    """What the cycles per phase of ``data`` (a timeline measurement) say about the taps load
    (the phase "taps load"): what it took in each variant (``taps``); in ``sync``, over the
    puzzle's illustrative cycles and over ``sync``'s tile load (``tile``), and over one of the
    ``THREAD0_TILE_LOADS`` loads that thread 0 makes, one after the other, in that tile load
    (``tile_per_load``, ``taps_over_load``: thread 0 loads one 4-byte tap, so this compares one
    request with one request, not 20 bytes with two requests in sequence); in ``asyn``, the
    cycles to issue the copies (``issue``), the taps load (``async_taps``) and the wait left
    after it (``wait_left``); and ``sync``'s "wait", whose trace points have nothing between
    them, so that it measures the cost of a trace point (``empty_wait``)."""
    c = data["cycles"]
    taps = c[sync]["taps load"]
    per_load = c[sync]["tile load"] / THREAD0_TILE_LOADS
    return {"taps": {v: c[v]["taps load"] for v in c}, "tile": c[sync]["tile load"],
            "taps_over_puzzle": taps / SEED_CYCLES["taps load"],
            "taps_over_tile": taps / c[sync]["tile load"],
            "tile_per_load": per_load, "taps_over_load": taps / per_load,
            "issue": c[asyn]["tile load"], "async_taps": c[asyn]["taps load"],
            "wait_left": c[asyn]["wait"], "empty_wait": c[sync]["wait"]}


def overlap_saving(data: dict, sync: str = "tiled_sync", asyn: str = "async_halo") -> dict:
    """What ``asyn`` saves over ``sync`` in ``data``: median cycles per block at Puzzle 28's size
    (``block_cycles``, by variant) and the fraction fewer (``block_less``); and the fraction less
    kernel time of the plain (untraced) builds at each size measured (``kernel_less``, by n),
    with ``sync``'s time there (``kernel_us``, by n)."""
    sync = choice("sync", sync, tuple(data["cycles"]))
    cycles = {v: block_cycles(records(data, v)) for v in (sync, asyn)}
    plain = {(r["variant"], r["n"]): r["plain_us"] for r in data["overhead"]}
    sizes = sorted({n for v, n in plain if v == sync} & {n for v, n in plain if v == asyn})
    return {"block_cycles": cycles, "block_less": 1 - cycles[asyn] / cycles[sync],
            "kernel_less": {n: 1 - plain[(asyn, n)] / plain[(sync, n)] for n in sizes},
            "kernel_us": {n: plain[(sync, n)] for n in sizes}}


# --- a whole measurement, live or recorded ----------------------------------------------------

TIMELINE_VARIANTS = V.names(traced=True)
LARGE_N = 2**24
KEEP_SMS, KEEP_US = 8, 40.0    # what a recording keeps of the large-N traces


def _first(records: np.ndarray, sms: int = KEEP_SMS, us: float = KEEP_US) -> np.ndarray:
    """The blocks of the first ``sms`` SMs that started within ``us`` of the launch."""
    sm_of = records[:, layout.TRACE_SM]
    starts = records[:, layout.TRACE_NS][:, point("start")].astype(np.int64)
    keep_sm = sorted(set(int(s) for s in sm_of))[:sms]
    return records[np.isin(sm_of, keep_sm) & (starts - starts.min() <= us * 1e3)]


def measure_all() -> dict:
    """Everything notebook 02 shows, measured on this GPU now."""
    needs_gpu("timeline.measure_all")
    result = {"provenance": device.device_info(), "timer": timer_resolution(), "overhead": [],
              "traces": {}, "cycles": {}}
    for variant in TIMELINE_VARIANTS:
        seed, large = trace(variant), trace(variant, n=LARGE_N)
        result["traces"][variant] = {"seed": seed.tolist(), "large": _first(large).tolist()}
        result["cycles"][variant] = phase_cycles(seed)
        for n in (16384, LARGE_N):
            result["overhead"].append(instrumentation_cost(variant, n))
    return result


def load(recorded: str = "h200_timelines") -> dict:
    """A timeline recording (kernels/recorded/NAME.json), checked once: its timer, its cycles (every phase of each variant) and
    each variant's traces (both sizes, records of ``layout.TRACE_WORDS`` words)."""
    name, data = recorded, recordings.load(recorded)
    record(name, data, ("timer", "cycles", "traces", "overhead"))
    record(f"{name}['timer']", data["timer"], ("min_step_ns", "median_step_ns"))
    for v, cycles in data["cycles"].items():
        record(f"{name}['cycles'][{v!r}]", cycles, PHASES)
    for v, traces in data["traces"].items():
        for which in ("seed", "large"):
            kept = record(f"{name}['traces'][{v!r}]", traces, ("seed", "large"))[which]
            if not kept or any(len(r) != layout.TRACE_WORDS for r in kept):
                raise ValueError(f"{name}['traces'][{v!r}][{which!r}] must be a list of records "
                                 f"of {layout.TRACE_WORDS} integers each (kernels.layout's layout)")
    return data


def records(data: dict, variant: str, which: str = "seed") -> np.ndarray:
    """The trace records of ``variant`` in ``data`` ("seed": Puzzle 28's size, every block;
    "large": N = LARGE_N, the blocks ``_first`` keeps), one row of ``layout.TRACE_WORDS`` each."""
    variant = choice("variant", variant, tuple(data["traces"]))
    which = choice("which", which, ("seed", "large"))
    return np.array(data["traces"][variant][which], dtype=np.uint64).reshape(-1, layout.TRACE_WORDS)


def main(argv=None) -> None:
    """``python -m kernels.measure.timeline --out FILE.json``: measure on this GPU, write the
    recording (atomically), print its summary."""
    parser = argparse.ArgumentParser(prog="python -m kernels.measure.timeline",
                                     description="measure the timelines of notebook 02 (GPU)")
    parser.add_argument("--out", required=True, help="write the JSON here")
    args = parser.parse_args(argv)
    try:                        # before the run: a typo must not cost a GPU run
        out = output_file("--out", args.out)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    if not device.gpu_available():
        sys.exit("measuring timelines needs a GPU")
    data = measure_all()
    data["provenance"]["command"] = "python -m kernels.measure.timeline --out " + args.out
    write_json(out, data)       # written first: the summary below cannot lose the run
    print(json.dumps({k: data[k] for k in ("timer", "cycles", "overhead")}, indent=1))


if __name__ == "__main__":
    main()
