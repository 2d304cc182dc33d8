// Variant 1 — naive: one thread per output, every tap read
// straight from global memory.
// Each input element is loaded CONV_K times (by CONV_K different threads);
// the caches catch most of the repeats, but nothing is staged and nothing
// is overlapped. The baseline of Puzzle 13.
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_naive(const float* __restrict__ x,
                                        const float* __restrict__ w,
                                        float* __restrict__ y,
                                        int n)
{
    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block

    // Compute: each thread walks its outputs of the tile, CONV_THREADS apart.
    for (int t = threadIdx.x; t < CONV_TILE; t += CONV_THREADS) {
        const int i = tile_start + t;
        if (i >= n) break;
        float acc = 0.0f;
        for (int k = 0; k < CONV_K; ++k) {
            const int j = i + k - CONV_HALO;
            // A global load per tap; outside the vector a zero, multiplied
            // by the tap like every other variant's zero-filled halo (so an
            // infinite tap gives NaN there too).
            const float xj = (j >= 0 && j < n) ? x[j] : 0.0f;
            acc += xj * w[k];
        }
        y[i] = acc;
    }
}
