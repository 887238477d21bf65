// emu.h maps the CUDA C that gpu/kernels/*.cu use onto host C++, so that g++
// compiles the same kernels for the emulator backend. It is included (before
// the .cu file) only by the generated emu_*_gen.cc translation units; nvcc
// never sees it.
//
// A kernel runs as loops over the grid, one call per thread (see the
// generated trampolines): block by block, and within a block thread by
// thread. Kernels therefore must not depend on __syncthreads, shared memory
// cooperation or warp shuffles, none of which are defined here.
#pragma once

#include <math.h>
#include <stdint.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict

struct dim3 {
	unsigned x, y, z;
};
typedef dim3 uint3;

inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

#define __ldg(p) (*(p))

// Vector types, with the 16-byte alignment CUDA gives them.
struct alignas(16) float4 {
	float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
