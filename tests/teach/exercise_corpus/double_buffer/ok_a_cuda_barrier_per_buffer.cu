// Exercise 2, the solution: async_halo.cu turned into a two-stage (double-buffered) pipeline.
// Each block walks over tiles blockIdx.x, blockIdx.x + gridDim.x, ... with two shared buffers:
// while it computes one tile from one buffer, the copy of its next tile fills the other.
// The copy of one tile (issue_tile) and the compute are async_halo.cu's.
#include <cuda/pipeline>
#include <cuda/barrier>
#include "conv1d_common.cuh"

using thread_pipeline = cuda::pipeline<cuda::thread_scope_thread>;

// Phase 1, for one tile: start the asynchronous copy of the tile and its halos into buf; the
// cells outside [0, n) get a plain store of zero.
__device__ void issue_tile(float* buf, const float* __restrict__ x, int n, int tile,
                           cuda::barrier<cuda::thread_scope_block>& bar)
{
    const int buf_start = tile * CONV_TILE - CONV_HALO;   // global index of buf[0]
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n) cuda::memcpy_async(&buf[j], &x[g], cuda::aligned_size_t<4>(sizeof(float)), bar);
        else                 buf[j] = 0.0f;
    }
}

extern "C" __global__ void conv1d_double_buffer(const float* __restrict__ x,
                                                const float* __restrict__ w,
                                                float* __restrict__ y,
                                                int n)
{
    __shared__ float x_s[2][CONV_BUF];   // two buffers: left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tiles = (n + CONV_TILE - 1) / CONV_TILE;
    __shared__ cuda::barrier<cuda::thread_scope_block> bar[2];   // the copies into x_s[b] complete on bar[b]
    if (threadIdx.x == 0) { init(&bar[0], CONV_THREADS); init(&bar[1], CONV_THREADS); }
    __syncthreads();

    // Phase 1 (prologue): start the copy of this block's first tile into buffer 0. Every thread
    // commits a batch, empty or not, so that all threads count batches alike.
    PHASE(0);
    if (blockIdx.x < tiles) issue_tile(x_s[0], x, n, blockIdx.x, bar[0]);

    // Phase 2: while it is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    int stage = 0;   // the buffer that holds this iteration's tile
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // Phase 1 (steady state): start the copy of the next tile into the other buffer.
        PHASE(0);
        const int next = tile + gridDim.x;
        if (next < tiles) issue_tile(x_s[stage ^ 1], x, n, next, bar[stage ^ 1]);

        // Phase 3: wait for this thread's oldest batch (this tile, not the next one), then for
        // every thread's.
        bar[stage].arrive_and_wait();   // every thread's copies into x_s[stage] have landed
        PHASE(4);

        // Phase 4: compute this tile from shared memory.
        for (int t = threadIdx.x; t < CONV_TILE; t += CONV_THREADS) {
            const int i = tile * CONV_TILE + t;
            if (i >= n) break;
            float acc = 0.0f;
            for (int k = 0; k < CONV_K; ++k) {
                acc += x_s[stage][t + k] * w_s[k];
            }
            y[i] = acc;
        }

        // Phase 5: release the batch; once every thread is done reading this buffer, the next
        // iteration may refill it.
        PHASE(5);
        __syncthreads();
        stage ^= 1;
    }
}
