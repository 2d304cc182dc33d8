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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import layout, variants as V
from ..edition import Text, both, listed as both_listed, millions, of, times, wrap
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
    at, device = f"n = 2^{int(np.log2(n))}, K = {k}", result["provenance"].get("device")
    return Table(Text(f"{at} on {device}", f"{at}, {device}"),
                 ["", Text("median µs", "중앙값 µs"), "GB/s", COPY_HEADER],
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


COPY_HEADER = Text("÷ copy", "÷ 복사")    # a column of times over the copy time
_CONSONANT_DIGITS = "013678"             # 영, 일, 삼, 육, 칠, 팔 end in a consonant


def _josa(word: str, after_consonant: str, after_vowel: str, read: str | None = None) -> str:
    """``word`` and the Korean particle that follows it as it is read (은/는, 이/가, 과/와, 을/를):
    after a Hangul syllable's final consonant, a digit read with one (0 영, 1 일, 3 삼, 6 육,
    7 칠, 8 팔), or a name ending in l, m or n (English names are read out: bulk 벌크, vec4
    벡포), ``after_consonant``; else ``after_vowel``. Closing brackets and quotes are skipped.
    ``read``: the word the particle goes with, where ``word`` adds a parenthesis to it
    (``bulk(pipelined와 동률)가``: bulk's particle)."""
    last = ((read or word).rstrip(")]}’”'\"") or " ")[-1]
    if "가" <= last <= "힣":
        final = (ord(last) - ord("가")) % 28 != 0
    else:
        final = last in _CONSONANT_DIGITS or last in "lmnLMN"
    return word + (after_consonant if final else after_vowel)


def schedule_words(persistent: bool) -> Text:
    """A launch schedule in words: persistent blocks, or one block per tile."""
    return (Text("persistent blocks", "퍼시스턴트 블록") if persistent
            else Text("one block per tile", "타일당 블록 하나"))


def stage_summary(result: dict) -> list[Text]:
    """What more stages did for persistent blocks (a sentence), then the best of each schedule
    (persistent blocks, one block per tile) of each staged variant, from the tuning: a table,
    a title and header line, then one row each."""
    sweep = stage_sweep(result)
    first, last = sweep[0], sweep[-1]
    fewest, most = first["config"]["stages"], last["config"]["stages"]
    faster_ = more_stages_faster(result)
    lines = [Text(f"- Persistent {first['name']} blocks: {first['ratio']:.2f}x the copy time with "
                  f"{fewest} stage{'s' if fewest > 1 else ''}, {last['ratio']:.2f}x with "
                  f"{most}: more stages made it {_faster_or_slower(faster_)}.",
                  f"- {first['name']}의 퍼시스턴트 블록: 스테이지 {fewest}개에서 복사 시간의 "
                  f"{first['ratio']:.2f}배, {most}개에서 {last['ratio']:.2f}배입니다. 스테이지를 "
                  f"늘리자 더 {'빨라졌습니다' if faster_ else '느려졌습니다'}.")]
    table = stage_table(result)
    return lines + [Text(en, ko) for en, ko in zip(table.in_("en").lines(),
                                                    table.in_("ko").lines())]


def stage_table(result: dict) -> Table:
    """The table of :func:`stage_summary`: the best of each schedule (persistent blocks, one
    block per tile) of each staged variant in the tuning, a row each."""
    rows = []
    for (variant, persistent), r in sorted(best_by_schedule(result).items()):
        c = r["config"]
        rows.append([variant, schedule_words(persistent), f"{r['ratio']:.3f}",
                     f"{c['tile']:d}", f"{c['threads']:d}",
                     f"{c['stages']:d}", f"{c['grid']:d}"])
    return Table(Text("The best of each schedule in the tuning run (time over the copy time):",
                      "튜닝 실행에서 스케줄마다 가장 빠른 구성(시간 ÷ 복사 시간):"),
                 [Text("variant", "변형"), Text("schedule", "스케줄"), COPY_HEADER,
                  Text("tile", "타일"), Text("threads", "스레드"), Text("stages", "스테이지"),
                  Text("blocks", "블록")], rows,
                 widths=[16, 18, 7, 6, 8, 7, 7], align="<<>>>>>")


def reading(result: dict, n: int = 2**26, k: int = 5) -> list[Text]:
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
    who_ko = (f"변형은 {', '.join([best, *tied])}(동률)로" if tied
              else f"변형인 {_josa(best, '은', '는')}")

    ratio = {v: times(at[v]["ratio"]) for v in ("async_halo", "tiled_sync", "naive", "vec4", best)}
    vs_tiled, vs_naive = faster(at, "async_halo", "tiled_sync"), faster(at, "async_halo", "naive")

    def than(yes, end):   # "빠르고" / "빠릅니다", "느리고" / "느립니다"
        return {("고", True): "빠르고", ("고", False): "느리고",
                ("다", True): "빠릅니다", ("다", False): "느립니다"}[end, yes]
    lines = [Text(f"- The puzzle's one-stage async tile (async_halo) takes "
                  f"{ratio['async_halo'].en} the copy time: {_faster_or_slower(vs_tiled)} than the synchronous tile "
                  f"({ratio['tiled_sync'].en}), {_faster_or_slower(vs_naive)} than naive loads "
                  f"({ratio['naive'].en}).",
                  f"- 퍼즐의 한 스테이지 비동기 타일(async_halo)은 복사 시간의 "
                  f"{ratio['async_halo'].ko}가 걸립니다. 동기식 타일"
                  f"({ratio['tiled_sync'].ko})보다 {than(vs_tiled, '고')}, naive 로드"
                  f"({ratio['naive'].ko})보다 {than(vs_naive, '다')}."),
             Text(f"- The fastest asynchronous {who} {ratio[best].en}; plain float4 loads into "
                  f"registers (vec4) take {ratio['vec4'].en}.",
                  f"- 가장 빠른 비동기 {who_ko} {ratio[best].ko}가 걸리고, 레지스터로 "
                  f"읽는 일반 float4 로드(vec4)는 {ratio['vec4'].ko}가 걸립니다.")]
    for peer in peers(at):
        speedup = at[peer]["median_us"] / at[best]["median_us"]
        lines.append(Text(f"- {best} is {speedup:.2f}x faster than {peer}.",
                          f"- {_josa(best, '은', '는')} {peer}보다 {speedup:.2f}배 빠릅니다.")
                     if speedup >= 1 else
                     Text(f"- {best} is {1 / speedup:.2f}x slower than {peer}.",
                          f"- {_josa(best, '은', '는')} {peer}보다 {1 / speedup:.2f}배 느립니다."))
    return lines


def what_won(result: dict, variant: str = "pipelined", k: int = 5) -> Text:
    """What the tuning chose for ``variant`` and how that differs from async_halo: the sentence
    notebook 04 prints under the stage sweep."""
    record("result", result, ("configs",))
    variant, k = choice("variant", variant, tuple(result["configs"])), integer("k (taps)", k, 1)
    record(f"result['configs'][{variant!r}]", result["configs"][variant],
           ("tile", "threads", "stages", "persistent"))
    c = result["configs"][variant]
    stages = ("one block per tile, so no tile of a block is in flight while it computes another"
              if not c["persistent"] else f"persistent blocks with {c['stages']} stage(s)")
    stages_ko = ("타일당 블록 하나이므로, 블록이 한 타일을 계산하는 동안 그 블록의 다른 타일이 "
                 "진행 중인 일은 없습니다" if not c["persistent"]
                 else f"스테이지 {c['stages']}개의 퍼시스턴트 블록입니다")
    return Text(f"The tuned {variant}: tile {c['tile']}, {c['threads']} threads, {c['stages']} "
                f"stage(s), {stages}. What it has that async_halo lacks is everything but stages: "
                f"16-byte copies (a quarter of the copy instructions), a tile of {c['tile']} floats "
                f"instead of 256 (fewer blocks, fewer barriers per byte), 4 outputs per thread from "
                f"a window in registers (fewer shared-memory loads), and many resident blocks whose "
                f"copies are in flight together.",
                f"튜닝된 {variant}의 구성은 타일 {c['tile']}, 스레드 {c['threads']}개, 스테이지 "
                f"{c['stages']}개이고, {stages_ko}. async_halo와 다른 점은 스테이지가 아니라 그 "
                f"밖의 모든 것입니다. 16바이트 복사(복사 명령어가 네 배 적습니다), 256 대신 float "
                f"{c['tile']}개짜리 타일(블록이 적고 바이트당 배리어도 적습니다), 레지스터의 "
                f"윈도우에서 계산하는 스레드당 출력 4개(공유 메모리 로드가 적습니다), 그리고 복사가 "
                f"함께 진행 중인 많은 상주 블록입니다.")


def ncu_reading(profile: dict, n: int = 2**26) -> list[Text]:
    """What a recorded Nsight Compute profile (:func:`ncu_summary`) at ``n`` outputs says, one
    line each: bytes read and written against x and y, and what limits async_halo."""
    _profile("profile", profile, ("dram__bytes_read.sum", "dram__bytes_write.sum"))
    n = integer("n", n, 1)
    mb = 4 * n / 1e6
    read = [m["dram__bytes_read.sum"] for m in profile.values()]
    written = [m["dram__bytes_write.sum"] for m in profile.values()]
    r_span, w_span = (_range(min(v), max(v), ".1f") for v in (read, written))
    lines = [Text(f"- DRAM read: {r_span} MB per kernel, for the {mb:.1f} MB of x: every kernel "
                  "reads its input once; none loses time to extra bytes.",
                  f"- DRAM 읽기: 커널마다 {r_span} MB이고, x는 {mb:.1f} MB입니다. 모든 커널이 "
                  "입력을 한 번만 읽으므로, 추가 바이트 때문에 시간을 잃는 커널은 없습니다."),
             Text(f"- DRAM written while the kernel runs: {w_span} MB, for the {mb:.1f} MB of y. "
                  f"The rest, up to {mb - min(written):.1f} MB, is presumably still in the L2 "
                  "cache (which writes back) when the kernel ends, and reaches DRAM after it.",
                  f"- 커널이 도는 동안 DRAM에 쓴 양: {w_span} MB이고, y는 {mb:.1f} MB입니다. "
                  f"나머지 최대 {mb - min(written):.1f} MB는 아마 커널이 끝날 때 아직 L2 "
                  "캐시(라이트백 캐시)에 있다가, 그 뒤에 DRAM에 기록될 것입니다.")]
    halo, pipe = profile.get("conv1d_async_halo"), profile.get("conv1d_pipelined")
    if halo and pipe:
        def ratio(metric):
            return halo[metric] / pipe[metric]
        inst = f"{ratio('smsp__inst_executed.sum'):.1f}"
        wave = f"{ratio('l1tex__data_pipe_lsu_wavefronts_mem_shared.sum'):.1f}"
        sm, dram = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed")
        lines.append(Text(
            f"- async_halo executes {inst}x the instructions of "
            f"pipelined and {wave}x its "
            f"shared-memory wavefronts; the busiest unit of its SMs runs at "
            f"{halo[sm]:.0f}% of its peak "
            f"(sm__throughput) while DRAM runs at "
            f"{halo[dram]:.0f}% of its own "
            f"(pipelined: {pipe[sm]:.0f}% and "
            f"{pipe[dram]:.0f}%): far more "
            "instructions and shared-memory accesses per byte — 4-byte copies, one output per "
            "thread — and, with its tile of 256, little requested per block at a time "
            "(tile_effect).",
            f"- async_halo가 실행하는 명령어는 pipelined의 {inst}배, 공유 메모리 웨이브프런트는 "
            f"{wave}배입니다. SM에서 가장 바쁜 유닛의 사용률은 최대치 대비 {halo[sm]:.0f}%"
            f"(sm__throughput), DRAM 사용률은 {halo[dram]:.0f}%입니다(pipelined는 "
            f"{pipe[sm]:.0f}%와 {pipe[dram]:.0f}%). 바이트당 명령어와 공유 메모리 접근이 훨씬 "
            "많고(4바이트 복사, 스레드당 출력 하나), 타일이 256이라 블록마다 한 번에 요청하는 "
            "양이 적습니다."))
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

    def sentence(self) -> Text:
        a, c = self.async_row, self.control_row
        name = self.best_async + (f" (tied with {listed(self.tied)})" if self.tied else "")
        name_ko = self.best_async + (f"({_josa(', '.join(self.tied), '과', '와')} 동률)"
                                     if self.tied else "")
        how = (f" in the same configuration ({of(self.matched, 'en')})" if self.matched
               else ", each tuned")
        how_ko = f", 같은 구성({of(self.matched, 'ko')})" if self.matched else ", 각자 튜닝한 구성"

        def timed(r):   # the median and the interquartile range
            return f"{r['median_us']:.1f} µs [{r['q1_us']:.1f}-{r['q3_us']:.1f}]"
        if self.winner == "tie":
            return Text(f"K = {self.k}{how}: a tie, {name} {timed(a)} and {self.control} "
                        f"{timed(c)}.",
                        f"K = {self.k}{how_ko}: 동률입니다. {name_ko} {timed(a)}, "
                        f"{self.control} {timed(c)}.")
        fast, slow = ((name, a), (self.control, c)) if self.winner == "async" else (
            (self.control, c), (name, a))
        (fast_ko, read), slow_ko = (((name_ko, self.best_async), self.control)
                                    if self.winner == "async"
                                    else ((self.control, None), name_ko))
        return Text(f"K = {self.k}{how}: {fast[0]} {timed(fast[1])} is {self.speedup:.2f}x faster "
                    f"than {slow[0]} {timed(slow[1])}.",
                    f"K = {self.k}{how_ko}: {_josa(fast_ko, '이', '가', read)} {slow_ko}보다 "
                    f"{self.speedup:.2f}배 빠릅니다({timed(fast[1])} 대 {timed(slow[1])}).")


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
        how = Text(f"tile {tile}, {threads} threads, one block per tile, one stage",
                   f"타일 {tile}, 스레드 {threads}개, 타일당 블록 하나, 스테이지 하나")
    if not candidates:
        raise ValueError(f"no asynchronous variant at n = {n} with {k} taps"
                         + (f" was tried in {of(how, 'en')}" if matched else ""))
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

    rows = [[Text("copy µs", "복사 µs"), *(f"{some[k]['copy_us']:.1f}" for k in ks)],
            ["FMA µs", *(f"{some[k]['fma_us']:.1f}" + ("*" if some[k]["limit"] == "fma" else "")
                         for k in ks)]]
    for v in names:
        rows.append([v, *(f"{cell[v, k]['ratio']:.2f}" if (v, k) in cell else "" for k in ks)])
    at, device = f"n = 2^{int(np.log2(n))}", rec["provenance"].get("device")
    return Table(Text(f"{at} on {device}: time over the bound, max(copy, FMA time)",
                      f"{at}, {device}: 상한 대비 시간, 상한 = max(복사 시간, FMA 시간)"),
                 ["K", *(str(k) for k in ks)], rows,
                 widths=[17] + [7] * len(ks), align="<" + ">" * len(ks), sep="", strip=True)


def control_reading(profile: dict, control: str = "staged_sync",
                    asynchronous=("pipelined", "bulk"), rec: dict | None = None,
                    n: int = 2**26, k: int = 31) -> list[Text]:
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

    def each(metric, fmt, lang="en"):
        return ", ".join(f"{v} {of(fmt(m(v, metric)), lang)}" for v in names)

    def percent(x):
        return f"{x:.0f}%"
    stalled = ", ".join(f"{v} {stalls[v]:.1f}" for v in names)
    lines = [
        Text(f"- About the same work: instructions executed {each(inst, millions)} "
             "(loops that poll a barrier until a copy lands count too, so not all of it is work); "
             f"shared-memory wavefronts {each(smem, millions)}.",
             f"- 하는 일은 거의 같습니다. 실행한 명령어는 {each(inst, millions, 'ko')}입니다(복사가 "
             "도착할 때까지 배리어를 폴링하는 루프도 세므로, 모두가 실제 작업은 아닙니다). 공유 메모리 "
             f"웨이브프런트는 {each(smem, millions, 'ko')}입니다."),
        Text("- Warp-cycles stalled on a long scoreboard (waiting for an L1TEX result: global, "
             "local or texture memory) per output, " + stalled
             + f"; DRAM at {each(dram, percent)} of its peak.",
             "- L1TEX의 결과(전역, 로컬, 텍스처 메모리)를 기다리며 long scoreboard에서 스톨한 "
             f"워프-사이클은 출력당 {stalled}입니다. DRAM 사용률은 최대치 대비 "
             f"{each(dram, percent)}입니다.")]
    if rec is None:
        lines.append(Text(f"- Warp slots in use: {each(active, percent)} of what an SM can hold.",
                          f"- 사용 중인 워프 슬롯은 SM이 품을 수 있는 최대치의 "
                          f"{each(active, percent)}입니다."))
    else:
        occ = occupancy(rec, n, k, names)

        def slots(v):
            return (f"{m(v, active):.0f}%", f"{100 * occ[v]['warp_share']:.0f}%",
                    occ[v]["regs"], occ[v]["blocks_per_sm"])
        lines.append(Text(
            "- Warp slots in use: " + ", ".join(
                f"{v} {used} (registers allow {allowed}: {regs} registers per thread, "
                f"{blocks} blocks per SM)" for v in names
                for used, allowed, regs, blocks in [slots(v)]) + ".",
            "- 사용 중인 워프 슬롯: " + ", ".join(
                f"{v} {used}(레지스터가 허용하는 최대 {allowed}, 스레드당 레지스터 {regs}개, "
                f"SM당 블록 {blocks}개)" for v in names
                for used, allowed, regs, blocks in [slots(v)]) + "."))
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


def _range(lo: float, hi: float, spec: str = ".2f") -> str:
    """"lo-hi" in ``spec``, or one value where the two print alike."""
    a, b = format(lo, spec), format(hi, spec)
    return a if a == b else f"{a}-{b}"


def _span(lo: float, hi: float) -> Text:
    """A range of ratios, "1.00-1.01x" ("1.00~1.01배"), or one value, "1.01x", where the two
    agree to two decimals."""
    one = _range(lo, hi)
    return Text(one + "x", one.replace("-", "~") + "배")   # a Korean range: 1.05~1.06배


def _ratios(rows) -> Text:
    """Rows' ratios to the bound as a range, "1.00-1.01x", or one value, "1.01x"."""
    return _span(min(r["ratio"] for r in rows), max(r["ratio"] for r in rows))


def _config_words(c: dict) -> Text:
    """A tuned configuration in words: its tile, stages and schedule."""
    stages = c.get("stages") or 1
    return (Text(f"tile {c['tile']}, ", f"타일 {c['tile']}, ")
            + (Text("one stage", "스테이지 하나") if stages == 1
               else Text(f"{stages} stages", f"스테이지 {stages}개"))
            + ", " + schedule_words(bool(c.get("persistent"))))


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


def lessons(result: dict, rec: dict, n: int = 2**26) -> list[Text]:
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
        return both_listed(taps) if taps else Text("none", "없음")

    def spread(taps, speedups=None):
        speedups = speedups or {k: v[k].speedup for k in taps}
        return _span(min(speedups[k] for k in taps), max(speedups[k] for k in taps))

    up_vec4, up_sync = int(said["vec4_up_to"]), int(said["sync_up_to"])
    later = [k for k in v if k > up_vec4 and "vec4" in rows[k]]
    vec4_bound = _ratios([rows[k]["vec4"] for k in v if k <= up_vec4])
    vec4 = Text(f"- Plain float4 loads (vec4): first while the taps are few. Up to K = {up_vec4} "
                f"they tie the fastest kernel ({vec4_bound.en} the bound)",
                f"- 일반 float4 로드(vec4): 탭이 적을 때 가장 먼저 고르세요. K = {up_vec4}까지는 "
                f"가장 빠른 커널과 동률입니다(상한의 {vec4_bound.ko})")
    vec4 += (Text(f"; from K = {later[0]} their register window costs them ("
                  + ", ".join(f"{rows[k]['vec4']['ratio']:.2f}x at K = {k}" for k in later) + ").",
                  f". K = {later[0]}부터는 레지스터 윈도우가 비용이 됩니다("
                  + ", ".join(f"K = {k}에서 {rows[k]['vec4']['ratio']:.2f}배" for k in later)
                  + ").")
             if later else ".")
    sync_bound = _ratios([rows[k]["staged_sync"] for k in v if k <= up_sync])
    staged = (Text(f"- Synchronous 16-byte staging (staged_sync): up to K = {up_sync} it ties the "
                   f"fastest kernel ({sync_bound.en} the bound)",
                   f"- 동기식 16바이트 스테이징(staged_sync): K = {up_sync}까지 가장 빠른 커널과 "
                   f"동률입니다(상한의 {sync_bound.ko})")
              + (Text(f"; at K = {ks(few).en} it beats every asynchronous kernel by "
                      f"{spread(few).en}.",
                      f". K = {ks(few).ko}에서는 어느 비동기 커널보다도 {spread(few).ko} "
                      "빠릅니다.") if few else "."))

    # cp.async against the control alone: the choice on an A100 (sm_80), which has no bulk copy
    pipe = {k: compare(rows[k]["pipelined"], rows[k]["staged_sync"]) for k in v
            if "pipelined" in rows[k]}
    pipe_speed = {k: max(rows[k]["pipelined"]["median_us"], rows[k]["staged_sync"]["median_us"])
                  / min(rows[k]["pipelined"]["median_us"], rows[k]["staged_sync"]["median_us"])
                  for k in pipe}
    won = [k for k in pipe if pipe[k] == "pipelined"]
    lost = [k for k in pipe if pipe[k] == "staged_sync"]
    cp = Text(f"- cp.async (pipelined, sm_80 or newer): at K = {ks(pipe_ties).en} it ties bulk",
              f"- cp.async(pipelined, sm_80 이상): K = {ks(pipe_ties).ko}에서 bulk와 동률입니다")
    for k in pipe_untied:
        m = _same_config(rows[k]["pipelined"], matched[k].control_row["config"]["tile"],
                         matched[k].control_row["config"]["threads"])
        slower = f"{m['median_us'] / matched[k].async_row['median_us']:.2f}"
        tuned = _config_words(rows[k]["pipelined"]["config"])
        cp += Text(f" (at K = {k} in its tuned {tuned.en}; in the control's configuration it is "
                   f"{slower}x slower than bulk)",
                   f"(K = {k}에서는 튜닝된 구성인 {tuned.ko}에서 동률이고, 대조군의 구성에서는 "
                   f"bulk보다 {slower}배 느립니다)")
    t4 = Text(". On a T4 it compiles to plain loads.", ". T4에서는 일반 로드로 컴파일됩니다.")
    if won:
        cp += Text(". On an A100, which has no bulk copy, it is the asynchronous choice: against "
                   f"staged_sync it wins at K = {ks(won).en} by {spread(won, pipe_speed).en}"
                   + (f" and loses at K = {ks(lost).en} by {spread(lost, pipe_speed).en}"
                      if lost else ""),
                   ". 벌크 복사가 없는 A100에서는 이것이 비동기 방식의 선택지입니다. staged_sync와 "
                   f"비교하면 K = {ks(won).ko}에서 {spread(won, pipe_speed).ko} "
                   + (f"빠르고, K = {ks(lost).ko}에서 {spread(lost, pipe_speed).ko} 느립니다"
                      if lost else "빠릅니다"))
    cp += t4
    bulk = (Text(f"- The bulk copy (bulk, sm_90): with many taps. At K = {ks(many).en} it beats "
                 f"the control by {spread(many).en}",
                 f"- 벌크 복사(bulk, sm_90): 탭이 많을 때 고르세요. K = {ks(many).ko}에서 대조군보다 "
                 f"{spread(many).ko} 빠릅니다")
            + (Text(f"; at K = {ks(ties).en} the two tie.", f". K = {ks(ties).ko}에서는 둘이 동률입니다.")
               if ties else ".")
            + Text(f" Asynchrony paid once the FMA time reached about half the copy time "
                   f"(K = {said['first_async_k']}: {said['async_fma_us']} of {said['async_copy_us']} "
                   f"µs, {said['async_share']}); at "
                   f"{said['tie_share']} (K = {said['tie_k']}) it tied.",
                   f" 비동기성은 FMA 시간이 복사 시간의 약 절반에 이르자 효과를 냈습니다"
                   f"(K = {said['first_async_k']}: {said['async_copy_us']} µs 가운데 "
                   f"{said['async_fma_us']} µs, {said['async_share']}). 비율이 "
                   f"{said['tie_share']}일 때(K = {said['tie_k']})는 비겼습니다."))
    one_tile = tuned_one_tile(rec, n)
    ring_ties = all(tie(x, y) for k in (5, 31) if k in v
                    for x, y in ring_best(rec, n, k).values())
    producer = Text("- A producer warp: when issuing the copies costs the compute warps time, "
                    "which one bulk copy per tile does not. warp_specialized ",
                    "- 프로듀서 워프: 복사를 발행하는 일이 계산 워프의 시간을 잡아먹을 때 쓰세요. "
                    "타일마다 벌크 복사 하나를 발행하는 정도로는 그렇지 않습니다. warp_specialized는 ")
    producer += (Text("ties bulk at every K", "모든 K에서 bulk와 동률입니다") if ws_ties
                 else Text("does not tie bulk at every K", "모든 K에서 bulk와 동률은 아닙니다"))
    if one_tile:
        producer += Text(f"; tuned, at K = {ks(one_tile).en} it runs one stage, one block per "
                         "tile, so its producer issues one copy and is done",
                         f". 튜닝 결과 K = {ks(one_tile).ko}에서는 스테이지 하나, 타일당 블록 "
                         "하나로 돌기 때문에, 프로듀서가 복사 하나를 발행하면 할 일이 끝납니다")
        producer += (Text("; with a ring of stages, too, the two tie (ring_reading).",
                          ". 스테이지 링에서도 둘은 동률입니다.") if ring_ties
                     else Text("; with a ring of stages they do not tie (ring_reading).",
                               ". 스테이지 링에서는 동률이 아닙니다."))
    else:
        producer += "."
    first_stages, last_stages = sweep[0]["config"]["stages"], sweep[-1]["config"]["stages"]
    enough = f"{law['in_flight'][first_stages] / law['needed']:.1f}"
    stages = Text(f"- More stages: only when Little's law says the bytes in flight are short. One "
                  f"stage already has {enough}x what the copy rate needs; {last_stages} stages "
                  f"take {sweep[-1]['ratio']:.2f}x the copy time against {sweep[0]['ratio']:.2f}x.",
                  f"- 스테이지 늘리기: 리틀의 법칙이 진행 중인 바이트가 모자란다고 할 때만 쓰세요. "
                  f"스테이지 하나로도 이미 복사 속도에 필요한 양의 {enough}배가 진행 중입니다. "
                  f"스테이지 {last_stages}개는 복사 시간의 {sweep[-1]['ratio']:.2f}배가 걸리고, "
                  f"하나일 때는 {sweep[0]['ratio']:.2f}배입니다.")
    return [vec4, staged, cp, bulk, stages, producer]


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
                 b: str = "bulk") -> list[Text]:
    """At each K of ``ks``, :func:`ring_best`: ``a`` against ``b`` at each stage count of
    persistent blocks, and whether they tie (:func:`tie`). One line per K."""
    lines = []
    for k in sequence("ks", ks, "numbers of taps"):
        ring = ring_best(rec, n, k, a, b)
        each = [Text(f"{'one stage' if s == 1 else f'{s} stages'} {x['median_us']:.1f} against "
                     f"{y['median_us']:.1f} µs" + ("" if tie(x, y) else " (no tie)"),
                     f"스테이지 {s}개일 때 {x['median_us']:.1f} 대 "
                     f"{y['median_us']:.1f} µs" + ("" if tie(x, y) else "(동률 아님)"))
                for s, (x, y) in ring.items()]
        every = all(tie(x, y) for x, y in ring.values())
        first, second = V.get(a).name, V.get(b).name
        lines.append(Text(f"- K = {k}, persistent blocks, {first} against {second}: ",
                          f"- K = {k}, 퍼시스턴트 블록, {first} 대 {second}: ")
                     + Text(", ", ", ").join(each)
                     + (Text("; a tie at every stage count.", ". 모든 스테이지 수에서 동률입니다.")
                        if every else "."))
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
            "inst": {V.get(v).name: millions(m(v, 'smsp__inst_executed.sum'))
                     for v in (*sync, *asynchronous)}}


def tile_effect(rec: dict, variant: str = "async_halo", n: int = 2**26, k: int = 5) -> Text:
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
    at, speedup = f"n = 2^{int(np.log2(n))}, K = {k}", f"{by_tile[small] / by_tile[large]:.2f}"
    times = ", ".join(f"tile {t} {us:.1f} µs" for t, us in sorted(by_tile.items()))
    times_ko = ", ".join(f"타일 {t} {us:.1f} µs" for t, us in sorted(by_tile.items()))
    return Text(f"- {variant} at {at}, the same copies with other tiles (roofline run): " + times
                + f"; tile {large} is {speedup}x faster than tile {small}, with {large // small}x "
                "the bytes requested per block.",
                f"- {at}에서 {variant}, 같은 복사를 다른 타일로(루프라인 실행): " + times_ko
                + f". 타일 {_josa(str(large), '이', '가')} 타일 {small}보다 {speedup}배 빠르고, "
                f"블록마다 요청하는 바이트는 {large // small}배입니다.")


# --- printed on the page ------------------------------------------------------------------------

PAGE_CHARS = 80   # a printed line that fits the book's text column (about 85 of its code font)


def for_page(lines, width: int = PAGE_CHARS) -> str:
    """``lines`` (a string, or a list of them) as a cell prints them on the page: each wrapped
    at ``width`` columns (a Hangul syllable takes two), words unbroken, a bullet's (``- ``)
    continuation lines indented under its text. The words and numbers are the lines' own; where
    a line is a :class:`~kernels.edition.Text`, the result is one too, each language wrapped."""
    if isinstance(lines, str):
        lines = [lines]
    lines = [text(f"lines[{i}]", line) for i, line in enumerate(sequence("lines", lines, "strings"))]
    width = integer("width", width, 20)

    def page(lang):
        out = []
        for line in lines:
            for part in of(line, lang).split("\n"):
                out.extend(wrap(part, width, "  " if part.startswith("- ") else "")
                           if part.strip() else [part])
        return "\n".join(out)
    return Text(page("en"), page("ko")) if both(lines) else page("en")


NCU_TABLE = (("gpu__time_duration.sum", Text("time µs", "시간 µs"), ".1f"),
             ("dram__bytes_read.sum", Text("DRAM MB read", "DRAM 읽기 MB"), ".1f"),
             ("dram__bytes_write.sum", Text("DRAM MB written", "DRAM 쓰기 MB"), ".1f"),
             ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
              Text("DRAM % of peak", "DRAM 최대치 %"), ".1f"),
             ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
              Text("SM % of peak", "SM 최대치 %"), ".1f"),
             ("smsp__inst_executed.sum", Text("instructions", "명령어"), ".3g"),
             ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
              Text("smem wavefronts", "smem 웨이브프런트"), ".3g"))


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

    none = Text("none", "없음")

    def spread(taps):
        if not taps:
            return none
        return _span(min(v[k].speedup for k in taps), max(v[k].speedup for k in taps))

    def named(taps):   # "3, 5 and 9" ("3, 5, 9"): the glue keeps its quotes, not a tuple
        return both_listed(taps) if taps else none
    out = {"sync_ks": named(ks("sync")), "sync_range": spread(ks("sync")),
           "tie_ks": named(ks("tie")), "async_ks": named(ks("async")),
           "first_async_k": str(min(ks("async"))) if ks("async") else none}
    for k in ks("async"):
        out[f"async_k{k}"] = times(v[k].speedup)
    return out


_CLAIMS = {   # what notebook 04's sentences say of the recording, in the words of each edition
    "vec4": Text("vec4 is at least as close to the copy as every asynchronous kernel",
                 "vec4는 어느 비동기 커널 못지않게 복사에 가깝다"),
    "naive": Text("naive is faster than tiled_sync and async_halo",
                  "naive가 tiled_sync와 async_halo보다 빠르다"),
}


def live_note(live: dict | None, result: dict, n: int = 2**26, k: int = 5) -> Text:
    """Whether a live sweep agrees with what notebook 04's sentences say of the recording at
    (n, K): plain float4 loads (vec4) at least as close to the copy as every asynchronous
    variant, and naive loads faster than both tiled kernels. One sentence naming what differs;
    with ``live`` None (no GPU), the sentence that says nothing was measured live."""
    def claims(rows):
        asyn = [v for v in V.names(asynchronous=True, correct=True) if v in rows]
        out = {}
        if "vec4" in rows and asyn:
            out["vec4"] = all(
                rows["vec4"]["median_us"] <= rows[v]["median_us"] or tie(
                    _timed("vec4", rows["vec4"]), _timed(v, rows[v])) for v in asyn)
        if {"naive", "tiled_sync", "async_halo"} <= set(rows):
            out["naive"] = (
                faster(rows, "naive", "tiled_sync") and faster(rows, "naive", "async_halo"))
        return out
    if live is None:
        return Text("No GPU here: nothing measured live; the figures above are the recording.",
                    "여기에는 GPU가 없어 실시간으로 잰 것이 없습니다. 위의 그림은 기록입니다.")
    mine, theirs = claims(rows_at(live, n, k)), claims(rows_at(result, n, k))
    device = live.get("provenance", {}).get("device")
    on, on_ko = (f"On {device}", f"{device}에서") if device else ("On this GPU", "이 GPU에서")
    differ = [c for c in theirs if c in mine and mine[c] != theirs[c]]
    if not differ:
        held = [_CLAIMS[c] for c in theirs if c in mine]
        return Text(f"{on} the sentences above hold as on the H200 ("
                    + "; ".join(c.en for c in held) + ").",
                    f"{on_ko}도 위의 문장들이 H200에서처럼 성립합니다("
                    + ", ".join(f"‘{c.ko}’" for c in held) + ").")

    def yes(x, lang):
        return {"en": ("no", "yes"), "ko": ("거짓", "참")}[lang][bool(x)]
    return Text(f"{on} this differs from the H200 sentences above: "
                + "; ".join(f"{_CLAIMS[c].en}: {yes(mine[c], 'en')} here, "
                            f"{yes(theirs[c], 'en')} on the H200" for c in differ) + ".",
                f"{on_ko}는 위의 H200 문장과 다릅니다. "
                + " ".join(f"‘{_CLAIMS[c].ko}’는 여기서 {yes(mine[c], 'ko')}이고 H200에서는 "
                           f"{yes(theirs[c], 'ko')}입니다." for c in differ))


# --- the lines notebooks 04 and 05 print around their tables and figures ----------------------

def provenance(p: dict, live: bool = False) -> Text:
    """Where and when a recording was made (its ``provenance``), a line for the page and a
    figure's label; ``live``: measured now, on this GPU."""
    if flag("live", live):
        record("provenance", p, ("device",))
        return Text(f"Measured live on {p['device']}.", f"{p['device']}에서 지금 잰 값.")
    record("provenance", p, ("device", "driver", "cupy", "date"))
    return Text(f"RECORDED on {p['device']} (driver {p['driver']}, CuPy {p['cupy']}, "
                f"{p['date'][:10]}).",
                f"기록: {p['device']}(드라이버 {p['driver']}, CuPy {p['cupy']}, {p['date'][:10]}).")


def configurations(result: dict, live: bool = False) -> Text:
    """The configurations a recording's tuning chose (``configs``), a line each; ``live``: a live
    run's, tuned over a smaller grid."""
    record("result", result, ("configs",))
    head = (Text("configurations (a smaller tuning grid than the recording's):",
                 "구성(기록보다 작은 튜닝 그리드):") if flag("live", live)
            else Text("configurations:", "구성:"))
    lines = [f"  {variant:16s} " + ", ".join(f"{key}={value}" for key, value in config.items())
             for variant, config in result["configs"].items()]
    return Text("\n", "\n").join([head, *lines])


def matched_reading(rec: dict, n: int = 2**26) -> list[Text]:
    """The verdicts in the control's own configuration (:func:`verdicts` with ``matched``), under
    a line that says so: one line each."""
    return [Text("In the control's own configuration, so that only the copy differs:",
                 "대조군의 구성을 그대로 써서 복사만 다르게 한 비교:")] + [
        "- " + v.sentence() for v in verdicts(rec, n, matched=True).values()]


def launch_reading(rec: dict) -> Text:
    """The seed size's per-launch times (graph replay), a line each, then the share of each
    kernel's time an empty launch takes (:func:`launch_overhead`)."""
    seed = record("rec['seed']", _roofline(rec).get("seed"), ("rows",))
    lines = [Text(f"{r['name']:12s} {r['median_us']:5.2f} µs per launch",
                  f"{r['name']:12s} 런치당 {r['median_us']:5.2f} µs") for r in seed["rows"]]
    lines += [Text(f"an empty launch is {100 * share:.0f}% of {name}'s time",
                   f"빈 런치는 {name} 시간의 {100 * share:.0f}%입니다")
              for name, share in launch_overhead(rec).items()]
    return Text("\n", "\n").join(lines)


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
    counts the staged kernels' ring, whose buffers are whole 16-byte chunks)."""
    c = row["config"]
    return c["blocks_per_sm"] * (c["tile"] + row["k"] - 1) * 4


def tuned_asynchronous(result: dict) -> tuple[str, ...]:
    """The asynchronous variants the recording tuned (those in its ``configs``)."""
    return tuple(v for v in V.names(asynchronous=True) if v in result["configs"])


def asynchrony_cost(result: dict, rows: dict[str, dict], control: str = "staged_sync") -> dict:
    """The control's time over the copy time beside the fastest and slowest tuned asynchronous
    variant's (``"control"``, ``"lo"``, ``"hi"``), and ``"cost"``: how much longer, at least,
    an asynchronous kernel took than the control (a fraction)."""
    ratios = [rows[v]["ratio"] for v in tuned_asynchronous(result) if v in rows]
    if not ratios or control not in rows:
        raise ValueError("the rows hold no tuned asynchronous variant or no control")
    return {"control": rows[control]["ratio"], "lo": min(ratios), "hi": max(ratios),
            "cost": min(ratios) / rows[control]["ratio"] - 1}


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


def flight_table(result: dict) -> Table:
    """The stage sweep beside the bytes its persistent blocks keep in flight: stages, blocks per
    SM, KiB in flight per SM (:func:`bytes_in_flight`), GB/s, time over the copy's."""
    record("result", result, ("provenance", "stage_sweep"))
    sms = integer("multiprocessors", result["provenance"]["multiprocessors"], 1)
    return Table("", [Text("stages", "스테이지"), Text("blocks per SM", "SM당 블록"),
                      Text("KiB in flight per SM", "SM당 진행 중 KiB"), "GB/s",
                      Text("÷ copy", "÷ 복사")],
                 [[r["config"]["stages"], f"{r['config']['grid'] / sms:.0f}",
                   f"{bytes_in_flight(r, sms) / 1024:.1f}", f"{r['gbps']:.0f}",
                   f"{r['ratio']:.2f}"] for r in stage_sweep(result)])

