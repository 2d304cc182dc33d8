"""Figures for the book, made for the page they sit on (:mod:`.figure`). Each function draws
data it is given (or computes with the public API) and returns a :class:`~.figure.PageFigure` (a
matplotlib Figure made without pyplot, so that a notebook shows it exactly once, as the value of
its cell, or through ``display``); nothing here measures or decides correctness."""

from __future__ import annotations

import re

import matplotlib as mpl
import numpy as np
from matplotlib.patches import Patch, Rectangle

from ..edition import Text
from ..geometry import MAX_STAGES, launch_config, valid_tile
from ..reference import error_bound, reference
from ..validate import choice, flag, integer
from .figure import in_language as _of, on_page, page_figure, title as _title
from .halo import halo_cells
from .schedule import PHASES_KO

TILE_COLOURS = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff", "#f6bd60"]


def _tile_colour(t: int) -> str:
    return TILE_COLOURS[t % len(TILE_COLOURS)]


@on_page
def draw_tiles(n: int = 100, tile: int = 32, k: int = 5):
    """The vector cut into tiles (top row) and, under it, each block's shared-memory buffer:
    its own tile and its halo cells, each drawn under the input it copies, in the colour of the
    tile it comes from; cells outside the vector (at both ends, and the rest of a last partial
    tile) are zeros."""
    cfg = launch_config(n, k, tile)
    if cfg.tiles * cfg.tile > 4096:
        raise ValueError(f"draw_tiles draws every cell: at most 4096 (tiles x tile), got "
                         f"{cfg.tiles} tiles of {cfg.tile}; use a smaller n or tile")
    left, right = k // 2, k - 1 - k // 2
    rows, end = cfg.tiles, cfg.tiles * tile   # the last tile may run past n
    fig = page_figure(1.3 + 0.32 * (rows + 1))
    ax = fig.subplots()
    top = rows + 0.6

    def cell(i, y, fc, **style):
        ax.add_patch(Rectangle((i, y), 1, 0.8, fc=fc, **style))

    zero = dict(ec="black", lw=0.4, hatch="xxx")
    for i in range(-left, end + right):
        if 0 <= i < n:
            cell(i, top, _tile_colour(i // tile), ec="white", lw=0.2)
        else:
            cell(i, top, "white", ec="grey", ls=":", lw=0.5)   # the implicit zeros
    for b in range(rows):
        y, start = rows - 1 - b, b * tile
        for i in range(start, start + tile):
            if i < n:
                cell(i, y, _tile_colour(b), ec="white", lw=0.2)
            else:
                cell(i, y, "white", **zero)   # past the end of the vector: zero-filled
    for h in halo_cells(n, tile, k):
        y = rows - 1 - h.block
        if h.source == "zero":
            cell(h.index, y, "white", **zero)
        else:
            cell(h.index, y, _tile_colour(h.index // tile), ec="black", lw=0.4, hatch="////")
    # the rows' names as tick labels, left of the axes: they never cover a cell
    ax.set_yticks([top + 0.4] + [rows - 1 - b + 0.4 for b in range(rows)],
                  ["x"] + [Text(f"block {b}", f"블록 {b}") for b in range(rows)])
    ax.tick_params(axis="y", length=0)
    ax.get_yticklabels()[0].set(fontweight="bold", fontfamily="DejaVu Sans")   # no bold Hangul
    ax.set_xlim(-left - 1, end + right + 1)
    ax.set_ylim(-0.3, top + 1.0)
    ax.set_xlabel(Text("global index i", "전역 인덱스 i"))
    ax.spines[["left", "right", "top"]].set_visible(False)
    fig.legend(handles=[Patch(fc="#dddddd", ec="black", hatch="////",
                              label=Text("halo copied from a neighbour tile",
                                       "이웃 타일에서 복사한 헤일로")),
                        Patch(fc="white", ec="black", hatch="xxx",
                              label=Text("outside the vector: zero", "벡터 바깥: 0"))],
               loc="outside lower center", ncol=2, frameon=False, handlelength=1.6)
    ax.set_title(_title(Text(f"N = {n}, tile = {tile}, K = {k}: halo {left} left + {right} right, "
                    f"buffer {tile + k - 1} floats per block",
                    f"N = {n}, 타일 크기 {tile}, K = {k}: 헤일로 왼쪽 {left} + 오른쪽 {right}, "
                    f"블록마다 버퍼 float {tile + k - 1}개")))
    whole, part = divmod(n, tile)   # the last tile may hold fewer
    last = Text(f" and one of {part}", f"와 {part}개짜리 타일 하나") if part else Text("", "")
    tiles = (Text(f"one tile of {n:,}", f"{n:,}개짜리 타일 하나") if not whole else
             Text(f"{whole} tile{'s' * (whole != 1)} of {tile}", f"{tile}개짜리 타일 {whole}개") + last)
    if k == 1:
        halo = Text("its tile alone: one tap needs no halo.", "자기 타일뿐: 탭 하나에는 헤일로가 없음.")
    elif rows == 1:
        halo = Text(f"its tile and {k - 1} halo cell{'s' * (k > 2)}, all zero: they fall outside "
                    "the vector.", f"자기 타일과 헤일로 {k - 1}칸. 벡터 바깥이라 모두 0.")
    else:
        halo = Text(f"its tile, {left} halo cell{'s' * (left != 1)} copied from the tile on its "
                    f"left and {right} from the one on its right, or zeros where they fall outside "
                    "the vector.",
                    f"자기 타일, 왼쪽 타일에서 복사한 헤일로 {left}칸과 오른쪽 타일에서 복사한 "
                    f"{right}칸, 그 칸이 벡터 바깥에 걸리면 0.")
    fig.alt = Text(f"The vector x of {n:,} floats cut into {tiles.en}; under it, each block's shared "
                   f"buffer of {tile + k - 1} floats: {halo.en}",
                   f"float {n:,}개인 벡터 x를 {tiles.ko}로 나눈 그림. 그 아래에 블록마다 float "
                   f"{tile + k - 1}개짜리 공유 버퍼: {halo.ko}")
    return fig


@on_page
def plot_error_map(outputs: dict, x, w, tile: int):
    """|y - reference| for each named output over the whole vector (log scale, tile boundaries
    marked), and, when some outputs are wrong, where inside a tile they fall (a second panel;
    with none wrong, the title says so instead)."""
    tile = valid_tile(tile)
    ref, bound = reference(x, w), error_bound(x, w)
    n = ref.size
    errors, wrong = {}, {}
    for name, y in outputs.items():
        y = np.asarray(y if isinstance(y, np.ndarray) else y.get(), np.float64)
        errors[name] = np.abs(y - ref)
        wrong[name] = ~(errors[name] <= bound)
    any_wrong = any(m.any() for m in wrong.values())
    fig = page_figure(4.6 if any_wrong else 3.0)
    ax, hist = fig.subplots(2, 1, height_ratios=[3, 2]) if any_wrong else (fig.subplots(), None)
    colours = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
    floor = np.finfo(np.float32).tiny
    # the first variant as rings, the others as dots inside them: equal errors stay visible
    styles = (dict(marker="o", ms=4.5, mfc="none", mew=0.7), dict(marker=".", ms=2.5),
              dict(marker="s", ms=2.0), dict(marker="x", ms=2.5))
    for (name, err), style, colour in zip(errors.items(), styles, colours):
        ax.plot(np.arange(n), np.maximum(err, floor), ls="none", color=colour, **style,
                label=Text(f"{name}: {wrong[name].sum():,} wrong of {n:,}",
                         f"{name}: {n:,}개 중 {wrong[name].sum():,}개 틀림"))
        if hist is not None and wrong[name].any():
            counts = np.bincount(np.flatnonzero(wrong[name]) % tile, minlength=tile)
            hist.bar(np.arange(tile), counts, width=1.0, alpha=0.7, color=colour, label=name)
    ax.plot(np.arange(n), bound, color="black", lw=0.8,
            label=Text("float32 rounding bound", "float32 반올림 허용 오차"))
    for b in range(0, n, tile):
        ax.axvline(b, color="grey", lw=0.3, alpha=0.5)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(lambda v, _: f"1e{np.log10(v):.0f}")   # no superscripts
    ax.set_xlim(0, n)
    ax.xaxis.set_major_formatter("{x:,.0f}")
    ax.set_xlabel(Text("output index i (grey lines: tile boundaries)",
                     "출력 인덱스 i(회색 선: 타일 경계)"))
    ax.set_ylabel(Text("|y[i] − reference[i]|", "|y[i] − 기준값[i]|"))
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=2, frameon=False, markerscale=2.5,
              borderaxespad=0.2)
    if hist is None:   # above the legend, which sits above the axes
        fig.suptitle(Text("0 wrong outputs: every error is within the float32 rounding bound",
                          "틀린 출력 0개: 모든 오차가 float32 반올림 허용 오차 안에 있습니다"),
                     x=0.01, ha="left")
    else:
        hist.set_xlim(-1, tile)
        hist.set_xlabel(Text("position inside the tile, i mod tile",
                                "타일 안의 위치(i를 타일 크기로 나눈 나머지)"))
        hist.set_ylabel(Text("wrong outputs", "틀린 출력"))
        hist.set_title(Text("where the wrong outputs fall inside a tile (colours as above)",
                          "타일 안에서 틀린 출력의 위치(색은 위와 같음)"), loc="left")
    said = []
    for name, m in wrong.items():
        where = sorted({int(i) for i in np.flatnonzero(m) % tile})
        at = ", ".join(map(str, where)) if len(where) <= 6 else ""
        said.append(Text(f"{name}: {m.sum():,} wrong"
                       + (f", at positions {at} of each tile" if at else ""),
                       f"{name}: {m.sum():,}개 틀림" + (f"(타일 안 위치 {at})" if at else "")))
    fig.alt = Text(f"The error of each of {n:,} outputs against the float32 rounding bound, log "
                 "scale. ",
                 f"출력 {n:,}개 각각의 오차와 float32 반올림 허용 오차, 로그 눈금. ") + "; ".join(said) + "."
    return fig


PHASE_COLOURS = {"tile load": "#8ecae6", "taps load": "#ffb703", "wait": "#8c8c8c",
                 "barrier": "#b8b8ff", "compute": "#90be6d"}
# In the model, a lane holds the tile load above, and the taps' "taps load" then the wait below.
_SUBLANE = {"tile load": (0.05, 0.38), "taps load": (0.47, 0.38), "wait": (0.47, 0.38)}
PHASE_KO = {**PHASES_KO, "block": "블록", "cycles": "사이클"}   # and the lanes' and the unit's
LANE_IN = (0.22, 0.18)   # inches per lane (an 11.5 pt label each): up to 10 lanes a panel, more


@on_page
def plot_schedules(*schedules):
    """Gantt charts (one panel per schedule, one lane per block or SM slot) on a shared time
    axis. In the model, the tile's and the taps' loads share a lane: tile above, taps below."""
    lanes = [1 + max(b.lane for b in s.bars) for s in schedules]
    fig = page_figure(0.75 + sum(LANE_IN[n > 10] * (n + 0.4) + 0.35 for n in lanes))
    axes = fig.subplots(len(schedules), 1, sharex=True, squeeze=False,
                        height_ratios=[n + 1.5 for n in lanes])[:, 0]
    for ax, sched, n in zip(axes, schedules, lanes):
        labels = sched.meta.get("labels", {})
        names = [labels.get(i, f"{_word(sched.lane_label)} {i}") for i in range(n)]
        # rows in the order of the numbers in the lanes' names: SM 0, SM 0.1, SM 0.2, SM 1, ...
        order = sorted(range(n), key=lambda i: [int(d) for d in re.findall(r"\d+", names[i])])
        row = {lane: r for r, lane in enumerate(order)}
        for bar in sched.bars:
            low, height = (_SUBLANE.get(bar.phase, (0.05, 0.8)) if sched.lane_label == "block"
                           else (0.05, 0.8))
            ax.broken_barh([(bar.start, bar.duration)], (row[bar.lane] + low, height),
                           facecolors=PHASE_COLOURS[bar.phase], edgecolor="white", lw=0.2)
        ax.set_yticks([i + 0.45 for i in range(n)], [names[i] for i in order])
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(-0.2, n + 0.1)
        ax.invert_yaxis()
        ax.set_title(_title(_of(sched.title) + _done(sched)), loc="left")
    axes[-1].set_xlabel(Text(f"time ({schedules[0].unit})", f"시간({_word(schedules[0].unit)})"))
    axes[-1].set_xlim(left=0)
    fig.legend(handles=[Patch(fc=c, label=_word(p)) for p, c in PHASE_COLOURS.items()],
               loc="outside upper center", ncol=5, frameon=False, handlelength=1.4,
               columnspacing=1.2)
    fig.alt = Text("Timelines of each block's phases (tile load, taps load, wait, barrier, "
                 "compute). ",
                 "블록마다 단계(타일 로드, 탭 로드, 대기, 배리어, 계산)를 시간 순으로 그린 그림. ") + "; ".join(
        _of(s.title) + _done(s) for s in schedules) + "."
    return fig


def _done(sched) -> Text:
    """": all done at 1,733 cycles", a schedule's span as its title ends."""
    total = f"{sched.total:.2f}" if sched.unit == "µs" and sched.total < 100 else f"{sched.total:,.0f}"
    unit = PHASE_KO.get(sched.unit, sched.unit)
    return Text(f": all done at {total}\u00a0{sched.unit}",    # no line break before the unit
                f": {total}{'' if unit == '사이클' else chr(0xa0)}{unit}에 모두\u00a0끝남")


def _word(english: str) -> str:
    """A phase, lane or unit name in the figure's language."""
    return Text(english, PHASE_KO.get(english, english))


@on_page
def plot_handoff(stages: int = 2, tiles: int = 4, kind: str = "mbarrier", parities: bool = True):
    """The ring of ``stages`` buffers (columns) over time (down) for one block's first ``tiles``
    tiles, each tile's copy in flight (hatched) until its wait, then computed (solid) until its
    release: ``kind`` "pipeline" (pipelined.cu; chapter 03's double buffer is its two-stage
    case) or "mbarrier" (warp_specialized.cu, each wait labelled with its phase parity, or with
    "p=?" unless ``parities``: exercise 4 asks for them)."""
    kind = choice("kind", kind, ("mbarrier", "pipeline"))
    stages = integer("stages", stages, 2, MAX_STAGES, " (a ring of buffers)")
    tiles = integer("tiles", tiles, 1, 16)
    parities = flag("parities", parities)
    pipeline = kind == "pipeline"
    full, empty = "#2a9d8f", "#e76f51"
    ready = [i + 0.25 for i in range(tiles)]    # the wait returns: tile i is computed
    done = [i + 0.9 for i in range(tiles)]      # its release: buffer i % stages may be refilled
    if pipeline:
        # the prologue issues the first stages - 1 tiles, iteration i - stages + 1 tile i
        issued = [-0.7 if i < stages - 1 else i - stages + 1.05 for i in range(tiles)]
    else:
        # the producer runs ahead: round 0 at once, then after each release
        issued = [-0.7 + 0.2 * i if i < stages else done[i - stages] + 0.05 for i in range(tiles)]
    fig = page_figure(1.9 + 0.62 * (tiles + 1))
    ax = fig.subplots()
    for i in range(tiles):
        s, r = i % stages, i // stages
        c = _tile_colour(i)
        ax.add_patch(Rectangle((s + 0.06, issued[i]), 0.88, ready[i] - issued[i], fc=c, alpha=0.45,
                               hatch="///", ec="black", lw=0.6))
        ax.add_patch(Rectangle((s + 0.06, ready[i]), 0.88, done[i] - ready[i], fc=c, ec="black",
                               lw=0.6))
        copy = [Text(f"tile {i} in flight", f"타일 {i} 복사 중")]
        compute = [Text(f"compute tile {i}", f"타일 {i} 계산")]
        if not pipeline:
            p_full, p_empty = (r & 1, (r & 1) ^ 1) if parities else ("?", "?")
            at_once = r == 0 and parities
            copy.insert(0, Text(f"wait empty[{s}] p={p_empty}" + ": at once" * at_once,
                                f"empty[{s}] 대기(p={p_empty})" + ": 바로 통과" * at_once))
            compute.insert(0, Text(f"wait full[{s}] p={p_full}", f"full[{s}] 대기(p={p_full})"))
        # a pipeline's wait and release lines cross every column: its copy's label goes under
        # the previous tile's wait, clear of them
        top = ready[i - 1] if pipeline and i else issued[i]
        for y, lines in ((top + 0.05, copy), (ready[i] + 0.05, compute)):
            for k, line in enumerate(lines):
                ax.text(s + 0.5, y + 0.25 * k, line, ha="center", va="top",
                        bbox=dict(fc="white", ec="none", pad=0.5))   # over the lines
        for y, colour in ((ready[i], full), (done[i], empty)):   # the wait, the release
            ax.plot([0, stages] if pipeline else [s + 0.02, s + 0.98], [y, y], color=colour,
                    lw=2.2)
    ax.set_xlim(0, stages)
    ax.set_ylim(tiles, -1)
    ax.xaxis.tick_top()
    ax.set_xticks([s + 0.5 for s in range(stages)],
                  [Text(f"buffer {s}", f"버퍼 {s}") for s in range(stages)])
    rows = [Text("prologue", "프롤로그") if pipeline else Text("start", "시작")]
    ax.set_yticks([r + 0.5 for r in range(-1, tiles)],
                  rows + ([Text(f"iteration {i}", f"반복 {i}") for i in range(tiles)] if pipeline
                          else [""] * tiles))
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    if pipeline:
        ax.axhline(0, color="0.55", lw=0.8, ls="--", zorder=0)   # the prologue ends
        title = Text(f"{stages} buffers: tile t uses buffer t mod {stages}; each iteration issues "
                   f"one tile, waits for the oldest and computes it",
                   f"버퍼 {stages}개: 타일 t는 t mod {stages}번 버퍼를 씁니다. 반복마다 타일 하나를 "
                   "요청하고, 가장 오래된 타일을 기다려 계산합니다.")
        lines = (Text("wait for this tile's copies, then __syncthreads()",
                    "이 타일의 복사를 기다린 뒤 __syncthreads()"),
                 Text("__syncthreads(): nobody reads the buffer, it may be refilled",
                    "__syncthreads(): 아무도 버퍼를 읽지 않으니 다시 채울 수 있음"))
        bars = (Text("cp.async copies in flight", "진행 중인 cp.async 복사"),
                Text("compute (every thread)", "계산(모든 스레드)"))
    else:
        title = Text(f"{stages} stages: each wait names the phase parity it waits for (p)."
                     + " A fresh mbarrier counts the phase before its first as complete (parity 1)."
                     * parities,
                     f"스테이지 {stages}개: 기다릴 때마다 페이즈 패리티(p)를 지정합니다."
                     + " 새 mbarrier는 첫 페이즈 이전 페이즈를 완료로 칩니다(패리티 1)." * parities)
        lines = (Text("full[s] completes: the bytes have landed", "full[s] 완료: 바이트가 도착함"),
                 Text("empty[s] completes: every compute thread arrived",
                    "empty[s] 완료: 모든 계산 스레드가 도착함"))
        bars = (Text("producer warp: bulk copy in flight", "프로듀서 워프: 진행 중인 벌크 복사"),
                Text("compute warps", "계산 워프"))
    ax.set_title(_title(title), loc="left")
    fig.legend(handles=[Patch(fc="#dddddd", ec="black", hatch="///", label=bars[0]),
                        Patch(fc="#999999", ec="black", label=bars[1])]
                       + [mpl.lines.Line2D([], [], color=c, lw=2.2, label=label)
                          for c, label in zip((full, empty), lines)],
               loc="outside lower left", ncol=1, frameon=False)
    n = stages - 1   # the tiles the prologue issues
    prologue = ({0: "no copy", 1: "the copy of tile 0", 2: "the copies of tiles 0 and 1"}
                .get(n, f"the copies of tiles 0 to {n - 1}"),
                {0: "프롤로그는 복사를 요청하지 않고", 1: "프롤로그가 타일 0의 복사를 요청하고",
                 2: "프롤로그가 타일 0과 1의 복사를 요청하고"}
                .get(n, f"프롤로그가 타일 0~{n - 1}의 복사를 요청하고"))
    if pipeline:
        fig.alt = Text(f"{stages} shared buffers (columns) over time (down), tiles 0 to "
                     f"{tiles - 1}: tile t goes into buffer t mod {stages}. The prologue issues "
                     f"{prologue[0]}; each "
                     "iteration issues one more into the buffer freed by the iteration before, "
                     "waits for its oldest tile and meets at __syncthreads(), computes it, and "
                     "meets at __syncthreads() again before that buffer is refilled: while tile "
                     "t is computed, "
                     + {1: "nothing is", 2: "tile t + 1 is"}.get(
                         stages, f"tiles t + 1 to t + {stages - 1} are") + " in flight.",
                     f"공유 버퍼 {stages}개(열)를 시간 순(아래로)으로 그린 그림, 타일 0~{tiles - 1}: 타일 t는 "
                     f"t mod {stages}번 버퍼에 들어갑니다. {prologue[1]}, "
                     "반복마다 이전 반복이 비운 버퍼에 하나를 더 요청한 뒤, 가장 오래된 타일을 기다려 "
                     "__syncthreads()에서 만나고, 계산하고, 그 버퍼를 다시 채우기 전에 __syncthreads()에서 "
                     "또 만납니다." + f" 타일 하나를 계산하는 동안 다음 타일 {stages - 1}개의 복사가 진행 "
                     "중입니다." * (stages > 1))
    else:
        waits = (Text("The producer warp waits on empty[s] for parity (r + 1) mod 2, which in "
                      "round 0 returns at once (a fresh mbarrier counts the phase before its first "
                      "as complete), then starts the bulk copy; the compute warps wait on full[s] "
                      "for parity r mod 2, compute, and every compute thread arrives on empty[s].",
                      "프로듀서 워프는 empty[s]를 패리티 (r + 1) mod 2로 기다리고(라운드 0에서는 즉시 "
                      "반환: 새 mbarrier는 첫 페이즈 이전 페이즈를 완료로 칩니다) 벌크 복사를 시작합니다. "
                      "계산 워프는 full[s]를 패리티 r mod 2로 기다려 계산하고, 모든 계산 스레드가 "
                      "empty[s]에 도착합니다.") if parities else
                 Text("The producer warp waits on empty[s], then starts the bulk copy; the compute "
                      "warps wait on full[s], compute, and every compute thread arrives on "
                      "empty[s]. Which parity each wait names is exercise 4's question.",
                      "프로듀서 워프는 empty[s]를 기다린 뒤 벌크 복사를 시작합니다. 계산 워프는 full[s]를 "
                      "기다려 계산하고, 모든 계산 스레드가 empty[s]에 도착합니다. 각 대기가 어느 "
                      "패리티를 지정하는지는 연습 문제 4의 질문입니다."))
        fig.alt = Text(f"{stages} shared buffers (columns) over time (down), tiles 0 to "
                       f"{tiles - 1}: tile i uses buffer s = i mod {stages} in round "
                       f"r = i / {stages}. ",
                       f"공유 버퍼 {stages}개(열)를 시간 순(아래로)으로 그린 그림, 타일 0~{tiles - 1}: "
                       f"타일 i는 라운드 r = i / {stages}에서 버퍼 s = i mod {stages}를 씁니다. ") + waits
    return fig
