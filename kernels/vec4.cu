// Control — vec4: no shared memory and nothing asynchronous, only wide loads.
// Each thread computes 4 consecutive outputs from a window of x held in registers, loaded as
// 16-byte float4 chunks (neighbouring threads' windows overlap; the caches serve the repeats).
// It answers: how much of the async variants' speed is asynchrony, and how much is 16-byte access?
#include "conv1d_common.cuh"

#define VEC4_WINDOW (CONV_LEFT4 + 4 + CONV_RIGHT4)   // floats in a thread's window, whole chunks

extern "C" __global__ void conv1d_vec4(const float* __restrict__ x,
                                       const float* __restrict__ w,
                                       float* __restrict__ y,
                                       int n)
{
    const int tile_start = blockIdx.x * CONV_TILE;

    for (int c = threadIdx.x; c < CONV_TILE / 4; c += CONV_THREADS) {
        const int i0 = tile_start + 4 * c;   // this thread's first output
        if (i0 >= n) break;

        // Load: the window x[i0 - CONV_LEFT4 ...] into registers, a float4 at a time; chunks
        // that straddle an end of the vector element by element, zeros outside [0, n).
        float v[VEC4_WINDOW];
#pragma unroll
        for (int q = 0; q < VEC4_WINDOW / 4; ++q) {
            const int g = i0 - CONV_LEFT4 + 4 * q;
            if (g >= 0 && g + 4 <= n) {
                const float4 f = __ldg(reinterpret_cast<const float4*>(x + g));
                v[4 * q] = f.x; v[4 * q + 1] = f.y; v[4 * q + 2] = f.z; v[4 * q + 3] = f.w;
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    v[4 * q + e] = (g + e >= 0 && g + e < n) ? x[g + e] : 0.0f;
                }
            }
        }

        // Compute: 4 outputs from registers.
        float out[4];
#pragma unroll
        for (int o = 0; o < 4; ++o) {
            float acc = 0.0f;
#pragma unroll
            for (int k = 0; k < CONV_K; ++k) {
                acc += v[CONV_LEFT4 - CONV_HALO + o + k] * __ldg(&w[k]);
            }
            out[o] = acc;
        }

        // Store: one 16-byte store, or element by element at the end of the vector.
        if (i0 + 4 <= n) {
            *reinterpret_cast<float4*>(y + i0) = make_float4(out[0], out[1], out[2], out[3]);
        } else {
            for (int o = 0; o < 4 && i0 + o < n; ++o) y[i0 + o] = out[o];
        }
    }
}
