// Exercise 4: the producer warp's hand-off (sm_90). Complete
// it where it says FILL IN.
// bulk.cu's ring of tile buffers, with the roles split: the block has
// CONV_THREADS compute threads and one more warp, the producer, which keeps
// the ring full with the bulk copy engine.
// Two mbarriers per buffer carry the hand-offs, and no block-wide
// barrier is left in the loop:
//   full[s]   the producer's 32 lanes arrive, lane 0 announcing the bytes of its
//             bulk copy (expect_tx); the phase completes when all have arrived
//             and the bytes have landed: the compute warps may read buffer s.
//   empty[s]  every compute thread arrives once it has read buffer s; the phase
//             completes when all have: the producer may refill it.
// A block's i-th tile uses buffer s = i % CONV_STAGES in round
// r = i / CONV_STAGES. An mbarrier counts its phases (0, 1, 2, ...); a wait
// names the phase it waits for by its parity, 0 or 1. Everything but the
// hand-off's two waits and its release is written; the helpers (mbar_wait,
// mbar_arrive, ...) are one PTX instruction each. Leave the PHASE(p) lines where
// they are (the check's stress build waits there at random).
#include <cuda/barrier>   // libcu++'s proxy fence, if you prefer it to the asm
#include "conv1d_common.cuh"

#if !defined(CONV_STAGES) || CONV_STAGES < 1 || CONV_STAGES > 8
#error "compile with -DCONV_STAGES=1..8"
#endif

// the producer: the last warp, threads CONV_THREADS .. CONV_THREADS + 31
#define CONV_PRODUCER_WARP (CONV_THREADS / 32)

// The mbarrier and the bulk copy in PTX, one instruction each, so that every
// step of the hand-off shows. They are the bulk copy and the mbarrier that
// bulk.cu reaches through cuda::memcpy_async and cuda::barrier; but bulk.cu
// adds the bytes with a separate mbarrier.expect_tx after its copy and
// waits on an arrival token, where this listing announces the bytes in the
// producer's own arrival and waits on a parity.
__device__ __forceinline__ unsigned smem(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned long long* bar,
                                          unsigned arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
                 :: "r"(smem(bar)), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];"
                 :: "r"(smem(bar)) : "memory");
}
// Arrive, and add the bytes an asynchronous copy will deliver
// to what the phase waits for.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* bar,
                                                      unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem(bar)), "r"(bytes) : "memory");
}
// Wait until the phase of this parity has completed (acquire: what was written
// before the arrivals, and the bytes of the copy, are visible after it).
__device__ __forceinline__ void mbar_wait(unsigned long long* bar,
                                          unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p;\n"
                     "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "  selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(smem(bar)), "r"(parity) : "memory");
    }
}
// One bulk copy of bytes (a multiple of 16, both addresses 16-byte aligned) from
// global into shared memory; the copy engine signals its bytes on bar.
__device__ __forceinline__ void bulk_copy(float* dst, const float* src,
                                          unsigned bytes, unsigned long long* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global"
                 ".mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar))
                 : "memory");
}

// The producer's Phase 1, for one tile (its 32 lanes): the bulk copy of
// every whole 16-byte chunk of the tile's span inside the vector (lane 0),
// plain loads and stores of the rest, which only tiles at the ends of the
// vector have (the first; the last; the one before it when the last tile
// is shorter than the right halo): zeros outside [0, n) and the last n % 4
// floats (all lanes), then a proxy fence. Every lane then arrives on full:
// its stores are released to whoever waits.
__device__ void fill(float* buf, const float* __restrict__ x, int n,
                     int tile, unsigned long long* full, int lane)
{
    // start: the global index of buf[0], a multiple of 32;
    // [lo, hi): what the bulk copy moves
    const int start = tile * CONV_TILE - CONV_LEFTL;
    int lo = max(start, 0);
    int hi = min(start + CONV_SPAN, n / 4 * 4);
    if (hi <= lo) lo = hi = start;
    for (int j = lane; j < lo - start; j += 32) {               // before the copy
        buf[j] = (start + j >= 0 && start + j < n) ? x[start + j] : 0.0f;
    }
    for (int j = hi - start + lane; j < CONV_SPAN; j += 32) {   // after it
        buf[j] = (start + j >= 0 && start + j < n) ? x[start + j] : 0.0f;
    }
    if (lo > start || hi < start + CONV_SPAN) {
        // Those stores went through the generic proxy; a later round's
        // bulk copy may write the same bytes through the async proxy. The
        // proxy fence orders the two.
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    if (lane == 0 && hi > lo) {
        mbar_arrive_expect_tx(full, 4 * (hi - lo));
        bulk_copy(&buf[lo - start], &x[lo], 4 * (hi - lo), full);
    } else {
        mbar_arrive(full);
    }
}

extern "C" __global__ void __launch_bounds__(CONV_THREADS + 32)
conv1d_warp_specialized(const float* __restrict__ x,
                        const float* __restrict__ w,
                        float* __restrict__ y,
                        int n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // a ring of tile buffers
    __shared__ __align__(128) float x_s[CONV_STAGES][CONV_SPAN];
    __shared__ unsigned long long full[CONV_STAGES], empty[CONV_STAGES];

    const int tiles = (n + CONV_TILE - 1) / CONV_TILE;
    if (threadIdx.x == 0) {
        for (int s = 0; s < CONV_STAGES; ++s) {
            mbar_init(&full[s], 32);             // the producer warp's lanes
            mbar_init(&empty[s], CONV_THREADS);  // every compute thread
        }
        // visible to the copy engine
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    // the only block-wide barrier: the mbarriers exist before anyone uses them
    __syncthreads();

    if (threadIdx.x / 32 == CONV_PRODUCER_WARP) {
        // The producer: for each of this block's tiles, wait until its
        // buffer is empty, fill it.
        const int lane = threadIdx.x % 32;
        // this block's tile count: buffer i % CONV_STAGES, round i / CONV_STAGES
        int i = 0;
        for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++i) {
            const int s = i % CONV_STAGES, round = i / CONV_STAGES;
            // FILL IN: wait until buffer s is empty (every compute thread has
            // read what the round before put there)
            PHASE(0);
            fill(x_s[s], x, n, tile, &full[s], lane);
        }
        return;
    }

    // The compute warps. Phase 2: the taps into registers, once, while the first
    // copies fly.
    float w_r[CONV_K];
    load_taps(w_r, w);

    int i = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, ++i) {
        const int s = i % CONV_STAGES, round = i / CONV_STAGES;
        // Phase 3: wait for the round-th fill of buffer s (no
        // block-wide barrier).
        PHASE(3);
        // FILL IN: wait for the round-th fill of buffer s
        PHASE(4);

        // Phase 4: compute this tile, 4 outputs per thread from a window read out
        // of the buffer with 16-byte loads (the arithmetic is vec4.cu's).
        for (int c = threadIdx.x; c < CONV_TILE / 4; c += CONV_THREADS) {
            const int i0 = tile * CONV_TILE + 4 * c;
            if (i0 >= n) break;
            float v[CONV_WINDOW4], out[4];
            load_window4(v, &x_s[s][CONV_SKIP + 4 * c]);
            convolve4(out, v, w_r);
            store4(y, i0, n, out);
        }

        // Release buffer s: this thread has read it.
        PHASE(5);
        // FILL IN: order this thread's reads of buffer s before the copy engine's
        // next write into it (the proxy fence), then arrive on empty[s]
    }
#else
    // needs the sm_90 bulk copy engine; kernels.conv1d refuses to launch it here
    __trap();
#endif
}
