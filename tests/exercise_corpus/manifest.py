"""What the exercise check must say about each answer in this folder.

Every answer is the skeleton (kernels/exercises/async_halo_skeleton.cu) with its two FILL IN
places filled in, right or wrong, and sometimes a line of the rest changed. For each file:
(verdict without a GPU, a fragment of that message, verdict on a GPU, a fragment of that one).
tests/test_exercise.py runs every answer through ``exercise.report``.

Answers whose mistake only shows when the kernel runs (no halo, off by one, a wait in one thread,
writing nothing, a loop that never ends) compile and pass the PTX checks: without a GPU they are
"COMPILES, NOT RUN". Missing or misplaced waits and barriers are caught from the PTX everywhere.
"""

NOT_YET, COMPILES, PASSED = "NOT YET", "COMPILES, NOT RUN", "PASSED"
RIGHT = (COMPILES, "running it needs a GPU", PASSED, "correct on the GPU for all")


def everywhere(fragment: str) -> tuple:
    """Refused before anything runs: the same message with and without a GPU."""
    return (NOT_YET, fragment, NOT_YET, fragment)


def on_the_gpu(fragment: str) -> tuple:
    """Only running it shows the mistake."""
    return (COMPILES, "running it needs a GPU", NOT_YET, fragment)


ANSWERS = {
    # right, in several styles
    "ok_like_the_solution.cu": RIGHT,
    "ok_header_and_fill_in_comments_kept.cu": RIGHT,
    "ok_pragma_unroll.cu": RIGHT,
    "ok_while_loop.cu": RIGHT,
    "ok_other_names_blockdim.cu": RIGHT,
    "ok_reversed_loop.cu": RIGHT,
    "ok_zeros_in_a_separate_loop.cu": RIGHT,
    "ok_aligned_size_and_wait_prior.cu": RIGHT,
    "ok_inline_ptx_cp_async.cu": RIGHT,
    "ok_space_before_paren.cu": RIGHT,
    "ok_syncthreads_count.cu": RIGHT,
    "ok_extra_barrier_and_helper.cu": RIGHT,
    # wrong, and the text or the PTX says so on any machine
    "fill_in_left.cu": everywhere("line 39 still says FILL IN"),
    "missing_wait.cu": everywhere("never waits for its copies"),
    "missing_barrier.cu": everywhere("call __syncthreads() after pipe.consumer_wait()"),
    "barrier_before_wait.cu": everywhere("it synchronises before it waits"),
    "synchronous_copy.cu": everywhere("copies nothing asynchronously"),
    "wrong_kernel_name.cu": everywhere("the kernel is named conv1d_async_halo2"),
    "name_only_in_a_comment.cu": everywhere("the kernel is named my_conv"),
    "not_extern_c.cu": everywhere('lost its extern "C"'),
    "wrong_signature.cu": everywhere("must keep its parameters"),
    "does_not_compile.cu": everywhere('it does not compile: line 40, `__syncthreads();`: '
                                      'expected a ";"'),
    "does_not_compile_in_a_template.cu": everywhere(
        'it does not compile: line 26, `if (g >= 0 && g < n) cuda::memcpy_async(x_s[j], x[g], '
        'sizeof(float), pipe);`: no instance of overloaded function "cuda::memcpy_async"'),
    "includes_the_solution.cu": everywhere('line 7: #include "async_halo.cu" is refused'),
    "includes_the_solution_by_path.cu": everywhere('#include "../kernels/async_halo.cu" is '
                                                   'refused'),
    "includes_a_system_file.cu": everywhere('line 7: #include "/etc/passwd" is refused'),
    "includes_an_absolute_path.cu": everywhere("line 7: #include </etc/hostname> is refused"),
    "includes_through_a_macro.cu": everywhere("line 8: #include MINE is refused"),
    # wrong, and only running it shows how
    "no_halo.cu": on_the_gpu("wrong outputs"),
    "halo_off_by_one.cu": on_the_gpu("wrong outputs"),
    "buffer_one_short.cu": on_the_gpu("wrong outputs"),
    "wait_in_one_thread_only.cu": on_the_gpu("wrong outputs"),
    "writes_nothing.cu": on_the_gpu("never written (NaN)"),
    "never_finishes.cu": on_the_gpu("did not finish within"),
}

# GPU verdicts that hold only where the copies are asynchronous, sm_80 and newer: on a T4 (sm_75)
# cuda::memcpy_async copies synchronously, so a missing wait is no race, and inline cp.async
# does not compile.
SM80_ONLY = {"ok_inline_ptx_cp_async.cu", "wait_in_one_thread_only.cu"}
