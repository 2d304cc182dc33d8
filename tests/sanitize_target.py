"""What compute-sanitizer runs (tests/test_sanitizer.py): every variant at the seed config and
at awkward sizes, with CuPy's memory pool off so that each array is its own allocation and an
out-of-bounds access cannot land silently inside a neighbouring one."""

import sys
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import kernels  # noqa: E402

cupy.cuda.set_allocator(None)
SHAPES = [(16384, 256, 5, 256), (1000, 96, 7, 64), (1, 32, 5, 32), (4099, 1024, 64, 256)]
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else None)
for n, tile, k, threads in SHAPES:
    x = rng.standard_normal(n, dtype=np.float32)
    w = rng.standard_normal(k, dtype=np.float32)
    for variant in kernels.VARIANTS:
        if variant in kernels.launch.WINDOW_VARIANTS and k > kernels.launch.WINDOW_MAX_K:
            continue
        y = kernels.conv1d(x, w, variant, tile=tile, threads=threads)
        if variant != "puzzle28":
            kernels.assert_correct(y, x, w, f"{variant} n={n}")
cupy.cuda.runtime.deviceSynchronize()
print("sanitize_target: ran every variant at", len(SHAPES), "shapes")
