"""The float64 reference, the check every kernel's output must pass, and fresh test inputs."""

from __future__ import annotations

import numpy as np

from .geometry import MAX_TILE, valid_n
from .validate import integer, rng_seed, same_length, text, vector

U32 = 2.0 ** -24   # unit roundoff of float32


def random_inputs(n: int, k: int, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Fresh standard-normal float32 ``x`` (n values) and taps ``w`` (k): never zeros or
    constants, which hide unwritten outputs and wrong indexing. ``seed``: None (fresh entropy),
    an integer >= 0 or a NumPy Generator, BitGenerator or SeedSequence. ``n`` and ``k`` at most
    what the kernels take (``geometry.MAX_N`` and ``MAX_TILE``)."""
    n = valid_n(n)
    k = integer("k (taps)", k, 1, MAX_TILE, why=" (the largest tile)")
    seed = rng_seed("seed", seed)
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(k, dtype=np.float32)


def _host(a) -> np.ndarray:
    return a if isinstance(a, np.ndarray) else a.get()


def _inputs(x, w) -> tuple[np.ndarray, np.ndarray]:
    vector("x", x)
    vector("w", w)
    return _host(x), _host(w)


def _correlate(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    k = w.size
    padded = np.pad(x, (k // 2, k - 1 - k // 2))
    return np.correlate(padded, w, mode="valid")


def reference(x, w) -> np.ndarray:
    """``y[i] = sum_k x[i + k - K//2] * w[k]`` in float64, ``x`` zero outside ``[0, n)`` (a
    cross-correlation: ``w`` is not flipped). ``x`` and ``w`` as :func:`kernels.conv1d` takes
    them."""
    x, w = _inputs(x, w)
    return _correlate(x.astype(np.float64), w.astype(np.float64))


def error_bound(x, w) -> np.ndarray:
    """Per-output bound on float32 rounding: ``2 K u * sum_k |x||w|`` (a sum of K products in
    float32 errs by at most about ``K u`` times the sum of magnitudes), plus the smallest normal."""
    x, w = _inputs(x, w)
    xa, wa = np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64))
    return 2 * w.size * U32 * _correlate(xa, wa) + np.finfo(np.float32).tiny


def _outputs(y, x, w) -> np.ndarray:
    """``y`` checked as the kernels' outputs for ``x`` and ``w`` (float32, one per input), in
    float64."""
    x, _ = _inputs(x, w)
    vector("y", y)
    same_length("y", y, x.size)
    return _host(y).astype(np.float64)


def wrong_outputs(y, x, w) -> np.ndarray:
    """Indices of outputs farther from the reference than float32 rounding allows. An unwritten
    (NaN) output is wrong; where the reference itself is not finite (infinite or NaN inputs),
    only the same value (NaN for NaN) is right."""
    y = _outputs(y, x, w)
    ref = reference(x, w)
    finite = np.isfinite(ref)
    with np.errstate(invalid="ignore"):
        close = np.abs(y - ref) <= error_bound(x, w)                  # False for NaN
    same = (y == ref) | (np.isnan(y) & np.isnan(ref))
    return np.flatnonzero(~np.where(finite, close, same))


def assert_correct(y, x, w, what: str = "output") -> None:
    """Raise ``AssertionError`` naming the first wrong outputs, if any."""
    text("what", what)
    bad = wrong_outputs(y, x, w)
    if bad.size:
        ref, yh = reference(x, w), _host(y)
        first = ", ".join(f"y[{i}]={yh[i]!r} (expected {ref[i]:.7g})" for i in bad[:5])
        raise AssertionError(f"{what}: {bad.size} of {ref.size} outputs wrong: {first}")
