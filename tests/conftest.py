import pytest

import kernels


def pytest_collection_modifyitems(config, items):
    if kernels.gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none usable here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)

