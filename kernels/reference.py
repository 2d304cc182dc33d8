"""The float64 reference, the check every kernel's output must pass, and fresh test inputs."""

from __future__ import annotations

import numpy as np

from .validate import array_module, same_length, vector

U32 = 2.0 ** -24   # unit roundoff of float32


def random_inputs(n: int, k: int, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Fresh standard-normal float32 ``x`` (n values) and taps ``w`` (k): never zeros or
    constants, which hide unwritten outputs and wrong indexing. ``seed``: anything
    ``np.random.default_rng`` takes (None: fresh entropy)."""
    from .validate import integer
    n, k = integer("n", n, lo=1), integer("k (taps)", k, lo=1)
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


def _outputs(y, n: int) -> np.ndarray:
    array_module("y", y)
    if np.issubdtype(y.dtype, np.complexfloating) or y.dtype != np.float32:
        raise TypeError(f"y must be float32 like the kernels' outputs, got {y.dtype}")
    same_length("y", y, n)
    return _host(y).astype(np.float64)


def wrong_outputs(y, x, w) -> np.ndarray:
    """Indices of outputs farther from the reference than float32 rounding allows. An unwritten
    (NaN) output is wrong; where the reference itself is not finite (infinite or NaN inputs),
    only the same value (NaN for NaN) is right."""
    ref = reference(x, w)
    y = _outputs(y, ref.size)
    finite = np.isfinite(ref)
    with np.errstate(invalid="ignore"):
        close = np.abs(y - ref) <= error_bound(x, w)                  # False for NaN
    same = (y == ref) | (np.isnan(y) & np.isnan(ref))
    return np.flatnonzero(~np.where(finite, close, same))


def assert_correct(y, x, w, what: str = "output") -> None:
    """Raise ``AssertionError`` naming the first wrong outputs, if any."""
    bad = wrong_outputs(y, x, w)
    if bad.size:
        ref, yh = reference(x, w), _host(y)
        first = ", ".join(f"y[{i}]={yh[i]!r} (expected {ref[i]:.7g})" for i in bad[:5])
        raise AssertionError(f"{what}: {bad.size} of {ref.size} outputs wrong: {first}")
