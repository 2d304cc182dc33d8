"""The notebooks' controls. Each offers only values that ``kernels.launch_config`` accepts (a
test walks every combination), and each wraps a plain function that also runs without widgets.

The published book is static, so where a notebook runs as the book shows it
(:data:`~kernels.teach.page.PREVIEW_ENV`), a widget cell shows instead what its controls show at
their default values, and creates no live widget (nbclient can block on a cell that opens widget
comms, jupyter/nbclient#312).
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass

from .. import variants as V
from ..edition import PAGE_CHARS, Text, bundle, listed as both_listed, show as say, wrap
from .schedule import PRESET_PUZZLE, model, model_presets, model_totals, preset_label
from .explore import (K_RANGE, MAP_UP_TO, STAGE_CHOICES, THREAD_CHOICES, TILE_CHOICES, compare,
                      generation_choices, n_choices, variant_choices)
from .page import PREVIEW_ENV
from .plots import draw_tiles, plot_error_map, plot_schedules


@dataclass
class Note:
    """A line of Markdown in both editions' languages: displayed, it shows the current edition's
    and carries both (``translate sync`` gives the Korean page its own)."""
    text: Text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return bundle(lambda lang: {"text/markdown": self.text.in_(lang),
                                    "text/plain": self.text.in_(lang)})


PREVIEW_NOTE = Note(Text("*On this static page, the output for the controls' default values; run "
                         "the notebook (Colab, Jupyter) to move them.*",
                         "이 정적인 페이지에는 컨트롤의 기본값에 대한 출력이 있습니다. 값을 바꿔 보려면 "
                         "노트북을 실행하세요(Colab, Jupyter)."))   # Hangul has no italics


def _interact(show, controls: dict) -> None:
    """``ipywidgets.interact(show, **controls)``; when the notebook is executed for the published
    book, the picture of the controls' default state instead."""
    if os.environ.get(PREVIEW_ENV) == "1":
        from IPython.display import display
        display(PREVIEW_NOTE)
        show(**{name: control.value for name, control in controls.items()})
        return
    import ipywidgets as W
    W.interact(show, **controls)


HALO_N = (1, 160)                 # small enough to draw cell by cell
HALO_TILES = (32, 64, 96, 128)
HALO_K = (1, 17)                  # every K here is <= the smallest tile


def halo_controls() -> dict:
    import ipywidgets as W
    return dict(n=W.IntSlider(value=100, min=HALO_N[0], max=HALO_N[1], description="N"),
                tile=W.Dropdown(options=HALO_TILES, value=32, description=Text("tile", "타일")),
                k=W.IntSlider(value=5, min=HALO_K[0], max=HALO_K[1], description="K"))


def explore_halos():
    """Draw the tiles and halos for the chosen N, tile size and number of taps."""
    from IPython.display import display

    def show(n, tile, k):
        display(draw_tiles(n, tile, k))
    _interact(show, halo_controls())


# Notebook 02: the timeline model. Any value here is a valid model input (tiles are the kernels');
# the latency and compute sliders step by one cycle, so that every preset lands on a slider value.
MODEL_TILES = (32, 64, 128, 256, 512, 1024)
MODEL_BANDWIDTH = (("unlimited", None), ("64 B/cycle", 64.0), ("16 B/cycle", 16.0), ("4 B/cycle", 4.0))
MODEL_CYCLES = {"dram_latency": (10, 2000), "taps_latency": (10, 2000), "compute": (10, 1000)}


def model_controls() -> dict:
    """The model's controls, and a *preset* menu (``schedule.model_presets``, the puzzle's first)
    that sets the latency and compute sliders."""
    import ipywidgets as W
    presets = model_presets()
    first = presets[PRESET_PUZZLE]

    def cycles(name, label):
        lo, hi = MODEL_CYCLES[name]
        return W.IntSlider(value=first[name], min=lo, max=hi, step=1, description=label)

    bandwidths = [(Text(name, "무제한" if value is None else f"사이클당 {value:.0f}바이트"), value)
                  for name, value in MODEL_BANDWIDTH]
    c = dict(preset=W.Dropdown(options=[(str(preset_label(p)), p) for p in presets],
                               value=PRESET_PUZZLE, description=Text("preset", "프리셋")),
             dram_latency=cycles("dram_latency", Text("tile latency", "타일 지연")),
             taps_latency=cycles("taps_latency", Text("taps latency", "탭 지연")),
             compute=cycles("compute", Text("compute", "계산")),
             tile=W.Dropdown(options=MODEL_TILES, value=256, description=Text("tile", "타일")),
             k=W.IntSlider(value=5, min=1, max=32, description="K"),
             blocks_per_sm=W.IntSlider(value=1, min=1, max=8,
                                       description=Text("blocks / SM", "SM당 블록")),
             bytes_per_cycle=W.Dropdown(options=bandwidths, value=None,
                                        description=Text("bandwidth", "대역폭")))

    def apply(change):
        for name, value in presets[change["new"]].items():
            c[name].value = value
    c["preset"].observe(apply, names="value")
    return c


def explore_model():
    """The sync and async schedules for the chosen parameters, drawn, with their totals. The
    *preset* only sets the sliders; the schedules are drawn from the sliders' values."""
    from IPython.display import display

    def show(preset, **params):
        say(model_line(model_totals(**params)))
        display(plot_schedules(model("sync", **params), model("async", **params)))
    _interact(show, model_controls())


def model_line(t: dict) -> Text:
    """The line the model's widget shows above its schedules, from ``schedule.model_totals``."""
    sync, asyn, saved = (f"{t[k]:,.0f}" for k in ("sync", "async", "saved"))
    less, speedup = f"{100 * t['less_time']:.1f}%", f"{t['speedup']:.2f}"
    return Text(f"sync {sync} cycles, async {asyn}: overlap saves {saved} cycles, {less} less time, "
                f"{speedup}x",
                f"동기 {sync}사이클, 비동기 {asyn}사이클: 중첩으로 {saved}사이클, 시간 {less}를 "
                f"아낍니다({speedup}배).")


def convolution_lines(runs, stages=None, n=None) -> list[Text]:
    """What the convolution widget says under its runs (:func:`kernels.teach.explore.compare`):
    their summaries, then notes on stages, their times, their GB/s and a missing error map."""
    lines = [r.summary() for r in runs]
    if stages is not None and not all(V.get(r.variant).staged for r in runs):
        names = both_listed(V.names(staged=True))
        lines.append(Text(f"(stages apply to {names.en} only)", f"(스테이지는 {names.ko}에만 적용됩니다)"))
    if len(runs) == 2 and runs[0].median_us and runs[1].median_us:
        a, b, ratio = runs[0].variant, runs[1].variant, f"{runs[0].median_us / runs[1].median_us:.2f}"
        lines.append(Text(f"{a} takes {ratio}x the time of {b}", f"{a}의 시간은 {b}의 {ratio}배입니다"))
    for note in dict.fromkeys(note for r in runs for note in r.regime()):
        lines.append(Text(textwrap.fill(f"Note: {note.en}", PAGE_CHARS, subsequent_indent="  "),
                          "\n".join(wrap(f"참고: {note.ko}", PAGE_CHARS, "  "))))
    if n is not None and n > MAP_UP_TO:
        lines.append(Text(f"(error maps are drawn up to N = {MAP_UP_TO}; the counts above cover every "
                          "output)",
                          f"(오차 지도는 N = {MAP_UP_TO:,}까지만 그립니다. 위의 개수는 모든 출력을 "
                          "셉니다)"))
    return lines


# Notebook 03: one variant, or two side by side, at one size.
def convolution_controls() -> dict:
    """Variant, a second one to compare with (or none), N, tile, K, threads, stages and the
    generation to build for, whose options follow the two variants."""
    import ipywidgets as W
    variants = variant_choices()

    def options(values):
        return [(Text("default", "기본값") if v is None else str(v), v) for v in values]
    c = dict(variant=W.Dropdown(options=variants, value="async_halo",
                                description=Text("variant", "변형")),
             versus=W.Dropdown(options=[(Text("none", "없음"), None), *((v, v) for v in variants)],
                               value="tiled_sync", description=Text("versus", "비교 대상")),
             n=W.SelectionSlider(options=n_choices(), value=16384, description="N"),
             tile=W.Dropdown(options=TILE_CHOICES, value=256, description=Text("tile", "타일")),
             k=W.IntSlider(value=5, min=K_RANGE[0], max=K_RANGE[1], description="K"),
             threads=W.Dropdown(options=options(THREAD_CHOICES), value=None,
                                description=Text("threads", "스레드")),
             stages=W.Dropdown(options=options(STAGE_CHOICES), value=None,
                               description=Text("stages", "스테이지")),
             arch=W.Dropdown(options=generation_choices("async_halo", "tiled_sync"), value=None,
                             description=Text("build for", "빌드 대상")))

    def follow(change):
        keep = c["arch"].value
        c["arch"].options = generation_choices(c["variant"].value, c["versus"].value)
        c["arch"].value = keep if keep in [a for _, a in c["arch"].options] else None
    c["variant"].observe(follow, names="value")
    c["versus"].observe(follow, names="value")
    return c


def explore_convolution():
    """Compile (cached), run and check the chosen variants on the same inputs; on a GPU, time
    each beside a copy of the same bytes and say when the time is not about bandwidth."""
    from IPython.display import display

    def show(variant, versus, n, tile, k, threads, stages, arch):
        names = [variant] + ([versus] if versus and versus != variant else [])
        runs = compare(names, n, tile, k, threads, stages, arch)
        say(Text("\n", "\n").join(convolution_lines(runs, stages, n)))
        if n <= MAP_UP_TO:
            display(plot_error_map({r.variant: r.y for r in runs}, runs[0].x, runs[0].w, tile))
    _interact(show, convolution_controls())
