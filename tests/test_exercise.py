"""The three exercises: each skeleton fails the check, each solution passes it, the notebooks'
copies of the skeletons are the files', the check's messages say what is wrong, and a corpus of
learners' answers (tests/exercise_corpus/, a folder per exercise) gets the verdicts its manifest
expects, with and without a GPU."""

import json
import runpy
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

import kernels
from kernels.teach import exercise
from kernels.publish import notebooks

# where each exercise is posed: the notebook and the variable its skeleton cell assigns
POSED = {"async_halo": ("03_async_copy_convolution.ipynb", "my_kernel"),
         "double_buffer": ("03_async_copy_convolution.ipynb", "my_pipeline"),
         "bulk": ("04_pipelines_and_bandwidth.ipynb", "my_bulk")}
CORPUS = Path(__file__).parent / "exercise_corpus"
MANIFEST = runpy.run_path(str(CORPUS / "manifest.py"))
ANSWERS = MANIFEST["ANSWERS"]
SOLUTION = kernels.source("async_halo")
HANGS = MANIFEST["HANGS"]


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


def test_an_unknown_exercise_or_a_source_that_is_no_string_is_refused():
    with pytest.raises(ValueError, match="unknown exercise 'bulkk'.*did you mean 'bulk'"):
        exercise.report(SOLUTION, "bulkk")
    with pytest.raises(TypeError, match="src must be a string"):
        exercise.report(b"__global__", "async_halo")


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
    monkeypatch.setattr(exercise, "compile_source", lambda *a: pytest.fail("it compiled"))
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
    assert MANIFEST["SM80_ONLY"] | HANGS <= set(ANSWERS)
    assert len(ANSWERS) >= 25
    verdicts = {(cpu, gpu) for cpu, _, gpu, _ in ANSWERS.values()}
    assert verdicts == {("COMPILES, NOT RUN", "PASSED"), ("NOT YET", "NOT YET"),
                        ("COMPILES, NOT RUN", "NOT YET")}


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_corpus_verdict_without_a_gpu(name, no_gpu):
    verdict, fragment, _, _ = ANSWERS[name]
    said = exercise.report((CORPUS / name).read_text(), _exercise_of(name))
    assert said.startswith(verdict + ": ") and fragment in said, said
    assert "\n" not in said and "site-packages" not in said


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_corpus_verdict_on_the_gpu(name, monkeypatch):
    from kernels.device import target_arch
    if name in MANIFEST["SM80_ONLY"] and target_arch() < 80:
        pytest.skip("its GPU verdict holds where copies are asynchronous (sm_80 and newer)")
    if name in HANGS:
        monkeypatch.setattr(exercise, "TIME_LIMIT_S", 20)   # it never ends: no need to wait 60 s
    ex = exercise.get(_exercise_of(name))
    cpu_verdict, cpu_fragment, verdict, fragment = ANSWERS[name]
    if target_arch() < ex.run_arch:   # not run on this generation: what it says without a GPU
        verdict, fragment = cpu_verdict, (f"running it needs sm_{ex.run_arch}"
                                          if cpu_verdict != "NOT YET" else cpu_fragment)
    said = exercise.report((CORPUS / name).read_text(), _exercise_of(name))
    print(f"{name}: {said}")
    assert said.startswith(verdict + ": ") and fragment in said, said


# The GPU run's plumbing, without a GPU --------------------------------------------------------

@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_the_gpu_builds_compile_without_a_gpu(name, tmp_path, monkeypatch):
    """What the check hands the separate process: a binary per case and how to launch it."""
    monkeypatch.setattr("kernels.launch.gpu_target", lambda variant: "sm_90")
    ex = exercise.get(name)
    exercise._build_cases(ex.solution.read_text(), ex, tmp_path,
                          exercise._private_include(tmp_path))
    cases = json.loads((tmp_path / "cases.json").read_text())
    assert [exercise.Case(*(c[f] for f in exercise.Case._fields)) for c in cases] == [
        c._replace(blocks=c.grid()) for c in (*ex.cases, ex.stress)]
    assert [c["jitter"] for c in cases] == [False] * len(ex.cases) + [True]
    assert [c["launches"] for c in cases] == [1] * len(ex.cases) + [exercise.STRESS_LAUNCHES]
    assert all(c["kernel"] == ex.kernel for c in cases)
    assert all((tmp_path / c["binary"]).read_bytes()[:4] == b"\x7fELF" for c in cases)


@pytest.mark.parametrize("name", sorted(exercise.EXERCISES))
def test_every_case_is_a_valid_launch(name):
    """Each case within the kernel's limits: whole warps, K no longer than the tile, and for
    the staged kernels a launch the book's own launcher accepts."""
    ex = exercise.get(name)
    for case in (*ex.cases, ex.stress):
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
    cases = [dict(n=100, tile=32, k=5, threads=32, blocks=4, jitter=False, launches=1,
                  binary="case0.cubin"),
             dict(n=50, tile=32, k=3, threads=32, blocks=2, jitter=False, launches=1,
                  binary="case1.cubin"),
             dict(n=1000, tile=64, k=3, threads=32, blocks=16, jitter=True, launches=3,
                  binary="case2.cubin", advice="Look at the wait.")]
    for case in cases:
        case["kernel"] = "conv1d_async_halo"
    (tmp_path / "cases.json").write_text(json.dumps(cases))

    def right(y, x, w):
        y[:] = kernels.reference(x, w)

    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(right))
    assert exercise.run_cases(tmp_path) == ("correct on the GPU for all 2 configurations, and "
                                            "for 3 launches of the stress build at n=1000")
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
