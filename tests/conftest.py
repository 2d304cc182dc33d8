import numpy as np
import pytest

import kernels


def pytest_collection_modifyitems(config, items):
    if kernels.gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none usable here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def random_inputs(n, k, seed=None):
    """Fresh standard-normal float32 inputs: never zeros, never constants."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(k, dtype=np.float32)


BACKENDS = ["emulate", pytest.param("gpu", marks=pytest.mark.gpu)]
