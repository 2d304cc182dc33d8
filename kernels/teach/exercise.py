"""The book's three exercises, and the check that judges a learner's kernel.

Each exercise is a skeleton in ``kernels/exercises/`` with its ``// FILL IN`` places, and a
solution the check must pass:

* ``async_halo`` (notebook 03): Puzzle 28 done right, the tile and its halos copied with
  ``cuda::memcpy_async``; the solution is the book's own ``kernels/async_halo.cu``;
* ``double_buffer`` (notebook 03): the same kernel walking over several tiles per block with two
  buffers, the next tile's copy in flight while the block computes this one; the solution is
  ``kernels/exercises/double_buffer.cu``;
* ``bulk`` (notebook 04): the Hopper bulk copy, one ``cp.async.bulk`` per tile completing on an
  mbarrier; the solution is the book's own ``kernels/bulk.cu``.

The check, in order, stopping at the first problem:

1. the text: no ``// FILL IN`` marker line left, and no ``#include`` but ``"conv1d_common.cuh"``
   and CUDA's own headers (``<cuda/pipeline>``);
2. NVRTC compiles it, with an include path that holds only a private copy of the common header
   and libcu++ (the solutions and the rest of ``kernels/`` are out of reach); a compile error is
   shown as the learner's line and the first error;
3. the PTX (any machine; sm_80 for the first two, sm_90 for the bulk copy): a kernel with the
   exercise's name and parameters, whose body has the exercise's instructions in order
   (:attr:`Exercise.steps`: e.g. ``cp.async``, then ``cp.async.wait_*``, then ``bar.sync``);
4. on a GPU of the exercise's generation or newer: a separate process
   (``python -m kernels.teach.exercise --run FOLDER``), killed after :data:`TIME_LIMIT_S`, runs it at
   every configuration of :attr:`Exercise.cases`, outputs poisoned with NaN and shared memory
   with NaN left over from a kernel launched just before, then under the stress build
   (``-DCONV_JITTER``: warps wait at random at the ``PHASE()`` points the skeleton keeps) at a
   size where a missing wait or barrier shows; it prints its verdict as one line of JSON.

:func:`check` raises :class:`ExerciseError` at the first problem; :func:`report` turns that into
the line the notebook prints, and never raises.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..compile import KERNEL_DIR, Build, CompileError, compile_source, include_dirs
from ..device import gpu_available
from ..reference import error_bound, random_inputs, reference
from ..validate import choice, text

HEADER = "conv1d_common.cuh"
SIGNATURE = "(const float* x, const float* w, float* y, int n)"
TIME_LIMIT_S = 60   # for the GPU run, generous: CuPy's start, ~20 launches and their checks
RUNNER = [sys.executable, "-m", "kernels.teach.exercise", "--run"]   # + the folder


class ExerciseError(AssertionError):
    """The kernel is not right yet; the message says where and how."""


class DoesNotCompile(ExerciseError):
    """NVRTC rejected the kernel; the message is the first error, on the learner's line."""


class Case(NamedTuple):
    """One configuration the GPU run launches: sizes, compile-time stages (None: the kernel has
    none) and blocks (None: one per tile)."""
    n: int
    tile: int
    k: int
    threads: int
    stages: int | None = None
    blocks: int | None = None

    def grid(self) -> int:
        return self.blocks or -(-self.n // self.tile)


@dataclass(frozen=True)
class Step:
    """An instruction the kernel's PTX must have: ``count`` matches of ``pattern`` after the
    first match of step ``after`` and before the first of step ``before``. ``missing`` says what
    to do when there is none at all, ``misplaced`` when there are some, elsewhere."""
    name: str
    pattern: re.Pattern
    missing: str
    misplaced: str = ""
    after: str | None = None
    before: str | None = None
    count: int = 1


@dataclass(frozen=True)
class Exercise:
    key: str
    kernel: str            # the extern "C" name the check launches
    solution: Path
    skeleton: Path
    ptx_arch: int          # the PTX the structure is read from
    steps: tuple[Step, ...]
    cases: tuple[Case, ...]
    stress: Case           # under -DCONV_JITTER, STRESS_LAUNCHES times
    run_arch: int = 0      # the oldest GPU generation that runs it (0: any the book runs on)
    summary: str = ""      # what its PTX shows, for the verdict without a run
    advice: str = ""       # after a wrong output under the stress build: what to look at


# 3. The PTX: what each exercise's kernel must issue, in order ----------------------------------

CP_ASYNC = re.compile(r"\bcp\.async\.c[ag]\.shared")        # cuda::memcpy_async on sm_80+
CP_WAIT = re.compile(r"\bcp\.async\.wait_(?:all|group)\b")  # pipe.consumer_wait()
BAR = re.compile(r"\b(?:bar|barrier)\.(?:sync|red)\b")       # __syncthreads() and its kin
MB_INIT = re.compile(r"\bmbarrier\.init\b")                   # init(&bar, count)
FENCE = re.compile(r"\bfence\.proxy\.async\b")                # the proxy fence
BULK = re.compile(r"\bcp\.async\.bulk\.shared")               # the bulk copy (TMA, 1D)
EXPECT = re.compile(r"\bmbarrier\.(?:arrive\.)?expect_tx\b")  # the bytes the barrier expects
MB_WAIT = re.compile(r"\bmbarrier\.(?:try|test)_wait\b")      # bar.wait(token)

COPY = Step("copy", CP_ASYNC,
            "it compiles, but copies nothing asynchronously: on sm_80 the PTX has no cp.async. "
            "Copy with cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe).")
WAIT = Step("wait", CP_WAIT,
            "it never waits for its copies (the PTX has no cp.async.wait): call "
            "pipe.consumer_wait() in Phase 3, after the copies are committed.",
            "it waits before its copies are issued (the PTX has cp.async.wait only before "
            "cp.async): call pipe.consumer_wait() in Phase 3, after the copies are committed.",
            after="copy")
BARRIER = Step("barrier", BAR,
               "it waits for this thread's copies but not for the other threads' (the PTX has no "
               "bar.sync after cp.async.wait): call __syncthreads() after pipe.consumer_wait().",
               "it synchronises before it waits (the PTX has bar.sync only before "
               "cp.async.wait): call __syncthreads() after pipe.consumer_wait(), so that every "
               "thread's copies have landed when the barrier opens.",
               after="wait")
REFILL = Step("refill", BAR,
              "", "it synchronises the block once per tile, for the wait. A buffer needs a second "
              "barrier: after every thread has computed from it and before the next iteration "
              "refills it (__syncthreads() at the end of the loop), or a fast warp overwrites a "
              "tile that a slow warp is still reading.",
              after="copy", count=2)

INIT = Step("init", MB_INIT,
            "its barriers are never initialised (the PTX has no mbarrier.init): thread 0 calls "
            "init(&bar[s], CONV_THREADS) for every stage before any copy, then "
            "__syncthreads().")
INIT_FENCE = Step("init fence", FENCE,
                  "the copy engine is never shown the initialised barriers (the PTX has no "
                  "fence.proxy.async): after init, thread 0 runs asm volatile("
                  "\"fence.proxy.async.shared::cta;\" ::: \"memory\").",
                  "the copy engine may not see the initialised barriers: thread 0's "
                  "fence.proxy.async must come after init and before the first bulk copy.",
                  after="init", before="bulk copy")
BULK_COPY = Step("bulk copy", BULK,
                 "it issues no bulk copy (the PTX has no cp.async.bulk): thread 0 calls "
                 "cuda::memcpy_async(&buf[lo - start], &x[lo], cuda::aligned_size_t<16>(bytes), "
                 "bar), a size in bytes that is a multiple of 16.",
                 "it copies before its barriers are initialised: init every stage's barrier, "
                 "then copy.", after="init")
BULK_EXPECT = Step("expect", EXPECT,
                   "its barrier is never told how many bytes to expect (the PTX has no "
                   "mbarrier.expect_tx): issue the copy with cuda::memcpy_async(dst, src, "
                   "cuda::aligned_size_t<16>(bytes), bar), which does both.")
BULK_WAIT = Step("barrier wait", MB_WAIT,
                 "it never waits on the barrier (the PTX has no mbarrier.try_wait): every "
                 "thread arrives and waits, bar[stage].wait(bar[stage].arrive()), before reading "
                 "the buffer.",
                 "it waits on the barrier only before any copy is issued: arrive and wait in "
                 "the loop, before Phase 4 reads the buffer.", after="bulk copy")

EXERCISES = {
    ex.key: ex for ex in (
        Exercise(
            "async_halo", "conv1d_async_halo", KERNEL_DIR / "async_halo.cu",
            KERNEL_DIR / "exercises" / "async_halo_skeleton.cu", 80, (COPY, WAIT, BARRIER),
            # the seed config, then sizes that are not multiples of the tile, a single partial
            # tile, an even K, a kernel as long as the tile, more outputs than threads per block
            (Case(16384, 256, 5, 256), Case(1000, 96, 7, 64), Case(77, 128, 3, 128),
             Case(4099, 64, 4, 32), Case(513, 32, 32, 32), Case(3000, 1024, 9, 256),
             Case(1, 32, 5, 32)),
            # x and y twice a large L2, so that the copies come from DRAM and take long enough
            # for a missing wait or barrier to show (tests/test_stress.py plants one)
            Case(2**24, 256, 5, 256),
            summary="on sm_80 issues cp.async, waits for it and synchronises the block",
            advice="Does every thread call pipe.consumer_wait() and then __syncthreads() before "
                   "Phase 4?"),
        Exercise(
            "double_buffer", "conv1d_double_buffer", KERNEL_DIR / "exercises" / "double_buffer.cu",
            KERNEL_DIR / "exercises" / "double_buffer_skeleton.cu", 80,
            (COPY, WAIT, BARRIER, REFILL),
            # blocks walking over 4, 3, 1, 5 and 2 tiles; more blocks than tiles; one tile
            (Case(16384, 256, 5, 256, blocks=16), Case(1000, 96, 7, 64, blocks=4),
             Case(77, 128, 3, 128, blocks=1), Case(4099, 64, 4, 32, blocks=13),
             Case(513, 32, 32, 32, blocks=9), Case(100, 32, 5, 32, blocks=8),
             Case(3000, 1024, 9, 256, blocks=1)),
            Case(2**24, 256, 5, 256, blocks=4096),   # 16 tiles per block
            summary="on sm_80 issues cp.async, waits for it and synchronises the block twice "
                    "per tile",
            advice="Does every thread wait (pipe.consumer_wait(), then __syncthreads()) before "
                   "reading a buffer, and does the block synchronise again after computing, "
                   "before the buffer is refilled?"),
        Exercise(
            "bulk", "conv1d_bulk", KERNEL_DIR / "bulk.cu",
            KERNEL_DIR / "exercises" / "bulk_skeleton.cu", 90,
            (INIT, INIT_FENCE, BULK_COPY, BULK_EXPECT, BULK_WAIT),
            # one block per tile and blocks walking over tiles, 1 to 4 stages, ends of the
            # vector that are not multiples of 4 floats (plain loads), K = 1 and K = 63
            (Case(16384, 256, 5, 256, stages=1), Case(16384, 256, 5, 64, stages=4, blocks=16),
             Case(1001, 96, 7, 64, stages=2, blocks=3), Case(4099, 64, 1, 32, stages=3, blocks=5),
             Case(77, 128, 3, 32, stages=2), Case(3000, 512, 63, 128, stages=2, blocks=2),
             Case(6, 32, 5, 32, stages=1)),
            Case(2**24, 1024, 5, 256, stages=2, blocks=1056),   # 8 blocks per SM of an H200
            run_arch=90,
            summary="on sm_90 initialises its mbarriers, fences, issues cp.async.bulk with the "
                    "bytes to expect and waits on the barrier",
            advice="Does every thread arrive and wait on the stage's barrier before reading "
                   "the buffer?"),
    )
}
STRESS_LAUNCHES = 8


def get(name: str) -> Exercise:
    return EXERCISES[choice("exercise", name, EXERCISES)]


def skeleton(name: str = "async_halo") -> str:
    return get(name).skeleton.read_text()


def solution(name: str = "async_halo") -> str:
    return get(name).solution.read_text()


# 1. The text ------------------------------------------------------------------------------------

# An #include line (also spelled %:include, #include_next, #import), and what it names.
INCLUDE = re.compile(r"\s*(?:#|%:|\?\?=)\s*(?:include\w*|import)\b\s*(.*)")
CUDA_HEADER = re.compile(r"<\w[\w.+-]*(/\w[\w.+-]*)*>")   # <cuda/pipeline>: relative, no ".."


def _check_markers(src: str) -> None:
    for number, line in enumerate(src.splitlines(), 1):
        if line.strip().startswith("// FILL IN"):   # a marker line, not a comment that names it
            raise ExerciseError(f"line {number} still says FILL IN (replace the marker line with "
                                f"your code): {line.strip()}")


def _logical_lines(src: str):
    """(line number, text) of every logical line, backslash continuations joined."""
    start, text = None, ""
    for number, line in enumerate(src.splitlines(), 1):
        start = start or number
        if line.endswith("\\"):
            text += line[:-1]
            continue
        yield start, text + line
        start, text = None, ""
    if start:
        yield start, text


def _check_includes(src: str) -> None:
    """Refuse, before compiling, any ``#include`` but the common header and CUDA's headers: the
    compiler would echo a file it cannot parse, and the solution must stay out of reach."""
    for number, line in _logical_lines(src):
        m = INCLUDE.match(re.sub(r"/\*.*?\*/", " ", line))
        if not m:
            continue
        name = re.sub(r"\s*//.*", "", m.group(1)).strip()
        if name != f'"{HEADER}"' and not (CUDA_HEADER.fullmatch(name) and ".." not in name):
            raise ExerciseError(f"line {number}: {line.strip()} is refused: the kernel may "
                                f'include only "{HEADER}" and CUDA\'s own headers such as '
                                "<cuda/pipeline>")


# 2. Compiling -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class LearnerBuild(Build):
    """A build whose include path is ``include`` (a private copy of the common header) and
    libcu++, nothing else: the learner's code cannot include the solution."""

    include: str = ""

    def options(self) -> list[str]:
        libcudacxx = [d for d in include_dirs() if Path(d) != KERNEL_DIR]
        return ([o for o in super().options() if not o.startswith("-I")]
                + [f"-I{d}" for d in (self.include, *libcudacxx)])


def _private_include(folder: Path) -> str:
    """A folder holding only a copy of the common header."""
    include = folder / "include"
    include.mkdir()
    shutil.copy(KERNEL_DIR / HEADER, include / HEADER)
    return str(include)


ERROR = re.compile(r"(?P<file>.+?)\((?P<line>\d+)\): (?:catastrophic )?error[^:]*: (?P<what>.*)")
LOCATION = re.compile(r"\S.*?\(\d+\): ")   # the first line of a message: error, note...


def _no_paths(text: str) -> str:
    """``.../libcudacxx/cuda/pipeline`` as ``<cuda/pipeline>``, any other path as its file name."""
    text = re.sub(r"\S*/libcudacxx/([^\s()\"':]+)", r"<\1>", text)
    return re.sub(r"(?:^|(?<=[\s\"'(]))(?:/[^\s/\"'()<>]+)+/([^\s/\"'()<>]+)", r"\1", text)


def _first_error(log: str, src: str, name: str) -> str:
    """NVRTC's first error, on the learner's line: 'line N, `code`: what' (an error inside a
    header is placed where the learner's code, compiled as ``name``.cu, instantiated it)."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = ERROR.match(line)
        if not m:
            continue
        what, file = _no_paths(m["what"]), _no_paths(m["file"])
        own = m["file"].endswith(f"{name}.cu")
        number = int(m["line"]) if own else _instantiated_at(lines[i + 1:], name)
        if number is None:
            return f"in {file}, line {m['line']}: {what}"
        return (f"line {number}, `{_source_line(src, number)}`: {what}"
                + ("" if own else f" (in {file})"))
    return _no_paths(log.strip().splitlines()[0]) if log.strip() else "(no message)"


def _source_line(src: str, number: int) -> str:
    lines = src.splitlines()
    line = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    return line if len(line) <= 100 else line[:97] + "..."


def _instantiated_at(following: list[str], name: str) -> int | None:
    """The learner's line that an error inside a header comes from: its indented lines say
    'detected during instantiation of ... at line N of NAME.cu'."""
    for line in following:
        if LOCATION.match(line):   # the next message: this error's lines are over
            return None
        at = re.search(rf"at line (\d+) of \S*{name}\.cu", line)
        if at:
            return int(at.group(1))
    return None


def _compile(src: str, ex: Exercise, build: LearnerBuild, what: str = "") -> bytes:
    try:
        return compile_source(src, ex.kernel, build)
    except CompileError as exc:
        raise DoesNotCompile(f"it does not compile{what}: "
                             f"{_first_error(exc.log, src, ex.kernel)}") from None


# 3. The PTX -------------------------------------------------------------------------------------

def _kernel_body(ptx: str, name: str) -> str:
    """The PTX body of the learner's kernel; ExerciseError unless it has the right name and
    parameters (three pointers and an int)."""
    keep = f'keep extern "C" __global__ void {name}{SIGNATURE}'
    m = re.search(rf"\.entry\s+{name}\s*\((?P<params>[^)]*)\)(?P<body>.*?)^\}}", ptx, re.S | re.M)
    if not m:
        names = re.findall(r"\.entry\s+(\w+)", ptx)
        if any(found.startswith("_Z") and name in found for found in names):
            raise ExerciseError(f'the kernel lost its extern "C" (its name is mangled): {keep}')
        found = f"the kernel is named {names[0]}" if names else "there is no __global__ kernel"
        raise ExerciseError(f"{found}; the check launches {name}: {keep}")
    types = re.findall(r"\.param\s+\.(\w+)", m["params"])
    if types[:3] != ["u64"] * 3 or types[3:] not in (["u32"], ["s32"]):
        raise ExerciseError(f"{name} must keep its parameters {SIGNATURE}")
    return m["body"]


def _check_structure(body: str, steps: tuple[Step, ...]) -> None:
    """Each step's instruction where it belongs, in the kernel's PTX (the PTX lists the code in
    the order it runs, loops aside: what follows a loop comes after it)."""
    by_name = {step.name: step for step in steps}
    first: dict[str, int] = {}
    for step in steps:
        start = first[step.after] if step.after else 0
        end = len(body)
        if step.before and (m := by_name[step.before].pattern.search(body, start)):
            end = m.start()
        found = [m.start() for m in step.pattern.finditer(body, start, end)]
        if len(found) < step.count:
            raise ExerciseError(step.misplaced if step.misplaced and step.pattern.search(body)
                                else step.missing)
        first[step.name] = found[0]


# 4. The GPU -------------------------------------------------------------------------------------

def _build_cases(src: str, ex: Exercise, folder: Path, include: str) -> None:
    """Compile the kernel for this GPU at every configuration, and the stress build, into
    ``folder``, with ``cases.json`` saying how to launch each."""
    from ..launch import gpu_target
    target = gpu_target("async_halo")   # this GPU, or the generation the book runs as
    todo = []
    for number, (case, jitter) in enumerate([(c, False) for c in ex.cases] + [(ex.stress, True)]):
        build = LearnerBuild(case.tile, case.k, case.threads, target, case.stages, jitter=jitter,
                             include=include)
        binary = f"case{number}.{'cubin' if build.machine_code else 'ptx'}"
        stages = f", {case.stages} stages" if case.stages else ""
        (folder / binary).write_bytes(
            _compile(src, ex, build, f" with tile={case.tile}, K={case.k}{stages}"))
        todo.append(dict(case._asdict(), blocks=case.grid(), jitter=jitter, binary=binary,
                         launches=STRESS_LAUNCHES if jitter else 1, kernel=ex.kernel,
                         advice=ex.advice))
    (folder / "cases.json").write_text(json.dumps(todo))


def _run_on_gpu(folder: Path) -> str:
    """Run the cases in a separate process, so that a kernel that never ends is killed after
    TIME_LIMIT_S and the notebook goes on. Returns its verdict or raises its message."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(KERNEL_DIR.parent), os.environ.get("PYTHONPATH")) if p)}
    try:
        done = subprocess.run([*RUNNER, str(folder)], capture_output=True, text=True,
                              timeout=TIME_LIMIT_S, cwd=folder, env=env)
    except subprocess.TimeoutExpired:
        raise ExerciseError(f"it did not finish within {TIME_LIMIT_S} s on the GPU: a loop that "
                            "never ends, a barrier that some threads never reach, or a bulk "
                            "copy whose bytes never all arrive?") from None
    try:
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ExerciseError(f"the GPU run failed (exit {done.returncode}): {last}") from None
    if not verdict["passed"]:
        raise ExerciseError(verdict["message"])
    return verdict["verdict"]


def _describe(i: int, n: int, tile: int, k: int) -> str:
    t, halo = i % tile, k // 2
    if i < halo:
        return "at the left end of the vector (its halo lies outside: zeros)"
    if i >= n - (k - 1 - halo):
        return "at the right end of the vector (its halo lies outside: zeros)"
    if t < halo or t >= tile - (k - 1 - halo):
        return f"at a tile boundary (i mod tile = {t}: it needs the neighbouring tile's halo)"
    return f"inside a tile (i mod tile = {t})"


def _wrong(y: np.ndarray, expected: np.ndarray, bound: np.ndarray, case: dict,
           launch: int) -> str | None:
    """What is wrong with one launch's outputs, or None (a NaN is never close)."""
    with np.errstate(invalid="ignore"):
        bad = np.flatnonzero(~(np.abs(y.astype(np.float64) - expected) <= bound))
    if not bad.size:
        return None
    n, tile, k, threads = case["n"], case["tile"], case["k"], case["threads"]
    i = int(bad[0])
    what = ("never written (NaN)" if np.isnan(y[i])
            else f"{y[i]:.6g}, expected {expected[i]:.6g}")
    blocks = case.get("blocks") or -(-n // tile)
    layout = (f", {case['stages']} stages" if case.get("stages") else "") + (
        f", {blocks} blocks" if blocks != -(-n // tile) else "")
    found = (f"n={n}, tile={tile}, K={k}, {threads} threads{layout}: {bad.size} wrong outputs; "
             f"the first, y[{i}], is {what}, {_describe(i, n, tile, k)}")
    if not case["jitter"]:
        return found
    return (f"under the stress build (warps wait at random at the PHASE() points), launch "
            f"{launch + 1} of {case['launches']}, {found}. A race: a warp read a buffer before "
            f"its copies had landed, or after it was refilled. {case.get('advice', '')}").strip()


# Fills every SM's shared memory with NaN before each launch of the learner's kernel, so that
# a cell the kernel forgets to write holds NaN, not what happened to be there (often zeros).
POISON = r"""
extern "C" __global__ void poison_shared(int words)
{
    extern __shared__ unsigned int s[];
    volatile unsigned int* v = s;
    for (int i = threadIdx.x; i < words; i += blockDim.x) v[i] = 0x7fc00000u;   // NaN
}
"""


def _shared_poisoner(cupy):
    """A function that leaves NaN in (nearly) all of every SM's shared memory: one block per
    SM, each with the largest dynamic shared memory a block may have."""
    device = cupy.cuda.Device()
    limit = device.attributes["MaxSharedMemoryPerBlockOptin"]
    kernel = cupy.RawKernel(POISON, "poison_shared")
    kernel.max_dynamic_shared_size_bytes = limit
    sms = device.attributes["MultiProcessorCount"]

    def poison():
        kernel((sms,), (1024,), (np.int32(limit // 4),), shared_mem=limit)
    return poison


def run_cases(folder: Path) -> str:
    """The GPU side (the separate process): launch every case of ``folder/cases.json`` on fresh
    NaN-poisoned outputs; ExerciseError at the first wrong output."""
    import cupy
    poison = _shared_poisoner(cupy)
    cases = json.loads((Path(folder) / "cases.json").read_text())
    for case in cases:
        module = cupy.RawModule(path=str(Path(folder) / case["binary"]))
        kernel = module.get_function(case["kernel"])
        x, w = random_inputs(case["n"], case["k"])
        expected, bound = reference(x, w), error_bound(x, w)
        xd, wd = cupy.asarray(x), cupy.asarray(w)
        y = cupy.empty(case["n"], cupy.float32)
        for launch in range(case["launches"]):
            y.fill(cupy.nan)   # an output the kernel never writes stays NaN
            try:
                poison()
                kernel((case["blocks"],), (case["threads"],), (xd, wd, y, np.int32(case["n"])))
                out = y.get()
            except (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError) as exc:
                raise ExerciseError(f"it crashed on the GPU (n={case['n']}, tile={case['tile']}, "
                                    f"K={case['k']}): {exc}") from None
            problem = _wrong(out, expected, bound, case, launch)
            if problem:
                raise ExerciseError(problem)
    stress = cases[-1]
    return (f"correct on the GPU for all {len(cases) - 1} configurations, and for "
            f"{stress['launches']} launches of the stress build at n={stress['n']}")


def main(argv: list[str] | None = None) -> None:
    """``python -m kernels.teach.exercise --run FOLDER``: print the GPU verdict as one line of JSON."""
    import argparse
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--run", type=Path, required=True, help="a folder made by the check")
    folder = parser.parse_args(argv).run
    try:
        verdict = {"passed": True, "verdict": run_cases(folder)}
    except ExerciseError as exc:
        verdict = {"passed": False, "message": str(exc)}
    print(json.dumps(verdict), flush=True)


# The check --------------------------------------------------------------------------------------

def _check(src: str, name: str) -> tuple[bool, str]:
    """(whether it ran on a GPU, the verdict); ExerciseError at the first problem."""
    ex = get(name)
    src = text("src", src)
    _check_markers(src)
    _check_includes(src)
    with tempfile.TemporaryDirectory(prefix=f"{ex.key}-exercise-") as tmp:
        folder = Path(tmp)
        include = _private_include(folder)
        first = ex.cases[0]
        build = LearnerBuild(first.tile, first.k, first.threads, f"compute_{ex.ptx_arch}",
                             first.stages, include=include)
        ptx = _compile(src, ex, build).decode()
        _check_structure(_kernel_body(ptx, ex.kernel), ex.steps)
        static = f"compiles with NVRTC, and {ex.summary}"
        if not gpu_available():
            return False, (f"{static}; " + (
                f"running it needs sm_{ex.run_arch} or newer (an H100 or H200; Colab's T4, L4 "
                "and A100 are older)" if ex.run_arch else
                "running it needs a GPU (open this notebook in Colab with a GPU runtime)"))
        from ..device import target_arch
        arch = target_arch()
        if arch < ex.run_arch:
            return False, (f"{static}; running it needs sm_{ex.run_arch} or newer, and the book "
                           f"runs as sm_{arch} here")
        _build_cases(src, ex, folder, include)
        return True, _run_on_gpu(folder)


def check(src: str, name: str = "async_halo") -> str:
    """Check a learner's kernel for exercise ``name`` (see the module's docstring); raise
    ``ExerciseError`` at the first problem, with a specific message. Returns a one-line
    verdict."""
    return _check(src, name)[1]


def report(src: str, name: str = "async_halo") -> str:
    """The check's verdict as one paragraph, never raising: what the notebook prints, so that
    "Run all" goes on past an unfinished exercise."""
    try:
        ran, verdict = _check(src, name)
    except ExerciseError as exc:
        return f"NOT YET: {exc}"
    return f"PASSED: {verdict}." if ran else f"COMPILES, NOT RUN: {verdict}."


if __name__ == "__main__":
    main()
