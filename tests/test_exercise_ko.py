"""The exercise check's verdicts in Korean (kernels/teach/exercise_ko.py): every verdict the check
gives to the corpus (tests/exercise_corpus/, without a GPU), to the skeletons and the solutions,
to odd answers, and the GPU run's verdicts (built here from exercise.py's own functions and
f-strings: no GPU needed) translate by the table, not the fallback, keeping every number, code
span and piece of code; and korean() never raises, whatever text it is given."""

import collections
import concurrent.futures
import functools
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

from kernels.teach import exercise, exercise_ko

CORPUS = Path(__file__).parent / "exercise_corpus"
MANIFEST = runpy.run_path(str(CORPUS / "manifest.py"))
SLOW_COMPILES = MANIFEST.get("SLOW_COMPILES", set())
HEAVY = MANIFEST["HEAVY"]
KO_FRAMES = dict(exercise_ko.FRAMES)


@functools.cache
def _corpus_verdicts() -> dict[str, tuple[str, str]]:
    """(English, Korean) of every corpus answer, skeleton and solution, checked once, without a
    GPU, a few at a time (each check mostly waits for its compiles, separate processes); an
    answer whose compile never ends gets 5 s, as in tests/test_exercise.py, and those whose
    checks take seconds (the manifest's HEAVY) are checked alone first."""
    jobs = {str(p.relative_to(CORPUS)): (p.read_text(), p.parent.name)
            for p in sorted(CORPUS.glob("*/*.cu"))}
    for name in exercise.EXERCISES:
        jobs[f"skeleton:{name}"] = (exercise.skeleton(name), name)
        jobs[f"solution:{name}"] = (exercise.solution(name), name)
    saved = exercise.gpu_available, exercise.COMPILE_LIMIT_S
    exercise.gpu_available = lambda: False
    try:
        out = {}
        slow = [job for job in jobs if job in SLOW_COMPILES]
        exercise.COMPILE_LIMIT_S = 5
        for job in slow:
            out[job] = exercise.report(*jobs[job])
        exercise.COMPILE_LIMIT_S = saved[1]
        for job in sorted(HEAVY):   # alone: under load they would meet another limit
            out[job] = exercise.report(*jobs[job])
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            futures = {job: pool.submit(exercise.report, *jobs[job])
                       for job in jobs if job not in out}
            out.update({job: f.result() for job, f in futures.items()})
    finally:
        exercise.gpu_available, exercise.COMPILE_LIMIT_S = saved
    return {job: (said.en, said.ko) for job, said in out.items()}


# Verdicts that need a GPU (or a failure) to happen, built from exercise.py's own pieces ----------

def _wrong_outputs() -> list[str]:
    """Messages of exercise._wrong: NaN and wrong values at each kind of position, with and
    without stages and blocks, and under the stress build with each exercise's advice."""
    out = []
    n, tile, k = 100, 32, 5
    x = np.linspace(1.0, 2.0, n)
    bound = np.full(n, 1e-6)
    for i in (0, 1, 31, 33, 50, 98, 99):   # left end, boundaries, inside, right end
        for value in (np.nan, 1234.5678, -0.000123456, np.inf):
            y = x.astype(np.float32)
            y[i] = value
            y[min(i + 7, n - 1)] = 0.0
            case = dict(n=n, tile=tile, k=k, threads=32, jitter=False, launches=1)
            out.append(exercise._wrong(y, x, bound, case, 0))
            out.append(exercise._wrong(y, x, bound, dict(case, stages=2, blocks=2), 0))
            out.append(exercise._wrong(y, x, bound, dict(case, stages=3), 0))
            for ex in exercise.EXERCISES.values():
                out.append(exercise._wrong(y, x, bound, dict(
                    case, jitter=True, launches=exercise.STRESS_LAUNCHES, advice=ex.advice,
                    stages=ex.stress.stages, blocks=ex.stress.blocks), 5))
            out.append(exercise._wrong(y, x, bound, dict(case, jitter=True, launches=8), 0))
            for ex in exercise.EXERCISES.values():
                if ex.slow:
                    out.append(exercise._wrong(y, x, bound, dict(
                        case, jitter=True, host_input=True, launches=exercise.SLOW_LAUNCHES,
                        advice=ex.slow_advice, blocks=ex.slow.blocks), 1))
    return out


def _gpu_verdicts() -> list[str]:
    said = []
    for ex in exercise.EXERCISES.values():
        summaries = {ex.summary, ex.summary.replace(
            "then a block barrier", "then an mbarrier wait (its thread count is not checked)")}
        # what run_cases says when all is right, from the cases the run launches (on an sm_75
        # GPU no host-memory run: the check says why instead)
        gpus = []
        for arch in {ex.run_arch or 75, 90}:
            cases = [dict(case._asdict(), jitter=stress, launches=launches, host_input=slow)
                     for case, stress, launches, slow in exercise._runs(ex, arch)]
            gpus.append(exercise._all_correct(cases) + (
                "; " + exercise.SYNCHRONOUS.format(arch=arch, ptx_arch=ex.ptx_arch)
                if ex.slow and arch < ex.ptx_arch else ""))
        for summary in summaries:
            static = f"compiles with NVRTC, and {summary}"
            said += [f"PASSED: {static}; {gpu}; {exercise.NOT_CHECKED}." for gpu in gpus]
            if ex.run_arch:
                said.append(f"COMPILES, NOT RUN: {static}; running it needs sm_{ex.run_arch} or "
                            f"newer, and the book runs as sm_80 here{exercise._would_run(ex)}.")
        for case in ex.cases[:3]:
            stages = f", {case.stages} stages" if case.stages else ""
            said.append(f"NOT YET: it does not compile with tile={case.tile}, K={case.k}{stages}: "
                        "line 12, `x_s[j] = x[g]`: identifier \"x_s\" is undefined")
            said.append(f"NOT YET: it crashed on the GPU (n={case.n}, tile={case.tile}, "
                        f"K={case.k}): cudaErrorIllegalAddress: an illegal memory access was "
                        "encountered")
            # a configuration's own PTX refused (the GPU run reads every build's)
            said.append(f"NOT YET: built at tile={case.tile}, K={case.k}, {case.threads} threads"
                        f"{stages} (the check builds it at several sizes, and each build must be "
                        "the same kernel: a condition on the sizes is refused; static_assert what "
                        "your code needs): " + ex.steps[0].missing)
    said += [f"NOT YET: {m}" for m in _wrong_outputs()]
    said += [
        "NOT YET: it did not finish within 60 s on the GPU: a loop that never ends, a barrier "
        "that some threads never reach, or a bulk copy whose bytes never all arrive?",
        "NOT YET: the GPU run failed (exit 1): ModuleNotFoundError: No module named 'cupy'",
        "NOT YET: the GPU run failed (exit -9): no output",
    ]
    return said


def _failures() -> list[str]:
    """The check's other messages, as its f-strings make them: real calls where cheap (the text
    checks, the exercise's name, the GPU runner's plumbing), the rest from the source."""
    src = exercise.solution("async_halo")
    real = [
        exercise.report(None), exercise.report(12), exercise.report([1, 2, 3]),
        exercise.report(b"\xff\xfe bad bytes"), exercise.report("int x;\0"),
        exercise.report("a\n\ud800"), exercise.report("x" * (65 * 1024)),
        exercise.report(src, "nope"), exercise.report(src, "bulkk"),
        exercise.report(src, None), exercise.report(src, "Double_Buffer"),
        exercise.report("int a; \\  \nint b;"), exercise.report('auto s = R"x(a\\\nb)x";'),
        exercise.report("int a = 1 \\ 2;"),
        exercise.report("#define CONV_TILE 64\n"), exercise.report("#embed <x>\n"),
        exercise.report("#import <x>\n"), exercise.report("#pragma\n"),
        exercise.report("#frobnicate\n"), exercise.report("#ifdef CONV_JITTER\n#endif\n"),
        exercise.report("int __pipeline_commit;"),
        exercise.report("#include <cooperative_groups/memcpy_async.h>\n"),
    ]
    made = [
        "NOT YET: the compiler failed (exit 1): RuntimeError: NVRTC is missing",
        "NOT YET: the compiler failed (exit -9): no output",
        "NOT YET: the compiler stopped without a word: try again",
        "NOT YET: it does not compile: in <cuda/pipeline>, line 120: expected an expression",
        "NOT YET: it does not compile: line 30, `cuda::memcpy_async(&x_s[j], x + g, 4, pipe);`: "
        "no instance of overloaded function \"cuda::memcpy_async\" matches the argument list "
        "(in <cuda/__memcpy_async/memcpy_async.h>)",
        "NOT YET: it does not compile: (no message)",
        f"NOT YET: its PTX is too large to check (more than {exercise.MAX_INSTRUCTIONS} "
        "instructions, functions inlined): an exercise's kernel is much shorter; take out what "
        "it does not need",
        "NOT YET: its PTX is too large to check (its functions take too long to follow): an "
        "exercise's kernel is much shorter; take out what it does not need",
        "NOT YET: its PTX is too large to check (17 MiB): an exercise's kernel is much shorter; "
        "take out what it does not need",
        "NOT YET: there is no __global__ kernel; the check launches conv1d_bulk: keep extern "
        "\"C\" __global__ void conv1d_bulk(const float* x, const float* w, float* y, int n)",
        "NOT YET: its mbarrier.try_wait.parity.shared::cta.b64 is in no loop: each block walks "
        "over its tiles (for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x)) and "
        "waits for each tile's copies in that loop",
        "NOT YET: its stress build does not wait at all the skeleton's PHASE() points (under "
        "-DCONV_JITTER each of PHASE(0), PHASE(4) compiles to a random wait; its PTX reads the "
        "clock 3 times, not 6): leave every PHASE() line where the skeleton has it, in code "
        "that runs, and the names of the common header as they are",
        "NOT CHECKED: the check itself failed (KeyError: 'sm_90'); please report it.",
        "NOT CHECKED: the check itself failed (RuntimeError: a \\'quoted\\' text; with a "
        "semicolon); please report it.",
    ]
    # every step's messages, and the note on dead code
    for ex in exercise.EXERCISES.values():
        for step in ex.steps:
            for message in (step.missing, step.misplaced):
                if message:
                    made.append(f"NOT YET: {message}")
                    made.append(f"NOT YET: {message} (The PTX lists bar.sync, but no path from "
                                "the kernel's entry runs it: a branch jumps over it, or its "
                                "predicate is always false.)")
    return [str(getattr(s, "en", s)) for s in real] + made


@functools.cache
def _synthetic() -> list[str]:
    # a call tree too large to follow (the instruction cap comes first in the corpus)
    calls = ("NOT YET: its PTX is too large to check (more than "
             f"{exercise.MAX_CALLS} calls of its functions): an exercise's kernel is much "
             "shorter; take out what it does not need")
    # the static checks past the check's deadline (test_exercise.py makes one)
    slow = (f"NOT YET: {exercise._too_large('its checks take too long')}")
    return sorted(set(_gpu_verdicts() + _failures() + [calls, slow]))


# What a translation must keep ------------------------------------------------------------------

CODE_SPAN = re.compile(r"`[^`\n]*`")
# the parts of an English verdict that stay English in Korean: the learner's code, the compiler's
# and CUDA's words, what the answer was, C++ snippets, formulas
VERBATIM = [
    re.compile(r"it does not compile[^:]*: (?:line \d+, `[^\n]*?`: |in \S+, line \d+: )?(.*?)"
               r"(?: \(in [^\s()]+\))?$"),
    re.compile(r"still says FILL IN \(replace the marker line with your code\): (.*)$"),
    re.compile(r"it crashed on the GPU \([^)]*\): (.*)$"),
    re.compile(r"failed \(exit -?\d+\): (.*)$"),
    re.compile(r"the check itself failed \((.*)\); please report it\.$"),
    re.compile(r"got (.*)$"),
    re.compile(r"unknown exercise (.*?): choose"),
    re.compile(r"did you mean (.*)\?$"),
    re.compile(r"line \d+: (.*) is (?:refused|not offered)"),   # the last: a line may say it
]
SNIPPETS = [exercise.SIGNATURE, "i mod tile", "issue_tile(x_s[stage ^ 1], x, n, next, pipe)",
            "for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x)",
            'asm volatile("fence.proxy.async.shared::cta;" ::: "memory")',
            "cuda::memcpy_async(dst, src, cuda::aligned_size_t<16>(bytes), bar)"]
WORD = re.compile(r"[a-z]+")


def _verbatim(en: str) -> list[str]:
    parts = CODE_SPAN.findall(en) + SNIPPETS
    for pattern in VERBATIM:
        parts += [m.group(1) for m in pattern.finditer(en) if m.group(1)]
    return sorted(parts, key=len, reverse=True)


def _prose(en: str, ko: str) -> str:
    """The Korean, without what stays English."""
    for part in _verbatim(en):
        ko = ko.replace(part, " ")
    return ko


def _english_runs(text: str) -> list[str]:
    """Runs of 3 or more lowercase English words (punctuation round a word aside)."""
    runs, run = [], []
    for token in text.split() + [""]:
        if WORD.fullmatch(token.strip("()[],.;:!?\"'")):
            run.append(token)
            continue
        if len(run) >= 3:
            runs.append(" ".join(run))
        run = []
    return runs


def _assert_translated(en: str, ko: str) -> None:
    assert exercise_ko.translate(en) == ko, (en, ko)
    assert exercise_ko.FALLBACK_NOTE not in ko, en
    frame = next(f for f in KO_FRAMES if en.startswith(f))
    assert ko.startswith(KO_FRAMES[frame]), (en, ko)
    assert collections.Counter(re.findall(r"\d+", en)) == collections.Counter(
        re.findall(r"\d+", ko)), (en, ko)
    assert collections.Counter(CODE_SPAN.findall(en)) == collections.Counter(
        CODE_SPAN.findall(ko)), (en, ko)
    prose = _prose(en, ko)
    assert not _english_runs(prose), (_english_runs(prose), en, ko)
    assert ";" not in prose, (en, ko)          # ko_style.md: no semicolons in Korean prose
    assert re.search("[가-힣]", prose), ko
    assert "\n" not in ko


@pytest.mark.parametrize("job", sorted(
    [str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*.cu")]
    + [f"{kind}:{name}" for name in exercise.EXERCISES for kind in ("skeleton", "solution")]))
def test_every_verdict_of_the_check_translates(job):
    en, ko = _corpus_verdicts()[job]
    _assert_translated(en, ko)


def test_verdicts_of_the_gpu_and_of_failures_translate():
    for en in _synthetic():
        _assert_translated(en, exercise_ko.korean(en))


def test_every_template_is_used():
    """Each rule of the tables translates at least one verdict above (a rule nothing uses is
    a template that drifted from exercise.py's English)."""
    used = set()
    apply = exercise_ko.Rule.apply

    def recording(rule, text):
        out = apply(rule, text)
        if out is not None:
            used.add(id(rule))
        return out

    exercise_ko.Rule.apply = recording
    try:
        for en in _synthetic() + [en for en, _ in _corpus_verdicts().values()]:
            exercise_ko.translate(en)
    finally:
        exercise_ko.Rule.apply = apply
    tables = [v for v in vars(exercise_ko).values() if hasattr(v, "rules")]
    unused = {rule.en for t in tables for rule in t.rules if id(rule) not in used}
    assert not unused, unused


def test_the_frames():
    assert exercise_ko.korean("PASSED: x").startswith("통과: ")
    assert dict(exercise_ko.FRAMES) == {"PASSED: ": "통과: ", "NOT YET: ": "아직: ",
                                        "COMPILES, NOT RUN: ": "컴파일됨, 실행 안 함: ",
                                        "NOT CHECKED: ": "검사 못 함: "}


@pytest.mark.parametrize("junk", [
    "", " ", "NOT YET: ", "NOT YET:", "PASSED: ", "PASSED: .", "PASSED: ;;;.", "hello",
    "NOT YET: something new the table has never seen", "COMPILES, NOT RUN: a; b; c.",
    "NOT YET: line 7: ", "NOT YET: line x still says FILL IN", "NOT YET: it does not compile: ",
    "NOT YET: it does not compile: line 3, `unclosed: what", "NOT CHECKED: (((", "PASSED: ))))",
    "NOT YET: {braces} {0} {name} %s %(x)s", "NOT YET: \\1 \\g<0> $1", "\0\ud800\U0010ffff",
    "NOT YET: " + "a" * 100_000, "PASSED: " + "(" * 50_000 + ".",
    "NOT YET: " + "line 1: " * 5_000 + "is refused: x",
    "NOT YET: under the stress build (warps wait at random at the PHASE() points), launch 1 of "
    "8, garbage. A race: a warp read a buffer before its copies had landed, or after it was "
    "refilled. Advice nobody wrote.",
    "NOT YET: n=1, tile=2, K=3, 4 threads: 5 wrong outputs; the first, y[0], is 7, expected 8, "
    "somewhere else",
    "PASSED: compiles with NVRTC, and its sm_80 PTX has something else; fine.",
    "아직: 이미 한국어",
])
def test_korean_never_raises(junk):
    said = exercise_ko.korean(junk)
    assert isinstance(said, str)
    if junk.strip() and exercise_ko.translate(junk) is None:
        assert exercise_ko.FALLBACK_NOTE in said and junk.split(": ", 1)[-1] in said
        frame = next((f for f in KO_FRAMES if junk.startswith(f)), None)
        assert frame is None or said.startswith(KO_FRAMES[frame])


def test_korean_of_what_is_not_a_string_does_not_raise():
    for odd in (None, 3, b"PASSED: x", object()):
        assert isinstance(exercise_ko.korean(odd), str)
