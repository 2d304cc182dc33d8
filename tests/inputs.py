"""Test inputs shared by the test modules."""

import numpy as np

from kernels.launch import WINDOW_MAX_K, WINDOW_VARIANTS


def random_inputs(n, k, seed=None):
    """Fresh standard-normal float32 inputs: never zeros, never constants."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(k, dtype=np.float32)


def takes_k(variant, k):
    """Whether ``variant`` accepts ``k`` taps (the register-window variants stop at 64)."""
    return variant not in WINDOW_VARIANTS or k <= WINDOW_MAX_K
