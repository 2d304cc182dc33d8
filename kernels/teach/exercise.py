"""The book's four exercises, and the check that judges a learner's kernel.

Each exercise is a skeleton in ``kernels/exercises/`` with its ``// FILL IN`` places, and a
solution the check must pass:

* ``async_halo`` (notebook 03): Puzzle 28 done right, the tile and its halos copied with
  ``cuda::memcpy_async``; the solution is the book's own ``kernels/async_halo.cu``;
* ``double_buffer`` (notebook 03): the same kernel walking over several tiles per block with two
  buffers, the next tile's copy in flight while the block computes this one; the solution is
  ``kernels/exercises/double_buffer.cu``;
* ``bulk`` (notebook 04): the Hopper bulk copy, one ``cp.async.bulk`` per tile completing on an
  mbarrier; the solution is the book's own ``kernels/bulk.cu``;
* ``warp_specialized`` (notebook 05): the producer warp's hand-off, the three mbarrier waits and
  arrivals that pass each buffer between the producer warp and the compute warps, by phase
  parity; the solution is the book's own ``kernels/warp_specialized.cu`` (launched with its
  producer warp: :attr:`Exercise.producer_warp`).

The check, in order, stopping at the first problem:

1. the text (a string, or UTF-8 bytes; at most 64 KiB; a byte-order mark and CRLF are fine): no
   ``// FILL IN`` marker line left, and, read as the preprocessor reads it (line splices,
   comments across lines, literals, raw strings, digraphs), no ``#include`` but
   ``"conv1d_common.cuh"`` and CUDA's own headers (``<cuda/pipeline>``), named literally, and
   nothing else that makes the preprocessor look for a file (``__has_include``, ``_Pragma``,
   ``##``, ``#line``, unknown pragmas and directives, trigraphs are refused), no ``#define`` or
   ``#undef`` of the build's macros or of the common header's names, no ``#if`` on the build's
   sizes that the skeleton does not have, and every ``PHASE()`` point of the skeleton kept;
2. NVRTC compiles it (the build the PTX is read from, and its stress build, whose reads of the
   clock show that each of the skeleton's ``PHASE()`` points still waits: :func:`_check_jitter`),
   in separate processes started in a private folder that holds only a copy
   of the common header, with that folder and libcu++ as the include path (the solutions and the
   rest of ``kernels/`` are out of reach; ``tests/test_exercise.py`` checks under strace that no
   other file is opened), killed after :data:`COMPILE_LIMIT_S`; a compile error is shown as the
   learner's line and the first error;
3. the PTX (any machine; sm_80 for the first two, sm_90 for the last two, assembled by ptxas
   too): a kernel with the exercise's name and parameters, whose instructions (comments and
   strings left out, the bodies of the ``.func`` it calls followed) are the exercise's, in order
   along its control flow (:attr:`Exercise.steps`: e.g. ``cp.async``, then ``cp.async.wait_*``
   on a path from it, then ``bar.sync``, and the compute's shared loads past them on every
   path; the double buffer's barrier on every path from the compute's shared loads to the
   next copy, round the tile loop; the producer warp's waits and arrival, but not which
   mbarrier or which parity each names: data, which only the run shows). A generic load through
   a pointer made from a shared buffer's address counts as a shared load
   (:func:`_generic_shared_loads`). Dead code counts for nothing: an instruction that a branch
   jumps over, or whose guard a ``setp`` on immediates makes false. Whether every thread
   reaches them is not for a static check to say (a copy or a barrier under a condition that
   is never true at run time is in the PTX all the same), with one exception: the double
   buffer's commit, which a branch on a value that differs between the block's threads must
   not let some threads skip before a fixed ``wait_prior<1>`` (:func:`_skipped_commit`). The
   verdict without a GPU says what the PTX has, no more;
4. on a GPU of the exercise's generation or newer: a separate process
   (``python -m kernels.teach.exercise --run FOLDER``), killed after :data:`TIME_LIMIT_S`, runs it at
   every configuration of :attr:`Exercise.cases`, outputs poisoned with NaN and shared memory
   with NaN left over from a kernel launched just before, then under the stress build
   (``-DCONV_JITTER``: warps wait at random at the ``PHASE()`` points the skeleton keeps) at a
   size where a missing wait or barrier shows, and for the exercises whose blocks walk over
   several tiles with its input in host memory (:attr:`Exercise.slow`: each copy takes
   microseconds to land, so that a wait that covers the wrong batch or phase, which no static
   check here follows, shows too; not below the exercise's PTX generation, where the copies
   are synchronous: on a T4 the verdict says so); it prints its verdict as one line of JSON.

:func:`check` raises :class:`ExerciseError` at the first problem; :func:`report` turns that into
the line the notebook prints, and never raises, whatever it is given. Either takes at most
``COMPILE_LIMIT_S`` (30 s) without a GPU, and ``2 * COMPILE_LIMIT_S + TIME_LIMIT_S`` (120 s)
with one.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import json
import os
import re
import reprlib
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..compile import CACHE_DIR, KERNEL_DIR, Build, include_dirs
from ..device import gpu_available
from ..edition import Text
from ..reference import error_bound, random_inputs, reference
from ..validate import choice

HEADER = "conv1d_common.cuh"
SIGNATURE = "(const float* x, const float* w, float* y, int n)"
MAX_SOURCE_BYTES = 64 * 1024
COMPILE_LIMIT_S = 30   # for the compiles of one check together; each takes a second or two
TIME_LIMIT_S = 60      # for the GPU run, generous: CuPy's start, ~20 launches and their checks
RUNNER = [sys.executable, "-m", "kernels.teach.exercise", "--run"]       # + the folder
COMPILER = [sys.executable, "-m", "kernels.teach.exercise", "--compile"]  # + the job's file


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
    """An instruction the kernel's PTX must have, one that runs (see :class:`_Flow`): one that
    ``pattern`` matches on a path from one of step ``after`` (or at it, with ``at_or_after``:
    one instruction may be two steps), on every path from there to one of step ``before``, or
    in the loops around those of step ``loop_of``. ``missing`` says what to do when there is
    none at all, ``misplaced`` when there are some, elsewhere. A ``refill`` step (with
    ``loop_of``) is an order instead: round the loop, an instruction that ``pattern`` matches
    on every path from a shared-memory read to a copy into shared memory
    (:func:`_unordered_refill`). A ``ready`` step (the names of a wait step and a barrier
    step) is an order too: every shared-memory read that ``pattern`` matches comes, on every
    path from the entry, after a wait and then a barrier (:func:`_unready_read`; ``fresh``:
    after the last copy's)."""
    name: str
    pattern: re.Pattern
    missing: str
    misplaced: str = ""
    after: str | None = None
    before: str | None = None
    at_or_after: bool = False
    loop_of: str | None = None
    refill: bool = False
    ready: tuple[str, str] | None = None
    fresh: bool = False
    overlap: bool = False   # or: every path from the loop's full wait to a read issues a copy
    batches: bool = False   # one committed batch per tile: see _uncommitted_or_split


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
    producer_warp: bool = False   # launched with one warp more than CONV_THREADS
    more_stress: tuple[Case, ...] = ()   # stress builds at other sizes, STRESS_LAUNCHES each
    # the stress build SLOW_LAUNCHES times with x in host memory (see run_cases), for the
    # kernels whose blocks walk over several tiles: each copy then takes microseconds to land,
    # so that a wait that returns before the copies the compute reads have landed (the wrong
    # batch, the wrong phase) shows as wrong outputs
    slow: Case | None = None
    slow_advice: str = ""   # after a wrong output with x in host memory

    @property
    def stresses(self) -> tuple[Case, ...]:
        return (self.stress, *self.more_stress)


# 3. The PTX: what each exercise's kernel must issue, in order ----------------------------------

# Each matches an instruction's opcode (the PTX checks read instructions, not comments).
CP_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared")           # cuda::memcpy_async on sm_80+
# pipe.consumer_wait(), or the wait on a cuda::barrier that the copies complete on (an mbarrier
# wait counts only inside a loop that its result ends, and only where the copies arrive on an
# mbarrier, cp.async.mbarrier.arrive: try_wait and test_wait may return before the phase
# completes); with two buffers, at most one batch may stay in flight: wait_group 0 or 1
CP_WAIT = re.compile(r"cp\.async\.wait_(?:all\b|group\s+[01]$)|mbarrier\.(?:try|test)_wait\b")
# with one batch of copies in flight, a wait that leaves none: wait_all, or wait_group 0
CP_WAIT_ALL = re.compile(r"cp\.async\.wait_(?:all\b|group\s+0$)|mbarrier\.(?:try|test)_wait\b")
# __syncthreads() and its kin: a barrier for the whole block (no count, or a register's that
# no mov of another immediate sets, or the block's CONV_THREADS of the static build), any of
# the 16 (__syncthreads() is 0; with no count, each waits for all the block's threads),
# bar.red for __syncthreads_or/and/count; or the wait on a cuda::barrier (its thread count is
# not checked: the verdict says so)
BLOCK_THREADS = 256   # every exercise's first case, the build the PTX is read from
_COUNT = rf"(?:\s*,\s*(?:%\w+|{BLOCK_THREADS}|0[xX]0*{BLOCK_THREADS:x}|0[bB]0*{BLOCK_THREADS:b}))?"
# a barrier id, or a register holding one (inline asm's "r"(0): _counted_barriers checks it)
_ID = r"(?:1[0-5]|[0-9]|%\w+)"
BAR = re.compile(rf"(?:bar|barrier)(?:\.cta)?\.sync(?:\.aligned)?\s+{_ID}{_COUNT}$"
                 rf"|(?:bar|barrier)(?:\.cta)?\.red(?:\.\w+)+\s+%?\w+\s*,\s*{_ID}{_COUNT}\s*,"
                 r"\s*!?%?\w+$|mbarrier\.(?:try|test)_wait\b")   # a predicate asm names: p
MB_INIT = re.compile(r"mbarrier\.init\b")                   # init(&bar, count)
# the proxy fence for shared memory (no state space: all of them), or the mbarrier-init fence
FENCE = re.compile(r"fence\.proxy\.async(?:\.shared::(?:cta|cluster))?$|fence\.mbarrier_init\b")
# a block barrier proper, not an mbarrier wait
BLOCK_BAR = re.compile(BAR.pattern.rsplit("|mbarrier", 1)[0])
BULK = re.compile(r"cp\.async\.bulk\.shared")               # the bulk copy (TMA, 1D)
EXPECT = re.compile(r"mbarrier\.(?:arrive\.)?expect_tx\b")  # the bytes the barrier expects
MB_WAIT = re.compile(r"mbarrier\.(?:try|test)_wait\b")      # bar.wait(token), in a loop

COPY = Step("copy", CP_ASYNC,
            "it compiles, but copies nothing asynchronously: on sm_80 the PTX has no cp.async. "
            "Copy with cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe).")
_EARLY_WAIT = ("it waits before its copies are issued (in the PTX, no cp.async.wait follows a "
               "cp.async on any path): call pipe.consumer_wait() in Phase 3, after the copies are "
               "committed.")
WAIT_ALL = Step("wait", CP_WAIT_ALL,
                "it never waits for its copies, or not for all of them (the PTX has no "
                "cp.async.wait_all or "
                "cp.async.wait_group 0, nor an mbarrier wait in a loop; wait_group N and "
                "wait_prior<N> with N > 0 leave N batches in flight, and this kernel has one): "
                "call pipe.consumer_wait() in Phase 3, after the copies are committed.",
                _EARLY_WAIT, after="copy")
WAIT = Step("wait", CP_WAIT,
            "it never waits for its copies (the PTX has no cp.async.wait_all or wait_group 0 or "
            "1; with two buffers, wait_group N and wait_prior<N> with N > 1 leave every batch "
            "in flight): call pipe.consumer_wait() in Phase 3, after the copies are committed.",
            _EARLY_WAIT, after="copy")
BARRIER = Step("barrier", BAR,
               "it waits for this thread's copies but not for the other threads' (the PTX has no "
               "block barrier, a bar.sync for all the block's threads, after cp.async.wait; "
               "one for fewer threads is not one): call __syncthreads() "
               "after pipe.consumer_wait().",
               "it synchronises before it waits (in the PTX, no bar.sync follows a cp.async.wait "
               "on any path): call __syncthreads() after pipe.consumer_wait(), so that every "
               "thread's copies have landed when the barrier opens.",
               after="wait", at_or_after=True)
# a load that may read shared memory: ld.shared, or a generic ld (not .global/.param/.const/
# .local), or ldmatrix
SHARED_READ = re.compile(r"(?:ld(?!u)|atom)(?!(?:\.\w+)*\.(?:global|param|const|local)\b)"
                         r"(?:\.[\w:]+)*\s|ldmatrix\b")
_REFILL_MESSAGE = ("there is no block barrier between the compute's reads of a buffer and the copy "
                   "that refills it (round the tile loop's PTX, a path goes from an ld.shared to a "
                   "cp.async through no bar.sync 0): after every thread has "
                   "computed from a buffer and before the copy into it is issued, call "
                   "__syncthreads() (at the end of the loop, or between the wait's barrier and "
                   "the copy of the next tile), or a fast warp overwrites a tile that a slow warp "
                   "is still reading.")
REFILL = Step("refill", BAR, _REFILL_MESSAGE, _REFILL_MESSAGE, loop_of="wait", refill=True)
# the double buffer's point: the next tile's copy, in the loop, is a cp.async (plain loads and
# stores into the other buffer give the same outputs, and overlap nothing)
# the double buffer waits for this tile's batch and leaves the next one's in flight:
# wait_group 1 (pipe.consumer_wait() with two batches committed compiles to a choice of
# wait_group N by the count in flight, 1 among them; wait_prior<1>)
CP_WAIT_ONE = re.compile(r"cp\.async\.wait_group\s+1$|mbarrier\.(?:try|test)_wait\b")
WAIT_ONE = Step("overlap", CP_WAIT_ONE,
                "in the tile loop it waits for every batch, the next tile's too (in the PTX, "
                "no cp.async.wait_group 1 in the loop round the wait): wait for this thread's "
                "oldest batch only, pipe.consumer_wait() (or cuda::pipeline_consumer_wait_prior"
                "<1>), after the next tile's copy is committed, so that it flies while this tile "
                "is computed.", loop_of="wait", overlap=True)
# the double buffer's batches: the loop's copies committed before the wait (else the wait,
# which counts committed batches, waits for none of them), and one batch per tile (a commit
# per copy leaves all but a thread's oldest copy in flight at pipe.consumer_wait())
BATCHES = Step("batches", CP_WAIT, "", "", loop_of="wait", batches=True)
LOOP_COPY = Step("loop copy", CP_ASYNC,
                 "in the tile loop it copies nothing asynchronously (in the PTX, no cp.async in "
                 "the loop round the wait): the next tile's copy is the pipeline's, "
                 "issue_tile(x_s[stage ^ 1], x, n, next, pipe), so that it flies while this "
                 "tile is computed; plain loads and stores give the same outputs and overlap "
                 "nothing.", loop_of="wait")
# a load from shared memory by its state space (a generic ld may read global memory: one that
# only the GPU run judges)
SHARED_LOAD = re.compile(r"(?:ld|atom)(?:\.\w+)*\.shared(?:::\w+)?\b|ldmatrix\b")   # atomics read too
COMMIT = re.compile(r"cp\.async\.(?:commit_group|mbarrier\.arrive)\b")   # closes a batch
READY = Step("ready", SHARED_LOAD, "",
             "it reads shared memory before every thread's copies have landed (in the PTX, a "
             "path from a cp.async reaches an ld.shared through no bar.sync 0 after its "
             "cp.async.commit_group and a cp.async.wait): commit the copies, then call "
             "pipe.consumer_wait() and then __syncthreads(), on every path, before Phase 4 "
             "reads x_s, and copy nothing after them.", ready=("wait", "barrier"), fresh=True)
READY_FIRST = Step("ready", SHARED_LOAD, "",
                   "it reads a buffer before the block has synchronised (in the PTX, a path "
                   "from the kernel's entry reaches an ld.shared through no bar.sync 0): in "
                   "the tile loop, call pipe.consumer_wait() and then __syncthreads(), on every "
                   "path, before Phase 4 reads x_s[stage], so that every thread's copies have "
                   "landed.", ready=("wait", "barrier"))

INIT = Step("init", MB_INIT,
            "its barriers are never initialised (the PTX has no mbarrier.init): thread 0 calls "
            "init(&bar[s], CONV_THREADS) for every stage before any copy, then "
            "__syncthreads().")
INIT_FENCE = Step("init fence", FENCE,
                  "the copy engine is never shown the initialised barriers (the PTX has no "
                  "fence.proxy.async for shared memory; fence.proxy.async.global is for global "
                  "memory): after init, thread 0 runs asm volatile("
                  "\"fence.proxy.async.shared::cta;\" ::: \"memory\").",
                  "the copy engine may not see the initialised barriers: thread 0's "
                  "fence.proxy.async must come after init and before the first bulk copy, on "
                  "every path of the PTX (fence.proxy.async.shared::cta: a .global fence is for "
                  "global memory; the check does not follow which thread takes a branch, so "
                  "put the fence in the init's own if (threadIdx.x == 0), right after the "
                  "init).",
                  after="init", before="bulk copy")
INIT_SYNC = Step("init barrier", BLOCK_BAR,
                 "the other threads may wait on the barriers before thread 0 has initialised "
                 "them (the PTX has no block barrier after the init and before the first "
                 "bulk copy): call __syncthreads() after the init and the fence.",
                 "the other threads may wait on the barriers before thread 0 has initialised "
                 "them (the PTX has no block barrier after the init and before the first "
                 "bulk copy): call __syncthreads() after the init and the fence.",
                 after="init", before="bulk copy")
BULK_REFILL = Step("bulk refill", BLOCK_BAR,
                   "it never synchronises the block in the tile loop: after every thread has "
                   "computed from a stage's buffer and before thread 0 refills it, call "
                   "__syncthreads(), or a fast thread's copy overwrites a tile that a slow warp "
                   "is still reading.",
                   "there is no block barrier between the compute's reads of a stage's buffer "
                   "and the bulk copy that refills it (round the tile loop's PTX, a path goes "
                   "from an ld.shared to a cp.async.bulk through no bar.sync 0): after every "
                   "thread has computed from the buffer and before thread 0 refills it, call "
                   "__syncthreads(), or the copy overwrites a tile that a slow warp is still "
                   "reading.", loop_of="barrier wait", refill=True)
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
                 "it never waits on the barrier (the PTX has no mbarrier.try_wait in a loop "
                 "that retries it until the phase completes): every "
                 "thread arrives and waits, bar[stage].wait(bar[stage].arrive()), before reading "
                 "the buffer.",
                 "it waits on the barrier only before any copy is issued: arrive and wait in "
                 "the loop, before Phase 4 reads the buffer.", after="bulk copy")
BULK_READY = Step("ready", SHARED_LOAD, "",
                  "it reads a buffer before waiting on its barrier (in the PTX, a path from the "
                  "kernel's entry reaches an ld.shared without an mbarrier.try_wait loop): every "
                  "thread arrives and waits, bar[stage].wait(bar[stage].arrive()), on every "
                  "path, before Phase 4 reads the buffer.",
                  ready=("barrier wait", "barrier wait"))

# Exercise 4 (the producer warp): the copy, the init and its fence are given; the learner writes
# the three hand-offs, which the PTX shows as mbarrier waits and an arrival. Which barrier and
# which parity each names is data, not an instruction: the GPU run decides those.
MB_ARRIVE = re.compile(r"mbarrier\.arrive\b")                  # an arrival (with bytes or not)
# the compute's reads of a buffer: its window, 16 bytes at a time (the producer reads none)
WINDOW_LOAD = re.compile(r"ld(?:\.\w+)*\.shared(?:::\w+)?(?:\.\w+)*?\.v[24]\.")
WS_EMPTY_WAIT = Step("barrier wait", MB_WAIT,
                     "the producer refills a buffer without waiting for it to be empty (in the "
                     "PTX, no mbarrier.try_wait loop follows a cp.async.bulk round the producer's "
                     "loop): before fill(), mbar_wait(&empty[s], parity) for the phase of "
                     "empty[s] that ends the previous round.", loop_of="bulk copy")
WS_READY = Step("ready", SHARED_LOAD, "",
                "the compute warps read a buffer before waiting for its fill (in the PTX, a path "
                "from the kernel's entry reaches an ld.shared without an mbarrier.try_wait "
                "loop): before Phase 4 reads x_s[s], mbar_wait(&full[s], parity) for the "
                "round-th fill.", ready=("barrier wait", "barrier wait"))
WS_READ = Step("read", WINDOW_LOAD, "the compute never reads the tile from shared memory (the "
               "PTX has no ld.shared.v4): keep Phase 4 as the skeleton has it.")
WS_FULL_WAIT = Step("full wait", MB_WAIT,
                    "the compute warps never wait for a fill (in the PTX, no mbarrier.try_wait "
                    "loop in the loop round the compute's shared loads): in the tile loop, "
                    "before Phase 4 reads x_s[s], mbar_wait(&full[s], parity) for the round-th "
                    "fill.",
                    "the compute warps wait for a fill outside the tile loop only (in the PTX, "
                    "no mbarrier.try_wait loop in the loop round the compute's shared loads): "
                    "wait for each tile's fill in the loop, before Phase 4 reads x_s[s].",
                    loop_of="read")
WS_RELEASE = Step("release", MB_ARRIVE,
                  "the compute warps never hand a buffer back (in the PTX, no mbarrier.arrive "
                  "follows the compute's ld.shared): after Phase 4 has read buffer s, fence the "
                  "reads (fence.proxy.async.shared::cta) and mbar_arrive(&empty[s]), or the "
                  "producer waits for ever once the ring wraps.", after="read")

# the slow case (Exercise.slow): x in host memory, 2^24 - 224 floats
SLOW = Case(2**24 - 224, 256, 5, 256, blocks=1056)

EXERCISES = {
    ex.key: ex for ex in (
        Exercise(
            "async_halo", "conv1d_async_halo", KERNEL_DIR / "async_halo.cu",
            KERNEL_DIR / "exercises" / "async_halo_skeleton.cu", 80,
            (COPY, WAIT_ALL, BARRIER, READY),
            # the seed config, then sizes that are not multiples of the tile, a single partial
            # tile, an even K, a kernel as long as the tile, more outputs than threads per block
            (Case(16384, 256, 5, 256), Case(1000, 96, 7, 64), Case(77, 128, 3, 128),
             Case(4099, 64, 4, 32), Case(513, 32, 32, 32), Case(3000, 1024, 9, 256),
             Case(1, 32, 5, 32)),
            # x and y twice a large L2, so that the copies come from DRAM and take long enough
            # for a missing wait or barrier to show (tests/test_stress.py plants one)
            Case(2**24, 256, 5, 256),
            summary="its sm_80 PTX has cp.async, then a wait, then a block barrier",
            advice="Does every thread call pipe.consumer_wait() and then __syncthreads() before "
                   "Phase 4?"),
        Exercise(
            "double_buffer", "conv1d_double_buffer", KERNEL_DIR / "exercises" / "double_buffer.cu",
            KERNEL_DIR / "exercises" / "double_buffer_skeleton.cu", 80,
            (COPY, WAIT, BARRIER, READY_FIRST, LOOP_COPY, WAIT_ONE, BATCHES, REFILL),
            # blocks walking over 4, 3, 1, 5 and 2 tiles; more blocks than tiles; one tile;
            # more threads than a tile has outputs
            (Case(16384, 256, 5, 256, blocks=16), Case(1000, 96, 7, 64, blocks=4),
             Case(77, 128, 3, 128, blocks=1), Case(4099, 64, 4, 32, blocks=13),
             Case(513, 32, 32, 64, blocks=9), Case(100, 32, 5, 32, blocks=8),
             Case(3000, 1024, 9, 256, blocks=1)),
            Case(2**24, 256, 5, 256, blocks=4096),   # 16 tiles per block
            summary="its sm_80 PTX has cp.async, then a wait, then a block barrier, and in the "
                    "tile loop the next tile's copies committed as one batch before a wait that "
                    "leaves only that batch in flight, and a block barrier between the compute's "
                    "shared loads and the next cp.async",
            advice="Does every thread wait (pipe.consumer_wait(), then __syncthreads()) before "
                   "reading a buffer, and is there a block barrier after computing from a "
                   "buffer and before the copy that refills it?",
            # four copies per thread and tile: a wait that covers only a thread's first (a
            # commit per copy) leaves the other three in flight
            more_stress=(Case(2**24, 1024, 5, 256, blocks=1056),),
            # about 62 tiles per block, 8 blocks per SM of an H200: the host link is the
            # bottleneck, so a tile's copies take a round of the loop or more to land; the last
            # tile's 32 outputs leave warps 2 to 7 without a copy (a commit only where a thread
            # has copies), and x is larger than the L2 (the second launch reads the host too)
            slow=SLOW,
            slow_advice="At the wait, is this tile's batch complete, in the first round and the "
                        "last too? pipe.consumer_wait() waits for a thread's oldest batch, "
                        "wait_prior<1> for all but its newest: commit one batch every round "
                        "(empty when there is no next tile) after issuing the next tile, and "
                        "only then wait."),
        Exercise(
            "bulk", "conv1d_bulk", KERNEL_DIR / "bulk.cu",
            KERNEL_DIR / "exercises" / "bulk_skeleton.cu", 90,
            (INIT, INIT_FENCE, INIT_SYNC, BULK_COPY, BULK_EXPECT, BULK_WAIT, BULK_READY,
             BULK_REFILL),
            # one block per tile and blocks walking over tiles, 1 to 4 stages, each with
            # several rounds (a wait's parity for round r of buffer s: the stage count matters),
            # ends of the vector that are not multiples of 4 floats (plain loads), threads with
            # two groups of 4 outputs, K = 1 and K = 63
            (Case(16384, 256, 5, 256, stages=1), Case(16384, 256, 5, 64, stages=4, blocks=4),
             Case(1001, 96, 7, 64, stages=1, blocks=3), Case(4099, 64, 1, 32, stages=3, blocks=5),
             Case(77, 128, 3, 32, stages=2), Case(3000, 512, 63, 64, stages=2, blocks=2),
             Case(6, 32, 5, 32, stages=1)),
            Case(2**24, 1024, 5, 256, stages=2, blocks=1056),   # 8 blocks per SM of an H200
            run_arch=90,
            # three stages, about 21 rounds: a wait with the wrong parity (one right only for
            # a power-of-two stage count, too) returns at once in some rounds and reads a
            # buffer whose bulk copy is still on its way
            slow=SLOW._replace(stages=3),
            slow_advice="Does each round arrive on and wait for its own stage's barrier, "
                        "bar[stage] (with a parity, that barrier's phase for this round), so "
                        "that the wait returns only once this round's bulk copy has landed?",
            summary="its sm_90 PTX initialises mbarriers, fences, has cp.async.bulk with the "
                    "bytes to expect and waits on the barrier",
            advice="Does every thread arrive and wait on the stage's barrier before reading "
                   "the buffer?"),
        Exercise(
            "warp_specialized", "conv1d_warp_specialized", KERNEL_DIR / "warp_specialized.cu",
            KERNEL_DIR / "exercises" / "warp_specialized_skeleton.cu", 90,
            (INIT, INIT_FENCE, INIT_SYNC, BULK_COPY, BULK_EXPECT, WS_EMPTY_WAIT, WS_READY,
             WS_READ, WS_FULL_WAIT, WS_RELEASE),
            # every block walks over several tiles, so that each buffer is filled in several
            # rounds (a wrong parity shows from round 1, a missing release once the ring wraps;
            # at 1 stage, a release after the next fill's wait never comes), 1 to 3 stages,
            # one tile per block once, the vector's ends, threads with two groups of 4 outputs,
            # 4 stages wrapping 3 times, K = 1 and K = 63
            (Case(16384, 256, 5, 256, stages=2, blocks=8),
             Case(16384, 256, 5, 64, stages=1, blocks=16),
             Case(1001, 96, 7, 64, stages=3, blocks=2), Case(4099, 64, 1, 32, stages=4, blocks=5),
             Case(77, 128, 3, 32, stages=2, blocks=1), Case(3000, 512, 63, 64, stages=2,
                                                           blocks=2),
             Case(6, 32, 5, 32, stages=1)),
            Case(2**24, 1024, 5, 256, stages=2, blocks=1056),   # 8 blocks per SM of an H200
            run_arch=90, producer_warp=True,
            slow=SLOW._replace(stages=3, blocks=924),   # 7 blocks of 288 threads per SM
            slow_advice="Does the compute wait on full[s] with the parity of the fill it "
                        "reads (the r-th fill of buffer s: r & 1), and the producer on empty[s] "
                        "with the parity of the release it needs, so that no wait returns on an "
                        "earlier phase?",
            summary="its sm_90 PTX initialises mbarriers and fences them, issues cp.async.bulk "
                    "with the bytes to expect, waits on an mbarrier round the producer's loop "
                    "and before the compute's shared loads, and arrives on one after them "
                    "(which barrier and which parity each wait names, only a run shows)",
            advice="Does the producer wait on empty[s] before filling buffer s, the compute wait "
                   "on full[s] before reading it and arrive on empty[s] only after, each wait "
                   "with the parity of the round it waits for?"),
    )
}
STRESS_LAUNCHES = 8
SLOW_LAUNCHES = 2   # of the stress build with x in host memory (Exercise.slow)


def get(name: str) -> Exercise:
    return EXERCISES[choice("exercise", name, EXERCISES)]


def skeleton(name: str = "async_halo") -> str:
    return get(name).skeleton.read_text()


def solution(name: str = "async_halo") -> str:
    return get(name).solution.read_text()


# 1. The text ------------------------------------------------------------------------------------

def _source(src) -> str:
    """The answer as the compiler gets it: a string (bytes are read as UTF-8), no byte-order
    mark, lines ending in a bare newline; ExerciseError if it is no text or too long."""
    if isinstance(src, (bytes, bytearray)):
        try:
            src = bytes(src).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ExerciseError(f"the answer is bytes that are not UTF-8 text (byte {exc.start}); "
                                "pass the kernel's source as a string") from None
    if not isinstance(src, str):
        raise ExerciseError(f"the answer must be the kernel's source as a string, got "
                            f"{type(src).__name__} {reprlib.repr(src)}")
    src = src.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if bad := re.search(r"[\ud800-\udfff\x00]", src):
        what = ("a NUL character" if bad[0] == "\0" else
                f"U+{ord(bad[0]):04X}, not a character (a lone surrogate)")
        raise ExerciseError(f"line {src.count(chr(10), 0, bad.start()) + 1} holds {what}: "
                            "retype that line")
    size = len(src.encode("utf-8"))
    if size > MAX_SOURCE_BYTES:
        raise ExerciseError(f"the answer is {size:,} bytes, more than "
                            f"{MAX_SOURCE_BYTES // 1024} KiB: an exercise's kernel fits in that")
    return src


def _check_markers(src: str) -> None:
    for number, line in enumerate(src.split("\n"), 1):
        if line.strip().startswith("// FILL IN"):   # a marker line, not a comment that names it
            raise ExerciseError(f"line {number} still says FILL IN (replace the marker line with "
                                f"your code): {line.strip()}")


# The preprocessor's view of the source, in one linear pass: C++'s translation phases 2 and 3
# (line splices joined, then comments, literals and the other preprocessing tokens). Every
# alternative matches wherever it starts (an unterminated comment or literal runs to the end of
# the text or line, as the compiler reads it), so no position is scanned twice.
TOKEN = re.compile(r"""
    (?P<space>[ \t\f\v]+) | (?P<newline>\n)
  | (?P<comment>//[^\n]* | /\*(?:.*?\*/|.*))
  | (?P<raw>(?:u8|[uUL])?R"(?P<delimiter>[^ ()\\\t\f\v\n"]{0,16})\()
  | (?P<literal>(?:u8|[uUL])?(?:"(?:[^"\\\n]|\\.)*"? | '(?:[^'\\\n]|\\.)*'?))
  | (?P<number>\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*)
  | (?P<identifier>[^\W0-9]\w*)
  | (?P<hash>\#\#|%:%:|\#|%:)
  | (?P<other>.)""", re.S | re.X)
HEADER_NAME = re.compile(r'<[^>\n]*>?|"[^"\n]*"?')   # what follows #include: not a literal
TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")
DIRECTIVES = {"define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else",
              "endif", "error", "warning", "pragma", "include"}
PRAGMAS = {"unroll", "nounroll", "once", "nv_diag_suppress", "nv_diag_default", "nv_diag_warning",
           "nv_diag_error", "nv_diag_once", "diag_suppress", "diag_default", "diag_warning",
           "nv_diagnostic", "message"}
# Identifiers that make the preprocessor look for files, or build directives out of strings.
FILE_DIRECTIVES = {"include", "include_next", "import", "embed"}   # what names a file
REFUSED = {"__has_include", "__has_include_next", "__has_embed", "_Pragma", "__pragma"}
CUDA_HEADER = re.compile(r"<\w[\w.+-]*(/\w[\w.+-]*)*>")   # <cuda/pipeline>: relative, no ".."
ALLOWED = (f'"{HEADER}" and CUDA\'s own headers such as <cuda/pipeline>')
# The CUDA toolkit's headers for the other copy APIs (the pipeline primitives, cooperative
# groups, the awbarrier): the check compiles with libcu++ alone, which has none of them, so an
# answer that uses them is told so before it is compiled (the same on every machine).
TOOLKIT_ONLY = re.compile(r"<(?:cuda_pipeline\w*\.h|cuda_awbarrier\w*\.h|cooperative_groups"
                          r"(?:\.h|/[\w.+/-]+))>")
# the pipeline primitives (cuda_pipeline.h), used without their header
PIPELINE_PRIMITIVES = {"__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior",
                       "__pipeline_arrive_on"}
NOT_OFFERED = (f"this check compiles with libcu++ (<cuda/pipeline>, <cuda/barrier>) and "
               f"{HEADER} only, not the CUDA toolkit's other headers: write what the FILL IN "
               "places ask with what the skeleton includes (cuda::memcpy_async, "
               "cuda::pipeline, cuda::barrier, inline PTX)")


class _Token(NamedTuple):
    kind: str
    text: str
    line: int


def _tokens(src: str):
    """The preprocessing tokens of ``src`` with their lines (a header name after ``#include``
    is one token, as the preprocessor reads it); ExerciseError for what this reading and the
    compiler's might not agree on (trigraphs, a backslash before spaces at a line's end, a line
    splice inside a raw string, a backslash outside a literal)."""
    if bad := TRIGRAPH.search(src) or re.search(r"\\[ \t\f\v]+\n", src):
        what = ("a trigraph (??=, ??/, ...)" if bad[0].startswith("??") else
                "a backslash followed by spaces at the end of the line")
        raise ExerciseError(f"line {src.count(chr(10), 0, bad.start()) + 1} holds {what}: "
                            "remove it")
    splices, pieces, at = [], src.split("\\\n"), 0
    for piece in pieces[:-1]:   # where each splice was, in the joined text
        at += len(piece)
        splices.append(at)
    text = "".join(pieces)
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line(pos: int) -> int:
        return 1 + bisect.bisect_left(newlines, pos) + bisect.bisect_right(splices, pos)

    pos, name, include = 0, False, False   # after a directive's "#"; after its "include"
    directive = False                           # in a directive's line, after its "#"
    start_of_line = True                        # only spaces and comments so far on this line
    while pos < len(text):
        if include and (m := HEADER_NAME.match(text, pos)):
            kind, end = "header", m.end()
        else:
            m = TOKEN.match(text, pos)
            kind, end = m.lastgroup, m.end()
            if kind == "raw":
                close = text.find(f"){m['delimiter']}\"", end)
                end = len(text) if close < 0 else close + len(m["delimiter"]) + 2
                if bisect.bisect_right(splices, end) > bisect.bisect_right(splices, pos):
                    raise ExerciseError(f"line {line(pos)}: a raw string with a backslash at "
                                        "the end of a line: remove the backslash")
                kind = "literal"
        token = _Token(kind, text[pos:end], line(pos))
        pos = end
        if kind == "other" and token.text == "\\":
            raise ExerciseError(f"line {token.line}: a backslash outside a string or character "
                                "literal: remove it")
        if kind == "comment" and "\n" in token.text and directive:
            # To the preprocessor a comment is one space (phase 3, before directives are
            # read), so a directive goes on past a comment across lines: "#/*\n*/include"
            # is an #include. Refused rather than read: keep a directive on one line.
            raise ExerciseError(f"line {token.line}: a comment that spans lines inside a "
                                "directive (after its #) is refused: keep each directive, "
                                "its comments included, on one line")
        if kind == "space" or kind == "comment" and "\n" not in token.text:
            yield token
            continue
        # a comment across lines counts as a line's end: a directive after it is checked even
        # where the preprocessor (to which the comment is one space) would not read one
        ends_line = kind in ("newline", "comment")
        if ends_line:
            name = include = directive = False
        elif kind == "hash" and start_of_line and token.text in ("#", "%:"):
            name = directive = True   # the next token names the directive
            token = token._replace(kind="directive")
        else:
            include = name and kind == "identifier" and token.text in FILE_DIRECTIVES
            name = False
        start_of_line = ends_line
        yield token


def _directive_text(tokens: list[_Token]) -> str:
    shown = " ".join(t.text for t in tokens if t.kind not in ("space", "comment", "newline"))
    shown = shown.replace("# ", "#", 1).replace("%: ", "%:", 1)
    return shown if len(shown) <= 100 else shown[:97] + "..."


BUILD_MACROS = frozenset({"CONV_TILE", "CONV_K", "CONV_THREADS", "CONV_STAGES", "CONV_TRACE",
                          "CONV_JITTER"})   # what the check's builds set with -D
CONDITIONALS = {"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef"}


@functools.cache
def _checks_macros() -> frozenset[str]:
    """The names a learner may not #define or #undef: the build's macros and every identifier of
    the common header (its macros, and the functions and builtins it calls, such as
    ``conv_jitter`` and ``clock64``: the stress build is made of them)."""
    header = (KERNEL_DIR / HEADER).read_text()
    return BUILD_MACROS | {t.text for t in _tokens(header) if t.kind == "identifier"}


@functools.cache
def _build_and_header_macros() -> frozenset[str]:
    """The build's macros and those the common header defines (CONV_JITTER_POINTS, ...): what
    no #if of an answer may test."""
    header = (KERNEL_DIR / HEADER).read_text()
    return BUILD_MACROS | frozenset(re.findall(r"^\s*#\s*define\s+(\w+)", header, re.M))


@functools.cache
def _skeleton_conditionals() -> frozenset[str]:
    """The conditional directives the skeletons have (``#if !defined(CONV_STAGES) ...``): the
    only ones on the build's macros an answer may keep."""
    shown = set()
    for ex in EXERCISES.values():
        tokens = [t for t in _tokens(ex.skeleton.read_text()) if t.kind not in ("space", "comment")]
        for i, t in enumerate(tokens):
            if t.kind == "directive":
                end = next((j for j, u in enumerate(tokens[i + 1:]) if u.kind == "newline"),
                           len(tokens))
                shown.add(_directive_text([t, *tokens[i + 1:i + 1 + end]]))
    return frozenset(shown)


PHASE_POINT = re.compile(r"\bPHASE \( (\d+) \)")


def _phase_points(src: str) -> list[str]:
    """The points of the PHASE(n) lines of a source (outside comments), in order."""
    return PHASE_POINT.findall(" ".join(t.text for t in _tokens(src)
                                        if t.kind not in ("space", "comment", "newline")))


@functools.cache
def _jitter_points() -> frozenset[str]:
    """The points the stress build waits at: those the header's CONV_JITTER_POINTS enables."""
    mask = re.search(r"#define CONV_JITTER_POINTS (.*)", (KERNEL_DIR / HEADER).read_text())[1]
    return frozenset(re.findall(r"1 << (\d+)", mask))


CLOCK_READ = re.compile(r"mov\.[bu]64\s+[%\w$]+\s*,\s*%clock64$")
JITTER_READS = 3   # clock64 reads of one point's wait: its hash, its start, its loop
JITTER_SALT = 0xC2B2AE3D   # conv_jitter's hash takes point * this: an immediate for each point


def _check_jitter(instructions: list[str], ex: Exercise) -> None:
    """The stress build shakes the kernel at the skeleton's PHASE() points: each one the
    header's CONV_JITTER_POINTS enables compiles to a wait that reads clock64 at least
    :data:`JITTER_READS` times and hashes its point (``point * JITTER_SALT``, an immediate in
    the PTX for every point but 0). Fewer reads than the skeleton's points need, or a point's
    hash missing: a point deleted, hidden in dead code or a string, or conv_jitter shadowed."""
    points = [p for p in _phase_points(ex.skeleton.read_text()) if p in _jitter_points()]
    opcodes = [_opcode_and_rest(i) for i in instructions]
    reads = sum(1 for op in opcodes if CLOCK_READ.match(op))
    immediates = {int(v) for op in opcodes if op.startswith("xor.b32")
                  for v in re.findall(r",\s*(-?\d+)$", op)}
    hashed = {p for p in points if int(p) == 0 or
              (int(p) * JITTER_SALT) % 2**32 in {v % 2**32 for v in immediates}}
    missing = sorted(set(points) - hashed, key=int)
    short = reads < JITTER_READS * len(points)
    if short or missing:
        found = ([f"its PTX reads the clock {reads} times, not {JITTER_READS * len(points)}"]
                 if short else []) + ([f"it has no wait for PHASE({missing[0]})"] if missing else [])
        raise ExerciseError(
            "its stress build does not wait at all the skeleton's PHASE() points (under "
            "-DCONV_JITTER each of " + ", ".join(f"PHASE({p})" for p in sorted(set(points), key=int))
            + f" compiles to a random wait; {' and '.join(found)}): leave every PHASE() line where "
            "the skeleton has it, in code that runs, and the names of the common header as they "
            "are")


def _check_phases(src: str, ex: Exercise) -> None:
    """The skeleton's PHASE() points are all there: the stress build waits at them."""
    if gone := sorted(set(_phase_points(ex.skeleton.read_text())) - set(_phase_points(src)),
                      key=int):
        raise ExerciseError(f"the skeleton's PHASE({gone[0]}) point is gone: leave every "
                            "PHASE() line where the skeleton has it (the check's stress build "
                            "waits there at random, to shake out races)")


def _check_preprocessing(src: str) -> None:
    """Refuse, before compiling, whatever could make the compiler open a file but the common
    header and CUDA's headers (the solutions must stay out of reach, and the compiler would
    echo a file it cannot parse), or read the source differently from this check: every
    ``#include`` must name one of them, literally; no other directive opens files."""
    tokens = list(_tokens(src))
    for i, token in enumerate(tokens):
        if token.kind == "identifier" and token.text in PIPELINE_PRIMITIVES:
            raise ExerciseError(f"line {token.line}: {token.text} (the pipeline primitives of "
                                f"the toolkit's <cuda_pipeline.h>) is not offered here: "
                                f"{NOT_OFFERED}")
        if token.kind == "identifier" and token.text in REFUSED:
            raise ExerciseError(f"line {token.line}: {token.text} is refused: the kernel may "
                                f"include only {ALLOWED}, with #include")
        if token.kind == "hash" and token.text in ("##", "%:%:"):
            raise ExerciseError(f"line {token.line}: ## (token pasting) is refused in an "
                                "exercise: write the names out")
        if token.kind != "directive":
            continue
        rest, j = [], i + 1
        while j < len(tokens) and not (tokens[j].kind in ("newline", "directive") or
                                       tokens[j].kind == "comment" and "\n" in tokens[j].text):
            if tokens[j].kind not in ("space", "comment"):
                rest.append(tokens[j])
            j += 1
        shown = _directive_text([token, *rest])
        name = rest[0].text if rest and rest[0].kind == "identifier" else ""
        if not rest:
            continue   # the null directive: a lone #
        if name in FILE_DIRECTIVES:
            header = rest[1].text if len(rest) == 2 and rest[1].kind == "header" else ""
            if name == "include" and TOOLKIT_ONLY.fullmatch(header):
                raise ExerciseError(f"line {token.line}: {shown} is not offered here: "
                                    f"{NOT_OFFERED}")
            if name != "include" or not (header == f'"{HEADER}"' or CUDA_HEADER.fullmatch(header)
                                         and ".." not in header):
                raise ExerciseError(f"line {token.line}: {shown} is refused: the kernel may "
                                    f"include only {ALLOWED}")
        elif name not in DIRECTIVES:
            raise ExerciseError(f"line {token.line}: {shown} is refused: an exercise needs no "
                                f"#{name or rest[0].text}")
        elif name in ("define", "undef") and len(rest) > 1 and rest[1].text in _checks_macros():
            raise ExerciseError(f"line {token.line}: {shown} is refused: {rest[1].text} belongs "
                                "to the check's builds or the common header (the sizes, the "
                                "stress build's PHASE() points and what they call stay as they "
                                "are)")
        elif name in CONDITIONALS and shown not in _skeleton_conditionals() and any(
                t.text in _build_and_header_macros() for t in rest[1:]):
            raise ExerciseError(f"line {token.line}: {shown} is refused: every build the check "
                                "makes must be the same kernel (a condition on the build's "
                                "sizes or on the stress build would make the one the PTX is "
                                "read from differ from the ones that run); to check the sizes, "
                                "use static_assert")
        elif name == "pragma" and (len(rest) < 2 or rest[1].text not in PRAGMAS):
            raise ExerciseError(f"line {token.line}: {shown} is refused: a kernel needs no "
                                "#pragma but unroll and the like (nv_diag_suppress...)")


# 2. Compiling, in a separate process ------------------------------------------------------------

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


class Deadline:
    """The time left to one check: every compile and the GPU run share it."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def left(self, most: float) -> float:
        return max(0.1, min(most, self.end - time.monotonic()))

    def expired(self) -> bool:
        return time.monotonic() > self.end


def _cache_key(src: str, kernel: str, build: LearnerBuild) -> str:
    options = [o for o in build.options() if not o.startswith("-I")]   # not the private folder
    from ..compile import _cupy_version, nvrtc_version
    key = "\0".join([src, kernel, (KERNEL_DIR / HEADER).read_text(), *options,
                     str(nvrtc_version()), _cupy_version()])
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _compile_many(src: str, ex: Exercise, builds: list[LearnerBuild], folder: Path,
                  deadline: Deadline, what: list[str] | None = None) -> list[tuple[bytes, bytes]]:
    """(PTX, CUBIN) of every build (an empty CUBIN for a ``compute_`` target), each compiled
    in a separate process (``python -m kernels.teach.exercise --compile JOB``) started in the
    private folder, all at once, killed once :data:`COMPILE_LIMIT_S` (or the deadline) has
    passed: NVRTC cannot be stopped in-process, and a few macros can keep its preprocessor busy
    for hours. Compilations are cached on disk by source and options."""
    cache = CACHE_DIR / "exercise"
    keys = [_cache_key(src, ex.kernel, build) for build in builds]
    (folder / "answer.cu").write_text(src, encoding="utf-8")
    running = {}
    for i, (key, build) in enumerate(zip(keys, builds)):
        if not (cache / f"{key}.json").exists():
            job = folder / f"job{i}.json"
            job.write_text(json.dumps({"source": str(folder / "answer.cu"), "kernel": ex.kernel,
                                       "options": build.options(), "out": str(cache / key)}))
            running[i] = subprocess.Popen([*COMPILER, str(job)], cwd=build.include or folder,
                                          env=_child_env(), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, start_new_session=True)
    limit = deadline.left(COMPILE_LIMIT_S)
    try:
        for i, process in running.items():
            _, err = process.communicate(timeout=deadline.left(limit))
            if process.returncode and not (cache / f"{keys[i]}.json").exists():
                last = (err.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
                raise ExerciseError(f"the compiler failed (exit {process.returncode}): {last}")
    except subprocess.TimeoutExpired:
        raise ExerciseError(f"it did not compile within {limit:.0f} s: macros that expand "
                            "to millions of tokens, templates nested too deep, or loops "
                            "unrolled too far (#pragma unroll)?") from None
    finally:
        for process in running.values():
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)   # its own session: it and no other
                except ProcessLookupError:
                    pass
                process.wait()
    done = []
    for i, key in enumerate(keys):
        if not (cache / f"{key}.json").exists():
            raise ExerciseError("the compiler stopped without a word: try again")
        result = json.loads((cache / f"{key}.json").read_text())
        if result["log"] is not None:
            raise DoesNotCompile(f"it does not compile{what[i] if what else ''}: "
                                 f"{_first_error(result['log'], src, ex.kernel)}")
        done.append(tuple(Path(f"{cache / key}.{kind}").read_bytes() for kind in ("ptx", "cubin")))
    return done


def _child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(KERNEL_DIR.parent), os.environ.get("PYTHONPATH")) if p)}


def compile_job(job_file: Path) -> None:
    """The compiling side (the separate process): compile one job's source with its options,
    and leave PTX, CUBIN and ``.json`` (NVRTC's log, or null) beside ``out``, the cache's name
    for it; the ``.json`` is written last, so that it means the rest is whole."""
    from ..compile import _nvrtc
    nvrtc = _nvrtc()
    job = json.loads(Path(job_file).read_text())
    src = Path(job["source"]).read_text(encoding="utf-8")
    prog = nvrtc.createProgram(src, f"{job['kernel']}.cu", [], [])
    log, binaries = None, {"ptx": b"", "cubin": b""}
    try:
        try:
            nvrtc.compileProgram(prog, job["options"])
            for kind, get in (("ptx", nvrtc.getPTX), ("cubin", nvrtc.getCUBIN)):
                if kind == "ptx" or any(o.startswith("--gpu-architecture=sm_")
                                        for o in job["options"]):
                    binary = get(prog)
                    binaries[kind] = binary if isinstance(binary, bytes) else binary.encode()
        except nvrtc.NVRTCError:
            log = nvrtc.getProgramLog(prog)
            log = log.decode("utf-8", "replace") if isinstance(log, bytes) else log
    finally:
        nvrtc.destroyProgram(prog)
    out = Path(job["out"])
    out.parent.mkdir(parents=True, exist_ok=True)
    for kind, binary in binaries.items():
        _write_atomically(out.with_name(f"{out.name}.{kind}"), binary)
    _write_atomically(out.with_name(f"{out.name}.json"), json.dumps({"log": log}).encode())


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


LOG_LINE = 600   # characters of a compiler log's line that the verdict reads
ERROR = re.compile(r"(?P<file>.+?)\((?P<line>\d+)\): (?:catastrophic )?error[^:]*: (?P<what>.*)")
LOCATION = re.compile(r"\S.*?\(\d+\): ")   # the first line of a message: error, note...


def _no_paths(text: str) -> str:
    """``.../libcudacxx/cuda/pipeline`` as ``<cuda/pipeline>``, any other path as its file name."""
    text = re.sub(r"\S*/libcudacxx/([^\s()\"':]+)", r"<\1>", text)
    return re.sub(r"(?:^|(?<=[\s\"'(]))(?:/[^\s/\"'()<>]+)+/([^\s/\"'()<>]+)", r"\1", text)


def _first_error(log: str, src: str, name: str) -> str:
    """NVRTC's first error, on the learner's line: 'line N, `code`: what' (an error inside a
    header is placed where the learner's code, compiled as ``name``.cu, instantiated it). Each
    line of the log is read to :data:`LOG_LINE` characters (a static_assert's message may be a
    string of a million: every pattern here then stays cheap, and the verdict short)."""
    lines = [line if len(line) <= LOG_LINE else line[:LOG_LINE] + "…"
             for line in log[:LOG_LINE * 1000].splitlines()]
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
    first = next((line for line in lines if line.strip()), "")
    return _no_paths(first.strip()) if first else "(no message)"


def _source_line(src: str, number: int) -> str:
    lines = src.split("\n")
    line = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    return line if len(line) <= 100 else line[:97] + "..."


def _instantiated_at(following: list[str], name: str) -> int | None:
    """The learner's line that an error inside a header comes from: its indented lines say
    'detected during instantiation of ... at line N of NAME.cu'."""
    for line in following:
        if LOCATION.match(line):   # the next message: this error's lines are over
            return None
        at = re.search(rf"at line (\d+) of \S*{re.escape(name)}\.cu", line)
        if at:
            return int(at.group(1))
    return None


# 3. The PTX -------------------------------------------------------------------------------------

# What the PTX checks read: instructions, not comments or strings (inline asm may hold either).
PTX_NOISE = re.compile(r'"[^"\n]*"|//[^\n]*|/\*(?:.*?\*/|.*)', re.S)
PTX_FUNCTION = re.compile(r"\.(?P<kind>entry|func)\s*(?:\([^)]*\)\s*)?(?P<name>[\w$%]+)\s*"
                          r"(?:\((?P<params>[^)]*)\))?")
PTX_TOP, PTX_OPENING, PTX_BRACE = (re.compile(r"[{}]|\.(?:entry|func)\b"), re.compile(r"[{;]"),
                                   re.compile(r"[{}]"))
PTX_LABEL = re.compile(r"\s*([\w$%]+)\s*:(?!:)")
PTX_CALL = re.compile(r"call(?:\.uni)?\s*(?:\([^)]*\)\s*,\s*)?([\w$%]+)")
PTX_BRANCH = re.compile(r"bra(?:\.uni)?\s+([\w$%]+)")
MAX_INSTRUCTIONS = 50_000    # of a kernel with its functions inlined (an answer has ~2,000)
RETRY_LOOP = 48              # the most instructions of a loop that retries an mbarrier wait
MAX_CALLS = 20_000           # calls of .func followed, in all
MAX_WAITS = 2_000            # mbarrier waits (try_wait, test_wait) in the PTX read, in all
MAX_PTX_BYTES = 16 * 2**20   # the PTX the checks read


class _Function(NamedTuple):
    kind: str
    params: str
    body: str   # between its braces, comments and strings blanked


def _ptx_functions(ptx: str) -> dict[str, _Function]:
    """Every function the PTX defines (``.entry`` kernels and ``.func`` device functions), its
    body found by matching braces, at any depth (inline PTX opens its own)."""
    text = PTX_NOISE.sub(lambda m: '""' if m[0].startswith('"') else " ", ptx)
    functions, pos = {}, 0
    while m := PTX_TOP.search(text, pos):
        pos = m.end()
        if m[0] == "{" or m[0] == "}":
            continue   # a brace outside any function (there is none in NVRTC's PTX)
        header = PTX_FUNCTION.match(text, m.start())
        opening = PTX_OPENING.search(text, m.start())
        if not header or not opening or opening[0] == ";":   # a declaration: no body
            if header and opening:   # a function defined elsewhere (vprintf): called, not read
                functions.setdefault(header["name"], _Function("extern", header["params"] or "",
                                                               ""))
            pos = opening.end() if opening else len(text)
            continue
        depth, end = 0, opening.start()
        for brace in PTX_BRACE.finditer(text, opening.start()):
            depth += 1 if brace[0] == "{" else -1
            if depth == 0:
                end = brace.end()
                break
        else:
            end = len(text)
        functions[header["name"]] = _Function(header["kind"], header["params"] or "",
                                              text[opening.end():end - 1])
        pos = end
    return functions


PTX_DELIMITER = re.compile(r"[;{}]")


def _labels_and_rest(text: str) -> tuple[list[str], str]:
    """The labels that open ``text`` (``"$L__BB0_2:"``), and what follows them."""
    labels, at = [], 0
    while label := PTX_LABEL.match(text, at):   # from a position: linear in the text's length
        labels.append(label[1] + ":")
        at = label.end()
    return labels, text[at:]


def _statements(body: str) -> list[tuple[str, str | None]]:
    """A function body's instructions in the order the PTX lists them, each with the function
    it calls (or None): predicate and labels stay, as ``"@%p1 bra $L__BB0_2"`` and
    ``"$L__BB0_2:"``, and so do its blocks' braces, as ``"{"`` and ``"}"`` (a label is local to
    its block); the braces of a vector operand, ``{%r1, %r2}``, stay in their instruction."""
    out: list[tuple[str, str | None]] = []

    def add(statement: str) -> None:
        labels, statement = _labels_and_rest(statement)
        out.extend((label, None) for label in labels)
        statement = " ".join(statement.split())
        if statement.startswith(".branchtargets"):   # a brx.idx's table: where it may go
            out.append((statement, None))
        elif statement and not statement.startswith("."):   # .reg, .shared, .pragma...
            call = PTX_CALL.match(_opcode_and_rest(statement))
            out.append((statement, call[1] if call else None))

    parts: list[str] = []   # the statement so far, when it holds a vector's braces
    pos = 0
    for m in PTX_DELIMITER.finditer(body):
        piece, pos = body[pos:m.start()], m.end()
        if m[0] == ";":
            add("".join(parts) + piece)
            parts = []
        elif not parts and not _labels_and_rest(piece)[1].strip():   # a block's brace
            add(piece)
            out.append((m[0], None))
        else:
            parts.append(piece + m[0])
    add("".join(parts) + body[pos:])
    return out


class TooLarge(ExerciseError):
    """The PTX is past one of the check's limits: whatever build it comes from, the same."""


def _too_large(what: str) -> TooLarge:
    return TooLarge(f"its PTX is too large to check ({what}): an exercise's kernel is "
                         "much shorter; take out what it does not need")


# Where _instructions puts a function's body: between ".entry NAME {" (or ".func NAME {") and "}"
PTX_BODY = re.compile(r"\.(?:entry|func) \S+ \{$")


def _instructions(functions: dict[str, _Function], name: str,
                  deadline: Deadline | None = None) -> list[str]:
    """The instructions of function ``name`` in the order the PTX lists them, between
    ``".entry NAME {"`` and ``"}"``, each called ``.func`` inlined where it is called (recursion
    aside) between ``".func CALLEE {"`` and ``"}"``, walked with an explicit stack: each body is
    read once, and the walk stops (ExerciseError) past :data:`MAX_INSTRUCTIONS` instructions,
    :data:`MAX_CALLS` calls followed, or the check's deadline."""
    parsed: dict[str, list[tuple[str, str | None]]] = {}

    def body(function: str):
        if function not in parsed:
            parsed[function] = _statements(functions[function].body)
        return iter(parsed[function])

    out: list[str] = []

    def add(statement: str) -> None:
        out.append(statement)
        if len(out) > MAX_INSTRUCTIONS:
            raise _too_large(f"more than {MAX_INSTRUCTIONS} instructions, functions inlined")

    add(f".{functions[name].kind} {name} {{")
    stack, calling, calls = [(name, body(name))], {name}, 0
    while stack:
        function, statements = stack[-1]
        for statement, callee in statements:
            add(statement)
            if callee is not None and callee not in functions:   # a register, not a function
                raise ExerciseError(
                    "it calls a function through a pointer (in the PTX, a call through a "
                    "register): the check follows the functions a kernel calls by name, and "
                    "could not see what this one does; call it directly")
            if callee in functions and functions[callee].kind != "extern" \
                    and callee not in calling:
                calls += 1
                if calls > MAX_CALLS:
                    raise _too_large(f"more than {MAX_CALLS} calls of its functions")
                if deadline is not None and calls % 64 == 0 and deadline.expired():
                    raise _too_large("its functions take too long to follow")
                add(f".func {callee} {{")
                stack.append((callee, body(callee)))
                calling.add(callee)
                break
        else:
            add("}")
            stack.pop()
            calling.discard(function)
    return out


PTX_GUARD = re.compile(r"@(!?)(%?[\w$]+)\s*")
# a vote of the threads, this one's predicate among them: __all_sync, __any_sync,
# __ballot_sync, __syncthreads_and, __syncthreads_or (its kind, its result, the predicate)
PTX_VOTE = re.compile(r"vote(?:\.sync)?\.(all|any|ballot)\.(?:pred|b32)\s+(%\w+),\s*(!?%\w+)"
                      r"\s*(?:,|$)|bar(?:rier)?(?:\.cta)?\.red\.(and|or)\.pred\s+(%\w+),"
                      r"(?:\s*\w+\s*,){1,2}\s*(!?%\w+)$")
# what a vote's result is compared with: __ballot_sync(~0u, done) != ~0u,
# __popc(__ballot_sync(~0u, done)) < 32, __reduce_and_sync(~0u, done) == 0
PTX_RANGE_SETP = re.compile(r"setp\.(eq|ne|lt|le|gt|ge|lo|ls|hi|hs)\.([bsu])32\s+(%\w+)\s*,"
                            r"\s*(%\w+)\s*,\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))$")
PTX_POPC = re.compile(r"popc\.b32\s+(%\w+)\s*,\s*(%\w+)$")
PTX_NOT = re.compile(r"not\.b32\s+(%\w+)\s*,\s*(%\w+)$")
PTX_REDUX = re.compile(r"redux\.sync\.(and|or|min|max)\.[bsu]32\s+(%\w+)\s*,\s*(%\w+)\s*,")
ALL_ONES = 0xFFFFFFFF
LACKING = (-1, -1)   # a 32-bit value with one bit 0 (a ballot without this lane): not ~0u


def _compared(test: str, kind: str, span: tuple[int, int], k: int) -> bool | None:
    """setp's ``test`` of a 32-bit value known only to lie in ``span`` (unsigned bounds, or
    :data:`LACKING`) against ``k``, where the span decides it."""
    k &= ALL_ONES
    if span == LACKING:
        return {"eq": False, "ne": True}.get(test) if k == ALL_ONES else None
    lo, hi = span
    test = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}.get(test, test)
    if kind == "s" and test not in ("eq", "ne") and (hi >= 1 << 31 or k >= 1 << 31):
        return None   # signed order: only where both are positive
    if test in ("eq", "ne"):
        same = True if lo == hi == k else False if k < lo or k > hi else None
        return same if same is None or test == "eq" else not same
    sure = {"lt": (hi < k, lo >= k), "le": (hi <= k, lo > k), "gt": (lo > k, hi <= k),
            "ge": (lo >= k, hi < k)}[test]
    return True if sure[0] else False if sure[1] else None
PTX_SELP = re.compile(r"selp\.\w+\s+([%\w$]+)\s*,\s*([^,]+?)\s*,\s*([^,]+?)\s*,\s*(!?[%\w$]+)$")


def _opcode_and_rest(instruction: str) -> str:
    """The instruction without its guard predicate: ``@!%p1 bra L`` -> ``bra L``."""
    guard = PTX_GUARD.match(instruction)
    return instruction[guard.end():] if guard else instruction


def _kernel_instructions(ptx: str, name: str, deadline: Deadline | None = None) -> list[str]:
    """The PTX instructions of the learner's kernel, its functions inlined; ExerciseError
    unless it has the right name and parameters (three pointers and an int)."""
    keep = f'keep extern "C" __global__ void {name}{SIGNATURE}'
    if len(ptx) > MAX_PTX_BYTES:
        raise _too_large(f"{len(ptx) / 2**20:.0f} MiB")
    functions = _ptx_functions(ptx)
    kernel = functions.get(name)
    if not kernel or kernel.kind != "entry":
        names = [found for found, f in functions.items() if f.kind == "entry"]
        if any(found.startswith("_Z") and name in found for found in names):
            raise ExerciseError(f'the kernel lost its extern "C" (its name is mangled): {keep}')
        found = f"the kernel is named {names[0]}" if names else "there is no __global__ kernel"
        raise ExerciseError(f"{found}; the check launches {name}: {keep}")
    types = re.findall(r"\.param\s+\.(\w+)", kernel.params)
    if types[:3] != ["u64"] * 3 or types[3:] not in (["u32"], ["s32"]):
        raise ExerciseError(f"{name} must keep its parameters {SIGNATURE}")
    return [_decimal(i) for i in _instructions(functions, name, deadline)]


# an integer operand as PTX writes it: hexadecimal, binary, octal or decimal, U for unsigned
PTX_LITERAL = re.compile(r"(?<![\w$%.])(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]+|[1-9][0-9]*|0)U?"
                         r"(?![\w$.])")


def _literal(m: re.Match) -> str:
    text = m[1]
    base = (16 if text[1:2] in "xX" else 2 if text[1:2] in "bB" else 8) if (
        len(text) > 1 and text[0] == "0") else 10
    return str(int(text[2:] if base in (16, 2) else text, base))


def _decimal(instruction: str) -> str:
    """``instruction`` with its integer operands in decimal (inline asm may write
    ``cp.async.wait_group 0x1`` or ``bar.sync 0x0``, which ptxas reads as 1 and 0)."""
    return PTX_LITERAL.sub(_literal, instruction) if any(c.isdigit() for c in instruction) \
        else instruction


# Constants a basic block makes: a setp on immediates, a mov of one (the predicates that make a
# branch or a guarded instruction certain, the way inline asm can write them)
PTX_SETP = re.compile(r"setp\.(\w+)(?:\.ftz)?\.([bsuf])(\d+)\s+([\w$%]+)\s*(?:\|\s*([\w$%]+))?"
                      r"\s*,\s*([^,\s]+)\s*,\s*([^,\s]+)$")
PTX_MOV = re.compile(r"mov\.(pred|[bsuf]\d+)\s+([\w$%]+)\s*,\s*([^,\s]+)$")
PTX_INTEGER = re.compile(r"-?(?:0[xX][0-9a-fA-F]{1,16}|0[bB][01]{1,64}|0[0-7]{0,22}"
                         r"|[1-9][0-9]{0,19})U?")   # 64 bits at most
PTX_FLOAT = re.compile(r"0([fF][0-9a-fA-F]{8}|[dD][0-9a-fA-F]{16})"
                       r"|-?[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?")
PTX_DESTINATION = re.compile(r"\S+\s+(\{[^}]*\}|[^,]*)")   # an instruction's first operand
PTX_LOGIC = re.compile(r"(and|or|xor|not)\.pred\s+([\w$%]+)\s*,\s*(!?[\w$%]+)"
                       r"(?:\s*,\s*(!?[\w$%]+))?$")
MAX_KNOWN = 16   # registers a basic block keeps the values of: a copy of them per branch
LOGIC = {"and": all, "or": any, "xor": lambda v: v[0] != v[1], "not": lambda v: not v[0]}
COMPARE = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
           "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}
UNSIGNED = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
PTX_BRX = re.compile(r"brx\.idx(?:\.uni)?\s+[^,]+,\s*([\w$%]+)|brx\.idx\b")   # indirect
PTX_TARGETS = re.compile(r"\.branchtargets\s+(.*)$")   # the labels of brx.idx's table
PTX_RET = re.compile(r"ret(?:\.uni)?$")
PTX_END = re.compile(r"(?:exit|trap)$")


def _immediate(operand: str, known: dict) -> int | float | bool | None:
    """An operand's value where this basic block makes it certain: an immediate, or a register
    it moved one into; None where it does not."""
    if operand in known:
        return known[operand]
    if PTX_INTEGER.fullmatch(operand):
        digits = operand.rstrip("U")
        unsigned = digits.lstrip("-")
        if unsigned[:2].lower() in ("0x", "0b"):
            return int(digits, 0)
        return int(digits, 8 if unsigned.startswith("0") else 10)
    if m := PTX_FLOAT.fullmatch(operand):
        if not m[1]:
            return float(operand)
        return struct.unpack(">f" if m[1][0] in "fF" else ">d", bytes.fromhex(m[1][1:]))[0]
    return None


def _compare(test: str, kind: str, bits: int, a, b) -> bool | None:
    """``setp.TEST.KIND<BITS>`` on two values (None: not a comparison this reads)."""
    if kind == "f":
        a, b = float(a), float(b)
        unordered = a != a or b != b   # a NaN
        if test in ("num", "nan"):
            return unordered == (test == "nan")
        ordered = test[:-1] if len(test) == 3 and test.endswith("u") else test
        if ordered not in COMPARE:
            return None
        return test != ordered if unordered else COMPARE[ordered](a, b)
    if not (isinstance(a, int) and isinstance(b, int)) or not 0 < bits <= 64:
        return None
    a, b = a & ((1 << bits) - 1), b & ((1 << bits) - 1)
    if kind == "s":
        a, b = (v - (1 << bits) if v >> (bits - 1) else v for v in (a, b))
    test = UNSIGNED.get(test, test)
    return COMPARE[test](a, b) if test in COMPARE else None


def _results(instruction: str, known: dict) -> list[tuple[str, object]] | None:
    """The registers a setp, a predicate's and/or/xor/not or a mov writes, each with its value
    where ``known`` makes it certain (None where not); None for any other instruction."""
    if m := PTX_SETP.match(instruction):
        a, b = _immediate(m[6], known), _immediate(m[7], known)
        if m[6] == m[7] and m[2] != "f":   # a register against itself: equal, whatever it holds
            a = b = 0
        result = None if a is None or b is None else _compare(m[1], m[2], int(m[3]), a, b)
        return [(m[4], result)] + ([(m[5], None if result is None else not result)]
                                   if m[5] else [])
    if m := PTX_LOGIC.match(instruction):
        values = [known.get(o.lstrip("!")) for o in m.group(3, 4) if o]
        values = [v != o.startswith("!") if isinstance(v, bool) else None
                  for v, o in zip(values, (m[3], m[4]))]
        return [(m[2], None if None in values or len(values) != 1 + (m[1] != "not")
                 else LOGIC[m[1]](values))]
    if m := PTX_MOV.match(instruction):
        value = _immediate(m[3], known)
        return [(m[2], bool(value) if m[1] == "pred" and value is not None else value)]
    return None


def _assign(instruction: str, certain: bool, known: dict) -> None:
    """What ``instruction`` makes certain, or no longer certain, in ``known`` (a register's
    value): ``certain`` if it surely runs, not under a predicate that may be false."""
    results = _results(instruction, known) if certain else None
    if results is None and known and (m := PTX_DESTINATION.match(instruction)):
        results = [(register, None) for register in re.findall(r"[\w$%]+", m[1])]
    for register, value in results or ():
        if value is None:
            known.pop(register, None)   # written: no longer certain
        elif register in known or len(known) < MAX_KNOWN:
            known[register] = value


def _meet(known: dict, other: dict) -> dict:
    """What is certain where two paths join: what both make certain, alike."""
    return {register: value for register, value in known.items()
            if register in other and other[register] == value}


class _Flow:
    """The control flow of a kernel's instructions (:func:`_instructions`, functions inlined),
    instruction by instruction: where each may go next, and which of them run.

    Basic blocks end at labels and after branches. ``bra`` goes to its label (the one its block
    or the nearest block around it declares), an ``@p bra`` there or on, unless a setp on
    immediates or a mov of one makes ``p`` certain: in its basic block, or in every block that
    leads into it (only forward: a label that a later branch names starts afresh); an
    indirect ``brx.idx`` may go to the labels of its ``.branchtargets`` table, without one to any
    label of its function. ``ret`` returns past the end of the function's body (in the kernel:
    the end), ``exit`` and ``trap`` end the path. An instruction runs if a path from the entry
    reaches it and its guard is not certainly false (``issued``); it surely runs where reached
    if it has no guard or one certainly true (``sure``). Every walk here is linear in the number
    of instructions."""

    def __init__(self, instructions: list[str]):
        n = len(instructions)
        self.size = n
        self.found: dict[tuple, list[int]] = {}   # _in_loop's answers, one check's
        self.successors: list[tuple[int, ...]] = [()] * n
        closes, declared, owned, named = self._blocks(instructions)
        visible: dict[str, list[int]] = {}   # a label's indices, innermost open block last
        for label, at in declared.get(-1, ()):
            visible.setdefault(label, []).append(at)
        blocks, functions, known = [], [0], {}
        never = bytearray(n)                  # its guard is certainly false
        self.sure = bytearray(n)              # no guard, or one certainly true: runs if reached
        arriving: dict[int, dict] = {}        # what is certain at a label, from branches to it
        anywhere = set()                      # functions with an indirect branch
        self.ending: set[int] = set()         # exit, trap, the kernel's ret: the path may end

        def go(target: str) -> int:
            found = visible.get(target)
            if found:
                return found[-1]
            anywhere.add(functions[-1])       # not found: any label of the function
            return functions[-1]

        for i, text in enumerate(instructions):
            after = (i + 1,) if i + 1 < n else ()
            self.successors[i] = after
            if text == "{" or PTX_BODY.match(text):
                blocks.append(i)
                for label, at in declared.get(i, ()):
                    visible.setdefault(label, []).append(at)
                if text != "{":
                    functions.append(i)
                    known = {}
                continue
            if text == "}":
                if blocks:
                    block = blocks.pop()
                    for label, _ in declared.get(block, ()):
                        visible[label].pop()
                    if functions[-1] == block and len(functions) > 1:
                        functions.pop()
                known = {}
                continue
            if text.endswith(":"):   # where the blocks that branch here join the one before
                joined = [s for s in (known, arriving.pop(i, None)) if s is not None]
                back = named is None or named.get(text[:-1], i) > i   # or from anywhere
                known = {} if back or not joined else _meet(joined[0], joined[-1])
                continue
            guard = PTX_GUARD.match(text)
            op = text[guard.end():] if guard else text
            value = (known or {}).get(guard[2]) if guard else True   # None: no path falls in
            if isinstance(value, bool) and guard and guard[1]:
                value = not value
            value = value if isinstance(value, bool) else None
            self.sure[i] = value is True
            inlined = (PTX_CALL.match(op) and i + 1 < n and PTX_BODY.match(instructions[i + 1]))
            skip = (closes.get(i + 1, n),) if inlined else after
            if value is False:   # never runs: on to the next instruction, or past the call
                never[i] = 1
                self.successors[i] = tuple(j for j in skip if j < n)
                continue
            if (branch := PTX_BRANCH.match(op)) or (indirect := PTX_BRX.match(op)):
                targets = (go(branch[1]),) if branch else self._table(indirect, instructions, go)
                self.successors[i] = targets if value else (*targets, *after)
                for target in targets:
                    if target > i and known is not None:
                        arriving[target] = _meet(arriving.get(target, known), known)
                known = None if value else known
            elif PTX_RET.match(op) or PTX_END.match(op):
                end = closes.get(functions[-1], n) if PTX_RET.match(op) else n
                if end >= n:
                    self.ending.add(i)
                self.successors[i] = ((end,) if end < n else ()) + (() if value else after)
                known = None if value else known
            elif inlined and not value:
                self.successors[i] = (i + 1, *(j for j in skip if j < n))
            elif known is not None:
                _assign(op, bool(value), known)
        for function in anywhere:
            self.successors[function] += tuple(owned.get(function, ()))
        reached = self.reach([0], inclusive=True) if n else bytearray()
        self.issued = bytearray(r and not d for r, d in zip(reached, never))

    @staticmethod
    def _table(brx: re.Match, instructions: list[str], go) -> tuple[int, ...]:
        """Where a brx.idx may go: the labels its .branchtargets table lists (the table a
        label names, the line after it), or, without one, any label of its function (``go``
        of a label no block declares: the function's first line, which goes to them all)."""
        table = go(brx[1]) if brx[1] else -1
        if 0 < table + 1 < len(instructions) and instructions[table].endswith(":") and (
                m := PTX_TARGETS.match(instructions[table + 1])):
            return tuple(go(label.strip()) for label in m[1].split(","))
        return (go(""),)

    @staticmethod
    def _blocks(instructions: list[str]):
        """Each block's closing brace (by its opening's index), the labels each block declares,
        those of each function's body, nested blocks included, and the last branch that names
        each label (None if a branch may go to any label: an indirect one, or one to a label
        that no block declares)."""
        closes, declared, owned, named = {}, {}, {}, {}
        indirect = False
        blocks, functions = [], [0]
        for i, text in enumerate(instructions):
            if text == "{" or PTX_BODY.match(text):
                blocks.append(i)
                if text != "{":
                    functions.append(i)
            elif text == "}" and blocks:
                block = blocks.pop()
                closes[block] = i
                if functions[-1] == block and len(functions) > 1:
                    functions.pop()
            elif text.endswith(":"):   # outside every block (no body's braces): block -1
                declared.setdefault(blocks[-1] if blocks else -1, []).append((text[:-1], i))
                owned.setdefault(functions[-1], []).append(i)
            elif branch := PTX_BRANCH.match(_opcode_and_rest(text)):
                named[branch[1]] = i
            else:
                indirect = indirect or bool(PTX_BRX.match(_opcode_and_rest(text)))
        labels = {label for block in declared.values() for label, _ in block}
        return closes, declared, owned, None if indirect or set(named) - labels else named

    def reach(self, sources, inclusive: bool, stops=(), within: bytearray | None = None
              ) -> bytearray:
        """What control reaches from ``sources`` (themselves too, if ``inclusive``), going on past
        no instruction in ``stops``, and, with ``within``, only through its instructions."""
        stops = set(stops)
        seen = bytearray(self.size)
        todo = list(sources) if inclusive else [j for i in sources for j in self.successors[i]]
        while todo:
            i = todo.pop()
            if seen[i] or within is not None and not within[i]:
                continue
            seen[i] = 1
            if i not in stops:
                todo.extend(self.successors[i])
        return seen

    def reach_back(self, targets, stops=(), within: bytearray | None = None) -> bytearray:
        """What reaches one of ``targets`` (themselves too), going back past no instruction in
        ``stops`` and, with ``within``, only through its instructions: :meth:`reach` with the
        edges turned round (the predecessors are found once)."""
        if not hasattr(self, "predecessors"):
            self.predecessors: list[list[int]] = [[] for _ in range(self.size)]
            for i, after in enumerate(self.successors):
                for j in after:
                    self.predecessors[j].append(i)
        stops = set(stops)
        seen = bytearray(self.size)
        todo = list(targets)
        while todo:
            i = todo.pop()
            if seen[i] or within is not None and not within[i]:
                continue
            seen[i] = 1
            todo.extend(j for j in self.predecessors[i] if j not in stops)
        return seen

    def loops_around(self, instructions) -> bytearray:
        """The instructions of the outermost loops (strongly connected components, Tarjan's,
        walked iteratively) that hold any of ``instructions``."""
        n, successors = self.size, self.successors
        index, low, component = [-1] * n, [0] * n, [-1] * n
        on_stack, stack, counter, components = bytearray(n), [], 0, []
        for root in range(n):
            if index[root] >= 0 or not self.issued[root]:
                continue
            work = [(root, 0)]
            while work:
                v, k = work[-1]
                if k == 0:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on_stack[v] = 1
                if k < len(successors[v]):
                    work[-1] = (v, k + 1)
                    w = successors[v][k]
                    if index[w] < 0:
                        work.append((w, 0))
                    elif on_stack[w]:
                        low[v] = min(low[v], index[w])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    members = []
                    while True:
                        w = stack.pop()
                        on_stack[w] = 0
                        component[w] = len(components)
                        members.append(w)
                        if w == v:
                            break
                    components.append(members)
        region = bytearray(n)
        for c in {component[i] for i in instructions if component[i] >= 0}:
            members = components[c]
            if len(members) > 1 or members[0] in successors[members[0]]:   # a loop
                for j in members:
                    region[j] = 1
        return region

    def short_loops(self, most: int) -> bytearray:
        """The instructions inside a loop of at most ``most`` instructions as the PTX lists
        them: from a label to a branch back to it that runs."""
        inside = bytearray(self.size)
        for i in range(self.size):
            if self.issued[i]:
                for target in self.successors[i]:
                    if target <= i and i + 1 - target <= most:
                        inside[target:i + 1] = b"\1" * (i + 1 - target)
        return inside


CP_ARRIVE = re.compile(r"cp\.async\.mbarrier\.arrive\b")   # copies that complete on an mbarrier
PTX_OPERAND = re.compile(r"\S+\s+([%\w$]+)")                # an instruction's first operand
PTX_ADDRESS = re.compile(r"\[([^\]]*)\]")                     # a memory operand


def _slot(address: str) -> str:
    """A memory operand as a name, the callee's return value and its caller's as one, and
    ``[retval0+0]`` as ``[retval0]``."""
    return "mem:" + re.sub(r"\s+|\+0$", "", address).replace("func_retval0", "retval0")


PTX_OPERANDS = re.compile(r"(?<=[\s,\[{|!])([%\w$]+)")        # its register and name operands


def _retry_loops(instructions: list[str], opcodes: list[str], flow: _Flow) -> bytearray:
    """The mbarrier waits (try_wait, test_wait) that wait: each in a short loop
    (:data:`RETRY_LOOP` instructions, not the tile loop) whose branch its result decides: the
    predicate that says whether the phase has completed, or what a ``selp``, ``setp`` or
    predicate logic makes of it, guards a branch within the next :data:`RETRY_LOOP`
    instructions that goes somewhere (not to the next instruction), and back into the loop only
    when the phase has not completed (``@!p``); or a first try before such a loop (the
    compiler peels one off a loop with a back-off, ``__nanosleep``) whose success jumps past
    it. A loop that ignores the result may end before the phase does, and so may one that
    also gives up after so many tries (:func:`gives_up` inside: its way out with the phase
    incomplete must lead into another try, as libcu++'s own wait leaves its spin for a loop
    that sleeps between tries). Linear: each wait looks at most that far, and one walk back
    from the shared loads finds where a path reads on without another try."""
    waits = bytearray(len(opcodes))
    found = sum(1 for op in opcodes if MB_WAIT.match(op))
    if found > MAX_WAITS:   # each is followed RETRY_LOOP instructions on: bounded work
        raise _too_large(f"{found} mbarrier waits, more than the {MAX_WAITS} it reads")
    inside = flow.short_loops(RETRY_LOOP)

    def decided(i: int, in_loop: bool) -> int | None:
        """Where the branch that the result of the wait at ``i`` decides goes, or None."""
        result = PTX_OPERAND.match(opcodes[i])
        if not result:
            return None
        tainted = {result[1]}
        for j in range(i + 1, min(i + 1 + RETRY_LOOP, len(opcodes))):
            if in_loop and not inside[j]:
                return None
            guard = PTX_GUARD.match(instructions[j])
            if guard and guard[2] in tainted and PTX_BRANCH.match(opcodes[j]):
                target = next((t for t in flow.successors[j] if t != j + 1), None)
                if target is None:
                    continue   # a branch to the next instruction decides nothing
                if target <= i and guard[2] == result[1] and not guard[1]:
                    return None   # back into the loop once the phase HAS completed
                return target
            address = PTX_ADDRESS.search(opcodes[j])
            operands = PTX_OPERANDS.findall(PTX_ADDRESS.sub(" ", opcodes[j]))
            if address and opcodes[j].startswith("st.") and tainted & set(operands):
                tainted.add(_slot(address[1]))   # kept in memory (a volatile flag, a return)
            elif address and opcodes[j].startswith("ld.") and _slot(address[1]) in tainted:
                tainted.add(operands[0])
            elif len(operands) > 1 and tainted & set(operands[1:]):
                tainted.add(operands[0])   # what it computes from the result
            elif operands and operands[0] in tainted:
                tainted.discard(operands[0])   # overwritten (a later wait's result in p too)
        return None

    # where a path goes on to read shared memory without trying a wait again: a retry loop
    # must not leave for there but where its result decides (libcu++'s own wait leaves its spin
    # on a timer, for a loop that sleeps between tries: into another wait)
    tries = [i for i, op in enumerate(opcodes) if MB_WAIT.match(op) and inside[i]]
    unwaited = flow.reach_back([i for i, op in enumerate(opcodes) if SHARED_LOAD.match(op)],
                               stops=tries)

    def gives_up(i: int) -> bool:
        """Whether the loop round the wait at ``i`` (up to its first branch back to it, and a
        little past) has a way out while the phase has not completed that goes on to read
        shared memory with no other try on the way: ``for (tries = 0; !done && tries < 1 <<
        20; ++tries)`` reads on after its last try. The loop is followed with the wait's result
        false: what that makes certain (a selp of it, a setp on that, predicate logic) decides
        its branches. Within :data:`RETRY_LOOP` of the wait either way: linear."""
        result = PTX_OPERAND.match(opcodes[i])
        def back(j: int) -> list[int]:   # a branch back to the wait's short loop, not further
            return [t for t in flow.successors[j] if t != j + 1 and i - RETRY_LOOP <= t <= i]
        end = next((j for j in range(i, min(i + RETRY_LOOP, len(opcodes))) if back(j)), None)
        if not result or end is None:
            return False
        start = min(back(end))
        # followed a little past the loop too: a library's timed spin leaves its own loop for
        # a test of the result that goes back to the learner's loop round it
        reach = min(i + 2 * RETRY_LOOP, len(opcodes) - 1)
        known: dict = {result[1]: False}
        spans: dict[str, tuple[int, int]] = {}   # votes' results known only within bounds
        for j in range(i + 1, reach + 1):
            address = PTX_ADDRESS.search(opcodes[j])
            operands = PTX_OPERANDS.findall(PTX_ADDRESS.sub(" ", opcodes[j]))
            if address and opcodes[j].startswith("st.") and operands:   # kept in memory
                value = _immediate(operands[-1], known)   # (a helper's result, a flag)
                slot = _slot(address[1])
                if value is None:
                    known.pop(slot, None)
                else:
                    known[slot] = value
            elif address and opcodes[j].startswith("ld.") and operands:
                value = known.get(_slot(address[1]))
                if value is None:
                    known.pop(operands[0], None)
                else:
                    known[operands[0]] = value
            elif opcodes[j].startswith("cvt.") and len(operands) == 2 and isinstance(
                    known.get(operands[1]), int):   # 0 or 1 widened or narrowed: the same
                known[operands[0]] = known[operands[1]]
            elif m := PTX_VOTE.match(opcodes[j]):
                kind, result, voted = m[1] or m[4], m[2] or m[5], m[3] or m[6]
                mine = known.get(voted.lstrip("!"))
                mine = (not mine if voted[0] == "!" else mine) if isinstance(mine, bool) else None
                known.pop(result, None)
                spans.pop(result, None)
                if mine is False and kind in ("all", "and"):   # false here, false for all
                    known[result] = False
                elif mine is True and kind in ("any", "or"):   # true here, true for one
                    known[result] = True
                elif kind == "ballot" and mine is not None:    # this lane's bit: 0, or 1
                    spans[result] = (1, ALL_ONES) if mine else LACKING
            elif (m := PTX_RANGE_SETP.match(opcodes[j])) and m[4] in spans:
                said = _compared(m[1], m[2], spans[m[4]], int(m[5], 0))
                spans.pop(m[3], None)
                if said is None:
                    known.pop(m[3], None)
                else:
                    known[m[3]] = said
            elif (m := PTX_POPC.match(opcodes[j]) or PTX_NOT.match(opcodes[j])) and (
                    m[2] in spans):
                span = spans.pop(m[2]) if m[1] == m[2] else spans[m[2]]
                known.pop(m[1], None)
                if opcodes[j].startswith("popc"):   # a bit 0: at most 31 set; a bit 1: one
                    new = (0, 31) if span == LACKING else (1, 32) if span[0] >= 1 else None
                else:                               # ~x is 0 only where x is ~0u
                    new = (1, ALL_ONES) if span == LACKING else LACKING if span[0] >= 1 else None
                if new is None:
                    spans.pop(m[1], None)
                else:
                    spans[m[1]] = new
            elif m := PTX_REDUX.match(opcodes[j]):   # __reduce_and_sync and the like
                mine = known.get(m[3])
                known.pop(m[2], None)
                spans.pop(m[2], None)
                if mine == 0 and m[1] in ("and", "min"):
                    known[m[2]] = 0
                elif isinstance(mine, int) and mine >= 1 and m[1] in ("or", "max"):
                    spans[m[2]] = (1, ALL_ONES)
            elif m := PTX_SELP.match(opcodes[j]):
                chosen = known.get(m[4])
                value = None if chosen is None else _immediate(m[2] if chosen else m[3], known)
                if value is None:
                    known.pop(m[1], None)
                else:
                    known[m[1]] = value
            else:
                _assign(opcodes[j], True, known)
                if spans and (written := PTX_DESTINATION.match(opcodes[j])):
                    for register in re.findall(r"[\w$%]+", written[1]):
                        spans.pop(register, None)
        for k in range(start, i):   # the loop's head, before its try: computed afresh
            _assign(opcodes[k], False, known)
        seen, todo = set(), [i]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if k != i and MB_WAIT.match(opcodes[k]) and inside[k]:
                continue   # another try (a lone one, in no loop, waits for nothing)
            if SHARED_LOAD.match(opcodes[k]):
                return True
            guard = PTX_GUARD.match(instructions[k])
            value = known.get(guard[2]) if guard else None
            value = (not value if guard[1] else value) if isinstance(value, bool) else None
            for t in flow.successors[k]:
                if value is not None and PTX_BRANCH.match(opcodes[k]) and (t == k + 1) == value:
                    continue   # the way the incomplete phase does not go
                if i < t <= reach or start <= t <= i:
                    todo.append(t)
                elif unwaited[t]:
                    return True
        return False

    for i, op in enumerate(opcodes):
        if inside[i] and MB_WAIT.match(op) and decided(i, True) is not None and not gives_up(i):
            waits[i] = 1
    before = [0]   # before[k]: the retry loops' waits among the first k instructions
    for w in waits:
        before.append(before[-1] + w)
    for i, op in enumerate(opcodes):   # first tries peeled off such a loop
        if not waits[i] and MB_WAIT.match(op) and (target := decided(i, False)) is not None \
                and before[min(target, len(opcodes))] > before[i + 1]:
            waits[i] = 1
    return waits


# a copy into shared memory: cp.async of any kind but its waits, commits and mbarrier arrivals
SHARED_COPY = re.compile(r"cp\.async(?!\.(?:wait|commit|mbarrier|bulk\.(?:wait|commit)))"
                         r"(?:\.[\w:]+)*?\.shared\b")


COMMIT_GROUP = re.compile(r"cp\.async\.commit_group\b")   # pipe.producer_commit()
CP_WAIT_GROUP = re.compile(r"cp\.async\.wait_group\s+(\d+)$")   # leaves N batches in flight
# pipe.consumer_wait(): wait_group 0 to 8, chosen by the count in flight, at most this many
# instructions apart
CHOICES, CHOICE_SPAN = frozenset(range(9)), 64


def _in_loop(opcodes: list[str], flow: "_Flow", loops: bytearray, pattern: re.Pattern) -> list[int]:
    """The instructions in ``loops`` that run and that ``pattern`` matches (found once for each
    loop and pattern: the loop's steps ask again and again)."""
    key = (id(loops), pattern.pattern)
    if key not in flow.found:
        flow.found[key] = [i for i, op in enumerate(opcodes)
                           if loops[i] and flow.issued[i] and pattern.match(op)]
    return list(flow.found[key])


def _check_batches(instructions: list[str], opcodes: list[str], flow: "_Flow",
                   loops: bytearray, waits: list[int], barriers: list[int],
                   scopes: list[int]) -> None:
    """Round the tile loop (``waits``: the loop's waits for copies, ``barriers``: the block
    barriers the steps count, an mbarrier wait among them only in its retry loop), every copy
    is in a batch before the wait that guards its reading (:func:`_uncommitted`: a path from a
    cp.async through this round's compute to the cp.async.wait through no
    cp.async.commit_group, or to an mbarrier wait through no cp.async.mbarrier.arrive: those
    copies are in nothing the wait waits for), the compute reads after a barrier (a path from a
    wait that is not itself a barrier to a shared-memory read through none), and one batch
    closes per tile (a path from one commit_group to another through no wait and no barrier: a
    commit per copy, and pipe.consumer_wait() waits for each thread's oldest copy only)."""
    def running(pattern: re.Pattern) -> list[int]:
        return _in_loop(opcodes, flow, loops, pattern)
    copies = running(SHARED_COPY)
    groups = running(COMMIT_GROUP) + [
        i for i in running(CP_WAIT_ALL) if opcodes[i].startswith("cp.async.wait_all")]
    by_group = [i for i in waits if opcodes[i].startswith("cp.async.wait")]
    by_barrier = [i for i in waits if MB_WAIT.match(opcodes[i])]
    if _uncommitted(opcodes, flow, loops, copies, groups, by_group) or _uncommitted(
            opcodes, flow, loops, copies, running(CP_ARRIVE), by_barrier):
        raise ExerciseError(
            "its copies in the tile loop are never committed before the wait (in the PTX, a path "
            "goes from a cp.async through the compute's shared loads to the next round's "
            "cp.async.wait through no cp.async.commit_group): "
            "pipe.producer_acquire(), issue_tile(...), then pipe.producer_commit(), so that "
            "pipe.consumer_wait() has a batch to wait for.")
    # every path from the loop's wait to the compute's reads passes a block barrier: each
    # thread's wait covers its own copies only (a barrier at the top of the loop alone leaves
    # the reads of the round after the wait unguarded); a cuda::barrier's wait is one itself
    unguarded = flow.reach([i for i in waits if i not in set(barriers)], inclusive=False,
                           stops=barriers, within=loops)
    if any(unguarded[i] for i in running(SHARED_LOAD)):
        raise ExerciseError(
            "it reads a buffer after its wait but before a block barrier (in the PTX, a path in "
            "the tile loop goes from the cp.async.wait to an ld.shared through no bar.sync): "
            "after pipe.consumer_wait(), call __syncthreads() before Phase 4 reads x_s[stage], "
            "so that every thread's copies have landed.")
    # (a wait or a block barrier between: pipe.consumer_wait() has a path round its waits)
    commits = running(COMMIT_GROUP)
    again = flow.reach(commits, inclusive=False, stops=waits + barriers, within=loops)
    if any(again[i] for i in commits):
        raise ExerciseError(
            "it commits more than one batch between two waits (in the PTX, a "
            "cp.async.commit_group reaches another through no cp.async.wait and no barrier, as "
            "a commit inside the copy loop does): commit once per tile, after all of its "
            "copies; otherwise pipe.consumer_wait() waits for each thread's oldest batch only "
            "and the tile's other copies are still in flight.")
    if _skipped_commit(instructions, opcodes, flow, loops, commits, scopes):
        raise ExerciseError(
            "some threads skip the loop's commit while others make it (in the PTX, a branch on "
            "a value that differs between the block's threads goes round the "
            "cp.async.commit_group to the next cp.async.wait_group 1): "
            "each thread counts its own batches, so a thread that committed nothing this round "
            "has its wait_prior<1> leave its newest batch in flight, the tile it is about to "
            "read. Commit in every thread every round, an empty batch where it has no copies "
            "(as the prologue does): pipe.producer_acquire(), issue_tile(...) under your "
            "condition, pipe.producer_commit() outside it.")


# where a value may differ between the threads of a block: the thread's own ids, the clocks,
# and what atomics, activemask and mbarrier operations return (a vote, shuffle or reduction
# varies only with what it is given: __any_sync of what all threads agree on is agreed on).
# Every launch is 1D: threadIdx.y and .z are 0 in all threads (a typo for .x copies alike)
VARYING_SOURCE = re.compile(r"%(?:tid(?!\.[yz])|laneid|warpid|lanemask_\w+|clock\w*"
                            r"|globaltimer\w*|pm\d+)")
VARYING_RESULT = re.compile(r"(?:atom|activemask|mbarrier|elect|match)\b")   # elect: one lane
NO_RESULT = re.compile(r"(?:bar|barrier|cp|bra|brx|call|ret|exit|trap|fence|membar|prefetch)\b")
# memory that is each thread's own: local (a generic st or ld may be local too), and the
# parameters by which inlined functions pass their arguments and results
OWN_STORE = re.compile(r"st(?!(?:\.\w+)*\.(?:global|shared)\b)(?:\.[\w:]+)*\s")
OWN_LOAD = re.compile(r"ld(?!(?:\.\w+)*\.(?:global|shared|const)\b)(?:\.[\w:]+)*\s")
# the memory all threads share (a generic st may be either)
COMMON_STORE = re.compile(r"(?:st|atom|red)(?!(?:\.\w+)*\.(?:local|param)\b)(?:\.[\w:]+)*\s")
COMMON_LOAD = re.compile(r"(?:ld|atom)(?:\.\w+)*\.(?:global|shared)(?:::\w+)?\b")
# a load with no state space: through a generic address, of any memory
GENERIC_LOAD = re.compile(r"ld(?!(?:\.\w+)*\.(?:global|shared|const|local|param)\b)"
                          r"(?:\.[\w:]+)*\s")
PTX_ENTRY = re.compile(r"\.entry\s+([\w$]+)")


def _own_slot(op: str, kernel: str, scope: int, call: int) -> str:
    """The memory a st or ld of :data:`OWN_STORE`, :data:`OWN_LOAD` names: a parameter of
    one call (the caller's ``param0`` and ``retval0`` in the block of the call whose inlined
    body begins at ``call``, the callee's ``<function>_param_0`` and ``func_retval0`` in that
    body, ``scope``: one slot), the kernel's own parameters by name, any other memory (local,
    generic) as one."""
    address = PTX_ADDRESS.search(op)
    if ".param" not in op.split(None, 1)[0] or not address:
        return "mem:own"
    slot = re.sub(r"\s+|\+0$", "", address[1])
    if m := re.fullmatch(r"(param|retval)(\d+)(.*)", slot):        # the caller's side
        return f"mem:{m[1]}{m[2]}{m[3]}@{call}"
    if m := re.fullmatch(r"func_retval(\d+)(.*)", slot):            # the callee's result
        return f"mem:retval{m[1]}{m[2]}@{scope}"
    m = re.fullmatch(r"([\w$]+)_param_(\d+)(.*)", slot)             # the callee's argument
    return f"mem:param{m[2]}{m[3]}@{scope}" if m and m[1] != kernel else f"mem:{slot}"


# the registers every function shares: the special ones (a thread's ids, the clocks, ...)
PTX_SPECIAL = re.compile(r"%(?:n?tid|laneid|n?warpid|n?ctaid|n?smid|gridid|lanemask_\w+|clock\w*"
                         r"|pm\d+\w*|globaltimer\w*|envreg\d+|\w*smem_size|\w*cluster\w*)$")


def _scopes(instructions: list[str]) -> list[int]:
    """Each instruction's function body: the index of its ``.entry`` or ``.func`` line (every
    inlined copy of a function its own), for PTX registers are a function's own and
    functions reuse their names (a callee's ``%r20`` is not its caller's)."""
    scopes, stack = [], [0]
    for i, text in enumerate(instructions):
        if PTX_BODY.match(text):
            stack.append(i)
        elif text == "{":
            stack.append(stack[-1])
        scopes.append(stack[-1])
        if text == "}" and len(stack) > 1:
            stack.pop()
    return scopes


def _calls(instructions: list[str]) -> list[int]:
    """For each instruction, the inlined body (the index of its ``.func`` line) of the call
    whose block (``{`` ... ``}``) holds it, innermost first; -1 outside every call's block.
    The caller passes arguments and takes results in that block (``st.param [param0]``,
    ``ld.param [retval0]``), and every call has its own."""
    blocks: list[list[int]] = []      # each open block: [the callee's body, or -1]
    holder: list[list[int] | None] = []
    for text in instructions:
        if PTX_BODY.match(text):
            if blocks and blocks[-1][0] == -1:
                blocks[-1][0] = len(holder)
            blocks.append([-2])           # a function's body: no call's block
        elif text == "{":
            blocks.append([-1])
        holder.append(blocks[-1] if blocks else None)
        if text == "}" and blocks:
            blocks.pop()
    return [h[0] if h is not None and h[0] >= 0 else -1 for h in holder]


def _register(name: str, scope: int) -> str:
    """An operand as :func:`_spread` names it: a register with its function's body
    (:func:`_scopes`), a special register, a name (an inline asm's own ``p``, an array) or a
    memory slot as it is."""
    return f"{name}@{scope}" if name.startswith("%") and not PTX_SPECIAL.match(name) else name


def _dataflow(instructions: list[str], opcodes: list[str], common: bool = False,
              scopes: list[int] | None = None):
    """For each instruction: what it writes and what it reads (:func:`_register`'s names and
    memory slots: see :func:`_spread`), its opcode's first word, its operands, its guard."""
    kernel = (PTX_ENTRY.match(instructions[0]) or [None, ""])[1] if instructions else ""
    scopes = scopes or _scopes(instructions)
    calls = _calls(instructions)
    for i, (text, op) in enumerate(zip(instructions, opcodes)):
        guard = PTX_GUARD.match(text)
        head, _, body = op.partition(" ")
        body = body.strip()

        def names(part: str) -> list[str]:
            return [_register(o, scopes[i]) for o in PTX_OPERANDS.findall(" " + part)]
        sources = names(body)
        own, shared = OWN_STORE.match(op), common and COMMON_STORE.match(op)
        if (own or shared) and body.startswith("["):   # a store: into the memory it names
            out: tuple[str, ...] = (
                ((_own_slot(op, kernel, scopes[i], calls[i]),) if own else ())
                + (("mem:common",) if shared else ()))
            sources = names(PTX_ADDRESS.sub(" ", body))
        elif not body or body.startswith("[") or NO_RESULT.match(head):
            out = ()
        elif body.startswith("{"):   # a vector result: {%f1, %f2, ...}
            out = tuple(names(body.split("}", 1)[0]))
        else:                        # the first operand (setp's pair too: %p1|%p2)
            out = tuple(names(body.split(",", 1)[0]))
        if OWN_LOAD.match(op):
            sources.append(_own_slot(op, kernel, scopes[i], calls[i]))
        if common and (COMMON_LOAD.match(op) or GENERIC_LOAD.match(op)):
            sources.append("mem:common")
        predicate = _register(guard[2], scopes[i]) if guard else None
        yield out, sources + ([predicate] if predicate else []), head, body, predicate


def _origins(instructions: list[str], opcodes: list[str], wanted: set[str],
             scopes: list[int]) -> set[str]:
    """What the registers ``wanted`` are computed from, back to the first: every register,
    slot and name (an array's) on the way; :func:`_spread` turned round. Linear."""
    return _walk_back(_writers_and_reads(instructions, opcodes, scopes), wanted)


def _writers_and_reads(instructions: list[str], opcodes: list[str], scopes: list[int]):
    """For :func:`_walk_back`: the instructions that write each register or slot, what each
    instruction reads, and each one's opcode's first word (:func:`_dataflow`)."""
    writers: dict[str, list[int]] = {}
    reads, heads = [], []
    for i, (out, sources, head, *_) in enumerate(_dataflow(instructions, opcodes,
                                                           scopes=scopes)):
        reads.append(sources)
        heads.append(head)
        for r in out:
            writers.setdefault(r, []).append(i)
    return writers, reads, heads


def _walk_back(maps, wanted: set[str], refused=None) -> set[str] | None:
    """Every register, slot and name ``wanted`` is computed from (``maps``: what
    :func:`_writers_and_reads` returns); None where a writer on the way is one that
    ``refused(i)`` refuses. Linear."""
    writers, reads, _ = maps
    found, todo = set(wanted), list(wanted)
    while todo:
        for i in writers.get(todo.pop(), ()):
            if refused and refused(i):
                return None
            for r in reads[i]:
                if r not in found:
                    found.add(r)
                    todo.append(r)
    return found


def _guard(instructions: list[str], scopes: list[int], i: int) -> tuple[str, str] | None:
    """Instruction ``i``'s guard: (``"!"`` or ``""``, its predicate), None if it has none."""
    g = PTX_GUARD.match(instructions[i])
    return (g[1], _register(g[2], scopes[i])) if g else None


def _written_once(instructions: list[str], opcodes: list[str], scopes: list[int],
                  register: str) -> bool:
    """Whether one instruction alone writes ``register`` (:func:`_register`'s name): an inline
    asm's own ``.reg .pred p`` is one name in every asm block, each with its setp."""
    found = 0
    for out, *_ in _dataflow(instructions, opcodes, scopes=scopes):
        found += register in out
        if found > 1:
            return False
    return found == 1


def _guarded_by(instructions: list[str], scopes: list[int], registers: set[str],
                i: int) -> bool:
    """Whether instruction ``i``'s guard (``@p``) is one of ``registers``."""
    g = _guard(instructions, scopes, i)
    return bool(g and g[1] in registers)


def _spread(instructions: list[str], opcodes: list[str], seeded, common: bool = False,
            flow: "_Flow | None" = None, scopes: list[int] | None = None) -> set[str]:
    """The registers (:func:`_register`'s names; predicates among them) written by an
    instruction for which ``seeded(name, operands)`` holds (its opcode's first word, the
    rest), and those computed from them, flow-insensitively: a result is reached when any
    operand is (a load's when its address is; a guard reaches what it guards). Memory passes
    it on: a parameter that an inlined call stores a reached value in (its argument, its
    result) where it is loaded, local memory (st.local, or a generic st) to every local or
    generic load, and, with ``common``, shared and global memory to every load from them.
    With ``flow``, control passes it on too: a branch on a reached predicate reaches what
    every instruction it jumps over writes (forward: up to its label; back: the loop it
    closes), a value set on one path and not the other (``found = true; break;``). Linear:
    each register is spread once, each instruction's results once."""
    n = len(opcodes)
    uses: dict[str, list[int]] = {}
    branches: dict[str, list[int]] = {}   # a predicate: the branches it guards
    todo: list[int] = []
    results = []
    for i, (out, sources, head, body, predicate) in enumerate(
            _dataflow(instructions, opcodes, common, scopes)):
        results.append(out)
        if predicate and flow is not None and PTX_BRANCH.match(opcodes[i]):
            branches.setdefault(predicate, []).append(i)
        for o in sources:
            if o not in out:
                uses.setdefault(o, []).append(i)
        if out and seeded(head, body):
            todo.append(i)
    after = list(range(n + 1))   # after[j]: the first instruction from j on not yet jumped over

    def first(j: int) -> int:
        while after[j] != j:
            after[j] = after[after[j]]
            j = after[j]
        return j
    reached: set[str] = set()
    while todo:
        for r in results[todo.pop()]:
            if r in reached:
                continue
            reached.add(r)
            todo.extend(uses.get(r, ()))
            for b in branches.get(r, ()):
                for target in flow.successors[b]:
                    if target == b + 1:
                        continue
                    lo, hi = (b + 1, target) if target > b else (target, b + 1)
                    j = first(lo)
                    while j < hi:
                        todo.append(j)
                        after[j] = j + 1
                        j = first(j + 1)
    return reached


def _varying(instructions: list[str], opcodes: list[str], flow: "_Flow",
             scopes: list[int]) -> set[str]:
    """The registers (predicates among them) whose value may differ between the threads of a
    block (:func:`_spread` from a thread's id or a clock, and what an atomic, activemask,
    elect, match or mbarrier operation returns, through data and control): threads that read
    one address read one value, and a kernel parameter varies never."""
    return _spread(instructions, opcodes, lambda head, body: bool(
        VARYING_SOURCE.search(body) or VARYING_RESULT.match(head)), flow=flow, scopes=scopes)


def _generic_shared_loads(instructions: list[str], opcodes: list[str],
                          scopes: list[int]) -> list[str]:
    """``opcodes`` with each generic load through an address that may point into shared
    memory written as the ld.shared it may be: a pointer made by cvta.shared (a generic
    address of a shared buffer) or computed from one, kept in memory or passed to a function
    (``float* bufs[2] = {x_s[0], x_s[1]}`` keeps its pointers in local memory, and what is
    loaded back through them is a plain ``ld.f32``). A generic load of a kernel argument's
    memory stays a global one."""
    if not any(GENERIC_LOAD.match(op) for op in opcodes):
        return opcodes
    pointers = _spread(instructions, opcodes, lambda head, body: head.startswith(
        "cvta.shared"), common=True, scopes=scopes)
    out = list(opcodes)
    for i, op in enumerate(opcodes):
        address = PTX_ADDRESS.search(op) if GENERIC_LOAD.match(op) else None
        if address and {_register(o, scopes[i])
                        for o in PTX_OPERANDS.findall(" " + address[1])} & pointers:
            out[i] = "ld.shared" + op[2:]
    return out


PTX_NAME = re.compile(r"[A-Za-z_$][\w$]*")   # an array's (or a parameter's) name, no register


def _address_names(op: str, scope: int) -> set[str]:
    """The registers and names of an instruction's first memory operand."""
    address = PTX_ADDRESS.search(op)
    return {_register(o, scope) for o in PTX_OPERANDS.findall(" " + address[1])
            } if address else set()


def _other_reads(instructions: list[str], opcodes: list[str], scopes: list[int]) -> bytearray:
    """The shared-memory reads that are surely of an array no copy fills: their address is
    computed from another array's (the taps' w_s, a counter, a schedule) and from nothing a
    copy's destination is computed from. None where a copy's destination is computed from
    something loaded from memory (a pointer kept in shared memory: which array it is, only a
    run shows), or from no array at all. Linear: one walk back from the copies' destinations
    (:func:`_origins`' walk), and two :func:`_spread` (what the copies' arrays reach, with
    memory passing it on, and what the other names reach)."""
    n = len(opcodes)
    out = bytearray(n)
    copies = [i for i, op in enumerate(opcodes) if SHARED_COPY.match(op)]
    if not copies:
        return out
    maps = _writers_and_reads(instructions, opcodes, scopes)
    heads = maps[2]

    def back(instructions_at: list[int]) -> set[str] | None:
        """The arrays the addresses of those instructions are computed from; None where one
        comes from something loaded from shared or global memory."""
        found = _walk_back(maps, set().union(*(_address_names(opcodes[i], scopes[i])
                                               for i in instructions_at)),
                           lambda i: heads[i].startswith(("ld", "atom"))
                           and not OWN_LOAD.match(opcodes[i]))
        return None if found is None else {r for r in found if PTX_NAME.fullmatch(r)}
    arrays = back(copies)
    # no array, or one an mbarrier's address is computed from too (a buffer reached from the
    # barriers' address): which array a read is of, the check cannot say
    barriers = back([i for i, op in enumerate(opcodes) if op.startswith("mbarrier.")])
    if not arrays or barriers is None or arrays & barriers:
        return out

    def names(body: str) -> set[str]:
        return set(PTX_OPERANDS.findall(" " + body))
    filled = _spread(instructions, opcodes, lambda head, body: bool(names(body) & arrays),
                     common=True, scopes=scopes) | arrays

    def another(head: str, body: str) -> bool:
        """A mov or cvta.shared of another array's name (a kernel parameter's value, an
        integer made into an address, is no array's)."""
        name = body.rsplit(",", 1)[-1].strip()
        return head.startswith(("mov.", "cvta.shared")) and bool(
            PTX_NAME.fullmatch(name)) and name not in arrays
    other = _spread(instructions, opcodes, another, scopes=scopes)
    for i, op in enumerate(opcodes):
        if SHARED_READ.match(op):
            address = _address_names(op, scopes[i])
            mine = {r for r in address if PTX_NAME.fullmatch(r)}
            out[i] = bool(address and not address & filled
                          and (mine or address & other))
    return out


# what orders the reads of the threads it waits for before what a thread does after it: a
# barrier of the whole warp, or a block's of any count (a named barrier of the compute warps)
THREAD_SYNC = re.compile(r"bar\.warp\.sync\s+(?:-1|0[xX][fF]{8}|4294967295)$"   # all 32 lanes
                         r"|(?:bar|barrier)(?:\.cta)?\.(?:sync|red)\b"
                         r"|barrier(?:\.cta)?(?:\.aligned)?\s")


def _partial_release(instructions: list[str], opcodes: list[str], flow: "_Flow",
                     scopes: list[int], other: bytearray, varying: set[str],
                     split: bytearray) -> bool:
    """Whether some of the threads that read a buffer may skip the release that hands it back
    while nothing orders their reads before the others' arrival: a path goes from a shared
    read (not ``other``'s) through no barrier (:data:`THREAD_SYNC`) to an mbarrier arrival
    (not the producer's expect_tx) that a value that differs between the threads guards or
    addresses (lane 0 on the release, the others on a barrier nobody waits for), or to a
    branch on such a value that jumps over one (``if (lane == 0) arrive``). Linear."""
    arrivals = [i for i, op in enumerate(opcodes) if flow.issued[i] and MB_ARRIVE.match(op)
                and not EXPECT.match(op)]
    if not arrivals:
        return False
    syncs = [i for i, op in enumerate(opcodes) if THREAD_SYNC.match(op)]
    unsynced = flow.reach([i for i, op in enumerate(opcodes) if flow.issued[i] and not other[i]
                           and SHARED_READ.match(op)], inclusive=False, stops=syncs)

    def guard(i: int) -> bool:
        return _guarded_by(instructions, scopes, varying, i)
    if any(unsynced[a] and (guard(a) or split[a]) for a in arrivals):
        return True
    # a branch on such a value that jumps over an arrival, reached from a read it does not
    # jump over too (``if (tid < TILE / 4) { wait; read; arrive; }`` skips all or nothing):
    # one walk back from each, at most MAX_SKIPS of them (more: refused, as if each did)
    live = [a for a in arrivals if unsynced[a]]   # sorted: an arrival over (b, t) by bisection

    def over(b: int, t: int) -> bool:
        k = bisect.bisect_right(live, b)
        return k < len(live) and live[k] < t
    jumps = []
    for b, op in enumerate(opcodes):
        if unsynced[b] and PTX_BRANCH.match(op) and guard(b):
            jumps += [(b, t) for t in flow.successors[b] if t > b + 1 and over(b, t)]
            if len(jumps) > MAX_SKIPS:
                return True
    for b, t in jumps:
        back = flow.reach_back([b], stops=syncs)
        if any(back[r] and not b < r < t and flow.issued[r] and not other[r]
               and SHARED_READ.match(opcodes[r]) for r in range(len(opcodes))):
            return True
    return False


MAX_SKIPS = 64   # branches round a release that _partial_release follows back, at most


def _joined_barriers(instructions: list[str], opcodes: list[str], flow: "_Flow",
                     scopes: list[int], varying: set[str], split: bytearray) -> None:
    """Mark in ``split`` the arrivals whose barrier is chosen by control flow: an address
    computed from a register that one side of a branch on a thread-varying value writes and
    the other side does not, both joining before the arrival (``if (lane == 0) t = &empty[s];
    else t = &sink[s];`` then one arrive(t)). Bounded: one walk back for each arrival's address
    (at most :data:`MAX_ARRIVALS` of them), and for each register on the way with 2 to 8
    writers, one look at each such branch (at most :data:`MAX_SPLIT_LOOKS` in all)."""
    arrivals = [a for a, op in enumerate(opcodes) if MB_ARRIVE.match(op) and not split[a]]
    if len(arrivals) > MAX_ARRIVALS:
        raise _too_large(f"{len(arrivals)} mbarrier arrivals, more than the {MAX_ARRIVALS} "
                         "it reads")
    branches = [(b, t) for b, op in enumerate(opcodes) if PTX_BRANCH.match(op)
                and _guarded_by(instructions, scopes, varying, b)
                for t in flow.successors[b] if t > b + 1]
    if not branches:
        return
    maps = _writers_and_reads(instructions, opcodes, scopes)
    writers = maps[0]
    apart: dict[str, list[tuple[int, int]]] = {}   # a register's branches that split its writers
    looks = 0
    for a in arrivals:
        for r in _walk_back(maps, _address_names(opcodes[a], scopes[a])):
            if r not in apart:
                w = writers.get(r, ())
                if 2 <= len(w) <= 8:
                    looks += len(branches)
                    if looks > MAX_SPLIT_LOOKS:
                        raise _too_large(MANY_SPLITS)
                apart[r] = [(b, t) for b, t in branches if any(b < x < t for x in w) and any(
                    not b < x < t for x in w)] if 2 <= len(w) <= 8 else []
            looks += len(apart[r])   # the same look again, for this arrival
            if looks > MAX_SPLIT_LOOKS:
                raise _too_large(MANY_SPLITS)
            if any(not b < a < t for b, t in apart[r]):
                split[a] = 1
                break


MAX_ARRIVALS = 64   # mbarrier arrivals whose barrier _joined_barriers follows back, at most
MAX_SPLIT_LOOKS = 1_000_000   # (register, branch) pairs it looks at, at most (about a second)
MANY_SPLITS = "too many branches round the values its arrivals' barriers come from"


MAX_ORDERING = 4_000_000   # steps up the post-dominator tree, at most (a few seconds)


def _post_dominators(flow: "_Flow") -> list[int]:
    """Each instruction's immediate post-dominator (the first instruction every path from it
    to the kernel's end passes): ``flow.size`` stands for the end, -1 for an instruction from
    which no path ends. Cooper, Harvey and Kennedy's iteration over the reversed flow: quadratic
    in the depth of a loop nest at worst, so stopped past :data:`MAX_ORDERING` steps."""
    n = flow.size
    succ = [list(flow.successors[i]) or [n] for i in range(n)]
    for i in flow.ending:   # a guarded exit: on to the next instruction, or to the end
        if n not in succ[i]:
            succ[i].append(n)
    preds: list[list[int]] = [[] for _ in range(n + 1)]
    for i in range(n):
        for j in succ[i]:
            preds[j].append(i)
    order, seen, stack = [], bytearray(n + 1), [(n, 0)]   # postorder of the reversed flow
    seen[n] = 1
    while stack:
        v, k = stack.pop()
        if k < len(preds[v]):
            stack.append((v, k + 1))
            w = preds[v][k]
            if not seen[w]:
                seen[w] = 1
                stack.append((w, 0))
        else:
            order.append(v)
    number = {v: k for k, v in enumerate(order)}
    ipdom = [-1] * (n + 1)
    ipdom[n] = n

    steps = 0

    def meet(a: int, b: int) -> int:
        nonlocal steps
        while a != b:
            while number[a] < number[b]:
                a = ipdom[a]
                steps += 1
            while number[b] < number[a]:
                b = ipdom[b]
                steps += 1
        if steps > MAX_ORDERING:
            raise _too_large("its loops nest too deep to follow")
        return a
    changed = True
    while changed:
        changed = False
        for v in reversed(order[:-1]):
            done = [w for w in succ[v] if ipdom[w] != -1]
            if not done:
                continue
            new = done[0]
            for w in done[1:]:
                new = meet(w, new)
            if ipdom[v] != new:
                ipdom[v] = new
                changed = True
    return ipdom[:n]


def _decided(instructions: list[str], opcodes: list[str], flow: "_Flow", scopes: list[int],
             varying: set[str]) -> bytearray:
    """The instructions that some threads may run and others not: control dependent on a
    branch on a thread-varying value (a guarded ``bra``, ``ret`` or ``exit``, a ``brx.idx`` on
    a varying index: to the labels of its table, or, without one, to its function's first
    line and from there to any label, so all that line decides is), or on a branch that is
    itself so decided: a branch's successors up the post-dominator tree to the branch's own
    post-dominator (Ferrante, Ottenstein and Warren). Linear: each instruction is marked once,
    the stretches of the tree already marked skipped (union-find)."""
    ipdom = _post_dominators(flow)
    n = flow.size
    parent = [p if 0 <= p < n else -1 for p in ipdom]   # the end and the no-exit roots: -1
    children: list[list[int]] = [[] for _ in range(n)]
    roots = []
    for v, p in enumerate(parent):
        (children[p] if p >= 0 else roots).append(v)
    depth, first, last, clock = [0] * n, [0] * n, [0] * n, 0   # first/last: an Euler tour
    for root in roots:
        stack = [(root, 0)]
        while stack:
            v, k = stack.pop()
            if k == 0:
                first[v] = clock
                clock += 1
            if k < len(children[v]):
                stack.append((v, k + 1))
                depth[children[v][k]] = depth[v] + 1
                stack.append((children[v][k], 0))
            else:
                last[v] = clock
    skip = list(range(n))   # skip[v]: v, or a marked node on the way up to the first unmarked

    def unmarked(v: int) -> int:
        root = v
        while root >= 0 and skip[root] != root:
            root = skip[root]
        while v >= 0 and skip[v] != v:
            skip[v], v = root, skip[v]
        return root

    out = bytearray(n)

    def chooses(b: int) -> bool:   # may go more than one way: a guarded bra, ret or exit, brx
        op = opcodes[b]
        return bool(PTX_BRX.match(op) or PTX_GUARD.match(instructions[b]) and (
            PTX_BRANCH.match(op) or PTX_RET.match(op) or PTX_END.match(op)))

    def varies(b: int) -> bool:    # on a value that differs between the threads
        return _guarded_by(instructions, scopes, varying, b) or bool(
            PTX_BRX.match(opcodes[b]) and {_register(o, scopes[b]) for o in
                                           PTX_OPERANDS.findall(" " + opcodes[b])} & varying)

    def pushed_with(b: int) -> list[int]:
        # an indirect branch with no table goes to its function's first line, and on to any
        # label: that line decides as it does
        return [b, *(j for j in flow.successors[b] if PTX_BRX.match(opcodes[b])
                     and PTX_BODY.match(instructions[j]))]
    work = [c for b in range(n) if flow.issued[b] and chooses(b) and varies(b)
            for c in pushed_with(b)]
    pushed = set(work)
    while work:
        b = work.pop()
        stop = ipdom[b] if 0 <= ipdom[b] < n else -1
        successors = list(flow.successors[b]) + ([n] if b in flow.ending else [])
        for s in successors:
            if not 0 <= s < n or s == stop:
                continue
            # up the tree from s to the branch's post-dominator, if it is above s; else to a root
            above = stop >= 0 and first[stop] <= first[s] and last[s] <= last[stop]
            floor = depth[stop] if above else -1
            runner = unmarked(s)
            while runner >= 0 and depth[runner] > floor:
                out[runner] = 1
                skip[runner] = parent[runner] if parent[runner] >= 0 else -1
                for c in pushed_with(runner) if chooses(runner) else ():   # decided: its way too
                    if c not in pushed:
                        pushed.add(c)
                        work.append(c)
                runner = unmarked(skip[runner]) if skip[runner] >= 0 else -1
    return out


def _copied_by_all(instructions: list[str], opcodes: list[str], flow: "_Flow",
                   scopes: list[int], varying: set[str]) -> int | None:
    """A copy every thread makes into the same shared cells (its index; None if none): a copy
    into shared memory (cp.async of any kind) that runs, to an address computed from nothing
    that differs between the threads (:func:`_varying`), with no such guard, that no branch on
    such a value decides (:func:`_decided`): ``for (int j = 0; j < CONV_BUF; ++j)`` with no
    threadIdx.x (thread 0's copy of the whole tile is decided by its branch)."""
    same = [i for i, op in enumerate(opcodes) if flow.issued[i] and SHARED_COPY.match(op)
            and not _guarded_by(instructions, scopes, varying, i)
            and not _address_names(op, scopes[i]) & varying]
    if not same:
        return None
    decided = _decided(instructions, opcodes, flow, scopes, varying)
    return next((c for c in same if not decided[c]), None)


_COPIED_BY_ALL = (
    "every thread copies the same shared cells (in the PTX, a copy into shared memory that "
    "every thread makes, to an address computed from nothing that differs between the "
    "threads): the tile is copied once per thread, and the threads' copies into each cell "
    "race; give each thread its own cells (for (int j = threadIdx.x; j < CONV_BUF; j += "
    "CONV_THREADS)), or let one thread make the copy.")

_BULK_BY_ALL = (
    "every thread issues the bulk copy (in the PTX, a cp.async.bulk that every thread runs, "
    "to an address the same in all, under no test of the thread's index): the tile is copied "
    "once per thread, and the copies into each byte race; let one thread issue it: "
    "if (threadIdx.x == 0 && hi > lo).")

# said after either where the kernel reads threadIdx.y or .z, blockDim.y or .z
_ONE_DIMENSIONAL = (" The launch is one-dimensional: threadIdx.y and threadIdx.z are 0, "
                    "blockDim.y and blockDim.z 1, in every thread; use threadIdx.x and "
                    "blockDim.x.")
PTX_OTHER_AXES = re.compile(r"%n?tid\.[yz]\b")


_PARTIAL_RELEASE = (
    "a compute thread that has read buffer s may not arrive on empty[s] after its reads, so "
    "the producer may refill the buffer while that thread still reads it (in the PTX, an "
    "ld.shared reaches, through no bar.warp.sync and no bar.sync, an mbarrier.arrive that a "
    "value differing between the threads guards or jumps over, or whose barrier it chooses): "
    "let every compute thread arrive on empty[s] once after Phase 4, with no if round it "
    "(empty[s] counts CONV_THREADS arrivals), or, if lane 0 arrives for its warp, call "
    "__syncwarp() with all 32 lanes (no mask, or 0xffffffff) just before. A test that always "
    "holds, or a flag, counts as such a skip: the check does not follow values.")


def _skipped_commit(instructions: list[str], opcodes: list[str], flow: "_Flow",
                    loops: bytearray, commits: list[int], scopes: list[int]) -> bool:
    """Whether round the ``loops`` some threads may go from one cp.async.wait_group N (N > 0)
    to the next through no commit while others commit: a branch on a value that differs
    between threads (:func:`_varying`) leads one way to such a wait through no commit and the
    other way only through one (or a commit's own guard varies). A thread counts its own
    batches: one that skipped its commit leaves, at wait_group 1, its previous batch in
    flight, the one this round reads. A branch on what is the same for the whole block (the
    last tile) is the answer's own: all threads skip alike. Linear: three walks, and
    :func:`_varying` only when such a path exists."""
    # a fixed wait_prior<N>, not one of pipe.consumer_wait()'s: that one picks wait_group N by
    # this thread's own count of batches in flight (a thread that committed fewer waits for
    # fewer), one of nine waits (0 to 8) side by side
    waits = _in_loop(opcodes, flow, loops, CP_WAIT_GROUP)
    counts = {i: int(CP_WAIT_GROUP.match(opcodes[i])[1]) for i in waits}
    def near(i: int) -> set[int]:   # the waits within CHOICE_SPAN of i (waits are sorted)
        lo, hi = (bisect.bisect_left(waits, i - CHOICE_SPAN),
                  bisect.bisect_right(waits, i + CHOICE_SPAN))
        return {counts[j] for j in waits[lo:hi]}
    partial = [i for i in waits if counts[i] > 0 and not CHOICES <= near(i)]
    if not partial:
        return False
    guards = [_register(g[2], scope) if (g := PTX_GUARD.match(text)) else None
              for text, scope in zip(instructions, scopes)]
    sure = [i for i in commits if flow.sure[i]]
    skipping = flow.reach(partial, inclusive=False, stops=sure + partial, within=loops)
    if not any(skipping[i] for i in partial):
        return False
    onward = flow.reach_back(partial, stops=sure, within=loops)   # to a wait, no commit on the way
    varying = _varying(instructions, opcodes, flow, scopes)
    if any(skipping[i] and onward[i] and guards[i] in varying for i in commits if guards[i]):
        return True
    for i, op in enumerate(opcodes):
        if skipping[i] and len(flow.successors[i]) > 1 and guards[i] in varying:
            ways = [onward[j] for j in flow.successors[i] if loops[j]]
            if any(ways) and not all(ways):
                return True
    return False


def _uncommitted(opcodes: list[str], flow: "_Flow", loops: bytearray, copies: list[int],
                 closers: list[int], waits: list[int]) -> bool:
    """Whether, round the ``loops``, a path from one of ``copies`` goes through a shared-memory
    read (this round's compute) to one of ``waits`` (the wait before the next round's compute,
    the one that must cover these copies) through none of ``closers`` (commits, arrivals): a
    wait reached before that read is this round's own, which copies issued at the top of the
    loop and committed after the compute need not be in (a wait_all commits them itself).
    Linear: two walks."""
    reads = _in_loop(opcodes, flow, loops, SHARED_LOAD)
    # up to this round's reads (a wait on the way is this round's own), then on from them
    before = flow.reach(copies, inclusive=False, stops=closers + reads, within=loops)
    after = flow.reach([i for i in reads if before[i]], inclusive=True, stops=closers,
                       within=loops)
    closing = set(closers)
    return any(after[i] for i in waits if i not in closing)


def _wait_all_then_copy(opcodes: list[str], flow: "_Flow", loops: bytearray) -> list[int]:
    """The loop's waits for every batch (wait_all, wait_group 0) after which, before the next
    such wait, a cp.async is issued and then shared memory read: waiting for this tile only
    because the next one is not issued yet, which then flies while this one is computed; or a
    wait_group 0 that the next tile's copies reach before their commit (a wait after the next
    tile's committed copy, before the compute, leaves nothing in flight: [])."""
    def running(pattern: re.Pattern) -> list[int]:
        return _in_loop(opcodes, flow, loops, pattern)
    waits = running(CP_WAIT_ALL)
    if not waits:
        return []
    # a wait_group 0 that copies reach uncommitted leaves them in flight: it waits for the
    # batches committed before it, this tile's (wait_all commits them first)
    # -- unless a batch committed since the round's copies reaches it too (that batch, the next
    # tile's, is waited for: an uncommitted dummy copy beside it overlaps nothing)
    copies, commits = running(CP_ASYNC), running(COMMIT_GROUP)
    closers = commits + [i for i in waits if opcodes[i].startswith("cp.async.wait_all")]
    loose = flow.reach(copies, inclusive=False, stops=closers, within=loops)
    fresh = flow.reach(copies, inclusive=False, stops=waits, within=loops)
    covered = flow.reach([i for i in commits if fresh[i]], inclusive=False, stops=waits,
                         within=loops)
    past = [i for i in waits if loose[i] and not covered[i]
            and opcodes[i].startswith("cp.async.wait_group")]
    if past:
        return past
    after = flow.reach(waits, inclusive=False, stops=waits, within=loops)
    copies = [i for i in running(CP_ASYNC) if after[i]]
    then = flow.reach(copies, inclusive=False, stops=waits, within=loops)
    return waits if any(then[i] for i in running(SHARED_LOAD)) else []


def _named_by_waits(opcodes: list[str], waits: list[int]) -> set[str]:
    """What the mbarrier waits at ``waits`` name: their tokens (bar.wait(bar.arrive())) and
    their barriers' addresses (a wait by parity)."""
    named = set()
    for i in waits:
        named.update(PTX_OPERANDS.findall(opcodes[i].split(None, 1)[-1]))
        named.update(re.sub(r"\s+", "", a) for a in PTX_ADDRESS.findall(opcodes[i]))
    return named


def _names_one(op: str, named: set[str]) -> bool:
    """Whether an arrival's token or barrier address is among ``named``
    (:func:`_named_by_waits`)."""
    token = PTX_OPERAND.match(op)
    return bool(token and token[1] in named or any(
        re.sub(r"\s+", "", a) in named for a in PTX_ADDRESS.findall(op)))


def _unordered_refill(opcodes: list[str], flow: _Flow, loops: bytearray,
                      barriers: list[int], other: bytearray, split: bytearray) -> bool:
    """Whether, round the ``loops``, control can go from a shared-memory read to a copy into
    shared memory (cp.async of any kind) through no barrier (one of ``barriers``): that copy
    may refill the buffer while a slow warp still reads it. An mbarrier wait among them (a
    cuda::barrier's ``arrive_and_wait``) orders the reads only past an arrival after them: a
    thread that arrived before computing and waits after orders none of its reads, nor does
    one on a barrier chosen by the thread (``split``). A read of an array no copy fills
    (``other``: :func:`_other_reads`) is no buffer's."""
    def running(pattern: re.Pattern) -> list[int]:
        return _in_loop(opcodes, flow, loops, pattern)
    block = [i for i in barriers if not MB_WAIT.match(opcodes[i])]
    arrivals = [i for i in running(MB_ARRIVE) if not split[i]]
    before = flow.reach([i for i in running(SHARED_READ) if not other[i]], inclusive=False,
                        stops=block + arrivals, within=loops)
    after = flow.reach([i for i in arrivals if before[i]], inclusive=False, stops=barriers,
                       within=loops)
    return any(before[i] or after[i] for i in running(SHARED_COPY))


READY_, COPIED, COMMITTED = range(3)   # where a path stands with its copies


def _unready_read(opcodes: list[str], flow: _Flow, waits: list[int], barriers: list[int],
                  fresh: bool, other: bytearray) -> int | None:
    """The first shared-memory read (:data:`SHARED_LOAD`) that a path from the kernel's entry
    reaches before its data is ready, or None. Ready: past a barrier (one of ``barriers``) that
    a wait reaches (one of ``waits``; not on every path: pipe.consumer_wait() branches round its
    waits when no batch is pending). With ``fresh`` (one buffer, one batch), past such a barrier
    after the last copy into shared memory and its commit (or an mbarrier arrival, or a
    wait_all), with the wait after a commit; without (two buffers: which one a copy fills is not
    the PTX's to say), past one before the first read. A guard that may be false makes both
    outcomes paths. A read of an array no copy fills (``other``: :func:`_other_reads`: the
    taps, a counter) need only come after a barrier, any one. Each walk is linear: one over
    (instruction, state)."""
    n = len(opcodes)
    closing = [i for i, op in enumerate(opcodes) if flow.issued[i] and (
        COMMIT.match(op) or op.startswith("cp.async.wait_all"))]
    if fresh:
        closed = flow.reach(closing, inclusive=True)
        waits = [i for i in waits if closed[i]]
    waited = flow.reach(waits, inclusive=True)
    closing, barriers = set(closing), set(barriers)
    tables: dict[int, tuple[int, ...]] = {}
    for i, op in enumerate(opcodes):
        if not flow.issued[i]:
            continue
        if fresh and SHARED_COPY.match(op):
            tables[i] = (COPIED,) * 3
        elif fresh and i in closing:
            tables[i] = (READY_, COMMITTED, COMMITTED)
        if i in barriers and waited[i]:
            tables[i] = tuple(READY_ if s == COMMITTED else s for s in tables.get(i, range(3)))
    reads = [bool(flow.issued[i] and SHARED_LOAD.match(op) and not other[i])
             for i, op in enumerate(opcodes)]
    seen = bytearray(3 * n)
    todo = [(0, READY_ if fresh else COMMITTED)] if n else []
    while todo:
        i, state = todo.pop()
        if seen[3 * i + state]:
            continue
        seen[3 * i + state] = 1
        if reads[i] and state != READY_:
            return i
        table = tables.get(i)
        after = {state} if table is None else {table[state]} if flow.sure[i] else {
            table[state], state}
        todo.extend((j, s) for j in flow.successors[i] for s in after)
    unsynced = flow.reach([0], inclusive=True, stops=barriers) if n else bytearray()
    return next((i for i in range(n) if other[i] and unsynced[i] and flow.issued[i]
                 and SHARED_LOAD.match(opcodes[i])), None)


def _barrier_count(op: str) -> str:
    """The thread-count operand of a block barrier (bar.sync, bar.red and kin), or ""."""
    operands = op.split(None, 1)[1].split(",") if " " in op else []
    return (operands[1] if op.startswith(("bar.sync", "barrier.sync", "bar.cta.sync",
                                          "barrier.cta.sync")) and len(operands) == 2
            else operands[2] if ".red" in op and len(operands) == 4 else "").strip()


def _recount(op: str, threads: int) -> str:
    """``op`` as the build at BLOCK_THREADS would count it: a barrier's immediate count of
    ``threads`` (this build's block) reads as BLOCK_THREADS, one of BLOCK_THREADS as 1 (too
    few here)."""
    count = _barrier_count(op)
    value = _immediate(count, {}) if count and not count.startswith("%") else None
    if value is None or value not in (threads, BLOCK_THREADS):
        return op
    head, rest = op.split(None, 1)
    parts = rest.split(",")
    at = 1 if len(parts) == 2 else 2
    parts[at] = " " + str(BLOCK_THREADS if value == threads else 1)
    return f"{head} {','.join(parts)}"


def _counted_barriers(opcodes: list[str], threads: int = BLOCK_THREADS) -> list[bool]:
    """Whether each barrier counts the whole block, as far as the PTX says: a count in a
    register only where movs of the block's size (an immediate, or %ntid.x: inline asm's
    "r"(blockDim.x)) alone set it, an id in a register only where movs of one immediate alone
    set it (not one per warp, and not a count computed as min(blockDim.x, 32))."""
    barriers = {i: (_barrier_count(op), _barrier_id(op)) for i, op in enumerate(opcodes)
                if op.startswith(("bar.", "barrier."))}
    asked = {r for pair in barriers.values() for r in pair if r.startswith("%")}
    written: dict[str, set] = {}
    for op in opcodes if asked else ():
        if (m := PTX_DESTINATION.match(op)) and not op.startswith(("bar.", "barrier.")):
            mov = PTX_MOV.match(op)
            for register in re.findall(r"%\w+", m[1]):
                if register not in asked:
                    continue
                source = mov[3] if mov and mov[2] == register else None
                written.setdefault(register, set()).add(
                    threads if source in ("%ntid.x", "%ntid") else
                    _immediate(source, {}) if source is not None else None)
    out = []
    for i in range(len(opcodes)):
        count, ident = barriers.get(i, ("", ""))
        counted = not count.startswith("%") or written.get(count, {None}) == {threads}
        fixed = not ident.startswith("%") or (
            len(values := written.get(ident, {None})) == 1 and None not in values)
        out.append(counted and fixed)
    return out


def _barrier_id(op: str) -> str:
    """The barrier-id operand of a block barrier (bar.sync, bar.red and kin), or ""."""
    operands = op.split(None, 1)[1].split(",") if " " in op else []
    return (operands[0] if op.startswith(("bar.sync", "barrier.sync", "bar.cta.sync",
                                          "barrier.cta.sync")) and operands
            else operands[1] if ".red" in op and len(operands) >= 3 else "").strip()


# an mbarrier operation without its ordering: .relaxed (PTX 8.6+) drops a wait's acquire and a
# plain arrival's release (a release of what was read before it), which no run on today's GPUs
# shows; the bare expect_tx announces bytes only and may be relaxed (cuda::barrier compiles it
# so); an arrival with expect_tx releases too
RELAXED = re.compile(r"mbarrier\.(?:(?:try|test)_wait|arrive)(?:\.[\w:]+)*?\.relaxed\b")


def _check_structure(instructions: list[str], steps: tuple[Step, ...],
                     threads: int = BLOCK_THREADS, deadline: Deadline | None = None
                     ) -> dict[str, str]:
    """Each step's instruction where it belongs along the kernel's control flow
    (:class:`_Flow`): one that a path from one of step ``after`` reaches (or that is one, for
    ``at_or_after``), through none of step ``before``, or in the loops around those of step
    ``loop_of``; a ``ready`` step, that the shared-memory reads come after them
    (:func:`_unready_read`). Only instructions that run count (dead code is no copy, wait or
    barrier), an mbarrier wait only inside a short loop (one try_wait may return false), and a
    barrier only if it counts the whole block (:func:`_counted_barriers`). Returns each step's
    first instruction. Past the check's ``deadline`` (looked at between steps and rules), too
    large to check."""

    def in_time() -> None:
        if deadline is not None and deadline.expired():
            raise _too_large("its checks take too long")
    in_time()   # the second build's checks start only within the time left
    opcodes = [_opcode_and_rest(i) for i in instructions]
    relaxed = next((op for op in opcodes if RELAXED.match(op)), None)
    if relaxed:
        raise ExerciseError(f"its PTX has {relaxed.split()[0]}: a .relaxed mbarrier operation "
                            "orders no memory (a wait must acquire what the arrivals release, "
                            "an arrival release what was read or written before it); drop "
                            ".relaxed (a wait's default is .acquire, an arrival's .release)")
    if threads != BLOCK_THREADS:   # a build of another size: its barriers count its threads
        opcodes = [_recount(op, threads) for op in opcodes]
    scopes = _scopes(instructions)   # each inlined function's registers its own
    opcodes = _generic_shared_loads(instructions, opcodes, scopes)
    other = _other_reads(instructions, opcodes, scopes)   # reads of no copy's array
    by_name = {step.name: step for step in steps}
    flow = _Flow(instructions)
    # what differs between the threads (an arrival's barrier among them): where one arrives
    varying = _varying(instructions, opcodes, flow, scopes)
    # arrivals whose barrier differs between the threads (through data: an address computed
    # under a branch on the thread's id is the same for the threads that compute it): they
    # order nothing for the others
    chosen = _spread(instructions, opcodes, lambda head, body: bool(
        VARYING_SOURCE.search(body) or VARYING_RESULT.match(head)), scopes=scopes) if any(
        MB_ARRIVE.match(op) for op in opcodes) else set()
    split = bytearray(bool(MB_ARRIVE.match(op) and _address_names(op, scopes[i]) & chosen)
                      for i, op in enumerate(opcodes))
    if any(MB_ARRIVE.match(op) for op in opcodes):
        _joined_barriers(instructions, opcodes, flow, scopes, varying, split)
    in_time()
    looped = _retry_loops(instructions, opcodes, flow)   # the mbarrier waits that wait
    placed: dict[str, list[int]] = {}
    around: dict[str, bytearray] = {}
    counted = _counted_barriers(opcodes, threads)
    # the cp.async copies complete on an mbarrier only through cp.async.mbarrier.arrive: an
    # mbarrier wait is their wait only where a path from such an arrival reaches it
    # (an arrival tracks the copies issued before it)
    copied = flow.reach([i for i, op in enumerate(opcodes) if CP_ASYNC.match(op)], False)
    arrived = flow.reach([i for i, op in enumerate(opcodes) if flow.issued[i] and copied[i]
                          and CP_ARRIVE.match(op)], inclusive=False)

    wheres: dict[tuple, list[int]] = {}   # each step's instructions, found once

    def where(step: Step, running: bool = True) -> list[int]:
        key = (step.name, step.pattern.pattern, running)
        if key not in wheres:
            wheres[key] = every(step, running)
        return list(wheres[key])

    def every(step: Step, running: bool) -> list[int]:
        return [i for i, op in enumerate(opcodes)
                if step.pattern.match(op) and (flow.issued[i] or not running) and counted[i]
                and (not MB_WAIT.match(op) or looped[i]   # a wait that may not wait
                     and (arrived[i] or step.pattern not in (CP_WAIT, CP_WAIT_ALL, CP_WAIT_ONE)))]

    for step in steps:
        in_time()
        if step.ready:
            waits, barriers = (where(by_name[name]) for name in step.ready)
            early = _unready_read(opcodes, flow, waits, barriers, step.fresh, other)
            if early is not None:
                raise ExerciseError(_UNSYNCED_READ if other[early] else step.misplaced)
            continue
        anywhere = where(step)
        if step.loop_of:
            if step.loop_of not in around:   # the same loops for each step of one loop_of
                around[step.loop_of] = flow.loops_around(placed[step.loop_of])
            loops = around[step.loop_of]
            if not any(loops):   # one tile per block: no refill to order
                raise ExerciseError(f"its {opcodes[placed[step.loop_of][0]].split()[0]} is in no "
                                    "loop: each block walks over its tiles (for (int tile = "
                                    "blockIdx.x; tile < tiles; tile += gridDim.x)) and waits "
                                    "for each tile's copies in that loop")
            found = [i for i in anywhere if loops[i]]
            if step.batches:
                _check_batches(instructions, opcodes, flow, loops, found,
                               where(by_name["barrier"]), scopes)
            if not found and step.overlap:   # waits for all, then issues the next tile: overlap
                found = _wait_all_then_copy(opcodes, flow, loops)
        elif step.after or step.before:
            sources = placed[step.after] if step.after else [0]
            inclusive = step.at_or_after or not step.after
            # with `before`: the first of this step on each path from `after`, found on every
            # path that reaches a `before`
            stops = where(by_name[step.before]) if step.before else []
            # an instruction of this step under a guard that may be false stops no path, unless
            # the one it follows has the same guard (@p mbarrier.init, @p fence.proxy.async)
            guards = {_guard(instructions, scopes, i) for i in sources}
            if len(guards) != 1 or None in guards or not _written_once(
                    instructions, opcodes, scopes, next(iter(guards))[1]):
                guards = set()   # no one guard that all of them share, set once
            blocking = [i for i in anywhere
                        if flow.sure[i] or _guard(instructions, scopes, i) in guards]
            reached = flow.reach(sources, inclusive, stops + blocking if stops else ())
            found = [] if any(reached[i] for i in stops) else [i for i in anywhere if reached[i]]
        else:
            found = anywhere
        if found and not (step.refill and _unordered_refill(opcodes, flow, loops, found, other,
                                                            split)):
            block = [i for i in found if not MB_WAIT.match(opcodes[i])]
            # the summary names what orders the refill: a block barrier, or only an mbarrier
            placed[step.name] = (found if not step.refill or block and not _unordered_refill(
                opcodes, flow, loops, block, other, split) else [i for i in found
                                                                 if i not in block])
            continue
        if step.after and not any(end and not flow.successors[i] for i, end in
                                  enumerate(flow.reach(placed[step.after], inclusive=True))):
            raise ExerciseError(f"a loop that never ends: no path from its "
                                f"{opcodes[placed[step.after][0]].split()[0]} reaches the end of "
                                "the kernel (the loop around it has no way out)")
        if anywhere and step.misplaced:
            raise ExerciseError(step.misplaced)
        dead = [] if anywhere else where(step, running=False)
        raise ExerciseError(step.missing + (
            f" (The PTX lists {opcodes[dead[0]].split()[0]}, but no path from the kernel's entry "
            "runs it: a branch jumps over it, or its predicate is always false.)" if dead else ""))
    in_time()
    if (copy := _copied_by_all(instructions, opcodes, flow, scopes, varying)) is not None:
        axes = any(PTX_OTHER_AXES.search(op) for op in opcodes)
        raise ExerciseError((_BULK_BY_ALL if BULK.match(opcodes[copy]) else _COPIED_BY_ALL)
                            + (_ONE_DIMENSIONAL if axes else ""))
    in_time()
    if _unordered_store(instructions, opcodes, flow, counted, looped, scopes, split,
                        by_array="barrier" not in by_name):
        raise ExerciseError(_UNORDERED_STORE)
    in_time()
    if "release" in by_name and _partial_release(instructions, opcodes, flow, scopes, other,
                                                 varying, split):
        raise ExerciseError(_PARTIAL_RELEASE)
    # what each step found, a block barrier first where one is among them (the summary says
    # "a block barrier" only where there is one)
    return {step: opcodes[next((i for i in found if not MB_WAIT.match(opcodes[i])), found[0])]
            for step, found in placed.items()}


_UNSYNCED_READ = (
    "it reads shared memory before the block has synchronised (in the PTX, a path from the "
    "kernel's entry reaches a read, an ld.shared or an atomic such as atomicAdd, of an array "
    "no copy fills, such as the taps' w_s or a counter, through no bar.sync 0): what another "
    "thread stores there may not be there yet; call __syncthreads() between the stores and "
    "the first read, even where one thread alone touches it (the check does not count "
    "threads).")


# what may write shared memory: st.shared, or a generic st (not .global/.local/.param), and
# the reductions and atomics (red.shared.or after red.shared.and is a store)
SHARED_STORE = re.compile(r"(?:st|red|atom)(?!(?:\.\w+)*\.(?:global|param|local)\b)"
                          r"(?:\.[\w:]+)*\s")
_UNORDERED_STORE = (
    "a store to shared memory reaches a read of shared memory through an mbarrier wait, with "
    "no __syncthreads() and no arrival on that barrier between (in the PTX, a path goes from an "
    "st.shared through an mbarrier wait to an ld.shared through no bar.sync and no arrival "
    "that a wait names): the wait orders only what each thread wrote before it arrived, so "
    "another thread may read the store's old value. Store all that Phase 4 reads (the zeros "
    "(0.0f), the vector's edge values, the taps) before this thread arrives, let every thread that "
    "stores arrive after its stores, or call __syncthreads() between the last store and "
    "Phase 4's reads.")


MAX_BARRIER_ARRAYS = 8   # shared arrays the mbarrier waits name, at most, that an arrival may share


def _unordered_store(instructions: list[str], opcodes: list[str], flow: _Flow,
                     counted: list[bool], looped: bytearray, scopes: list[int],
                     split: bytearray, by_array: bool = False) -> bool:
    """Whether a path goes from a shared-memory store through an mbarrier wait (a
    cuda::barrier's, standing for the block barrier) to a shared-memory read, through no block
    barrier (one that counts the block: ``counted``) and no arrival that a wait names: what
    the store wrote reaches the other threads' reads ordered by nothing, for the wait acquires
    only what the arrivals released. (Without an mbarrier wait between, a store and a read may
    be of two buffers; the barriers' order is the other steps'.) Linear: a walk over
    (instruction, past a wait), and with ``by_array`` where it finds such a path, one walk
    back from the waits' addresses (:func:`_origins`), a :func:`_spread` for each shared array
    they are computed from (at most :data:`MAX_BARRIER_ARRAYS`) and one walk more."""
    # an arrival counts where a wait that waits (``looped``: in its retry loop, and run) names
    # what it names: its token (bar.wait(bar.arrive())) or its barrier's address (a wait by
    # parity); not a dummy barrier's, nor one a single test or dead code names
    named = _named_by_waits(opcodes, [i for i, op in enumerate(opcodes)
                                      if MB_WAIT.match(op) and looped[i] and flow.issued[i]])
    if not named:   # no mbarrier wait: the barrier steps order the stores
        return False

    def released(op: str) -> bool:
        return _names_one(op, named)
    stops = {i for i, op in enumerate(opcodes) if flow.issued[i] and (
        BLOCK_BAR.match(op) and counted[i] or MB_ARRIVE.match(op) and released(op)
        and not split[i])}   # (an arrival on a barrier the thread chooses orders nothing)

    def unordered() -> bool:
        seen = bytearray(2 * flow.size)
        todo = [(j, 0) for i, op in enumerate(opcodes)
                if flow.issued[i] and SHARED_STORE.match(op) for j in flow.successors[i]]
        while todo:
            i, waited = todo.pop()
            if seen[2 * i + waited]:
                continue
            seen[2 * i + waited] = 1
            if waited and SHARED_LOAD.match(opcodes[i]):
                return True
            if i in stops:
                continue
            after = 1 if waited or MB_WAIT.match(opcodes[i]) else 0
            todo.extend((j, after) for j in flow.successors[i])
        return False
    if not unordered():
        return False
    if not by_array:
        return True
    # with ``by_array``, the same barrier by other names: an arrival and a wait whose addresses
    # are computed from one shared array's address (bar[stage].arrive() and
    # bar[stage].wait_parity(...) hold it in registers of their own). Only where every
    # mbarrier is the exercise's own array of one kind (bulk's bar[], the warp-specialised
    # full[] and empty[]): a block-scope cuda::pipeline keeps its full and empty barriers in one
    # shared state, and the consumer's release there orders nothing the compute reads.
    waits = [i for i, op in enumerate(opcodes) if MB_WAIT.match(op) and looped[i]
             and flow.issued[i]]
    arrivals = [i for i, op in enumerate(opcodes) if MB_ARRIVE.match(op) and flow.issued[i]
                and i not in stops and not split[i]]

    def registers(i: int) -> set[str]:
        address = PTX_ADDRESS.search(opcodes[i])
        return {_register(o, scopes[i]) for o in PTX_OPERANDS.findall(" " + address[1])
                } if address else set()
    # the arrays the waits' addresses are computed from (bar, full, empty: a few)
    symbols = {name for name in _origins(instructions, opcodes, {
        r for i in waits for r in registers(i)}, scopes)
        if re.fullmatch(r"[A-Za-z_$][\w$]*", name)}
    if len(symbols) > MAX_BARRIER_ARRAYS:
        return True
    for sym in sorted(symbols):
        if not arrivals:
            break
        derived = _spread(instructions, opcodes, lambda head, body: bool(
            head.startswith(("mov.", "cvta.shared")) and body.rsplit(",", 1)[-1].strip() == sym),
            scopes=scopes)
        derived.add(sym)
        if any(registers(i) & derived for i in waits):
            stops.update(i for i in arrivals if registers(i) & derived)
            arrivals = [i for i in arrivals if i not in stops]
    return unordered()


# 4. The GPU -------------------------------------------------------------------------------------

def _sizes(case: Case) -> tuple:
    return (case.tile, case.k, case.threads, case.stages)


def _check_other_size(ptx: bytes, ex: Exercise, case: Case | LearnerBuild,
                      deadline: Deadline | None) -> None:
    """The structure checks on the build of another ``case`` (or build: its sizes): a kernel
    that waits (copies, synchronises) only at the sizes of the build the PTX is read from is
    refused."""
    try:
        instructions = _kernel_instructions(ptx.decode("utf-8", "replace"), ex.kernel, deadline)
        _check_structure(instructions, ex.steps, case.threads, deadline)
        _check_jitter(instructions, ex)
    except TooLarge:
        raise
    except ExerciseError as exc:
        stages = f", {case.stages} stages" if case.stages else ""
        raise ExerciseError(f"built at tile={case.tile}, K={case.k}, {case.threads} threads"
                            f"{stages} (the check builds it at several sizes, and each build "
                            f"must be the same kernel: a condition on the sizes is refused; "
                            f"static_assert what your code needs): {exc}") from None


def _runs(ex: Exercise, arch: int) -> list[tuple[Case, bool, int, bool]]:
    """What the GPU run launches on generation ``arch``: each (case, under the stress build,
    launches, with x in host memory). The host-memory run only where the copies are
    asynchronous (the exercise's PTX's generation and newer)."""
    return ([(c, False, 1, False) for c in ex.cases]
            + [(s, True, STRESS_LAUNCHES, False) for s in ex.stresses]
            + ([(ex.slow, True, SLOW_LAUNCHES, True)] if ex.slow and arch >= ex.ptx_arch
               else []))


def _build_cases(src: str, ex: Exercise, folder: Path, include: str,
                 deadline: Deadline | None = None, arch: int = 0) -> None:
    """Compile the kernel for this GPU at every configuration, the stress cases and the slow
    one (:attr:`Exercise.slow`), into ``folder``, with ``cases.json`` saying how to launch each;
    where this GPU's PTX has the exercise's instructions (``arch``, its generation, at least the
    exercise's PTX's), each build's PTX passes the structure checks too."""
    from ..launch import gpu_target
    target = gpu_target("async_halo")   # this GPU, or the generation the book runs as
    todo, builds, what = [], [], []
    # every build the run launches is a stress build (warps wait at random at the PHASE()
    # points), so that no build the learner's code could tell apart from the stress one runs;
    # cases of the same sizes share one build
    for case, stress, launches, slow in _runs(ex, arch):
        build = LearnerBuild(case.tile, case.k, case.threads, target, case.stages, jitter=True,
                             include=include)
        if build not in builds:
            builds.append(build)
            stages = f", {case.stages} stages" if case.stages else ""
            what.append(f" with tile={case.tile}, K={case.k}{stages}")
        todo.append(dict(case._asdict(), blocks=case.grid(), jitter=stress,
                         block_threads=case.threads + (32 if ex.producer_warp else 0),
                         binary=_binary(builds.index(build), build),
                         launches=launches, kernel=ex.kernel, host_input=slow,
                         advice=ex.slow_advice if slow else ex.advice))
    compiled = _compile_many(src, ex, builds, folder, deadline or Deadline(COMPILE_LIMIT_S), what)
    if arch >= ex.ptx_arch:
        for build, (ptx, _) in zip(builds, compiled):
            if deadline is not None and deadline.expired():
                raise ExerciseError(f"its check did not finish within its {COMPILE_LIMIT_S} s "
                                    "of compiling and reading: a kernel this large is not an "
                                    "exercise's")
            _check_other_size(ptx, ex, build, deadline)
    for number, (build, (ptx, cubin)) in enumerate(zip(builds, compiled)):
        (folder / _binary(number, build)).write_bytes(cubin if build.machine_code else ptx)
    (folder / "cases.json").write_text(json.dumps(todo))


def _binary(number: int, build: LearnerBuild) -> str:
    """The file the run loads build ``number`` from: machine code, or PTX for the driver."""
    return f"case{number}.{'cubin' if build.machine_code else 'ptx'}"


def _run_on_gpu(folder: Path, deadline: Deadline | None = None) -> str:
    """Run the cases in a separate process, so that a kernel that never ends is killed after
    TIME_LIMIT_S and the notebook goes on. Returns its verdict or raises its message."""
    limit = (deadline or Deadline(TIME_LIMIT_S)).left(TIME_LIMIT_S)
    try:
        done = subprocess.run([*RUNNER, str(folder)], capture_output=True, text=True,
                              errors="replace", timeout=limit, cwd=folder, env=_child_env())
    except subprocess.TimeoutExpired:
        raise ExerciseError(f"it did not finish within {limit:.0f} s on the GPU: a loop that "
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
    if case.get("host_input"):
        return (f"with its input in host memory (each copy takes microseconds to land), launch "
                f"{launch + 1} of {case['launches']}, {found}. A wait returned before the copies "
                f"the compute reads had landed. {case.get('advice', '')}").strip()
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


def _in_host_memory(cupy, x: np.ndarray):
    """``x`` copied into pinned host memory, as a CuPy array that a kernel reads over the host
    link (PCIe, or an NVLink-C2C): with unified addressing, host memory from cudaHostAlloc is
    a device address too."""
    pinned = cupy.cuda.alloc_pinned_memory(x.nbytes)
    np.frombuffer(pinned, x.dtype, x.size)[:] = x
    memory = cupy.cuda.UnownedMemory(pinned.ptr, x.nbytes, pinned, cupy.cuda.Device().id)
    return cupy.ndarray(x.shape, x.dtype, cupy.cuda.MemoryPointer(memory, 0))


def run_cases(folder: Path) -> str:
    """The GPU side (the separate process): launch every case of ``folder/cases.json`` on fresh
    NaN-poisoned outputs, x in host memory for a case with ``host_input``; ExerciseError at
    the first wrong output."""
    import cupy
    poison = _shared_poisoner(cupy)
    cases = json.loads((Path(folder) / "cases.json").read_text())
    for case in cases:
        module = cupy.RawModule(path=str(Path(folder) / case["binary"]))
        kernel = module.get_function(case["kernel"])
        x, w = random_inputs(case["n"], case["k"])
        expected, bound = reference(x, w), error_bound(x, w)
        xd = _in_host_memory(cupy, x) if case.get("host_input") else cupy.asarray(x)
        wd = cupy.asarray(w)
        y = cupy.empty(case["n"], cupy.float32)
        for launch in range(case["launches"]):
            y.fill(cupy.nan)   # an output the kernel never writes stays NaN
            try:
                poison()
                kernel((case["blocks"],), (case["block_threads"],),
                       (xd, wd, y, np.int32(case["n"])))
                out = y.get()
            except (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError) as exc:
                raise ExerciseError(f"it crashed on the GPU (n={case['n']}, tile={case['tile']}, "
                                    f"K={case['k']}): {exc}") from None
            problem = _wrong(out, expected, bound, case, launch)
            if problem:
                raise ExerciseError(problem)
    return _all_correct(cases)


def _all_correct(cases: list[dict]) -> str:
    """What the run says when every output of ``cases`` (cases.json's) was right."""
    stress = [c for c in cases if c["jitter"] and not c.get("host_input")]
    slow = [c for c in cases if c.get("host_input")]
    builds = "the stress build" if len(stress) == 1 else "each stress build"
    sizes = "" if len(stress) == 1 else (
        f" with tiles of {' and '.join(str(c['tile']) for c in stress)}")
    said = (f"correct on the GPU for all {len(cases) - len(stress) - len(slow)} configurations, "
            f"and for {stress[0]['launches']} launches of {builds} at "
            f"n={stress[0]['n']}{sizes}")
    return said + "".join(
        f"; correct with its input in host memory too ({c['launches']} launches at n={c['n']}"
        + (f", {c['stages']} stages" if c.get("stages") else "")
        + ": there each copy takes microseconds to land, so a wait that returns before the "
        "copies the compute reads have landed shows up as wrong outputs)" for c in slow)


def main(argv: list[str] | None = None) -> None:
    """``python -m kernels.teach.exercise --run FOLDER``: print the GPU verdict as one line of JSON;
    ``--compile JOB``: compile one job of the check (see :func:`compile_job`)."""
    import argparse
    parser = argparse.ArgumentParser(description=main.__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--run", type=Path, help="a folder made by the check")
    group.add_argument("--compile", type=Path, help="a job file made by the check")
    args = parser.parse_args(argv)
    if args.compile:
        compile_job(args.compile)
        return
    folder = args.run
    try:
        verdict = {"passed": True, "verdict": run_cases(folder)}
    except ExerciseError as exc:
        verdict = {"passed": False, "message": str(exc)}
    print(json.dumps(verdict), flush=True)


# The check --------------------------------------------------------------------------------------

# What no check here decides, said in every verdict that passes: the PTX has the instructions,
# each on some path from the kernel's entry, and the outputs are right, but a copy the learner
# put where it never runs at run time (under a condition that is never true, such as n < 0), or
# into a buffer nothing reads, looks the same to the PTX and leaves plain loads to get the
# outputs right. (Dead code in the PTX itself, branched over or under a guard that is constant
# false, is refused: :class:`_Flow`.) Nor how many threads copy each cell: a copy that every
# thread makes to the same cells is refused (:func:`_copied_by_all`), but one that 8 or 32 of
# them make (lane 0 of every warp issuing the bulk copy, warp 0's 32 lanes, windows that
# overlap) gives the right outputs and looks, to a check that counts no threads, like one.
NOT_CHECKED = ("not checked: that each of those instructions runs on every path, that the "
               "copies feed the compute, and that one thread alone copies each cell")


# Said instead of the host-memory run where the GPU's copies are synchronous (a T4's): there
# every copy has landed when its cp.async returns, and no wait can return too early.
SYNCHRONOUS = ("not run with its input in host memory: on sm_{arch} the copies are synchronous, "
               "so no wait can return before they land (a wait that would shows only on "
               "sm_{ptx_arch} or newer)")


def _would_run(ex: Exercise) -> str:
    """What the run it cannot make here would have checked."""
    slow = f" and {SLOW_LAUNCHES} times with its input in host memory" if ex.slow else ""
    return (f"; on sm_{ex.run_arch} or newer the check would run it at {len(ex.cases)} "
            "configurations, "
            f"{STRESS_LAUNCHES * len(ex.stresses)} times under the stress build{slow}, each "
            "output against a float64 reference")


def _check(src, name) -> tuple[bool, str]:
    """(whether it ran on a GPU, the verdict); ExerciseError at the first problem."""
    try:
        ex = get(name)
    except (TypeError, ValueError) as exc:
        raise ExerciseError(str(exc)) from None
    src = _source(src)
    _check_markers(src)
    _check_preprocessing(src)
    _check_phases(src, ex)
    runs = gpu_available()
    deadline = Deadline(COMPILE_LIMIT_S + (COMPILE_LIMIT_S + TIME_LIMIT_S if runs else 0))
    with tempfile.TemporaryDirectory(prefix=f"{ex.key}-exercise-") as tmp:
        folder = Path(tmp)
        include = _private_include(folder)
        first = ex.cases[0]
        # the stress build (what the run launches), machine code: ptxas reads it too
        stress = LearnerBuild(first.tile, first.k, first.threads, f"sm_{ex.ptx_arch}",
                              first.stages, jitter=True, include=include)
        # and the case whose sizes differ from the first's the most: every build the check
        # makes must be the same kernel, whatever C++ `if` on the sizes it holds
        other = max(ex.cases[1:], key=lambda c: sum(
            a != b for a, b in zip(_sizes(c), _sizes(first))))
        second = LearnerBuild(other.tile, other.k, other.threads, f"sm_{ex.ptx_arch}",
                              other.stages, jitter=True, include=include)
        [(stressed, _), (ptx2, _)] = _compile_many(src, ex, [stress, second], folder, deadline)
        instructions = _kernel_instructions(stressed.decode("utf-8", "replace"), ex.kernel,
                                            deadline)
        found = _check_structure(instructions, ex.steps, deadline=deadline)
        _check_jitter(instructions, ex)
        _check_other_size(ptx2, ex, other, deadline)
        summary = ex.summary
        mbarrier = "an mbarrier wait (its thread count is not checked)"
        if MB_WAIT.match(found.get("barrier", "")):   # a cuda::barrier's wait, not bar.sync
            summary = summary.replace("then a block barrier", f"then {mbarrier}")
        if MB_WAIT.match(found.get("refill", "")):
            summary = summary.replace("a block barrier between", f"{mbarrier} between")
        static = f"compiles with NVRTC, and {summary}"
        if not runs:
            return False, (f"{static}; " + (
                f"running it needs sm_{ex.run_arch} or newer (an H100 or H200; Colab's T4, L4 "
                f"and A100 are older){_would_run(ex)}" if ex.run_arch else
                "running it needs a GPU (open this notebook in Colab with a GPU runtime)"))
        from ..device import target_arch
        arch = target_arch()
        if arch < ex.run_arch:
            return False, (f"{static}; running it needs sm_{ex.run_arch} or newer, and the book "
                           f"runs as sm_{arch} here{_would_run(ex)}")
        _build_cases(src, ex, folder, include, deadline, arch)
        unhidden = (f"; {SYNCHRONOUS.format(arch=arch, ptx_arch=ex.ptx_arch)}"
                    if ex.slow and arch < ex.ptx_arch else "")
        return True, f"{static}; {_run_on_gpu(folder, deadline)}{unhidden}; {NOT_CHECKED}"


def check(src: str, name: str = "async_halo") -> str:
    """Check a learner's kernel for exercise ``name`` (see the module's docstring); raise
    ``ExerciseError`` at the first problem, with a specific message. Returns a one-line
    verdict. It takes at most :data:`COMPILE_LIMIT_S` (30 s) without a GPU, and
    ``2 * COMPILE_LIMIT_S + TIME_LIMIT_S`` (120 s) with one."""
    return _check(src, name)[1]


def report(src: str, name: str = "async_halo") -> str:
    """The check's verdict as one paragraph, never raising, whatever it is given, within the
    time :func:`check` takes: what the notebook prints, so that "Run all" goes on past an
    unfinished exercise. It is a :class:`~kernels.edition.Text`: the Korean edition shows it in
    Korean (:mod:`kernels.teach.exercise_ko`)."""
    try:
        ran, verdict = _check(src, name)
        said = f"PASSED: {verdict}." if ran else f"COMPILES, NOT RUN: {verdict}."
    except ExerciseError as exc:
        said = f"NOT YET: {exc}"
    except Exception as exc:   # a fault of the check's, not of the answer's
        said = (f"NOT CHECKED: the check itself failed ({type(exc).__name__}: "
                f"{reprlib.repr(str(exc))[1:-1]}); please report it.")
    from . import exercise_ko
    return Text(said, exercise_ko.korean(said))


if __name__ == "__main__":
    main()
