// Variant 4 — async_halo: Puzzle 28 done right.
// The block copies its tile AND both halos into shared memory asynchronously (cp.async on sm_80+;
// a synchronous copy on older GPUs), loads the taps while the copy is in flight, then
// waits, synchronises and computes every output from shared memory.
// Compared with tiled_sync.cu only Phase 1 (async copy) and Phase 3 (wait) change.
#include <cuda/pipeline>
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_async_halo(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             float* __restrict__ y,
                                             int n CONV_TRACE_ARG)
{
    __shared__ float x_s[CONV_BUF];   // left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of x_s[0]
    auto pipe = cuda::make_pipeline();               // this thread's queue of async copies

    PHASE(0);
    // Phase 1: start the asynchronous copy of the tile and its halos. Consecutive threads copy
    // consecutive elements (coalesced); the few cells outside [0, n) get a plain store of zero.
    pipe.producer_acquire();
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n) cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe);
        else                 x_s[j] = 0.0f;
    }
    pipe.producer_commit();

    PHASE(1);
    // Phase 2: while the tile is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    cuda::pipeline_consumer_wait_prior<1>(pipe);
    PHASE(3);
    __syncthreads();
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
