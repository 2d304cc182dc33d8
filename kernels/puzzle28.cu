// Variant 3 — puzzle28: the algorithm of Puzzle 28 exactly as
// published, bug included.
// The input tile is copied asynchronously (cp.async on sm_80+) while the threads
// load the taps; then wait, barrier, compute. But shared memory holds the tile
// only, no halo: the first and last CONV_HALO outputs of every tile cannot be
// convolved, and the published code copies the input there instead. Kept to show
// that error; the correct version is async_halo.cu.
#include <cuda/pipeline>
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_puzzle28(const float* __restrict__ x,
                                           const float* __restrict__ w,
                                           float* __restrict__ y,
                                           int n CONV_TRACE_ARG)
{
    __shared__ float x_s[CONV_TILE];   // the tile only: no room for halos
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // global index of x_s[0]
    auto pipe = cuda::make_pipeline();   // this thread's queue of async copies

    PHASE(0);
    // Phase 1: start the asynchronous copy of this block's input tile
    // (zeros past n). The loop counts CONV_OUTS rounds (the tile's cells per
    // thread), a number the compiler knows.
    pipe.producer_acquire();
#pragma unroll CONV_OUTS_UNROLL
    for (int r = 0; r < CONV_OUTS; ++r) {
        const int j = threadIdx.x + r * CONV_THREADS, g = tile_start + j;
        if (j >= CONV_TILE) break;
        if (g < n) cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe);
        else       x_s[j] = 0.0f;
    }
    pipe.producer_commit();

    PHASE(1);
    // Phase 2: while the tile is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    pipe.consumer_wait();
    PHASE(3);
    __syncthreads();
    PHASE(4);

    // Phase 4: compute. Only the interior of the tile has all
    // its neighbours in x_s.
#pragma unroll CONV_OUTS_UNROLL
    for (int o = 0; o < CONV_OUTS; ++o) {
        const int t = threadIdx.x + o * CONV_THREADS, i = tile_start + t;
        if (t >= CONV_TILE || i >= n) break;
        float acc = 0.0f;
        if (t >= CONV_HALO && t < CONV_TILE - CONV_HALO) {
            for (int k = 0; k < CONV_K; ++k) {
                const int j = t + k - CONV_HALO;
                if (j >= 0 && j < CONV_TILE) acc += x_s[j] * w_s[k];
            }
        } else {
            // the published shortcut: "just copy input (no convolution)"
            acc = x_s[t];
        }
        y[i] = acc;
    }
    PHASE(5);
    pipe.consumer_release();
}
