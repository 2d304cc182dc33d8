"""Appendix 06's page (measuring): the recorded Nsight Compute profiles as a table
(``kernels/recorded/h200_ncu_*.txt``, read by :mod:`kernels.measure.nsight`) and the numbers its
sentences glue, one call per cell."""

from __future__ import annotations

from ..edition import Text, millions, times
from ..measure import nsight, recorded
from ..tables import Table

# the profile's rows as the page shows them: metric, label, format ("millions": a count)
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
    """A recorded profile (:func:`kernels.measure.nsight.summary`): one column per kernel, one
    row per metric (:data:`TABLE`), the 16-byte kernels first, as the text compares them (a
    phone shows the first columns)."""
    kernels = sorted(profile, key=lambda kernel: kernel.endswith("async_halo"))
    names = [kernel.removeprefix("conv1d_") for kernel in kernels]
    return Table("", ["", *names],
                 [[label, *(millions(profile[k][metric]) if fmt == "millions"
                            else f"{profile[k][metric]:{fmt}}" for k in kernels)]
                  for metric, label, fmt in TABLE],
                 align="<" + ">" * len(names))


def _span(lo: float, hi: float) -> Text | str:
    """A range of µs as a sentence writes it, "126.0-128.2" ("126.0~128.2"), or one value."""
    a, b = f"{lo:.1f}", f"{hi:.1f}"
    return a if a == b else Text(f"{a}-{b}", f"{a}~{b}")


def profile_numbers(profile: dict) -> dict:
    """The K = 5 profile: the synchronous and the asynchronous kernels' durations, and the
    instructions four of them execute."""
    k5 = nsight.sync_vs_async(profile)
    return {"ncu5_sync": _span(*k5["sync_us"]), "ncu5_async": _span(*k5["async_us"]),
            **{f"inst5_{short}": millions(k5["inst"][v]) for short, v in
               (("sync", "staged_sync"), ("vec4", "vec4"), ("bulk", "bulk"),
                ("ws", "warp_specialized"))}}


def one_output_numbers(k31: dict, roof: dict) -> dict:
    """The one-output kernels at K = 31 (the profile) and at K = 17 (the roofline's time over
    the bound): async_halo against tiled_sync."""
    one = nsight.one_output_kernels(k31)
    ratio = {r["name"]: r["ratio"] for r in roof["rows"] if r["n"] == 2**26 and r["k"] == 17}
    return {"ah_k17": times(ratio["async_halo"]), "ts_k17": times(ratio["tiled_sync"]),
            "ts_sm": f"{one['sm_b']:.0f}%", "ah_sm": f"{one['sm_a']:.0f}%",
            "ah_inst": times(one["instructions"]), "ah_wave": times(one["wavefronts"])}


def k31_numbers(k31: dict, roof: dict) -> dict:
    """staged_sync against bulk at K = 31: DRAM throughput, long-scoreboard stalls per output,
    instructions, and bulk's registers, blocks per SM and warps."""
    dram = {v: k31[f"conv1d_{v}"]["dram__throughput.avg.pct_of_peak_sustained_elapsed"]
            for v in ("staged_sync", "bulk")}
    stall = nsight.stall_per_output(k31, ["staged_sync", "bulk"])
    active = k31["conv1d_bulk"]["sm__warps_active.avg.pct_of_peak_sustained_active"]
    occ = recorded.occupancy(roof, 2**26, 31, ["bulk"])["bulk"]
    inst = nsight.sync_vs_async(k31, ["staged_sync"], ["pipelined", "bulk"])["inst"]
    return {"inst31_sync": millions(inst["staged_sync"]), "inst31_pipe": millions(inst["pipelined"]),
            "dram_sync": f"{dram['staged_sync']:.0f}%", "dram_bulk": f"{dram['bulk']:.0f}%",
            "stall_sync": f"{stall['staged_sync']:.1f}", "stall_bulk": f"{stall['bulk']:.1f}",
            "regs_bulk": str(occ["regs"]), "bps_bulk": str(occ["blocks_per_sm"]),
            "share_bulk": f"{100 * occ['warp_share']:.0f}%", "active_bulk": f"{active:.0f}%"}
