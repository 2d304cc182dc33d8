"""Recorded Nsight Compute profiles (``kernels/recorded/*.txt``) and what appendix 06 reads from
them; no GPU needed.

A profile is the text ``ncu --metrics`` prints for the metrics in :data:`METRICS`
(``python -m kernels.measure.bench --ncu-metrics`` lists them); :func:`summary` reads one back as
{kernel: {metric: value}}, :func:`table` prints it, and the rest compares kernels within it.
"""

from __future__ import annotations

import re

from .. import variants as V
from ..edition import Text, millions
from ..tables import Table
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
    """A profile's durations (µs, its own replays) as two ranges, the ``sync`` kernels' and the
    ``asynchronous`` ones' (``"sync_us"``, ``"async_us"``), and each kernel's instructions
    executed in millions (``"inst"``: variant -> text)."""

    def m(v, metric):
        return profile[V.get(v).kernel][metric]

    def span(names):   # "126.0-128.2" ("126.0~128.2"), or one value
        t = [f"{x:.1f}" for x in sorted(m(v, "gpu__time_duration.sum") for v in names)]
        return t[0] if t[0] == t[-1] else Text(f"{t[0]}-{t[-1]}", f"{t[0]}~{t[-1]}")
    return {"sync_us": span(sync), "async_us": span(asynchronous),
            "inst": {V.get(v).name: millions(m(v, 'smsp__inst_executed.sum'))
                     for v in (*sync, *asynchronous)}}


TABLE = (("gpu__time_duration.sum", Text("time µs", "시간 µs"), ".1f"),
         ("dram__bytes_read.sum", Text("DRAM MB read", "DRAM 읽기 MB"), ".1f"),
         ("dram__bytes_write.sum", Text("DRAM MB written", "DRAM 쓰기 MB"), ".1f"),
         ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
          Text("DRAM % of peak", "DRAM 최대치 %"), ".1f"),
         ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
          Text("SM % of peak", "SM 최대치 %"), ".1f"),
         ("smsp__inst_executed.sum", Text("instructions", "명령어"), "millions"),
         ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
          Text("smem wavefronts", "공유 메모리 웨이브프런트"), "millions"))


def table(profile: dict) -> Table:
    """A recorded Nsight Compute profile (:func:`summary`) as a table for the page: one
    column per kernel, one row per metric (``TABLE``: time, DRAM bytes and throughput, SM
    throughput, instructions and shared-memory wavefronts in millions). A
    :class:`kernels.tables.Table`: ``str`` of it is the fixed-width text."""
    names = [kernel.removeprefix("conv1d_") for kernel in profile]
    return Table("", ["", *names],
                 [[label, *(millions(m[metric]) if fmt == "millions" else f"{m[metric]:{fmt}}"
                            for m in profile.values())]
                  for metric, label, fmt in TABLE],
                 widths=[16] + [max(9, len(name) + 1) for name in names],
                 align="<" + ">" * len(names), sep="")


# Two limits on an SM that neither the copy nor the FMA time shows, as ncu measures them: the
# instructions (a scheduler issues one per cycle) and the shared-memory wavefronts (the SM serves
# one per cycle), each as a % of its peak over the kernel's duration.
LIMITS = (("smsp__inst_executed.avg.pct_of_peak_sustained_elapsed",
           Text("instruction issue", "명령어 발행")),
          ("l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
           Text("shared memory", "공유 메모리")))


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
        issue, shared = (us * m[metric] / 100 for metric, _ in LIMITS)
        out[k] = dict(kernel=kernel.removeprefix("conv1d_"), time=us, copy=copy[0],
                      fma=n * k / roof["fma"]["fma_per_s"] * 1e6, issue=issue, shared=shared)
    return out


def limits_table(lim: dict) -> Table:
    """:func:`limits` as a table for the page, one row per K, times in µs."""
    keys = ("time", "copy", "fma", "issue", "shared")
    return Table(Text("The fastest kernel beside each limit, µs",
                      "가장 빠른 커널과 각 한계, µs"),
                 ["K", Text("kernel", "커널"), Text("time", "시간"), Text("copy", "복사"), "FMA",
                  *(label for _, label in LIMITS)],
                 [[str(k), row["kernel"], *(f"{row[key]:.0f}" for key in keys)]
                  for k, row in lim.items()])
