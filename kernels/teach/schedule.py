"""Chapter 02's page: the schedule model a reader plays with (:func:`model`, its presets), the
measured timelines as schedules to draw, and the numbers, sentences and tables the page shows,
in both editions' languages. The measurements themselves are :mod:`kernels.measure.timeline`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import device, layout
from ..edition import Text, day, of, power_of_two, times
from ..geometry import launch_config
from ..measure import timeline
from ..measure.timeline import (KEEP_SMS, KEEP_US, SEED_CYCLES, TIMELINE_VARIANTS, TRACE_PHASES,
                                overlap_saving, point, records, sm_occupancy, taps_lesson)
from ..tables import Table
from ..validate import choice, integer, number


PHASES_KO = {"tile load": "타일 로드", "taps load": "탭 로드", "wait": "대기", "barrier": "배리어",
             "compute": "계산"}   # the phases' names in the Korean edition (tables, figures)


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
    c = data["cycles"][variant]
    return {"dram_latency": round(c["tile load"]), "taps_latency": round(c["taps load"]),
            "compute": round(c["wait"] + c["barrier"] + c["compute"])}


def preset_name(data: dict) -> str:
    """The name of ``measured_preset(data)``: "as measured on the H200" for an NVIDIA H200."""
    return f"as measured on the {data['provenance']['device'].removeprefix('NVIDIA ')}"


def model_presets(recorded: str = "h200_timelines") -> dict[str, dict]:
    """The model's presets by name: the puzzle's illustration, then the phases measured in the
    recording ``kernels/recorded/RECORDED.json``."""
    data = timeline.load(recorded)
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


def measured_schedule(records: np.ndarray, title: str, max_sms: int | None = 8,
                      window_us: float | None = None) -> Schedule:
    """Records as bars in microseconds from the first block's start, one lane per block slot on
    an SM: lane = (SM, how many of its blocks were already running). Only the first ``max_sms``
    SMs, and only blocks that start within ``window_us`` of the first, when given: then the
    title says so."""
    ns = records[:, layout.TRACE_NS].astype(np.int64)
    t0 = ns[:, point("start")].min()
    if window_us is not None:
        keep = ns[:, point("start")] - t0 <= window_us * 1e3
        records, ns = records[keep], ns[keep]
    sm_of = records[:, layout.TRACE_SM]
    bars, lanes = [], {}
    order = np.argsort(ns[:, point("start")], kind="stable")
    sms = sorted(set(int(s) for s in sm_of))[:max_sms] if max_sms else None
    free = {}   # (sm, slot) -> time the slot's block ended
    for b in order:
        sm = int(sm_of[b])
        if sms is not None and sm not in sms:
            continue
        start, end = ns[b, point("start")], ns[b, point("stored")]
        slot = next(s for s in range(10**6) if free.get((sm, s), 0) <= start)
        free[(sm, slot)] = end
        lane = lanes.setdefault((sm, slot), len(lanes))
        for name, a, z in TRACE_PHASES:
            ta, tz = ns[b, point(a)], ns[b, point(z)]
            bars.append(Bar(lane, name, (ta - t0) / 1e3, max(tz - ta, 0) / 1e3))
    labels = {lane: f"SM {sm}" + (f".{slot}" if slot else "") for (sm, slot), lane in lanes.items()}
    if window_us is not None:
        title += Text(f", first {max_sms} SMs, blocks that start in the first {window_us:g}\u00a0µs",
                      f", 앞쪽 SM {max_sms}개, 처음 {window_us:g}\u00a0µs 안에 시작한 블록")
    return Schedule(bars, "µs", title, "SM", {"labels": labels})


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
    if device.gpu_available():
        data = timeline.measure_all()
        gpu = data["provenance"]["device"]
        live = Text(f"measured live on {gpu}", f"노트북을 실행하며 {gpu}에서 잰 값")
        return data, Source(live, Text(live.en, f"{gpu} 실측"))
    data = timeline.load(recorded)
    p = data["provenance"]
    short = Text(f"RECORDED on {p['device']}", f"{p['device']} 기록")
    return data, Source(Text(f"{short.en} (driver {p['driver']}, CuPy {p['cupy']}, {p['date'][:10]}); "
                             "no GPU here",
                             f"{p['device']}에서 기록한 값(드라이버 {p['driver']}, CuPy {p['cupy']}, "
                             f"{p['date'][:10]}). 여기에는 GPU가 없습니다."), short)


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


def _cyc(x: float) -> str:
    return f"{x:,.0f}"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def recording_numbers(data: dict) -> dict[str, str]:
    """Where the page's numbers come from: ``rec_device``, ``rec_date`` (a
    :func:`~kernels.edition.day`), ``rec_sms`` (its SMs) and ``rec_l2`` (its L2 cache, MiB)."""
    p = data["provenance"]
    return {"rec_device": p["device"], "rec_date": day(p["date"]),
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
    (``taps_over_load``) and over the puzzle's 100 cycles (``taps_over_puzzle``); async_halo's
    issue, taps and wait left (``issue_cycles``, ``async_taps``, ``wait_left``); one trace point
    (``empty_wait``)."""
    t = taps_lesson(data)
    return {"tile_sync": _cyc(t["tile"]), "tile_per_load": _cyc(t["tile_per_load"]),
            "taps_sync": _cyc(t["taps"]["tiled_sync"]), "taps_over_load": f"{t['taps_over_load']:.1f}",
            "taps_over_puzzle": f"{t['taps_over_puzzle']:.1f}",
            "issue_cycles": _cyc(t["issue"]), "async_taps": _cyc(t["async_taps"]),
            "wait_left": _cyc(t["wait_left"]), "empty_wait": _cyc(t["empty_wait"])}


def saving_numbers(data: dict) -> dict[str, str]:
    """``overlap_saving(data)`` and the model with ``measured_preset(data)`` for the page: cycles
    per block (``block_sync``, ``block_async``) and the fraction fewer (``block_less``); less
    kernel-only time at 2^24 (``kernel_less_large``; the puzzle's size is chapter 05's,
    :func:`seed_numbers`); the model's sync, async and less time (``model_meas_sync``,
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


def seed_numbers(roof: dict) -> dict[str, str]:
    """From chapter 05's recording ``roof``: how much less kernel-only time than tiled_sync
    async_halo and tiled_loads_first take at the puzzle's own size and configuration
    (``seed_async_less``, ``seed_first_less``)."""
    seed = {r["name"]: r["median_us"] for r in roof["seed"]["rows"]}
    return {f"seed_{short}_less": _pct(1 - seed[v] / seed["tiled_sync"])
            for short, v in (("async", "async_halo"), ("first", "tiled_loads_first"))}


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
    variant (the two the chapter compares first, so that a phone shows them), then the puzzle's
    illustrative cycles."""
    variants = sorted(TIMELINE_VARIANTS, key=lambda v: v not in ("tiled_sync", "async_halo"))
    return Table("", [Text("phase", "단계"), *variants, Text("puzzle (illustrative)", "퍼즐(예시)")],
                 [[Text(phase, PHASES_KO[phase]),
                   *(f"{data['cycles'][v][phase]:,.0f}" for v in variants),
                   SEED_CYCLES.get(phase, "")]
                  for phase, *_ in TRACE_PHASES])


def occupancy_table(data: dict):
    """How the blocks of ``data`` (a timeline measurement) shared their SMs (:func:`sm_occupancy`),
    at Puzzle 28's size and at N = 2^24."""
    device = data["provenance"]["device"]
    rows = []
    for which, size in (("seed", "N = 2¹⁴"), ("large", "N = 2²⁴")):
        for v in TIMELINE_VARIANTS:
            o = sm_occupancy(records(data, v, which))
            rows.append([f"{size} {v}", f"{o['block_ns'] / o['ns_per_block']:.1f}", o["resident"],
                         f"{o['block_ns']:,.0f} ns", f"{o['ns_per_block']:,.0f} ns"])
    return Table(Text(f"Recorded on the {device}; at N = 2²⁴ the first {KEEP_SMS} SMs, "
                      f"blocks started in the first {KEEP_US:.0f} µs",
                      f"{device}에서 기록. N = 2²⁴에서는 앞쪽 SM {KEEP_SMS}개, 처음 "
                      f"{KEEP_US:.0f} µs 안에 시작한 블록"),
                 ["", Text("overlapped", "중첩"), Text("at once", "동시 실행 블록"),
                  Text("one block", "블록 하나"), Text("SM per block", "블록당 SM 시간")], rows,
                 align="<>>>>")


def overhead_table(data: dict):
    """How much longer each traced build in ``data`` takes than its plain build (not the times
    themselves: at the puzzle's size they differ from one recording to the next)."""
    return Table("", [Text("variant", "변형"), "N", Text("overhead", "오버헤드")],
                 [[r["variant"], power_of_two(r["n"]), f"{100 * r['overhead']:+.1f}%"]
                  for r in data["overhead"]])
