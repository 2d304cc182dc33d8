"""Recorded results (``kernels/recorded/``) and what the book reads from them; no GPU needed.

A benchmark recording is what ``python -m kernels.bench --out FILE.json`` writes
(:func:`kernels.bench.run`): its ``provenance`` (device, driver, CuPy, date, command), the
``configs`` the tuning chose, and the ``rows`` of the sweep, the ``tuning`` and the
``stage_sweep``, each a :class:`kernels.bench.Row` as a dict with its ``gbps`` and its ``ratio``
to the copy time. :func:`load` reads one back, :func:`ncu_summary` a recorded Nsight Compute
report (``NCU_METRICS``), :func:`table` prints one size of the sweep.

The rest answers the questions notebook 04 asks of a recording (which variant comes closest to
the copy, which of two is faster, whether more stages helped), so that what the book says is
computed from the numbers, and tested, instead of decided in a notebook cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from . import layout, variants as V

RECORDED = Path(__file__).resolve().parent / "recorded"
NCU_METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
               "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               "sm__throughput.avg.pct_of_peak_sustained_elapsed",
               "sm__warps_active.avg.pct_of_peak_sustained_active",
               "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
               "smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")


def load(name: str = "h200_bench") -> dict:
    """A recording (kernels/recorded/NAME.json), with its provenance."""
    return json.loads((RECORDED / f"{name}.json").read_text())


def ncu_summary(name: str = "h200_ncu_2e26_k5") -> dict:
    """A recorded Nsight Compute report (kernels/recorded/NAME.txt, `ncu --metrics ...` output)
    as {kernel: {metric: value}}."""
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


def table(result: dict, n: int = 2**26, k: int = 5) -> str:
    """The sweep at one (n, K) with K taps, fastest first: median time, GB/s and time over the
    copy time."""
    rows = [r for r in result["rows"] if r["n"] == n and r["k"] == k]
    lines = [f"n = 2^{int(np.log2(n))}, K = {k} on {result['provenance'].get('device')}",
             f"{'':28s} {'median µs':>10s} {'GB/s':>8s} {'÷ copy':>7s}"]
    for r in sorted(rows, key=lambda r: r["median_us"]):
        lines.append(f"{r['name']:28s} {r['median_us']:10.1f} {r['gbps']:8.0f} {r['ratio']:7.2f}")
    return "\n".join(lines)


def best_by_schedule(result: dict) -> dict:
    """From a recording's tuning rows: the fastest row of each staged variant with persistent
    blocks and with one block per tile, as {(variant, persistent): row}."""
    best = {}
    for r in result["tuning"]:
        key = (r["name"], bool(r["config"].get("persistent", True)))
        if key not in best or r["ratio"] < best[key]["ratio"]:
            best[key] = r
    return best


# --- what notebook 04 reads from a recording ------------------------------------------------

def rows_at(result: dict, n: int = 2**26, k: int = 5) -> dict[str, dict]:
    """The sweep's rows at ``n`` outputs and ``k`` taps, by name (a variant, a peer or "copy"),
    in the order measured; ``ValueError`` when the recording has none there."""
    rows = {r["name"]: r for r in result["rows"] if r["n"] == n and r["k"] == k}
    if not rows:
        raise ValueError(f"the recording has no rows at n = {n} with {k} taps")
    return rows


def peers(rows: dict[str, dict]) -> list[str]:
    """The libraries' convolutions among ``rows`` (neither one of our variants nor the copy)."""
    return [name for name in rows if name != "copy" and name not in V.NAMES]


def best_async(rows: dict[str, dict]) -> str:
    """Of the correct asynchronous variants among ``rows``, the one closest to the copy time."""
    candidates = [v for v in V.names(asynchronous=True, correct=True) if v in rows]
    if not candidates:
        raise ValueError("no asynchronous variant among the rows")
    return min(candidates, key=lambda v: rows[v]["ratio"])


def faster(rows: dict[str, dict], a: str, b: str) -> bool:
    """Whether ``a`` took less time than ``b`` (their median times, same run)."""
    return rows[a]["median_us"] < rows[b]["median_us"]


def stage_sweep(result: dict) -> list[dict]:
    """The stage sweep's rows (persistent blocks), fewest stages first."""
    return sorted(result["stage_sweep"], key=lambda r: r["config"]["stages"])


def more_stages_faster(result: dict) -> bool:
    """Whether the stage sweep's most stages came closer to the copy time than its fewest."""
    sweep = stage_sweep(result)
    return sweep[-1]["ratio"] < sweep[0]["ratio"]


def _faster_or_slower(yes: bool) -> str:
    return "faster" if yes else "slower"


def stage_summary(result: dict) -> list[str]:
    """What more stages did for persistent blocks, then the best of each schedule (persistent
    blocks, one block per tile) of each staged variant, from the tuning: one line each."""
    sweep = stage_sweep(result)
    first, last = sweep[0], sweep[-1]
    fewest = first["config"]["stages"]
    lines = [f"- Persistent {first['name']} blocks: {first['ratio']:.2f}x the copy time with "
             f"{fewest} stage{'s' if fewest > 1 else ''}, {last['ratio']:.2f}x with "
             f"{last['config']['stages']}: more stages made it "
             f"{_faster_or_slower(more_stages_faster(result))}."]
    for (variant, persistent), r in sorted(best_by_schedule(result).items()):
        c = r["config"]
        schedule = "persistent blocks  " if persistent else "one block per tile"
        lines.append(f"- {variant:9s} {schedule}: {r['ratio']:.3f}x the copy time "
                     f"(tile {c['tile']}, {c['threads']} threads, {c['stages']} stage(s), "
                     f"{c['grid']} blocks)")
    return lines


def reading(result: dict, n: int = 2**26, k: int = 5, long_k: int = 31) -> list[str]:
    """What the sweep at ``n`` says, one line each: the puzzle's kernel against the synchronous
    tile and naive loads, the best asynchronous variant against the vec4 control and the peers
    (at ``k`` taps), and what ``long_k`` taps change."""
    at, long = rows_at(result, n, k), rows_at(result, n, long_k)
    best, best_long = best_async(at), best_async(long)

    def times(rows, name):
        return f"{rows[name]['ratio']:.2f}x"

    lines = [f"- The puzzle's one-stage async tile (async_halo) takes {times(at, 'async_halo')} the "
             f"copy time: {_faster_or_slower(faster(at, 'async_halo', 'tiled_sync'))} than the "
             f"synchronous tile ({times(at, 'tiled_sync')}), "
             f"{_faster_or_slower(faster(at, 'async_halo', 'naive'))} than naive loads "
             f"({times(at, 'naive')}).",
             f"- The best asynchronous variant, {best}, takes {times(at, best)}; plain float4 loads "
             f"into registers (vec4) take {times(at, 'vec4')}."]
    for peer in peers(at):
        speedup = at[peer]["median_us"] / at[best]["median_us"]
        lines.append(f"- {best} is {speedup:.2f}x faster than {peer}." if speedup >= 1 else
                     f"- {best} is {1 / speedup:.2f}x slower than {peer}.")
    lines.append(f"- With K = {long_k} taps the halo is large: {best_long} takes "
                 f"{times(long, best_long)}, vec4 {times(long, 'vec4')}. Each vec4 thread loads a "
                 f"{layout.window4(long_k)}-float window for its 4 outputs (neighbours' windows "
                 f"overlap); the shared-memory kernels bring each input in once.")
    return lines
