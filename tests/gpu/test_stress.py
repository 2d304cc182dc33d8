"""Races and hangs become failures (GPU only). The stress build (``prepare(..., jitter=True)``)
makes every warp wait a pseudo-random time at each PHASE() point, so that a missing wait or
barrier shows as wrong outputs: three ordering bugs planted on purpose, which the ordinary tests
(racecheck included) do not see, fail here. A deadlocked kernel fails within the time limit."""

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from inputs import random_inputs

import kernels
from kernels import variants as V

pytestmark = pytest.mark.gpu

LAUNCHES = 8
# (n, tile, k, threads): the puzzle's size, odd sizes, several tiles per persistent block.
SHAPES = [(16384, 256, 5, 256), (100_003, 96, 7, 64), (2**23 + 3, 1024, 9, 256), (5000, 32, 32, 32)]
STAGED = [dict(stages=1, persistent=True), dict(stages=2, persistent=True),
          dict(stages=4, persistent=True), dict(stages=1, persistent=False)]


def stressed_variants():
    from kernels.device import target_arch
    return V.names(stressed=True, arch=target_arch())


def launches(variant, x, w, src=None, count=LAUNCHES, jitter=True, **kw):
    """Run the stress build ``count`` times on fresh NaN-poisoned outputs; yield each output."""
    import cupy
    xd, wd = cupy.asarray(x), cupy.asarray(w)
    y = cupy.empty(x.size, cupy.float32)
    launch = kernels.prepare(variant, xd, wd, y, src=src, jitter=jitter, **kw)
    for _ in range(count):
        y.fill(cupy.nan)
        launch()
        yield y.get()


@pytest.mark.parametrize("variant", V.names(stressed=True))
def test_stress_build_gives_the_emulated_values(variant):
    if variant not in stressed_variants():
        pytest.skip(f"{variant} needs sm_{V.get(variant).min_arch}")
    for n, tile, k, threads in SHAPES:
        if not V.get(variant).takes_k(k):
            continue
        x, w = random_inputs(n, k)
        expected = kernels.emulate(variant, x, w, tile=tile)
        bound = kernels.error_bound(x, w)
        for kw in STAGED if V.get(variant).staged else [{}]:
            for i, y in enumerate(launches(variant, x, w, tile=tile, threads=threads, **kw)):
                where = f"{variant} n={n} tile={tile} k={k} {kw} launch {i}"
                assert np.all(np.abs(y.astype(np.float64) - expected) <= bound), where


WS_WAIT = "        mbar_wait(&full[s], round & 1);\n"
WS_RELEASE = "        mbar_arrive(&empty[s]);\n"
WS_COMPUTE = kernels.source("warp_specialized")[
    kernels.source("warp_specialized").index(WS_WAIT):kernels.source("warp_specialized").index(WS_RELEASE)
    + len(WS_RELEASE)]
PLANTED = {
    # async_halo without its wait: the barrier passes while the last warp's copies are in flight
    "async_halo": ("    pipe.consumer_wait();\n", ""),
    # bulk refilling a stage before every thread has finished reading it (no barrier between)
    "bulk": ("        PHASE(5);\n        __syncthreads();\n        PHASE(0);\n",
             "        PHASE(5);\n        PHASE(0);\n"),
    # the compute threads releasing a buffer before they read it: the producer refills it under them
    "warp_specialized": (WS_COMPUTE, WS_COMPUTE.replace(WS_RELEASE, "").replace(
        WS_WAIT, WS_WAIT + "        mbar_arrive(&empty[s]);\n")),
}


@pytest.mark.parametrize("variant", PLANTED)
def test_stress_catches_a_planted_race(variant):
    if variant not in stressed_variants():
        pytest.skip(f"{variant} needs sm_{V.get(variant).min_arch}")
    old, new = PLANTED[variant]
    src = kernels.source(variant)
    assert old in src
    broken = src.replace(old, new)
    kw = dict(tile=1024, threads=256, stages=1, persistent=True) if V.get(variant).staged else {}
    x, w = random_inputs(2**24, 5)   # x and y twice the L2: copies come from DRAM
    wrong = [kernels.wrong_outputs(y, x, w).size for y in launches(variant, x, w, broken, **kw)]
    plain = [kernels.wrong_outputs(y, x, w).size
             for y in launches(variant, x, w, broken, jitter=False, **kw)]
    print(f"{variant} with the race: wrong outputs per launch {wrong} (stress build), "
          f"{plain} (ordinary build)")
    assert max(wrong) > 0, "the stress build did not expose the planted race"


DEADLOCK_TEST = '''
import cupy, kernels

def test_deadlock():
    src = kernels.source("bulk").replace("init(&bar[s], CONV_THREADS)", "init(&bar[s], CONV_THREADS + 1)")
    x = cupy.random.standard_normal(1 << 20, dtype=cupy.float32)
    w = cupy.random.standard_normal(5, dtype=cupy.float32)
    y = cupy.empty_like(x)
    kernels.prepare("bulk", x, w, y, tile=1024, src=src)()   # no barrier phase ever completes
    cupy.cuda.runtime.deviceSynchronize()
'''


def test_a_deadlocked_kernel_fails_within_the_time_limit(tmp_path):
    """A planted deadlock (an mbarrier expecting one more arrival than the block has threads),
    run in a subprocess under the suite's own time limit: it fails with pytest-timeout's message
    in bounded time."""
    from kernels.device import target_arch
    if target_arch() < 90:
        pytest.skip("the planted deadlock is in the sm_90 bulk kernel")
    assert "init(&bar[s], CONV_THREADS)" in kernels.source("bulk")
    (tmp_path / "test_planted_deadlock.py").write_text(textwrap.dedent(DEADLOCK_TEST))
    root = Path(__file__).resolve().parents[2]
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
                          "addopts=", "--rootdir", str(tmp_path), "--timeout", "20",
                          "--timeout-method", "thread", str(tmp_path)],
                         capture_output=True, text=True, timeout=240, cwd=tmp_path,
                         env={**__import__("os").environ, "PYTHONPATH": str(root)})
    elapsed = time.monotonic() - started
    log = out.stdout + out.stderr
    print(f"planted deadlock: exit {out.returncode} after {elapsed:.0f} s")
    assert out.returncode != 0, log[-3000:]
    assert "Timeout" in log, log[-3000:]
    assert elapsed < 180
