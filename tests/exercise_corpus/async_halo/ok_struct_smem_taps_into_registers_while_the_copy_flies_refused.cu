// Style: the solution with the block's shared memory as one struct (sm.x, sm.w), and the taps
// moved into registers while the copy flies: stored in sm.w, published by a __syncthreads(),
// read into w_r (notebook 04's load_taps habit); the compute multiplies by w_r[k].
// Why correct: the read of sm.w comes after the barrier that orders every thread's stores of
// it, no copy writes sm.w; the copies into sm.x are waited for (consumer_wait) and then
// __syncthreads() before any read of sm.x, as in the solution. The sum order is the same.
#include <cuda/pipeline>
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_async_halo(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             float* __restrict__ y,
                                             int n CONV_TRACE_ARG)
{
    struct Smem {
        float x[CONV_BUF];   // left halo | tile | right halo
        float w[CONV_K];     // the taps
    };
    __shared__ Smem sm;

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of sm.x[0]
    auto pipe = cuda::make_pipeline();               // this thread's queue of async copies

    PHASE(0);
    // Phase 1: start the asynchronous copy of the tile and its halos. Consecutive threads copy
    // consecutive elements (coalesced); the few cells outside [0, n) get a plain store of zero.
    pipe.producer_acquire();
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n) cuda::memcpy_async(&sm.x[j], &x[g], sizeof(float), pipe);
        else                 sm.x[j] = 0.0f;
    }
    pipe.producer_commit();

    PHASE(1);
    // Phase 2: while the tile is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        sm.w[k] = w[k];
    }
    __syncthreads();                       // every thread's taps are in sm.w
    float w_r[CONV_K];                     // the taps in registers, once
#pragma unroll
    for (int k = 0; k < CONV_K; ++k) w_r[k] = sm.w[k];

    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    pipe.consumer_wait();
    PHASE(3);
    __syncthreads();
    PHASE(4);

    // Phase 4: compute from shared memory.
    for (int t = threadIdx.x; t < CONV_TILE; t += CONV_THREADS) {
        const int i = tile_start + t;
        if (i >= n) break;
        float acc = 0.0f;
        for (int k = 0; k < CONV_K; ++k) {
            acc += sm.x[t + k] * w_r[k];
        }
        y[i] = acc;
    }
    PHASE(5);
    pipe.consumer_release();
}
