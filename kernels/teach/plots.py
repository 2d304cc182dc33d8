"""Figures for the book, made for the page they sit on. Each function draws data it is given (or
computes with the public API) and returns a :class:`PageFigure` (a matplotlib Figure made
without pyplot, so that a notebook shows it exactly once, as the value of its cell, or through
``display``); nothing here measures or decides correctness.

Every figure is :data:`PAGE_WIDTH_IN` wide (the book's text column, 688 CSS px at 100 px per inch)
and is shown as a PNG of :data:`PAGE_DPI` pixels per inch at half its pixel width (sharp on
high-density screens, 1:1 with the column on the page), with no text smaller than
:data:`MIN_FONT_PT` (12.5 CSS px). The PNG carries a tEXt chunk ``min-text-px``: its smallest
text in image pixels (the book's browser test, tests/test_reader_view.py, checks it as shown).
The background is opaque white: in the dark theme the figures sit on a white card.

A figure is drawn in each edition's language: its words come from :func:`_t` (or, for a
:class:`~kernels.edition.Text` it is given, from that text), the Hangul from Book Hangul
(``fonts/``, a subset of NanumGothic under the OFL), which matplotlib falls back to for the
glyphs DejaVu Sans lacks. Shown in a notebook, a figure carries the other edition's PNG in its
output's metadata, where ``translate sync`` finds it for the Korean page."""

from __future__ import annotations

import base64
import functools
import io
import textwrap
from pathlib import Path

import matplotlib as mpl
import matplotlib.ticker  # noqa: F401  (mpl.ticker)
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Text

from .. import variants as V
from ..edition import KEY, LANGUAGES, columns, language, of, wrap
from ..measure.timeline import PHASES_KO
from .halo import halo_cells
from ..geometry import launch_config, valid_tile
from ..reference import error_bound, reference
from ..validate import (choice, integer, labelled, record, rows as valid_rows, same_length, sequence,
                        text, vector)

PAGE_WIDTH_IN = 6.88   # the text column: 688 CSS px
CSS_PX_PER_IN = 100    # the figure's inch on the page
PAGE_DPI = 200         # PNG pixels per inch: twice the page's, shown at half size
MIN_FONT_PT = 9.0      # the smallest text in any figure: 12.5 CSS px on the page
MATH_SHRINK = 0.7      # mathtext draws a superscript at 0.7 of its text's size
PAGE_RC = {"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10,
           "xtick.labelsize": MIN_FONT_PT, "ytick.labelsize": MIN_FONT_PT,
           "legend.fontsize": MIN_FONT_PT, "legend.title_fontsize": MIN_FONT_PT,
           "figure.titlesize": 10, "figure.facecolor": "white", "axes.facecolor": "white",
           "savefig.facecolor": "white", "savefig.transparent": False, "text.color": "black",
           "axes.labelcolor": "black", "xtick.color": "black", "ytick.color": "black",
           "font.family": ["DejaVu Sans", "Book Hangul"]}   # Hangul from the second
FONT = Path(__file__).with_name("fonts") / "BookHangul-Regular.ttf"
mpl.font_manager.fontManager.addfont(str(FONT))
TITLE_CHARS = 88       # a 10 pt title line across the page
LOG2_TICK_PT = 11      # "2^14", "10^-7" tick labels: their exponent drawn at 0.7 of this, 7.7 pt

TILE_COLOURS = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff", "#f6bd60"]
_DRAWING = ["en"]      # the language of the figure being drawn (the last entry)


def _t(en: str, ko: str) -> str:
    """The words of the edition the figure is being drawn for."""
    return ko if _DRAWING[-1] == "ko" else en


def _of(value) -> str:
    """A text (or :class:`~kernels.edition.Text`) in the language of the figure being drawn."""
    return of(value, _DRAWING[-1])


def _text_px(t: Text, dpi: float) -> float:
    """A text's smallest glyphs in image pixels: its size, or its superscripts' (mathtext)."""
    s = t.get_text()
    shrink = MATH_SHRINK if s.count("$") >= 2 and ("^" in s or "_" in s) else 1.0
    return t.get_fontsize() * shrink * dpi / 72


class PageFigure(Figure):
    """A Figure for the book's page. In IPython it displays itself (``_ipython_display_``, which
    comes before any formatter IPython has registered for Figures) as :meth:`png`, shown at
    :data:`CSS_PX_PER_IN` per inch, with its ``text/plain`` repr; ``editions(language)`` draws
    it again in another edition's language (set by the figure functions)."""

    editions = None

    def min_text_px(self, dpi: float = PAGE_DPI) -> float:
        """The smallest visible text (ticks, legends, titles, labels, annotations), in pixels of
        the PNG at ``dpi``."""
        with mpl.rc_context(PAGE_RC):
            self.draw_without_rendering()   # lays out, makes the ticks' labels
        sizes = [_text_px(t, dpi) for t in self.findobj(Text)
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

        def shown(fig):
            return {"image/png": base64.b64encode(fig.png()).decode("ascii"), "text/plain": repr(fig)}
        here = language()
        metadata = {"image/png": {"width": round(self.get_figwidth() * CSS_PX_PER_IN)}}
        if self.editions is not None:   # the other editions' PNGs, for translate sync
            metadata[KEY] = {"editions": {lang: shown(self.editions(lang))
                                          for lang in LANGUAGES if lang != here}}
        display(shown(self), raw=True, metadata=metadata)


def page_figure(height: float, **layout_kw) -> PageFigure:
    """A figure as wide as the page and ``height`` inches tall, with constrained layout (which
    keeps legends and labels placed outside the axes inside the figure)."""
    fig = PageFigure(figsize=(PAGE_WIDTH_IN, height), layout="constrained", facecolor="white")
    if layout_kw:
        fig.get_layout_engine().set(**layout_kw)
    return fig


def _on_page(draw):
    """Run a figure function with the page's fonts and colours (rcParams), in this edition's
    language; the figure it returns can draw itself again in another (``editions``)."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        def drawn(lang):
            _DRAWING.append(lang)
            try:
                with mpl.rc_context(PAGE_RC):
                    return draw(*args, **kwargs)
            finally:
                _DRAWING.pop()
        fig = drawn(language())
        fig.editions = drawn
        return fig
    return wrapper


def _title(s: str, width: int = TITLE_CHARS) -> str:
    """``s`` in lines of ``width`` columns (a Hangul syllable takes two)."""
    if not s:
        return s
    return "\n".join(textwrap.wrap(s, width) if columns(s) == len(s) else wrap(s, width))


def _log2_axis(ax, values) -> None:
    """A base-2 log x axis with one tick per power of two in ``values``, as 2^p."""
    ax.set_xscale("log", base=2)
    powers = sorted({int(round(np.log2(v))) for v in values})
    step = 1 if len(powers) <= 8 else 2
    ticks = [2 ** p for p in powers[::step]]
    ax.set_xticks(ticks, [f"$2^{{{p}}}$" for p in powers[::step]], fontsize=LOG2_TICK_PT)
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
                  ["x"] + [_t(f"block {b}", f"블록 {b}") for b in range(rows)])
    ax.tick_params(axis="y", length=0)
    ax.get_yticklabels()[0].set(fontweight="bold", fontfamily="DejaVu Sans")   # no bold Hangul
    ax.set_xlim(-left - 1, end + right + 1)
    ax.set_ylim(-0.3, top + 1.0)
    ax.set_xlabel(_t("global index i", "전역 인덱스 i"))
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.legend(handles=[Patch(fc="#dddddd", ec="black", hatch="////",
                             label=_t("halo copied from a neighbour tile",
                                      "이웃 타일에서 복사한 헤일로")),
                       Patch(fc="white", ec="black", hatch="xxx", label=_t("outside the vector: zero", "벡터 바깥: 0"))],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False,
              handlelength=1.6)
    ax.set_title(_t(f"n = {n}, tile = {tile}, K = {k}: halo {left} left + {right} right, "
                    f"buffer {tile + k - 1} floats per block",
                    f"n = {n}, 타일 = {tile}, K = {k}: 헤일로 왼쪽 {left} + 오른쪽 {right}, "
                    f"블록마다 버퍼 float {tile + k - 1}개"), pad=20)
    return fig


@_on_page
def plot_error_map(outputs: dict, x, w, tile: int):
    """|y - reference| for each named output over the whole vector (log scale, tile boundaries
    marked), and, when some outputs are wrong, where inside a tile they fall (a second panel;
    with none wrong, the title says so instead)."""
    labelled("outputs", outputs, most=4)   # one marker each
    tile = valid_tile(tile)
    ref, bound = reference(x, w), error_bound(x, w)
    n = ref.size
    for name, y in outputs.items():
        vector(f"outputs[{name!r}]", y)
        same_length(f"outputs[{name!r}]", y, n)
    floor = np.finfo(np.float32).tiny
    wrong = {}
    errors = {}
    for name, y in outputs.items():
        y = np.asarray(y if isinstance(y, np.ndarray) else y.get(), np.float64)
        errors[name] = np.abs(y - ref)
        wrong[name] = ~(errors[name] <= bound)
    any_wrong = any(m.any() for m in wrong.values())
    fig = page_figure(4.6 if any_wrong else 3.0)
    if any_wrong:
        ax, hist = fig.subplots(2, 1, height_ratios=[3, 2])
    else:
        ax, hist = fig.subplots(), None
    colours = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
    # the first variant as rings, the others as dots inside them: equal errors stay visible
    styles = (dict(marker="o", ms=4.5, mfc="none", mew=0.7), dict(marker=".", ms=2.5),
              dict(marker="s", ms=2.0), dict(marker="x", ms=2.5))
    for (name, err), style, colour in zip(errors.items(), styles, colours):
        ax.plot(np.arange(n), np.maximum(err, floor), ls="none", color=colour, **style,
                label=_t(f"{name}: {wrong[name].sum()} wrong of {n}",
                         f"{name}: {n}개 중 {wrong[name].sum()}개 틀림"))
        if hist is not None and wrong[name].any():
            counts = np.bincount(np.flatnonzero(wrong[name]) % tile, minlength=tile)
            hist.bar(np.arange(tile), counts, width=1.0, alpha=0.7, color=colour, label=name)
    ax.plot(np.arange(n), bound, color="black", lw=0.8, label=_t("float32 rounding bound", "float32 반올림 오차 한계"))
    for b in range(0, n, tile):
        ax.axvline(b, color="grey", lw=0.3, alpha=0.5)
    ax.set_yscale("log")
    ax.tick_params(axis="y", labelsize=LOG2_TICK_PT)   # 10^-7: its exponent at 0.7 of this
    ax.set_xlim(0, n)
    ax.set_xlabel(_t("output index i (grey lines: tile boundaries)", "출력 인덱스 i (회색 선: 타일 경계)"))
    ax.set_ylabel(_t("|y[i] − reference[i]|", "|y[i] − 기준값[i]|"))
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=2, frameon=False, markerscale=2.5,
              borderaxespad=0.2)
    if hist is None:
        ax.set_title(_t("0 wrong outputs: every error is within the float32 rounding bound",
                        "틀린 출력 0개: 모든 오차가 float32 반올림 오차 한계 안에 있습니다"),
                     loc="left", pad=32 if len(errors) > 1 else 20)
    else:
        hist.set_xlim(-1, tile)
        hist.set_xlabel(_t("position inside the tile, i mod tile", "타일 안의 위치, i mod tile"))
        hist.set_ylabel(_t("wrong outputs", "틀린 출력"))
        hist.set_title(_t("where the wrong outputs fall inside a tile (colours as above)",
                          "타일 안에서 틀린 출력의 위치(색은 위와 같음)"), loc="left")
    return fig


PHASE_COLOURS = {"tile load": "#8ecae6", "taps load": "#ffb703", "wait": "#8c8c8c",
                 "barrier": "#b8b8ff", "compute": "#90be6d"}
# In the model, a lane holds the tile load above, and the taps' "taps load" then the wait below.
_SUBLANE = {"tile load": (0.05, 0.38), "taps load": (0.47, 0.38), "wait": (0.47, 0.38)}
PHASE_KO = {**PHASES_KO, "block": "블록", "cycles": "사이클"}   # and the lanes' and the unit's
LANE_IN = (0.19, 0.155)   # inches per lane (a 9 pt label each): up to 10 lanes a panel, more


@_on_page
def plot_schedules(*schedules):
    """Gantt charts (one panel per schedule, one lane per block or SM slot) on a shared time
    axis. In the model, the tile's and the taps' loads share a lane: tile above, taps below."""
    from ..measure.timeline import Schedule
    if not schedules:
        raise ValueError("plot_schedules needs at least one schedule (timeline.model, "
                         "timeline.measured_schedule)")
    for i, sched in enumerate(schedules):
        if not isinstance(sched, Schedule):
            raise TypeError(f"schedules[{i}] must be a timeline.Schedule, got "
                            f"{type(sched).__name__}" + (": pass them as separate arguments, "
                                                          "plot_schedules(*schedules)"
                                                          if isinstance(sched, (list, tuple)) else ""))
        if not sched.bars:
            raise ValueError(f"schedules[{i}] ({sched.title!r}) has no bars")
    lanes = [1 + max(b.lane for b in s.bars) for s in schedules]
    fig = page_figure(0.75 + sum(LANE_IN[n > 10] * (n + 0.4) + 0.35 for n in lanes))
    axes = fig.subplots(len(schedules), 1, sharex=True, squeeze=False,
                        height_ratios=[n + 1.5 for n in lanes])[:, 0]
    for ax, sched, n in zip(axes, schedules, lanes):
        for bar in sched.bars:
            low, height = (_SUBLANE.get(bar.phase, (0.05, 0.8)) if sched.lane_label == "block"
                           else (0.05, 0.8))
            ax.broken_barh([(bar.start, bar.duration)], (bar.lane + low, height),
                           facecolors=PHASE_COLOURS[bar.phase], edgecolor="white", lw=0.2)
        labels = sched.meta.get("labels", {})
        ax.set_yticks([i + 0.45 for i in range(n)],
                      [labels.get(i, f"{_word(sched.lane_label)} {i}") for i in range(n)])
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(-0.2, n + 0.1)
        ax.invert_yaxis()
        unit = _word(sched.unit)
        ax.set_title(f"{_of(sched.title)}: {sched.total:.4g}{'' if unit == '사이클' else ' '}{unit}",
                     loc="left")
    axes[-1].set_xlabel(_t(f"time ({schedules[0].unit})", f"시간({_word(schedules[0].unit)})"))
    axes[-1].set_xlim(left=0)
    fig.legend(handles=[Patch(fc=c, label=_word(p)) for p, c in PHASE_COLOURS.items()],
               loc="outside upper center", ncol=5, frameon=False, handlelength=1.4,
               columnspacing=1.2)
    return fig


def _word(english: str) -> str:
    """A phase, lane or unit name in the figure's language."""
    return _t(english, PHASE_KO.get(english, english))


def _n_label(n: int) -> str:
    """2^26 as "2²⁶": a title that mixes it with Hangul cannot be mathtext, which has no font
    fallback."""
    return "2" + str(int(np.log2(n))).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


# The bandwidth figure's panels: asynchronous copies; plain loads and the libraries' kernels.
BANDWIDTH_PANELS = (("asynchronous copies (cp.async, bulk copy)", "비동기 복사(cp.async, 벌크 복사)"),
                    ("plain loads, and the libraries' convolutions", "일반 로드와 라이브러리의 합성곱"))
SERIES_COLOURS = {"puzzle28": "#d62728", "async_halo": "#1f77b4", "pipelined": "#2ca02c",
                  "bulk": "#9467bd", "naive": "#8c564b", "tiled_sync": "#ff7f0e", "tiled_loads_first": "#393b79",
                  "vec4": "#17becf", "staged_sync": "#e377c2", "warp_specialized": "#b8860b",
                  "cupyx.ndimage.correlate1d": "#7f7f7f", "torch.conv1d": "#bcbd22"}


SERIES_MARKERS = {"pipelined": "o", "bulk": "D", "warp_specialized": "v", "vec4": "s",
                  "staged_sync": "P", "async_halo": "o", "puzzle28": "x"}


def _series_style(name: str) -> dict:
    if name in V.NAMES:
        return dict(color=SERIES_COLOURS.get(name), marker=SERIES_MARKERS.get(name, "s"),
                    ls="-" if V.get(name).asynchronous else ":", ms=4, lw=1.4, mfc="none")
    return dict(color=SERIES_COLOURS.get(name), marker="^", ms=4, lw=1.2, ls="-.")   # a library


@_on_page
def plot_bandwidth(result: dict, k: int = 5, label: str = ""):
    """Effective bandwidth (8 N bytes over the kernel time) against N, under the device copy of
    the same bytes (in both panels): the asynchronous variants above, the
    plain-load variants and the libraries' convolutions (peers) below, on the same axes."""
    record("result", result, ("rows", "provenance"))
    valid_rows("result['rows']", result["rows"], ("name", "n", "k", "gbps"))
    k, label = integer("k (taps)", k), text("label", label)
    recorded = sorted({r["k"] for r in result["rows"]})
    if k not in recorded:
        raise ValueError(f"the recording has no rows for k={k}: it has K = "
                         f"{', '.join(map(str, recorded))}")
    rows = [r for r in result["rows"] if r["k"] == k]
    names = list(dict.fromkeys(r["name"] for r in rows))
    groups = ([v for v in names if v in V.NAMES and V.get(v).asynchronous],
              [v for v in names if v != "copy" and not (v in V.NAMES and V.get(v).asynchronous)])
    fig = page_figure(5.8)
    axes = fig.subplots(2, 1, sharex=True, sharey=True)

    def curve(name):
        rs = sorted((r for r in rows if r["name"] == name), key=lambda r: r["n"])
        return [r["n"] for r in rs], [r["gbps"] for r in rs]
    l2 = result["provenance"].get("l2_bytes")
    for ax, group, title in zip(axes, groups, BANDWIDTH_PANELS):
        if "copy" in names:
            ax.plot(*curve("copy"), color="black", ls="--", lw=1.8, label=_t("device copy of the same bytes", "같은 바이트의 디바이스 간 복사"))
        for name in group:
            ax.plot(*curve(name), label=name, **_series_style(name))
        if l2:
            ax.axvline(l2 / 8, color="grey", lw=0.8, ls=":")
        ax.set_title(_t(*title), loc="left")
        ax.set_ylabel("GB/s")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0)
    _log2_axis(axes[-1], [r["n"] for r in rows])
    axes[-1].set_xlabel(_t("N (float32 elements); the working set is 8 N bytes",
                           "N (float32 원소 수). 작업 집합은 8 N 바이트"))
    if l2:   # low in the panel, where no curve runs at large N
        axes[0].text(l2 / 8, 0.05, _t(" x and y outgrow\n the L2 (dotted)", " x, y가 L2보다\n 커짐(점선)"),
                     transform=axes[0].get_xaxis_transform(), va="bottom")
    fig.suptitle("\n".join([_t(f"K = {k}: GB/s = 8 N bytes / kernel time.",
                               f"K = {k}: GB/s = 8 N 바이트 / 커널 시간."),
                            *_title(_of(label)).split("\n")]),
                 x=0.0, ha="left")
    return fig


@_on_page
def plot_stage_sweep(result: dict, label: str = ""):
    """Bandwidth of the pipelined kernel against its number of stages, beside the bytes each SM
    keeps in flight (Little's law: bandwidth = bytes in flight / latency)."""
    record("result", result, ("stage_sweep", "provenance"))
    label = text("label", label)
    if not result["stage_sweep"]:
        raise ValueError("result['stage_sweep'] is empty: the recording has no stage sweep")
    for i, r in enumerate(valid_rows("result['stage_sweep']", result["stage_sweep"],
                                     ("n", "k", "config", "gbps", "copy_us"))):
        record(f"result['stage_sweep'][{i}]['config']", r["config"], ("stages", "tile", "grid"))
    record("result['provenance']", result["provenance"], ("multiprocessors",))
    rows = sorted(result["stage_sweep"], key=lambda r: r["config"]["stages"])
    sms = result["provenance"]["multiprocessors"]
    fig = page_figure(3.4)
    ax = fig.subplots()
    stages = [r["config"]["stages"] for r in rows]
    bars = ax.bar(stages, [r["gbps"] for r in rows], color="#8ecae6", label="pipelined, GB/s")
    copy = np.median([r["copy_us"] for r in rows])
    roof = ax.axhline(8 * rows[0]["n"] / (copy * 1e-6) / 1e9, color="black", ls="--",
                      label=_t("device copy, GB/s", "디바이스 간 복사, GB/s"))
    ax.set_xlabel(_t("stages (tile buffers per block)", "스테이지(블록당 타일 버퍼 수)"))
    ax.set_ylabel("GB/s")
    ax.set_xticks(stages)
    twin = ax.twinx()
    from ..measure.recorded import bytes_in_flight
    line, = twin.plot(stages, [bytes_in_flight(r, sms) / 1024 for r in rows], "o-",
                      color="#d1495b", label=_t("KiB in flight per SM (right axis)", "SM당 진행 중인 KiB(오른쪽 축)"))
    twin.set_ylabel(_t("KiB requested per SM\n(while waiting)", "SM당 요청해 두고\n기다리는 KiB"))
    twin.set_ylim(0, None)
    fig.legend(handles=[bars, roof, line], loc="outside lower center", ncol=3, frameon=False,
               columnspacing=1.0, handlelength=1.5)
    ax.set_title(_title(f"N = {_n_label(rows[0]['n'])}, K = {rows[0]['k']}, "
                        + _t("tile", "타일") + f" {rows[0]['config']['tile']}. {_of(label)}"), loc="left")
    return fig


ZOOM = (0.96, 1.6)   # the roofline's lower panel: the few percent that chapter 05 discusses


@_on_page
def plot_roofline(rec: dict, n: int = 2**26, variants=None, label: str = ""):
    """Each variant's time over the bound (the larger of the copy and the FMA time, 1.0: the
    dashed line) against the number of taps K, on a log2 axis: one line per variant, error bars
    from the interquartile range, from a roofline recording (``python -m kernels.measure.roofline``).
    ``variants``: which to draw (default: every one recorded at ``n``)."""
    from ..measure.recorded import roofline_rows
    label = text("label", label)
    by_variant = roofline_rows(rec, n)
    if variants is not None:
        variants = [V.get(v).name for v in sequence("variants", variants, "variant names")]
        absent = [v for v in variants if v not in by_variant]
        if absent:
            raise ValueError(f"the recording has no rows of {', '.join(absent)} at n = {n}: it "
                             f"has {', '.join(by_variant)}")
        by_variant = {v: by_variant[v] for v in variants}
    fig = page_figure(6.0)
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
                   label=_t("the bound: max(copy, FMA time)", "상한: max(복사, FMA 시간)"))
    all_ks = sorted({r["k"] for rows in by_variant.values() for r in rows})
    fma_bound = sorted({r["k"] for rows in by_variant.values() for r in rows
                        if r["limit"] == "fma"})
    if fma_bound:   # shaded from halfway (on the log axis) past the last K the copy bounds
        copy_bound = [k for k in all_ks if k < fma_bound[0]]
        start = (copy_bound[-1] * fma_bound[0]) ** 0.5 if copy_bound else fma_bound[0] / 2**0.5
        for ax in axes:
            ax.axvspan(start, all_ks[-1] * 2**0.5, color="#f28482", alpha=0.12, lw=0,
                       label=_t("FMAs bound it, not the copy", "복사가 아니라 FMA가 상한을 정함"))
    top, ax = axes
    top.set_ylim(bottom=0)
    top.set_ylabel(_t("time / bound", "시간 / 상한"))
    ax.set_ylim(ZOOM)
    ax.set_title(_t(f"the same, from {ZOOM[0]:g} to {ZOOM[1]:g}: the differences near the bound",
                    f"같은 그림의 {ZOOM[0]:g}~{ZOOM[1]:g} 구간: 상한 근처의 차이"), loc="left")
    ax.set_xscale("log", base=2)
    ax.set_xticks(all_ks, [str(k) for k in all_ks])
    ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())
    ax.set_xlabel(_t("K (taps)", "K (탭 수)"))
    ax.set_ylabel(_t("time / bound", "시간 / 상한"))
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0,
               title=_t("solid: asynchronous copies\ndotted: plain loads", "실선: 비동기 복사\n점선: 일반 로드"),
               alignment="left")
    device = rec["provenance"].get("device")
    where = "" if device and device in label else _t(f" on {device}", f", {device}")   # the label may name it
    top.set_title(_title(f"N = {_n_label(n)}{where}. {_of(label)}"), loc="left")
    for a in axes:
        a.grid(alpha=0.3)
    return fig


HANDOFFS = ("mbarrier", "pipeline")


@_on_page
def plot_handoff(stages: int = 2, tiles: int = 4, kind: str = "mbarrier"):
    """The ring of ``stages`` buffers over time, for one block's first ``tiles`` tiles: tile i
    goes into buffer s = i % stages in round r = i // stages. ``kind`` "mbarrier" (chapter 05):
    the producer warp fills it after its wait on empty[s] for parity (r & 1) ^ 1, the compute
    warps read it after their wait on full[s] for parity r & 1; an arrow is a phase completing.
    "pipeline" (chapter 03's double buffer): every thread's cp.async batch is in flight while the
    block computes the tile before it; an arrow is a wait and a barrier."""
    stages, tiles = integer("stages", stages, 1, 4), integer("tiles", tiles, 1, 6)
    kind = choice("kind", kind, HANDOFFS)
    fig = page_figure(2.6)
    ax = fig.subplots()
    full, empty = "#2a9d8f", "#e76f51"
    if kind == "mbarrier":
        lanes = (_t("compute warps", "계산 워프"), _t("producer warp", "프로듀서 워프"))
        waits = (lambda s, r: f"full[{s}] p={r & 1}", lambda s, r: f"empty[{s}] p={(r & 1) ^ 1}")
        arrows = (_t("full[s] completes: the bytes have landed", "full[s] 완료: 바이트가 도착함"),
                  _t("empty[s] completes: every warp has read", "empty[s] 완료: 모든 워프가 다 읽음"))
        title = _t(f"{stages} stages, {tiles} tiles: each wait names the phase parity it waits for (p)",
                   f"스테이지 {stages}개, 타일 {tiles}개: 기다릴 때마다 페이즈 패리티(p)를 지정합니다")
    else:
        lanes = (_t("compute", "계산"), _t("copies in flight", "진행 중인 복사"))
        waits = (lambda s, r: "wait + sync", lambda s, r: "commit")
        arrows = (_t("its batch has landed: wait, then __syncthreads()",
                     "배치 도착: 기다린 뒤 __syncthreads()"),
                  _t("every thread has read it: __syncthreads()",
                     "모든 스레드가 다 읽음: __syncthreads()"))
        title = _t(f"{stages} buffers, {tiles} tiles: the next tile's copy is in flight while this "
                   "one is computed",
                   f"버퍼 {stages}개, 타일 {tiles}개: 이 타일을 계산하는 동안 다음 타일의 복사가 진행됩니다")
    for i in range(tiles):
        s, r = i % stages, i // stages
        for lane, start in ((1, i), (0, i + 1)):
            ax.add_patch(Rectangle((start + 0.03, lane + 0.1), 0.9, 0.75,
                                   fc=_tile_colour(s), ec="black", lw=0.6))
            ax.text(start + 0.48, lane + 0.62, _t(f"tile {i} → buf {s}", f"타일 {i} → 버퍼 {s}"),
                    ha="center", va="center", fontsize=MIN_FONT_PT)
            ax.text(start + 0.48, lane + 0.32, waits[lane](s, r), ha="center", va="center",
                    fontsize=MIN_FONT_PT, family="monospace")
        ax.annotate("", xy=(i + 1.1, 0.75), xytext=(i + 0.9, 1.2),
                    arrowprops=dict(arrowstyle="->", color=full, lw=1.6))
        if i + stages < tiles:
            ax.annotate("", xy=(i + stages + 0.1, 1.25), xytext=(i + 1.9, 0.7),
                        arrowprops=dict(arrowstyle="->", color=empty, lw=1.6,
                                        connectionstyle="arc3,rad=-0.25"))
    ax.set_xlim(0, tiles + 1)
    ax.set_ylim(0, 2)
    ax.set_yticks([0.47, 1.47], lanes)
    ax.set_xticks([])
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(_t("time →", "시간 →"))
    ax.set_title(_title(title), loc="left")
    fig.legend(handles=[mpl.lines.Line2D([], [], color=c, lw=1.6, label=label)
                        for c, label in zip((full, empty), arrows)],
               loc="outside lower center", ncol=2, frameon=False)
    return fig
