"""Run one variant at one size and say what happened: the function behind notebook 03's widget."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import variants as V
from .device import gpu_available, target_arch
from .geometry import launch_config
from .launch import conv1d
from .reference import error_bound, random_inputs, reference, wrong_outputs
from .validate import flag

N_CHOICES = (1, 100, 1000, 16384, 16385, 100_000, 2**20, 2**22)
TILE_CHOICES = (32, 64, 128, 256, 512, 1024)
K_RANGE = (1, 32)   # every K here fits every tile above, for every variant


@dataclass
class Run:
    variant: str
    n: int
    tile: int
    k: int
    backend: str
    y: np.ndarray
    x: np.ndarray
    w: np.ndarray
    wrong: int
    max_error: float             # largest |y - reference|
    max_error_over_bound: float  # the same, in units of the float32 rounding bound
    median_us: float | None      # kernel-only time on the GPU; None in the emulation

    def summary(self) -> str:
        verdict = "correct" if self.wrong == 0 else f"{self.wrong} of {self.n} outputs WRONG"
        time = (f"{self.median_us:.1f} µs kernel time ({8 * self.n / self.median_us / 1e3:.0f} GB/s)"
                if self.median_us is not None else "no timing in the emulation")
        return (f"{self.variant}, N={self.n}, tile={self.tile}, K={self.k} [{self.backend}]: {verdict}; "
                f"largest error {self.max_error:.2e} ({self.max_error_over_bound:.2g} × the rounding "
                f"bound); {time}")


def variant_choices() -> tuple[str, ...]:
    """The variants this machine can run (the emulation runs all)."""
    return V.names(arch=target_arch() if gpu_available() else None)


def run(variant: str = "async_halo", n: int = 16384, tile: int = 256, k: int = 5, seed: int = 28,
        timed: bool = True) -> Run:
    """Run ``variant`` on ``random_inputs(n, k, seed)`` with ``tile``, check it and, on a GPU
    when ``timed``, time it. Every argument is checked before anything runs."""
    launch_config(n, k, tile, variant=variant)   # variant, n, tile and k as conv1d takes them
    timed = flag("timed", timed)
    x, w = random_inputs(n, k, seed)             # and the seed
    y = conv1d(x, w, variant, tile=tile)
    err = np.abs(y.astype(np.float64) - reference(x, w))
    median = None
    if gpu_available() and timed:
        import cupy

        from .timing import time_us
        from .launch import prepare
        xd, wd = cupy.asarray(x), cupy.asarray(w)
        median = float(np.median(time_us(prepare(variant, xd, wd, cupy.empty_like(xd), tile=tile), n)[0]))
    return Run(variant, n, tile, k, "GPU" if gpu_available() else "emulation", y, x, w,
               int(wrong_outputs(y, x, w).size), float(np.nanmax(err)),
               float(np.nanmax(err / error_bound(x, w))), median)
