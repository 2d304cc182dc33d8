"""The notebooks' controls. Each offers only values that ``kernels.launch_config`` accepts (a
test walks every combination), and each wraps a plain function that also runs without widgets."""

from __future__ import annotations

HALO_N = (1, 160)                 # small enough to draw cell by cell
HALO_TILES = (32, 64, 96, 128)
HALO_K = (1, 17)                  # every K here is <= the smallest tile


def halo_controls() -> dict:
    import ipywidgets as W
    return dict(n=W.IntSlider(value=100, min=HALO_N[0], max=HALO_N[1], description="N"),
                tile=W.Dropdown(options=HALO_TILES, value=32, description="tile"),
                k=W.IntSlider(value=5, min=HALO_K[0], max=HALO_K[1], description="K"))


def explore_halos():
    """Draw the tiles and halos for the chosen N, tile size and kernel size."""
    import ipywidgets as W
    from IPython.display import display

    from .plots import draw_tiles

    def show(n, tile, k):
        display(draw_tiles(n, tile, k))
    W.interact(show, **halo_controls())
