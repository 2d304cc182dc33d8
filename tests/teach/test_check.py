"""The exercises' check (kernels/teach/check): each skeleton is posed in its notebook and gets
NOT YET, each solution passes, bad arguments get a verdict, and the corpus of learners' answers
(tests/teach/exercise_corpus/, a folder per exercise) gets the verdicts its manifest expects, with and
without a GPU (marked slow: one compile per answer)."""

import concurrent.futures
import functools
import multiprocessing
import os
import re
import runpy
from pathlib import Path

import nbformat
import numpy as np
import pytest

import kernels
from kernels.publish import notebooks
from kernels.teach import check
from kernels.teach.check import build, exercises, run

POSED = {"async_halo": ("03_async_copy_convolution.ipynb", "my_kernel"),
         "double_buffer": ("03_async_copy_convolution.ipynb", "my_pipeline"),
         "bulk": ("04_pipelines_and_bandwidth.ipynb", "my_bulk"),
         "warp_specialized": ("05_warp_specialization_and_the_bound.ipynb", "my_handoff")}
CORPUS = Path(__file__).parent / "exercise_corpus"
MANIFEST = runpy.run_path(str(CORPUS / "manifest.py"))
ANSWERS, HANGS = MANIFEST["ANSWERS"], MANIFEST["HANGS"]
SOLUTION = check.solution("async_halo")
PIPELINE_LINE = SOLUTION.split("\n").index("#include <cuda/pipeline>") + 1   # as verdicts number it
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture
def no_gpu(monkeypatch):
    """The check as it runs without a GPU."""
    monkeypatch.setattr(check, "gpu_available", lambda: False)


def both(verdict, en: str, ko: str = "") -> None:
    """The verdict starts with ``en`` in English and ``ko`` in Korean, and the Korean one is
    Korean and carries the English one's numbers."""
    assert verdict.en.startswith(en), verdict.en
    assert verdict.ko.startswith(ko), verdict.ko
    assert HANGUL.search(verdict.ko), verdict.ko
    assert set(re.findall(r"\d+", verdict.en)) <= set(re.findall(r"\d+", verdict.ko)), verdict


def test_a_quote_is_cut_at_a_word_within_40_characters():
    assert check.source.quote("x" * 35 + " word more") == "x" * 35 + " word …"   # 40 fit
    assert check.source.quote("x" * 60) == "x" * 40 + " …"                       # no word to cut at
    assert (check.source.quote("cuda::device::experimental::fence_proxy_async_shared_cta();")
            == "cuda::device::experimental:: …")                                   # nor a name
    line = "if (g >= 0 && g < n) cuda::memcpy_asynch(&x_s[j], &x[g], 4, pipe);"
    assert (check.source.quote(line, name="memcpy_asynch")
            == "… cuda::memcpy_asynch(&x_s[j], &x[g], 4, …")   # the name an error names, in view


@pytest.mark.parametrize("name", sorted(check.EXERCISES))
def test_each_skeleton_is_posed_in_its_notebook_and_checked_there(name):
    notebook, variable = POSED[name]
    nb = nbformat.read(notebooks.NOTEBOOK_DIR / notebook, as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    at = sources.index(f'{variable} = r"""\n' + check.skeleton(name) + '"""')
    assert f'check.report({variable}, "{name}")' in sources[at + 1]
    assert any(f'check.report(check.solution("{name}"), "{name}")' in s for s in sources[at + 2:])
    verdict = check.report(check.skeleton(name), name)
    both(verdict, "NOT YET: a FILL IN is left, line ", "아직 통과 못 함: ")
    assert "번째 줄에 FILL IN이 남아 있습니다:" in verdict.ko
    line, quoted = re.search(r"line (\d+):\n    (.*)\nReplace", verdict.en).groups()
    whole = check.skeleton(name).split("\n")[int(line) - 1].strip()
    assert quoted == whole or (quoted.endswith(" …") and whole.startswith(quoted[:-2])), quoted


@pytest.mark.parametrize("name", sorted(check.EXERCISES))
def test_each_solution_passes_the_static_checks(name, no_gpu):
    what = {"bulk": "the barriers' init", "warp_specialized": "a wait on a barrier"}.get(
        name, "copies, commits, waits, a barrier after each wait")
    both(check.report(check.solution(name), name),
         f"COMPILES, NOT RUN: the static checks ({what}",
         "컴파일됨, 실행 안 함:")


@pytest.mark.parametrize("src, name, said", [
    (SOLUTION, "bulkk", "NOT CHECKED: unknown name 'bulkk'.*did you mean 'bulk'"),
    (SOLUTION, None, "NOT CHECKED: name must be a string"),
    (None, "async_halo", "NOT YET: the answer must be the kernel's source as a string, not "
                         "NoneType"),
    (b"\xff\xfe", "async_halo", "NOT YET: the answer is bytes that are not UTF-8"),
    ("int a;\0" + SOLUTION, "async_halo", "NOT YET: line 1 holds a NUL character"),
    ("//" + "x" * 70000, "async_halo", "NOT YET: the answer is 70,002 bytes, more than 64 KiB"),
    (SOLUTION.replace("#include <cuda/pipeline>", '#include "../async_halo.cu"'), "async_halo",
     f"NOT YET: an #include the check does not offer, line {PIPELINE_LINE}"),
])
def test_every_argument_gets_a_verdict(src, name, said, monkeypatch):
    monkeypatch.setattr(build, "compile_ptx", lambda *a: pytest.fail("it compiled"))
    verdict = check.report(src, name)
    assert re.match(said, verdict.en), verdict.en
    assert HANGUL.search(verdict.ko)


def test_text_is_read_as_the_compiler_reads_it(no_gpu):
    for src in (SOLUTION.encode(), "\ufeff" + SOLUTION, SOLUTION.replace("\n", "\r\n")):
        assert check.report(src).startswith("COMPILES, NOT RUN")


def test_a_compile_error_is_shown_on_the_learners_line(no_gpu):
    bad = SOLUTION.replace("pipe.consumer_wait();", "pipe.consumer_wait(;")
    line = bad.split("\n").index("    pipe.consumer_wait(;") + 1
    both(check.report(bad), f"NOT YET: it does not compile, line {line}: expected an "
         "expression.\n    pipe.consumer_wait(;\nFix that line.")
    inside = SOLUTION.replace("sizeof(float), pipe)", "cuda::aligned_size_t<3>(4), pipe)")
    verdict = check.report(inside)
    assert "alignment must be a power of two" in verdict and "site-packages" not in verdict
    assert re.search(r"NOT YET: it does not compile, line \d+: .*\n    cuda::memcpy_async\(&x_s",
                     verdict)


def test_a_host_header_and_a_missing_semicolon_are_named_as_such(no_gpu):
    """NVRTC has no host headers: <stdio.h> gets a sentence saying so, not "cannot open source
    file"; a missing ; is reported on the line after it, and the verdict says so."""
    stdio = check.report(SOLUTION.replace("#include <cuda/pipeline>",
                                          "#include <cuda/pipeline>\n#include <stdio.h>"))
    both(stdio, f"NOT YET: line {PIPELINE_LINE + 1}: no such header here:\n    #include <stdio.h>\n")
    bad = SOLUTION.replace("pipe.consumer_wait();", "pipe.consumer_wait()\n    // a comment")
    line = bad.split("\n").index("    pipe.consumer_wait()") + 1   # reported 2 lines later
    verdict = check.report(bad)
    both(verdict, f"NOT YET: it does not compile, line {line + 2}: ", "아직 통과 못 함: 컴파일되지 않습니다.")
    assert verdict.en.endswith(f"check the end of line {line} too.")
    unclosed = check.report(SOLUTION.rstrip().removesuffix("}"))   # no line to name
    both(unclosed, "NOT YET: it does not compile: the source ends inside a { that is never "
         "closed. Check that every { you added has its }.")


def test_only_the_common_header_and_libcu_can_be_included(no_gpu):
    verdict = check.report(SOLUTION.replace("#include <cuda/pipeline>",
                                            "#include <cuda/pipeline>\n#include <async_halo.cu>"))
    assert "no such header here:\n    #include <async_halo.cu>\n" in verdict
    includes = [o for o in build.LearnerBuild(256, 5, 256, "sm_80").options() if o.startswith("-I")]
    assert includes[0] == f"-I{build.private_include()}" and len(includes) == 2
    assert sorted(p.name for p in build.private_include().iterdir()) == ["conv1d_common.cuh"]


def test_a_compile_or_run_that_takes_too_long_is_stopped():
    """Both run in run_child (the corpus's preprocessor_bomb.cu gets the compile's verdict)."""
    assert build.run_child(["timeit", "-n1", "import time; time.sleep(30)"], 1) is None


def test_wrong_outputs_are_named_by_their_place_in_a_tile():
    x = np.arange(1.0, 9.0)
    job = dict(n=8, tile=4, k=3, threads=32, stages=None, blocks=2, stress=False, host=False,
               launches=1)
    hint = ("Look at the wait.", "대기를 보세요.")
    assert run.wrong(x.astype(np.float32), x, np.full(8, 1e-6), job, 0, hint) is None
    y = x.astype(np.float32)
    y[3] = np.nan
    en, ko = run.wrong(y, x, np.full(8, 1e-6), job, 0, hint)
    assert en == ("1 wrong outputs (n=8, tile=4, K=3, 32 threads, 2 blocks); the first, y[3], is "
                  "NaN (never written, or computed from a cell no one wrote), at a tile boundary "
                  "(i mod tile = 3: it reads the neighbouring tile's cells).")
    assert "y[3]" in ko and "타일 경계" in ko
    y[3], y[5] = 4.0, 0.0
    en, ko = run.wrong(y, x, np.full(8, 1e-6), dict(job, stress=True, launches=8), 2, hint)
    assert en.startswith("1 wrong outputs (launch 3 of 8 under the stress build, n=8")
    assert en.endswith("y[5], is 0 where 6 is right, inside a tile (i mod tile = 1). Look at "
                       "the wait.") and ko.endswith("대기를 보세요.")
    assert run.where(0, 8, 4, 3)[0].startswith("at an end of the vector")


@pytest.mark.parametrize("name", sorted(check.EXERCISES))
def test_every_case_is_a_launch_the_book_accepts(name):
    ex = exercises.get(name)
    for case in (*ex.cases, ex.stress, *((ex.host,) if ex.host else ())):
        assert case.threads % 32 == 0 and 1 <= case.k <= case.tile and case.grid() >= 1
        if case.stages:
            kernels.launch_config(case.n, case.k, case.tile, case.threads, name, case.stages)


# The corpus ------------------------------------------------------------------------------------

def _exercise_of(answer: str) -> str:
    return answer.split("/")[0]


def test_the_corpus_and_its_manifest_agree():
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*.cu"))
    assert files == sorted(ANSWERS)
    assert {_exercise_of(a) for a in ANSWERS} == set(check.EXERCISES)
    fragments = [f for a in ANSWERS.values() for i in (1, 3)
                 for f in (a[i] if isinstance(a[i], tuple) else (a[i],))]
    assert all(fragments)                                  # an empty one would pass anything


# What the chapters say the check does with a mistake, beside the corpus answer that makes it:
# the corpus's expected verdicts (without a GPU, then on one) are the check's, tested below.
M = MANIFEST
SAID = [
    ("03_async_copy_convolution", "146eb0c3", "Reading the PTX, the check does not catch it; on a "
     "GPU its stress build makes the race show", "double_buffer/missing_refill_barrier.cu", M["WRONG"]),
    ("03_async_copy_convolution", "7ff587ec", "The check fills every SM's shared memory with NaN "
     "before each launch, so the outputs that read a forgotten cell are reported",
     "async_halo/no_zeros_at_the_ends.cu", M["WRONG"]),
    ("04_pipelines_and_bandwidth", "907c7bd0", "without a GPU the check says `COMPILES, NOT RUN`; "
     f"on an sm_90 GPU its separate process is stopped after {run.RUN_LIMIT_S} s and the check "
     "says the kernel did not finish", "bulk/one_arrival_too_many.cu", M["HANG"]),
    ("05_warp_specialization_and_the_bound", "f1e6c3b5", "the book's check ran this answer, and "
     "its time limit ended the run", "warp_specialized/full_wait_with_the_wrong_parity.cu",
     M["HANG"]),
    ("05_warp_specialization_and_the_bound", "f1e6c3b5", "the producer waits for ever, and again "
     "the time limit ends it", "warp_specialized/empty_wait_with_the_wrong_parity.cu", M["HANG"]),
]


@pytest.mark.parametrize("notebook, cell, said, answer, verdicts", SAID, ids=[s[3] for s in SAID])
def test_what_a_chapter_says_the_check_does_is_what_it_does(notebook, cell, said, answer, verdicts):
    nb = nbformat.read(notebooks.NOTEBOOK_DIR / f"{notebook}.ipynb", as_version=4)
    text = " ".join(next(c.source for c in nb.cells if c.get("id") == cell).split())
    assert said in text, f"{notebook} cell {cell} no longer says: {said}"
    assert ANSWERS[answer] == verdicts, answer


def _worker(gpu: bool) -> None:
    """A worker's start: no GPU, or a shorter limit for each run on it."""
    if gpu:
        run.RUN_LIMIT_S = 40   # the corpus's hangs need not take a learner's 90 s each
    else:
        check.gpu_available = lambda: False


def _verdict(answer: str):
    return check.report((CORPUS / answer).read_bytes(), _exercise_of(answer))


@functools.cache
def _verdicts(gpu: bool) -> dict:
    """Every answer's verdict, computed by the first test that asks, a few at a time, each
    answer in a worker process of its own (spawned: no CUDA state inherited), as a learner's
    check runs."""
    workers = int(os.environ.get("CHECK_WORKERS", 8 if gpu else os.cpu_count() or 2))
    pool = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker,
        initargs=(gpu,))
    # the answers that hang first, so that their waits overlap the others' work
    order = sorted(ANSWERS, key=lambda a: (a not in HANGS, a))
    verdicts = {a: pool.submit(_verdict, a) for a in order}
    pool.shutdown(wait=False)
    return verdicts


def _expect(verdict, word: str, fragment) -> None:
    """``fragment``: a piece of the English verdict, or a tuple of the pieces it may hold."""
    pieces = fragment if isinstance(fragment, tuple) else (fragment,)
    assert verdict.en.startswith(word) and any(p in verdict.en for p in pieces), verdict.en
    assert HANGUL.search(verdict.ko), verdict.ko


@pytest.mark.slow
@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_corpus_without_a_gpu(answer):
    word, fragment, _, _ = ANSWERS[answer]
    _expect(_verdicts(False)[answer].result(), word, fragment)


@pytest.mark.gpu
@pytest.mark.timeout(1200, method="thread")
@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_corpus_on_the_gpu(answer):
    from kernels.device import target_arch
    ex = exercises.get(_exercise_of(answer))
    word, fragment, gpu_word, gpu_fragment = ANSWERS[answer]
    if target_arch() >= ex.run_arch:
        if target_arch() < ex.arch and gpu_word == "NOT YET" and word != "NOT YET":
            pytest.skip("its mistake shows only where the copies are asynchronous (sm_80+)")
        word, fragment = gpu_word, gpu_fragment
    if target_arch() < ex.arch and answer in MANIFEST["SM80_ONLY"]:
        word, fragment = "COMPILES, NOT RUN", "cannot build it"
    verdict = _verdicts(True)[answer].result()
    print(f"{answer}: {verdict.en}")
    _expect(verdict, word, fragment)
