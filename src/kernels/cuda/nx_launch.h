/*
 * nx_launch.h: the launch indices of nxrig's kernel sources (nx_kernels.cu), so that one
 * source compiles as CUDA C++ (NVRTC, each index one thread of a grid-stride loop) and
 * as C99 for the host (the same loop, one index after another), where nxrig's tests
 * run the kernels over the conversion vectors and the add oracle.
 *
 * NX_KERNEL        what a kernel entry point is declared as.
 * NX_FOR_EACH(i,n) the indices 0 <= i < n this thread (or the host) handles.
 * nx_nibble_put    stores a 4-bit element beside another thread's: atomically on a GPU.
 */
#ifndef NX_LAUNCH_H
#define NX_LAUNCH_H

#include "nx_array.h"

#if defined(__CUDACC__)
#define NX_KERNEL extern "C" __global__
#define NX_FOR_EACH(i, n)                                                                \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);           \
         i += (int64_t)blockDim.x * gridDim.x)

/* The nibble's 32-bit word changed with atomics: two threads may store the two
 * nibbles of one byte at once. (Device code only: NVRTC compiles nothing else.) */
static __device__ inline void nx_nibble_put(uint8_t *base, int64_t i, uint8_t v)
{
    uint64_t u = (uint64_t)i;
    uintptr_t byte = (uintptr_t)(base + (u >> 1));
    unsigned int *word = (unsigned int *)(byte & ~(uintptr_t)3);
    unsigned int sh = (unsigned int)((byte & 3u) * 8u + (u & 1u) * 4u);
    atomicAnd(word, ~(0x0Fu << sh));
    atomicOr(word, ((unsigned int)v & 0x0Fu) << sh);
}
#else
#define NX_KERNEL
#define NX_FOR_EACH(i, n) for (int64_t i = 0; i < (n); ++i)

NX_FN void nx_nibble_put(uint8_t *base, int64_t i, uint8_t v)
{
    nx_nibble_set(base, i, v);
}
#endif

#endif /* NX_LAUNCH_H */
