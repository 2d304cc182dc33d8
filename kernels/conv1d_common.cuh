// Shared by every variant of the 1D convolution
//
//     y[i] = sum_{k < CONV_K} x[i + k - CONV_HALO] * w[k],   x = 0 outside [0, n)
//
// The Python loader (kernels/compile.py, its Build) injects
// the compile-time constants
//     CONV_TILE     outputs per block (a multiple of 32)
//     CONV_K        the number of taps w (1 <= CONV_K <= CONV_TILE)
//     CONV_THREADS  threads per block (a multiple of 32, at most 1024)
//     CONV_STAGES   tile buffers per block (the staged variants: pipelined, bulk,
//                   warp_specialized)
// and launches blocks of CONV_THREADS threads (warp_specialized: one producer
// warp more): ceil(n / CONV_TILE) of them, one per tile, or for a persistent
// staged launch as many as fit on the GPU at once, each walking over tiles.
#pragma once

#if !defined(CONV_TILE) || !defined(CONV_K) || !defined(CONV_THREADS)
#error "compile with -DCONV_TILE=... -DCONV_K=... -DCONV_THREADS=..."
#endif

// Halo: the neighbours a tile needs from outside itself. The left halo
// has CONV_HALO cells, the right halo CONV_K - 1 - CONV_HALO (the same
// for odd K, one fewer for even K).
#define CONV_HALO (CONV_K / 2)

// A tile with both halos: what the correct tiled kernels keep in shared memory.
#define CONV_BUF (CONV_TILE + CONV_K - 1)

// The one-output kernels (tiled_sync, tiled_loads_first, async_halo, puzzle28)
// count their loops in these, numbers the compiler knows, so that it can unroll
// them: the buffer cells one thread stages, and the outputs one thread makes
// (puzzle28: also the tile cells it copies).
#define CONV_CELLS ((CONV_BUF + CONV_THREADS - 1) / CONV_THREADS)
#define CONV_OUTS  ((CONV_TILE + CONV_THREADS - 1) / CONV_THREADS)

// How far to unroll a loop of that many rounds: all of it, up to 16 (a
// large tile with few threads would otherwise grow the code without bound).
// #pragma unroll takes a constant, not a macro.
#define CONV_UNROLL(rounds) ((rounds) <= 16 ? (rounds) : 1)
constexpr int CONV_CELLS_UNROLL = CONV_UNROLL(CONV_CELLS);
constexpr int CONV_OUTS_UNROLL = CONV_UNROLL(CONV_OUTS);

// The 16-byte variants (vec4, staged_sync, pipelined, bulk, warp_specialized)
// move whole 16-byte chunks of 4 floats. A thread's window (below) has
// each halo rounded up to whole chunks.
#define CONV_LEFT4  ((CONV_HALO + 3) / 4 * 4)
#define CONV_RIGHT4 ((CONV_K - 1 - CONV_HALO + 3) / 4 * 4)

// The tile buffer of staged_sync, pipelined, bulk and warp_specialized has
// each halo rounded up to a whole 128-byte line of 32 floats (tiles are
// multiples of 32 floats), so that every copy reads whole lines: x_s[j] holds
// x[tile_start - CONV_LEFTL + j]. (Rounded only to chunks, the span starts
// 16 bytes before a line at K = 5; in an A/B run on an H200, 2026-12-04, the
// asynchronous copies then took 6% longer; the plain loads did not.)
#define CONV_LEFTL  ((CONV_HALO + 31) / 32 * 32)
#define CONV_RIGHTL ((CONV_K - 1 - CONV_HALO + 31) / 32 * 32)
#define CONV_SPAN   (CONV_LEFTL + CONV_TILE + CONV_RIGHTL)

// Their compute is shared too: each thread makes 4 consecutive outputs
// y[i0 .. i0 + 3] (i0 a multiple of 4) from a window of whole chunks held in
// registers, v[j] = x[i0 - CONV_LEFT4 + j], and the taps, also in registers (so
// CONV_K is at most 64: kernels/geometry.py checks). What the five variants
// differ in is only where the window comes from: global memory (vec4) or a
// shared-memory buffer, filled by plain loads (staged_sync) or by an
// asynchronous copy (pipelined, bulk, warp_specialized); there, the window of
// outputs 4c .. 4c + 3 starts at x_s[CONV_SKIP + 4 * c].
#define CONV_WINDOW4 (CONV_LEFT4 + 4 + CONV_RIGHT4)
#define CONV_SKIP    (CONV_LEFTL - CONV_LEFT4)

// The taps into registers, once per thread.
__device__ __forceinline__ void load_taps(float (&w_r)[CONV_K],
                                          const float* __restrict__ w)
{
#pragma unroll
    for (int k = 0; k < CONV_K; ++k) w_r[k] = __ldg(&w[k]);
}

// A window from a 16-byte-aligned shared-memory buffer, one
// 16-byte load per chunk.
__device__ __forceinline__ void load_window4(float (&v)[CONV_WINDOW4],
                                             const float* window)
{
#pragma unroll
    for (int q = 0; q < CONV_WINDOW4 / 4; ++q) {
        const float4 f = reinterpret_cast<const float4*>(window)[q];
        v[4 * q] = f.x;     v[4 * q + 1] = f.y;
        v[4 * q + 2] = f.z; v[4 * q + 3] = f.w;
    }
}

// 4 outputs from the window:
// out[o] = sum_k v[CONV_LEFT4 - CONV_HALO + o + k] * w_r[k], the taps in the
// same order as every other variant (so the rounding is the same).
__device__ __forceinline__ void convolve4(float (&out)[4],
                                          const float (&v)[CONV_WINDOW4],
                                          const float (&w_r)[CONV_K])
{
#pragma unroll
    for (int o = 0; o < 4; ++o) {
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k < CONV_K; ++k) {
            acc += v[CONV_LEFT4 - CONV_HALO + o + k] * w_r[k];
        }
        out[o] = acc;
    }
}

// Store them: one 16-byte store, or element by element at the end of the vector.
__device__ __forceinline__ void store4(float* __restrict__ y, int i0, int n,
                                       const float (&out)[4])
{
    if (i0 + 4 <= n) {
        *reinterpret_cast<float4*>(y + i0) =
            make_float4(out[0], out[1], out[2], out[3]);
    } else {
        for (int o = 0; o < 4 && i0 + o < n; ++o) y[i0 + o] = out[o];
    }
}

// Phase boundaries. PHASE(point) marks one in a listing and costs
// nothing in a normal build.
//   0 start (a buffer is about to be filled)
//   1 tile copy issued (sync: loaded)
//   2 taps loaded
//   3 own copies waited for (a barrier, or an mbarrier wait, is next)
//   4 barrier passed (the buffer is about to be read)
//   5 outputs stored (the buffer is about to be released: a barrier, or an
//     arrival on an mbarrier)
// Two builds give it a body:
// * -DCONV_TRACE (timelines, notebook 02): thread 0 of every block records
//   at each point the SM it runs on, %globaltimer (ns) and clock64() (SM
//   cycles) into trace[block * CONV_TRACE_WORDS ...]; the kernel then takes
//   the trace buffer as a fifth argument (CONV_TRACE_ARG). kernels/layout.py
//   reads the records with the same layout.
// * -DCONV_JITTER (stress tests): at points 0 (before filling a buffer), 4
//   (before reading it) and 5 (before the barrier or arrival that frees it), each
//   warp waits a pseudo-random time, different for every warp, point and launch
//   (none for about a quarter of them), up to CONV_JITTER_CYCLES. A missing wait
//   or barrier then lets some warp read a buffer before it is filled, or refill
//   it while others still read it: the outputs come out wrong instead of right by
//   luck. Points 1 to 3 lie between issuing a copy and the barrier: a delay there
//   would give the copy time to land and hide a missing wait, so they never wait.
#define CONV_TRACE_POINTS 6
#define CONV_TRACE_WORDS (1 + 2 * CONV_TRACE_POINTS)
#ifndef CONV_JITTER_CYCLES
#define CONV_JITTER_CYCLES 8192
#endif

#ifdef CONV_TRACE
#define CONV_TRACE_ARG , unsigned long long* __restrict__ trace
__device__ __forceinline__ void conv_trace(unsigned long long* trace, int point)
{
    if (threadIdx.x == 0) {
        unsigned long long ns;
        unsigned int sm;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns) :: "memory");
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        unsigned long long* record = trace
                                   + (size_t)blockIdx.x * CONV_TRACE_WORDS;
        record[0] = sm;
        record[1 + point] = ns;
        record[1 + CONV_TRACE_POINTS + point] = clock64();
    }
}
#define PHASE(point) conv_trace(trace, point)
#else
#define CONV_TRACE_ARG
#ifdef CONV_JITTER
#define CONV_JITTER_POINTS ((1 << 0) | (1 << 4) | (1 << 5))
__device__ __forceinline__ void conv_jitter(int point)
{
    if (!((CONV_JITTER_POINTS >> point) & 1)) return;
    unsigned int h = blockIdx.x * 0x9E3779B1u ^ (threadIdx.x / 32) * 0x85EBCA77u
                   ^ point * 0xC2B2AE3Du ^ (unsigned int)clock64();
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u; h ^= h >> 15;
    const long long wait = (h & 3) ? (long long)((h >> 2) % CONV_JITTER_CYCLES)
                                   : 0;
    const long long start = clock64();
    while (clock64() - start < wait) { }
}
#define PHASE(point) conv_jitter(point)
#else
#define PHASE(point)
#endif
#endif
