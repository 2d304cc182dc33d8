"""What the exercise check must say about each answer in this folder.

One folder per exercise (kernels/teach/exercise.py's EXERCISES): every answer is that exercise's
skeleton (kernels/exercises/*_skeleton.cu) with its FILL IN places filled in, right or wrong,
and sometimes a line of the rest changed. For each file: (verdict without a GPU, a fragment of
that message, verdict on a GPU, a fragment of that one). tests/test_exercise.py runs every answer
through ``exercise.report``.

Answers whose mistake only shows when the kernel runs (no halo, off by one, a wait in one thread,
writing nothing, a loop that never ends, the wrong buffer) compile and pass the PTX checks:
without a GPU they are "COMPILES, NOT RUN". Missing or misplaced waits and barriers are caught
from the PTX everywhere. The bulk exercise runs on sm_90 only: on an older GPU its GPU verdict is
the one without a GPU, saying that running it needs sm_90.
"""

NOT_YET, COMPILES, PASSED = "NOT YET", "COMPILES, NOT RUN", "PASSED"
RIGHT = (COMPILES, "running it needs a GPU", PASSED, "correct on the GPU for all")


def everywhere(fragment: str) -> tuple:
    """Refused before anything runs: the same message with and without a GPU."""
    return (NOT_YET, fragment, NOT_YET, fragment)


def on_the_gpu(fragment: str | tuple[str, ...], needs: str = "a GPU") -> tuple:
    """Only running it shows the mistake (a tuple: any of those fragments)."""
    return (COMPILES, f"running it needs {needs}", NOT_YET, fragment)


# what the double buffer's refill check says: round the tile loop, an ld.shared reaches a cp.async
# with no block barrier in between
REFILL = "no block barrier between the compute's reads of a buffer and the copy that refills it"

# what the double buffer's run with x in host memory (Exercise.slow) says of a wait that leaves
# the batch the compute reads in flight
SLOW = "with its input in host memory (each copy takes microseconds to land)"

# what the double buffer's batch check says of a commit that only some threads make (a branch on
# threadIdx round it): their wait_prior<1> leaves the tile they read in flight
SKIPPED = "some threads skip the loop's commit while others make it"

# what the warp-specialised check says of a release some compute threads may skip (a branch on
# threadIdx, the lane or a flag round the arrival on empty[s], or a barrier chosen by the lane)
PARTIAL_RELEASE = ("a compute thread that has read buffer s may not arrive on empty[s] after its "
                   "reads")

# The bulk copy runs on sm_90 only: without a GPU its check says so.
BULK_RIGHT = (COMPILES, "running it needs sm_90 or newer", PASSED, "correct on the GPU for all")


ANSWERS = {
    # right, in several styles
    "async_halo/ok_like_the_solution.cu": RIGHT,
    "async_halo/ok_header_and_fill_in_comments_kept.cu": RIGHT,
    "async_halo/ok_pragma_unroll.cu": RIGHT,
    "async_halo/ok_while_loop.cu": RIGHT,
    "async_halo/ok_other_names_blockdim.cu": RIGHT,
    "async_halo/ok_reversed_loop.cu": RIGHT,
    "async_halo/ok_zeros_in_a_separate_loop.cu": RIGHT,
    "async_halo/ok_aligned_size_and_wait_prior.cu": RIGHT,
    "async_halo/ok_inline_ptx_cp_async.cu": RIGHT,
    "async_halo/ok_space_before_paren.cu": RIGHT,
    "async_halo/ok_syncthreads_count.cu": RIGHT,
    "async_halo/ok_extra_barrier_and_helper.cu": RIGHT,
    # wrong, and the text or the PTX says so on any machine
    "async_halo/fill_in_left.cu": everywhere("line 39 still says FILL IN"),
    "async_halo/missing_wait.cu": everywhere("never waits for its copies"),
    "async_halo/missing_barrier.cu": everywhere("call __syncthreads() after pipe.consumer_wait()"),
    "async_halo/barrier_before_wait.cu": everywhere("it synchronises before it waits"),
    "async_halo/synchronous_copy.cu": everywhere("copies nothing asynchronously"),
    "async_halo/wrong_kernel_name.cu": everywhere("the kernel is named conv1d_async_halo2"),
    "async_halo/name_only_in_a_comment.cu": everywhere("the kernel is named my_conv"),
    "async_halo/not_extern_c.cu": everywhere('lost its extern "C"'),
    "async_halo/wrong_signature.cu": everywhere("must keep its parameters"),
    "async_halo/does_not_compile.cu": everywhere('it does not compile: line 40, `__syncthreads();`: '
                                      'expected a ";"'),
    "async_halo/does_not_compile_in_a_template.cu": everywhere(
        'it does not compile: line 26, `if (g >= 0 && g < n) cuda::memcpy_async(x_s[j], x[g], '
        'sizeof(float), pipe);`: no instance of overloaded function "cuda::memcpy_async"'),
    "async_halo/includes_the_solution.cu": everywhere('line 7: #include "async_halo.cu" is refused'),
    "async_halo/includes_the_solution_by_path.cu": everywhere('#include "../kernels/async_halo.cu" is '
                                                   'refused'),
    "async_halo/includes_a_system_file.cu": everywhere('line 7: #include "/etc/passwd" is refused'),
    "async_halo/includes_an_absolute_path.cu": everywhere("line 7: #include </etc/hostname> is refused"),
    "async_halo/includes_through_a_macro.cu": everywhere("line 8: #include MINE is refused"),
    # wrong, and only running it shows how
    "async_halo/no_halo.cu": on_the_gpu("wrong outputs"),
    "async_halo/halo_off_by_one.cu": on_the_gpu("wrong outputs"),
    "async_halo/buffer_one_short.cu": on_the_gpu("wrong outputs"),
    "async_halo/wait_in_one_thread_only.cu": on_the_gpu("wrong outputs"),
    "async_halo/writes_nothing.cu": on_the_gpu("never written (NaN)"),
    "async_halo/never_finishes.cu": everywhere("a loop that never ends: no path from its "
                                               "cp.async.ca.shared.global reaches the end"),
    # exercise 2, the double buffer: right, in several styles
    "double_buffer/ok_like_the_solution.cu": RIGHT,
    "double_buffer/ok_barrier_at_the_top.cu": RIGHT,
    "double_buffer/ok_other_index_arithmetic.cu": RIGHT,
    "double_buffer/ok_commit_only_when_there_is_a_next.cu": RIGHT,
    # wrong
    "double_buffer/missing_refill_barrier.cu": everywhere(REFILL),
    "double_buffer/missing_wait.cu": everywhere("never waits for its copies"),
    "double_buffer/same_buffer.cu": on_the_gpu("wrong outputs"),
    "double_buffer/next_tile_off.cu": on_the_gpu("wrong outputs"),
    # exercise 3, the bulk copy: right
    "bulk/ok_like_the_solution.cu": BULK_RIGHT,
    "bulk/ok_arrive_and_wait.cu": BULK_RIGHT,
    # wrong
    "bulk/never_initialised.cu": everywhere("its barriers are never initialised"),
    "bulk/missing_init_fence.cu": everywhere("fence.proxy.async must come after init"),
    "bulk/plain_loads_for_all.cu": everywhere("it issues no bulk copy"),
    "bulk/arrives_without_waiting.cu": everywhere("it never waits on the barrier"),
    "bulk/copy_to_the_start_of_the_buffer.cu": on_the_gpu("wrong outputs", "sm_90 or newer"),
    "bulk/one_arrival_too_many.cu": on_the_gpu("did not finish within", "sm_90 or newer"),

    # The include check reads the source as the preprocessor does (comments across lines, line
    # splices, digraphs, raw strings), and refuses whatever could open another file.
    "async_halo/includes_after_a_block_comment.cu": everywhere(
        'line 9: #include "../kernels/async_halo.cu" is refused: the kernel may include only'),
    "async_halo/includes_etc_passwd_after_a_block_comment.cu": everywhere(
        'line 9: #include "/etc/passwd" is refused: the kernel may include only'),
    "async_halo/includes_proc_environ.cu": everywhere(
        "line 8: #include </proc/self/environ> is refused: the kernel may include only"),
    "async_halo/includes_through_a_string_macro.cu": everywhere("line 9: #include F is refused: the kernel may include only"),
    "async_halo/includes_with_a_line_splice.cu": everywhere(
        'line 8: #include "../kernels/async_halo.cu" is refused: the kernel may include only'),
    "async_halo/includes_with_a_digraph.cu": everywhere(
        'line 8: %:include "../kernels/async_halo.cu" is refused: the kernel may include only'),
    "async_halo/includes_in_an_if_0_block.cu": everywhere(
        'line 9: #include "../kernels/async_halo.cu" is refused: the kernel may include only'),   # refused unread, all the same
    "async_halo/includes_after_a_raw_string.cu": everywhere(
        'line 9: #include "../kernels/async_halo.cu" is refused: the kernel may include only'),
    "async_halo/includes_with_a_trigraph.cu": everywhere("line 8 holds a trigraph"),
    "async_halo/has_include_probe.cu": everywhere("line 8: __has_include is refused"),
    "async_halo/pragma_include_alias.cu": everywhere("line 8: #pragma include_alias ( "),
    "async_halo/pragma_operator.cu": everywhere("line 8: _Pragma is refused"),
    "async_halo/token_pasting.cu": everywhere("line 8: ## (token pasting) is refused"),
    "async_halo/line_directive.cu": everywhere('line 8: #line 1 "/etc/passwd" is refused'),
    # 2.7 KB of macros that expand to 2**30 tokens: the compile is stopped (COMPILE_LIMIT_S)
    "async_halo/preprocessor_bomb.cu": everywhere("it did not compile within"),
    # The PTX checks read instructions: not comments in inline asm, not code compiled out.
    "async_halo/cp_async_in_an_asm_comment.cu": everywhere("copies nothing asynchronously"),
    "async_halo/cp_async_in_an_asm_block_comment.cu": everywhere("copies nothing asynchronously"),
    "async_halo/copy_in_an_if_0_block.cu": everywhere("copies nothing asynchronously"),
    "async_halo/wait_in_an_asm_comment.cu": everywhere("never waits for its copies"),
    "async_halo/name_in_an_asm_comment.cu": everywhere("the kernel is named my_conv"),
    "async_halo/xff_in_an_asm_comment.cu": everywhere("does not compile: ptxas fatal"),
    "double_buffer/refill_barrier_after_the_loop.cu": everywhere(REFILL),
    "bulk/init_fence_in_an_asm_comment.cu": everywhere("fence.proxy.async must come after init"),
    # Right answers that the old check refused: a .func helper, braces in inline PTX, a
    # cuda::barrier instead of the pipeline, a byte-order mark, a comment after an #include.
    "async_halo/ok_noinline_copy_helper.cu": RIGHT,
    "async_halo/ok_inline_ptx_wait_in_braces.cu": RIGHT,
    "async_halo/ok_cuda_barrier.cu": RIGHT,
    "async_halo/ok_byte_order_mark.cu": RIGHT,
    "async_halo/ok_comment_after_the_include.cu": RIGHT,
    # Dead code: a barrier or copy under a condition that is never true at run time (n < 0) is
    # in the PTX, and no static check can tell that it never runs; but a barrier under a
    # condition leaves a path from the copies to the compute's reads with none, and the PTX
    # shows that (READY, below).
    "async_halo/barrier_in_dead_code.cu": everywhere(
        "it reads shared memory before every thread's copies have landed"),
    # The double buffer's refill barrier is judged on every path round the tile loop: one under
    # a condition leaves a path from the compute's reads to the next copy with none.
    "double_buffer/refill_barrier_in_dead_code.cu": everywhere(REFILL),
    # A known gap: plain loads do the work and the copy in the PTX never runs. The outputs are
    # right, so the GPU run passes it; its verdict claims what was checked (the PTX has the
    # instructions, the outputs are right) and says what was not (that they run).
    "async_halo/copy_in_dead_code.cu": (COMPILES, "its sm_80 PTX has cp.async", PASSED,
                                        "not checked: that each of those instructions runs"),
}

# GPU verdicts that hold only where the copies are asynchronous, sm_80 and newer: on a T4 (sm_75)
# cuda::memcpy_async copies synchronously, so a missing wait is no race, and inline cp.async
# does not compile.
SM80_ONLY = {"async_halo/ok_inline_ptx_cp_async.cu", "async_halo/wait_in_one_thread_only.cu",
             "async_halo/ok_inline_ptx_wait_in_braces.cu",
             "async_halo/ok_wait_on_both_branches.cu",
             "async_halo/copy_listed_after_the_wait_by_asm_jumps.cu",
             "async_halo/copy_under_a_predicate_false_by_arithmetic.cu"}

# Answers that never finish: the GPU test gives them a shorter time limit.
HANGS = {"async_halo/never_finishes.cu", "bulk/one_arrival_too_many.cu",
         "warp_specialized/empty_wait_with_the_wrong_parity.cu",
         "warp_specialized/full_wait_with_the_wrong_parity.cu",
         "async_halo/barrier_count_256_in_hex.cu",
         "warp_specialized/release_previous_buffer_after_the_next_wait.cu",
         "warp_specialized/full_wait_before_the_loop_and_after_the_compute.cu",
         "warp_specialized/empty_wait_after_the_fill.cu",
         "bulk/parity_hardcoded_two_stages.cu", "bulk/parity_by_a_power_of_two_mask.cu"}

# Answers whose compile never ends: the tests give them a shorter compile limit.
SLOW_COMPILES = {"async_halo/preprocessor_bomb.cu"}

# Every GPU verdict below ran on the H200 (2026-12-01, the full corpus: 222 of 222 as filed, with
# 8 workers), those once marked "unverified" too, which were predictions until then.
# Found by a red team (see each entry).
ANSWERS.update({
    # F1: a comment is one space to the preprocessor, before directives are read: "#/*\n*/include"
    # is an #include. A comment across lines inside a directive is refused.
    "async_halo/includes_hash_comment_solution.cu": everywhere(
        "line 8: a comment that spans lines inside a directive"),
    "async_halo/includes_hash_comment_passwd.cu": everywhere(
        "line 8: a comment that spans lines inside a directive"),
    "async_halo/includes_hash_comment_hostname.cu": everywhere(
        "line 8: a comment that spans lines inside a directive"),
    "async_halo/includes_hash_comment_leak_passwd.cu": everywhere(
        "line 9: a comment that spans lines inside a directive"),
    "async_halo/includes_hash_comment_leak_hostname.cu": everywhere(
        "line 9: a comment that spans lines inside a directive"),
    "async_halo/includes_hash_comment_only_the_solution.cu": everywhere(
        "line 1: a comment that spans lines inside a directive"),
    "async_halo/includes_digraph_comment_passwd.cu": everywhere(
        "line 8: a comment that spans lines inside a directive"),
    # F2, F3: the PTX walk is bounded (2**15 calls of a function with 1 MB of inline asm), and
    # iterative (a chain of 1500 calls is a right answer; GPU verdict: confirmed, its stack held)
    "async_halo/ptx_too_large_to_walk.cu": everywhere("its PTX is too large to check"),
    "async_halo/ok_deep_call_chain.cu": RIGHT,   # GPU: confirmed (H200)
    # F4: a wait must wait and a block barrier must be one
    "async_halo/test_wait_once_as_wait_and_barrier.cu": everywhere(
        "or not for all of them"),
    "async_halo/named_barrier_one_warp.cu": everywhere("the PTX has no block barrier"),
    "async_halo/barrier_for_64_threads.cu": everywhere("the PTX has no block barrier"),
    "async_halo/wait_prior_1_one_batch.cu": everywhere("or not for all of them"),
    "async_halo/wait_group_1_in_asm.cu": everywhere("or not for all of them"),
    "async_halo/ok_syncthreads_or.cu": RIGHT,
    # one cuda::barrier per warp (init 32): wrong (wrong outputs on the H200); refused from
    # the PTX since 2026-12-02: each warp arrives on a barrier of its own (an address that
    # differs between the threads), which orders nothing for the other warps
    "async_halo/per_warp_cuda_barrier.cu": everywhere(
        "a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    # F6: the bulk copy's init barrier, refill barrier, fence state space, try_wait loop
    "bulk/no_barrier_after_init.cu": everywhere("no block barrier after the init and"),
    "bulk/missing_refill_barrier.cu": everywhere(
        "there is no block barrier between the compute's reads of a stage's buffer and the bulk "
        "copy that refills it"),
    "bulk/init_fence_global.cu": everywhere("fence.proxy.async must come after init"),
    "bulk/try_wait_once.cu": everywhere("no mbarrier.try_wait in a loop"),
    # F7: cp.async into a buffer nothing reads, plain loads fill x_s: the outputs are right, and
    # the verdict says what was not checked (GPU: confirmed)
    "async_halo/copy_into_an_unread_buffer.cu": (COMPILES, "its sm_80 PTX has cp.async", PASSED,
                                                 "that the copies feed the compute"),
    # F5: the double buffer's refill barrier is an order, not a count: round the tile loop, a
    # block barrier between the compute's ld.shared and the next cp.async. Two barriers after
    # the wait and none after the compute: refused. One barrier, after the wait and the
    # release, before the copy of the next tile into the other buffer: right (GPU: confirmed).
    "double_buffer/two_barriers_before_compute.cu": everywhere(REFILL),
    "double_buffer/ok_one_barrier_before_the_refill.cu": RIGHT,   # GPU: confirmed (H200)
    # F8: the toolkit's other copy APIs (the pipeline primitives, cooperative groups) are not in
    # libcu++, the only headers the check compiles with: told so before compiling, not with a
    # compiler error (right answers elsewhere, NOT YET here, on every machine)
    "async_halo/pipeline_primitives_not_offered.cu": everywhere(
        "line 27: __pipeline_memcpy_async (the pipeline primitives of the toolkit's "
        "<cuda_pipeline.h>) is not offered here: this check compiles with libcu++"),
    "async_halo/pipeline_primitives_header_not_offered.cu": everywhere(
        "line 7: #include <cuda_pipeline.h> is not offered here: this check compiles with "
        "libcu++ (<cuda/pipeline>, <cuda/barrier>)"),
    "async_halo/cooperative_groups_not_offered.cu": everywhere(
        "line 7: #include <cooperative_groups.h> is not offered here: this check compiles with "
        "libcu++ (<cuda/pipeline>, <cuda/barrier>) and conv1d_common.cuh only"),
})

# Issue #22: the PTX is judged along its control flow, not in the order it lists instructions.
# Dead code (a bra over an instruction, a guard that a setp on immediates makes false) issues
# nothing; "A then B" is "a path from A reaches B", and "B between A and C" is "on every path
# from A to C". GPU verdicts of the right answers: confirmed on the H200 later.
DEAD = "but no path from the kernel's entry runs it"
ANSWERS.update({
    # (a) dead code: branched over, or under a predicate that is constant false
    "async_halo/copy_branched_over_in_asm.cu": everywhere(
        "copies nothing asynchronously: on sm_80 the PTX has no cp.async. Copy with "
        "cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe). (The PTX lists "
        f"cp.async.ca.shared.global, {DEAD}: a branch jumps over it"),
    "async_halo/copy_skipped_with_goto.cu": everywhere("copies nothing asynchronously"),  # NVVM's
    "async_halo/copy_under_a_false_predicate_in_asm.cu": everywhere(
        "copies nothing asynchronously: on sm_80 the PTX has no cp.async. Copy with "
        "cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe). (The PTX lists "
        f"cp.async.ca.shared.global, {DEAD}"),
    "async_halo/copy_under_a_false_predicate_from_an_n_operand.cu": everywhere(   # "n"(0)
        f"(The PTX lists cp.async.ca.shared.global, {DEAD}"),
    "async_halo/wait_branched_over_in_asm.cu": everywhere(
        "it never waits for its copies, or not for all of them (the PTX has no "
        "cp.async.wait_all or cp.async.wait_group 0, nor an mbarrier wait in a loop; "
        "wait_group N and wait_prior<N> with N > 0 leave N batches in flight, and this kernel "
        "has one): call pipe.consumer_wait() in Phase 3, after the copies are committed. (The "
        f"PTX lists cp.async.wait_all, {DEAD}"),
    "async_halo/barrier_under_a_false_predicate.cu": everywhere(
        "the PTX has no block barrier, a bar.sync for all the block's threads, after "
        "cp.async.wait; one for fewer threads is not one): call "
        f"__syncthreads() after pipe.consumer_wait(). (The PTX lists bar.sync, {DEAD}"),
    "double_buffer/refill_barrier_branched_over_in_asm.cu": everywhere(REFILL),
    "bulk/init_fence_branched_over_in_asm.cu": everywhere(
        "fence.proxy.async must come after init and before the first bulk copy"),
    "bulk/init_barrier_under_a_false_predicate.cu": everywhere(
        "the PTX has no block barrier after the init and before the first bulk copy"),
    # (b) order: listed in order, run out of it (bra forward, then back)
    "async_halo/wait_run_before_the_copy.cu": everywhere(
        "it waits before its copies are issued (in the PTX, no cp.async.wait follows a "
        "cp.async on any path)"),
    "async_halo/barrier_run_before_the_wait.cu": everywhere(
        "it synchronises before it waits (in the PTX, no bar.sync follows a cp.async.wait on "
        "any path)"),
    "double_buffer/refill_barrier_run_after_the_copy.cu": everywhere(REFILL),
    # right, written in unusual ways: Phase 1 in a __noinline__ function with a loop and an
    # early return; a wait on both branches of an if; a barrier under a predicate that is
    # constant true, a bra over a named barrier; the copy listed after the wait and run before
    # it (the old check refused it); the double buffer's issue_tile not inlined
    "async_halo/ok_copy_loop_in_a_noinline_helper.cu": RIGHT,
    "async_halo/ok_wait_on_both_branches.cu": RIGHT,
    "async_halo/ok_barrier_under_a_true_predicate.cu": RIGHT,
    # jumps in inline asm that the compiler cannot see: the order of the listing is kept, but
    # what the compiler built around it no longer holds (on the H200: NaN outputs)
    "async_halo/copy_listed_after_the_wait_by_asm_jumps.cu": on_the_gpu("wrong outputs"),
    "double_buffer/ok_noinline_issue_tile_with_an_early_return.cu": RIGHT,
})

# Found playing the hostile learner once more (the static check's verdicts; the GPU ones confirmed on the H200 later)
ANSWERS.update({
    "async_halo/copy_under_a_false_predicate_from_an_r_operand.cu": everywhere(
        f"(The PTX lists cp.async.ca.shared.global, {DEAD}"),   # "r"(0): a mov, then setp
    "async_halo/copy_under_a_false_predicate_past_a_label.cu": everywhere(
        f"(The PTX lists cp.async.ca.shared.global, {DEAD}"),   # bra.uni to the next label
    "async_halo/exit_before_the_copy.cu": everywhere(
        f"(The PTX lists cp.async.ca.shared.global, {DEAD}"),
    "async_halo/exit_under_a_true_predicate.cu": everywhere(
        f"(The PTX lists cp.async.ca.shared.global, {DEAD}"),
    "async_halo/copy_helper_returns_first.cu": everywhere(    # ret in a __noinline__ helper
        f"(The PTX lists cp.async.ca.shared.global, {DEAD}"),
    "async_halo/trap_in_a_helper_before_the_wait.cu": everywhere(
        f"(The PTX lists cp.async.wait_group, {DEAD}"),
    "async_halo/barrier_under_a_false_float_predicate.cu": everywhere(
        f"(The PTX lists bar.sync, {DEAD}"),                     # 1.0 < 0.0, as 0f literals
    "async_halo/ok_barrier_under_a_float_predicate_negated.cu": RIGHT,   # @!p, p false
    "async_halo/ok_wait_helper_called_on_both_branches.cu": RIGHT,       # inlined twice
    # A gap the static check leaves, for the GPU run: a predicate false only by arithmetic
    # (constants are read from setp and mov, not computed)
    "async_halo/copy_under_a_predicate_false_by_arithmetic.cu": on_the_gpu("wrong outputs"),
    # the wait and barrier run in the first round of a loop whose second round copies: a path
    # from that copy reaches the compute's reads through no barrier (READY, below)
    "async_halo/copy_after_the_wait_round_a_loop.cu": everywhere(
        "it reads shared memory before every thread's copies have landed"),
})

# Found by a red team once more: the shared-memory reads must come after the copies are ready
# (exercise.py's READY steps): in async_halo, on every path from a copy to a read, its commit,
# a wait and then a block barrier; in the double buffer, a block barrier before the first read;
# in the bulk copy, a barrier wait before the first read, and the refill barrier between the
# reads and the refill (an order, as the double buffer's). A barrier whose count is a register
# set to another immediate is no block barrier; one of the other 15, with no count, is.
READY_FRESH = "it reads shared memory before every thread's copies have landed"
ANSWERS.update({
    "async_halo/barrier_after_the_compute.cu": everywhere(READY_FRESH),
    "async_halo/wait_after_the_compute.cu": everywhere(READY_FRESH),
    "async_halo/barrier_in_the_first_warp_only.cu": everywhere(READY_FRESH),
    "async_halo/wait_before_the_commit.cu": everywhere(READY_FRESH),
    "async_halo/reads_before_the_wait.cu": everywhere(READY_FRESH),
    "async_halo/copies_again_after_the_barrier.cu": everywhere(READY_FRESH),
    "async_halo/barrier_count_in_a_register.cu": everywhere("the PTX has no block barrier"),
    "async_halo/ok_named_barrier_for_the_whole_block.cu": RIGHT,   # GPU: passed (H200, 2026-12-01)
    "double_buffer/no_barrier_between_the_wait_and_the_compute.cu": everywhere(
        "it reads a buffer before the block has synchronised"),
    "bulk/waits_after_the_compute.cu": everywhere(
        "it reads a buffer before waiting on its barrier"),
    "bulk/only_thread_0_waits.cu": everywhere("it reads a buffer before waiting on its barrier"),
    "bulk/refill_barrier_before_the_compute.cu": everywhere(
        "there is no block barrier between the compute's reads of a stage's buffer and the bulk "
        "copy that refills it"),
})

# Exercise 4, the producer warp's hand-off (sm_90 only, like the bulk copy). The three hand-offs
# show in the PTX as mbarrier waits and an arrival in their places; which barrier and which
# parity each names is data, so a wrong parity or a wrong count only shows when it runs.
WS = "warp_specialized/"
WS_NOT_RUN = "running it needs sm_90 or newer"
ANSWERS.update({
    WS + "ok_like_the_solution.cu": BULK_RIGHT,
    WS + "ok_release_without_the_fence.cu": BULK_RIGHT,   # CUTLASS's consumers only arrive
    WS + "ok_parity_by_remainder.cu": BULK_RIGHT,
    WS + "ok_waits_in_helpers.cu": BULK_RIGHT,            # __noinline__: .func bodies followed
    WS + "missing_empty_wait.cu": everywhere(
        "the producer refills a buffer without waiting for it to be empty"),
    WS + "missing_full_wait.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "full_wait_after_the_compute.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    # the exercise asks every compute thread to wait: lanes 1-31 here read without
    WS + "full_wait_in_lane_0_only.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "missing_release.cu": everywhere("the compute warps never hand a buffer back"),
    # round 0 waits for the phase before the first, complete at once: the compute reads buffers
    # the copy has not filled, and the barriers' phases fall out of step with the fills; on the
    # H200 (2026-12-01) one run crashed (a block ended with its bulk copies still writing into
    # its shared memory), another never finished: either is NOT YET, with its own message
    WS + "full_wait_with_the_wrong_parity.cu": on_the_gpu("", "sm_90 or newer"),
    # round 0 waits for a phase of empty[s] that needs the fill it guards: never ends
    WS + "empty_wait_with_the_wrong_parity.cu": on_the_gpu("did not finish within",
                                                         "sm_90 or newer"),
    # the producer may refill the buffer while the compute reads it: a race
    WS + "release_before_the_compute.cu": on_the_gpu("wrong outputs", "sm_90 or newer"),
    # one arrival of CONV_THREADS: empty[s] never completes, the producer waits once the ring wraps
    WS + "release_by_thread_0_only.cu": everywhere(   # refused from the PTX since 2026-12-02
        PARTIAL_RELEASE),
})

# Found by a third red team (2026-12-01): waits and reads the PTX hid (an mbarrier wait the copies
# never arrive on, a wait loop that ignores the wait's result, atomics that read shared memory,
# wait_prior<2> with two buffers, functions called through a pointer, which the check cannot
# follow and refuses), macros that switched the stress build off, and labels that made the PTX
# reader quadratic; with right answers in styles it had not seen.
POINTER = "it calls a function through a pointer"
ANSWERS.update({
    "async_halo/waits_on_an_unrelated_mbarrier.cu": everywhere("it never waits for its copies, or not for all of them"),
    "async_halo/atomic_reads_before_the_wait.cu": everywhere(READY_FRESH),
    "async_halo/compute_through_a_function_pointer.cu": everywhere(POINTER),
    "async_halo/wait_through_a_function_pointer.cu": everywhere(POINTER),
    # bar.sync 0, 0x100 is a block barrier at 256 threads (the PTX build's), no other: the
    # blocks of 64 and 32 threads wait at it for ever (H200, 2026-12-01); since the seventh red
    # team the check reads a build of 64 threads too, and refuses it there
    "async_halo/barrier_count_256_in_hex.cu": everywhere("built at tile=96, K=7, 64 threads"),
    "async_halo/ok_noinline_wait_and_barrier_helpers.cu": RIGHT,
    "async_halo/ok_asm_wait_and_barrier_with_a_label.cu": RIGHT,
    "async_halo/undefines_the_stress_build.cu": everywhere("#undef CONV_JITTER is refused"),
    "async_halo/empties_phase_and_waits_in_thread_0.cu": everywhere("#undef PHASE is refused"),
    "async_halo/ok_2e15_long_labels_in_one_asm.cu": RIGHT,
    "double_buffer/wait_prior_2_waits_for_nothing.cu": everywhere("with N > 1 leave every batch in flight"),
    "double_buffer/wait_prior_1_before_the_next_commit.cu": on_the_gpu("wrong outputs"),
    "double_buffer/compute_through_a_function_pointer.cu": everywhere(POINTER),
    "double_buffer/atomic_reads_and_no_refill_barrier.cu": everywhere(REFILL),
    "double_buffer/ok_forever_loop_and_a_barrier_helper.cu": RIGHT,
    "bulk/test_wait_loop_that_ignores_the_result.cu": everywhere("it never waits on the barrier"),
    "bulk/atomic_reads_before_the_wait.cu": everywhere("it reads a buffer before waiting on its barrier"),
    "bulk/refill_through_a_function_pointer.cu": everywhere(POINTER),
    "bulk/ok_init_and_barrier_in_helpers.cu": BULK_RIGHT,
})

# Found by a fourth red team (2026-12-01): the previous fixes' ways round (a call through an asm
# register, an unrelated mbarrier arrival after the wait, a poll loop whose exit ignores the
# result), the producer warp's hand-offs (one wait before the loop, a producer read standing in
# for the compute's), the stress build switched off without #undef (PHASE lines deleted,
# conv_jitter or clock64 redefined, push_macro, a condition on the build's sizes), CUTLASS's
# label loops refused, and 10,000 unread waits that took 104 s to read.
ANSWERS.update({
    "warp_specialized/full_wait_once_before_the_loop.cu": everywhere("wait for a fill outside the tile loop only"),
    "warp_specialized/poll_loop_that_ignores_the_result.cu": everywhere("the producer refills a buffer without waiting"),
    "warp_specialized/no_release_but_a_producer_read.cu": everywhere("the compute warps never hand a buffer back"),
    "warp_specialized/ok_cutlass_label_loop.cu": BULK_RIGHT,
    "warp_specialized/ok_asm_loop_branching_on_not_p.cu": BULK_RIGHT,
    "warp_specialized/ok_release_by_arrive_expect_tx_0.cu": BULK_RIGHT,
    "warp_specialized/ok_cuda_ptx_wrappers.cu": BULK_RIGHT,
    "async_halo/defines_conv_jitter_away.cu": everywhere("conv_jitter belongs to the check"),
    "async_halo/phase_lines_deleted.cu": everywhere("PHASE(0) point is gone"),
    "async_halo/push_and_pop_macro_phase.cu": everywhere("#pragma push_macro"),
    "async_halo/wait_only_in_the_checked_build.cu": everywhere("every build the check makes must be the same kernel"),
    "async_halo/defines_clock64.cu": everywhere("clock64 belongs to the check"),
    "async_halo/unrelated_mbarrier_wait_arrival_after_it.cu": everywhere("it never waits for its copies"),
    "async_halo/read_before_the_wait_by_an_asm_indirect_call.cu": everywhere(POINTER),
    # a timing probe (it took 104 s to read before, then 1.1 s); since the seventh red team a
    # PTX with more than MAX_WAITS mbarrier waits is refused unread
    "async_halo/unread_test_waits_10000.cu": everywhere("10000 mbarrier waits, more than the 2000"),
})

# Found by a fifth red team (2026-12-01): the stress build emptied without touching a macro (PHASE
# points in #if 0 or a string, conv_jitter shadowed by a lambda: the check now counts the clock
# reads of the learner's own stress build), an mbarrier arrival before the copies it should
# track, the producer's wait moved out of its loop, retry loops that leave once the phase has
# NOT completed or branch nowhere; and right answers it refused: retry loops with a __nanosleep
# back-off, whose first try the compiler peels off the loop. GPU verdicts of the three right
# answers: confirmed on the H200 in the next session.
JITTER = "its stress build does not wait at all the skeleton's PHASE() points"
ANSWERS.update({
    "async_halo/phase_points_in_if_0.cu": everywhere(JITTER),
    "async_halo/lambda_shadows_conv_jitter.cu": everywhere(JITTER),
    "async_halo/phase_points_in_a_string.cu": everywhere(JITTER),
    "async_halo/mbarrier_arrival_before_the_copies.cu": everywhere("it never waits for its copies"),
    "warp_specialized/empty_wait_after_the_producer_loop.cu": everywhere("the producer refills a buffer without waiting"),
    "warp_specialized/retry_loop_inverted.cu": everywhere("the compute warps read a buffer before waiting for its fill"),
    "warp_specialized/retry_branch_to_the_next_instruction.cu": everywhere("the compute warps read a buffer before waiting for its fill"),
    "bulk/lambda_shadows_conv_jitter.cu": everywhere(JITTER),
    "warp_specialized/phase_points_in_if_0.cu": everywhere(JITTER),
    "warp_specialized/ok_cuda_ptx_try_wait_do_while.cu": BULK_RIGHT,
    "warp_specialized/ok_try_wait_with_nanosleep_backoff.cu": BULK_RIGHT,
    "async_halo/ok_test_wait_with_nanosleep_backoff.cu": RIGHT,
})

# Found by a sixth red team (2026-12-01): PHASE points killed one at a time and their clock reads
# made up elsewhere (the check now also finds each enabled point's hash in the stress build), a
# retry loop whose result passes through a __noinline__ helper's return value (followed now); an
# #if/#error guard on the sizes is refused with a pointer to static_assert. GPU verdicts of the
# three right answers: confirmed on the H200 in the next session.
ANSWERS.update({
    "double_buffer/phase_5_in_dead_code.cu": everywhere(JITTER),
    "async_halo/phase_4_dead_and_phase_0_twice.cu": everywhere(JITTER),
    "warp_specialized/early_release_with_phase_4_dead.cu": everywhere(JITTER),
    "warp_specialized/dead_phases_and_own_clock_reads.cu": everywhere(JITTER),
    "warp_specialized/ok_noinline_try_helper.cu": BULK_RIGHT,
    "warp_specialized/ok_for_ever_with_return_and_backoff.cu": BULK_RIGHT,
    "async_halo/error_guard_on_the_sizes.cu": everywhere("use static_assert"),
    "double_buffer/ok_static_assert_on_the_sizes.cu": RIGHT,
})

# Left by the sixth red team as gaps for the GPU run to decide, filed in the seventh session: a
# double buffer whose loop refills with plain loads and stores (the same outputs, no overlap:
# refused from the PTX now), a producer merged into the compute's loop with no empty wait (it
# refills buffers the compute still reads), an empty barrier that counts the producer's lanes
# too (its phase never completes once the ring wraps).
ANSWERS.update({
    "double_buffer/refill_by_plain_stores.cu": everywhere("in the tile loop it copies nothing asynchronously"),
    "warp_specialized/merged_loop_without_an_empty_wait.cu": on_the_gpu("", "sm_90 or newer"),
    "warp_specialized/empty_barrier_counts_the_producer_too.cu": on_the_gpu("did not finish within",
                                                                           "sm_90 or newer"),
})
HANGS |= {"warp_specialized/merged_loop_without_an_empty_wait.cu",
          "warp_specialized/empty_barrier_counts_the_producer_too.cu"}

# Found by a seventh red team (2026-12-01, 24 attempts): 100,000 mbarrier waits that took 57 s
# to read (now refused past MAX_WAITS), a double buffer that copies its loop's tiles with plain
# loads or waits for the next tile too (no overlap: refused from the PTX), a wait only at the
# sizes the PTX is read from (a C++ `if` on CONV_TILE: the check now reads a second build, at
# other sizes, and on a GPU every configuration's), .relaxed waits and releases (refused: no run
# shows the ordering they drop), and right bulk answers it refused (a fence before each copy,
# every thread fencing after the barrier). Three wrong double buffers that the PTX cannot tell
# from right ones go to the GPU run: a barrier only at the top of the loop, a copy issued without
# its commit, a commit per element. One is performance only and passes everywhere: the next
# tile issued after the compute (right outputs, no overlap; the verdict does not claim overlap).
ANSWERS.update({
    "double_buffer/wait_prior_0_waits_for_the_next_tile_too.cu": everywhere("in the tile loop it waits for every batch, the next tile's too"),
    # PASSED once and failed once on the H200 (2026-12-01): a race the stress build catches by
    # luck; now refused from the PTX (every path from the loop's wait to a read passes a barrier)
    "double_buffer/barrier_at_the_top_only.cu": everywhere("it reads a buffer after its wait but before a block barrier"),
    # both PASSED on the H200, the commit per copy with a second stress build of four copies a
    # thread too (2026-12-01): now refused from the PTX
    "double_buffer/issues_without_a_commit.cu": everywhere("its copies in the tile loop are never committed before the wait"),
    "double_buffer/a_commit_per_element.cu": everywhere("it commits more than one batch between two waits"),
    "double_buffer/issues_the_next_tile_after_the_compute.cu": RIGHT,
    "double_buffer/ok_prologue_wait_and_a_wait_at_the_bottom.cu": RIGHT,
    "double_buffer/ok_wait_prior_1.cu": RIGHT,
    "bulk/ok_fence_before_each_copy.cu": BULK_RIGHT,
    "bulk/ok_every_thread_fences_after_the_barrier.cu": BULK_RIGHT,
    "bulk/fence_in_thread_0_after_the_init_barrier.cu": everywhere("put the fence in the init's own if (threadIdx.x == 0)"),
    "bulk/ok_memcpy_async_tx.cu": BULK_RIGHT,
    "bulk/ok_init_and_fence_in_two_ifs.cu": BULK_RIGHT,
    "bulk/ok_cuda_ptx_fence.cu": BULK_RIGHT,
    "warp_specialized/ok_empty_wait_skipped_in_round_0.cu": BULK_RIGHT,
    "warp_specialized/relaxed_full_wait.cu": everywhere("a .relaxed mbarrier operation orders no memory"),
    "warp_specialized/relaxed_release.cu": everywhere("a .relaxed mbarrier operation orders no memory"),
    "async_halo/unlooped_waits_100000.cu": everywhere("its PTX is too large to check"),
    "async_halo/waits_only_at_the_checked_sizes.cu": everywhere("built at tile=96, K=7, 64 threads"),
    "async_halo/ok_zero_fill_by_src_size.cu": RIGHT,
})

# Found by an eighth red team (2026-12-01, 21 attempts): the stress build told apart from the
# others (#ifdef of the header's CONV_JITTER_POINTS: refused; a stringized PHASE() or an
# overload of conv_jitter: every build the check makes is now a stress build, so the kernel
# judged is the one that runs, and these pass as the solution they are there); a wait only in
# blocks of 256 threads, or under n < 0, with a long spin instead (the PTX has the wait, the
# spin hides the race: PASSED on a GPU, whose verdict says "not checked: that each of those
# instructions runs on every path"); a call tree inlined to 190,000 instructions (now refused
# past MAX_INSTRUCTIONS, 50,000: ten seconds of reading before); right answers: waiting for
# this tile with wait_prior<0> and then issuing the next (refused before), and others.
ANSWERS.update({
    "double_buffer/ok_wait_prior_0_then_issue_the_next_tile.cu": RIGHT,
    "double_buffer/tells_the_stress_build_by_ifdef.cu": everywhere("#ifdef CONV_JITTER_POINTS is refused"),
    "double_buffer/wrong_except_in_the_stress_build_by_stringizing.cu": RIGHT,
    "double_buffer/wrong_except_in_the_stress_build_by_overload.cu": RIGHT,
    "async_halo/waits_only_in_blocks_of_256_spins_elsewhere.cu": RIGHT,
    "async_halo/wait_under_n_below_0_spins_instead.cu": RIGHT,
    "double_buffer/call_tree_of_190000_instructions.cu": everywhere("its PTX is too large to check"),
    "double_buffer/ok_consumer_wait_then_issue_the_next_tile.cu": RIGHT,
    "double_buffer/ok_wait_prior_1_or_0_at_the_last_tile.cu": RIGHT,
    "bulk/ok_wait_parity.cu": BULK_RIGHT,
    "bulk/ok_try_wait_parity_loop.cu": BULK_RIGHT,
    "warp_specialized/ok_empty_wait_in_lane_0_then_syncwarp.cu": BULK_RIGHT,
    "warp_specialized/ok_wait_with_a_hang_detector.cu": BULK_RIGHT,
    "warp_specialized/ok_release_per_warp_with_count_32.cu": BULK_RIGHT,
})

# Found by a ninth red team (2026-12-01, 17 attempts): right double buffers the new rules refused
# (a cuda::barrier per buffer: its wait is the barrier, its copies arrive instead of committing:
# accepted now), the new rules' lists unfiltered (a dummy arrival, a one-shot test_wait, a dummy
# retry loop counted: now the steps' own filtered waits and barriers), a relaxed release written
# as an arrival expecting 0 bytes (refused: only the bare expect_tx may be relaxed). Not run on a
# GPU (no device time was left): the GPU verdicts of the two wrong ones the PTX cannot tell from
# right ones are predictions. Refused though right, as known limits: the next tile issued at the
# top and committed after the compute (its message is literally true of the PTX), a relaxed
# poll followed by fence.acq_rel (said to order nothing, which the fence makes untrue).
ANSWERS.update({
    "double_buffer/ok_a_cuda_barrier_per_buffer.cu": RIGHT,
    "double_buffer/ok_a_cuda_barrier_per_buffer_and_syncthreads.cu": RIGHT,
    "double_buffer/ok_prologue_issues_two_tiles.cu": RIGHT,
    "double_buffer/ok_empty_batch_in_a_second_if.cu": RIGHT,
    "double_buffer/ok_unroll_2_tile_loop.cu": RIGHT,
    "double_buffer/ok_prologue_wait_and_wait_prior_0_at_the_bottom.cu": RIGHT,
    "double_buffer/ok_wait_all_in_asm_then_issue.cu": RIGHT,
    "double_buffer/consumer_wait_twice_no_overlap.cu": RIGHT,   # right outputs, no overlap
    "double_buffer/no_commit_but_an_mbarrier_arrival.cu": everywhere("its copies in the tile loop are never committed before the wait"),
    "double_buffer/commit_per_element_and_a_test_wait.cu": everywhere("it commits more than one batch between two waits"),
    "double_buffer/top_barrier_only_and_a_test_wait.cu": everywhere("it reads a buffer after its wait but before a block barrier"),
    "double_buffer/wait_prior_0_and_a_dummy_retry_loop.cu": everywhere("in the tile loop it waits for every batch"),
    # right: the next tile flies from the top of the loop; its batch is closed after the
    # compute, before the next round's wait (once refused: "never committed before the wait")
    "double_buffer/issue_at_the_top_commit_after_the_compute.cu": RIGHT,
    # a wait that covers the wrong batch: only copies that land late show it (both PASSED the
    # H200's stress build, 8 launches at each of two sizes)
    "double_buffer/commit_first_then_wait_then_issue.cu": on_the_gpu(SLOW),
    "double_buffer/commit_only_with_a_next_and_wait_prior_1.cu": on_the_gpu(SLOW),
    "warp_specialized/relaxed_release_by_expect_tx_0.cu": everywhere("a .relaxed mbarrier operation orders no memory"),
    "warp_specialized/relaxed_wait_with_acq_rel_fences.cu": everywhere("a .relaxed mbarrier operation orders no memory"),
})

# The tenth red team: a compile error a million characters long (the log's lines are read to
# 600 characters: it took minutes in a quadratic pattern), mbarrier parities that wait in half
# the rounds (the host-memory run, for bulk too), commits only where a thread has copies (the
# host-memory run's last tile leaves whole warps without any), taps stored after a
# cuda::barrier's arrival, integers in hex and barrier ids in registers in inline PTX, a
# wait_prior<0> before the next tile's commit (it overlaps), and right answers in other styles.
ANSWERS.update({
    "async_halo/static_assert_message_of_a_million_characters.cu": everywhere("static assertion failed"),
    "async_halo/cuda_barrier_taps_stored_after_the_arrival.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "async_halo/ok_asm_barrier_id_in_a_register.cu": RIGHT,
    "async_halo/ok_asm_hex_barrier.cu": RIGHT,
    "async_halo/ok_asm_hex_wait_and_barrier.cu": RIGHT,
    "async_halo/ok_group_memcpy_async_with_its_own_group.cu": RIGHT,
    "bulk/ok_barrier_arrive_tx.cu": BULK_RIGHT,
    "bulk/ok_group_memcpy_async.cu": BULK_RIGHT,
    "bulk/expect_tx_in_floats_not_bytes.cu": on_the_gpu("", "sm_90 or newer"),
    # a wait with the wrong parity in half the rounds: the phases fall behind and the block
    # hangs (on the H200, both); waiting on bar[0] always, the host-memory run shows it
    "bulk/wait_parity_0_every_round.cu": on_the_gpu("did not finish within", "sm_90 or newer"),
    "bulk/wait_parity_of_the_round_not_of_the_stage_round.cu": on_the_gpu("did not finish within", "sm_90 or newer"),
    "bulk/waits_on_bar_0_always.cu": on_the_gpu(SLOW, "sm_90 or newer"),
    "double_buffer/ok_block_pipeline_acquire_as_the_refill.cu": RIGHT,
    "double_buffer/ok_block_pipeline_two_barriers.cu": RIGHT,
    "double_buffer/ok_asm_wait_group_hex_1.cu": RIGHT,
    "double_buffer/ok_issue_wait_prior_0_then_commit.cu": RIGHT,
    "double_buffer/ok_noinline_wait_helper.cu": RIGHT,
    "double_buffer/commit_only_with_own_copies_wait_prior_1.cu": everywhere(SKIPPED),
    # the same skip, its condition hidden: a __noinline__ helper, a volatile local, shared memory
    "double_buffer/commit_skipped_by_a_noinline_helper_of_threadidx.cu": everywhere(SKIPPED),
    "double_buffer/commit_skipped_by_threadidx_through_a_volatile_local.cu": everywhere(SKIPPED),
    "double_buffer/commit_skipped_by_threadidx_through_shared_memory.cu": everywhere(SKIPPED),
    # a commit skipped by the whole block alike (no next tile), wait_prior<0> on the last: right
    "double_buffer/ok_commit_only_while_a_next_tile_exists.cu": RIGHT,
    # the thirteenth red team: buffers read through a table of pointers (float* bufs[2] in
    # local memory: the compute's loads are generic ld.f32, not ld.shared), and a bulk answer that
    # arrives before its plain stores (its wait orders nothing those stores wrote)
    "double_buffer/buffer_table_barrier_at_the_top_only.cu": everywhere(
        "it reads a buffer after its wait but before a block barrier"),
    "double_buffer/buffer_table_no_commit_in_the_loop.cu": everywhere(
        "its copies in the tile loop are never committed before the wait"),
    "double_buffer/helper_compute_barrier_at_the_top_only.cu": everywhere(
        "it reads a buffer after its wait but before a block barrier"),
    "double_buffer/ok_buffer_table.cu": RIGHT,
    "bulk/arrive_in_issue_tile_before_the_plain_stores.cu": everywhere(
        "a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "bulk/ok_arrive_at_the_end_of_issue_tile.cu": BULK_RIGHT,
    "async_halo/static_assert_message_made_of_verdict_pieces.cu": everywhere(
        "static assertion failed with"),
    # the fourteenth red team: a skip whose flag only control flow sets (a scan that breaks, a
    # helper that returns true or false), and right answers the skip rule must let through: a
    # thread that commits only its own copies but waits with pipe.consumer_wait() (it picks the
    # wait by its own count), a uniform skip with a __noinline__ issue_tile (its registers are
    # its own); bulk answers whose arrivals and waits go through helpers, pointers and tokens
    "double_buffer/commit_skipped_by_a_flag_set_in_a_loop_wait_prior_1.cu": everywhere(SKIPPED),
    "double_buffer/commit_skipped_by_a_noinline_scan_with_early_return_wait_prior_1.cu":
        everywhere(SKIPPED),
    "double_buffer/ok_commit_only_with_own_copies_consumer_wait.cu": RIGHT,
    "double_buffer/ok_uniform_skip_consumer_wait_noinline_issue_tile.cu": RIGHT,
    "bulk/ok_noinline_arrive_and_wait_by_pointer.cu": BULK_RIGHT,
    "bulk/ok_noinline_arrive_helper_and_wait.cu": BULK_RIGHT,
    "bulk/ok_noinline_issue_tile.cu": BULK_RIGHT,
    "bulk/ok_tokens_in_a_local_array.cu": BULK_RIGHT,
    "bulk/ok_noinline_wait_parity_helper.cu": BULK_RIGHT,
    # the fifteenth red team: uniform skips the taint must see as uniform (helpers' arguments
    # and results are each call's own, a vote on what all threads agree on, an early return
    # past the end, __syncthreads_or), a decoy wait_prior<2> that makes no consumer_wait()
    "double_buffer/ok_noinline_has_next_wait_current_source_index.cu": RIGHT,
    "double_buffer/ok_warp_vote_on_a_block_uniform_condition.cu": RIGHT,
    "double_buffer/ok_early_return_block_skip_split.cu": RIGHT,
    "double_buffer/ok_syncthreads_or_skip_split.cu": RIGHT,
    "double_buffer/ok_noinline_wait_helper_skip_on_last.cu": RIGHT,
    "double_buffer/wrong_own_copies_wait_prior_1_decoy_wait_prior_2.cu": everywhere(SKIPPED),
    "double_buffer/wrong_own_copies_wait_prior_1_else_consumer_wait.cu": everywhere(SKIPPED),
    # a known limit: right (the copy loop breaks before copying on the last tile, and then the
    # commit and the wait_prior<1> are skipped alike), refused because the check does not follow
    # which way the loop's branches went: a path through a copy and no commit exists in the PTX
    "double_buffer/ok_last_flag_in_issue_loop.cu": everywhere(
        "its copies in the tile loop are never committed before the wait"),
    # the sixteenth red team: async_halo's zeros stored after the barrier (one buffer: another
    # warp reads them unordered) pass the static check, a known limit (a rule that refused
    # them refused a thread's stores into a cell it alone reads too, and was taken out); and in
    # the producer warp's hand-off, what the static check leaves to the run (on the H200,
    # 2026-12-02, the whole corpus: 350 of 352 as predicted; the two predicted to give wrong
    # outputs deadlocked instead, filed as they ran).
    # A wait that gives up after so many tries (no trap) is no wait, refused. One that releases
    # the previous buffer after the next fill's wait deadlocks at 1 stage with several tiles per
    # block (the run launches that now: 16 blocks over 64 tiles); a wait before the loop beside
    # one after the compute, and an empty wait after the fill, are for the runs to catch (both
    # deadlock: a wait for a phase that has passed, or for a release that comes after it)
    "async_halo/zeros_stored_after_the_barrier.cu": RIGHT,
    WS + "release_previous_buffer_after_the_next_wait.cu": on_the_gpu("did not finish within",
                                                                      "sm_90 or newer"),
    WS + "full_wait_capped_spin_no_trap.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "full_wait_capped_at_4_tries.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "full_wait_before_the_loop_and_after_the_compute.cu": on_the_gpu(
        "did not finish within", "sm_90 or newer"),
    WS + "empty_wait_after_the_fill.cu": on_the_gpu("did not finish within", "sm_90 or newer"),
    # right, refused: lane 0 waits on full[s] and __syncwarp() passes the order on (the check
    # asks every compute thread to wait); a store to a shared word nobody reads before the loop
    # (the check cannot tell it from the buffer the wait orders), 4,000 of them checked in time
    WS + "full_wait_in_lane_0_then_syncwarp.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "many_shared_scratch_words_4000.cu": everywhere(
        "a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    # the seventeenth red team (right answers only; on the H200 as filed, 2026-12-02):
    # libcu++'s timed waits in a loop (try_wait_for leaves its own spin for the learner's loop,
    # which tries again), a thread's own shared cell written after the barrier; known limits,
    # right and refused: a volatile done flag, a bounded-spin helper under a sleeping loop
    "bulk/ok_try_wait_for_loop.cu": BULK_RIGHT,
    "bulk/ok_try_wait_parity_for_loop.cu": BULK_RIGHT,
    "bulk/ok_try_wait_for_do_while.cu": BULK_RIGHT,
    "bulk/ok_try_wait_for_with_a_sleep.cu": BULK_RIGHT,
    "async_halo/ok_sum_in_its_own_shared_cell.cu": RIGHT,
    "async_halo/ok_output_staged_in_its_own_shared_cell.cu": RIGHT,
    "async_halo/ok_shared_counter_after_the_barrier.cu": RIGHT,
    "bulk/ok_volatile_done_flag_refused.cu": everywhere(
        "it reads a buffer before waiting on its barrier"),
    "bulk/ok_bounded_spin_helper_then_sleep_refused.cu": everywhere(
        "it never waits on the barrier"),
    WS + "ok_volatile_done_flag_refused.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    "double_buffer/extra_empty_commit_after_the_barrier.cu": on_the_gpu(SLOW),
    "warp_specialized/full_wait_parity_of_the_tile_count.cu": on_the_gpu("", "sm_90 or newer"),
    # the tap stores come after the first round's producer arrivals (a block-scope pipeline, no
    # __syncthreads: NaN outputs on the H200; refused from the PTX since the eleventh red team:
    # the loop's arrivals on the other barrier name no wait); the producer's empty wait in
    # lane 0 only (a crash on the H200)
    "double_buffer/block_pipeline_taps_after_the_first_arrival.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "warp_specialized/empty_wait_in_lane_0_without_syncwarp.cu": on_the_gpu("it crashed on the GPU", "sm_90 or newer"),
    # wrong, and out of reach: a wait in lane 0 of each warp (cp.async.wait_group is per thread
    # in PTX, but the hardware waits per warp: no run shows it); PASSED says "not checked: that
    # each of those instructions runs on every path"
    "double_buffer/wait_in_lane_0_of_each_warp.cu": RIGHT,
    "async_halo/wait_in_lane_0_of_each_warp.cu": RIGHT,
})

# The eleventh red team: a wait_group 0 beside an uncommitted dummy copy (the next tile's
# committed batch is waited for all the same), taps stored after the arrival with a dummy
# barrier's arrival between (an arrival counts only where a wait names its token or its
# barrier), barrier counts and ids in registers that are not the block's (min(blockDim.x, 32),
# one id per warp), a __syncthreads_count in PTX whose predicate has no %, and a right answer
# still refused (a store into the other buffer after arriving, before the wait: the message
# says what the PTX has, not that nothing orders it).
ANSWERS.update({
    "double_buffer/wait_all_and_a_dummy_uncommitted_copy.cu": everywhere("in the tile loop it waits for every batch"),
    "double_buffer/wait_all_commit_under_n_positive.cu": everywhere("in the tile loop it waits for every batch"),
    "async_halo/taps_after_the_arrival_and_a_dummy_arrival.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "async_halo/bar_sync_count_32_in_a_register.cu": everywhere("the PTX has no block barrier"),
    "async_halo/bar_sync_per_warp_ids.cu": everywhere("the PTX has no block barrier"),
    "async_halo/bar_sync_per_warp_ids_no_count.cu": everywhere("the PTX has no block barrier"),
    "async_halo/bar_red_popc_count_32.cu": everywhere("the PTX has no block barrier"),
    "async_halo/ok_bar_red_popc_named_predicate.cu": RIGHT,
    "async_halo/ok_bar_red_popc_percent_predicate.cu": RIGHT,
    # right, refused: the store of the other buffer's zeros comes after arriving on this
    # buffer's barrier (which buffer a store fills is not the PTX's to say)
    "double_buffer/arrive_then_issue_then_wait_refused.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
})

# The twelfth red team: the taps stored after the arrival, past the store rule by a dummy
# barrier that one test_wait names (a wait counts only in its retry loop: the next wait's
# result, written to the same predicate, no longer makes the single test look like a peeled
# first try) or by red.shared.and and .or (a store too); right answers with asm barriers in
# registers beside __noinline__ helpers.
ANSWERS.update({
    "async_halo/taps_after_the_arrival_dummy_named_by_one_test.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "async_halo/taps_after_the_arrival_by_red_and_or.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    # (an atomic on the taps is a read of an array no copy fills: the store rule refuses it)
    "async_halo/taps_after_the_arrival_by_atomic_exch.cu": everywhere("a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "async_halo/ok_noinline_helpers_and_asm_barrier_count_register.cu": RIGHT,
    "async_halo/ok_noinline_helper_and_asm_barrier_id_register.cu": RIGHT,
})

# The eighteenth red team (2026-12-02). Right answers in learners' styles: a shared word or the
# taps read after a barrier but before the first wait, a counter only thread 0 touches, a
# warp's vote round its waits (__all_sync: every lane's own try succeeded), all passed now
# (reads of an array no copy fills need a barrier, not the copies' wait); two known limits,
# right and refused: thread 0's counter read before any barrier (the check cannot tell it is
# thread 0's own), the first tile issued and committed in round 0 beside the next (two commits
# between waits: the rule that refuses a commit per copy). Wrong ones: a refill ordered by a
# cuda::barrier whose arrival comes before the compute (refused now: the wait orders nothing),
# lane 0 releasing its warp's buffer with no __syncwarp() (refused now: no run can show it),
# a vote of any lane (refused: it gives up), parities right only at 2 stages or at a power of
# two (caught by the runs now: 1 to 4 stages each with several rounds, the host-memory run at
# 3 stages), and four the runs catch. On the H200 (2026-12-02), with the new configurations:
# async_halo's five new answers and the bulk answers up to only_thread_0_waits.cu (54 in all)
# as filed, then 14 more (the wrong ones the runs catch, 7 new right ones). Not run with them,
# predicted: four new right double buffers (barrier_inside_the_issue_helper,
# noinline_compute_helper, syncthreads_count_sanity_check, while_true_round_counter), two
# warp-specialised (test_wait_loops_and_arrive_state, try_wait_with_suspend_time_hint), and
# the older double-buffer and warp-specialised answers (do_while_tile_loop and
# explicit_acquire_release_semantics PASSED in a later run).
ANSWERS.update({
    "async_halo/ok_cuda_barrier_idle_threads_leave_after_arriving.cu": RIGHT,
    "async_halo/ok_lambda_copy_and_template_helper.cu": RIGHT,
    "async_halo/ok_one_memcpy_async_by_thread_0.cu": RIGHT,
    "async_halo/ok_raw_ptx_mbarrier.cu": RIGHT,
    "async_halo/ok_shared_debug_counter.cu": RIGHT,
    "bulk/ok_copy_by_the_last_thread.cu": BULK_RIGHT,
    "bulk/ok_cuda_ptx_cp_async_bulk.cu": BULK_RIGHT,
    "bulk/ok_cuda_ptx_init_and_mbarrier_init_fence.cu": BULK_RIGHT,
    "bulk/ok_parallel_init_one_thread_per_stage.cu": BULK_RIGHT,
    "bulk/ok_raw_ptx_bulk_copy_native_handle.cu": BULK_RIGHT,
    "bulk/ok_warp_vote_wait_loop.cu": BULK_RIGHT,
    "bulk/ok_while_loop_over_tiles_and_arrive_and_wait.cu": BULK_RIGHT,
    "double_buffer/ok_barrier_inside_the_issue_helper.cu": RIGHT,
    "double_buffer/ok_cuda_barrier_as_block_barrier.cu": RIGHT,
    "double_buffer/ok_do_while_tile_loop.cu": RIGHT,
    "double_buffer/ok_noinline_compute_helper.cu": RIGHT,
    "double_buffer/ok_pointer_swap.cu": RIGHT,
    "double_buffer/ok_syncthreads_count_sanity_check.cu": RIGHT,
    "double_buffer/ok_taps_into_registers_after_a_barrier.cu": RIGHT,
    "double_buffer/ok_tile_count_broadcast_through_shared.cu": RIGHT,
    "double_buffer/ok_while_true_round_counter.cu": RIGHT,
    WS + "ok_explicit_acquire_release_semantics.cu": BULK_RIGHT,
    WS + "ok_phase_bit_toggled_on_wrap.cu": BULK_RIGHT,
    WS + "ok_release_by_lane_0_with_count_32.cu": BULK_RIGHT,
    WS + "ok_test_wait_loops_and_arrive_state.cu": BULK_RIGHT,
    WS + "ok_try_wait_with_suspend_time_hint.cu": BULK_RIGHT,
    WS + "ok_warp_vote_wait_loop.cu": BULK_RIGHT,
    "double_buffer/ok_shared_debug_counter_refused.cu": everywhere(
        "it reads shared memory before the block has synchronised"),
    "double_buffer/ok_first_tile_issued_in_the_loop_refused.cu": everywhere(
        "it commits more than one batch between two waits"),
    "double_buffer/refill_barrier_arrives_before_the_compute.cu": everywhere(REFILL),
    WS + "release_per_warp_without_syncwarp.cu": everywhere(
        PARTIAL_RELEASE),
    "bulk/warp_vote_any_wait_loop.cu": everywhere("it never waits on the barrier"),
    "bulk/arrival_per_warp_without_syncwarp.cu": everywhere(
        "a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    WS + "full_wait_only_in_reading_threads.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    # caught by a run (the H200, 2026-12-02): a wait for the wrong phase never returns at 1,
    # 3 or 4 stages; the last tile read unwaited, or each round's wait one batch behind, in
    # host memory; warp 0's extra barrier pairs the others' barriers one off; lanes 1 to 31
    # fill a buffer before lane 0's empty wait, which crashes
    "bulk/parity_hardcoded_two_stages.cu": on_the_gpu("did not finish within", "sm_90 or newer"),
    "bulk/parity_by_a_power_of_two_mask.cu": on_the_gpu("did not finish within",
                                                        "sm_90 or newer"),
    "double_buffer/commit_inside_issue_tile_prologue_commits_twice.cu": on_the_gpu(SLOW),
    "double_buffer/extra_barrier_in_warp_0.cu": on_the_gpu("wrong outputs"),
    "double_buffer/wait_only_while_a_next_tile_exists.cu": on_the_gpu(SLOW),
    # (a race: it crashed in one run, gave wrong outputs in the next, 2026-12-02)
    WS + "syncwarp_before_the_lane_0_empty_wait.cu": on_the_gpu(
        ("it crashed on the GPU", "wrong outputs"), "sm_90 or newer"),
})

# The nineteenth red team (2026-12-02, right answers against the eighteenth's rules): compute
# threads that read nothing and arrive on nothing (the release's branch skips reads and
# arrival alike: accepted now), warp votes of other shapes round a wait (__ballot_sync of every
# lane, __any_sync of "not yet": accepted now), per-warp releases after __syncwarp() or a named
# barrier of the compute warps, taps in shared memory: all pass. Known limits, right and
# refused: shared memory as one struct (the taps and the buffers are one array to the check),
# a lane that stops trying once its try succeeded (a path skips the try: the check does not
# follow that the skip needs an earlier success), each thread's release right after its last
# read (a thread-varying branch round an arrival, though each thread makes one), a first-round
# flag round a cuda::barrier's wait, cooperative_groups (not offered). A ballot of no lane (a
# way out when any lane has seen the phase) is refused. On the H200 (2026-12-02): the 13 right
# ones that pass, PASSED.
ANSWERS.update({
    "double_buffer/ok_cuda_barrier_split_arrive_wait_refill.cu": RIGHT,
    WS + "ok_any_not_done_wait_loop.cu": BULK_RIGHT,
    WS + "ok_ballot_wait_loop.cu": BULK_RIGHT,
    WS + "ok_early_continue_idle_threads_arrive.cu": BULK_RIGHT,
    WS + "ok_if_else_both_arrive.cu": BULK_RIGHT,
    WS + "ok_named_barrier_then_thread_0_arrives.cu": BULK_RIGHT,
    WS + "ok_per_warp_release_syncwarp_in_helper.cu": BULK_RIGHT,
    WS + "ok_readers_only_take_part.cu": BULK_RIGHT,
    WS + "ok_taps_in_shared_named_barrier_of_the_compute_warps.cu": BULK_RIGHT,
    WS + "ok_taps_in_shared_stored_by_the_producer.cu": BULK_RIGHT,
    WS + "ok_arrive_count_32_by_lane_0.cu": BULK_RIGHT,
    WS + "ok_per_warp_release_noinline_helper.cu": BULK_RIGHT,
    WS + "ok_struct_of_shared_arrays_per_warp_release.cu": BULK_RIGHT,
    "async_halo/ok_struct_smem_taps_into_registers_while_the_copy_flies_refused.cu": everywhere(
        "it reads shared memory before every thread's copies have landed"),
    "double_buffer/ok_struct_smem_taps_into_registers_after_a_barrier_refused.cu": everywhere(
        "it reads a buffer before the block has synchronised"),
    WS + "ok_all_sync_lanes_stop_polling_once_done_refused.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "ok_cg_tiled_partition_sync_lane_0_arrives_refused.cu": everywhere(
        "#include <cooperative_groups.h> is not offered here"),
    WS + "ok_early_release_after_the_last_window_read_refused.cu": everywhere(
        PARTIAL_RELEASE),
    "double_buffer/ok_cuda_barrier_split_arrive_wait_with_a_first_round_flag_refused.cu":
        everywhere(REFILL),
    WS + "ballot_none_done_wait_loop.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
})

# The nineteenth red team's wrong answers against the eighteenth's rules, refused now: a
# timer checked at the retry loop's head, before its try (the head is walked too), one last
# lone try after a capped loop (a try in no loop waits for nothing), lane 0's release chosen by
# elect.sync or after a __syncwarp() of its own lane only (a warp's barrier counts with all 32
# lanes), every lane arriving but lane 0 on the release and the others on a barrier nobody
# waits for (an arrival whose barrier differs between the threads orders nothing for the
# others: the refill and store rules too), a buffer reached from the barriers' address (which
# array a read is of, the check then does not say). Left to the runs (wrong outputs on the
# H200): a refill wait on an arrival before the compute beside an arrival after it on a
# barrier nobody waits for. Known limit, right and refused: a release guarded by threadIdx.x < CONV_THREADS, always
# true where it runs.
ANSWERS.update({
    WS + "timeout_exit_at_the_loop_head.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    "bulk/hang_report_then_read_on.cu": everywhere("it never waits on the barrier"),
    WS + "elect_sync_release_without_syncwarp.cu": everywhere(
        PARTIAL_RELEASE),
    WS + "syncwarp_of_its_own_lane_then_lane0_release.cu": everywhere(
        PARTIAL_RELEASE),
    WS + "release_by_lane0_others_arrive_on_a_sink.cu": everywhere(
        PARTIAL_RELEASE),
    WS + "lane0_release_buffer_reached_through_full.cu": everywhere(
        PARTIAL_RELEASE),
    "bulk/arrival_by_lane0_others_on_a_sink.cu": everywhere(
        "a store to shared memory reaches a read of shared memory through an mbarrier wait"),
    "double_buffer/refill_barrier_lane0_arrives_others_on_a_sink.cu": everywhere(REFILL),
    "double_buffer/refill_waits_on_an_early_arrival_dummy_arrival_after_the_reads.cu":
        on_the_gpu("wrong outputs"),
    WS + "ok_redundant_compute_thread_guard_on_the_release_refused.cu": everywhere(
        PARTIAL_RELEASE),
})

# The twentieth red team (2026-12-02). Right, accepted now: a warp's vote round its waits in
# other shapes (a ballot of "not yet" against 0, the count of a ballot below 32,
# __reduce_and_sync), its result known within bounds (this lane's bit 0 or 1, at most 31 set,
# 0 for an and). Wrong, refused now: lane 0 releasing its warp's buffer and the others a sink
# barrier, the barrier chosen on the two sides of a branch on the lane (through helpers, or
# in inline asm) and one arrival after the join. Known limits, right and refused: a loop
# round __syncthreads_count(done) (a count the check does not bound), an empty barrier per
# stage and warp (the init lines changed outside FILL IN: an arrival whose barrier differs
# between the threads counts for none). Too large: 300 arrivals (it reads 64). The right
# ones' GPU verdicts are predicted (no device time left).
ANSWERS.update({
    "bulk/ok_ballot_of_not_done_wait_loop.cu": BULK_RIGHT,
    WS + "ok_ballot_of_not_done_wait_loop.cu": BULK_RIGHT,
    WS + "ok_popc_of_ballot_below_32_wait_loop.cu": BULK_RIGHT,
    WS + "ok_reduce_and_sync_wait_loop.cu": BULK_RIGHT,
    WS + "popc_of_ballot_below_1_wait_loop.cu": everywhere(
        "the compute warps read a buffer before waiting for its fill"),
    WS + "lane0_release_sink_chosen_by_noinline_helpers.cu": everywhere(
        PARTIAL_RELEASE),
    WS + "lane0_release_sink_chosen_in_asm.cu": everywhere(
        PARTIAL_RELEASE),
    "bulk/ok_syncthreads_count_wait_loop_refused.cu": everywhere("it never waits on the barrier"),
    WS + "ok_per_warp_empty_barriers_refused.cu": everywhere(
        PARTIAL_RELEASE),
    "async_halo/unread_arrivals_300.cu": everywhere(
        "300 mbarrier arrivals, more than the 64 it reads"),
})

# The twenty-first red team (2026-12-02). Wrong in what they teach, right in their outputs:
# every thread copies the whole buffer (Phase 1's loop without threadIdx.x: each thread's
# wait covers all of it, the tile is copied 256 times and the copies into each cell race with
# equal values), every thread issues the bulk copy: refused now (a copy every thread makes,
# to an address the same in all, that no branch on a thread-varying value decides: control
# dependence, from post-dominators). A known limit, passed (GPU verdict predicted): lane 0 of
# every warp issues the bulk copy (8 copies of each tile, each with its own expected bytes:
# which threads a lane test leaves, the check does not count). Right and refused: the refill
# barrier skipped in round 0 (if (tile != blockIdx.x) __syncthreads()), a path the check
# cannot rule out.
COPIED_BY_ALL = "every thread copies the same shared cells"
BULK_BY_ALL = "every thread issues the bulk copy"
ANSWERS.update({
    "async_halo/every_thread_copies_the_whole_buffer.cu": everywhere(COPIED_BY_ALL),
    "bulk/every_thread_issues_the_bulk_copy.cu": everywhere(BULK_BY_ALL),
    "bulk/lane_0_of_every_warp_issues_the_bulk_copy_passes.cu": (
        COMPILES, "running it needs sm_90 or newer", PASSED, "one thread alone copies each cell"),
    "double_buffer/ok_refill_barrier_skipped_in_round_0_refused.cu": everywhere(REFILL),
})

# The twenty-second red team (2026-12-02): threadIdx.y typed for threadIdx.x (0 in every thread
# of a 1D launch: every thread copies the whole buffer, or issues the bulk copy) passed, the
# check taking %tid.y for a value that differs between threads: refused now. The check's
# control dependence gave up (said nothing decided) past 2 million steps: now linear, and it
# follows a guarded exit or ret and an indirect branch too (unit tests). Copies that 8 or 32
# threads make of each cell (warp 0's 32 lanes issuing the bulk copy, windows of 32 that
# overlap) give right outputs and pass: the verdict says it does not check that one thread
# alone copies each cell.
ANSWERS.update({
    "async_halo/threadidx_y_typo_copies_the_whole_buffer.cu": everywhere(
        "race; give each thread its own cells (for (int j = threadIdx.x; j < CONV_BUF; j += "
        "CONV_THREADS)), or let one thread make the copy. The launch is one-dimensional"),
    "bulk/threadidx_y_guard_every_thread_issues.cu": everywhere(
        "if (threadIdx.x == 0 && hi > lo). The launch is one-dimensional"),
    "bulk/warp_0_issues_the_bulk_copy_32_times_passes.cu": (
        COMPILES, "running it needs sm_90 or newer", PASSED, "one thread alone copies each cell"),
    "async_halo/overlapping_windows_of_32_passes.cu": (
        COMPILES, "running it needs a GPU", PASSED, "one thread alone copies each cell"),
})

# The twenty-third red team (2026-12-02) found no wrong answer that passes. Right and refused: an
# inline-PTX brx.idx over a .branchtargets table after the barrier (the flow took every brx.idx
# to any label, from the function's first line): it goes to its table's labels now. A #pragma
# whose text holds " is refused: " got an English Korean verdict: the rule tries its longest
# split too. (The two right answers' GPU verdicts are predicted: no device time was left.)
ANSWERS.update({
    "async_halo/ok_brx_idx_table_after_the_barrier.cu": RIGHT,
    "bulk/ok_brx_idx_table_after_the_wait.cu": BULK_RIGHT,
    "async_halo/pragma_whose_text_says_is_refused.cu": everywhere(
        "is refused: a kernel needs no #pragma"),
})

# The twenty-fourth red team (2026-12-02). Wrong and passed: thread 0's init not fenced, every
# other thread fencing under a guard in inline PTX (the init-fence step took a guarded fence for
# one on every path; no run shows a missing init fence): refused now, and with it a right answer
# whose thread 0 fences under its own guard outside the init's if (a known limit). The check's
# post-dominators took 56 s on loops nested 24,000 deep through 63 functions: stopped past
# MAX_ORDERING steps. Two Korean verdicts garbled by a learner's string that repeats the reason.
TOO_DEEP = "its PTX is too large to check (its loops nest too deep to follow)"
ANSWERS.update({
    "bulk/init_fence_by_every_thread_but_thread_0.cu": everywhere(
        "thread 0's fence.proxy.async must come after init and before the first bulk copy"),
    "bulk/ok_init_fence_guarded_in_asm_refused.cu": everywhere(
        "thread 0's fence.proxy.async must come after init and before the first bulk copy"),
    "bulk/loops_nested_2048_deep.cu": everywhere(TOO_DEEP),
    "async_halo/pragma_whose_text_says_an_exercise_needs_no.cu": everywhere(
        "is refused: a kernel needs no #pragma"),
    "async_halo/undef_with_a_string_that_says_is_refused.cu": everywhere(
        "is refused: CONV_K belongs to the check's builds"),
})

# The twenty-fifth red team (2026-12-02). Wrong and passed: the init and the fence each under its
# inline asm's own predicate, both named p (threadIdx.x == 0 for the init, != 0 for the fence):
# a guard counts as the init's only for a predicate one instruction alone writes. report() took
# 47-65 s on an arrival address computed through 7,300 moves beside 5,600 tests of threadIdx.x
# (_joined_barriers, quadratic): stopped past MAX_SPLIT_LOOKS.
ANSWERS.update({
    "bulk/init_fence_under_another_asm_p.cu": everywhere(
        "thread 0's fence.proxy.async must come after init and before the first bulk copy"),
    "bulk/arrival_address_through_2400_moves_and_1900_ifs.cu": everywhere(
        "too large to check (too many branches round the values its arrivals' barriers come "
        "from)"),
})

# The twenty-sixth red team (2026-12-02) found no wrong answer that passes and no right one
# refused. The guard rule took 51 s on 3,000 fences under the init's own asm predicate (right):
# it looks the predicate up once now. (Its GPU verdict is predicted: no device time was left.)
ANSWERS.update({
    "bulk/ok_init_and_3000_fences_under_one_asm_guard.cu": BULK_RIGHT,
})

# The twenty-seventh red team (2026-12-02) looked for passes slower than linear, and found three:
# report() took 40-57 s on the solutions plus dead code (under if (n < 0)) that each made one of
# them quadratic. Linear now; tests/test_exercise.py times them. (Right: their GPU verdicts,
# PASSED, are predicted: no device time was left.)
SLOW_STATIC = [
    "warp_specialized/ok_24000_dead_arrivals_and_branches.cu",
    "double_buffer/ok_44000_dead_wait_groups.cu",
    "warp_specialized/ok_1900_dead_retry_loops_with_far_exits.cu",
]
ANSWERS.update({
    "warp_specialized/ok_24000_dead_arrivals_and_branches.cu": BULK_RIGHT,
    "double_buffer/ok_44000_dead_wait_groups.cu": RIGHT,
    "warp_specialized/ok_1900_dead_retry_loops_with_far_exits.cu": BULK_RIGHT,
})

# The twenty-eighth red team (2026-12-02) found no answer that breaks the bar (a wrong one passed,
# a right one refused, report() past 35 s, raising, or a garbled Korean verdict) in its search for
# slow passes; two near-finds, taken up: _joined_barriers's look again for each arrival was not
# counted against MAX_SPLIT_LOOKS (64 times the work: 10 s), and the second build's first passes
# ran before the deadline was looked at (32.5 s in all).

# The whole corpus on the H200 (2026-12-02, checker as of c8b8116, 454 answers): every verdict
# as filed, those "predicted" above included. It took three runs: 12 answers at a time in one
# process ran past 540 s (392 done), and five answers whose checks take seconds (three right,
# two refused for a limit) got another limit's verdict (did not compile within 30 s; did not
# finish within 5 s); the other 62 and those five, 8 at a time, left four right answers over the
# check's deadline (its checks take too long); those four, each in a
# process of its own (as tests/test_exercise.py runs them now), PASSED. The arrival-address answer
# below ran at its old sizes (7,300 and 5,600); cut since, it is refused before any run, as
# without a GPU.
# Answers whose check takes seconds on its own (their compiles, or the walk of their PTX): the
# corpus's runners check them alone before the others (tests/test_exercise_ko.py), or first
# (tests/test_exercise.py, on a GPU), so that under load a verdict that names one limit does not
# become another limit's. arrival_address_through_2400_moves_and_1900_ifs.cu was 7,300 and 5,600
# (the twenty-fifth team's): its compile took 26 s of the 30 on two cores.
HEAVY = {*SLOW_STATIC, "bulk/loops_nested_2048_deep.cu",
         "bulk/arrival_address_through_2400_moves_and_1900_ifs.cu",
         "async_halo/unread_test_waits_10000.cu", "async_halo/ok_2e15_long_labels_in_one_asm.cu",
         "async_halo/ok_deep_call_chain.cu"}
