"""Figures for the book, made for the page they sit on. Each function draws data it is given (or
computes with the public API) and returns a :class:`PageFigure` (a matplotlib Figure made
without pyplot, so that a notebook shows it exactly once, as the value of its cell, or through
``display``); nothing here measures or decides correctness.

Every figure is as wide as the book's text column (:data:`PAGE_WIDTH_IN`) and is shown as a PNG
of :data:`PAGE_DPI` pixels per inch at half its pixel width, with no text smaller than
:data:`MIN_FONT_PT`; the PNG's tEXt chunk ``min-text-px`` holds its smallest text in image pixels
(tests/book/test_reader_view.py checks it as shown). The background is opaque white: in the dark
theme the figures sit on a white card.

A figure is drawn in each edition's language, its Hangul from Book Hangul (``fonts/``, a subset
of NanumGothic under the OFL), which matplotlib falls back to for the glyphs DejaVu Sans lacks.
Shown in a notebook, it carries the other edition's PNG in its output's metadata, where
``translate sync`` finds it for the Korean page."""

from __future__ import annotations

import base64
import functools
import io
import re
import textwrap
from pathlib import Path

import matplotlib as mpl
import matplotlib.ticker  # noqa: F401  (mpl.ticker)
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib import text as mtext

from .. import variants as V
from ..edition import KEY, LANGUAGES, Text, columns, language, of, speaking, wrap
from ..measure.recorded import bytes_in_flight, roofline_rows
from .schedule import PHASES_KO
from .halo import halo_cells
from ..geometry import launch_config, valid_tile
from ..reference import error_bound, reference
from ..validate import choice

PAGE_WIDTH_IN = 6.88   # the text column: 688 CSS px
CSS_PX_PER_IN = 100    # the figure's inch on the page
PAGE_DPI = 200         # PNG pixels per inch: twice the page's, shown at half size
MIN_FONT_PT = 11.5     # the smallest text in any figure: 16 CSS px on the page, 8.3 on a phone
MATH_SHRINK = 0.7      # mathtext draws a superscript at 0.7 of its text's size
PAGE_RC = {"font.size": MIN_FONT_PT, "axes.titlesize": 12, "axes.labelsize": MIN_FONT_PT,
           "xtick.labelsize": MIN_FONT_PT, "ytick.labelsize": MIN_FONT_PT,
           "legend.fontsize": MIN_FONT_PT, "legend.title_fontsize": MIN_FONT_PT,
           "figure.titlesize": 12, "figure.facecolor": "white", "axes.facecolor": "white",
           "savefig.facecolor": "white", "savefig.transparent": False, "text.color": "black",
           "axes.labelcolor": "black", "xtick.color": "black", "ytick.color": "black",
           "font.family": ["DejaVu Sans", "Book Hangul"]}   # Hangul from the second
FONT = Path(__file__).with_name("fonts") / "BookHangul-Regular.ttf"
mpl.font_manager.fontManager.addfont(str(FONT))
TITLE_CHARS = 72       # a 12 pt title line across the page

TILE_COLOURS = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff", "#f6bd60"]


def _of(value) -> str:
    """A text (or a :class:`~kernels.edition.Text` made outside the figure) in the language of
    the figure being drawn."""
    return of(value, language())


def _text_px(t: mtext.Text, dpi: float) -> float:
    """A text's smallest glyphs in image pixels: its size, or its superscripts' (mathtext)."""
    s = t.get_text()
    shrink = MATH_SHRINK if s.count("$") >= 2 and ("^" in s or "_" in s) else 1.0
    return t.get_fontsize() * shrink * dpi / 72


class PageFigure(Figure):
    """A Figure for the book's page. In IPython it displays itself (``_ipython_display_`` comes
    before any formatter registered for Figures) as :meth:`png` at :data:`CSS_PX_PER_IN` per
    inch; ``editions(language)`` draws it again in another edition's language."""

    editions = None
    # what the figure shows, in words, for a reader who cannot see it (set by each function)
    alt = ""

    def min_text_px(self, dpi: float = PAGE_DPI) -> float:
        """The smallest visible text (ticks, legends, titles, labels, annotations), in pixels of
        the PNG at ``dpi``."""
        with mpl.rc_context(PAGE_RC):
            self.draw_without_rendering()   # lays out, makes the ticks' labels
        sizes = [_text_px(t, dpi) for t in self.findobj(mtext.Text)
                 if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0]
        return round(min(sizes), 1) if sizes else 0.0

    def png(self, dpi: float = PAGE_DPI) -> bytes:
        """The figure as a PNG at ``dpi``, its whole canvas (no tight crop: the width is the
        page's), with the tEXt chunk ``min-text-px``."""
        smallest = self.min_text_px(dpi)
        buf = io.BytesIO()
        with mpl.rc_context(PAGE_RC):
            self.savefig(buf, format="png", dpi=dpi, facecolor="white",
                         metadata={"min-text-px": f"{smallest:g}"})
        return buf.getvalue()

    def _ipython_display_(self):
        from IPython.display import display

        def shown(fig):   # its words as the text: what a reader without the image gets
            return {"image/png": base64.b64encode(fig.png()).decode("ascii"),
                    "text/plain": fig.alt or repr(fig)}
        here = language()
        metadata = {"image/png": {"width": round(self.get_figwidth() * CSS_PX_PER_IN),
                                  "alt": self.alt}}
        if self.editions is not None:   # the other editions' PNGs, for translate sync
            metadata[KEY] = {"editions": {lang: shown(self.editions(lang))
                                          for lang in LANGUAGES if lang != here}}
        display(shown(self), raw=True, metadata=metadata)


def page_figure(height: float) -> PageFigure:
    """A figure as wide as the page and ``height`` inches tall, with constrained layout (which
    keeps legends and labels placed outside the axes inside the figure)."""
    return PageFigure(figsize=(PAGE_WIDTH_IN, height), layout="constrained", facecolor="white")


def _on_page(draw):
    """Run a figure function with the page's fonts and colours (rcParams), in this edition's
    language; the figure it returns can draw itself again in another (``editions``)."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        def drawn(lang):
            with speaking(lang), mpl.rc_context(PAGE_RC):
                return draw(*args, **kwargs)
        fig = drawn(language())
        fig.editions = drawn
        return fig
    return wrapper


def _title(s: str, width: int = TITLE_CHARS) -> str:
    """``s`` in lines of ``width`` columns (a Hangul syllable takes two)."""
    return "\n".join(textwrap.wrap(s, width) if columns(s) == len(s) else wrap(s, width))


def _log2_axis(ax, ticks, labels) -> None:
    """A base-2 log x axis with only ``ticks``, labelled ``labels``."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, labels)
    ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())


def _tile_colour(t: int) -> str:
    return TILE_COLOURS[t % len(TILE_COLOURS)]


@_on_page
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
    ax.set_title(_title(Text(f"n = {n}, tile = {tile}, K = {k}: halo {left} left + {right} right, "
                    f"buffer {tile + k - 1} floats per block",
                    f"n = {n}, 타일 = {tile}, K = {k}: 헤일로 왼쪽 {left} + 오른쪽 {right}, "
                    f"블록마다 버퍼 float {tile + k - 1}개")))
    fig.alt = Text(f"The vector x of {n} floats cut into {rows} tiles of {tile}; under it, each "
                 f"block's shared buffer of {tile + k - 1} floats: its tile, {left} halo cells "
                 f"copied from the tile on its left and {right} from the one on its right, zeros "
                 "outside the vector.",
                 f"float {n}개인 벡터 x를 {tile}개씩 타일 {rows}개로 나눈 그림. 그 아래에 블록마다 float "
                 f"{tile + k - 1}개짜리 공유 버퍼: 자기 타일, 왼쪽 타일에서 복사한 헤일로 {left}칸과 오른쪽 "
                 f"타일에서 복사한 {right}칸, 벡터 바깥은 0.")
    return fig


@_on_page
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
                label=Text(f"{name}: {wrong[name].sum()} wrong of {n}",
                         f"{name}: {n}개 중 {wrong[name].sum()}개 틀림"))
        if hist is not None and wrong[name].any():
            counts = np.bincount(np.flatnonzero(wrong[name]) % tile, minlength=tile)
            hist.bar(np.arange(tile), counts, width=1.0, alpha=0.7, color=colour, label=name)
    ax.plot(np.arange(n), bound, color="black", lw=0.8,
            label=Text("float32 rounding bound", "float32 반올림 오차 한계"))
    for b in range(0, n, tile):
        ax.axvline(b, color="grey", lw=0.3, alpha=0.5)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(lambda v, _: f"1e{np.log10(v):.0f}")   # no superscripts
    ax.set_xlim(0, n)
    ax.set_xlabel(Text("output index i (grey lines: tile boundaries)",
                     "출력 인덱스 i (회색 선: 타일 경계)"))
    ax.set_ylabel(Text("|y[i] − reference[i]|", "|y[i] − 기준값[i]|"))
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=2, frameon=False, markerscale=2.5,
              borderaxespad=0.2)
    if hist is None:
        ax.set_title(Text("0 wrong outputs: every error is within the float32 rounding bound",
                        "틀린 출력 0개: 모든 오차가 float32 반올림 오차 한계 안에 있습니다"),
                     loc="left", pad=32 if len(errors) > 1 else 20)
    else:
        hist.set_xlim(-1, tile)
        hist.set_xlabel(Text("position inside the tile, i mod tile", "타일 안의 위치, i mod tile"))
        hist.set_ylabel(Text("wrong outputs", "틀린 출력"))
        hist.set_title(Text("where the wrong outputs fall inside a tile (colours as above)",
                          "타일 안에서 틀린 출력의 위치(색은 위와 같음)"), loc="left")
    said = []
    for name, m in wrong.items():
        where = sorted({int(i) for i in np.flatnonzero(m) % tile})
        at = ", ".join(map(str, where)) if len(where) <= 6 else ""
        said.append(Text(f"{name}: {m.sum()} wrong"
                       + (f", at positions {at} of each tile" if at else ""),
                       f"{name}: {m.sum()}개 틀림" + (f"(타일 안 위치 {at})" if at else "")))
    fig.alt = Text(f"The error of each of {n} outputs against the float32 rounding bound, log "
                 "scale. ",
                 f"출력 {n}개 각각의 오차와 float32 반올림 오차 한계, 로그 눈금. ") + "; ".join(said) + "."
    return fig


PHASE_COLOURS = {"tile load": "#8ecae6", "taps load": "#ffb703", "wait": "#8c8c8c",
                 "barrier": "#b8b8ff", "compute": "#90be6d"}
# In the model, a lane holds the tile load above, and the taps' "taps load" then the wait below.
_SUBLANE = {"tile load": (0.05, 0.38), "taps load": (0.47, 0.38), "wait": (0.47, 0.38)}
PHASE_KO = {**PHASES_KO, "block": "블록", "cycles": "사이클"}   # and the lanes' and the unit's
LANE_IN = (0.22, 0.18)   # inches per lane (an 11.5 pt label each): up to 10 lanes a panel, more


@_on_page
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
        unit = _word(sched.unit)
        ax.set_title(_title(_of(sched.title)
                            + Text(f": all done at {sched.total:.3g} {unit}",
                                 f": {sched.total:.3g}{'' if unit == '사이클' else ' '}"
                                 f"{unit}에 모두 끝남")),
                     loc="left")
    axes[-1].set_xlabel(Text(f"time ({schedules[0].unit})", f"시간({_word(schedules[0].unit)})"))
    axes[-1].set_xlim(left=0)
    fig.legend(handles=[Patch(fc=c, label=_word(p)) for p, c in PHASE_COLOURS.items()],
               loc="outside upper center", ncol=5, frameon=False, handlelength=1.4,
               columnspacing=1.2)
    fig.alt = Text("Timelines of each block's phases (tile load, taps load, wait, barrier, "
                 "compute). ",
                 "블록마다 단계(타일 로드, 탭 로드, 대기, 배리어, 계산)를 시간 순으로 그린 그림. ") + "; ".join(
        _of(s.title) + Text(f": all done at {s.total:.3g} {_word(s.unit)}",
                          f": {s.total:.3g} {_word(s.unit)}에 모두 끝남") for s in schedules) + "."
    return fig


def _word(english: str) -> str:
    """A phase, lane or unit name in the figure's language."""
    return Text(english, PHASE_KO.get(english, english))


def _n_label(n: int) -> str:
    """2^26 as "2²⁶": a title that mixes it with Hangul cannot be mathtext, which has no font
    fallback."""
    return "2" + str(int(np.log2(n))).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


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


@_on_page
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
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.03 if ax is axes[0] else -0.2), ncol=2,
                  frameon=False, borderaxespad=0, columnspacing=1.0, handlelength=1.8)
    # one tick per power of two, labelled p (a superscript would be drawn at 0.7 of the size)
    powers = sorted({int(round(np.log2(r["n"]))) for r in rows})
    powers = powers[::1 if len(powers) <= 8 else 2]
    _log2_axis(axes[-1], [2 ** p for p in powers], [str(p) for p in powers])
    axes[-1].set_xlabel(Text("log₂ N (N float32 elements; 8 N bytes moved)",
                           "log₂ N (float32 원소 N개, 8 N 바이트 이동)"))
    fig.suptitle("\n".join([Text(f"K = {k}: GB/s = 8 N bytes / kernel time.",
                               f"K = {k}: GB/s = 8 N 바이트 / 커널 시간."),
                            *_title(_of(label)).split("\n")]),
                 x=0.0, ha="left")
    last = max(r["n"] for r in rows)
    at = sorted(((r["gbps"], r["name"]) for r in rows if r["n"] == last), reverse=True)
    fig.alt = Text(f"GB/s against N from 2^{int(np.log2(min(r['n'] for r in rows)))} to "
                 f"2^{int(np.log2(last))} at K = {k}, each kernel beside a device copy of the "
                 f"same bytes. At N = 2^{int(np.log2(last))}: ",
                 f"K = {k}에서 N에 따른 GB/s, N = 2^{int(np.log2(min(r['n'] for r in rows)))}~"
                 f"2^{int(np.log2(last))}, 커널마다 같은 바이트의 디바이스 간 복사와 함께. "
                 f"N = 2^{int(np.log2(last))}에서: ") + ", ".join(
        f"{Text('device copy', '디바이스 간 복사') if name == 'copy' else name} {g:.0f}"
        for g, name in at) + " GB/s."
    return fig


@_on_page
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
    ax.set_xticks(stages)
    twin = ax.twinx()
    line, = twin.plot(stages, [bytes_in_flight(r, sms) / 1024 for r in rows], "o-",
                      color="#d1495b", label=Text("KiB in flight per SM (right axis)",
                                                "SM당 진행 중인 KiB(오른쪽 축)"))
    twin.set_ylabel(Text("KiB in flight per SM", "SM당 진행 중인 KiB"))
    twin.set_ylim(0, 1.6 * max(line.get_ydata()))   # its markers below the copy's line
    fig.legend(handles=[bars, roof, line], loc="outside lower center", ncol=3, frameon=False,
               columnspacing=1.0, handlelength=1.5)
    ax.set_title(_title(f"N = {_n_label(rows[0]['n'])}, K = {rows[0]['k']}, "
                        + Text("tile", "타일") + f" {rows[0]['config']['tile']}. {_of(label)}"),
                 loc="left")
    gbps = ", ".join(f"{r['gbps']:.0f}" for r in rows)
    kib = ", ".join(f"{v:.0f}" for v in line.get_ydata())
    fig.alt = Text(f"pipelined's GB/s for {stages[0]} to {stages[-1]} stages ({gbps}) beside the "
                 f"device copy's {roof.get_ydata()[0]:.0f} GB/s, and the KiB each SM has in "
                 f"flight ({kib}).",
                 f"스테이지 {stages[0]}~{stages[-1]}개일 때 pipelined의 GB/s({gbps})와 디바이스 간 복사의 "
                 f"{roof.get_ydata()[0]:.0f} GB/s, SM마다 진행 중인 KiB({kib}).")
    return fig


ZOOM = (0.96, 1.6)   # the roofline's lower panel: the few percent that chapter 05 discusses


@_on_page
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
    _log2_axis(ax, all_ks, [str(k) for k in all_ks])
    ax.set_xlabel(Text("K (taps)", "K (탭 수)"))
    ax.set_ylabel(Text("time / bound", "시간 / 상한"))
    fig.legend(handles=top.get_legend_handles_labels()[0], loc="outside lower left", ncol=2,
               frameon=False, columnspacing=1.0, handlelength=1.8,
               title=Text("solid: asynchronous copies; dotted: plain loads",
                        "실선: 비동기 복사, 점선: 일반 로드"),
               alignment="left")
    device = rec["provenance"].get("device")
    # the label may name it
    where = "" if device and device in label else Text(f" on {device}", f", {device}")
    top.set_title(_title(f"N = {_n_label(n)}{where}. {_of(label)}"), loc="left")
    near = {}   # the largest K up to which each variant stays within 1.1 of the bound
    for name, rows in by_variant.items():
        ks = [r["k"] for r in rows if r["ratio"] <= 1.1]
        near.setdefault(max(ks, default=0), []).append(name)
    fig.alt = Text(f"Time over the bound for each kernel at N = 2^{int(np.log2(n))}, K from "
                 f"{all_ks[0]} to {all_ks[-1]}. Within 1.1 of the bound ",
                 f"N = 2^{int(np.log2(n))}, K = {all_ks[0]}~{all_ks[-1]}에서 커널마다 "
                 "시간 / 상한. 상한의 1.1배 안: ") + "; ".join(
        (Text(f"up to K = {k}: ", f"K = {k}까지 ") if k else Text("never: ", "한 번도 없음: "))
        + ", ".join(names)
        for k, names in sorted(near.items(), reverse=True)) + "."
    return fig


@_on_page
def plot_handoff(stages: int = 2, tiles: int = 4, kind: str = "mbarrier"):
    """The ring of ``stages`` buffers (columns) over time (down) for one block's first ``tiles``
    tiles, each tile's copy in flight (hatched) until its wait, then computed (solid) until its
    release: ``kind`` "pipeline" (pipelined.cu; chapter 03's double buffer is its two-stage
    case) or "mbarrier" (warp_specialized.cu, each wait labelled with its phase parity)."""
    kind = choice("kind", kind, ("mbarrier", "pipeline"))
    pipeline = kind == "pipeline"
    full, empty = "#2a9d8f", "#e76f51"
    ready = [i + 0.3 for i in range(tiles)]     # the wait returns: tile i is computed
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
            copy.insert(0, f"wait empty[{s}] p={(r & 1) ^ 1}" + Text(": at once", ": 즉시") * (r == 0))
            compute.insert(0, f"wait full[{s}] p={r & 1}")
        for y, lines in ((issued[i] + 0.04, copy), (ready[i] + 0.04, compute)):
            for k, line in enumerate(lines):
                ax.text(s + 0.5, y + 0.27 * k, line, ha="center", va="top",
                        family=(["DejaVu Sans Mono", "Book Hangul"] if line.startswith("wait")
                                else None),
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
        title = Text(f"{stages} buffers: tile t uses buffer t mod {stages}; each iteration issues "
                   f"one tile, waits for the oldest and computes it",
                   f"버퍼 {stages}개: 타일 t는 버퍼 t mod {stages}을 씁니다. 반복마다 타일 하나를 "
                   "요청하고, 가장 오래된 타일을 기다려 계산합니다")
        lines = (Text("wait for this tile's copies, then __syncthreads()",
                    "이 타일의 복사를 기다린 뒤 __syncthreads()"),
                 Text("__syncthreads(): nobody reads the buffer, it may be refilled",
                    "__syncthreads(): 아무도 버퍼를 읽지 않으니 다시 채울 수 있음"))
        bars = (Text("cp.async copies in flight", "진행 중인 cp.async 복사"),
                Text("compute (every thread)", "계산(모든 스레드)"))
    else:
        title = Text(f"{stages} stages: each wait names the phase parity it waits for (p). A fresh "
                   "mbarrier counts the phase before its first as complete (parity 1)",
                   f"스테이지 {stages}개: 기다릴 때마다 페이즈 패리티(p)를 지정합니다. 새 mbarrier는 "
                   "첫 페이즈 이전 페이즈를 완료로 칩니다(패리티 1)")
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
                     f"버퍼 t mod {stages}에 들어갑니다. {prologue[1]}, "
                     "반복마다 이전 반복이 비운 버퍼에 하나를 더 요청한 뒤, 가장 오래된 타일을 기다려 "
                     "__syncthreads()에서 만나고, 계산하고, 그 버퍼를 다시 채우기 전에 __syncthreads()에서 "
                     "또 만납니다." + f" 타일 하나를 계산하는 동안 다음 타일 {stages - 1}개의 복사가 진행 "
                     "중입니다." * (stages > 1))
    else:
        fig.alt = Text(f"{stages} shared buffers (columns) over time (down), tiles 0 to "
                     f"{tiles - 1}: tile i uses buffer s = i mod {stages} in round "
                     f"r = i / {stages}. The producer warp waits on empty[s] for parity "
                     "(r + 1) mod 2, which in round 0 returns at once (a fresh mbarrier counts "
                     "the phase before its first as complete), then starts the bulk copy; the "
                     "compute warps wait on full[s] for parity r mod 2, compute, and every "
                     "compute thread arrives on empty[s].",
                     f"공유 버퍼 {stages}개(열)를 시간 순(아래로)으로 그린 그림, 타일 0~{tiles - 1}: 타일 i는 "
                     f"라운드 r = i / {stages}에서 버퍼 s = i mod {stages}를 씁니다. 프로듀서 워프는 empty[s]를 "
                     "패리티 (r + 1) mod 2로 기다리고(라운드 0에서는 즉시 반환: 새 mbarrier는 첫 페이즈 이전 "
                     "페이즈를 완료로 칩니다) 벌크 복사를 시작합니다. 계산 워프는 full[s]를 패리티 r mod 2로 "
                     "기다려 계산하고, 모든 계산 스레드가 empty[s]에 도착합니다.")
    return fig
