"""Chapter 04's page (pipelines and bandwidth): the tables it shows of the benchmark recording
(``kernels/recorded/h200_bench.json``, read by :mod:`kernels.measure.recorded`) and the numbers
its sentences glue, one call per cell."""

from __future__ import annotations

from .. import layout
from ..edition import Text, day, ratio_range, times
from ..measure import recorded
from ..measure.recorded import bytes_in_flight, rows_at, stage_sweep
from ..tables import Table

COPY_HEADER = Text("÷ copy", "÷ 복사")    # a column of times over the copy time
# A configuration's parameters as the Korean output says them (the English keeps key=value)
CONFIG_WORDS = {"tile": ("타일 크기", ""), "threads": ("스레드", "개"), "stages": ("스테이지", "개"),
                "outputs": ("스레드당 출력", "개"), "blocks_per_sm": ("SM당 블록", "개")}
# the one-output kernels of the table, which run the puzzle's configuration
PUZZLE_KERNELS = ("naive", "tiled_sync", "tiled_loads_first", "async_halo", "puzzle28")


def table(result: dict, n: int = 2**26, k: int = 5) -> Table:
    """The sweep at one (n, K) with K taps, fastest first: median time, GB/s and time over the
    copy time (:func:`kernels.measure.recorded.table`, in both languages)."""
    t = recorded.table(result, n, k)
    return t.korean(t.title.replace(" on ", ", "),
                    {"median µs": "중앙값 µs", COPY_HEADER.en: COPY_HEADER.ko, "copy": "복사"})


def schedule_words(persistent: bool) -> Text:
    """A launch schedule in words: persistent blocks, or one block per tile."""
    return (Text("persistent blocks", "퍼시스턴트 블록") if persistent
            else Text("one block per tile", "타일마다 블록 하나"))


def stage_table(result: dict) -> Table:
    """The best of each schedule (persistent blocks, one block per tile) of each staged variant
    in the tuning (:func:`kernels.measure.recorded.best_by_schedule`), a row each."""
    rows = []
    for (variant, persistent), r in sorted(recorded.best_by_schedule(result).items()):
        c = r["config"]
        name = (Text(f"{variant}, persistent", f"{variant}, 퍼시스턴트") if persistent
                else Text(f"{variant}, one per tile", f"{variant}, 타일마다 하나"))
        rows.append([name, f"{r['ratio']:.3f}", f"{c['tile']:d}", f"{c['threads']:d}",
                     f"{c['stages']:d}", f"{c['grid']:d}"])
    return Table(Text("The best of each schedule in the tuning run (time over the copy time): "
                      "persistent blocks, or one block per tile",
                      "튜닝 실행에서 스케줄마다 가장 빠른 구성(시간 ÷ 복사 시간): 퍼시스턴트 블록, "
                      "또는 타일마다 블록 하나"),
                 [Text("variant, blocks", "변형, 블록"), COPY_HEADER,
                  Text("tile", "타일"), Text("threads", "스레드"), Text("stages", "스테이지"),
                  Text("blocks", "블록")], rows,
                 widths=[30, 7, 6, 8, 7, 7], align="<>>>>>")


def flight_table(result: dict) -> Table:
    """The stage sweep beside the bytes its persistent blocks keep in flight: stages, blocks per
    SM, KiB in flight per SM (:func:`~kernels.measure.recorded.bytes_in_flight`), GB/s, time
    over the copy's."""
    sms = result["provenance"]["multiprocessors"]
    return Table("", [Text("stages", "스테이지"), Text("blocks per SM", "SM당 블록"),
                      Text("KiB in flight per SM", "SM당 진행 중인 KiB"), "GB/s", COPY_HEADER],
                 [[r["config"]["stages"], f"{r['config']['grid'] / sms:.0f}",
                   f"{bytes_in_flight(r, sms) / 1024:.1f}", f"{r['gbps']:.0f}",
                   f"{r['ratio']:.2f}"] for r in stage_sweep(result)])


def configurations(result: dict, live: bool = False) -> Text:
    """The configurations a recording's tuning chose (``configs``), a line each; ``live``: a live
    run's, tuned over a smaller grid."""
    head = (Text("configurations (a smaller tuning grid than the recording's):",
                 "구성(기록보다 작은 튜닝 격자):") if live
            else Text("configurations:", "구성:"))

    def said(key, value, lang):
        if lang == "en":
            return f"{key}={value}"
        if key == "persistent":
            return schedule_words(value).in_("ko")
        word, counter = CONFIG_WORDS.get(key, (key, ""))
        return f"{word} {value:,}{counter}" if isinstance(value, int) else f"{word} {value}{counter}"
    lines = [Text(*(f"  {variant:16s} " + ", ".join(said(key, value, lang)
                                                   for key, value in config.items())
                    for lang in ("en", "ko")))
             for variant, config in result["configs"].items()]
    return Text("\n", "\n").join([head, *lines])


# --- the numbers the page's sentences glue ---------------------------------------------------

def recording_numbers(result: dict) -> dict:
    """Where and when the benchmark recording was made."""
    p = result["provenance"]
    return {"bench_device": p["device"], "bench_date": day(p["date"]),
            "copies_per_tile": str(layout.span(1024, 5) // 4)}   # 16-byte copies of a tile


def sweep_numbers(result: dict, roof: dict) -> dict:
    """The sweep at N = 2^26 and K = 5: the copy's rate, each kernel over the copy, the puzzle's
    configuration, chapter 05's tuned kernels (``roof``) and the drift between the two
    recordings."""
    at = rows_at(result, 2**26, 5)
    best = recorded.best_async(at)
    tuned = rows_at(roof, 2**26, 5)
    puzzle = recorded.configuration(at, PUZZLE_KERNELS)
    ctl = recorded.against_control(result, at)   # staged_sync beside the tuned async kernels
    return {"copy_gbps": f"{at['copy']['gbps']:.0f}",
            "copy_peak": f"{100 * recorded.copy_share_of_peak(result):.0f}%",
            **{f"k5_{v}": times(at[v]["ratio"])
               for v in ("vec4", "async_halo", "naive", "tiled_sync", "tiled_loads_first")},
            "k5_best": times(at[best]["ratio"]), "drift": f"{100 * recorded.RUN_TO_RUN:.0f}%",
            "torch_ratio": times(at["torch.conv1d"]["median_us"] / at[best]["median_us"]),
            "k28_vec4": times(rows_at(result, 2**28, 5)["vec4"]["ratio"]),
            "puzzle_tile": str(puzzle["tile"]), "puzzle_threads": str(puzzle["threads"]),
            "tuned_tile": str(tuned["async_halo"]["config"]["tile"]),
            **{f"tuned_{v}": times(tuned[v]["ratio"])
               for v in ("tiled_sync", "tiled_loads_first", "async_halo")},
            "k5_control": times(ctl["control"]), "k5_async": ratio_range(ctl["lo"], ctl["hi"]),
            "drift_seen": f"{100 * recorded.drift_seen(result, roof):.0f}%"}


def flight_numbers(result: dict, latency_us: float = 1.0) -> dict:
    """Little's law for the stage sweep at an assumed latency (1 µs, not measured), beside the
    bytes the puzzle's configuration keeps in flight."""
    law = recorded.littles_law(result, latency_us=latency_us)
    at = rows_at(result, 2**26, 5)
    puzzle = recorded.configuration(at, PUZZLE_KERNELS)
    sweep, sms = stage_sweep(result), result["provenance"]["multiprocessors"]
    return {"latency_us": f"{latency_us:g}", "need_kib": f"{law['needed'] / 1024:.0f}",
            "enough_us": f"{law['enough_up_to_us']:.1f}",
            "flight1_kib": f"{law['in_flight'][1] / 1024:.1f}",
            "flight1_x": times(law["in_flight"][1] / law["needed"], 1),
            "stage_first": times(law["ratio"][1]),
            "stage_last": times(law["ratio"][max(law["ratio"])]),
            "stage_last_blocks": f"{sweep[-1]['config']['grid'] / sms:.0f}",
            "puzzle_blocks": str(puzzle["blocks_per_sm"]),
            "puzzle_flight_kib": f"{recorded.one_tile_in_flight(at['async_halo']) / 1024:.0f}"}


def schedule_numbers(result: dict) -> dict:
    """Persistent blocks against one block per tile, at one stage and each variant's tuned tile
    and threads (:func:`~kernels.measure.recorded.schedule_gap`): each schedule's range of
    times over the copy."""
    gap = recorded.schedule_gap(result)
    return {s: ratio_range(min(g[s] for g in gap.values()), max(g[s] for g in gap.values()))
            for s in ("persistent", "per_tile")}
