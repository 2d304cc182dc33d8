"""What compute-sanitizer runs (tests/gpu/test_sanitizer.py): one variant (the first argument; all of
them without one) at the seed config and at awkward sizes, with CuPy's memory pool off so that each array is its own allocation and an
out-of-bounds access cannot land silently inside a neighbouring one. The staged variants also run
with two blocks, so that each block walks many tiles and refills its buffers (a persistent grid
on a large GPU gives every block one tile at these sizes)."""

import dataclasses
import sys
from pathlib import Path

import cupy
import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[i]) for i in (2, 1)]   # the root, tests/
import kernels  # noqa: E402
from kernels.device import target_arch  # noqa: E402
from inputs import random_inputs  # noqa: E402

cupy.cuda.set_allocator(None)
SHAPES = [(16384, 256, 5, 256), (1000, 96, 7, 64), (1, 32, 5, 32), (4099, 1024, 64, 256)]
chosen = sys.argv[1:2] or list(kernels.VARIANTS)
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else None)
for n, tile, k, threads in SHAPES:
    x, w = random_inputs(n, k, rng)
    for variant in chosen:
        if not kernels.REGISTRY[variant].takes_k(k):
            continue
        y = kernels.conv1d(x, w, variant, tile=tile, threads=threads)
        if kernels.REGISTRY[variant].correct:
            kernels.assert_correct(y, x, w, f"{variant} n={n}")
        if kernels.REGISTRY[variant].staged and kernels.REGISTRY[variant].min_arch <= target_arch():
            for stages in (1, 2):
                xg, wg = cupy.asarray(x), cupy.asarray(w)
                y = cupy.full_like(xg, cupy.nan)
                fn = kernels.prepare(variant, xg, wg, y, tile=tile, threads=threads, stages=stages)
                dataclasses.replace(fn, grid=2)()
                kernels.assert_correct(y, x, w, f"{variant} n={n} on 2 blocks, {stages} stages")
cupy.cuda.runtime.deviceSynchronize()
print("sanitize_target: ran", ", ".join(chosen), "at", len(SHAPES), "shapes")
