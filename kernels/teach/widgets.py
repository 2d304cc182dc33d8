"""The notebooks' controls. Each offers only values that ``kernels.launch_config`` accepts (a
test walks every combination), and each wraps a plain function that also runs without widgets.

The published book is static: a slider there moves nothing. So when the notebooks are executed
for the book (``python -m kernels.publish.notebooks execute`` sets ``ASYNC_BOOK_WIDGET_PREVIEW=1``), each
widget cell shows instead, as an ordinary output, what its controls show at their default values;
in Jupyter or Colab only the live controls appear. (The executor creates no live widget at all:
nbclient can block on a cell that opens widget comms, jupyter/nbclient#312, and a static page
could not show one anyway.)
"""

from __future__ import annotations

import os
import textwrap

from .. import variants as V
from ..measure.recorded import PAGE_CHARS
from ..validate import listed

PREVIEW_ENV = "ASYNC_BOOK_WIDGET_PREVIEW"
PREVIEW_NOTE = ("*On this static page, the output for the controls' default values; run the "
                "notebook (Colab, Jupyter) to move them.*")


def _interact(show, controls: dict) -> None:
    """``ipywidgets.interact(show, **controls)``; when the notebook is executed for the published
    book, the picture of the controls' default state instead."""
    if os.environ.get(PREVIEW_ENV) == "1":
        from IPython.display import Markdown, display
        display(Markdown(PREVIEW_NOTE))
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
                tile=W.Dropdown(options=HALO_TILES, value=32, description="tile"),
                k=W.IntSlider(value=5, min=HALO_K[0], max=HALO_K[1], description="K"))


def explore_halos():
    """Draw the tiles and halos for the chosen N, tile size and number of taps."""
    from IPython.display import display

    from .plots import draw_tiles

    def show(n, tile, k):
        display(draw_tiles(n, tile, k))
    _interact(show, halo_controls())


# Notebook 02: the timeline model. Any value here is a valid model input (tiles are the kernels');
# the latency and compute sliders step by one cycle, so that every preset lands on a slider value.
MODEL_TILES = (32, 64, 128, 256, 512, 1024)
MODEL_BANDWIDTH = (("unlimited", None), ("64 B/cycle", 64.0), ("16 B/cycle", 16.0), ("4 B/cycle", 4.0))
MODEL_CYCLES = {"dram_latency": (10, 2000), "taps_latency": (10, 2000), "compute": (10, 1000)}


def model_controls() -> dict:
    """The model's controls, and a *preset* menu (``timeline.model_presets``) that sets the
    latency and compute sliders to the puzzle's illustration or to the phases measured on the
    H200; the puzzle's first."""
    import ipywidgets as W

    from ..measure.timeline import PRESET_PUZZLE, model_presets
    presets = model_presets()
    first = presets[PRESET_PUZZLE]

    def cycles(name, label):
        lo, hi = MODEL_CYCLES[name]
        return W.IntSlider(value=first[name], min=lo, max=hi, step=1, description=label)

    c = dict(preset=W.Dropdown(options=list(presets), value=PRESET_PUZZLE, description="preset"),
             dram_latency=cycles("dram_latency", "tile latency"),
             taps_latency=cycles("taps_latency", "taps latency"),
             compute=cycles("compute", "compute"),
             tile=W.Dropdown(options=MODEL_TILES, value=256, description="tile"),
             k=W.IntSlider(value=5, min=1, max=32, description="K"),
             blocks_per_sm=W.IntSlider(value=1, min=1, max=8, description="blocks / SM"),
             bytes_per_cycle=W.Dropdown(options=MODEL_BANDWIDTH, value=None, description="bandwidth"))

    def apply(change):
        for name, value in presets[change["new"]].items():
            c[name].value = value
    c["preset"].observe(apply, names="value")
    return c


def explore_model():
    """The sync and async schedules for the chosen parameters, drawn, with their totals. The
    *preset* only sets the sliders; the schedules are drawn from the sliders' values."""
    from IPython.display import display

    from .plots import plot_schedules
    from ..measure.timeline import model, model_totals

    def show(preset, **params):
        t = model_totals(**params)
        print(f"sync {t['sync']:.0f} cycles, async {t['async']:.0f}: overlap saves {t['saved']:.0f} "
              f"cycles, {100 * t['less_time']:.1f}% less time, {t['speedup']:.2f}x")
        display(plot_schedules(model("sync", **params), model("async", **params)))
    _interact(show, model_controls())


# Notebook 03: one variant, or two side by side, at one size.
def convolution_controls() -> dict:
    """Variant, a second variant to compare with (or none), N, tile, K, threads, stages (used by
    the staged variants only) and the generation to build for, whose options follow the two
    variants: a T4 or A100 build is offered only when both run there."""
    import ipywidgets as W

    from .explore import (K_RANGE, STAGE_CHOICES, THREAD_CHOICES, TILE_CHOICES,
                          generation_choices, n_choices, variant_choices)
    variants = variant_choices()

    def options(values):
        return [("default" if v is None else str(v), v) for v in values]
    c = dict(variant=W.Dropdown(options=variants, value="async_halo", description="variant"),
             versus=W.Dropdown(options=[("none", None), *((v, v) for v in variants)],
                               value="tiled_sync", description="versus"),
             n=W.SelectionSlider(options=n_choices(), value=16384, description="N"),
             tile=W.Dropdown(options=TILE_CHOICES, value=256, description="tile"),
             k=W.IntSlider(value=5, min=K_RANGE[0], max=K_RANGE[1], description="K"),
             threads=W.Dropdown(options=options(THREAD_CHOICES), value=None,
                                description="threads"),
             stages=W.Dropdown(options=options(STAGE_CHOICES), value=None,
                               description="stages"),
             arch=W.Dropdown(options=generation_choices("async_halo", "tiled_sync"), value=None,
                             description="build for"))

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

    from .explore import MAP_UP_TO, compare
    from .plots import plot_error_map

    def show(variant, versus, n, tile, k, threads, stages, arch):
        names = [variant] + ([versus] if versus and versus != variant else [])
        runs = compare(names, n, tile, k, threads, stages, arch)
        for r in runs:
            print(r.summary())
        if stages is not None and not all(V.get(r.variant).staged for r in runs):
            print(f"(stages apply to {listed(V.names(staged=True))} only)")
        if len(runs) == 2 and runs[0].median_us and runs[1].median_us:
            print(f"{runs[0].variant} takes {runs[0].median_us / runs[1].median_us:.2f}x the time "
                  f"of {runs[1].variant}")
        for note in dict.fromkeys(note for r in runs for note in r.regime()):
            print(textwrap.fill(f"Note: {note}", PAGE_CHARS, subsequent_indent="  "))
        if n <= MAP_UP_TO:
            display(plot_error_map({r.variant: r.y for r in runs}, runs[0].x, runs[0].w, tile))
        else:
            print(f"(error maps are drawn up to N = {MAP_UP_TO}; the counts above cover every "
                  "output)")
    _interact(show, convolution_controls())
