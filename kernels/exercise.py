"""The async-copy exercise: a skeleton of ``async_halo.cu`` to complete, and the check.

The solution is ``kernels/async_halo.cu`` itself, so skeleton, check and solution cannot drift
apart (tests/test_exercise.py runs the check on both).
"""

from __future__ import annotations

import numpy as np

from .compile import KERNEL_DIR, Build, CompileError, compile_source, kernel_name
from .device import gpu_available
from .reference import random_inputs, reference, wrong_outputs

SKELETON = KERNEL_DIR / "exercises" / "async_halo_skeleton.cu"
NAME = kernel_name("async_halo")
# (n, tile, k, threads): the seed config, then sizes that are not multiples of the tile, a single
# partial tile, an even K, a kernel as long as the tile, more outputs than threads per block.
CASES = [(16384, 256, 5, 256), (1000, 96, 7, 64), (77, 128, 3, 128), (4099, 64, 4, 32),
         (513, 32, 32, 32), (3000, 1024, 9, 256), (1, 32, 5, 32)]


class ExerciseError(AssertionError):
    """The kernel is not right yet; the message says where and how."""


def skeleton() -> str:
    return SKELETON.read_text()


def _describe(i: int, n: int, tile: int, k: int) -> str:
    t, halo = i % tile, k // 2
    if i < halo:
        return "at the left end of the vector (its halo lies outside: zeros)"
    if i >= n - (k - 1 - halo):
        return "at the right end of the vector (its halo lies outside: zeros)"
    if t < halo or t >= tile - (k - 1 - halo):
        return f"at a tile boundary (i mod tile = {t}: it needs the neighbouring tile's halo)"
    return f"inside a tile (i mod tile = {t})"


def check_async_halo(src: str) -> str:
    """Compile and test the learner's ``conv1d_async_halo``; raise ``ExerciseError`` on any
    problem, with a specific message. Returns a one-line verdict."""
    for number, line in enumerate(src.splitlines(), 1):
        if line.strip().startswith("// FILL IN"):   # a marker line, not a comment that names it
            raise ExerciseError(f"line {number} still says FILL IN (replace the marker line with "
                                f"your code): {line.strip()}")
    if f"void {NAME}(" not in src:
        raise ExerciseError(f"the kernel must keep its name and signature: {NAME}(x, w, y, n)")
    ptx = compile_source(src, NAME, Build(256, 5, 256, "compute_80")).decode()   # CompileError shows the log
    if "cp.async" not in ptx:
        raise ExerciseError("it compiles, but copies nothing asynchronously: on sm_80 the PTX has "
                            "no cp.async. Copy the tile with cuda::memcpy_async(..., pipe).")
    if not gpu_available():
        return ("compiles with NVRTC and issues cp.async on sm_80; running it needs a GPU "
                "(open this notebook in Colab with a GPU runtime)")
    import cupy

    from .launch import prepare
    for n, tile, k, threads in CASES:
        x, w = random_inputs(n, k)
        y = cupy.full(n, cupy.nan, cupy.float32)   # poison: an unwritten output stays NaN
        prepare("async_halo", cupy.asarray(x), cupy.asarray(w), y, tile=tile, threads=threads,
                src=src)()
        bad = wrong_outputs(y, x, w)
        if bad.size:
            i = int(bad[0])
            got = float(y[i])
            what = "never written (NaN)" if np.isnan(got) else f"{got:.6g}, expected {reference(x, w)[i]:.6g}"
            raise ExerciseError(f"n={n}, tile={tile}, K={k}, {threads} threads: {bad.size} wrong "
                                f"outputs; the first, y[{i}], is {what}, {_describe(i, n, tile, k)}")
    return f"correct on the GPU for all {len(CASES)} configurations"


def _first_error(log: str) -> str:
    """The compiler's first error, as 'line N: error: ...' (NVRTC writes 'NAME.cu(N): error: ...')."""
    import re
    for line in log.splitlines():
        m = re.search(r"\.cu\((\d+)\): (.*error.*)", line)
        if m:
            return f"line {m.group(1)}: {m.group(2)}"
    return log.strip().splitlines()[0] if log.strip() else "(no message)"


def report(src: str) -> str:
    """The check's verdict as one paragraph, never raising: what the notebook prints, so that
    "Run all" goes on past an unfinished exercise."""
    try:
        verdict = check_async_halo(src)
        return (f"PASSED: {verdict}." if gpu_available()
                else f"COMPILES, NOT RUN: {verdict}.")
    except ExerciseError as exc:
        return f"NOT YET: {exc}"
    except CompileError as exc:
        return f"NOT YET: it does not compile: {_first_error(exc.log)}"
