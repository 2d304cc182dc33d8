"""Chapter 05's page (warp specialization and the bound): the tables it shows of the roofline
recording (``kernels/recorded/h200_roofline.json``, read by :mod:`kernels.measure.recorded`) and
of the profiles' limits (:mod:`kernels.measure.nsight`), and the numbers its sentences glue, one
call per cell."""

from __future__ import annotations

from ..edition import Text, day, listed
from ..measure import recorded
from ..tables import Table

# the limits of nsight.limits, as the page names them
LIMIT_WORDS = {"issue": Text("instruction issue", "명령어 발행"),
               "shared": Text("shared memory", "공유 메모리")}


def recording_numbers(roof: dict) -> dict:
    """Where, when and how long the roofline recording was made, and the FMA rate it measured."""
    p = roof["provenance"]
    return {"roof_device": p["device"], "roof_date": day(p["date"]),
            "roof_seconds": f"{p['seconds']:.0f}",
            "fma_rate": f"{roof['fma']['fma_per_s'] / 1e12:.1f} × 10¹²"}


def roofline_table(rec: dict, n: int = 2**26) -> Table:
    """The roofline at ``n`` outputs, one column per K: the copy and FMA times, then each
    variant's time over the bound (:func:`kernels.measure.recorded.roofline_table`, in both
    languages)."""
    t = recorded.roofline_table(rec, n)
    where = t.title.split(":")[0].replace(" on ", ", ")
    return t.korean(f"{where}: 상한 대비 시간, 상한 = max(복사 시간, FMA 시간)", {"copy µs": "복사 µs"})


def verdict_numbers(rec: dict, n: int = 2**26) -> dict:
    """The roofline answer's numbers: the K where the synchronous control and the asynchronous
    kernels tie (``tie_ks``), where the asynchronous kernels win (``async_ks``,
    ``first_async_k``) and by how much at each (``async_kK``), and the drift a tie allows."""
    v = recorded.verdicts(rec, n)

    def ks(which):
        return [k for k in v if v[k].winner == which]

    def named(taps):   # "3, 5 and 9" ("3, 5, 9"): the glue keeps its quotes, not a tuple
        return listed(taps) if taps else Text("none", "없음")
    out = {"drift": f"{100 * recorded.RUN_TO_RUN:.0f}%", "tie_ks": named(ks("tie")),
           "async_ks": named(ks("async")),
           "first_async_k": str(min(ks("async"))) if ks("async") else Text("none", "없음")}
    for k in ks("async"):
        out[f"async_k{k}"] = f"{100 * (v[k].speedup - 1):.0f}%"   # "8% faster", not "1.08x"
    return out


def limits_table(lim: dict) -> Table:
    """:func:`kernels.measure.nsight.limits` as a table for the page, one row per K, in µs."""
    keys = ("time", "copy", "fma", *LIMIT_WORDS)
    return Table(Text("The fastest kernel beside each limit, µs", "가장 빠른 커널과 각 한계, µs"),
                 ["K", Text("kernel", "커널"), Text("time", "시간"), Text("copy", "복사"), "FMA",
                  *LIMIT_WORDS.values()],
                 [[str(k), row["kernel"], *(f"{row[key]:.0f}" for key in keys)]
                  for k, row in lim.items()])


def limit_numbers(lim: dict, k: int = 63) -> dict:
    """The fastest kernel at ``k`` taps and the time its work takes at each limit, in µs."""
    return {"lim_kernel": lim[k]["kernel"],
            **{f"lim_{key}": f"{lim[k][key]:.0f}" for key in ("time", "issue", "shared", "fma")}}


def launch_numbers(rec: dict, n: int = 2**26) -> dict:
    """The puzzle's size, replayed per launch beside an empty kernel's launch, and the K up to
    which the tuned warp_specialized runs one tile per block."""
    seed = {r["name"]: r["median_us"] for r in rec["seed"]["rows"]}
    share = recorded.launch_overhead(rec)
    return {"ws_one_tile_to": str(max(recorded.tuned_one_tile(rec, n))),
            "empty_us": f"{seed['empty']:.2f}",
            "empty_share_ah": f"{100 * share['async_halo']:.0f}%",
            "empty_share_ts": f"{100 * share['tiled_sync']:.0f}%",
            "seed_diff": f"{abs(seed['tiled_sync'] - seed['async_halo']):.2f}",
            **{f"seed_{v}": f"{seed[v]:.2f}"
               for v in ("copy", "tiled_sync", "tiled_loads_first", "async_halo")}}


def lesson_numbers(rec: dict, n: int = 2**26) -> dict[str, str]:
    """The numbers of "what to reach for": the largest K up to which plain float4 loads
    (``vec4_up_to``) and synchronous staging (``sync_up_to``) tie the fastest kernel (from the
    fewest taps on), the first K where the asynchronous kernels beat the control, and the FMA
    time over the copy time there (``async_share``) and at the largest tie below it
    (``tie_share``, ``tie_k``)."""
    v = recorded.verdicts(rec, n)
    taps = list(v)

    def prefix(ks):   # the K from the fewest taps on, while they are in ks
        out = []
        for k in taps:
            if k not in ks:
                break
            out.append(k)
        return out
    vec4 = prefix(recorded.ties_fastest(rec, n, "vec4"))
    sync = prefix(recorded.ties_fastest(rec, n, "staged_sync"))
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
            "async_share": f"{share(first):.2f}",
            "tie_k": str(max(below)), "tie_share": f"{share(max(below)):.2f}"}
