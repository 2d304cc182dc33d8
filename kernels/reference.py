"""The float64 reference, and the check every kernel's output must pass."""

from __future__ import annotations

import numpy as np

U32 = 2.0 ** -24   # unit roundoff of float32


def _host(a) -> np.ndarray:
    return a if isinstance(a, np.ndarray) else a.get()


def _correlate(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    k = w.size
    padded = np.pad(x, (k // 2, k - 1 - k // 2))
    return np.correlate(padded, w, mode="valid")


def reference(x, w) -> np.ndarray:
    """``y[i] = sum_k x[i + k - K//2] * w[k]`` in float64, ``x`` zero outside ``[0, n)``."""
    return _correlate(_host(x).astype(np.float64), _host(w).astype(np.float64))


def error_bound(x, w) -> np.ndarray:
    """Per-output bound on float32 rounding: ``2 K u * sum_k |x||w|`` (a sum of K products in
    float32 errs by at most about ``K u`` times the sum of magnitudes), plus the smallest normal."""
    xa, wa = np.abs(_host(x).astype(np.float64)), np.abs(_host(w).astype(np.float64))
    return 2 * w.size * U32 * _correlate(xa, wa) + np.finfo(np.float32).tiny


def wrong_outputs(y, x, w) -> np.ndarray:
    """Indices of outputs farther from the reference than float32 rounding allows (NaN included)."""
    y = _host(y).astype(np.float64)
    if y.shape != (x.size,):
        raise ValueError(f"y has shape {y.shape}, expected ({x.size},)")
    ok = np.abs(y - reference(x, w)) <= error_bound(x, w)   # False for NaN
    return np.flatnonzero(~ok)


def assert_correct(y, x, w, what: str = "output") -> None:
    """Raise ``AssertionError`` naming the first wrong outputs, if any."""
    bad = wrong_outputs(y, x, w)
    if bad.size:
        ref, yh = reference(x, w), _host(y)
        first = ", ".join(f"y[{i}]={yh[i]!r} (expected {ref[i]:.7g})" for i in bad[:5])
        raise AssertionError(f"{what}: {bad.size} of {x.size} outputs wrong: {first}")
