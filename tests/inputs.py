"""Test inputs shared by the test modules."""

import numpy as np


def random_inputs(n, k, seed=None):
    """Fresh standard-normal float32 inputs: never zeros, never constants."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(k, dtype=np.float32)
