"""Every documented bad input raises the documented error, before anything compiles or runs."""

import numpy as np
import pytest

import kernels
from kernels import compile as kcompile, emulation

X = np.arange(1000, dtype=np.float32) * 0.37 - 5
W = np.array([0.25, -1.5, 2.0, 0.5, -0.75], dtype=np.float32)

CASES = [
    # (description, kwargs for conv1d, error, message fragment)
    ("x not an array", dict(x=list(X)), TypeError, "NumPy or CuPy array"),
    ("x float64", dict(x=X.astype(np.float64)), TypeError, "x must be float32"),
    ("x int32", dict(x=X.astype(np.int32)), TypeError, "x must be float32"),
    ("w float16", dict(w=W.astype(np.float16)), TypeError, "w must be float32"),
    ("x 2-D", dict(x=X.reshape(10, 100)), ValueError, "x must be 1-D"),
    ("x 0-D", dict(x=np.array(3.0, np.float32)), ValueError, "x must be 1-D"),
    ("x empty", dict(x=X[:0]), ValueError, "x is empty"),
    ("w empty", dict(w=W[:0]), ValueError, "w is empty"),
    ("w 2-D", dict(w=W.reshape(1, 5)), ValueError, "w must be 1-D"),
    ("w longer than the tile", dict(w=np.ones(33, np.float32), tile=32), ValueError,
     "longer than the tile"),
    ("tile not a multiple of 32", dict(tile=100), ValueError, "multiple of 32"),
    ("tile zero", dict(tile=0), ValueError, "multiple of 32"),
    ("tile negative", dict(tile=-256), ValueError, "multiple of 32"),
    ("tile not an int", dict(tile=256.0), TypeError, "tile must be an integer"),
    ("tile a bool", dict(tile=True), TypeError, "tile must be an integer"),
    ("tile over shared memory", dict(tile=12288), ValueError, "shared memory"),
    ("threads not a multiple of 32", dict(threads=100), ValueError, "threads must be"),
    ("threads over 1024", dict(threads=2048, tile=4096), ValueError, "threads must be"),
    ("threads zero", dict(threads=0), ValueError, "threads must be"),
    ("unknown variant", dict(variant="async"), ValueError, "unknown variant"),
    ("unknown backend", dict(backend="cuda"), ValueError, "unknown backend"),
    ("arch with the emulation", dict(backend="emulate", arch=75), ValueError, "arch"),
    ("stages for a one-tile variant", dict(variant="async_halo", stages=2), ValueError,
     "stages applies to"),
    ("stages zero", dict(variant="pipelined", stages=0), ValueError, "stages must be"),
    ("stages nine", dict(variant="bulk", stages=9), ValueError, "stages must be"),
    ("stages not an int", dict(variant="pipelined", stages=2.0), TypeError, "stages must be an integer"),
    ("persistent for a one-tile variant", dict(variant="async_halo", persistent=False), ValueError,
     "persistent applies to"),
    ("persistent not a bool", dict(variant="bulk", persistent=1), TypeError, "persistent must be"),
    ("vec4 with a long kernel", dict(variant="vec4", w=np.ones(65, np.float32)), ValueError,
     "at most 64"),
    ("bulk with a long kernel", dict(variant="bulk", w=np.ones(65, np.float32)), ValueError,
     "at most 64"),
    ("pipelined stages over shared memory", dict(variant="pipelined", tile=4096, stages=4),
     ValueError, "shared memory"),
]


@pytest.fixture(autouse=True)
def nothing_runs(monkeypatch):
    """Fail loudly if a bad input gets as far as compiling or emulating."""
    def forbidden(*args, **kwargs):
        raise AssertionError("validation let a bad input through to compile/launch")
    monkeypatch.setattr(kcompile, "compile_source", forbidden)
    monkeypatch.setattr(emulation, "run", forbidden)


@pytest.mark.parametrize("what, kwargs, error, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises(what, kwargs, error, message):
    args = dict(x=X, w=W, variant="async_halo", tile=256, backend="emulate") | kwargs
    with pytest.raises(error, match=message):
        kernels.conv1d(**args)


@pytest.mark.parametrize("variant", [v for v in kernels.VARIANTS if v not in ("naive", "vec4")])
def test_largest_tile_is_accepted_and_one_more_warp_is_not(variant):
    stages = 1 if variant in ("pipelined", "bulk") else None
    for k in (1, 5, 64):
        top = kernels.max_tile(k, variant, stages)
        cfg = kernels.launch_config(10**6, k, top, variant=variant, stages=stages)
        assert cfg.shared_bytes <= 48 * 1024
        with pytest.raises(ValueError, match="shared memory"):
            kernels.launch_config(10**6, k, top + 32, variant=variant, stages=stages)


def test_default_stages_are_as_many_as_fit():
    assert kernels.launch_config(10**6, 5, 1024, variant="pipelined").stages == 4
    assert kernels.launch_config(10**6, 5, 4096, variant="pipelined").stages == 2


def test_n_too_large_for_32_bit_indices():
    with pytest.raises(ValueError, match="32-bit"):
        kernels.launch_config(2**31, 5)


def test_non_contiguous_input_is_copied(monkeypatch):
    monkeypatch.undo()   # this one really runs
    x = np.random.default_rng(3).standard_normal(2000, dtype=np.float32)[::2]
    assert not x.flags.c_contiguous
    kernels.assert_correct(kernels.conv1d(x, W, backend="emulate"), x, W)


def test_gpu_backend_without_gpu_is_a_clear_error():
    if kernels.gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="no GPU"):
        kernels.conv1d(X, W, backend="gpu")


def test_launch_geometry_at_seed_config():
    p = kernels.PUZZLE28
    cfg = kernels.launch_config(p.n, p.k, p.tile, p.threads)
    assert (cfg.tiles, cfg.threads, cfg.halo) == (64, 256, 2)
    assert cfg.shared_bytes == 4 * (256 + 4 + 5)   # async_halo: tile + halos + weights
