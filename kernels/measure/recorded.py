"""Recorded results (``kernels/recorded/``) and what the book reads from them; no GPU needed.

A benchmark recording is what ``python -m kernels.measure.bench --out FILE.json`` writes
(:func:`kernels.measure.bench.run`): its ``provenance`` (device, driver, CuPy, date, command), the
``configs`` the tuning chose, and the ``rows`` of the sweep, the ``tuning`` and the
``stage_sweep``, each a :class:`kernels.measure.bench.Row` as a dict with its ``gbps`` and its ``ratio``
to the copy time. :func:`load` reads one back, :func:`ncu_summary` a recorded Nsight Compute
report (``NCU_METRICS``), :func:`table` prints one size of the sweep.

A roofline recording is what ``python -m kernels.measure.roofline --out FILE.json`` writes (the
section "the roofline across K" below reads it, with noise-aware comparisons: :func:`tie`).
:func:`variants_expected` says which variants a recording must hold (those the registry had
when it was made).

The rest answers the questions notebooks 04 and 05 ask of a recording (which variant comes closest
to the copy, which of two is faster, whether more stages helped), so that what the book says is
computed from the numbers, and tested, instead of decided in a notebook cell.
"""

from __future__ import annotations

import datetime
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import layout, variants as V
from ..files import read_json
from ..geometry import valid_tile
from ..tables import Table
from ..validate import (choice, flag, integer, listed, number, record, rows as valid_rows,
                        sequence, text)

RECORDED = Path(__file__).resolve().parents[1] / "recorded"   # kernels/recorded/
NCU_METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
               "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               "sm__throughput.avg.pct_of_peak_sustained_elapsed",
               "sm__warps_active.avg.pct_of_peak_sustained_active",
               "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
               "smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")


def load(name: str = "h200_bench") -> dict:
    """A recording (kernels/recorded/NAME.json), with its provenance; a corrupted file is
    named in the error (its path, line and column)."""
    name = choice("recording", name, sorted(p.stem for p in RECORDED.glob("*.json")))
    return read_json(RECORDED / f"{name}.json")


def ncu_summary(name: str = "h200_ncu_2e26_k5") -> dict:
    """A recorded Nsight Compute report (kernels/recorded/NAME.txt, `ncu --metrics ...` output)
    as {kernel: {metric: value}}."""
    name = choice("profile", name, sorted(p.stem for p in RECORDED.glob("*.txt")))
    kernels, current = {}, None
    for line in (RECORDED / f"{name}.txt").read_text().splitlines():
        head = re.match(r"\s+(conv1d_\w+) \(", line)
        if head:
            current = kernels.setdefault(head.group(1), {})
            continue
        metric = re.match(r"\s+([\w.]+)\s+(\S+)?\s+([\d,.]+)$", line)
        if current is not None and metric:
            current[metric.group(1)] = float(metric.group(3).replace(",", ""))
    return kernels


def table(result: dict, n: int = 2**26, k: int = 5) -> Table:
    """The sweep at one (n, K) with K taps, fastest first: median time, GB/s and time over the
    copy time (a :class:`kernels.tables.Table`: ``str`` of it is the fixed-width text)."""
    record("result", result, ("rows", "provenance"))
    rows_at(result, n, k)      # n and k recorded (so that n is a power of two: 2^p)
    valid_rows("result['rows']", result["rows"], ("name", "n", "k", "median_us", "gbps", "ratio"))
    rows = [r for r in result["rows"] if r["n"] == n and r["k"] == k]
    return Table(f"n = 2^{int(np.log2(n))}, K = {k} on {result['provenance'].get('device')}",
                 ["", "median µs", "GB/s", "÷ copy"],
                 [[r["name"], f"{r['median_us']:.1f}", f"{r['gbps']:.0f}", f"{r['ratio']:.2f}"]
                  for r in sorted(rows, key=lambda r: r["median_us"])],
                 widths=[28, 10, 8, 7], align="<>>>")


def best_by_schedule(result: dict) -> dict:
    """From a recording's tuning rows: the fastest row of each staged variant with persistent
    blocks and with one block per tile, as {(variant, persistent): row}. Fastest by median
    time, as :func:`kernels.measure.bench.tune` chose (a ratio would carry each row's own copy time,
    whose run-to-run noise is larger than some of the differences)."""
    record("result", result, ("tuning",))
    valid_rows("result['tuning']", result["tuning"], ("name", "config", "median_us"))
    best = {}
    for r in result["tuning"]:
        if r["name"] not in V.REGISTRY or not V.get(r["name"]).staged:
            continue   # the synchronous controls are tuned too, with no schedule to choose
        key = (r["name"], bool(r["config"].get("persistent", True)))
        if key not in best or r["median_us"] < best[key]["median_us"]:
            best[key] = r
    return best


# --- what notebooks 04 and 05 read from a recording -------------------------------------------

def rows_at(result: dict, n: int = 2**26, k: int = 5) -> dict[str, dict]:
    """The sweep's rows at ``n`` outputs and ``k`` taps, by name (a variant, a peer or "copy"),
    in the order measured; ``ValueError`` when the recording has none there."""
    record("result", result, ("rows",))
    n, k = integer("n", n, 1), integer("k (taps)", k, 1)
    valid_rows("result['rows']", result["rows"], ("name", "n", "k"))
    rows = {r["name"]: r for r in result["rows"] if r["n"] == n and r["k"] == k}
    if not rows:
        raise ValueError(f"the recording has no rows at n = {n} with {k} taps")
    return rows


def peers(rows: dict[str, dict]) -> list[str]:
    """The libraries' convolutions among ``rows`` (neither one of our variants nor the copy)."""
    _named("rows", rows, ())
    return [name for name in rows if name != "copy" and name not in V.NAMES]


def best_async(rows: dict[str, dict]) -> str:
    """Of the correct asynchronous variants among ``rows``, the one closest to the copy time."""
    _named("rows", rows, ("ratio",))
    candidates = [v for v in V.names(asynchronous=True, correct=True) if v in rows]
    if not candidates:
        raise ValueError("no asynchronous variant among the rows")
    return min(candidates, key=lambda v: rows[v]["ratio"])


def faster(rows: dict[str, dict], a: str, b: str) -> bool:
    """Whether ``a`` took less time than ``b`` (their median times, same run)."""
    _named("rows", rows, ("median_us",))
    choice("a", a, tuple(rows)), choice("b", b, tuple(rows))
    return rows[a]["median_us"] < rows[b]["median_us"]


def stage_sweep(result: dict) -> list[dict]:
    """The stage sweep's rows (persistent blocks), fewest stages first."""
    record("result", result, ("stage_sweep",))
    for i, r in enumerate(valid_rows("result['stage_sweep']", result["stage_sweep"],
                                     ("name", "config", "ratio"))):
        record(f"result['stage_sweep'][{i}]['config']", r["config"], ("stages",))
    return sorted(result["stage_sweep"], key=lambda r: r["config"]["stages"])


def more_stages_faster(result: dict) -> bool:
    """Whether the stage sweep's most stages came closer to the copy time than its fewest."""
    sweep = stage_sweep(result)
    return sweep[-1]["ratio"] < sweep[0]["ratio"]


def _named(name: str, rows, keys) -> dict:
    """``rows_at``'s answer: a dict of name -> row, each row holding ``keys``."""
    if not isinstance(rows, dict):
        raise TypeError(f"{name} must be a dict of name -> row (recorded.rows_at), "
                        f"got {type(rows).__name__}")
    for key, row in rows.items():
        record(f"{name}[{key!r}]", row, keys)
    return rows


def _faster_or_slower(yes: bool) -> str:
    return "faster" if yes else "slower"


def stage_summary(result: dict) -> list[str]:
    """What more stages did for persistent blocks (a sentence), then the best of each schedule
    (persistent blocks, one block per tile) of each staged variant, from the tuning: a table,
    a title and header line, then one row each."""
    sweep = stage_sweep(result)
    first, last = sweep[0], sweep[-1]
    fewest = first["config"]["stages"]
    lines = [f"- Persistent {first['name']} blocks: {first['ratio']:.2f}x the copy time with "
             f"{fewest} stage{'s' if fewest > 1 else ''}, {last['ratio']:.2f}x with "
             f"{last['config']['stages']}: more stages made it "
             f"{_faster_or_slower(more_stages_faster(result))}."]
    return lines + stage_table(result).lines()


def stage_table(result: dict) -> Table:
    """The table of :func:`stage_summary`: the best of each schedule (persistent blocks, one
    block per tile) of each staged variant in the tuning, a row each."""
    rows = []
    for (variant, persistent), r in sorted(best_by_schedule(result).items()):
        c = r["config"]
        schedule = "persistent blocks" if persistent else "one block per tile"
        rows.append([variant, schedule, f"{r['ratio']:.3f}", f"{c['tile']:d}", f"{c['threads']:d}",
                     f"{c['stages']:d}", f"{c['grid']:d}"])
    return Table("The best of each schedule in the tuning run (time over the copy time):",
                 ["variant", "schedule", "÷ copy", "tile", "threads", "stages", "blocks"], rows,
                 widths=[16, 18, 7, 6, 8, 7, 7], align="<<>>>>>")


def reading(result: dict, n: int = 2**26, k: int = 5) -> list[str]:
    """What the sweep at ``n`` and ``k`` taps says, one line each: the puzzle's kernel against
    the synchronous tile and naive loads, the fastest asynchronous variants (with those that
    tie with it, :func:`tie`) against the vec4 control and the peers."""
    at = rows_at(result, n, k)
    record(f"the rows at n = {n} with {k} taps", at, ("async_halo", "tiled_sync", "naive", "vec4"))
    _named(f"the rows at n = {n} with {k} taps", at, ("median_us", "ratio", "q1_us", "q3_us"))
    best = best_async(at)
    tied = [v for v in V.names(asynchronous=True, correct=True)
            if v in at and v != best and tie(at[v], at[best])]
    who = (f"variants, {listed([best, *tied])} (a tie), take" if tied
           else f"variant, {best}, takes")

    def times(rows, name):
        return f"{rows[name]['ratio']:.2f}x"

    lines = [f"- The puzzle's one-stage async tile (async_halo) takes {times(at, 'async_halo')} the "
             f"copy time: {_faster_or_slower(faster(at, 'async_halo', 'tiled_sync'))} than the "
             f"synchronous tile ({times(at, 'tiled_sync')}), "
             f"{_faster_or_slower(faster(at, 'async_halo', 'naive'))} than naive loads "
             f"({times(at, 'naive')}).",
             f"- The fastest asynchronous {who} {times(at, best)}; plain float4 loads into "
             f"registers (vec4) take {times(at, 'vec4')}."]
    for peer in peers(at):
        speedup = at[peer]["median_us"] / at[best]["median_us"]
        lines.append(f"- {best} is {speedup:.2f}x faster than {peer}." if speedup >= 1 else
                     f"- {best} is {1 / speedup:.2f}x slower than {peer}.")
    return lines


def what_won(result: dict, variant: str = "pipelined", k: int = 5) -> str:
    """What the tuning chose for ``variant`` and how that differs from async_halo: the sentence
    notebook 04 prints under the stage sweep."""
    record("result", result, ("configs",))
    variant, k = choice("variant", variant, tuple(result["configs"])), integer("k (taps)", k, 1)
    record(f"result['configs'][{variant!r}]", result["configs"][variant],
           ("tile", "threads", "stages", "persistent"))
    c = result["configs"][variant]
    stages = ("one block per tile, so no tile of a block is in flight while it computes another"
              if not c["persistent"] else f"persistent blocks with {c['stages']} stage(s)")
    return (f"The tuned {variant}: tile {c['tile']}, {c['threads']} threads, {c['stages']} "
            f"stage(s), {stages}. What it has that async_halo lacks is everything but stages: "
            f"16-byte copies (a quarter of the copy instructions), a tile of {c['tile']} floats "
            f"instead of 256 (fewer blocks, fewer barriers per byte), 4 outputs per thread from "
            f"a window in registers (fewer shared-memory loads), and many resident blocks whose "
            f"copies are in flight together.")


def ncu_reading(profile: dict, n: int = 2**26) -> list[str]:
    """What a recorded Nsight Compute profile (:func:`ncu_summary`) at ``n`` outputs says, one
    line each: bytes read and written against x and y, and what limits async_halo."""
    _profile("profile", profile, ("dram__bytes_read.sum", "dram__bytes_write.sum"))
    n = integer("n", n, 1)
    mb = 4 * n / 1e6
    read = [m["dram__bytes_read.sum"] for m in profile.values()]
    written = [m["dram__bytes_write.sum"] for m in profile.values()]
    lines = [f"- DRAM read: {min(read):.1f}-{max(read):.1f} MB per kernel, for the {mb:.1f} MB of "
             "x: every kernel reads its input once; none loses time to extra bytes.",
             f"- DRAM written while the kernel runs: {min(written):.1f}-{max(written):.1f} MB, for "
             f"the {mb:.1f} MB of y. The rest, up to {mb - min(written):.1f} MB, is presumably "
             "still in the L2 cache (which writes back) when the kernel ends, and reaches DRAM "
             "after it."]
    halo, pipe = profile.get("conv1d_async_halo"), profile.get("conv1d_pipelined")
    if halo and pipe:
        def ratio(metric):
            return halo[metric] / pipe[metric]
        lines.append(
            f"- async_halo executes {ratio('smsp__inst_executed.sum'):.1f}x the instructions of "
            f"pipelined and {ratio('l1tex__data_pipe_lsu_wavefronts_mem_shared.sum'):.1f}x its "
            f"shared-memory wavefronts; the busiest unit of its SMs runs at "
            f"{halo['sm__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}% of its peak "
            f"(sm__throughput) while DRAM runs at "
            f"{halo['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}% of its own "
            f"(pipelined: {pipe['sm__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}% and "
            f"{pipe['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}%): far more "
            "instructions and shared-memory accesses per byte — 4-byte copies, one output per "
            "thread — and, with its tile of 256, little requested per block at a time "
            "(tile_effect).")
    return lines


def _profile(name: str, profile, metrics) -> dict:
    """A profile (:func:`ncu_summary`): a non-empty dict of kernel -> {metric: value}, each
    kernel with ``metrics``."""
    if not isinstance(profile, dict):
        raise TypeError(f"{name} must be a dict of kernel -> metrics (recorded.ncu_summary()), "
                        f"got {type(profile).__name__}")
    if not profile:
        raise ValueError(f"{name} is empty: no kernel was profiled")
    for kernel, values in profile.items():
        record(f"{name}[{kernel!r}]", values, metrics)
    return profile


# --- which variants a recording must hold ---------------------------------------------------

def _instant(stamp, what: str) -> datetime.datetime:
    """An ISO 8601 time with its UTC offset."""
    try:
        when = datetime.datetime.fromisoformat(text(what, stamp))
    except ValueError:
        raise ValueError(f"{what} must be an ISO 8601 time such as 2026-11-29T16:00:00+00:00, "
                         f"got {stamp!r}") from None
    if when.tzinfo is None:
        raise ValueError(f"{what} must say its UTC offset (+00:00), got {stamp!r}")
    return when


def variants_expected(result: dict) -> tuple[str, ...]:
    """The registry's variants a recording must hold: every one but those added to the registry
    (:attr:`kernels.variants.Variant.added`) after the recording was made (its provenance's
    ``date``)."""
    record("result", result, ("provenance",))
    made = _instant(result["provenance"].get("date"), "the recording's provenance date")
    return tuple(v.name for v in V.VARIANTS
                 if v.added is None or _instant(v.added, f"{v.name}'s added") <= made)


def check_variants(result: dict, names) -> tuple[str, ...]:
    """Raise ``ValueError`` naming each variant ``names`` (what the recording holds) lacks but
    :func:`variants_expected` says it must hold; return those it may lack, the variants added
    after it was recorded, so that a caller can say so."""
    if isinstance(names, str) or not isinstance(names, (list, tuple, set, frozenset)):
        raise TypeError(f"names must be a list or set of variant names (what the recording "
                        f"holds), got {type(names).__name__} {names!r:.60}")
    names = set(text(f"names' {v!r}", v) for v in names)
    expected = variants_expected(result)
    missing = [v for v in expected if v not in names]
    if missing:
        raise ValueError(f"the recording of {result['provenance']['date']} lacks "
                         f"{', '.join(missing)}, which the registry held when it was made: "
                         f"re-record it ({result['provenance'].get('command', 'its command')})")
    return tuple(v for v in V.NAMES if v not in expected and v not in names)


# --- the roofline across K (python -m kernels.measure.roofline) -------------------------------------
# A roofline recording (kernels.measure.roofline.run): its provenance, the FMA rate ("fma"), the seed
# size ("seed"), the copies, and "rows": per (variant, n, k) the fastest configuration, its
# median_us, q1_us, q3_us, copy_us, fma_us, bound_us (the larger), ratio (to the bound),
# copy_ratio, limit ("copy" or "fma"), config and every configuration "tried".

def _timed(name: str, row) -> dict:
    record(name, row, ("name", "median_us", "q1_us", "q3_us"))
    return row


# Medians of the same configuration differ by up to about 3% from one run to another (in
# h200_bench.json pipelined's one-stage persistent configuration, timed in the tuning and again
# in the stage sweep: 152.3 and 148.1 µs; the same kernels in h200_bench and h200_roofline: 3%
# apart), more than one run's interquartile range. A difference below this is no winner.
RUN_TO_RUN = 0.04


def tie(a: dict, b: dict, drift: float = RUN_TO_RUN) -> bool:
    """Whether two timed rows are a tie: their interquartile ranges [q1, q3] overlap (the
    noise within a run), or their medians differ by less than ``drift`` (the noise between
    runs, :data:`RUN_TO_RUN`)."""
    a, b = _timed("a", a), _timed("b", b)
    drift = number("drift", drift, lo=0)
    overlap = a["q1_us"] <= b["q3_us"] and b["q1_us"] <= a["q3_us"]
    return overlap or max(a["median_us"], b["median_us"]) < (1 + drift) * min(
        a["median_us"], b["median_us"])


def compare(a: dict, b: dict) -> str:
    """The name of the faster of two timed rows (by median), or "tie" (:func:`tie`)."""
    if tie(a, b):
        return "tie"
    return a["name"] if a["median_us"] < b["median_us"] else b["name"]


def _roofline(rec) -> dict:
    record("rec", rec, ("rows", "provenance", "fma"))
    valid_rows("rec['rows']", rec["rows"], ("name", "n", "k", "median_us", "q1_us", "q3_us"))
    return rec


def roofline_rows(rec: dict, n: int) -> dict[str, list[dict]]:
    """The roofline rows at ``n`` outputs, by variant (in the order measured), fewest taps
    first; ``ValueError`` when the recording has none at ``n``."""
    _roofline(rec)
    n = integer("n", n, 1)
    found = {}
    for r in rec["rows"]:
        if r["n"] == n:
            found.setdefault(r["name"], []).append(r)
    if not found:
        raise ValueError(f"the recording has no rows at n = {n}: it has n = "
                         f"{', '.join(map(str, sorted({r['n'] for r in rec['rows']})))}")
    return {name: sorted(rows, key=lambda r: r["k"]) for name, rows in found.items()}


def best_per_k(rec: dict, n: int, variants) -> dict[int, dict]:
    """At ``n`` outputs, for each K where at least one of ``variants`` was measured, the row of
    the fastest of them (by median), fewest taps first."""
    variants = [V.get(v).name for v in sequence("variants", variants, "variant names")]
    best = {}
    for name, rows in roofline_rows(rec, n).items():
        if name in variants:
            for r in rows:
                if r["k"] not in best or r["median_us"] < best[r["k"]]["median_us"]:
                    best[r["k"]] = r
    return dict(sorted(best.items()))


@dataclass(frozen=True)
class Verdict:
    """The fastest asynchronous variant against the synchronous control at one (n, K)."""

    n: int
    k: int
    best_async: str
    control: str
    winner: str          # "async", "sync" or "tie" (:func:`tie`)
    speedup: float       # the slower median over the faster (1.0 or more)
    async_row: dict
    control_row: dict
    tied: tuple = ()     # other asynchronous variants that tie with best_async
    matched: str = ""    # "" (each tuned), or the configuration both ran in

    def sentence(self) -> str:
        a, c = self.async_row, self.control_row
        name = self.best_async + (f" (tied with {listed(self.tied)})" if self.tied else "")
        how = f" in the same configuration ({self.matched})" if self.matched else ", each tuned"

        def timed(r):   # the median and the interquartile range
            return f"{r['median_us']:.1f} µs [{r['q1_us']:.1f}-{r['q3_us']:.1f}]"
        if self.winner == "tie":
            return (f"K = {self.k}{how}: a tie, {name} {timed(a)} and {self.control} "
                    f"{timed(c)}.")
        fast, slow = ((name, a), (self.control, c)) if self.winner == "async" else (
            (self.control, c), (name, a))
        return (f"K = {self.k}{how}: {fast[0]} {timed(fast[1])} is {self.speedup:.2f}x faster "
                f"than {slow[0]} {timed(slow[1])}.")


def _same_config(row: dict, tile: int, threads: int) -> dict | None:
    """Of a roofline row's tuning (``tried``), the configuration with ``tile`` and ``threads``,
    one block per tile and one stage (or no stages), as a timed row; None if it was not
    tried."""
    for t in row.get("tried", []):
        c = t["config"]
        if (c["tile"] == tile and c["threads"] == threads and not c.get("persistent")
                and c.get("stages") in (None, 1)):
            return dict(t, name=row["name"])
    return None


def async_vs_sync(rec: dict, n: int, k: int, control: str = "staged_sync",
                  matched: bool = False) -> Verdict:
    """At ``n`` outputs and ``k`` taps: the fastest correct asynchronous variant against the
    synchronous ``control``; which is faster, or "tie" (:func:`tie`), and by how much (slower
    median over faster). ``matched``: each asynchronous variant in the control's own
    configuration (its tile, one block per tile, one stage), so that only the copy differs;
    otherwise each in its tuned configuration."""
    control = V.get(control).name
    if V.get(control).asynchronous:
        raise ValueError(f"control must be a synchronous variant, not {control} "
                         f"({V.get(control).copy})")
    matched = flag("matched", matched)
    at = rows_at(_roofline(rec), integer("n", n, 1), integer("k (taps)", k, 1))
    if control not in at:
        raise ValueError(f"the recording has no {control} row at n = {n} with {k} taps")
    c = at[control]
    candidates = {v: at[v] for v in V.names(asynchronous=True, correct=True) if v in at}
    how = ""
    if matched:
        tile, threads = c["config"]["tile"], c["config"]["threads"]
        candidates = {v: r for v, r in ((v, _same_config(r, tile, threads))
                                        for v, r in candidates.items()) if r is not None}
        how = f"tile {tile}, {threads} threads, one block per tile, one stage"
    if not candidates:
        raise ValueError(f"no asynchronous variant at n = {n} with {k} taps"
                         + (f" was tried in {how}" if matched else ""))
    best = min(candidates, key=lambda v: candidates[v]["median_us"])
    a = candidates[best]
    tied = tuple(v for v, r in candidates.items() if v != best and tie(r, a))
    winner = {"tie": "tie", best: "async", control: "sync"}[compare(a, c)]
    speedup = max(a["median_us"], c["median_us"]) / min(a["median_us"], c["median_us"])
    return Verdict(n, k, best, control, winner, speedup, a, c, tied, how)


def launch_overhead(rec: dict) -> dict[str, float]:
    """From the seed size's rows (graph replay, 64 blocks): for each kernel, the share of its
    per-launch time that an empty kernel's launch with the same grid takes."""
    seed = record("rec['seed']", _roofline(rec).get("seed"), ("rows",))
    rows = {r["name"]: r for r in seed["rows"]}
    if "empty" not in rows:
        raise ValueError("the seed size has no empty kernel's row")
    empty = rows["empty"]["median_us"]
    return {name: empty / r["median_us"] for name, r in rows.items()
            if name not in ("empty", "copy")}


def roofline_table(rec: dict, n: int = 2**26) -> Table:
    """The roofline at ``n`` outputs, one column per K (narrow enough for the page): the copy
    and FMA times, then each variant's time over the bound, a row each (``*``: the FMAs bound
    it, not the copy; blank: not measured). A :class:`kernels.tables.Table`: ``str`` of it is
    the fixed-width text."""
    by_variant = roofline_rows(rec, n)
    valid_rows("rec['rows']", rec["rows"], ("ratio", "copy_us", "fma_us", "limit"))
    ks = sorted({r["k"] for rows in by_variant.values() for r in rows})
    cell = {(r["name"], r["k"]): r for rows in by_variant.values() for r in rows}
    names = list(by_variant)
    some = {k: next(cell[v, k] for v in names if (v, k) in cell) for k in ks}

    rows = [["copy µs", *(f"{some[k]['copy_us']:.1f}" for k in ks)],
            ["FMA µs", *(f"{some[k]['fma_us']:.1f}" + ("*" if some[k]["limit"] == "fma" else "")
                         for k in ks)]]
    for v in names:
        rows.append([v, *(f"{cell[v, k]['ratio']:.2f}" if (v, k) in cell else "" for k in ks)])
    return Table(f"n = 2^{int(np.log2(n))} on {rec['provenance'].get('device')}: time over the "
                 "bound, max(copy, FMA time)", ["K", *(str(k) for k in ks)], rows,
                 widths=[17] + [7] * len(ks), align="<" + ">" * len(ks), sep="", strip=True)


def control_reading(profile: dict, control: str = "staged_sync",
                    asynchronous=("pipelined", "bulk"), rec: dict | None = None,
                    n: int = 2**26, k: int = 31) -> list[str]:
    """What a recorded Nsight Compute profile (:func:`ncu_summary`, e.g. the roofline's at
    K = 31) says of the synchronous ``control`` against the ``asynchronous`` variants, one line
    each: about the same work (instructions, waiting loops included), the long-scoreboard stalls
    (per output, :func:`stall_per_output`,
    since the kernels execute different numbers of instructions), and the warp slots in use
    beside what the registers allow (:func:`occupancy`, from the roofline recording ``rec`` at
    ``n`` and ``k``; without ``rec``, the line gives the measured slots only)."""
    control = V.get(control).name
    asynchronous = tuple(V.get(v).name for v in sequence("asynchronous", asynchronous,
                                                          "variant names"))
    _profile("profile", profile, ())
    for v in (control, *asynchronous):
        if V.get(v).kernel not in profile:
            raise ValueError(f"profile has no {V.get(v).kernel!r}: {v} was not profiled")

    def m(variant, metric):
        return profile[V.get(variant).kernel][metric]
    inst, smem = "smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
    dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
    active = "sm__warps_active.avg.pct_of_peak_sustained_active"
    names = (control, *asynchronous)
    stalls = stall_per_output(profile, names, n)

    def each(metric, fmt):
        return ", ".join(f"{v} {fmt(m(v, metric))}" for v in names)
    lines = [
        f"- About the same work: instructions executed {each(inst, lambda x: f'{x / 1e6:.1f}M')} "
        "(loops that poll a barrier until a copy lands count too, so not all of it is work); "
        f"shared-memory wavefronts {each(smem, lambda x: f'{x / 1e6:.1f}M')}.",
        "- Warp-cycles stalled on a long scoreboard (waiting for an L1TEX result: global, local "
        "or texture memory) per output, " + ", ".join(f"{v} {stalls[v]:.1f}" for v in names)
        + f"; DRAM at {each(dram, lambda x: f'{x:.0f}%')} of its peak."]
    if rec is None:
        lines.append(f"- Warp slots in use: {each(active, lambda x: f'{x:.0f}%')} of what an SM "
                     "can hold.")
    else:
        occ = occupancy(rec, n, k, names)
        lines.append(
            "- Warp slots in use: " + ", ".join(
                f"{v} {m(v, active):.0f}% (registers allow {100 * occ[v]['warp_share']:.0f}%: "
                f"{occ[v]['regs']} registers per thread, {occ[v]['blocks_per_sm']} blocks per SM)"
                for v in names) + ".")
    return lines


# A warp scheduler issues at most one instruction per cycle, so a kernel's issue-active cycles
# are about its instructions executed: the per-issue stall ratio times the instructions is the
# warp-cycles stalled, a total that compares kernels that execute different instruction counts.
LONG_SCOREBOARD = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"


def stall_per_output(profile: dict, variants, n: int = 2**26,
                     metric: str = LONG_SCOREBOARD) -> dict[str, float]:
    """Warp-cycles stalled per output, by variant: ``metric`` (stalled warps per issue-active
    cycle) times the instructions executed (about the issue-active cycles) over ``n`` outputs."""
    _profile("profile", profile, ())
    n = integer("n", n, 1)
    out = {}
    for v in sequence("variants", variants, "variant names"):
        m = record(f"profile[{V.get(v).kernel!r}]", profile.get(V.get(v).kernel),
                   (metric, "smsp__inst_executed.sum"))
        out[V.get(v).name] = m[metric] * m["smsp__inst_executed.sum"] / n
    return out


# Resident warps an SM can hold: 64 from sm_80 on (sm_75: 32), CUDA C++ Programming Guide,
# "Technical Specifications per Compute Capability".
MAX_WARPS_PER_SM = 64


def occupancy(rec: dict, n: int, k: int, variants) -> dict[str, dict]:
    """From a roofline recording's rows at (n, K): each variant's registers per thread, blocks
    per SM (as CuPy reported them for its tuned configuration), warps per block (a producer
    warp counted) and the share of an SM's warp slots those blocks fill."""
    at = rows_at(_roofline(rec), integer("n", n, 1), integer("k (taps)", k, 1))
    out = {}
    for v in sequence("variants", variants, "variant names"):
        v = V.get(v).name
        if v not in at:
            raise ValueError(f"the recording has no {v} row at n = {n} with {k} taps")
        c = record(f"the {v} row's config", at[v]["config"], ("threads", "regs", "blocks_per_sm"))
        warps = -(-c["threads"] // 32) + (1 if V.get(v).producer_warp else 0)
        out[v] = {"regs": c["regs"], "blocks_per_sm": c["blocks_per_sm"], "warps_per_block": warps,
                  "warp_share": c["blocks_per_sm"] * warps / MAX_WARPS_PER_SM}
    return out


def one_output_kernels(profile: dict, a: str = "async_halo", b: str = "tiled_sync") -> dict:
    """Two one-output-per-thread kernels in a profile: ``a``'s instructions and shared-memory
    wavefronts over ``b``'s, and each one's SM throughput (% of peak)."""
    _profile("profile", profile, ())
    ma, mb = (record(f"profile[{V.get(v).kernel!r}]", profile.get(V.get(v).kernel),
                     ("smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                      "sm__throughput.avg.pct_of_peak_sustained_elapsed")) for v in (a, b))
    sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    return {"instructions": ma["smsp__inst_executed.sum"] / mb["smsp__inst_executed.sum"],
            "wavefronts": (ma["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]
                           / mb["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]),
            "sm_a": ma[sm], "sm_b": mb[sm]}


# HBM3e peak of the H200: 4.8 TB/s (NVIDIA H200 Tensor Core GPU datasheet,
# nvidia.com/en-us/data-center/h200/).
H200_HBM_TBPS = 4.8


def copy_share_of_peak(result: dict, n: int = 2**26, k: int = 5,
                       peak_tbps: float = H200_HBM_TBPS) -> float:
    """The recorded copy's rate at (n, K) (GB/s, reading and writing) over a datasheet peak."""
    copy = record("the copy row", rows_at(result, n, k).get("copy"), ("gbps",))
    return copy["gbps"] / 1e3 / number("peak_tbps", peak_tbps, lo=0)


def bytes_in_flight(row: dict, multiprocessors: int) -> float:
    """Bytes of input one SM has requested but not yet consumed while its blocks wait for a
    tile, for persistent blocks (all resident at once): blocks per SM x stages (the tile waited
    for and the ``stages - 1`` requested after it) x bytes per tile buffer (``layout.span``
    floats: the tile and its halos in whole 16-byte chunks)."""
    record("row", row, ("config", "k"))
    c = record("row['config']", row["config"], ("grid", "stages", "tile"))
    multiprocessors = integer("multiprocessors", multiprocessors, 1)
    integer("row['k']", row["k"], 1), integer("row['config']['grid']", c["grid"], 1)
    integer("row['config']['stages']", c["stages"], 1), valid_tile(c["tile"])
    if not c.get("persistent", True):
        raise ValueError("bytes_in_flight needs persistent blocks: with one block per tile, how "
                         "many are resident depends on occupancy, not on the grid")
    blocks_per_sm = c["grid"] / multiprocessors
    return blocks_per_sm * c["stages"] * layout.span(c["tile"], row["k"]) * 4


def littles_law(result: dict, latency_us: float = 1.0) -> dict:
    """Little's law for the stage sweep: the bytes of input one SM must have requested to
    sustain the copy's read rate (half its GB/s, which counts reads and writes) across
    ``latency_us`` (an assumed DRAM latency under load, not measured here), beside the input
    persistent blocks have in flight at each stage count (:func:`bytes_in_flight`), and the
    latency up to which one stage's bytes suffice (``"enough_up_to_us"``)."""
    record("result", result, ("provenance", "stage_sweep"))
    sms = integer("multiprocessors", result["provenance"]["multiprocessors"], 1)
    sweep = stage_sweep(result)
    copy = rows_at(result, sweep[0]["n"], sweep[0]["k"])["copy"]
    reads_per_sm = copy["gbps"] / 2 * 1e9 / sms    # bytes per second: x is half the traffic
    needed = reads_per_sm * number("latency_us", latency_us, lo=0) * 1e-6
    in_flight = {r["config"]["stages"]: bytes_in_flight(r, sms) for r in sweep}
    return {"needed": needed, "copy_gbps": copy["gbps"], "in_flight": in_flight,
            "enough_up_to_us": in_flight[min(in_flight)] / reads_per_sm * 1e6,
            "ratio": {r["config"]["stages"]: r["ratio"] for r in sweep}}


def verdicts(rec: dict, n: int = 2**26, matched: bool = False) -> dict[int, Verdict]:
    """:func:`async_vs_sync` at every K the control was measured at, fewest taps first."""
    taps = sorted({r["k"] for r in _roofline(rec)["rows"] if r["name"] == "staged_sync"
                   and r["n"] == n})
    return {k: async_vs_sync(rec, n, k, matched=matched) for k in taps}


def matched_agrees(rec: dict, n: int = 2**26) -> bool:
    """Whether, at every K, the matched comparison (the control's own configuration) and the
    tuned one name the same winner with the same speedup (to 0.5%)."""
    a, b = verdicts(rec, n, matched=True), verdicts(rec, n)
    return all(a[k].winner == b[k].winner and abs(a[k].speedup - b[k].speedup) < 0.005 for k in a)


def ties_fastest(rec: dict, n: int, variant: str) -> list[int]:
    """The K (of the control's, :func:`verdicts`) at which ``variant`` ties the fastest kernel of
    the roofline recording at ``n`` outputs (:func:`tie`), fewest taps first."""
    variant = V.get(variant).name
    out = []
    for k in verdicts(rec, n):
        at = rows_at(rec, n, k)
        if variant in at and tie(at[variant], min(at.values(), key=lambda r: r["median_us"])):
            out.append(k)
    return out


def _ratios(rows) -> str:
    """Rows' ratios to the bound as a range, "1.00-1.01x", or one value, "1.01x"."""
    lo, hi = min(r["ratio"] for r in rows), max(r["ratio"] for r in rows)
    return f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}x"


def _config_words(c: dict) -> str:
    """A tuned configuration in words: its tile, stages and schedule."""
    stages = c.get("stages") or 1
    return (f"tile {c['tile']}, " + ("one stage" if stages == 1 else f"{stages} stages") + ", "
            + ("persistent blocks" if c.get("persistent") else "one block per tile"))


def lesson_numbers(rec: dict, n: int = 2**26) -> dict[str, str]:
    """The roofline recording's numbers for "what to reach for", as text for the page: the
    largest K up to which plain float4 loads (``vec4_up_to``) and synchronous staging
    (``sync_up_to``) tie the fastest kernel (from the fewest taps on), the first K where the
    asynchronous kernels beat the control (``first_async_k``), and the FMA time over the copy
    time there (``async_share``; the two times ``async_fma_us``, ``async_copy_us``) and at the largest tie below it (``tie_share``, ``tie_k``)."""
    v = verdicts(rec, n)
    taps = list(v)

    def prefix(ks):   # the K from the fewest taps on, while they are in ks
        out = []
        for k in taps:
            if k not in ks:
                break
            out.append(k)
        return out
    vec4, sync = prefix(ties_fastest(rec, n, "vec4")), prefix(ties_fastest(rec, n, "staged_sync"))
    many = [k for k in v if v[k].winner == "async"]
    if not (vec4 and sync and many):
        raise ValueError("the recording has no K where vec4 and staged_sync tie the fastest "
                         "kernel, or none where asynchrony wins")
    first = min(many)
    below = [k for k in v if k < first and v[k].winner == "tie"]
    if not below:
        raise ValueError(f"the recording has no tie below K = {first}")

    def share(k):
        r = v[k].control_row
        return r["fma_us"] / r["copy_us"]
    return {"vec4_up_to": str(max(vec4)), "sync_up_to": str(max(sync)),
            "first_async_k": str(first), "async_share": f"{share(first):.2f}",
            "async_fma_us": f"{v[first].control_row['fma_us']:.1f}",
            "async_copy_us": f"{v[first].control_row['copy_us']:.1f}",
            "tie_k": str(max(below)), "tie_share": f"{share(max(below)):.2f}"}


def lessons(result: dict, rec: dict, n: int = 2**26) -> list[str]:
    """What to reach for, and the recordings' evidence for it, one line per technique: plain
    float4 loads, synchronous 16-byte staging, cp.async, the bulk copy, more stages, a producer
    warp. Every comparison is of tuned configurations (:func:`verdicts`), unless it says
    otherwise."""
    v = verdicts(rec, n)
    sweep = stage_sweep(result)
    law = littles_law(result)
    said = lesson_numbers(rec, n)
    few = [k for k in v if v[k].winner == "sync"]
    many = [k for k in v if v[k].winner == "async"]
    ties = [k for k in v if v[k].winner == "tie"]
    rows = {k: rows_at(rec, n, k) for k in v}
    ws_ties = all(tie(rows[k]["warp_specialized"], rows[k]["bulk"]) for k in v
                  if "warp_specialized" in rows[k] and "bulk" in rows[k])
    pipe_ties = [k for k in many if "pipelined" in rows[k]
                 and tie(rows[k]["pipelined"], rows[k]["bulk"])]
    matched = verdicts(rec, n, matched=True)
    pipe_untied = [k for k in pipe_ties if "pipelined" not in (matched[k].best_async,
                                                              *matched[k].tied)]

    def ks(taps):
        return listed([str(k) for k in taps]) if taps else "none"

    def spread(taps, speedups=None):
        speedups = speedups or {k: v[k].speedup for k in taps}
        lo, hi = min(speedups[k] for k in taps), max(speedups[k] for k in taps)
        return f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}x"

    up_vec4, up_sync = int(said["vec4_up_to"]), int(said["sync_up_to"])
    later = [k for k in v if k > up_vec4 and "vec4" in rows[k]]
    vec4 = (f"- Plain float4 loads (vec4): first while the taps are few. Up to K = {up_vec4} "
            f"they tie the fastest kernel ("
            f"{_ratios([rows[k]['vec4'] for k in v if k <= up_vec4])} the bound)")
    vec4 += (f"; from K = {later[0]} their register window costs them ("
             + ", ".join(f"{rows[k]['vec4']['ratio']:.2f}x at K = {k}" for k in later) + ")."
             if later else ".")
    staged = (f"- Synchronous 16-byte staging (staged_sync): up to K = {up_sync} it ties the "
              f"fastest kernel ({_ratios([rows[k]['staged_sync'] for k in v if k <= up_sync])} "
              "the bound)" + (f"; at K = {ks(few)} it beats every asynchronous kernel by "
                              f"{spread(few)}." if few else "."))

    # cp.async against the control alone: the choice on an A100 (sm_80), which has no bulk copy
    pipe = {k: compare(rows[k]["pipelined"], rows[k]["staged_sync"]) for k in v
            if "pipelined" in rows[k]}
    pipe_speed = {k: max(rows[k]["pipelined"]["median_us"], rows[k]["staged_sync"]["median_us"])
                  / min(rows[k]["pipelined"]["median_us"], rows[k]["staged_sync"]["median_us"])
                  for k in pipe}
    won = [k for k in pipe if pipe[k] == "pipelined"]
    lost = [k for k in pipe if pipe[k] == "staged_sync"]
    cp = f"- cp.async (pipelined, sm_80 or newer): at K = {ks(pipe_ties)} it ties bulk"
    for k in pipe_untied:
        m = _same_config(rows[k]["pipelined"], matched[k].control_row["config"]["tile"],
                         matched[k].control_row["config"]["threads"])
        cp += (f" (at K = {k} in its tuned {_config_words(rows[k]['pipelined']['config'])}; in "
               f"the control's configuration it is {m['median_us'] / matched[k].async_row['median_us']:.2f}x "
               "slower than bulk)")
    cp += (". On an A100, which has no bulk copy, it is the asynchronous choice: against "
           f"staged_sync it wins at K = {ks(won)} by {spread(won, pipe_speed)}"
           + (f" and loses at K = {ks(lost)} by {spread(lost, pipe_speed)}" if lost else "")
           + ". On a T4 it compiles to plain loads.") if won else ". On a T4 it compiles to plain loads."
    bulk = (f"- The bulk copy (bulk, sm_90): with many taps. At K = {ks(many)} it beats the "
            f"control by {spread(many)}" + (f"; at K = {ks(ties)} the two tie." if ties else ".")
            + f" Asynchrony paid once the FMA time reached about half the copy time "
            f"(K = {said['first_async_k']}: {said['async_fma_us']} of {said['async_copy_us']} "
            f"µs, {said['async_share']}); at "
            f"{said['tie_share']} (K = {said['tie_k']}) it tied.")
    one_tile = tuned_one_tile(rec, n)
    ring_ties = all(tie(x, y) for k in (5, 31) if k in v
                    for x, y in ring_best(rec, n, k).values())
    producer = ("- A producer warp: when issuing the copies costs the compute warps time, which "
                "one bulk copy per tile does not. warp_specialized "
                + ("ties bulk at every K" if ws_ties else "does not tie bulk at every K")
                + (f"; tuned, at K = {ks(one_tile)} it runs one stage, one block per tile, so its "
                   "producer issues one copy and is done" + (
                       "; with a ring of stages, too, the two tie (ring_reading)." if ring_ties
                       else "; with a ring of stages they do not tie (ring_reading).")
                   if one_tile else "."))
    return [vec4, staged, cp, bulk,
            f"- More stages: only when Little's law says the bytes in flight are short. One stage "
            f"already has {law['in_flight'][sweep[0]['config']['stages']] / law['needed']:.1f}x what "
            f"the copy rate needs; {sweep[-1]['config']['stages']} stages take "
            f"{sweep[-1]['ratio']:.2f}x the copy time against {sweep[0]['ratio']:.2f}x.",
            producer]


def tuned_one_tile(rec: dict, n: int = 2**26, variant: str = "warp_specialized") -> list[int]:
    """The K at which ``variant``'s tuned configuration is one stage and one block per tile:
    each block copies one tile, so nothing runs ahead of the compute."""
    variant = V.get(variant).name
    return [r["k"] for r in roofline_rows(rec, n).get(variant, [])
            if not r["config"].get("persistent") and (r["config"].get("stages") or 1) == 1]


def ring_best(rec: dict, n: int, k: int, a: str = "warp_specialized",
              b: str = "bulk") -> dict[int, tuple[dict, dict]]:
    """From a roofline recording's tuning (``tried``) at (n, K): the fastest persistent
    configuration of ``a`` and of ``b`` (a block loops over its tiles through a ring of
    buffers, so a producer warp can run ahead) at each stage count both were tried with, as
    timed rows: stages -> (a's, b's)."""
    a, b = V.get(a).name, V.get(b).name
    at = rows_at(_roofline(rec), integer("n", n, 1), integer("k (taps)", k, 1))
    best = {}
    for v in (a, b):
        if v not in at:
            raise ValueError(f"the recording has no {v} row at n = {n} with {k} taps")
        for t in record(f"the {v} row", at[v], ("tried",))["tried"]:
            c = t["config"]
            if c.get("persistent"):
                key = (c.get("stages") or 1, v)
                if key not in best or t["median_us"] < best[key]["median_us"]:
                    best[key] = dict(t, name=v)
    stages = sorted({s for s, _ in best if (s, a) in best and (s, b) in best})
    if not stages:
        raise ValueError(f"no persistent configuration of both {a} and {b} at K = {k}")
    return {s: (best[s, a], best[s, b]) for s in stages}


def ring_reading(rec: dict, n: int = 2**26, ks=(5, 31), a: str = "warp_specialized",
                 b: str = "bulk") -> list[str]:
    """At each K of ``ks``, :func:`ring_best`: ``a`` against ``b`` at each stage count of
    persistent blocks, and whether they tie (:func:`tie`). One line per K."""
    lines = []
    for k in sequence("ks", ks, "numbers of taps"):
        ring = ring_best(rec, n, k, a, b)
        each = [f"{'one stage' if s == 1 else f'{s} stages'} {x['median_us']:.1f} against "
                f"{y['median_us']:.1f} µs" + ("" if tie(x, y) else " (no tie)")
                for s, (x, y) in ring.items()]
        every = all(tie(x, y) for x, y in ring.values())
        lines.append(f"- K = {k}, persistent blocks, {V.get(a).name} against {V.get(b).name}: "
                     + ", ".join(each) + ("; a tie at every stage count." if every else "."))
    return lines


def ncu_sync_vs_async(profile: dict, sync=("vec4", "staged_sync"),
                      asynchronous=("pipelined", "bulk", "warp_specialized")) -> dict:
    """A profile's durations (µs, its own replays) as two ranges, the ``sync`` kernels' and the
    ``asynchronous`` ones' (``"sync_us"``, ``"async_us"``), and each kernel's instructions
    executed in millions (``"inst"``: variant -> text)."""
    _profile("profile", profile, ())

    def m(v, metric):
        return record(f"profile[{V.get(v).kernel!r}]", profile.get(V.get(v).kernel),
                      (metric,))[metric]

    def span(names):
        t = [m(v, "gpu__time_duration.sum") for v in names]
        return f"{min(t):.1f}" if f"{min(t):.1f}" == f"{max(t):.1f}" else f"{min(t):.1f}-{max(t):.1f}"
    sync = sequence("sync", sync, "variant names")
    asynchronous = sequence("asynchronous", asynchronous, "variant names")
    return {"sync_us": span(sync), "async_us": span(asynchronous),
            "inst": {V.get(v).name: f"{m(v, 'smsp__inst_executed.sum') / 1e6:.1f}M"
                     for v in (*sync, *asynchronous)}}


def tile_effect(rec: dict, variant: str = "async_halo", n: int = 2**26, k: int = 5) -> str:
    """From a roofline recording's tuning (``tried``): ``variant``'s median time at each tile
    it was tried with at (n, K), and how much the largest tile saves over the smallest: the same
    copies, more bytes requested per block."""
    variant = V.get(variant).name
    row = rows_at(_roofline(rec), integer("n", n, 1), integer("k (taps)", k, 1)).get(variant)
    if row is None:
        raise ValueError(f"the recording has no {variant} row at n = {n} with {k} taps")
    valid_rows(f"the {variant} row's 'tried'", record(f"the {variant} row", row, ("tried",))["tried"],
               ("config", "median_us"))
    by_tile = {t["config"]["tile"]: t["median_us"] for t in row["tried"]}
    small, large = min(by_tile), max(by_tile)
    return (f"- {variant} at n = 2^{int(np.log2(n))}, K = {k}, the same copies with other tiles "
            f"(roofline run): " + ", ".join(f"tile {t} {us:.1f} µs" for t, us in sorted(by_tile.items()))
            + f"; tile {large} is {by_tile[small] / by_tile[large]:.2f}x faster than tile "
            f"{small}, with {large // small}x the bytes requested per block.")


# --- printed on the page ------------------------------------------------------------------------

PAGE_CHARS = 80   # a printed line that fits the book's text column (about 85 of its code font)


def for_page(lines, width: int = PAGE_CHARS) -> str:
    """``lines`` (a string, or a list of them) as a cell prints them on the page: each wrapped
    at ``width`` characters, words unbroken, a bullet's (``- ``) continuation lines indented
    under its text. The words and numbers are the lines' own."""
    if isinstance(lines, str):
        lines = [lines]
    lines = [text(f"lines[{i}]", line) for i, line in enumerate(sequence("lines", lines, "strings"))]
    width = integer("width", width, 20)
    out = []
    for line in lines:
        for part in line.split("\n"):
            out.append(textwrap.fill(part, width, subsequent_indent="  " if part.startswith("- ")
                                     else "", break_long_words=False, break_on_hyphens=False)
                       if part.strip() else part)
    return "\n".join(out)


NCU_TABLE = (("gpu__time_duration.sum", "time µs", ".1f"),
             ("dram__bytes_read.sum", "DRAM MB read", ".1f"),
             ("dram__bytes_write.sum", "DRAM MB written", ".1f"),
             ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", ".1f"),
             ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM % of peak", ".1f"),
             ("smsp__inst_executed.sum", "instructions", ".3g"),
             ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "smem wavefronts", ".3g"))


def ncu_table(profile: dict) -> Table:
    """A recorded Nsight Compute profile (:func:`ncu_summary`) as a table for the page: one
    column per kernel, one row per metric (``NCU_TABLE``: time, DRAM bytes and throughput, SM
    throughput, instructions, shared-memory wavefronts). A :class:`kernels.tables.Table`: ``str``
    of it is the fixed-width text."""
    _profile("profile", profile, tuple(metric for metric, _, _ in NCU_TABLE))
    names = [kernel.removeprefix("conv1d_") for kernel in profile]
    return Table("", ["", *names],
                 [[label, *(f"{m[metric]:{fmt}}" for m in profile.values())]
                  for metric, label, fmt in NCU_TABLE],
                 widths=[16] + [max(9, len(name) + 1) for name in names],
                 align="<" + ">" * len(names), sep="")


# --- notebooks 04 and 05: numbers and checks for their sentences ------------------------------

def verdict_summary(rec: dict, n: int = 2**26) -> dict[str, str]:
    """The roofline answer's numbers, as text for the page: the K where the synchronous control
    wins (``sync_ks``) and by how much (``sync_range``), where they tie (``tie_ks``), where the
    asynchronous kernels win (``async_ks``, ``first_async_k``) and by how much at each
    (``async_kK``)."""
    v = verdicts(rec, n)

    def ks(which):
        return [k for k in v if v[k].winner == which]

    def spread(taps):
        if not taps:
            return "none"
        lo, hi = min(v[k].speedup for k in taps), max(v[k].speedup for k in taps)
        return f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}x"
    def named(taps):   # "3, 5 and 9": a comma-separated list would read as a tuple on the page
        return listed([str(k) for k in taps]) if taps else "none"
    out = {"sync_ks": named(ks("sync")), "sync_range": spread(ks("sync")),
           "tie_ks": named(ks("tie")), "async_ks": named(ks("async")),
           "first_async_k": str(min(ks("async"))) if ks("async") else "none"}
    for k in ks("async"):
        out[f"async_k{k}"] = f"{v[k].speedup:.2f}x"
    return out


def live_note(live: dict, result: dict, n: int = 2**26, k: int = 5) -> str:
    """Whether a live sweep agrees with what notebook 04's sentences say of the recording at
    (n, K): plain float4 loads (vec4) at least as close to the copy as every asynchronous
    variant, and naive loads faster than both tiled kernels. One sentence naming what differs."""
    def claims(rows):
        asyn = [v for v in V.names(asynchronous=True, correct=True) if v in rows]
        out = {}
        if "vec4" in rows and asyn:
            out["vec4 is at least as close to the copy as every asynchronous kernel"] = all(
                rows["vec4"]["median_us"] <= rows[v]["median_us"] or tie(
                    _timed("vec4", rows["vec4"]), _timed(v, rows[v])) for v in asyn)
        if {"naive", "tiled_sync", "async_halo"} <= set(rows):
            out["naive is faster than tiled_sync and async_halo"] = (
                faster(rows, "naive", "tiled_sync") and faster(rows, "naive", "async_halo"))
        return out
    mine, theirs = claims(rows_at(live, n, k)), claims(rows_at(result, n, k))
    device = live.get("provenance", {}).get("device", "this GPU")
    differ = [c for c in theirs if c in mine and mine[c] != theirs[c]]
    if not differ:
        return (f"On {device} the sentences above hold as on the H200 ("
                + "; ".join(c for c in theirs if c in mine) + ").")
    return (f"On {device} this differs from the H200 sentences above: "
            + "; ".join(f"{c}: {'yes' if mine[c] else 'no'} here, "
                        f"{'yes' if theirs[c] else 'no'} on the H200" for c in differ) + ".")
