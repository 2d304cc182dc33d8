import pytest

import kernels

# A GPU test that deadlocks (a kernel waiting on a barrier that never completes) would hang the
# run for ever: pytest-timeout ends it. Its "thread" method is the one that works while the main
# thread is blocked inside a CUDA call: it prints every thread's stack and exits the process.
# The limit bounds each test's own body (func_only): module fixtures that fill the compile cache
# (NVRTC, no kernel launched, a minute or more from a cold cache) are not counted against it.
GPU_TEST_TIMEOUT_S = 120   # a deadlock costs two minutes; a test that needs more says why


def pytest_collection_modifyitems(config, items):
    for item in items:
        if {"browser", "site"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
    if kernels.gpu_available():
        for item in items:
            if "gpu" in item.keywords and item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(GPU_TEST_TIMEOUT_S, method="thread",
                                                    func_only=True))
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none usable here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
