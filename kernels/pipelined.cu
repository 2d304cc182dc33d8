// Variant 5 — pipelined: many bytes in flight, so that the copy engine never waits for us.
// Blocks are persistent: each walks over tiles blockIdx.x, blockIdx.x + gridDim.x, ... and keeps
// CONV_STAGES shared-memory buffers. While it computes one tile, the copies of its next
// CONV_STAGES - 1 tiles are in flight, as 16-byte cp.async (cuda::memcpy_async with
// cuda::aligned_size_t<16>). Compared with async_halo.cu: the copy moves 16-byte chunks of an
// aligned superset of tile + halo, several tiles are in flight, and the buffers rotate.
#include <cuda/pipeline>
#include "conv1d_common.cuh"

#if !defined(CONV_STAGES) || CONV_STAGES < 1 || CONV_STAGES > 8
#error "compile with -DCONV_STAGES=1..8"
#endif

using thread_pipeline = cuda::pipeline<cuda::thread_scope_thread>;

// Phase 1, for one tile: copy x[tile*CONV_TILE - CONV_LEFT4, + CONV_SPAN) into buf, asynchronously
// in 16-byte chunks; chunks that straddle an end of the vector element by element, zeros outside.
__device__ void issue_tile(float* buf, const float* __restrict__ x, int n, int tile,
                           thread_pipeline& pipe)
{
    const int start = tile * CONV_TILE - CONV_LEFT4;   // global index of buf[0], a multiple of 4
    for (int c = threadIdx.x; c < CONV_SPAN / 4; c += CONV_THREADS) {
        const int g = start + 4 * c;
        if (g >= 0 && g + 4 <= n) {
            cuda::memcpy_async(&buf[4 * c], &x[g], cuda::aligned_size_t<16>(16), pipe);
        } else {
            for (int e = 0; e < 4; ++e) {
                buf[4 * c + e] = (g + e >= 0 && g + e < n) ? x[g + e] : 0.0f;
            }
        }
    }
}

extern "C" __global__ void conv1d_pipelined(const float* __restrict__ x,
                                            const float* __restrict__ w,
                                            float* __restrict__ y,
                                            int n)
{
    __shared__ __align__(16) float x_s[CONV_STAGES][CONV_SPAN];   // a ring of tile buffers
    __shared__ float w_s[CONV_K];

    const int tiles = (n + CONV_TILE - 1) / CONV_TILE;
    auto pipe = cuda::make_pipeline();   // this thread's queue: one batch of copies per tile

    // Phase 2: load the small kernel once; every tile uses it.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    // Phase 1 (prologue): start the copies of this block's first CONV_STAGES - 1 tiles.
    // Every thread commits a batch per tile, empty or not, so all threads count batches alike.
    int next = blockIdx.x;   // the next tile to copy
    for (int s = 0; s < CONV_STAGES - 1; ++s, next += gridDim.x) {
        pipe.producer_acquire();
        if (next < tiles) issue_tile(x_s[s], x, n, next, pipe);
        pipe.producer_commit();
    }

    int stage = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // Phase 1 (steady state): start one more tile, into the buffer freed last iteration.
        pipe.producer_acquire();
        if (next < tiles) issue_tile(x_s[(stage + CONV_STAGES - 1) % CONV_STAGES], x, n, next, pipe);
        pipe.producer_commit();
        next += gridDim.x;

        // Phase 3: wait for this thread's oldest batch (this tile), then for every thread's.
        pipe.consumer_wait();
        __syncthreads();

        // Phase 4: compute this tile from shared memory.
        const float* buf = x_s[stage];
        for (int t = threadIdx.x; t < CONV_TILE; t += CONV_THREADS) {
            const int i = tile * CONV_TILE + t;
            if (i >= n) break;
            float acc = 0.0f;
            for (int k = 0; k < CONV_K; ++k) {
                acc += buf[CONV_LEFT4 - CONV_HALO + t + k] * w_s[k];
            }
            y[i] = acc;
        }
        pipe.consumer_release();
        __syncthreads();   // nobody reads this buffer any more: it may be refilled
        stage = (stage + 1) % CONV_STAGES;
    }
}
