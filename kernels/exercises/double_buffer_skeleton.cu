// Exercise 2: a two-stage (double-buffered) pipeline. Complete
// it where it says FILL IN.
// Each block walks over tiles blockIdx.x, blockIdx.x + gridDim.x, ...
// with two shared buffers: while it computes one tile from one buffer, the
// copy of its next tile fills the other.
// issue_tile (one tile's copy), the prologue and the compute are given; the
// loop's copy, wait and barriers are yours. Leave the PHASE(p) lines where
// they are (the check's stress build waits there at random, so that a missing
// wait or barrier seldom passes by luck).
#include <cuda/pipeline>
#include "conv1d_common.cuh"

using thread_pipeline = cuda::pipeline<cuda::thread_scope_thread>;

// Phase 1, for one tile: start the asynchronous copy of the tile and its halos
// into buf; the cells outside [0, n) get a plain store of zero.
__device__ void issue_tile(float* buf, const float* __restrict__ x, int n,
                           int tile, thread_pipeline& pipe)
{
    // the global index of buf[0]
    const int buf_start = tile * CONV_TILE - CONV_HALO;
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n)
            cuda::memcpy_async(&buf[j], &x[g], sizeof(float), pipe);
        else
            buf[j] = 0.0f;
    }
}

extern "C" __global__ void conv1d_double_buffer(const float* __restrict__ x,
                                                const float* __restrict__ w,
                                                float* __restrict__ y,
                                                int n)
{
    // two buffers: left halo | tile | right halo
    __shared__ float x_s[2][CONV_BUF];
    __shared__ float w_s[CONV_K];

    const int tiles = (n + CONV_TILE - 1) / CONV_TILE;
    // this thread's queue: one batch of copies per tile
    auto pipe = cuda::make_pipeline();

    // Phase 1 (prologue): start the copy of this block's first tile
    // into buffer 0. Every thread commits a batch, empty or not, so that
    // all threads count batches alike.
    PHASE(0);
    pipe.producer_acquire();
    if (blockIdx.x < tiles) issue_tile(x_s[0], x, n, blockIdx.x, pipe);
    pipe.producer_commit();

    // Phase 2: while it is in flight, load the taps.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    int stage = 0;   // the buffer that holds this iteration's tile
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // Phase 1 (steady state): start the copy of the next tile
        // into the other buffer.
        PHASE(0);
        // FILL IN: the next tile is tile + gridDim.x; issue it (if it
        // exists) into x_s[stage ^ 1]

        // Phase 3: wait for this thread's oldest batch (this tile, not the
        // next one), then for every thread's.
        // FILL IN
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

        // Phase 5: release the batch; once every thread is done reading this
        // buffer, the next iteration may refill it.
        pipe.consumer_release();
        PHASE(5);
        // FILL IN
        stage ^= 1;
    }
}
