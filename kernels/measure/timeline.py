"""Sync against async, as a model you can play with and as timelines measured inside the kernels.

The model (``model``) replays the puzzle's argument with its phases as parameters. The measured
timelines (``trace``) come from the same kernel listings built with ``-DCONV_TRACE``: thread 0 of
every block records its SM, ``%globaltimer`` and ``clock64()`` at each phase boundary, in the
record layout of :mod:`kernels.layout` (``TRACE_SM``, ``TRACE_NS``, ``TRACE_CYCLES``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import device, layout, variants as V
from ..compile import KERNEL_DIR, Build, compiled_file
from ..edition import Text, of, times
from ..files import write_json
from ..geometry import launch_config
from ..launch import prepare
from ..reference import random_inputs
from ..tables import Table
from ..validate import choice, integer, needs_gpu, number, output_file, record
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
PHASES_KO = {"tile load": "타일 로드", "taps load": "탭 로드", "wait": "대기", "barrier": "배리어",
             "compute": "계산"}   # the phases' names in the Korean edition (tables, figures)


def _traced(variant) -> str:
    v = V.get(variant)
    if not v.traced:
        raise ValueError(f"{v.name} has no trace points: trace one of "
                         f"{', '.join(V.names(traced=True))}")
    return v.name


def _cycles_of(name: str, data: dict, variant) -> dict:
    """``data["cycles"][variant]``, every phase's cycles."""
    return data["cycles"][choice(name, variant, tuple(data["cycles"]))]


def _point(name: str) -> int:
    """The index of trace point ``name`` within a record's timer or clock values."""
    return layout.TRACE_POINTS.index(name)


@dataclass
class Bar:
    lane: int        # a block (model) or an SM slot (measured)
    phase: str
    start: float     # cycles (model) or microseconds (measured)
    duration: float


@dataclass
class Schedule:
    bars: list[Bar]
    unit: str
    title: str
    lane_label: str = "block"
    meta: dict = field(default_factory=dict)

    @property
    def total(self) -> float:
        return max(b.start + b.duration for b in self.bars) - min(b.start for b in self.bars)


# --- the model ---------------------------------------------------------------------------

def model(mode: str = "async", dram_latency: float = 500, taps_latency: float = 100,
          compute: float = 50, tile: int = 256, k: int = 5, blocks_per_sm: int = 1,
          bytes_per_cycle: float | None = None) -> Schedule:
    """One SM running ``blocks_per_sm`` blocks, each loading a tile (+ halo) and its ``k`` taps,
    then computing. A load takes its latency plus its bytes over the SM's share of bandwidth
    (``bytes_per_cycle``; None: unlimited); transfers queue on the memory pipe, computes on the
    SM's arithmetic units. ``sync``: the taps after the tile; ``async``: both issued at once.
    With the puzzle's numbers: 500 + 100 + 50 = 650 cycles sync, max(500, 100) + 50 = 550 async."""
    mode = choice("mode", mode, ("sync", "async"))
    dram_latency = number("dram_latency", dram_latency, lo=0)
    taps_latency = number("taps_latency", taps_latency, lo=0)
    compute = number("compute", compute, lo=0, lo_open=True)
    blocks_per_sm = integer("blocks_per_sm", blocks_per_sm, 1, 64)
    if bytes_per_cycle is not None:
        bytes_per_cycle = number("bytes_per_cycle", bytes_per_cycle, lo=0, lo_open=True)
    cfg = launch_config(1, k, tile)   # tile and k as the kernels take them
    tile, k = cfg.tile, cfg.k
    pipe_free = 0.0

    def load(issue, latency, nbytes):
        """Requests reach the memory pipe in issue order; each occupies it for its bytes."""
        nonlocal pipe_free
        transfer = 0.0 if bytes_per_cycle is None else nbytes / bytes_per_cycle
        start = max(issue, pipe_free)
        pipe_free = start + transfer
        return start + transfer + latency

    tile_bytes, taps_bytes = 4 * (tile + k - 1), 4 * k
    blocks = range(blocks_per_sm)
    tile_done, taps_done, issue_taps = {}, {}, {}
    for b in blocks:                                   # everything issued at t = 0, block by block
        tile_done[b] = load(0.0, dram_latency, tile_bytes)
        if mode == "async":
            issue_taps[b] = 0.0
            taps_done[b] = load(0.0, taps_latency, taps_bytes)
    if mode == "sync":                                 # the taps once each block's tile is in
        for b in sorted(blocks, key=tile_done.get):
            issue_taps[b] = tile_done[b]
            taps_done[b] = load(issue_taps[b], taps_latency, taps_bytes)
    alu_free, bars = 0.0, []
    for b in sorted(blocks, key=lambda b: max(tile_done[b], taps_done[b])):
        start = max(tile_done[b], taps_done[b], alu_free)   # computes queue on the ALUs
        alu_free = start + compute
        bars += [Bar(b, "tile load", 0.0, tile_done[b]),
                 Bar(b, "taps load", issue_taps[b], taps_done[b] - issue_taps[b])]
        if start > taps_done[b]:
            bars.append(Bar(b, "wait", taps_done[b], start - taps_done[b]))
        bars.append(Bar(b, "compute", start, compute))
    return Schedule(bars, "cycles", Text(f"model: {mode}, {blocks_per_sm} block(s) per SM",
                                         f"모델: {'동기' if mode == 'sync' else '비동기'}, SM당 블록 "
                                         f"{blocks_per_sm}개"))


# Named sets of the model's phases (cycles): the puzzle's illustration, and the phases measured
# inside tiled_sync (``measured_preset``). ``model_presets`` gives both, by name.
PRESET_PUZZLE = "the puzzle's illustration"
PUZZLE_PRESET = {"dram_latency": SEED_CYCLES["tile load"], "taps_latency": SEED_CYCLES["taps load"],
                 "compute": SEED_CYCLES["compute"]}


def measured_preset(data: dict, variant: str = "tiled_sync") -> dict:
    """The model's phases from a timeline measurement (``load_or_measure``'s ``data``): the
    synchronous kernel's tile load and taps load, and as "compute" everything its blocks do after
    them (the empty wait, the barrier and the compute), median cycles rounded to whole cycles. The
    model's sync total is then the measured block's, up to the rounding of the medians."""
    c = _cycles_of("variant", data, variant)
    return {"dram_latency": round(c["tile load"]), "taps_latency": round(c["taps load"]),
            "compute": round(c["wait"] + c["barrier"] + c["compute"])}


def preset_name(data: dict) -> str:
    """The name of ``measured_preset(data)``: "as measured on the H200" for an NVIDIA H200."""
    return f"as measured on the {data['provenance']['device'].removeprefix('NVIDIA ')}"


def model_presets(recorded: str = "h200_timelines") -> dict[str, dict]:
    """The model's presets by name: the puzzle's illustration, then the phases measured in the
    recording ``kernels/recorded/RECORDED.json``."""
    data = recordings.load(recorded)
    return {PRESET_PUZZLE: dict(PUZZLE_PRESET), preset_name(data): measured_preset(data)}


def preset_label(name: str) -> Text:
    """A preset's name (a key of :func:`model_presets`) as its menu shows it in each edition."""
    gpu = name.removeprefix("as measured on the ")
    return Text(name, "퍼즐의 예시 값" if name == PRESET_PUZZLE else f"{gpu}에서 잰 값")


def model_totals(**params) -> dict:
    """Total cycles of both schedules, and what overlap saves."""
    if "mode" in params:
        raise TypeError("model_totals compares both modes: pass model's other parameters only")
    sync, asyn = model("sync", **params).total, model("async", **params).total
    return {"sync": sync, "async": asyn, "saved": sync - asyn, "speedup": sync / asyn,
            "less_time": 1 - asyn / sync}


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


def measured_schedule(records: np.ndarray, title: str, max_sms: int | None = 8,
                      window_us: float | None = None) -> Schedule:
    """Records as bars in microseconds from the first block's start, one lane per block slot on
    an SM: lane = (SM, how many of its blocks were already running). Only the first ``max_sms``
    SMs, and only blocks that start within ``window_us`` of the first, when given: then the
    title says so."""
    ns = records[:, layout.TRACE_NS].astype(np.int64)
    t0 = ns[:, _point("start")].min()
    if window_us is not None:
        keep = ns[:, _point("start")] - t0 <= window_us * 1e3
        records, ns = records[keep], ns[keep]
    sm_of = records[:, layout.TRACE_SM]
    bars, lanes = [], {}
    order = np.argsort(ns[:, _point("start")], kind="stable")
    sms = sorted(set(int(s) for s in sm_of))[:max_sms] if max_sms else None
    free = {}   # (sm, slot) -> time the slot's block ended
    for b in order:
        sm = int(sm_of[b])
        if sms is not None and sm not in sms:
            continue
        start, end = ns[b, _point("start")], ns[b, _point("stored")]
        slot = next(s for s in range(10**6) if free.get((sm, s), 0) <= start)
        free[(sm, slot)] = end
        lane = lanes.setdefault((sm, slot), len(lanes))
        for name, a, z in TRACE_PHASES:
            ta, tz = ns[b, _point(a)], ns[b, _point(z)]
            bars.append(Bar(lane, name, (ta - t0) / 1e3, max(tz - ta, 0) / 1e3))
    labels = {lane: f"SM {sm}" + (f".{slot}" if slot else "") for (sm, slot), lane in lanes.items()}
    if window_us is not None:
        title += Text(f", first {max_sms} SMs, blocks that start in the first {window_us:g} µs",
                      f", 앞쪽 SM {max_sms}개, 처음 {window_us:g} µs 안에 시작한 블록")
    return Schedule(bars, "µs", title, "SM", {"labels": labels})


def phase_cycles(records: np.ndarray) -> dict:
    """Median SM cycles (clock64) per phase over all blocks, as thread 0 of each block saw them."""
    clocks = records[:, layout.TRACE_CYCLES].astype(np.int64)
    return {name: float(np.median(clocks[:, _point(z)] - clocks[:, _point(a)]))
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
    return float(np.median(clocks[:, _point("stored")] - clocks[:, _point("start")]))


def sm_occupancy(records: np.ndarray) -> dict:
    """How the blocks of ``records`` shared their SMs, from %globaltimer: ``resident``, the most
    blocks running at once on any one SM; ``block_ns``, the median time from a block's start to
    its last store; ``ns_per_block``, the time an SM took per block it ran (its first start to its
    last end, over its blocks), the median over the SMs. ``block_ns / ns_per_block`` is how many
    blocks' time overlapped on an SM, on average (Little's law)."""
    ns = records[:, layout.TRACE_NS].astype(np.int64)
    start, end = ns[:, _point("start")], ns[:, _point("stored")]
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
    _cycles_of("sync", data, sync), _cycles_of("asyn", data, asyn)
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
    starts = records[:, layout.TRACE_NS][:, _point("start")].astype(np.int64)
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


@dataclass(frozen=True)
class Source:
    """Where measurements come from: ``text`` in full (what ``str()`` gives; a
    :class:`~kernels.edition.Text`, in both editions' languages), ``short`` in a few words (a
    ``Text`` too), for a figure's title."""

    text: str
    short: str

    def __str__(self) -> str:
        return self.text


def load_or_measure(recorded: str = "h200_timelines") -> tuple[dict, Source]:
    """Live measurements on a GPU; without one, the recorded ones (kernels/recorded/NAME.json).
    The :class:`Source` says which."""
    choice("recorded", recorded, sorted(p.stem for p in recordings.RECORDED.glob("*.json")))
    if device.gpu_available():
        data = measure_all()
        gpu = data["provenance"]["device"]
        live = Text(f"measured live on {gpu}", f"{gpu}에서 지금 직접 잰 값")
        return data, Source(live, live)
    data = _checked(recorded, recordings.load(recorded))
    p = data["provenance"]
    short = Text(f"RECORDED on {p['device']}", f"{p['device']}에서 기록한 값")
    return data, Source(Text(f"{short.en} (driver {p['driver']}, CuPy {p['cupy']}, {p['date'][:10]}); "
                             "no GPU here",
                             f"{p['device']}에서 기록한 값(드라이버 {p['driver']}, CuPy {p['cupy']}, "
                             f"{p['date'][:10]}). 여기에는 GPU가 없습니다."), short)


def _checked(name: str, data: dict) -> dict:
    """A timeline recording, once: its timer, its cycles (every phase of each variant) and
    each variant's traces (both sizes, records of ``layout.TRACE_WORDS`` words)."""
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


def data_note(data: dict, source: Source) -> Text:
    """What notebook 02 says of ``load_or_measure``'s result: where it comes from, and how often
    %globaltimer ticks there (the measured timelines' resolution)."""
    timer = data["timer"]
    step, median = timer["min_step_ns"], timer["median_step_ns"]
    return Text(f"{of(source.text, 'en')}\n%globaltimer ticks every {step} ns at best (median step "
                f"{median:.0f} ns): the timelines' resolution",
                f"{of(source.text, 'ko')}\n"
                f"%globaltimer 값은 최소 {step} ns 간격(중앙값 {median:.0f} ns)으로 바뀝니다. "
                "이것이 타임라인의 해상도입니다.")


def records(data: dict, variant: str, which: str = "seed") -> np.ndarray:
    """The trace records of ``variant`` in ``data`` ("seed": Puzzle 28's size, every block;
    "large": N = LARGE_N, the blocks ``_first`` keeps), one row of ``layout.TRACE_WORDS`` each."""
    variant = choice("variant", variant, tuple(data["traces"]))
    which = choice("which", which, ("seed", "large"))
    return np.array(data["traces"][variant][which], dtype=np.uint64).reshape(-1, layout.TRACE_WORDS)


# --- the numbers notebook 02's sentences state (glued into its prose) -------------------------
# Each function returns {glue name: formatted text}; a cell passes it to kernels.teach.page.glue
# and the markdown names the values with {glue:text}`name`.

def _cyc(x: float) -> str:
    return f"{x:,.0f}"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def recording_numbers(data: dict) -> dict[str, str]:
    """Where the page's numbers come from: ``rec_device``, ``rec_date`` (YYYY-MM-DD),
    ``rec_sms`` (its SMs) and ``rec_l2`` (its L2 cache, MiB)."""
    p = data["provenance"]
    return {"rec_device": p["device"], "rec_date": p["date"][:10],
            "rec_sms": str(int(p["multiprocessors"])), "rec_l2": f"{p['l2_bytes'] / 2**20:.0f} MiB"}


def model_numbers(**params) -> dict[str, str]:
    """The model's totals (``model_totals(**params)``): ``model_sync``, ``model_async``,
    ``model_saved`` (cycles), ``model_less`` (less time, 0.1%), ``model_speedup``."""
    t = model_totals(**params)
    return {"model_sync": _cyc(t["sync"]), "model_async": _cyc(t["async"]),
            "model_saved": _cyc(t["saved"]), "model_less": f"{100 * t['less_time']:.1f}%",
            "model_speedup": times(t["speedup"])}


def taps_numbers(data: dict) -> dict[str, str]:
    """``taps_lesson(data)`` for the page: tiled_sync's tile load (``tile_sync``), one of its
    loads (``tile_per_load``), its taps load (``taps_sync``) over one tile load
    (``taps_over_load``) and over the puzzle's 100 cycles (``taps_over_puzzle``); the taps load's
    range over the variants (``taps_range``); async_halo's issue, taps and wait left
    (``issue_cycles``, ``async_taps``, ``wait_left``); one trace point (``empty_wait``)."""
    t = taps_lesson(data)
    taps = sorted(t["taps"].values())
    return {"tile_sync": _cyc(t["tile"]), "tile_per_load": _cyc(t["tile_per_load"]),
            "taps_sync": _cyc(t["taps"]["tiled_sync"]), "taps_over_load": f"{t['taps_over_load']:.1f}",
            "taps_over_puzzle": f"{t['taps_over_puzzle']:.1f}",
            "taps_range": f"{_cyc(taps[0])}–{_cyc(taps[-1])}",
            "issue_cycles": _cyc(t["issue"]), "async_taps": _cyc(t["async_taps"]),
            "wait_left": _cyc(t["wait_left"]), "empty_wait": _cyc(t["empty_wait"])}


def saving_numbers(data: dict) -> dict[str, str]:
    """``overlap_saving(data)`` and the model with ``measured_preset(data)`` for the page: cycles
    per block (``block_sync``, ``block_async``) and the fraction fewer (``block_less``); less
    kernel-only time at 2^24 (``kernel_less_large``; the puzzle's size is chapter 05's,
    :func:`tuned_numbers`); the model's sync, async and less time (``model_meas_sync``,
    ``model_meas_async``, ``model_meas_less``); the same for tiled_loads_first against tiled_sync
    (``block_first``, ``first_less``, ``kernel_first_large``)."""
    s, f = overlap_saving(data), overlap_saving(data, asyn="tiled_loads_first")
    m = model_totals(**measured_preset(data))
    large = max(s["kernel_less"])
    return {"block_first": _cyc(f["block_cycles"]["tiled_loads_first"]),
            "first_less": _pct(f["block_less"]),
            "kernel_first_large": _pct(f["kernel_less"][large]),
            "block_sync": _cyc(s["block_cycles"]["tiled_sync"]),
            "block_async": _cyc(s["block_cycles"]["async_halo"]),
            "block_less": _pct(s["block_less"]),
            "kernel_less_large": _pct(s["kernel_less"][large]),
            "model_meas_sync": _cyc(m["sync"]), "model_meas_async": _cyc(m["async"]),
            "model_meas_less": _pct(m["less_time"])}


def _occupancies(data: dict) -> dict:
    return {which: {v: sm_occupancy(records(data, v, which))
                    for v in ("tiled_sync", "tiled_loads_first", "async_halo")}
            for which in ("seed", "large")}


def occupancy_numbers(data: dict) -> dict[str, str]:
    """``sm_occupancy`` of tiled_sync and async_halo for the page: one block's ns at 2^14
    (``occ_seed_sync``, ``occ_seed_async``); at 2^24 the most blocks at once (``occ_large_resident``), a
    tiled_sync block's ns (``occ_large_sync``), ns per block of an SM (``occ_large_per_sync``,
    ``occ_large_per_async``), and tiled_sync's blocks overlapped (``occ_overlapped``); for
    tiled_loads_first, ``occ_seed_first`` and ``occ_large_per_first``."""
    o = _occupancies(data)
    seed, large = o["seed"], o["large"]
    return {"occ_seed_sync": _cyc(seed["tiled_sync"]["block_ns"]),
            "occ_seed_async": _cyc(seed["async_halo"]["block_ns"]),
            "occ_large_resident": str(max(large[v]["resident"] for v in large)),
            "occ_large_sync": _cyc(large["tiled_sync"]["block_ns"]),
            "occ_large_per_sync": _cyc(large["tiled_sync"]["ns_per_block"]),
            "occ_large_per_async": _cyc(large["async_halo"]["ns_per_block"]),
            "occ_seed_first": _cyc(seed["tiled_loads_first"]["block_ns"]),
            "occ_large_per_first": _cyc(large["tiled_loads_first"]["ns_per_block"]),
            "occ_overlapped": f"{large['tiled_sync']['block_ns'] / large['tiled_sync']['ns_per_block']:.1f}"}


def overhead_numbers(data: dict) -> dict[str, str]:
    """The traced builds' overhead over the plain ones, least and most (``cost_low``,
    ``cost_high``)."""
    costs = sorted(r["overhead"] for r in data["overhead"])
    return {"cost_low": _pct(costs[0]), "cost_high": _pct(costs[-1])}


TUNED_N = 2**26     # chapter 05's largest size, where every kernel is tuned (tile, threads)
TUNED_KS = (1, 5, 9)
TUNED_VARIANTS = ("tiled_sync", "tiled_loads_first", "async_halo")


def tuned_rows(roof: dict, n: int = TUNED_N) -> dict:
    """From a roofline recording (kernels/recorded/h200_roofline.json, chapter 05), each of
    ``TUNED_VARIANTS`` tuned at size ``n``: ``{k: {"tiled_sync": row, ...}}`` for the K that all
    have (a row: ``median_us``, ``config`` with the tuned ``tile``)."""
    try:
        at = recordings.roofline_rows(roof, n)
    except ValueError:
        at = {}
    by = {}
    for name in TUNED_VARIANTS:
        for r in at.get(name, []):
            by.setdefault(r["k"], {})[name] = r
    both = {k: v for k, v in sorted(by.items()) if len(v) == len(TUNED_VARIANTS)}
    if not both:
        raise ValueError(f"roof has no tuned rows of {', '.join(TUNED_VARIANTS)} at n = {n}")
    return both


def tuned_numbers(roof: dict, n: int = TUNED_N, ks=TUNED_KS) -> dict[str, str]:
    """What notebook 02 says from chapter 05's recording ``roof``: the tile the tuned kernels
    were tuned to (``tuned_tile``) and, for each K of ``ks``, their µs at size ``n``
    (``tuned_sync_k5``, ``tuned_async_k5``, ...); and how much less time than tiled_sync the
    other two take at the puzzle's own size and configuration (``seed_async_less``,
    ``seed_first_less``)."""
    both = tuned_rows(roof, n)
    missing = [k for k in ks if k not in both]
    if missing:
        raise ValueError(f"roof has no tuned rows of both kernels at n = {n} for K = {missing}")
    tiles = {r["config"]["tile"] for k in ks for r in both[k].values()}
    if len(tiles) != 1:
        raise ValueError(f"the tuned kernels have different tiles at n = {n}: {sorted(tiles)}")
    out = {"tuned_tile": str(tiles.pop())}
    for k in ks:
        out[f"tuned_sync_k{k}"] = f"{both[k]['tiled_sync']['median_us']:.1f}"
        out[f"tuned_async_k{k}"] = f"{both[k]['async_halo']['median_us']:.1f}"
        out[f"tuned_first_k{k}"] = f"{both[k]['tiled_loads_first']['median_us']:.1f}"
    seed = {r["name"]: r["median_us"] for r in roof["seed"]["rows"]}
    for short, v in (("async", "async_halo"), ("first", "tiled_loads_first")):
        out[f"seed_{short}_less"] = _pct(1 - seed[v] / seed["tiled_sync"])
    return out


# --- the tables of notebook 02 (titles and word headers in both editions' languages) ----------

def model_table(rows, bytes_per_cycle: float = 16.0):
    """Notebook 02's table of the model at ``bytes_per_cycle``: ``rows`` of (blocks per SM, sync
    cycles, async cycles, less time)."""
    bw = f"{bytes_per_cycle:g}"
    return Table(Text(f"The model at {bw} B/cycle, in cycles", f"대역폭이 사이클당 {bw}바이트일 때의 모델(단위: 사이클)"),
                 [Text("blocks per SM", "SM당 블록"), Text("sync", "동기"), Text("async", "비동기"),
                  Text("less time", "시간 단축")],
                 rows)


def phase_table(data: dict):
    """Thread 0's median cycles per phase in ``data`` (a timeline measurement), variant by
    variant, beside the puzzle's illustrative cycles."""
    variants = TIMELINE_VARIANTS
    return Table("", [Text("phase", "단계"), Text("puzzle (illustrative)", "퍼즐(예시)"), *variants],
                 [[Text(phase, PHASES_KO[phase]), SEED_CYCLES.get(phase, ""),
                   *(f"{_cycles_of('variant', data, v)[phase]:.0f}" for v in variants)]
                  for phase, *_ in TRACE_PHASES])


def occupancy_table(data: dict):
    """How the blocks of ``data`` (a timeline measurement) shared their SMs (:func:`sm_occupancy`),
    at Puzzle 28's size and at N = 2^24."""
    device = data["provenance"]["device"]
    rows = []
    for which, size in (("seed", "N = 2^14"), ("large", "N = 2^24")):
        for v in TIMELINE_VARIANTS:
            o = sm_occupancy(records(data, v, which))
            rows.append([f"{size} {v}", o["resident"], f"{o['block_ns']:.0f} ns",
                         f"{o['ns_per_block']:.0f} ns", f"{o['block_ns'] / o['ns_per_block']:.1f}"])
    return Table(Text(f"Recorded on the {device}; at N = 2^24 the first {KEEP_SMS} SMs, "
                      f"blocks started in the first {KEEP_US:.0f} µs",
                      f"{device}에서 기록. N = 2^24에서는 앞쪽 SM {KEEP_SMS}개, 처음 "
                      f"{KEEP_US:.0f} µs 안에 시작한 블록"),
                 ["", Text("at once", "동시에"), Text("one block", "블록 하나"),
                  Text("SM per block", "블록당 SM 시간"), Text("overlapped", "겹침")], rows, align="<>>>>")


def overhead_table(data: dict):
    """The plain and traced builds' kernel-only times in ``data`` and the traced one's overhead."""
    rows = data["overhead"]
    return Table("", [Text("variant", "변형"), "N", Text("plain µs", "일반 빌드 µs"),
                      Text("traced µs", "트레이스 빌드 µs"), Text("overhead", "오버헤드")],
                 [[r["variant"], r["n"], f"{r['plain_us']:.2f}", f"{r['traced_us']:.2f}",
                   f"{100 * r['overhead']:+.1f}%"] for r in rows])


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
