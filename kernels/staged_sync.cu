// Control — staged_sync: pipelined.cu's staging without asynchrony,
// written as well as plain loads allow.
// One block per tile, one shared-memory buffer: the block loads its tile with
// each halo rounded up to whole 128-byte lines (CONV_SPAN floats, as pipelined
// and bulk do) with plain float4 loads, each passing through a register on its
// way to shared memory, waits at a barrier, then computes 4 outputs per thread
// from a window in registers (vec4.cu's and pipelined.cu's compute).
// It answers: of what pipelined and bulk gain over tiled_sync, how much is
// staging 16-byte chunks through shared memory (reuse), and how much is the copy
// being asynchronous? Compared with pipelined.cu launched with one stage and one
// block per tile, only Phase 1 (plain loads instead of cp.async) and Phase 3 (a
// barrier only: nothing to wait for) change.
// A fair control keeps as many loads in flight as the asynchronous copy does:
// each thread issues all of its loads before it stores any of them
// (CONV_CHUNKS_PER_THREAD float4 registers). A loop that stores each chunk before
// loading the next has one load in flight per thread, and loses to the
// asynchronous kernels for that reason alone, not for being synchronous. The
// source only orders the loads first; the compiler keeps them in flight together
// while they fit in registers (checked in the SASS up to 33 chunks per thread;
// the benchmark's configurations have at most 9). Past that, as with tile 8192
// and 32 threads, it spills, and each spilled load must arrive before the next is
// issued.
#include "conv1d_common.cuh"

#define CONV_CHUNKS (CONV_SPAN / 4)   // float4 chunks of the span
#define CONV_CHUNKS_PER_THREAD ((CONV_CHUNKS + CONV_THREADS - 1) / CONV_THREADS)

// One chunk of x from global memory: a float4 load, or, where it straddles an end
// of the vector, element by element with zeros outside [0, n).
__device__ __forceinline__ float4 load_chunk(const float* __restrict__ x,
                                             int g, int n)
{
    if (g >= 0 && g + 4 <= n)
        return __ldg(reinterpret_cast<const float4*>(x + g));
    float e[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
        e[j] = (g + j >= 0 && g + j < n) ? x[g + j] : 0.0f;
    return make_float4(e[0], e[1], e[2], e[3]);
}

extern "C" __global__ void __launch_bounds__(CONV_THREADS)
conv1d_staged_sync(const float* __restrict__ x,
                   const float* __restrict__ w,
                   float* __restrict__ y,
                   int n)
{
    // left halo | tile | right halo, whole lines
    __shared__ __align__(128) float x_s[CONV_SPAN];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    // the global index of x_s[0], a multiple of 32
    const int start = tile_start - CONV_LEFTL;

    PHASE(0);
    // Phase 1: load the span in 16-byte chunks, x -> registers -> x_s. Every load
    // of this thread is issued before the first store, so that they can all be in
    // flight at once (a store needs its load's data: a store between two loads
    // would wait for the first).
    float4 r[CONV_CHUNKS_PER_THREAD];
#pragma unroll
    for (int j = 0; j < CONV_CHUNKS_PER_THREAD; ++j) {
        const int c = threadIdx.x + j * CONV_THREADS;
        if (c < CONV_CHUNKS) r[j] = load_chunk(x, start + 4 * c, n);
    }
#pragma unroll
    for (int j = 0; j < CONV_CHUNKS_PER_THREAD; ++j) {
        const int c = threadIdx.x + j * CONV_THREADS;
        if (c < CONV_CHUNKS) reinterpret_cast<float4*>(x_s)[c] = r[j];
    }

    // Phase 2: the taps into registers.
    float w_r[CONV_K];
    load_taps(w_r, w);

    // Phase 3: every thread's chunks are in shared memory
    // before anyone reads them.
    PHASE(3);
    __syncthreads();
    PHASE(4);

    // Phase 4: compute this tile, 4 outputs per thread from a window read out of
    // the buffer with 16-byte loads (the arithmetic is vec4.cu's).
    for (int c = threadIdx.x; c < CONV_TILE / 4; c += CONV_THREADS) {
        const int i0 = tile_start + 4 * c;
        if (i0 >= n) break;
        float v[CONV_WINDOW4], out[4];
        load_window4(v, &x_s[CONV_SKIP + 4 * c]);
        convolve4(out, v, w_r);
        store4(y, i0, n, out);
    }
    PHASE(5);
}
