"""The three exercises: each skeleton fails the check, each solution passes it, the notebooks'
copies of the skeletons are the files', the check's messages say what is wrong, and a corpus of
learners' answers (tests/exercise_corpus/, a folder per exercise) gets the verdicts its manifest
expects, with and without a GPU."""

import concurrent.futures
import json
import multiprocessing
import os
import runpy
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

import kernels
from kernels.teach import exercise
from kernels.publish import notebooks

NOTEBOOK_05 = "05_warp_specialization_and_the_bound.ipynb"   # set when 05 lands
# where each exercise is posed: the notebook and the variable its skeleton cell assigns
POSED = {"async_halo": ("03_async_copy_convolution.ipynb", "my_kernel"),
         "double_buffer": ("03_async_copy_convolution.ipynb", "my_pipeline"),
         "bulk": ("04_pipelines_and_bandwidth.ipynb", "my_bulk"),
         "warp_specialized": (NOTEBOOK_05, "my_handoff")}
CORPUS = Path(__file__).parent / "exercise_corpus"
MANIFEST = runpy.run_path(str(CORPUS / "manifest.py"))
ANSWERS = MANIFEST["ANSWERS"]
SOLUTION = kernels.source("async_halo")
HANGS = MANIFEST["HANGS"]
SLOW_COMPILES = MANIFEST["SLOW_COMPILES"]


@pytest.fixture
def no_gpu(monkeypatch):
    """The check as it runs without a GPU, on any machine."""
    monkeypatch.setattr(exercise, "gpu_available", lambda: False)


def test_every_exercise_is_posed_in_a_notebook_and_checked_there():
    assert sorted(POSED) == sorted(exercise.EXERCISES)


@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_notebook_holds_the_skeleton_verbatim_and_checks_it(name):
    notebook, variable = POSED[name]
    nb = nbformat.read(notebooks.NOTEBOOK_DIR / notebook, as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    at = sources.index(f'{variable} = r"""\n' + exercise.skeleton(name) + '"""')
    check = sources[at + 1]
    assert f'exercise.report({variable}, "{name}")' in check
    assert any(f'exercise.solution("{name}"), "{name}")' in src for src in sources[at + 2:])


@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_skeleton_fails_the_check(name):
    with pytest.raises(exercise.ExerciseError, match="FILL IN"):
        exercise.check(exercise.skeleton(name), name)


@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_solution_passes_the_check(name):
    from kernels.device import target_arch
    verdict = exercise.check(exercise.solution(name), name)
    runs = kernels.gpu_available() and target_arch() >= exercise.get(name).run_arch
    assert "correct on the GPU" in verdict if runs else "needs" in verdict


@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_the_skeleton_is_the_solution_with_its_places_taken_out(name):
    """Everything outside the FILL IN places, PHASE() points included, is the solution's."""
    solution = exercise.solution(name).splitlines()
    for line in exercise.skeleton(name).splitlines():
        if not line.strip().startswith("//"):
            assert (line in solution
                    or line.replace("int n)", "int n CONV_TRACE_ARG)") in solution), line


@pytest.mark.parametrize("src, name, said", [
    (SOLUTION, "bulkk", "NOT YET: unknown exercise 'bulkk'.*did you mean 'bulk'\\?$"),
    (SOLUTION, "async-halo", "NOT YET: unknown exercise 'async-halo'.*did you mean 'async_halo'"),
    (SOLUTION, 42, "NOT YET: exercise must be a string, one of async_halo"),
    (SOLUTION, None, "NOT YET: exercise must be a string"),
    (None, "async_halo", "NOT YET: the answer must be the kernel's source as a string, got "
                         "NoneType None$"),
    (42, "async_halo", "NOT YET: the answer must be .* got int 42$"),
    (["x"], "async_halo", "NOT YET: the answer must be .* got list"),
    (b"\xff\xfe", "async_halo", "NOT YET: the answer is bytes that are not UTF-8 text"),
    ("// \ud800\n" + SOLUTION, "async_halo", "NOT YET: line 1 holds U\\+D800, not a character"),
    ("int a;\0" + SOLUTION, "async_halo", "NOT YET: line 1 holds a NUL character: retype"),
    ("//" + "x" * 70000, "async_halo", "NOT YET: the answer is 70,002 bytes, more than 64 KiB: an "
                                      "exercise's kernel fits in that"),
])
def test_every_argument_gets_a_verdict(src, name, said):
    import re
    verdict = exercise.report(src, name)
    assert re.match(said, verdict), verdict
    with pytest.raises(exercise.ExerciseError):
        exercise.check(src, name)


def test_bytes_and_a_byte_order_mark_and_crlf_are_read_as_text(no_gpu):
    for src in (SOLUTION.encode(), "\ufeff" + SOLUTION, SOLUTION.replace("\n", "\r\n"),
                ("\ufeff" + SOLUTION).encode()):
        assert exercise.report(src).startswith("COMPILES, NOT RUN: "), src[:20]


def test_a_synchronous_answer_is_rejected():
    sync = kernels.source("tiled_sync").replace("conv1d_tiled_sync", "conv1d_async_halo")
    with pytest.raises(exercise.ExerciseError, match="no cp.async"):
        exercise.check(sync)


def test_a_renamed_kernel_is_rejected_by_its_compiled_name():
    with pytest.raises(exercise.ExerciseError, match="the kernel is named mine; the check "
                                                     "launches conv1d_async_halo"):
        exercise.check(SOLUTION.replace("conv1d_async_halo", "mine"))


def test_a_syntax_error_shows_the_learners_line_and_the_first_error_only():
    bad = SOLUTION.replace("pipe.consumer_wait();", "pipe.consumer_wait(;")
    number = bad.splitlines().index("    pipe.consumer_wait(;") + 1
    with pytest.raises(exercise.DoesNotCompile) as caught:
        exercise.check(bad)
    assert str(caught.value) == (f"it does not compile: line {number}, `pipe.consumer_wait(;`: "
                                 "expected an expression")


def test_an_error_inside_libcu_is_placed_on_the_learners_line(no_gpu):
    bad = SOLUTION.replace("sizeof(float), pipe)", "cuda::aligned_size_t<3>(4), pipe)")
    number = next(i for i, line in enumerate(bad.splitlines(), 1) if "aligned_size_t<3>" in line)
    verdict = exercise.report(bad)
    assert verdict.startswith(f"NOT YET: it does not compile: line {number}, `if (g >= 0")
    assert "alignment must be a power of two" in verdict and "<cuda/" in verdict
    for leak in ("site-packages", "/tmp", "async-halo-exercise", "\n", "note"):
        assert leak not in verdict


def test_first_error_reads_nvrtc_logs():
    """The log's forms: an error in the learner's file, one in a header instantiated from it,
    one in a header with no line of the learner's; notes and later errors are left out."""
    src = "\n".join(f"code on line {i}" for i in range(1, 31))
    own = ("conv1d_async_halo.cu(12): error: expected a \";\"\n      code\n      ^\n\n"
           "conv1d_async_halo.cu(13): error: something else\n")
    name = "conv1d_async_halo"
    assert exercise._first_error(own, src, name) == 'line 12, `code on line 12`: expected a ";"'
    header = ("/usr/x/site-packages/cupy/_cccl/libcudacxx/cuda/pipeline(99): error: bad thing\n"
              "    static_assert(...);\n    ^\n          detected during instantiation of "
              "\"f<T>\" at line 27 of conv1d_async_halo.cu\n\n"
              "/usr/x/site-packages/cupy/_cccl/libcudacxx/cuda/pipeline(5): note #3322-D: no\n")
    assert exercise._first_error(header, src, name) == ("line 27, `code on line 27`: bad thing "
                                                  "(in <cuda/pipeline>)")
    common = "/tmp/abc/include/conv1d_common.cuh(13): catastrophic error: #error directive: x\n"
    assert exercise._first_error(common, src, name) == ("in conv1d_common.cuh, line 13: #error "
                                                  "directive: x")


@pytest.mark.parametrize("line", [
    '#include "async_halo.cu"', '#include "/etc/passwd"', "#include </etc/passwd>",
    '#include "../kernels/async_halo.cu"', "#include <cuda/../../../async_halo.cu>",
    "#include MINE", '%:include "async_halo.cu"', '  #  /* hidden */ include "tiled_sync.cu"',
    '#inc\\\nlude "async_halo.cu"', '#include_next "async_halo.cu"', "#include <x\\..\\y>"])
def test_includes_other_than_the_header_are_refused_before_compiling(line, monkeypatch):
    monkeypatch.setattr(exercise, "_compile_many", lambda *a: pytest.fail("it compiled"))
    src = SOLUTION.replace('#include "conv1d_common.cuh"', '#include "conv1d_common.cuh"\n' + line)
    with pytest.raises(exercise.ExerciseError, match="is refused: the kernel may include only"):
        exercise.check(src)


def test_the_learners_include_path_holds_only_the_common_header(no_gpu):
    """The CUDA headers and "conv1d_common.cuh" are found; nothing else of kernels/ is."""
    assert exercise.report(SOLUTION.replace('"conv1d_common.cuh"', "<conv1d_common.cuh>")
                           ).startswith("COMPILES")
    solution_included = "#include <cuda/pipeline>\n#include <async_halo.cu>"
    verdict = exercise.report(SOLUTION.replace("#include <cuda/pipeline>", solution_included))
    assert 'cannot open source file "async_halo.cu"' in verdict
    build = exercise.LearnerBuild(256, 5, 256, "compute_80", include="/private")
    includes = [o for o in build.options() if o.startswith("-I")]
    assert includes[0] == "-I/private" and len(includes) == 2 and "libcudacxx" in includes[1]


def test_report_never_raises_and_says_what_is_missing(no_gpu):
    """What the notebook prints: "Run all" must go on past an unfinished exercise."""
    assert exercise.report(exercise.skeleton()).startswith("NOT YET: line 24 still says FILL IN")
    bad = SOLUTION.replace("pipe.consumer_wait();", "pipe.consumer_wait(;")
    verdict = exercise.report(bad)
    assert verdict.startswith("NOT YET: it does not compile: line ")
    assert verdict.endswith("`pipe.consumer_wait(;`: expected an expression")
    assert "site-packages" not in verdict and "\n" not in verdict
    assert exercise.report(SOLUTION).startswith("COMPILES, NOT RUN: ")


def test_a_comment_that_mentions_fill_in_is_not_a_marker(no_gpu):
    """The skeleton's header says 'where it says FILL IN'; keeping it in an answer is fine."""
    src = "// Complete it where it says FILL IN.\n" + SOLUTION
    assert exercise.report(src).startswith("COMPILES")


# The corpus -----------------------------------------------------------------------------------

def _exercise_of(answer: str) -> str:
    return answer.split("/")[0]


def test_the_corpus_and_its_manifest_agree():
    assert sorted(ANSWERS) == sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*.cu"))
    assert {_exercise_of(a) for a in ANSWERS} == set(exercise.EXERCISES)
    assert MANIFEST["SM80_ONLY"] | HANGS | SLOW_COMPILES | MANIFEST["HEAVY"] <= set(ANSWERS)
    assert len(ANSWERS) >= 80
    verdicts = {(cpu, gpu) for cpu, _, gpu, _ in ANSWERS.values()}
    assert verdicts == {("COMPILES, NOT RUN", "PASSED"), ("NOT YET", "NOT YET"),
                        ("COMPILES, NOT RUN", "NOT YET")}


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_corpus_verdict_without_a_gpu(name, no_gpu, monkeypatch):
    if name in SLOW_COMPILES:
        monkeypatch.setattr(exercise, "COMPILE_LIMIT_S", 5)   # it never ends: no need to wait
    verdict, fragment, _, _ = ANSWERS[name]
    said = exercise.report((CORPUS / name).read_text(), _exercise_of(name))
    assert said.startswith(verdict + ": ") and _says(said, fragment), said
    assert "\n" not in said and "site-packages" not in said


def _says(said: str, fragment: str | tuple[str, ...]) -> bool:
    """Whether a verdict holds the manifest's fragment (or one of them: a race may show either
    way from run to run)."""
    return any(f in said for f in ((fragment,) if isinstance(fragment, str) else fragment))


_GPU_VERDICTS: dict[str, concurrent.futures.Future] = {}
GPU_TIME_LIMIT_S = 30   # each answer's GPU run here: the answers that never end need not take 60 s


def _gpu_answers() -> set[str]:
    """The answers the GPU tests check: all, or those EXERCISE_GPU_ANSWERS's file names."""
    listed = os.environ.get("EXERCISE_GPU_ANSWERS")
    return set(ANSWERS) if not listed else set(Path(listed).read_text().split()) & set(ANSWERS)


def _shorter_runs() -> None:
    """A worker's start: the GPU run's limit of :data:`GPU_TIME_LIMIT_S` (compiles keep theirs)."""
    exercise.TIME_LIMIT_S = GPU_TIME_LIMIT_S


def _gpu_verdict(name: str) -> str:
    """The corpus on a GPU, a few answers at a time (EXERCISE_GPU_WORKERS, 4), each in a process
    of its own, as a learner's check runs: threads would share one interpreter, and an answer
    whose PTX takes seconds to follow would run past its check's deadline while the others'
    checks hold the interpreter. Each check mostly waits for its compiles and its run, which are
    separate processes again. One pool computes them all, so run these tests without
    pytest-xdist. With EXERCISE_GPU_ANSWERS (a file naming answers, one a line), those only: the
    others skip."""
    if not _GPU_VERDICTS:
        pool = concurrent.futures.ProcessPoolExecutor(
            int(os.environ.get("EXERCISE_GPU_WORKERS", 4)),
            mp_context=multiprocessing.get_context("spawn"),   # no CUDA state is inherited
            initializer=_shorter_runs)
        first = HANGS | SLOW_COMPILES | MANIFEST["HEAVY"]   # the longest, while the pool is idle
        for answer in sorted(_gpu_answers(), key=lambda a: (a not in first, a)):
            _GPU_VERDICTS[answer] = pool.submit(exercise.report, (CORPUS / answer).read_text(),
                                                _exercise_of(answer))
        pool.shutdown(wait=False)
    return _GPU_VERDICTS[name].result()


# The corpus is checked a few answers at a time, all at once, by the first test that asks: a test
# may wait for many others' compiles and runs. Each run of a learner's kernel has its own limit
# (exercise.TIME_LIMIT_S, in a child process), so a kernel that hangs ends there, not here.
@pytest.mark.gpu
@pytest.mark.timeout(900, method="thread")
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_corpus_verdict_on_the_gpu(name):
    from kernels.device import target_arch
    if name in MANIFEST["SM80_ONLY"] and target_arch() < 80:
        pytest.skip("its GPU verdict holds where copies are asynchronous (sm_80 and newer)")
    if name not in _gpu_answers():
        pytest.skip("not among EXERCISE_GPU_ANSWERS")
    ex = exercise.get(_exercise_of(name))
    cpu_verdict, cpu_fragment, verdict, fragment = ANSWERS[name]
    if target_arch() < ex.run_arch:   # not run on this generation: what it says without a GPU
        verdict, fragment = cpu_verdict, (f"running it needs sm_{ex.run_arch}"
                                          if cpu_verdict != "NOT YET" else cpu_fragment)
    said = _gpu_verdict(name)
    print(f"{name}: {said}")
    assert said.startswith(verdict + ": ") and _says(said, fragment), said


# The GPU run's plumbing, without a GPU --------------------------------------------------------

@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_the_gpu_builds_compile_without_a_gpu(name, tmp_path, monkeypatch):
    """What the check hands the separate process: a binary per case and how to launch it."""
    monkeypatch.setattr("kernels.launch.gpu_target", lambda variant: "sm_90")
    ex = exercise.get(name)
    exercise._build_cases(ex.solution.read_text(), ex, tmp_path,
                          exercise._private_include(tmp_path), arch=90)
    cases = json.loads((tmp_path / "cases.json").read_text())
    slow = (ex.slow,) if ex.slow else ()
    assert [exercise.Case(*(c[f] for f in exercise.Case._fields)) for c in cases] == [
        c._replace(blocks=c.grid()) for c in (*ex.cases, *ex.stresses, *slow)]
    # every build is a stress build; "jitter" marks the stress cases, launched several times,
    # "host_input" the slow one
    stress = len(ex.stresses)
    assert [c["jitter"] for c in cases] == [False] * len(ex.cases) + [True] * (stress + len(slow))
    assert [c["launches"] for c in cases] == ([1] * len(ex.cases) + [exercise.STRESS_LAUNCHES] * stress
                                              + [exercise.SLOW_LAUNCHES] * len(slow))
    assert [c["host_input"] for c in cases] == [False] * (len(cases) - len(slow)) + [True] * len(slow)
    assert all(c["kernel"] == ex.kernel for c in cases)
    assert all(c["block_threads"] == c["threads"] + 32 * ex.producer_warp for c in cases)
    assert all((tmp_path / c["binary"]).read_bytes()[:4] == b"\x7fELF" for c in cases)
    # one build per set of sizes: the cases that share sizes share a binary
    sizes = {(c["tile"], c["k"], c["threads"], c["stages"]): c["binary"] for c in cases}
    assert sorted(p.name for p in tmp_path.glob("case*.*bin")) == sorted(set(sizes.values()))
    assert all(sizes[(c["tile"], c["k"], c["threads"], c["stages"])] == c["binary"] for c in cases)


def test_no_host_memory_run_where_copies_are_synchronous():
    """On a T4 (sm_75) every copy has landed when its cp.async returns: the host-memory run
    could catch nothing, so it is not made, and the verdict says so instead of claiming it."""
    ex = exercise.get("double_buffer")
    assert not any(slow for *_, slow in exercise._runs(ex, 75))
    assert [slow for *_, slow in exercise._runs(ex, 80)].count(True) == 1
    said = exercise.SYNCHRONOUS.format(arch=75, ptx_arch=ex.ptx_arch)
    assert "sm_75 the copies are synchronous" in said and "sm_80 or newer" in said


@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_every_case_is_a_valid_launch(name):
    """Each case within the kernel's limits: whole warps, K no longer than the tile, and for
    the staged kernels a launch the book's own launcher accepts."""
    ex = exercise.get(name)
    for case in (*ex.cases, *ex.stresses, *((ex.slow,) if ex.slow else ())):
        assert case.threads % 32 == 0 and 1 <= case.k <= case.tile and case.grid() >= 1
        if case.stages:
            kernels.launch_config(case.n, case.k, case.tile, case.threads, name, case.stages)


def _runner(monkeypatch, script):
    monkeypatch.setattr(exercise, "RUNNER", [sys.executable, "-c", script])


def test_a_gpu_run_that_never_ends_is_stopped(tmp_path, monkeypatch):
    _runner(monkeypatch, "import time; time.sleep(60)")
    monkeypatch.setattr(exercise, "TIME_LIMIT_S", 2)
    with pytest.raises(exercise.ExerciseError, match="did not finish within 2 s on the GPU"):
        exercise._run_on_gpu(tmp_path)


def test_the_gpu_verdict_comes_back_as_json(tmp_path, monkeypatch):
    _runner(monkeypatch, "print('noise'); print('{\"passed\": true, \"verdict\": \"fine\"}')")
    assert exercise._run_on_gpu(tmp_path) == "fine"
    _runner(monkeypatch, "print('{\"passed\": false, \"message\": \"3 wrong outputs\"}')")
    with pytest.raises(exercise.ExerciseError, match="^3 wrong outputs$"):
        exercise._run_on_gpu(tmp_path)
    _runner(monkeypatch, "import sys; sys.exit('it broke')")
    with pytest.raises(exercise.ExerciseError, match=r"the GPU run failed \(exit 1\): it broke"):
        exercise._run_on_gpu(tmp_path)


def test_wrong_outputs_are_described():
    x = np.arange(1.0, 9.0)
    case = dict(n=8, tile=4, k=3, threads=32, jitter=False, launches=1)
    assert exercise._wrong(x.astype(np.float32), x, np.full(8, 1e-6), case, 0) is None
    y = x.astype(np.float32)
    y[3] = np.nan
    said = exercise._wrong(y, x, np.full(8, 1e-6), case, 0)
    assert said == ("n=8, tile=4, K=3, 32 threads: 1 wrong outputs; the first, y[3], is never "
                    "written (NaN), at a tile boundary (i mod tile = 3: it needs the neighbouring "
                    "tile's halo)")
    y[3], y[5] = 4.0, 0.0
    said = exercise._wrong(y, x, np.full(8, 1e-6), dict(case, jitter=True, launches=8), 2)
    assert said.startswith("under the stress build (warps wait at random at the PHASE() points), "
                           "launch 3 of 8, n=8") and "y[5], is 0, expected 6" in said


# On a GPU -------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("mistake, expected", [
    # the halo is never copied: wrong at tile boundaries
    (("if (g >= 0 && g < n) cuda::memcpy_async",
      "if (g >= 0 && g < n && j >= CONV_HALO && j < CONV_HALO + CONV_TILE) cuda::memcpy_async"),
     "tile boundary|end of the vector"),
    # zeros outside the vector forgotten: wrong at the ends
    (("else                 x_s[j] = 0.0f;", ""), "end of the vector|NaN"),
    # the copy shifted by one
    (("&x[g], sizeof(float)", "&x[g + 1 < n ? g + 1 : g], sizeof(float)"), "wrong outputs"),
])
def test_wrong_answers_are_rejected_with_a_specific_message(mistake, expected):
    old, new = mistake
    assert old in SOLUTION
    with pytest.raises(exercise.ExerciseError, match=expected):
        exercise.check(SOLUTION.replace(old, new))


@pytest.mark.gpu
def test_the_stress_run_catches_a_race_the_ptx_checks_cannot_see():
    """The wait in one thread only: the PTX has copies, a wait and a barrier in order, yet
    the other threads' copies may still be in flight when the barrier opens."""
    from kernels.device import target_arch
    if target_arch() < 80:
        pytest.skip("copies are synchronous before sm_80: no race to catch")
    racy = SOLUTION.replace("    pipe.consumer_wait();\n",
                            "    if (threadIdx.x == 0) pipe.consumer_wait();\n")
    with pytest.raises(exercise.ExerciseError, match="wrong outputs"):
        exercise.check(racy)


@pytest.mark.gpu
def test_the_stress_run_catches_a_missing_refill_barrier(tmp_path):
    """The double buffer without its second barrier, run past the PTX check that refuses it:
    the stress build makes a fast warp refill a buffer that a slow warp still reads."""
    ex = exercise.get("double_buffer")
    racy = (CORPUS / "double_buffer" / "missing_refill_barrier.cu").read_text()
    exercise._build_cases(racy, ex, tmp_path, exercise._private_include(tmp_path))
    with pytest.raises(exercise.ExerciseError, match="wrong outputs"):
        exercise._run_on_gpu(tmp_path)


class _Array(np.ndarray):
    def get(self):
        return np.array(self)


def _fake_cupy(kernel):
    """What run_cases uses of CuPy, on the CPU: ``kernel(y, x, w)`` fills y."""
    from types import SimpleNamespace as NS

    def launch(grid, block, args):
        x, w, y, n = args
        kernel(y, x, w)

    module = NS(get_function=lambda name: launch if name == "conv1d_async_halo" else None)
    return NS(RawModule=lambda path: module, nan=np.nan, float32=np.float32,
              asarray=np.asarray, empty=lambda n, dtype: np.empty(n, dtype).view(_Array),
              cuda=NS(driver=NS(CUDADriverError=OSError), runtime=NS(CUDARuntimeError=OSError)))


def test_the_gpu_side_with_a_stand_in_for_cupy(tmp_path, monkeypatch, capsys):
    """run_cases and main, the separate process's code, with CuPy replaced by NumPy."""
    monkeypatch.setattr(exercise, "_shared_poisoner", lambda cupy: lambda: None)
    cases = [dict(n=100, tile=32, k=5, blocks=4, jitter=False, launches=1, binary="case0.cubin"),
             dict(n=50, tile=32, k=3, blocks=2, jitter=False, launches=1, binary="case1.cubin"),
             dict(n=1000, tile=64, k=3, blocks=16, jitter=True, launches=3,
                  binary="case2.cubin", advice="Look at the wait."),
             dict(n=700, tile=64, k=3, blocks=4, jitter=True, launches=2, host_input=True,
                  binary="case2.cubin", advice="Look at the batches.")]
    for case in cases:
        case.update(kernel="conv1d_async_halo", threads=32, block_threads=32)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    in_host = []
    monkeypatch.setattr(exercise, "_in_host_memory", lambda cupy, x: in_host.append(x.size) or x)

    def right(y, x, w):
        y[:] = kernels.reference(x, w)

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(right))
    assert exercise.run_cases(tmp_path) == (
        "correct on the GPU for all 2 configurations, and for 3 launches of the stress build at "
        "n=1000; correct with its input in host memory too (2 launches at n=700: there each copy "
        "takes microseconds to land, so a wait that returns before the copies the compute reads "
        "have landed shows up as wrong outputs)")
    assert in_host == [700]

    def late(y, x, w):   # right, except with x in host memory
        right(y, x, w)
        if x.size == 700:
            y[64] = 0.0

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(late))
    with pytest.raises(exercise.ExerciseError, match=r"^with its input in host memory \(each copy "
                       r"takes microseconds to land\), launch 1 of 2, n=700, .*y\[64\], is 0, "
                       r"expected .*Look at the batches\.$"):
        exercise.run_cases(tmp_path)
    launches = []

    def racy(y, x, w):   # right, except in the stress build's second launch
        right(y, x, w)
        launches.append(x.size)
        if launches.count(1000) == 2:
            y[70] += 1

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(racy))
    with pytest.raises(exercise.ExerciseError, match=r"under the stress build .* launch 2 of 3, "
                                                     r"n=1000, .* 1 wrong outputs; the first, "
                                                     r"y\[70\].*Look at the wait\.$"):
        exercise.run_cases(tmp_path)

    def unwritten(y, x, w):
        y[1:] = kernels.reference(x, w)[1:]

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(unwritten))
    exercise.main(["--run", str(tmp_path)])
    said = json.loads(capsys.readouterr().out)
    assert said == {"passed": False, "message": "n=100, tile=32, K=5, 32 threads: 1 wrong "
                    "outputs; the first, y[0], is never written (NaN), at the left end of the "
                    "vector (its halo lies outside: zeros)"}


# What the compiler may open ------------------------------------------------------------------

STRACE = shutil.which("strace")
# answers that name other files, one way or another, and right answers that open the headers
TRICKS = sorted(a for a in ANSWERS if any(word in a for word in (
    "includes_", "has_include", "pragma_", "line_directive"))) + [
    "async_halo/ok_like_the_solution.cu", "async_halo/ok_cuda_barrier.cu",
    "bulk/ok_like_the_solution.cu"]
SECRETS = ("/etc/passwd", "/etc/hostname", "/proc/self/environ", "/async_halo.cu", "/bulk.cu",
           "/double_buffer.cu", "/tiled_sync.cu")


@pytest.mark.skipif(not STRACE, reason="needs strace (apt-get install strace)")
def test_the_compiler_opens_no_file_but_the_headers(tmp_path):
    """Every check of the trick answers under strace: no process looks at a file they name, and
    the compiling processes open nothing but libc++'s headers, the private copy of the common
    header, the cache and the libraries NVRTC loads."""
    import re
    from kernels.compile import include_dirs
    libcudacxx = next(d for d in include_dirs() if "libcudacxx" in d)
    script = ("import sys; from kernels.teach import exercise\n"
              "exercise.gpu_available = lambda: False\n"
              "for name in sys.argv[1:]:\n"
              f"    print(exercise.report(open({str(CORPUS)!r} + '/' + name).read(), "
              "name.split('/')[0]))\n")
    log = tmp_path / "strace.log"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),   # compiles, not the cache's
           "PYTHONPATH": str(Path(kernels.__file__).parent.parent)}
    done = subprocess.run([STRACE, "-f", "-qq", "-o", str(log), "-e",
                           "trace=execve,open,openat,openat2,stat,lstat,newfstatat,statx,access",
                           sys.executable, "-c", script, *TRICKS],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    verdicts = done.stdout.splitlines()
    assert [v.startswith("COMPILES") for v in verdicts] == ["/ok_" in a for a in TRICKS]
    compilers, started, opened = set(), set(), []
    for line in log.read_text().splitlines():
        m = re.match(r"(\d+)\s+(\w+)\((?:AT_FDCWD, )?\"([^\"]*)\"", line)
        if not m:
            continue
        pid, call, path = m.groups()
        assert not any(("/" + path).endswith(secret) for secret in SECRETS), line
        if call == "execve" and "--compile" in line:
            compilers.add(pid)
        elif pid in compilers and call.startswith("open"):
            if re.search(r"/job\d+\.json$", path):
                started.add(pid)   # imports done: from here on, NVRTC
            elif pid in started:
                opened.append(path)
    assert compilers and started == compilers and opened
    cache = str(tmp_path / "cache")
    for path in opened:
        assert (path.startswith((libcudacxx + "/", cache + "/", "/etc/ld.so.cache"))
                or "-exercise-" in path and "/include/" in path or path.endswith("answer.cu")
                or not path.startswith("/") and ".." not in path                # its own folder
                or re.search(r"/lib(nvrtc|cuda)[\w.-]*\.so[\d.]*$", path)), path


def test_reading_the_source_takes_linear_time():
    """The text checks on 100,000 unterminated comments and as many quotes, far past the size
    limit: well under a second each (the old comment regex took 91 s)."""
    for text in ("/*a" * 100_000, "'\"" * 100_000, "#define A(x) x\n" * 20_000,
                 "R\"(" * 100_000):
        started = time.perf_counter()
        try:
            exercise._check_preprocessing(text)
        except exercise.ExerciseError:
            pass
        assert time.perf_counter() - started < 2, text[:10]


@pytest.mark.parametrize("src, refused", [
    ("int a; /* x\n */ #include \"async_halo.cu\"\n", "line 2: #include \"async_halo.cu\""),
    ("// a comment \\\n#include \"async_halo.cu\"\n", None),    # spliced into the comment
    ("#include <cuda/pipeline\n", "line 1: #include <cuda/pipeline is refused"),
    ("#include <a/*b>\n#include \"x.cu\"\n// */\n", "line 1: #include <a/*b>"),
    ("const char* s = \"/*\";\n#include \"x.cu\"\n", "line 2: #include \"x.cu\""),
    ("int a = 1'0'0;\n#include \"x.cu\"\n", "line 2"),        # digit separators
    ("char c = '\"';\n#include \"x.cu\"\n", "line 2"),
    ("#define Q \\\n  \"a\"\n#include \"x.cu\"\n", "line 3"),
    ("# /* */ include /**/ \"conv1d_common.cuh\" // ok\n", None),
    ("#  pragma unroll 4\n#pragma nv_diag_suppress 177\n", None),
    ("#include \"conv1d_common.cuh\" extra\n", "line 1"),
    ("#\n#if defined(X)\n#endif\n", None),
    ("int \\u0061;\n", "line 1: a backslash outside"),
    ("#define X \\   \n", "line 1 holds a backslash followed by spaces"),
    ("#include_next <cuda/pipeline>\n", "line 1: #include_next"),
    ("#embed \"/etc/passwd\"\n", "line 1: #embed"),
    # a comment is one space to the preprocessor: the directive goes on past it
    ("#/*\n*/include \"/etc/passwd\"\n", "line 1: a comment that spans lines inside a directive"),
    ("%:/*\n*/include \"x.cu\"\n", "line 1: a comment that spans lines inside a directive"),
    ("#define A /*\n*/ 1\n", "line 1: a comment that spans lines inside a directive"),
    ("#/**/include \"x.cu\"\n", "line 1: #include \"x.cu\" is refused"),
])
def test_the_preprocessor_view(src, refused):
    if refused is None:
        exercise._check_preprocessing(src)
    else:
        with pytest.raises(exercise.ExerciseError, match=f"^{re_escape(refused)}"):
            exercise._check_preprocessing(src)


def re_escape(text):
    import re
    return re.escape(text)


def test_the_ptx_is_read_as_instructions():
    """Comments and strings left out, bodies by their braces, .func bodies followed."""
    ptx = """
.visible .func (.param .b32 r) helper(.param .b64 a)
{
    { .reg .pred p; cp.async.ca.shared.global [%r1], [%rd1], 4, 4;
}
    ret;
}
// .entry conv1d_async_halo(
.visible .entry conv1d_async_halo(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    // cp.async.wait_all;
    /* bar.sync 0; */
$L__BB0_1:
    call.uni (retval0), helper, (param0);
    @%p1 bra $L__BB0_1;
    cp.async.wait_all;
    bar.sync 0;
    ret;
}
"""
    instructions = exercise._kernel_instructions(ptx, "conv1d_async_halo")
    assert instructions == [".entry conv1d_async_halo {", "$L__BB0_1:",
                            "call.uni (retval0), helper, (param0)", ".func helper {", "{",
                            "cp.async.ca.shared.global [%r1], [%rd1], 4, 4", "}", "ret", "}",
                            "@%p1 bra $L__BB0_1", "cp.async.wait_all", "bar.sync 0", "ret", "}"]
    # (each thread's copy its own cell: a copy every thread makes to one address is refused)
    exercise._check_structure(instructions[:4] + ["mov.u32 %r1, %tid.x"] + instructions[4:],
                              exercise.get("async_halo").steps)
    assert list(exercise._Flow(instructions).short_loops(48)) == [0] + [1] * 9 + [0] * 4


def _running(ptx: str) -> dict[str, bool]:
    instructions = exercise._kernel_instructions(ptx, "k")
    flow = exercise._Flow(instructions)
    return {i: bool(flow.issued[at]) for at, i in enumerate(instructions)}


KERNEL = ".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)"


def test_the_ptx_control_flow():
    """What runs: a guard that a setp on immediates makes certain, a bra over an instruction to
    the label of its own block, a vector's braces, a function's ret back to its caller, exit
    ending the path, a branch round it."""
    ptx = f"""
.func helper()
{{
    ret;
    membar.cta;
}}
{KERNEL}
{{
    {{ .reg .pred p; setp.ne.u32 p, 0, 0; @p mov.u32 %r1, 1; @!p mov.u32 %r2, 2; }}
    {{ bra.uni L; mov.u32 %r3, 3; L: }}
    mov.u32 %r4, 4;
    bra.uni L;
    mov.u32 %r9, 9;
L:  ld.shared.v2.u32 {{%r5, %r6}}, [%rd1];
    call.uni helper, ();
    @%p1 bra M;
    exit;
    mov.u32 %r8, 8;
M:  mov.u32 %r7, 7;
    ret;
}}
"""
    running = _running(ptx)
    assert [i for i, runs in running.items() if "%r" in i and not runs] == [
        "@p mov.u32 %r1, 1", "mov.u32 %r3, 3", "mov.u32 %r9, 9", "mov.u32 %r8, 8"]
    assert running["ld.shared.v2.u32 {%r5, %r6}, [%rd1]"] and running["mov.u32 %r7, 7"]
    assert running["ret"] and not running["membar.cta"]


@pytest.mark.parametrize("setting, guard, runs", [
    ("setp.eq.s32 p, -1, 0xffffffff", "@p", True),       # the same 32 bits
    ("setp.lt.u32 p, -1, 0", "@p", False),                 # unsigned: -1 is the largest
    ("setp.lt.s32 p, -1, 0", "@!p", False),
    ("setp.ne.f32 p, 0f00000000, 0f80000000", "@p", False),   # 0 and -0 are equal
    ("setp.nan.f32 p, 0f7fc00000, 0f00000000", "@p", True),
    ("setp.ne.u32 p|q, 1, 1", "@q", True),
    ("mov.u32 %r1, 010; setp.eq.u32 p, %r1, 8", "@p", True),  # octal, through a register
    ("mov.pred p, 0", "@p", False),
    ("setp.ne.u32 p, %r1, %r1", "@p", False),               # whatever %r1 holds
    ("setp.ne.f32 p, %f1, %f1", "@p", None),                # true if %f1 is a NaN
    ("setp.eq.u32 q, 0, 0; not.pred p, q", "@p", False),
    ("setp.eq.u32 q, 0, 0; and.pred p, q, !q", "@p", False),
    ("setp.eq.u32 q, 0, 0; xor.pred p, q, %p2", "@p", None),
    ("setp.ne.u32 p, %r1, 0", "@p", None),                  # not certain: it may run
    ("setp.ne.u32 p, 0, 0; add.u32 %r2, %r2, 1; selp.u32 %r3, 1, 0, p", "@p", False),
    ("setp.ne.u32 p, 0, 0; vote.sync.any.pred p, %p2, -1", "@p", None),   # p written again
    ("setp.ne.u32 p, 0, 0; @%p3 setp.eq.u32 p, 0, 0", "@p", None),
])
def test_a_guard_that_a_basic_block_makes_certain(setting, guard, runs):
    """A copy under a predicate that the same basic block sets from immediates: it runs or it
    does not; where that is not certain, it may run (and counts as running)."""
    ptx = f"""{KERNEL}
{{ {{ .reg .pred p, q; {setting}; {guard} cp.async.ca.shared.global [%r1], [%rd1], 4, 4; }}
   @%p1 bra L; cp.async.wait_all; L: ret; }}"""
    running = _running(ptx)
    copy = running[f"{guard} cp.async.ca.shared.global [%r1], [%rd1], 4, 4"]
    assert copy == (runs is not False)
    assert running["cp.async.wait_all"] and running["ret"]


@pytest.mark.parametrize("before, runs", [
    ("setp.ne.u32 p, 0, 0; @%p1 bra L;", False),                          # false on both paths
    ("setp.ne.u32 p, 0, 0; @%p1 bra L; setp.eq.u32 p, 0, 0;", True),      # true on one
    ("setp.ne.u32 p, 0, 0; bra.uni L; setp.eq.u32 p, 0, 0;", False),      # that one never runs
    ("setp.ne.u32 p, 0, 0; L: @%p1 bra L;", True),                        # a loop: afresh
    ("setp.ne.u32 p, 0, 0; @%p1 bra L; brx.idx %r1, T; T: .branchtargets L;", True),
])
def test_what_is_certain_goes_on_past_a_label_that_only_forward_paths_reach(before, runs):
    """A label joins the paths into it: what all of them make certain stays so; a branch back
    to it, or one that may go anywhere, and nothing is."""
    ptx = f"""{KERNEL}
{{ .reg .pred p; {before} L: @p bra M; exit; M: ret; }}"""
    ptx = ptx.replace("L: @%p1 bra L; L:", "L: @%p1 bra L;")
    assert _running(ptx)["ret"] == runs


def _decided(instructions: list[str]) -> dict[str, bool]:
    opcodes = [exercise._opcode_and_rest(i) for i in instructions]
    flow, scopes = exercise._Flow(instructions), exercise._scopes(instructions)
    varying = exercise._varying(instructions, opcodes, flow, scopes)
    decided = exercise._decided(instructions, opcodes, flow, scopes, varying)
    return {i: bool(d) for i, d in zip(instructions, decided)}


@pytest.mark.parametrize("between, decided", [
    ("@%p1 bra L", True),             # a branch on the lane's id: some threads jump over it
    ("@%p1 exit", True),              # some threads end here (the path to the end counts)
    ("@%p1 ret", True),
    ("brx.idx %r1, T", True),         # an index that differs between the threads
    ("brx.idx %r1, U; U:; .branchtargets T, L", True),   # its table: T or L
    ("brx.idx %r3, U; U:; .branchtargets T, L", False),  # the same index in all threads
    ("@%p2 bra L", False),            # %tid.y: 0 in every thread of a 1D launch
    ("@%p3 bra L", False),            # a kernel parameter: the same in all
    ("mov.u32 %r9, 0", False),
])
def test_which_threads_run_an_instruction(between, decided):
    """Control dependence on a value that differs between the threads (_decided): a copy after
    a guarded branch, exit, ret or indirect branch on such a value is some threads' only."""
    copy = "cp.async.ca.shared.global [%r5], [%rd1], 4, 4"
    instructions = [".entry k {", "mov.u32 %r1, %tid.x", "mov.u32 %r2, %tid.y",
                    "ld.param.u32 %r3, [k_param_3]", "setp.eq.u32 %p1, %r1, 0",
                    "setp.eq.u32 %p2, %r2, 0", "setp.eq.u32 %p3, %r3, 0", *between.split("; "),
                    "T:", copy,
                    "L:", "bar.sync 0", "ret", "}"]
    found = _decided(instructions)
    assert found[copy] == decided
    assert not found["bar.sync 0"] or between.endswith(("exit", "ret"))


def test_which_threads_run_is_found_in_linear_time():
    """3,000 branches on the lane's id, each over what follows it to the end (a walk up the
    post-dominator tree from each would take 3,000 x 15,000 steps): each instruction marked
    once, in well under a few seconds."""
    branches = 3_000
    copy = "cp.async.ca.shared.global [%r5], [%rd1], 4, 4"
    instructions = [".entry k {", "mov.u32 %r1, %tid.x", "setp.eq.u32 %p1, %r1, 0"]
    for i in range(branches):
        instructions += [f"@%p1 bra E", *(f"add.u32 %r{9 + j}, %r{9 + j}, 1" for j in range(4))]
    instructions += [copy, "E:", "ret", "}"]
    started = time.perf_counter()
    found = _decided(instructions)
    assert time.perf_counter() - started < 5
    assert found[copy] and not found["mov.u32 %r1, %tid.x"] and not found["ret"]


@pytest.mark.parametrize("name", MANIFEST["SLOW_STATIC"])
def test_answers_that_made_a_check_quadratic_take_seconds(name):
    """The twenty-seventh red team's answers (dead code that made one pass quadratic, 40-57 s):
    with their compiles cached, the check takes seconds."""
    src = (CORPUS / name).read_text()
    exercise.report(src, _exercise_of(name))   # the compiles, cached on disk
    started = time.perf_counter()
    exercise.report(src, _exercise_of(name))
    assert time.perf_counter() - started < 15


def test_the_static_checks_stop_at_the_deadline():
    """Past the check's deadline, between its steps and rules: too large to check, not a verdict
    that comes after the time report() promises."""
    ex = exercise.get("async_halo")
    instructions = exercise._kernel_instructions(
        f"{KERNEL.replace(' k(', ' conv1d_async_halo(')} {{ mov.u32 %r1, %tid.x; "
        "cp.async.ca.shared.global [%r1], [%rd1], 4, 4; cp.async.wait_all; bar.sync 0; "
        "ld.shared.f32 %f1, [%r1]; ret; }", ex.kernel)
    exercise._check_structure(instructions, ex.steps, deadline=exercise.Deadline(30))
    with pytest.raises(exercise.TooLarge, match="its checks take too long"):
        exercise._check_structure(instructions, ex.steps, deadline=exercise.Deadline(-1))


def test_the_control_flow_is_walked_in_linear_time():
    """Blocks nested 20,000 deep, 100,000 branches and labels in a loop, an indirect branch (to
    any label of its function, E too): each walk once over them, well under a few seconds."""
    depth, branches = 20_000, 100_000
    copy = "cp.async.ca.shared.global [%r1], [%rd1], 4, 4"
    instructions = ([".entry k {", "mov.u32 %r1, %tid.x", copy] + ["{"] * depth
                    + [f"L{i}:" if i % 2 else f"@%p1 bra L{i + 1}" for i in range(branches)]
                    + ["brx.idx %r1, T", "E:", "bar.sync 0", "ld.shared.f32 %f1, [%rd1]",
                       "bar.sync 0", copy, "cp.async.commit_group", "cp.async.wait_group 1",
                       "bar.sync 0", "@%p2 bra L1"]
                    + ["}"] * depth + ["ret", "}"])
    started = time.perf_counter()
    exercise._check_structure(instructions, exercise.get("double_buffer").steps)
    assert time.perf_counter() - started < 5
