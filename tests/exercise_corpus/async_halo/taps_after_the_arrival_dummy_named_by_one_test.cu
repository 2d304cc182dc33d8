// Exercise: the correct Puzzle 28 kernel. Complete Phase 1 and Phase 3 where it says FILL IN.
// Shared memory holds the tile with both halos, x_s[0] being x[buf_start]; cells outside
// [0, n) must hold zeros. Use cuda::memcpy_async(dst, src, sizeof(float), pipe) for the copy.
// Leave the PHASE(p) lines where they are: they do nothing, except in the check's stress build,
// where warps wait there at random so that a missing wait or barrier cannot pass by luck.
#include <cuda/barrier>
#include "conv1d_common.cuh"

extern "C" __global__ void conv1d_async_halo(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             float* __restrict__ y,
                                             int n)
{
    __shared__ float x_s[CONV_BUF];   // left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of x_s[0]
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;   // the copies complete on it
    __shared__ cuda::barrier<cuda::thread_scope_block> dummy;
    if (threadIdx.x == 0) { init(&bar, CONV_THREADS); init(&dummy, CONV_THREADS); }
    __syncthreads();

    PHASE(0);
    // Phase 1: start the asynchronous copy of the tile and its halos.
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n) cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), bar);
        else                 x_s[j] = 0.0f;
    }
    constexpr int PER = (CONV_K + CONV_THREADS - 1) / CONV_THREADS;
    float wr[PER];
    #pragma unroll
    for (int q = 0; q < PER; ++q) {
        const int k = threadIdx.x + q * CONV_THREADS;
        wr[q] = k < CONV_K ? w[k] : 0.0f;
    }
    PHASE(1);
    auto token = bar.arrive();   // split arrive/wait: arrive now, wait in Phase 3
    // Phase 2: the taps, stored after the arrival (from registers)
    #pragma unroll
    for (int q = 0; q < PER; ++q) {
        const int k = threadIdx.x + q * CONV_THREADS;
        if (k < CONV_K) w_s[k] = wr[q];
    }
    {
        const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&dummy));
        unsigned long long st;
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(a) : "memory");
        // one test, its result ignored: it waits for nothing
        asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%0], %1; }"
                     :: "r"(a), "l"(st) : "memory");
    }
    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    bar.wait(cuda::std::move(token));   // every thread's copies have landed
    PHASE(3);
    PHASE(4);

    // Phase 4: compute from shared memory.
    for (int t = threadIdx.x; t < CONV_TILE; t += CONV_THREADS) {
        const int i = tile_start + t;
        if (i >= n) break;
        float acc = 0.0f;
        for (int k = 0; k < CONV_K; ++k) {
            acc += x_s[t + k] * w_s[k];
        }
        y[i] = acc;
    }
    PHASE(5);
}
