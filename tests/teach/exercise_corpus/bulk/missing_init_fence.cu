// Exercise 3: the Hopper bulk copy (sm_90). Complete it where it says FILL IN.
// pipelined.cu's ring of CONV_STAGES tile buffers, filled by the bulk copy engine (cp.async.bulk,
// the 1D form of TMA) instead of 16-byte copies by every thread: one thread issues one copy per
// tile, and its completion arrives on the stage's cuda::barrier (an mbarrier in shared memory),
// which also counts the bytes it expects. Every thread then arrives on the barrier and waits.
// Leave the PHASE(p) lines where they are (the check's stress build waits there at random).
#include <cuda/barrier>
#include "conv1d_common.cuh"

#if !defined(CONV_STAGES) || CONV_STAGES < 1 || CONV_STAGES > 8
#error "compile with -DCONV_STAGES=1..8"
#endif

#pragma nv_diag_suppress static_var_with_dynamic_init
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// Phase 1, for one tile: the bulk copy of every whole 16-byte chunk of the tile's span that lies
// inside the vector (thread 0), and plain loads of the rest, which only the first and last tiles
// have: zeros outside [0, n) and the last n % 4 floats (all threads). Completion arrives on bar.
__device__ void issue_tile(float* buf, const float* __restrict__ x, int n, int tile,
                           block_barrier& bar)
{
    const int start = tile * CONV_TILE - CONV_LEFTL;   // global index of buf[0], a multiple of 32
    int lo = max(start, 0);                             // [lo, hi): what the bulk copy moves
    int hi = min(start + CONV_SPAN, n / 4 * 4);
    if (hi <= lo) lo = hi = start;
    if (threadIdx.x == 0 && hi > lo) {
        cuda::memcpy_async(&buf[lo - start], &x[lo], cuda::aligned_size_t<16>(4 * (hi - lo)), bar);
    }
    for (int j = threadIdx.x; j < lo - start; j += CONV_THREADS) {            // before the copy
        buf[j] = (start + j >= 0 && start + j < n) ? x[start + j] : 0.0f;
    }
    for (int j = hi - start + threadIdx.x; j < CONV_SPAN; j += CONV_THREADS) {   // after it
        buf[j] = (start + j >= 0 && start + j < n) ? x[start + j] : 0.0f;
    }
}

extern "C" __global__ void __launch_bounds__(CONV_THREADS)
conv1d_bulk(const float* __restrict__ x,
            const float* __restrict__ w,
            float* __restrict__ y,
            int n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(128) float x_s[CONV_STAGES][CONV_SPAN];   // a ring of tile buffers
    __shared__ block_barrier bar[CONV_STAGES];                     // one mbarrier per buffer

    const int tiles = (n + CONV_TILE - 1) / CONV_TILE;
    if (threadIdx.x == 0) {
        for (int s = 0; s < CONV_STAGES; ++s) init(&bar[s], CONV_THREADS);
    }
    __syncthreads();

    // Phase 1 (prologue): start the copies of this block's first CONV_STAGES tiles.
    int next = blockIdx.x;
    for (int s = 0; s < CONV_STAGES && next < tiles; ++s, next += gridDim.x) {
        issue_tile(x_s[s], x, n, next, bar[s]);
    }

    // Phase 2: meanwhile, the small kernel into registers, once; every tile uses it.
    float w_r[CONV_K];
    load_taps(w_r, w);

    int stage = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // Phase 3: every thread arrives; the phase completes when all have and the bytes landed.
        PHASE(3);
        block_barrier::arrival_token token = bar[stage].arrive();
        bar[stage].wait(cuda::std::move(token));
        PHASE(4);

        // Phase 4: compute this tile, 4 outputs per thread from a window read out of the
        // buffer with 16-byte loads (the arithmetic is vec4.cu's).
        for (int c = threadIdx.x; c < CONV_TILE / 4; c += CONV_THREADS) {
            const int i0 = tile * CONV_TILE + 4 * c;
            if (i0 >= n) break;
            float v[CONV_WINDOW4], out[4];
            load_window4(v, &x_s[stage][CONV_SKIP + 4 * c]);
            convolve4(out, v, w_r);
            store4(y, i0, n, out);
        }

        // Phase 1 (steady state): once nobody reads this buffer, refill it with a later tile.
        // The proxy fence orders our plain shared-memory accesses before the copy engine's.
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        PHASE(5);
        __syncthreads();
        PHASE(0);
        if (next < tiles) issue_tile(x_s[stage], x, n, next, bar[stage]);
        next += gridDim.x;
        stage = (stage + 1) % CONV_STAGES;
    }
#else
    __trap();   // needs the sm_90 bulk copy engine; kernels.conv1d refuses to launch it here
#endif
}
