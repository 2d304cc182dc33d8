"""On a GPU: every variant against the reference and against its emulation, on fresh random
inputs, with outputs poisoned with NaN before each launch (``kernels.conv1d`` does it; the
``prepare`` tests below do it by hand). Skipped without a GPU."""

import secrets

import numpy as np
import pytest
from inputs import random_inputs

import kernels
from kernels.device import target_arch

pytestmark = pytest.mark.gpu

# (tile, k, threads): compile-time configurations the random shapes are drawn from. Each one is
# compiled once per variant, so the list stays short; n is what varies most.
CONFIGS = [(32, 1, 32), (32, 2, 32), (32, 32, 32), (64, 3, 32), (96, 7, 64), (128, 4, 128),
           (256, 5, 256), (256, 31, 128), (512, 9, 512), (1024, 1, 1024), (1024, 64, 256),
           (2048, 33, 1024), (4096, 256, 512)]
CORRECT = kernels.variants.names(correct=True)


def ulps(a, b):
    """Distance in float32 units in the last place (both arrays finite)."""
    ia, ib = (np.asarray(v, np.float32).view(np.int32).astype(np.int64) for v in (a, b))
    ia = np.where(ia < 0, np.int64(-2**31) - ia, ia)
    ib = np.where(ib < 0, np.int64(-2**31) - ib, ib)
    return np.abs(ia - ib)


def runs(variant, k, arch, threads=32):
    """Whether this variant takes these sizes on this code path (k <= 64 for the register-window
    variants; a producer warp besides ``threads``) and runs on it (``arch``: PTX for that
    generation; None: this GPU's own)."""
    v = kernels.REGISTRY[variant]
    return (v.takes_k(k) and v.min_arch <= (arch or target_arch())
            and threads + 32 * v.producer_warp <= kernels.geometry.MAX_THREADS)


def check_against_emulation(variant, y, x, w, tile, where):
    e = kernels.emulate(variant, x, w, tile=tile)
    assert np.all(np.isfinite(y)), f"{where}: unwritten (NaN) outputs"
    assert np.all(np.abs(y.astype(np.float64) - e) <= kernels.error_bound(x, w)), where
    assert ulps(y, e).max() <= 2, f"{where}: GPU and emulation differ by {ulps(y, e).max()} ulp"
    if not kernels.REGISTRY[variant].correct:   # puzzle28: its copies of x are exact
        t = np.arange(x.size) % tile
        edge = (t < w.size // 2) | (t >= tile - w.size // 2)
        np.testing.assert_array_equal(y[edge], e[edge], err_msg=where)


@pytest.mark.parametrize("arch", [None, 75], ids=["native", "compute_75"])
@pytest.mark.parametrize("variant", kernels.VARIANTS)
def test_seed_config(variant, arch):
    if not runs(variant, 5, arch):
        pytest.skip(f"{variant} needs sm_{kernels.REGISTRY[variant].min_arch}")
    p = kernels.PUZZLE28
    x, w = random_inputs(p.n, p.k)
    y = kernels.conv1d(x, w, variant, arch=arch, **p.launch)
    check_against_emulation(variant, y, x, w, p.tile, f"{variant} puzzle 28")
    bad = kernels.wrong_outputs(y, x, w)
    if variant == "puzzle28":
        assert bad.size == 256 and set(bad % 256) == {0, 1, 254, 255}
    else:
        assert bad.size == 0


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """Fill the disk cache in parallel: every (variant, config, code path) the tests launch."""
    specs = []
    for arch in (None, 75):
        for tile, k, threads in CONFIGS + [(256, 5, 256), (1024, 7, 256), (512, 5, 128)]:
            for v in kernels.VARIANTS:
                if runs(v, k, arch, threads):
                    cfg = kernels.launch_config(10**6, k, tile, threads, v)
                    target = kernels.launch.gpu_target(v, arch)
                    specs.append((v, kernels.Build(tile, k, threads, target, cfg.stages)))
    kernels.compile.warm_cache(specs)


@pytest.mark.parametrize("arch, cases", [(None, 220), (75, 60)], ids=["native", "compute_75"])
def test_random_shapes(arch, cases):
    """>= 200 random (n, tile, k, threads) on the native build (60 on the sm_75 path), every
    variant each time."""
    seed = secrets.randbits(64)
    rng = np.random.default_rng(seed)
    for case in range(cases):
        tile, k, threads = CONFIGS[rng.integers(len(CONFIGS))]
        n = int(rng.choice([rng.integers(1, k + 2), rng.integers(1, 8 * tile),
                            tile * rng.integers(1, 9), rng.integers(1, 300_000)]))
        x, w = random_inputs(n, k, rng.integers(2**63))
        for variant in (v for v in kernels.VARIANTS if runs(v, k, arch, threads)):
            where = f"seed={seed} case={case} {variant} n={n} tile={tile} k={k} threads={threads}"
            y = kernels.conv1d(x, w, variant, tile=tile, threads=threads, arch=arch)
            check_against_emulation(variant, y, x, w, tile, where)
            if variant in CORRECT:
                kernels.assert_correct(y, x, w, where)


@pytest.mark.parametrize("tile, k, threads", [c for c in CONFIGS if c[0] <= 256])
def test_vectors_shorter_than_a_halo_chunk(tile, k, threads):
    """n from 1 to 13: vectors that end inside the first 16-byte chunk or the left halo, where
    the 16-byte variants copy nothing asynchronously and load everything by hand."""
    for n in range(1, 14):
        x, w = random_inputs(n, k)
        for variant in (v for v in kernels.VARIANTS if runs(v, k, None, threads)):
            where = f"{variant} n={n} tile={tile} k={k}"
            y = kernels.conv1d(x, w, variant, tile=tile, threads=threads)
            check_against_emulation(variant, y, x, w, tile, where)
            if variant in CORRECT:
                kernels.assert_correct(y, x, w, where)


def test_cupy_in_cupy_out_and_every_element_written():
    import cupy
    x, w = random_inputs(100_003, 9)
    xd, wd = cupy.asarray(x), cupy.asarray(w)
    for variant in (v for v in CORRECT if runs(v, 9, None)):
        y = cupy.full(x.size, cupy.nan, cupy.float32)          # poison
        kernels.prepare(variant, xd, wd, y, tile=512, threads=128)()
        assert isinstance(y, cupy.ndarray)
        kernels.assert_correct(y, x, w, variant)
    assert isinstance(kernels.conv1d(xd, wd), cupy.ndarray)


def test_non_contiguous_cupy_input():
    import cupy
    x, w = random_inputs(20_000, 5)
    xd = cupy.asarray(x)[::2]
    kernels.assert_correct(kernels.conv1d(xd, cupy.asarray(w)), x[::2], w)


def test_a_kernel_without_halo_is_caught():
    """Break async_halo on purpose (the halo cells are never copied): the check must fail at
    the tile boundaries. This is the GPU side of the proof that the tests can fail."""
    import cupy
    broken = kernels.source("async_halo").replace(
        "if (g >= 0 && g < n)\n",
        "if (g >= 0 && g < n && j >= CONV_HALO && j < CONV_HALO + CONV_TILE)\n")
    assert broken != kernels.source("async_halo")
    x, w = random_inputs(16384, 5)
    y = cupy.full(x.size, cupy.nan, cupy.float32)
    kernels.prepare("async_halo", cupy.asarray(x), cupy.asarray(w), y, src=broken)()
    bad = kernels.wrong_outputs(y, x, w)
    assert bad.size > 0 and set(bad % 256) <= {0, 1, 254, 255}


@pytest.mark.parametrize("persistent", [True, False], ids=["persistent", "one_tile_per_block"])
@pytest.mark.parametrize("stages", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("variant", kernels.variants.names(staged=True))
def test_every_stage_count(variant, stages, persistent):
    """Persistent blocks walk several tiles each: more tiles than blocks, odd sizes."""
    if not runs(variant, 7, None):
        pytest.skip(f"{variant} needs sm_{kernels.REGISTRY[variant].min_arch}")
    for n in (1, 1000, 4 * 1024 * 132 * 8 + 17):
        x, w = random_inputs(n, 7)
        y = kernels.conv1d(x, w, variant, tile=1024, stages=stages, persistent=persistent)
        kernels.assert_correct(y, x, w, f"{variant} stages={stages} persistent={persistent} n={n}")


@pytest.mark.parametrize("variant", [v.name for v in kernels.variants.VARIANTS if v.min_arch > 75])
def test_a_variant_is_refused_below_its_generation(variant):
    x, w = random_inputs(1000, 5)
    with pytest.raises(ValueError, match=f"needs sm_{kernels.REGISTRY[variant].min_arch}"):
        kernels.conv1d(x, w, variant, arch=75)


def test_misaligned_input_is_copied_or_refused():
    import cupy
    x, w = random_inputs(10_001, 5)
    xd = cupy.asarray(x)
    for variant in kernels.variants.names(aligned16=True, arch=target_arch()):
        kernels.assert_correct(kernels.conv1d(xd[1:], cupy.asarray(w), variant), x[1:], w)
        y = cupy.full(10_000, cupy.nan, cupy.float32)
        with pytest.raises(ValueError, match="16-byte"):
            kernels.prepare(variant, xd[1:], cupy.asarray(w), y)


def test_device_info_names_the_gpu():
    info = kernels.device_info()
    assert info["backend"] == "gpu" and info["compute_capability"] >= 75
    assert info["device"] and info["cupy"]
