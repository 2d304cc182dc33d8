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


@pytest.fixture(scope="session")
def warm_builds():
    """Every listing compiled for every target (support.build), in parallel: NVRTC takes about a
    second a kernel, and a module that compiles many asks for this first."""
    from kernels.compile import warm_cache
    from support import TARGETS, build
    warm_cache([(v, build(v, t)) for v in kernels.VARIANTS for t in TARGETS])


@pytest.fixture(scope="session")
def site():
    """Both built editions, served locally."""
    from support import HTML, Site, need
    need((HTML / "index.html").exists(), f"no book in {HTML}: run `make book`")
    need((HTML / "ko" / "index.html").exists(), f"no Korean edition in {HTML / 'ko'}: run `make book`")
    s = Site(HTML)
    yield s
    s.server.shutdown()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test."""
    import os
    from support import chromium, need
    need(chromium(), f"BOOK_CHROMIUM={os.environ['BOOK_CHROMIUM']!r} is not an executable"
         if os.environ.get("BOOK_CHROMIUM") else "no browser: install chromium or google-chrome, "
         "or set BOOK_CHROMIUM (make test installs Debian's chromium as root)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        yield b
        b.close()
