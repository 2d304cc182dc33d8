// Variant 2 — tiled_sync: the block stages its tile and both halos
// in shared memory with ordinary loads, waits at a barrier, then
// computes from shared memory.
// Every input element now comes from DRAM about once per block. A load stalls its
// warp at the first use of the value (the store to x_s); meanwhile the SM runs
// its other warps, this block's and other resident blocks'. How much of the wait
// that hides depends on occupancy (the warps resident per SM): this block itself
// has nothing else to do until its tile has arrived.
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_tiled_sync(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             float* __restrict__ y,
                                             int n CONV_TRACE_ARG)
{
    __shared__ float x_s[CONV_BUF];   // left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of x_s[0]

    PHASE(0);
    // Phase 1: load the input tile and its halos; zeros outside
    // [0, n). Each warp waits for DRAM.
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        x_s[j] = (g >= 0 && g < n) ? x[g] : 0.0f;
    }

    PHASE(1);
    // Phase 2: load the taps (w), only once this thread's part
    // of the tile has arrived.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    PHASE(2);
    // Phase 3: every thread's loads are in shared memory before
    // anyone reads them.
    PHASE(3);
    __syncthreads();
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
}
