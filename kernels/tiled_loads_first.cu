// Variant 2b — tiled_loads_first: tiled_sync with its loads
// issued before any store.
// tiled_sync stores each x to shared memory before it loads the taps, so the
// taps' load waits behind the tile's. Here each thread first loads everything
// it stages (its cells of the tile and halos, and its taps) into registers, then
// stores it all: the loads are in flight together, and their latencies overlap,
// with plain loads and no asynchronous copy.
#include "conv1d_common.cuh"

// How many of its CONV_CELLS loads a thread has in flight at
// once, and in how many rounds
#define CONV_IN_FLIGHT (CONV_CELLS < 8 ? CONV_CELLS : 8)
#define CONV_ROUNDS ((CONV_CELLS + CONV_IN_FLIGHT - 1) / CONV_IN_FLIGHT)
constexpr int CONV_ROUNDS_UNROLL = CONV_UNROLL(CONV_ROUNDS);

extern "C" __global__ void conv1d_tiled_loads_first(const float* __restrict__ x,
                                                    const float* __restrict__ w,
                                                    float* __restrict__ y,
                                                    int n CONV_TRACE_ARG)
{
    __shared__ float x_s[CONV_BUF];   // left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of x_s[0]

    PHASE(0);
    // Phase 1: issue the loads, this thread's tap first, then its cells of
    // the tile and halos (zeros outside [0, n)), up to CONV_IN_FLIGHT at
    // a time. Nothing waits for them yet.
    const float tap = threadIdx.x < CONV_K ? w[threadIdx.x] : 0.0f;
#pragma unroll CONV_ROUNDS_UNROLL
    for (int r = 0; r < CONV_ROUNDS; ++r) {
        const int first = threadIdx.x + r * CONV_IN_FLIGHT * CONV_THREADS;
        if (first >= CONV_BUF) break;
        float v[CONV_IN_FLIGHT];
#pragma unroll
        for (int b = 0; b < CONV_IN_FLIGHT; ++b) {
            const int j = first + b * CONV_THREADS, g = buf_start + j;
            v[b] = (j < CONV_BUF && g >= 0 && g < n) ? x[g] : 0.0f;
        }
        PHASE(1);
        PHASE(2);   // the tap was issued first: nothing between the two points
        // Phase 2: store them to shared memory; each store waits
        // for its own load only.
#pragma unroll
        for (int b = 0; b < CONV_IN_FLIGHT; ++b) {
            const int j = first + b * CONV_THREADS;
            if (j < CONV_BUF) x_s[j] = v[b];
        }
    }
    if (threadIdx.x < CONV_K) w_s[threadIdx.x] = tap;
    for (int k = threadIdx.x + CONV_THREADS; k < CONV_K; k += CONV_THREADS) {
        // more taps than threads: the rest, one load and store at a time
        w_s[k] = w[k];
    }

    // Phase 3: every thread's stores are in shared memory
    // before anyone reads them.
    PHASE(3);
    __syncthreads();
    PHASE(4);

    // Phase 4: compute from shared memory, as tiled_sync.
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
