"""Recorded results (``kernels/recorded/``) and what the book reads from them; no GPU needed.

A benchmark recording is what ``python -m kernels.measure.bench --out FILE.json`` writes
(:func:`kernels.measure.bench.run`): its ``provenance`` (device, driver, CuPy, date, command), the
``configs`` the tuning chose, and the ``rows`` of the sweep, the ``tuning`` and the
``stage_sweep``, each a :class:`kernels.measure.bench.Row` as a dict with its ``gbps`` and its ``ratio``
to the copy time. :func:`load` reads one back, :func:`table` prints one size of the sweep
(Nsight Compute profiles: :mod:`kernels.measure.nsight`).

A roofline recording is what ``python -m kernels.measure.roofline --out FILE.json`` writes (the
section "the roofline across K" below reads it, with noise-aware comparisons: :func:`tie`).
:func:`variants_expected` says which variants a recording must hold (those the registry had
when it was made).

The rest answers the questions notebooks 04 and 05 ask of a recording (which variant comes closest
to the copy, which of two is faster, whether more stages helped), so that what the book says is
computed from the numbers, and tested, instead of decided in a notebook cell; the chapters' tables
and words are in :mod:`kernels.teach.bandwidth` and :mod:`kernels.teach.bound`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from .. import layout, variants as V
from ..edition import power_of_two
from ..files import read_json
from ..tables import Table
from ..validate import choice, record, rows as valid_rows

RECORDED = Path(__file__).resolve().parents[1] / "recorded"   # kernels/recorded/


# What a recording's lists of rows hold, checked once where it is read (:func:`load`): the
# functions below take a loaded recording as it is.
ROWS = {"rows": ("name", "n", "k", "median_us", "q1_us", "q3_us", "config"),
        "tuning": ("name", "n", "k", "median_us", "ratio", "config"),
        "stage_sweep": ("name", "n", "k", "median_us", "ratio", "gbps", "config"),
        "overhead": ("variant", "n", "plain_us", "traced_us")}


def load(name: str = "h200_bench") -> dict:
    """A recording (kernels/recorded/NAME.json), with its provenance; a corrupted file is
    named in the error (its path, line and column), and so is a row that lacks a key."""
    name = choice("recording", name, sorted(p.stem for p in RECORDED.glob("*.json")))
    return checked(name, read_json(RECORDED / f"{name}.json"))


def checked(name: str, data) -> dict:
    """``data``, a recording read from ``name``, once its provenance and rows are checked."""
    record(name, data, ("provenance",))
    record(f"{name}['provenance']", data["provenance"], ("device", "date"))
    for key, keys in ROWS.items():
        if key in data:
            valid_rows(f"{name}[{key!r}]", data[key], keys)
    return data


def table(result: dict, n: int = 2**26, k: int = 5) -> Table:
    """The sweep at one (n, K) with K taps, fastest first: median time, GB/s and time over the
    copy time, in English (what the command line prints; chapter 04 shows it in both languages:
    :func:`kernels.teach.bandwidth.table`)."""
    rows = sorted(rows_at(result, n, k).values(), key=lambda r: r["median_us"])
    at, device = f"N = {power_of_two(n)}, K = {k}", result["provenance"].get("device")
    return Table(f"{at} on {device}", ["", "median µs", "GB/s", "÷ copy"],
                 [[r["name"], f"{r['median_us']:.1f}", f"{r['gbps']:.0f}", f"{r['ratio']:.2f}"]
                  for r in rows],
                 widths=[28, 10, 8, 7], align="<>>>")


def best_by_schedule(result: dict) -> dict:
    """From a recording's tuning rows: the fastest row of each staged variant with persistent
    blocks and with one block per tile, as {(variant, persistent): row}. Fastest by median
    time, as :func:`kernels.measure.bench.tune` chose (a ratio would carry each row's own copy time,
    whose run-to-run noise is larger than some of the differences)."""
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
    rows = {r["name"]: r for r in result["rows"] if r["n"] == n and r["k"] == k}
    if not rows:
        raise ValueError(f"the recording has no rows at n = {n} with {k} taps")
    return rows


def best_async(rows: dict[str, dict]) -> str:
    """Of the correct asynchronous variants among ``rows``, the one closest to the copy time."""
    candidates = [v for v in V.names(asynchronous=True, correct=True) if v in rows]
    if not candidates:
        raise ValueError("no asynchronous variant among the rows")
    return min(candidates, key=lambda v: rows[v]["ratio"])


def stage_sweep(result: dict) -> list[dict]:
    """The stage sweep's rows (persistent blocks), fewest stages first."""
    return sorted(result["stage_sweep"], key=lambda r: r["config"]["stages"])


# --- which variants a recording must hold ---------------------------------------------------

def _instant(stamp, what: str) -> datetime.datetime:
    """An ISO 8601 time with its UTC offset."""
    try:
        when = datetime.datetime.fromisoformat(stamp)
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
    made = _instant(result["provenance"].get("date"), "the recording's provenance date")
    return tuple(v.name for v in V.VARIANTS
                 if v.added is None or _instant(v.added, f"{v.name}'s added") <= made)


# --- the roofline across K (python -m kernels.measure.roofline) -------------------------------------
# A roofline recording (kernels.measure.roofline.run): its provenance, the FMA rate ("fma"), the seed
# size ("seed"), the copies, and "rows": per (variant, n, k) the fastest configuration, its
# median_us, q1_us, q3_us, copy_us, fma_us, bound_us (the larger), ratio (to the bound),
# copy_ratio, limit ("copy" or "fma"), config and every configuration "tried".

# Medians of the same configuration differ by up to about 3% from one run to another (the same
# kernels recorded on different days and machines, H200, 2026-11 and 12), more than one run's
# interquartile range. A difference below this is no winner.
RUN_TO_RUN = 0.04


def tie(a: dict, b: dict, drift: float = RUN_TO_RUN) -> bool:
    """Whether two timed rows are a tie: their interquartile ranges [q1, q3] overlap (the
    noise within a run), or their medians differ by less than ``drift`` (the noise between
    runs, :data:`RUN_TO_RUN`)."""
    overlap = a["q1_us"] <= b["q3_us"] and b["q1_us"] <= a["q3_us"]
    return overlap or max(a["median_us"], b["median_us"]) < (1 + drift) * min(
        a["median_us"], b["median_us"])


def compare(a: dict, b: dict) -> str:
    """The name of the faster of two timed rows (by median), or "tie" (:func:`tie`)."""
    if tie(a, b):
        return "tie"
    return a["name"] if a["median_us"] < b["median_us"] else b["name"]


def roofline_rows(rec: dict, n: int) -> dict[str, list[dict]]:
    """The roofline rows at ``n`` outputs, by variant (in the order measured), fewest taps
    first; ``ValueError`` when the recording has none at ``n``."""
    found = {}
    for r in rec["rows"]:
        if r["n"] == n:
            found.setdefault(r["name"], []).append(r)
    if not found:
        raise ValueError(f"the recording has no rows at n = {n}: it has n = "
                         f"{', '.join(map(str, sorted({r['n'] for r in rec['rows']})))}")
    return {name: sorted(rows, key=lambda r: r["k"]) for name, rows in found.items()}


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
    at = rows_at(rec, n, k)
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
    rows = {r["name"]: r for r in rec["seed"]["rows"]}
    if "empty" not in rows:
        raise ValueError("the seed size has no empty kernel's row")
    empty = rows["empty"]["median_us"]
    return {name: empty / r["median_us"] for name, r in rows.items()
            if name not in ("empty", "copy")}


def roofline_table(rec: dict, n: int = 2**26) -> Table:
    """The roofline at ``n`` outputs, one column per K (narrow enough for the page): the copy
    and FMA times, then each variant's time over the bound, a row each (``*``: the FMAs bound
    it, not the copy; blank: not measured), in English (chapter 05 shows it in both languages:
    :func:`kernels.teach.bound.roofline_table`)."""
    by_variant = roofline_rows(rec, n)
    ks = sorted({r["k"] for rows in by_variant.values() for r in rows})
    cell = {(r["name"], r["k"]): r for rows in by_variant.values() for r in rows}
    names = list(by_variant)
    some = {k: next(cell[v, k] for v in names if (v, k) in cell) for k in ks}

    rows = [["copy µs", *(f"{some[k]['copy_us']:.1f}" for k in ks)],
            ["FMA µs", *(f"{some[k]['fma_us']:.1f}" + ("*" if some[k]["limit"] == "fma" else "")
                         for k in ks)]]
    for v in names:
        rows.append([v, *(f"{cell[v, k]['ratio']:.2f}" if (v, k) in cell else "" for k in ks)])
    at, device = f"N = {power_of_two(n)}", rec["provenance"].get("device")
    return Table(f"{at} on {device}: time over the bound, max(copy, FMA time)",
                 ["K", *(str(k) for k in ks)], rows,
                 widths=[17] + [7] * len(ks), align="<" + ">" * len(ks), sep="", strip=True)


# Resident warps an SM can hold: 64 from sm_80 on (sm_75: 32), CUDA C++ Programming Guide,
# "Technical Specifications per Compute Capability".
MAX_WARPS_PER_SM = 64


def occupancy(rec: dict, n: int, k: int, variants) -> dict[str, dict]:
    """From a roofline recording's rows at (n, K): each variant's registers per thread, blocks
    per SM (as CuPy reported them for its tuned configuration), warps per block (a producer
    warp counted) and the share of an SM's warp slots those blocks fill."""
    at = rows_at(rec, n, k)
    out = {}
    for v in variants:
        v = V.get(v).name
        if v not in at:
            raise ValueError(f"the recording has no {v} row at n = {n} with {k} taps")
        c = at[v]["config"]
        warps = -(-c["threads"] // 32) + (1 if V.get(v).producer_warp else 0)
        out[v] = {"regs": c["regs"], "blocks_per_sm": c["blocks_per_sm"], "warps_per_block": warps,
                  "warp_share": c["blocks_per_sm"] * warps / MAX_WARPS_PER_SM}
    return out


# HBM3e peak of the H200: 4.8 TB/s (NVIDIA H200 Tensor Core GPU datasheet,
# nvidia.com/en-us/data-center/h200/).
H200_HBM_TBPS = 4.8


def copy_share_of_peak(result: dict, n: int = 2**26, k: int = 5,
                       peak_tbps: float = H200_HBM_TBPS) -> float:
    """The recorded copy's rate at (n, K) (GB/s, reading and writing) over a datasheet peak."""
    return rows_at(result, n, k)["copy"]["gbps"] / 1e3 / peak_tbps


def bytes_in_flight(row: dict, multiprocessors: int) -> float:
    """Bytes of input one SM has requested but not yet consumed while its blocks wait for a
    tile, for persistent blocks (all resident at once): blocks per SM x stages (the tile waited
    for and the ``stages - 1`` requested after it) x bytes per tile buffer (``layout.span``
    floats: the tile and its halos in whole 128-byte lines)."""
    c = row["config"]
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
    sms = result["provenance"]["multiprocessors"]
    sweep = stage_sweep(result)
    copy = rows_at(result, sweep[0]["n"], sweep[0]["k"])["copy"]
    reads_per_sm = copy["gbps"] / 2 * 1e9 / sms    # bytes per second: x is half the traffic
    needed = reads_per_sm * latency_us * 1e-6
    in_flight = {r["config"]["stages"]: bytes_in_flight(r, sms) for r in sweep}
    return {"needed": needed, "copy_gbps": copy["gbps"], "in_flight": in_flight,
            "enough_up_to_us": in_flight[min(in_flight)] / reads_per_sm * 1e6,
            "ratio": {r["config"]["stages"]: r["ratio"] for r in sweep}}


def verdicts(rec: dict, n: int = 2**26, matched: bool = False) -> dict[int, Verdict]:
    """:func:`async_vs_sync` at every K the control was measured at, fewest taps first."""
    taps = sorted({r["k"] for r in rec["rows"] if r["name"] == "staged_sync"
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


def tuned_one_tile(rec: dict, n: int = 2**26, variant: str = "warp_specialized") -> list[int]:
    """The K at which ``variant``'s tuned configuration is one stage and one block per tile:
    each block copies one tile, so nothing runs ahead of the compute."""
    variant = V.get(variant).name
    return [r["k"] for r in roofline_rows(rec, n).get(variant, [])
            if not r["config"].get("persistent") and (r["config"].get("stages") or 1) == 1]


# What notebook 04 reads besides: the configuration of the table's one-output kernels, the
# bytes they keep in flight, what asynchrony costs against the synchronous control, the gap
# between the two schedules at one stage, and the drift between two recordings.

def configuration(rows: dict[str, dict], names) -> dict:
    """The tile, threads and blocks per SM that the rows of ``names`` (from
    :func:`recorded.rows_at`) share; ``ValueError`` if they differ or one is missing."""
    names = tuple(names)
    if not names:
        raise ValueError("name at least one row")
    missing = [n for n in names if n not in rows]
    if missing:
        raise ValueError(f"no row for {', '.join(missing)}")
    seen = {(rows[n]["config"]["tile"], rows[n]["config"]["threads"],
             rows[n]["config"]["blocks_per_sm"]) for n in names}
    if len(seen) != 1:
        raise ValueError(f"{', '.join(names)} ran in different configurations: {sorted(seen)}")
    tile, threads, blocks = seen.pop()
    return {"tile": tile, "threads": threads, "blocks_per_sm": blocks}


def one_tile_in_flight(row: dict) -> float:
    """Bytes of input one SM has requested while its blocks wait, for a kernel that copies one
    tile and its halos (tile + K - 1 floats, 4 bytes each) per block and waits for it: blocks
    resident per SM x that tile's bytes (the one-output kernels' buffer; :func:`bytes_in_flight`
    counts the staged kernels' ring, whose buffers are whole 128-byte lines)."""
    c = row["config"]
    return c["blocks_per_sm"] * (c["tile"] + row["k"] - 1) * 4


def tuned_asynchronous(result: dict) -> tuple[str, ...]:
    """The asynchronous variants the recording tuned (those in its ``configs``)."""
    return tuple(v for v in V.names(asynchronous=True) if v in result["configs"])


def against_control(result: dict, rows: dict[str, dict], control: str = "staged_sync") -> dict:
    """The control's time over the copy time beside the fastest and slowest tuned asynchronous
    variant's (``"control"``, ``"lo"``, ``"hi"``)."""
    ratios = [rows[v]["ratio"] for v in tuned_asynchronous(result) if v in rows]
    if not ratios or control not in rows:
        raise ValueError("the rows hold no tuned asynchronous variant or no control")
    return {"control": rows[control]["ratio"], "lo": min(ratios), "hi": max(ratios)}


def schedule_gap(result: dict) -> dict[str, dict]:
    """For each tuned staged variant, at its tuned tile and threads with one stage: the time over
    the copy time of persistent blocks and of one block per tile, from the tuning, where both ran
    with the same blocks per SM (so the same bytes in flight)."""
    gap = {}
    for v in result["configs"]:
        if not V.get(v).staged:
            continue
        tuned = result["configs"][v]
        found = {}
        for r in result["tuning"]:
            c = r["config"]
            if (r["name"] == v and c.get("stages") == 1 and c["tile"] == tuned["tile"]
                    and c["threads"] == tuned["threads"]):
                found[bool(c["persistent"])] = r
        if (len(found) == 2 and found[True]["config"]["blocks_per_sm"]
                == found[False]["config"]["blocks_per_sm"]):
            gap[v] = {"persistent": found[True]["ratio"], "per_tile": found[False]["ratio"],
                      "blocks_per_sm": found[True]["config"]["blocks_per_sm"]}
    return gap


def _key(row: dict) -> tuple:
    config = {k: v for k, v in row.get("config", {}).items() if k != "regs"}
    return row["name"], row["n"], row["k"], tuple(sorted(config.items()))


def drift_seen(a: dict, b: dict) -> float:
    """The largest relative difference between the median times of the same kernel, size, taps
    and configuration in two recordings (``rows``), as a fraction; ``ValueError`` if they share
    none."""
    first = {_key(r): r for r in a["rows"]}
    gaps = [abs(r["median_us"] - first[_key(r)]["median_us"])
            / min(r["median_us"], first[_key(r)]["median_us"])
            for r in b["rows"] if _key(r) in first]
    if not gaps:
        raise ValueError("the two recordings share no kernel in the same configuration")
    return max(gaps)
