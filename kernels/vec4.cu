// Control — vec4: no shared memory and nothing asynchronous, only wide loads.
// Each thread computes 4 consecutive outputs from a window of x held in
// registers, loaded as 16-byte float4 chunks (neighbouring threads' windows
// overlap; the caches serve the repeats).
// It answers: how much of the async variants' speed is asynchrony, and how
// much is 16-byte access? The compute and the store (convolve4, store4 in
// conv1d_common.cuh) are pipelined's and bulk's.
#include "conv1d_common.cuh"

// At most CONV_THREADS threads per block: the compiler keeps the registers per
// thread within what such a block may use (the window and the taps live in
// registers).
extern "C" __global__ void __launch_bounds__(CONV_THREADS)
conv1d_vec4(const float* __restrict__ x,
            const float* __restrict__ w,
            float* __restrict__ y,
            int n)
{
    const int tile_start = blockIdx.x * CONV_TILE;
    float w_r[CONV_K];
    load_taps(w_r, w);

    for (int c = threadIdx.x; c < CONV_TILE / 4; c += CONV_THREADS) {
        const int i0 = tile_start + 4 * c;   // this thread's first output
        if (i0 >= n) break;

        // Load: the window x[i0 - CONV_LEFT4 ...] into registers, a float4
        // at a time; chunks that straddle an end of the vector element by
        // element, zeros outside [0, n).
        float v[CONV_WINDOW4];
#pragma unroll
        for (int q = 0; q < CONV_WINDOW4 / 4; ++q) {
            const int g = i0 - CONV_LEFT4 + 4 * q;
            if (g >= 0 && g + 4 <= n) {
                const float4 f = __ldg(reinterpret_cast<const float4*>(x + g));
                v[4 * q] = f.x;     v[4 * q + 1] = f.y;
                v[4 * q + 2] = f.z; v[4 * q + 3] = f.w;
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    v[4 * q + e] = (g + e >= 0 && g + e < n) ? x[g + e] : 0.0f;
                }
            }
        }

        // Compute 4 outputs from registers, and store them.
        float out[4];
        convolve4(out, v, w_r);
        store4(y, i0, n, out);
    }
}
