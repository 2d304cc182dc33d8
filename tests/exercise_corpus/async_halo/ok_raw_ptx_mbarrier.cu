// Style: everything in PTX, as the chapters show the instructions: an mbarrier in shared memory
// initialised by thread 0 for CONV_THREADS arrivals (then __syncthreads, before any use); each
// thread's copies are cp.async.ca 4-byte copies, tracked by cp.async.mbarrier.arrive (which adds
// one pending arrival that fires once this thread's earlier cp.async copies land); after storing
// its taps, each thread arrives (mbarrier.arrive, release) and waits for phase 0 with a
// test_wait.parity loop (acquire; try_wait is sm_90 only). The phase completes only when every thread has arrived and
// every thread's copies have landed, so every x_s cell and tap is visible after the wait (the
// wait is the block barrier here, as with a cuda::barrier). The pipeline's commit is left as the
// skeleton has it (an empty batch).
// Exercise: the correct Puzzle 28 kernel. Complete Phase 1 and Phase 3 where it says FILL IN.
// Shared memory holds the tile with both halos, x_s[0] being x[buf_start]; cells outside
// [0, n) must hold zeros. Use cuda::memcpy_async(dst, src, sizeof(float), pipe) for the copy.
// Leave the PHASE(p) lines where they are: they do nothing, except in the check's stress build,
// where warps wait there at random so that a missing wait or barrier cannot pass by luck.
#include <cuda/pipeline>
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_async_halo(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             float* __restrict__ y,
                                             int n)
{
    __shared__ float x_s[CONV_BUF];   // left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of x_s[0]
    auto pipe = cuda::make_pipeline();               // this thread's queue of async copies
    __shared__ unsigned long long mbar;              // completes once every copy has landed
    const unsigned mbar_s = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(mbar_s), "r"(CONV_THREADS) : "memory");
    __syncthreads();

    PHASE(0);
    // Phase 1: start the asynchronous copy of the tile and its halos.
    pipe.producer_acquire();
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n) {
            const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&x_s[j]));
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(dst), "l"(&x[g]) : "memory");
        } else {
            x_s[j] = 0.0f;
        }
    }
    asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(mbar_s) : "memory");
    pipe.producer_commit();

    PHASE(1);
    // Phase 2: while the tile is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    { unsigned long long state;   // this thread's arrival (release)
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(mbar_s) : "memory"); (void)state; }
    {
        unsigned done = 0;
        while (!done) {
            asm volatile("{ .reg .pred p;\n"
                         "  mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                         "  selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(mbar_s) : "memory");
        }
    }
    PHASE(4);

    // Phase 4: compute from shared memory.
    for (int t = threadIdx.x; t < CONV_TILE; t += CONV_THREADS) {
        const int i = tile_start + t;
        if (i >= n) break;
        float acc = 0.0f;
        for (int k = 0; k < CONV_K; ++k) {
            acc += x_s[t + k] * w_s[k];
        }
        y[i] = acc;
    }
    PHASE(5);
    pipe.consumer_release();
}
