"""The async-copy exercise: a skeleton of ``async_halo.cu`` to complete, and the check.

The solution is ``kernels/async_halo.cu`` itself, so skeleton, check and solution cannot drift
apart (tests/test_exercise.py runs the check on both, and on a corpus of learners' answers in
tests/exercise_corpus/).

The check, in order, stopping at the first problem:

1. the text: no ``// FILL IN`` marker line left, and no ``#include`` but ``"conv1d_common.cuh"``
   and CUDA's own headers (``<cuda/pipeline>``);
2. NVRTC compiles it, with an include path that holds only a private copy of the common header
   and libcu++ (the solution and the rest of ``kernels/`` are out of reach); a compile error is
   shown as the learner's line and the first error;
3. the PTX for sm_80 (any machine): a kernel named ``conv1d_async_halo(x, w, y, n)`` whose body
   issues asynchronous copies (``cp.async``), then waits for them (``cp.async.wait_*``), then
   synchronises the block (``bar.sync``);
4. on a GPU only: a separate process (``python -m kernels.exercise --run FOLDER``), killed after
   :data:`TIME_LIMIT_S`, runs it on NaN-poisoned outputs at every configuration of
   :data:`CASES`, then under the stress build (``-DCONV_JITTER``: warps wait at random at the
   ``PHASE()`` points the skeleton keeps) at a size where a missing wait or barrier shows; it
   prints its verdict as one line of JSON.

:func:`check_async_halo` raises :class:`ExerciseError` at the first problem; :func:`report`
turns that into the line the notebook prints.
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

import numpy as np

from .compile import KERNEL_DIR, Build, CompileError, compile_source, include_dirs, kernel_name
from .device import gpu_available
from .geometry import launch_config
from .reference import error_bound, random_inputs, reference

SKELETON = KERNEL_DIR / "exercises" / "async_halo_skeleton.cu"
HEADER = "conv1d_common.cuh"
NAME = kernel_name("async_halo")
SIGNATURE = "(const float* x, const float* w, float* y, int n)"
# (n, tile, k, threads): the seed config, then sizes that are not multiples of the tile, a single
# partial tile, an even K, a kernel as long as the tile, more outputs than threads per block.
CASES = [(16384, 256, 5, 256), (1000, 96, 7, 64), (77, 128, 3, 128), (4099, 64, 4, 32),
         (513, 32, 32, 32), (3000, 1024, 9, 256), (1, 32, 5, 32)]
# The stress run: x and y twice a large L2, so that the copies come from DRAM and take long
# enough for a missing wait or barrier to show (tests/test_stress.py plants one).
STRESS = (2**24, 256, 5, 256)
STRESS_LAUNCHES = 8
TIME_LIMIT_S = 60   # for the GPU run, generous: CuPy's start, 15 launches and their checks
RUNNER = [sys.executable, "-m", "kernels.exercise", "--run"]   # + the folder


class ExerciseError(AssertionError):
    """The kernel is not right yet; the message says where and how."""


class DoesNotCompile(ExerciseError):
    """NVRTC rejected the kernel; the message is the first error, on the learner's line."""


def skeleton() -> str:
    return SKELETON.read_text()


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


def _first_error(log: str, src: str) -> str:
    """NVRTC's first error, on the learner's line: 'line N, `code`: what' (an error inside a
    header is placed where the learner's code instantiated it)."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = ERROR.match(line)
        if not m:
            continue
        what, file = _no_paths(m["what"]), _no_paths(m["file"])
        own = m["file"].endswith(f"{NAME}.cu")
        number = int(m["line"]) if own else _instantiated_at(lines[i + 1:])
        if number is None:
            return f"in {file}, line {m['line']}: {what}"
        return (f"line {number}, `{_source_line(src, number)}`: {what}"
                + ("" if own else f" (in {file})"))
    return _no_paths(log.strip().splitlines()[0]) if log.strip() else "(no message)"


def _source_line(src: str, number: int) -> str:
    lines = src.splitlines()
    line = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    return line if len(line) <= 100 else line[:97] + "..."


def _instantiated_at(following: list[str]) -> int | None:
    """The learner's line that an error inside a header comes from: its indented lines say
    'detected during instantiation of ... at line N of NAME.cu'."""
    for line in following:
        if LOCATION.match(line):   # the next message: this error's lines are over
            return None
        at = re.search(rf"at line (\d+) of \S*{NAME}\.cu", line)
        if at:
            return int(at.group(1))
    return None


def _compile(src: str, build: LearnerBuild, what: str = "") -> bytes:
    try:
        return compile_source(src, NAME, build)
    except CompileError as exc:
        raise DoesNotCompile(f"it does not compile{what}: {_first_error(exc.log, src)}") from None


# 3. The PTX -------------------------------------------------------------------------------------

COPY = re.compile(r"\bcp\.async\.c[ag]\.shared")        # cuda::memcpy_async on sm_80+
WAIT = re.compile(r"\bcp\.async\.wait_(?:all|group)\b")  # pipe.consumer_wait()
BARRIER = re.compile(r"\b(?:bar|barrier)\.(?:sync|red)\b")   # __syncthreads() and its kin


def _kernel_body(ptx: str) -> str:
    """The PTX body of the learner's kernel; ExerciseError unless it has the right name and
    parameters (three pointers and an int)."""
    keep = f'keep extern "C" __global__ void {NAME}{SIGNATURE}'
    m = re.search(rf"\.entry\s+{NAME}\s*\((?P<params>[^)]*)\)(?P<body>.*?)^\}}", ptx, re.S | re.M)
    if not m:
        names = re.findall(r"\.entry\s+(\w+)", ptx)
        if any(name.startswith("_Z") and NAME in name for name in names):
            raise ExerciseError(f'the kernel lost its extern "C" (its name is mangled): {keep}')
        found = f"the kernel is named {names[0]}" if names else "there is no __global__ kernel"
        raise ExerciseError(f"{found}; the check launches {NAME}: {keep}")
    types = re.findall(r"\.param\s+\.(\w+)", m["params"])
    if types[:3] != ["u64"] * 3 or types[3:] not in (["u32"], ["s32"]):
        raise ExerciseError(f"{NAME} must keep its parameters {SIGNATURE}")
    return m["body"]


def _check_structure(body: str) -> None:
    """Copies, then a wait, then a barrier, in the kernel's PTX for sm_80 (the PTX lists the
    code in the order it runs, loops aside: what follows the copy loop comes after it)."""
    copy = COPY.search(body)
    if not copy:
        raise ExerciseError("it compiles, but copies nothing asynchronously: on sm_80 the PTX has "
                            "no cp.async. Copy the tile with cuda::memcpy_async(&x_s[j], &x[g], "
                            "sizeof(float), pipe).")
    wait = WAIT.search(body, copy.start())
    if not wait and WAIT.search(body):
        raise ExerciseError("it waits before its copies are issued (the PTX has cp.async.wait "
                            "only before cp.async): call pipe.consumer_wait() in Phase 3, after "
                            "the copies are committed.")
    if not wait:
        raise ExerciseError("it never waits for its copies (the PTX has no cp.async.wait): call "
                            "pipe.consumer_wait() in Phase 3, after the copies are committed.")
    if not BARRIER.search(body, wait.start()) and BARRIER.search(body, copy.start()):
        raise ExerciseError("it synchronises before it waits (the PTX has bar.sync only before "
                            "cp.async.wait): call __syncthreads() after pipe.consumer_wait(), so "
                            "that every thread's copies have landed when the barrier opens.")
    if not BARRIER.search(body, wait.start()):
        raise ExerciseError("it waits for this thread's copies but not for the other threads' "
                            "(the PTX has no bar.sync after cp.async.wait): call __syncthreads() "
                            "after pipe.consumer_wait().")


# 4. The GPU -------------------------------------------------------------------------------------

def _build_cases(src: str, folder: Path, include: str) -> None:
    """Compile the kernel for this GPU at every configuration, and the stress build, into
    ``folder``, with ``cases.json`` saying how to launch each."""
    from .launch import gpu_target
    target = gpu_target("async_halo")
    cases = [(case, False, 1) for case in CASES] + [(STRESS, True, STRESS_LAUNCHES)]
    todo = []
    for number, ((n, tile, k, threads), jitter, launches) in enumerate(cases):
        cfg = launch_config(n, k, tile, threads, "async_halo")
        build = LearnerBuild(tile, k, threads, target, jitter=jitter, include=include)
        binary = f"case{number}.{'cubin' if build.machine_code else 'ptx'}"
        (folder / binary).write_bytes(_compile(src, build, f" with tile={tile}, K={k}"))
        todo.append(dict(n=n, tile=tile, k=k, threads=threads, blocks=cfg.tiles, jitter=jitter,
                         launches=launches, binary=binary))
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
                            "never ends, or a barrier that some threads never reach?") from None
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
    found = (f"n={n}, tile={tile}, K={k}, {threads} threads: {bad.size} wrong outputs; the first, "
             f"y[{i}], is {what}, {_describe(i, n, tile, k)}")
    if not case["jitter"]:
        return found
    return (f"under the stress build (warps wait at random at the PHASE() points), launch "
            f"{launch + 1} of {case['launches']}, {found}. A race: a warp read x_s before every "
            "copy had landed. Does every thread call pipe.consumer_wait() and then "
            "__syncthreads() before Phase 4?")


def run_cases(folder: Path) -> str:
    """The GPU side (the separate process): launch every case of ``folder/cases.json`` on fresh
    NaN-poisoned outputs; ExerciseError at the first wrong output."""
    import cupy
    for case in json.loads((Path(folder) / "cases.json").read_text()):
        kernel = cupy.RawModule(path=str(Path(folder) / case["binary"])).get_function(NAME)
        x, w = random_inputs(case["n"], case["k"])
        expected, bound = reference(x, w), error_bound(x, w)
        xd, wd = cupy.asarray(x), cupy.asarray(w)
        y = cupy.empty(case["n"], cupy.float32)
        for launch in range(case["launches"]):
            y.fill(cupy.nan)   # an output the kernel never writes stays NaN
            try:
                kernel((case["blocks"],), (case["threads"],), (xd, wd, y, np.int32(case["n"])))
                out = y.get()
            except (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError) as exc:
                raise ExerciseError(f"it crashed on the GPU (n={case['n']}, tile={case['tile']}, "
                                    f"K={case['k']}): {exc}") from None
            problem = _wrong(out, expected, bound, case, launch)
            if problem:
                raise ExerciseError(problem)
    return (f"correct on the GPU for all {len(CASES)} configurations, and for "
            f"{STRESS_LAUNCHES} launches of the stress build at n={STRESS[0]}")


def main(argv: list[str] | None = None) -> None:
    """``python -m kernels.exercise --run FOLDER``: print the GPU verdict as one line of JSON."""
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

def check_async_halo(src: str) -> str:
    """Check the learner's ``conv1d_async_halo`` (see the module's docstring); raise
    ``ExerciseError`` at the first problem, with a specific message. Returns a one-line
    verdict."""
    _check_markers(src)
    _check_includes(src)
    with tempfile.TemporaryDirectory(prefix="async-halo-exercise-") as tmp:
        folder = Path(tmp)
        include = _private_include(folder)
        ptx = _compile(src, LearnerBuild(256, 5, 256, "compute_80", include=include)).decode()
        _check_structure(_kernel_body(ptx))
        if not gpu_available():
            return ("compiles with NVRTC, and on sm_80 issues cp.async, waits for it and "
                    "synchronises the block; running it needs a GPU (open this notebook in Colab "
                    "with a GPU runtime)")
        _build_cases(src, folder, include)
        return _run_on_gpu(folder)


def report(src: str) -> str:
    """The check's verdict as one paragraph, never raising: what the notebook prints, so that
    "Run all" goes on past an unfinished exercise."""
    try:
        verdict = check_async_halo(src)
    except ExerciseError as exc:
        return f"NOT YET: {exc}"
    return f"PASSED: {verdict}." if gpu_available() else f"COMPILES, NOT RUN: {verdict}."


if __name__ == "__main__":
    main()
