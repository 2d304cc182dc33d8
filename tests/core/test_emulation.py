"""The NumPy emulation of every variant against the float64 reference (runs everywhere)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from inputs import random_inputs

import kernels
from kernels import emulation

CORRECT = kernels.variants.names(correct=True)


@st.composite
def shapes(draw):
    """(n, tile, k): small and large kernels, n below k, n off the tile, n an exact multiple."""
    tile = 32 * draw(st.integers(1, 16))
    k = draw(st.one_of(st.integers(1, 9), st.integers(1, tile), st.sampled_from([tile, tile - 1])))
    n = draw(st.one_of(st.integers(1, k + 1), st.integers(1, 6 * tile),
                       st.integers(1, 6).map(lambda m: m * tile)))
    return n, tile, k


@pytest.mark.parametrize("variant", CORRECT)
@settings(max_examples=120, deadline=None)
@given(shape=shapes(), seed=st.integers(0, 2**32 - 1))
def test_correct_variants_match_reference(variant, shape, seed):
    n, tile, k = shape
    assume(kernels.variants.get(variant).takes_k(k))
    x, w = random_inputs(n, k, seed)
    y = kernels.conv1d(x, w, variant, tile=tile, backend="emulate")
    kernels.assert_correct(y, x, w, f"{variant} n={n} tile={tile} k={k}")


@pytest.mark.parametrize("n, tile, k", [(1, 32, 1), (1, 32, 5), (3, 32, 7), (31, 32, 32),
                                        (33, 32, 2), (1000, 96, 96), (16384, 256, 5),
                                        (16385, 256, 4), (24400, 2752, 33), (5000, 96, 64)])
@pytest.mark.parametrize("variant", CORRECT)
def test_edge_shapes(variant, n, tile, k):
    """Every time, not only when drawn: K = 1, n below K, n one past a tile, K as long as the
    tile, the seed's size, a tile past 512 and the register-window variants' largest K."""
    if not kernels.variants.get(variant).takes_k(k):
        pytest.skip(f"{variant} takes k <= 64")
    x, w = random_inputs(n, k)
    kernels.assert_correct(kernels.conv1d(x, w, variant, tile=tile, backend="emulate"), x, w)


@settings(max_examples=60, deadline=None)
@given(shape=shapes(), seed=st.integers(0, 2**32 - 1))
def test_puzzle28_wrong_only_at_tile_edges(shape, seed):
    """Everywhere else the shortcut agrees with the reference; at the edges it copies x exactly."""
    n, tile, k = shape
    x, w = random_inputs(n, k, seed)
    y = kernels.conv1d(x, w, "puzzle28", tile=tile, backend="emulate")
    t = np.arange(n) % tile
    edge = (t < k // 2) | (t >= tile - k // 2)
    np.testing.assert_array_equal(y[edge], x[edge])
    assert set(kernels.wrong_outputs(y, x, w)) <= set(np.flatnonzero(edge))


def test_check_catches_a_kernel_without_halo(monkeypatch):
    """Break the emulated kernel the way a real bug would (halo cells never loaded, left as 0):
    the correctness check must reject it at every tile boundary and nowhere else."""
    original = emulation._load_tile_with_halo

    def no_halo(x, k, tile, blocks=None):
        x_s = original(x, k, tile, blocks)
        x_s[:, :k // 2] = x_s[:, k // 2 + tile:] = 0
        return x_s

    monkeypatch.setattr(emulation, "_load_tile_with_halo", no_halo)
    x, w = random_inputs(4096, 5)
    bad = kernels.wrong_outputs(kernels.conv1d(x, w, "async_halo", backend="emulate"), x, w)
    assert set(bad % 256) == {0, 1, 254, 255}


def test_assert_correct_rejects_unwritten_nan_outputs():
    x, w = random_inputs(1000, 3)
    y = kernels.reference(x, w).astype(np.float32)
    y[[0, 517, 999]] = np.nan
    with pytest.raises(AssertionError, match="3 of 1000 outputs wrong"):
        kernels.assert_correct(y, x, w)


def test_reference_matches_the_definition():
    x, w = random_inputs(37, 6)
    k, h = w.size, w.size // 2
    direct = [sum(float(x[i + j - h]) * float(w[j]) for j in range(k) if 0 <= i + j - h < x.size)
              for i in range(x.size)]
    np.testing.assert_allclose(kernels.reference(x, w), direct, rtol=1e-12, atol=1e-12)
