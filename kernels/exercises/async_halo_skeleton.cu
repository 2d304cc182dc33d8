// Exercise: the correct Puzzle 28 kernel. Complete Phase 1 and
// Phase 3 where it says FILL IN.
// Shared memory holds the tile with both halos, x_s[0] being x[buf_start];
// cells outside [0, n) must hold zeros. Use cuda::memcpy_async(dst, src,
// sizeof(float), pipe) for the copy.
// Leave the PHASE() lines where they are (PHASE(3), between Phase 3's two
// waits, is yours to put back or leave out): they do nothing, except in the
// check's stress build, where warps wait there at random so that a missing
// wait or barrier seldom passes by luck.
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
    auto pipe = cuda::make_pipeline();   // this thread's queue of async copies

    PHASE(0);
    // Phase 1: start the asynchronous copy of the tile and its halos.
    pipe.producer_acquire();
    // FILL IN: each thread copies x_s[j] for j = threadIdx.x,
    // threadIdx.x + CONV_THREADS, ...
    pipe.producer_commit();

    PHASE(1);
    // Phase 2: while the tile is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    // FILL IN
    PHASE(4);

    // Phase 4: compute from shared memory.
#pragma unroll CONV_OUTS_UNROLL
    for (int o = 0; o < CONV_OUTS; ++o) {
        const int t = threadIdx.x + o * CONV_THREADS, i = tile_start + t;
        if (t >= CONV_TILE || i >= n) break;
        float acc = 0.0f;
        for (int k = 0; k < CONV_K; ++k) {
            acc += x_s[t + k] * w_s[k];
        }
        y[i] = acc;
    }
    PHASE(5);
    pipe.consumer_release();
}
