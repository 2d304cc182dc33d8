// Variant 5 — pipelined: many bytes in flight, so that the copy
// engine never waits for us.
// Each block walks over tiles blockIdx.x, blockIdx.x + gridDim.x, ... and keeps
// CONV_STAGES shared-memory buffers. Launched persistent (as many blocks as
// fit on the GPU, the launcher's default), a block computes one tile while the
// copies of its next CONV_STAGES - 1 tiles are in flight, as 16-byte cp.async
// (cuda::memcpy_async with cuda::aligned_size_t<16>); launched with one block
// per tile, the loop runs once and the many resident blocks keep the bytes in
// flight together. Compared with async_halo.cu: the copy moves 16-byte chunks
// of an aligned superset of tile + halo, several tiles are in flight, the
// buffers rotate, and each thread computes 4 outputs from a window in
// registers (vec4.cu's compute, conv1d_common.cuh).
#include <cuda/pipeline>
#include "conv1d_common.cuh"

#if !defined(CONV_STAGES) || CONV_STAGES < 1 || CONV_STAGES > 8
#error "compile with -DCONV_STAGES=1..8"
#endif

using thread_pipeline = cuda::pipeline<cuda::thread_scope_thread>;

// Phase 1, for one tile: copy x[tile*CONV_TILE - CONV_LEFTL, + CONV_SPAN) into
// buf, asynchronously in 16-byte chunks; chunks that straddle an end of the
// vector element by element, zeros outside.
__device__ void issue_tile(float* buf, const float* __restrict__ x, int n,
                           int tile, thread_pipeline& pipe)
{
    // the global index of buf[0], a multiple of 32
    const int start = tile * CONV_TILE - CONV_LEFTL;
    for (int c = threadIdx.x; c < CONV_SPAN / 4; c += CONV_THREADS) {
        const int g = start + 4 * c;
        if (g >= 0 && g + 4 <= n) {
            cuda::memcpy_async(&buf[4 * c], &x[g],
                               cuda::aligned_size_t<16>(16), pipe);
        } else {
            for (int e = 0; e < 4; ++e) {
                buf[4 * c + e] = (g + e >= 0 && g + e < n) ? x[g + e] : 0.0f;
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(CONV_THREADS)
conv1d_pipelined(const float* __restrict__ x,
                 const float* __restrict__ w,
                 float* __restrict__ y,
                 int n)
{
    // a ring of tile buffers
    __shared__ __align__(128) float x_s[CONV_STAGES][CONV_SPAN];

    const int tiles = (n + CONV_TILE - 1) / CONV_TILE;
    // this thread's queue: one batch of copies per tile
    auto pipe = cuda::make_pipeline();

    // Phase 1 (prologue): start the copies of this block's first
    // CONV_STAGES - 1 tiles.
    // Every thread commits a batch per tile, empty or not, so all
    // threads count batches alike.
    int next = blockIdx.x;   // the next tile to copy
    for (int s = 0; s < CONV_STAGES - 1; ++s, next += gridDim.x) {
        pipe.producer_acquire();
        if (next < tiles) issue_tile(x_s[s], x, n, next, pipe);
        pipe.producer_commit();
    }

    // Phase 2: meanwhile, the taps into registers, once; every tile uses it.
    float w_r[CONV_K];
    load_taps(w_r, w);

    int stage = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // Phase 1 (steady state): start one more tile, into the buffer
        // freed last iteration.
        PHASE(0);
        pipe.producer_acquire();
        if (next < tiles) {
            issue_tile(x_s[(stage + CONV_STAGES - 1) % CONV_STAGES],
                       x, n, next, pipe);
        }
        pipe.producer_commit();
        next += gridDim.x;

        // Phase 3: wait for this thread's oldest batch (this tile),
        // then for every thread's.
        pipe.consumer_wait();
        PHASE(3);
        __syncthreads();
        PHASE(4);

        // Phase 4: compute this tile, 4 outputs per thread from a window read out
        // of the buffer with 16-byte loads (the arithmetic is vec4.cu's).
        for (int c = threadIdx.x; c < CONV_TILE / 4; c += CONV_THREADS) {
            const int i0 = tile * CONV_TILE + 4 * c;
            if (i0 >= n) break;
            float v[CONV_WINDOW4], out[4];
            load_window4(v, &x_s[stage][CONV_SKIP + 4 * c]);
            convolve4(out, v, w_r);
            store4(y, i0, n, out);
        }
        pipe.consumer_release();
        PHASE(5);
        // nobody reads this buffer any more: it may be refilled
        __syncthreads();
        stage = (stage + 1) % CONV_STAGES;
    }
}
