"""Recorded Nsight Compute profiles (``kernels/recorded/*.txt``) and what appendix 06 reads from
them; no GPU needed.

A profile is the text ``ncu --metrics`` prints for the metrics in :data:`METRICS`
(``python -m kernels.measure.bench --ncu-metrics`` lists them); :func:`summary` reads one back as
{kernel: {metric: value}}, and the rest compares kernels within it (appendix 06 shows them:
:mod:`kernels.teach.measuring`).
"""

from __future__ import annotations

import re

from .. import variants as V
from ..validate import choice, record
from .recorded import RECORDED

METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__warps_active.avg.pct_of_peak_sustained_active",
           "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
           "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
           "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
           "smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
           "smsp__inst_executed.avg.pct_of_peak_sustained_elapsed",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed")


def summary(name: str = "h200_ncu_2e26_k5") -> dict:
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
    if not kernels:
        raise ValueError(f"{name}.txt holds no kernel's metrics: not an ncu report")
    for kernel, values in kernels.items():     # checked once, here: the rest takes it as it is
        record(f"{name}.txt's {kernel}", values, METRICS)
    return kernels


# A warp scheduler issues at most one instruction per cycle, so a kernel's issue-active cycles
# are about its instructions executed: the per-issue stall ratio times the instructions is the
# warp-cycles stalled, a total that compares kernels that execute different instruction counts.
LONG_SCOREBOARD = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"


def stall_per_output(profile: dict, variants, n: int = 2**26,
                     metric: str = LONG_SCOREBOARD) -> dict[str, float]:
    """Warp-cycles stalled per output, by variant: ``metric`` (stalled warps per issue-active
    cycle) times the instructions executed (about the issue-active cycles) over ``n`` outputs."""
    out = {}
    for v in variants:
        m = profile[V.get(v).kernel]
        out[V.get(v).name] = m[metric] * m["smsp__inst_executed.sum"] / n
    return out


def one_output_kernels(profile: dict, a: str = "async_halo", b: str = "tiled_sync") -> dict:
    """Two one-output-per-thread kernels in a profile: ``a``'s instructions and shared-memory
    wavefronts over ``b``'s, and each one's SM throughput (% of peak)."""
    ma, mb = (profile[V.get(v).kernel] for v in (a, b))
    sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    return {"instructions": ma["smsp__inst_executed.sum"] / mb["smsp__inst_executed.sum"],
            "wavefronts": (ma["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]
                           / mb["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"]),
            "sm_a": ma[sm], "sm_b": mb[sm]}


def sync_vs_async(profile: dict, sync=("vec4", "staged_sync"),
                  asynchronous=("pipelined", "bulk", "warp_specialized")) -> dict:
    """A profile's durations (µs, its own replays) of the ``sync`` kernels and of the
    ``asynchronous`` ones, each as its (least, most) (``"sync_us"``, ``"async_us"``), and each
    kernel's instructions executed (``"inst"``: variant -> count)."""

    def m(v, metric):
        return profile[V.get(v).kernel][metric]

    def span(names):
        t = sorted(m(v, "gpu__time_duration.sum") for v in names)
        return t[0], t[-1]
    return {"sync_us": span(sync), "async_us": span(asynchronous),
            "inst": {V.get(v).name: m(v, "smsp__inst_executed.sum")
                     for v in (*sync, *asynchronous)}}


# Two limits on an SM that neither the copy nor the FMA time shows, as ncu measures them: the
# instructions (a scheduler issues one per cycle) and the shared-memory wavefronts (the SM serves
# one per cycle), each as a % of its peak over the kernel's duration.
LIMITS = {"issue": "smsp__inst_executed.avg.pct_of_peak_sustained_elapsed",
          "shared": "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"}


def limits(roof: dict, ks=(5, 31, 63)) -> dict[int, dict]:
    """What bounds the fastest kernel of each profile ``h200_ncu_2e26_k{K}`` (N = 2^26): by K,
    its name (``"kernel"``) and, in µs, its time (ncu's) and the time its work takes at each limit: the
    device copy and the FMAs (from the roofline recording ``roof``, as the roofline has them),
    its instructions (``"issue"``) and its shared-memory wavefronts (``"shared"``): its duration
    times ncu's % of peak for each (:data:`LIMITS`)."""
    n, out = 2**26, {}
    for k in ks:
        profile = summary(f"h200_ncu_2e26_k{k}")
        kernel, m = min(profile.items(), key=lambda km: km[1]["gpu__time_duration.sum"])
        us = m["gpu__time_duration.sum"]
        copy = [c["median_us"] for c in roof["copies"] if c["n"] == n and c["k"] == k]
        if not copy:
            raise ValueError(f"roof has no copy timed at n = {n} with {k} taps")
        issue, shared = (us * m[LIMITS[key]] / 100 for key in ("issue", "shared"))
        out[k] = dict(kernel=kernel.removeprefix("conv1d_"), time=us, copy=copy[0],
                      fma=n * k / roof["fma"]["fma_per_s"] * 1e6, issue=issue, shared=shared)
    return out
