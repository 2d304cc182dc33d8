"""The exercise: the skeleton fails the check, the solution passes it, the notebook's copy of the
skeleton is the file's, and the check's messages say what is wrong."""

import nbformat
import pytest

import kernels
from kernels import exercise, notebooks

NOTEBOOK = notebooks.NOTEBOOK_DIR / "03_async_copy_convolution.ipynb"


def test_notebook_holds_the_skeleton_verbatim():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if c.source.startswith('my_kernel = r"""'))
    assert cell.source == 'my_kernel = r"""\n' + exercise.skeleton() + '"""'


def test_skeleton_fails_the_check():
    with pytest.raises(exercise.ExerciseError, match="FILL IN"):
        exercise.check_async_halo(exercise.skeleton())


def test_solution_passes_the_check():
    verdict = exercise.check_async_halo(kernels.source("async_halo"))
    assert "correct on the GPU" in verdict if kernels.gpu_available() else "needs a GPU" in verdict


def test_a_synchronous_answer_is_rejected():
    sync = kernels.source("tiled_sync").replace("conv1d_tiled_sync", "conv1d_async_halo")
    with pytest.raises(exercise.ExerciseError, match="no cp.async"):
        exercise.check_async_halo(sync)


def test_a_renamed_kernel_is_rejected():
    with pytest.raises(exercise.ExerciseError, match="name and signature"):
        exercise.check_async_halo(kernels.source("async_halo").replace("conv1d_async_halo", "mine"))


def test_a_syntax_error_shows_the_compiler_log():
    bad = kernels.source("async_halo").replace("pipe.consumer_wait();", "pipe.consumer_wait(;")
    with pytest.raises(kernels.CompileError, match="error"):
        exercise.check_async_halo(bad)


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
    src = kernels.source("async_halo")
    assert old in src
    with pytest.raises(exercise.ExerciseError, match=expected):
        exercise.check_async_halo(src.replace(old, new))


def test_report_never_raises_and_says_what_is_missing():
    """What the notebook prints: "Run all" must go on past an unfinished exercise."""
    assert exercise.report(exercise.skeleton()).startswith("NOT YET: line 21 still says FILL IN")
    bad = kernels.source("async_halo").replace("pipe.consumer_wait();", "pipe.consumer_wait(;")
    verdict = exercise.report(bad)
    assert verdict.startswith("NOT YET: it does not compile: line ") and "error" in verdict
    assert "site-packages" not in verdict and "\n" not in verdict
    solved = exercise.report(kernels.source("async_halo"))
    assert solved.startswith("PASSED: " if kernels.gpu_available() else "COMPILES, NOT RUN: ")


def test_a_comment_that_mentions_fill_in_is_not_a_marker():
    """The skeleton's header says 'where it says FILL IN'; keeping it in an answer is fine."""
    src = "// Complete it where it says FILL IN.\n" + kernels.source("async_halo")
    assert exercise.report(src).startswith("PASSED: " if kernels.gpu_available() else "COMPILES")
