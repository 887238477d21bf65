// common.h holds the device helpers shared by the kernels of gpu/kernels:
// grid-stride loops, the binary operators' numbers and the broadcast
// description of package bcast.
#pragma once

// GNN_FOR runs its body for i = 0, 1, ..., n-1 over a one-dimensional grid,
// each thread taking the indices i ≡ its global thread index modulo the
// grid's thread count. Indices are 64-bit so that rows x features beyond
// 2^31 elements still work.
#define GNN_FOR(i, n)                                                          \
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;      \
	     i < (long long)(n); i += (long long)gridDim.x * blockDim.x)

// Binary operators, numbered as package ops/internal/binop (ops.Binary).
#define OP_COPY_L 0
#define OP_COPY_R 1
#define OP_ADD 2
#define OP_SUB 3
#define OP_MUL 4
#define OP_DIV 5
#define OP_DOT 6

// gnn_maxdims is the largest number of output feature dimensions a Bcast
// describes.
#define GNN_MAXDIMS 4

// Bcast is how two operand rows combine into an output row (package bcast's
// Plan, as strides): output element k, with indices idx over the dims out,
// reads lhs element sum(idx[i]*ls[i]) and rhs element sum(idx[i]*rs[i]); a
// stride is 0 along a broadcast dimension. For a dot product, reduce > 1
// elements follow each of those offsets and are summed. The Go side packs
// this struct as 4+4*4*3+4*4 bytes of int32 (sparse.packBcast).
struct Bcast {
	int nd;                 // dims used, at most GNN_MAXDIMS
	int out[GNN_MAXDIMS];   // output dims (outermost first)
	int ls[GNN_MAXDIMS];    // lhs strides
	int rs[GNN_MAXDIMS];    // rhs strides
	int lhsLen, rhsLen, outLen, reduce;
	int trivial;            // 1: both offsets are k (identity)
};

// gnn_offsets returns the lhs and rhs offsets of output element k.
__device__ __forceinline__ void gnn_offsets(const Bcast &b, long long k, long long *lo, long long *ro) {
	if (b.trivial) {
		*lo = k;
		*ro = k;
		return;
	}
	long long l = 0, r = 0;
	for (int i = b.nd - 1; i >= 0; i--) {
		long long d = b.out[i];
		long long x = k % d;
		k /= d;
		l += x * b.ls[i];
		r += x * b.rs[i];
	}
	*lo = l;
	*ro = r;
}
