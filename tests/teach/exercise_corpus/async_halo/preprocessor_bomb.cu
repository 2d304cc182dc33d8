// Exercise: the correct Puzzle 28 kernel. Complete Phase 1 and Phase 3 where it says FILL IN.
// Shared memory holds the tile with both halos, x_s[0] being x[buf_start]; cells outside
// [0, n) must hold zeros. Use cuda::memcpy_async(dst, src, sizeof(float), pipe) for the copy.
// Leave the PHASE(p) lines where they are: they do nothing, except in the check's stress build,
// where warps wait there at random so that a missing wait or barrier cannot pass by luck.
#include <cuda/pipeline>
#include "conv1d_common.cuh"
#define A0 x
#define A1 A0 A0
#define A2 A1 A1
#define A3 A2 A2
#define A4 A3 A3
#define A5 A4 A4
#define A6 A5 A5
#define A7 A6 A6
#define A8 A7 A7
#define A9 A8 A8
#define A10 A9 A9
#define A11 A10 A10
#define A12 A11 A11
#define A13 A12 A12
#define A14 A13 A13
#define A15 A14 A14
#define A16 A15 A15
#define A17 A16 A16
#define A18 A17 A17
#define A19 A18 A18
#define A20 A19 A19
#define A21 A20 A20
#define A22 A21 A21
#define A23 A22 A22
#define A24 A23 A23
#define A25 A24 A24
#define A26 A25 A25
#define A27 A26 A26
#define A28 A27 A27
#define A29 A28 A28
#define A30 A29 A29
__device__ int boom(int x) { return A30; }

extern "C" __global__ void conv1d_async_halo(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             float* __restrict__ y,
                                             int n)
{
    __shared__ float x_s[CONV_BUF];   // left halo | tile | right halo
    __shared__ float w_s[CONV_K];

    const int tile_start = blockIdx.x * CONV_TILE;   // first output of this block
    const int buf_start = tile_start - CONV_HALO;    // global index of x_s[0]
    auto pipe = cuda::make_pipeline();               // this thread's queue of async copies

    PHASE(0);
    // Phase 1: start the asynchronous copy of the tile and its halos.
    pipe.producer_acquire();
    for (int j = threadIdx.x; j < CONV_BUF; j += CONV_THREADS) {
        const int g = buf_start + j;
        if (g >= 0 && g < n) cuda::memcpy_async(&x_s[j], &x[g], sizeof(float), pipe);
        else                 x_s[j] = 0.0f;
    }
    pipe.producer_commit();

    PHASE(1);
    // Phase 2: while the tile is in flight, load the small kernel.
    for (int k = threadIdx.x; k < CONV_K; k += CONV_THREADS) {
        w_s[k] = w[k];
    }

    PHASE(2);
    // Phase 3: wait for this thread's copies, then for every thread's.
    pipe.consumer_wait();
    PHASE(3);
    __syncthreads();
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
    pipe.consumer_release();
}
