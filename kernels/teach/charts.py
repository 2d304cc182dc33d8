"""Charts of the recorded measurements, made for the page (:mod:`.figure`): each function draws
a recording it is given (``kernels/recorded/``, read by :mod:`kernels.measure.recorded`) and
returns a :class:`~.figure.PageFigure`."""

from __future__ import annotations

import numpy as np

from .. import variants as V
from ..edition import Text, power_of_two
from ..measure.recorded import bytes_in_flight, roofline_rows
from .figure import in_language as _of, log2_axis, on_page, page_figure, title as _title


# The bandwidth figure's panels: asynchronous copies; plain loads and the libraries' kernels.
BANDWIDTH_PANELS = (("asynchronous copies (cp.async, bulk copy)",
                     "비동기 복사(cp.async, 벌크 복사)"),
                    ("plain loads, and the libraries' convolutions",
                     "일반 로드와 라이브러리의 합성곱"))
SERIES_COLOURS = {"puzzle28": "#d62728", "async_halo": "#1f77b4", "pipelined": "#2ca02c",
                  "bulk": "#9467bd", "naive": "#8c564b", "tiled_sync": "#ff7f0e",
                  "tiled_loads_first": "#393b79", "vec4": "#17becf", "staged_sync": "#e377c2",
                  "warp_specialized": "#b8860b", "cupyx.ndimage.correlate1d": "#7f7f7f",
                  "torch.conv1d": "#bcbd22"}


SERIES_MARKERS = {"pipelined": "o", "bulk": "D", "warp_specialized": "v", "vec4": "s",
                  "staged_sync": "P", "async_halo": "o", "puzzle28": "x"}


def _series_style(name: str) -> dict:
    if name in V.NAMES:
        return dict(color=SERIES_COLOURS.get(name), marker=SERIES_MARKERS.get(name, "s"),
                    ls="-" if V.get(name).asynchronous else ":", ms=4, lw=1.4, mfc="none")
    return dict(color=SERIES_COLOURS.get(name), marker="^", ms=4, lw=1.2, ls="-.")   # a library


@on_page
def plot_bandwidth(result: dict, k: int = 5, label: str = ""):
    """Effective bandwidth against N beside the device copy of the same bytes: the asynchronous
    variants above, the plain-load variants and the libraries' convolutions below."""
    recorded = sorted({r["k"] for r in result["rows"]})
    if k not in recorded:
        raise ValueError(f"the recording has no rows for k={k}: it has K = "
                         f"{', '.join(map(str, recorded))}")
    rows = [r for r in result["rows"] if r["k"] == k]
    names = list(dict.fromkeys(r["name"] for r in rows))
    groups = ([v for v in names if v in V.NAMES and V.get(v).asynchronous],
              [v for v in names if v != "copy" and not (v in V.NAMES and V.get(v).asynchronous)])
    fig = page_figure(8.6)
    axes = fig.subplots(2, 1, sharex=True, sharey=True)

    def curve(name):
        rs = sorted((r for r in rows if r["name"] == name), key=lambda r: r["n"])
        return [r["n"] for r in rs], [r["gbps"] for r in rs]
    l2 = result["provenance"].get("l2_bytes")
    for ax, group, title in zip(axes, groups, BANDWIDTH_PANELS):
        if "copy" in names:
            ax.plot(*curve("copy"), color="black", ls="--", lw=1.8,
                    label=Text("device copy (same bytes)", "디바이스 간 복사(같은 바이트)"))
        for name in group:
            ax.plot(*curve(name), label=name, **_series_style(name))
        if l2:   # in the legend, not on the curves
            ax.axvline(l2 / 8, color="grey", lw=1.2, ls=":",
                       label=Text("right of it, x and y outgrow the L2", "이 선 오른쪽: x, y가 L2보다 큼"))
        ax.set_title(Text(*title), loc="left")
        ax.set_ylabel("GB/s")
        ax.yaxis.set_major_formatter("{x:,.0f}")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.03 if ax is axes[0] else -0.2), ncol=2,
                  frameon=False, borderaxespad=0, columnspacing=1.0, handlelength=1.8)
    # one tick per power of two, labelled p (a superscript would be drawn at 0.7 of the size)
    powers = sorted({int(round(np.log2(r["n"]))) for r in rows})
    powers = powers[::1 if len(powers) <= 8 else 2]
    log2_axis(axes[-1], [2 ** p for p in powers], [str(p) for p in powers])
    axes[-1].set_xlabel(Text("log₂ N (N float32 elements; 8 N bytes moved)",
                           "log₂ N(float32 원소 N개, 8N바이트 이동)"))
    fig.suptitle("\n".join([Text(f"K = {k}: GB/s = 8 N bytes / kernel time.",
                               f"K = {k}: GB/s = 8 N 바이트 / 커널 시간."),
                            *_title(_of(label)).split("\n")]),
                 x=0.0, ha="left")
    last = max(r["n"] for r in rows)
    at = sorted(((r["gbps"], r["name"]) for r in rows if r["n"] == last), reverse=True)
    fig.alt = Text(f"GB/s against N from {power_of_two(min(r['n'] for r in rows))} to "
                 f"{power_of_two(last)} at K = {k}, each kernel beside a device copy of the "
                 f"same bytes. At N = {power_of_two(last)}: ",
                 f"K = {k}에서 N에 따른 GB/s, N = {power_of_two(min(r['n'] for r in rows))}~"
                 f"{power_of_two(last)}, 커널마다 같은 바이트의 디바이스 간 복사와 함께. "
                 f"N = {power_of_two(last)}에서: ") + ", ".join(
        f"{Text('device copy', '디바이스 간 복사') if name == 'copy' else name} {g:.0f}"
        for g, name in at) + " GB/s."
    return fig


@on_page
def plot_stage_sweep(result: dict, label: str = ""):
    """Bandwidth of the pipelined kernel against its number of stages, beside the bytes each SM
    keeps in flight (Little's law: bandwidth = bytes in flight / latency)."""
    rows = sorted(result["stage_sweep"], key=lambda r: r["config"]["stages"])
    sms = result["provenance"]["multiprocessors"]
    fig = page_figure(3.4)
    ax = fig.subplots()
    stages = [r["config"]["stages"] for r in rows]
    bars = ax.bar(stages, [r["gbps"] for r in rows], color="#8ecae6", label="pipelined, GB/s")
    copy = np.median([r["copy_us"] for r in rows])
    roof = ax.axhline(8 * rows[0]["n"] / (copy * 1e-6) / 1e9, color="black", ls="--",
                      label=Text("device copy, GB/s", "디바이스 간 복사, GB/s"))
    ax.set_xlabel(Text("stages (tile buffers per block)", "스테이지(블록당 타일 버퍼 수)"))
    ax.set_ylabel("GB/s")
    ax.yaxis.set_major_formatter("{x:,.0f}")
    ax.set_xticks(stages)
    twin = ax.twinx()
    line, = twin.plot(stages, [bytes_in_flight(r, sms) / 1024 for r in rows], "o-",
                      color="#d1495b", label=Text("KiB in flight per SM (right axis)",
                                                "SM당 진행 중인 KiB(오른쪽 축)"))
    twin.set_ylabel(Text("KiB in flight per SM", "SM당 진행 중인 KiB"))
    twin.set_ylim(0, 1.6 * max(line.get_ydata()))   # its markers below the copy's line
    fig.legend(handles=[bars, roof, line], loc="outside lower center", ncol=3, frameon=False,
               columnspacing=1.0, handlelength=1.5)
    ax.set_title(_title(f"N = {power_of_two(rows[0]['n'])}, K = {rows[0]['k']}, "
                        + Text("tile", "타일 크기") + f" {rows[0]['config']['tile']:,}. {_of(label)}"),
                 loc="left")
    gbps = ", ".join(f"{r['gbps']:.0f}" for r in rows)
    kib = ", ".join(f"{v:.0f}" for v in line.get_ydata())
    fig.alt = Text(f"pipelined's GB/s for {stages[0]} to {stages[-1]} stages ({gbps}) beside the "
                 f"device copy's {roof.get_ydata()[0]:.0f} GB/s, and the KiB each SM has in "
                 f"flight ({kib}).",
                 f"스테이지 {stages[0]}~{stages[-1]}개일 때 pipelined의 GB/s({gbps})와 디바이스 간 복사의 "
                 f"{roof.get_ydata()[0]:.0f} GB/s, SM당 진행 중인 KiB({kib}).")
    return fig


ZOOM = (0.96, 1.6)   # the roofline's lower panel: the few percent that chapter 05 discusses


@on_page
def plot_roofline(rec: dict, n: int = 2**26, variants=None, label: str = ""):
    """Each variant's time over the bound (the larger of the copy and the FMA time: the dashed
    line at 1) against K, with interquartile error bars, from a roofline recording; ``variants``:
    which to draw (default: every one recorded at ``n``)."""
    by_variant = roofline_rows(rec, n)
    if variants is not None:
        variants = [V.get(v).name for v in variants]
        absent = [v for v in variants if v not in by_variant]
        if absent:
            raise ValueError(f"the recording has no rows of {', '.join(absent)} at n = {n}: it "
                             f"has {', '.join(by_variant)}")
        by_variant = {v: by_variant[v] for v in variants}
    fig = page_figure(8.2)
    axes = fig.subplots(2, 1, sharex=True, height_ratios=[1, 1.3])
    for ax in axes:
        for name, rows in by_variant.items():
            ks = [r["k"] for r in rows]
            ratio = np.array([r["ratio"] for r in rows])
            bound = np.array([r["bound_us"] for r in rows])
            low = ratio - np.array([r["q1_us"] for r in rows]) / bound
            high = np.array([r["q3_us"] for r in rows]) / bound - ratio
            ax.errorbar(ks, ratio, yerr=[low, high], capsize=3, label=name,
                        **_series_style(name))
        ax.axhline(1.0, color="black", ls="--", lw=1.2,
                   label=Text("the bound: max(copy, FMA time)", "상한: max(복사, FMA 시간)"))
        ax.grid(alpha=0.3)
    all_ks = sorted({r["k"] for rows in by_variant.values() for r in rows})
    fma_bound = sorted({r["k"] for rows in by_variant.values() for r in rows
                        if r["limit"] == "fma"})
    if fma_bound:   # shaded from halfway (on the log axis) past the last K the copy bounds
        copy_bound = [k for k in all_ks if k < fma_bound[0]]
        start = (copy_bound[-1] * fma_bound[0]) ** 0.5 if copy_bound else fma_bound[0] / 2**0.5
        for ax in axes:
            ax.axvspan(start, all_ks[-1] * 2**0.5, color="#f28482", alpha=0.12, lw=0,
                       label=Text("FMAs bound it, not the copy", "복사가 아니라 FMA가 상한을 정함"))
    top, ax = axes
    top.set_ylim(bottom=0)
    top.set_ylabel(Text("time / bound", "시간 / 상한"))
    ax.set_ylim(ZOOM)
    ax.set_title(Text(f"the same, from {ZOOM[0]:g} to {ZOOM[1]:g}: the differences near the bound",
                    f"같은 그림의 {ZOOM[0]:g}~{ZOOM[1]:g} 구간: 상한 근처의 차이"), loc="left")
    log2_axis(ax, all_ks, [str(k) for k in all_ks])
    ax.set_xlabel(Text("K (taps)", "K(탭 수)"))
    ax.set_ylabel(Text("time / bound", "시간 / 상한"))
    fig.legend(handles=top.get_legend_handles_labels()[0], loc="outside lower left", ncol=2,
               frameon=False, columnspacing=1.0, handlelength=1.8,
               title=Text("solid: asynchronous copies; dotted: plain loads",
                        "실선: 비동기 복사, 점선: 일반 로드"),
               alignment="left")
    device = rec["provenance"].get("device")
    # the label may name it
    where = "" if device and device in label else Text(f" on {device}", f", {device}")
    top.set_title(_title(f"N = {power_of_two(n)}{where}. {_of(label)}"), loc="left")
    near = {}   # the largest K up to which each variant stays within 1.1 of the bound
    for name, rows in by_variant.items():
        ks = [r["k"] for r in rows if r["ratio"] <= 1.1]
        near.setdefault(max(ks, default=0), []).append(name)
    fig.alt = Text(f"Time over the bound for each kernel at N = {power_of_two(n)}, K from "
                 f"{all_ks[0]} to {all_ks[-1]}. Within 1.1 of the bound ",
                 f"N = {power_of_two(n)}, K = {all_ks[0]}~{all_ks[-1]}에서 커널마다 "
                 "시간 / 상한. 상한의 1.1배 안: ") + "; ".join(
        (Text(f"up to K = {k}: ", f"K = {k}까지 ") if k else Text("never: ", "한 번도 없음: "))
        + ", ".join(names)
        for k, names in sorted(near.items(), reverse=True)) + "."
    return fig
