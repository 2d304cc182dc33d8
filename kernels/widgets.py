"""The notebooks' controls. Each offers only values that ``kernels.launch_config`` accepts (a
test walks every combination), and each wraps a plain function that also runs without widgets.

The published book is static: a slider there moves nothing. So when the notebooks are executed
for the book (``python -m kernels.notebooks execute`` sets ``ASYNC_BOOK_WIDGET_PREVIEW=1``), each
widget cell shows instead, as an ordinary output, what its controls show at their default values;
in Jupyter or Colab only the live controls appear. (The executor creates no live widget at all:
nbclient can block on a cell that opens widget comms, jupyter/nbclient#312, and a static page
could not show one anyway.)
"""

from __future__ import annotations

import os

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
MODEL_CYCLES = {"dram_latency": (10, 2000), "weight_latency": (10, 2000), "compute": (10, 1000)}


def model_controls() -> dict:
    """The model's controls, and a *preset* menu (``timeline.model_presets``) that sets the
    latency and compute sliders to the puzzle's illustration or to the phases measured on the
    H200; the puzzle's first."""
    import ipywidgets as W

    from .timeline import PRESET_PUZZLE, model_presets
    presets = model_presets()
    first = presets[PRESET_PUZZLE]

    def cycles(name, label):
        lo, hi = MODEL_CYCLES[name]
        return W.IntSlider(value=first[name], min=lo, max=hi, step=1, description=label)

    c = dict(preset=W.Dropdown(options=list(presets), value=PRESET_PUZZLE, description="preset"),
             dram_latency=cycles("dram_latency", "tile latency"),
             weight_latency=cycles("weight_latency", "taps latency"),
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
    from .timeline import model, model_totals

    def show(preset, **params):
        t = model_totals(**params)
        print(f"sync {t['sync']:.0f} cycles, async {t['async']:.0f}: overlap saves {t['saved']:.0f} "
              f"cycles, {100 * t['less_time']:.1f}% less time, {t['speedup']:.2f}x")
        display(plot_schedules(model("sync", **params), model("async", **params)))
    _interact(show, model_controls())


# Notebook 03: one variant at one size.
def convolution_controls() -> dict:
    import ipywidgets as W

    from .explore import K_RANGE, N_CHOICES, TILE_CHOICES, variant_choices
    return dict(variant=W.Dropdown(options=variant_choices(), value="async_halo", description="variant"),
                n=W.SelectionSlider(options=N_CHOICES, value=16384, description="N"),
                tile=W.Dropdown(options=TILE_CHOICES, value=256, description="tile"),
                k=W.IntSlider(value=5, min=K_RANGE[0], max=K_RANGE[1], description="K"))


def explore_convolution():
    """Compile (cached), run and check the chosen variant; on a GPU, time it."""
    from IPython.display import display

    from .explore import run
    from .plots import plot_error_map

    def show(variant, n, tile, k):
        r = run(variant, n, tile, k)
        print(r.summary())
        display(plot_error_map({variant: r.y}, r.x, r.w, tile))
    _interact(show, convolution_controls())
