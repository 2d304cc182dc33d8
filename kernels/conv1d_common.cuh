// Shared by every variant of the 1D convolution
//
//     y[i] = sum_{k < CONV_K} x[i + k - CONV_HALO] * w[k],   x = 0 outside [0, n)
//
// The Python loader (kernels/launch.py) injects the compile-time constants
//     CONV_TILE     outputs per block (a multiple of 32)
//     CONV_K        taps in the kernel w (1 <= CONV_K <= CONV_TILE)
//     CONV_THREADS  threads per block (a multiple of 32, at most 1024)
// and launches ceil(n / CONV_TILE) blocks of CONV_THREADS threads.
#pragma once

#if !defined(CONV_TILE) || !defined(CONV_K) || !defined(CONV_THREADS)
#error "compile with -DCONV_TILE=... -DCONV_K=... -DCONV_THREADS=..."
#endif

// Halo: the neighbours a tile needs from outside itself. The left halo has CONV_HALO
// cells, the right halo CONV_K - 1 - CONV_HALO (the same for odd K, one fewer for even K).
#define CONV_HALO (CONV_K / 2)

// A tile with both halos: what the correct tiled kernels keep in shared memory.
#define CONV_BUF (CONV_TILE + CONV_K - 1)

// The 16-byte variants (vec4, pipelined, bulk) move whole 16-byte chunks of 4 floats. Their
// buffer is the tile with each halo rounded up to a whole chunk, so that it starts on a 16-byte
// boundary (tiles are multiples of 32 floats): x_s[j] holds x[tile_start - CONV_LEFT4 + j].
#define CONV_LEFT4  ((CONV_HALO + 3) / 4 * 4)
#define CONV_RIGHT4 ((CONV_K - 1 - CONV_HALO + 3) / 4 * 4)
#define CONV_SPAN   (CONV_LEFT4 + CONV_TILE + CONV_RIGHT4)
