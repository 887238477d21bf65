// sddmm.cu: sampled dense-dense products, one row per edge (package
// ops/sddmm on the device), and their gradients.
//
// An operand's rows are read through a per-edge row array: the edges'
// sources (target u), destinations (v), or the edge IDs themselves (e, a
// null array).
#include "common.h"

// gnn_dot returns the sum, in order, of l[j] r[j] for j < n.
template <typename T> __device__ __forceinline__ T gnn_dot(const T *__restrict__ l, const T *__restrict__ r, int n) {
	T v = 0;
	for (int j = 0; j < n; j++) v += l[j] * r[j];
	return v;
}

// gnn_dot for float reads both rows 16 bytes at a time where they are
// 16-byte aligned: a quarter of the load instructions, and in a warp whose
// threads each read another row, a quarter of the cache-line requests. The
// products are added in the same order, so the sum is the same.
template <> __device__ __forceinline__ float gnn_dot<float>(const float *__restrict__ l, const float *__restrict__ r, int n) {
	float v = 0;
	int j = 0;
	if ((((unsigned long long)l | (unsigned long long)r) & 15) == 0) {
		const float4 *l4 = (const float4 *)l, *r4 = (const float4 *)r;
		for (; j + 4 <= n; j += 4) {
			float4 a = l4[j >> 2], b = r4[j >> 2];
			v += a.x * b.x;
			v += a.y * b.y;
			v += a.z * b.z;
			v += a.w * b.w;
		}
	}
	for (; j < n; j++) v += l[j] * r[j];
	return v;
}

// sddmm_fwd writes out[e, k] = lhs[lrow(e), lo(k)] OP rhs[rrow(e), ro(k)],
// one (edge, element) per thread; Dot sums b.reduce products in order.
template <typename T>
__device__ void sddmm_fwd(T *__restrict__ out, const int *__restrict__ lrow, const int *__restrict__ rrow,
			  const T *__restrict__ lhs, const T *__restrict__ rhs, int op, long long edges, Bcast b) {
	GNN_FOR(t, edges * b.outLen) {
		long long e = t / b.outLen, k = t - e * b.outLen, lo, ro;
		gnn_offsets(b, k, &lo, &ro);
		long long lr = lrow ? lrow[e] : e, rr = rrow ? rrow[e] : e;
		const T *l = lhs + lr * b.lhsLen + lo;
		const T *r = rhs + rr * b.rhsLen + ro;
		T v;
		switch (op) {
		case OP_COPY_L: v = *l; break;
		case OP_COPY_R: v = *r; break;
		case OP_ADD: v = *l + *r; break;
		case OP_SUB: v = *l - *r; break;
		case OP_MUL: v = *l * *r; break;
		case OP_DIV: v = *l / *r; break;
		default: v = gnn_dot(l, r, b.reduce);
		}
		out[t] = v;
	}
}

extern "C" __global__ void gnn_sddmm_f32(float *out, const int *lrow, const int *rrow, const float *lhs, const float *rhs, int op, long long edges, Bcast b) {
	sddmm_fwd(out, lrow, rrow, lhs, rhs, op, edges, b);
}

extern "C" __global__ void gnn_sddmm_f64(double *out, const int *lrow, const int *rrow, const double *lhs, const double *rhs, int op, long long edges, Bcast b) {
	sddmm_fwd(out, lrow, rrow, lhs, rhs, op, edges, b);
}

// sddmm_grad overwrites dx, the gradient of one operand x (the lhs when
// side is 0, the rhs otherwise), one (row r, element j) per thread: the sum
// over the edges that read row r (positions ptr[r] to ptr[r+1] of a view,
// with edge IDs eid; for the e target ptr is null and the edge is r) and
// over the output elements k that read element j, of dOut[e, k] times the
// derivative of the op. y is the other operand, read at row yrow(e).
template <typename T>
__device__ void sddmm_grad(T *__restrict__ dx, const int *__restrict__ ptr, const int *__restrict__ eid,
			   long long rows, const T *__restrict__ x, const T *__restrict__ y,
			   const int *__restrict__ yrow, const T *__restrict__ dout, int op, int side, Bcast b) {
	long long xlen = side == 0 ? b.lhsLen : b.rhsLen, ylen = side == 0 ? b.rhsLen : b.lhsLen;
	GNN_FOR(t, rows * xlen) {
		long long r = t / xlen, j = t - r * xlen;
		long long s = ptr ? ptr[r] : r, end = ptr ? ptr[r + 1] : r + 1;
		double acc = 0; // float64 sums: the reduction runs over edges and broadcast elements
		int dot = op == OP_DOT;
		long long k0 = b.trivial ? j : 0, k1 = b.trivial ? j + 1 : b.outLen;
		for (long long k = k0; k < k1; k++) {
			long long lo, ro;
			gnn_offsets(b, k, &lo, &ro);
			long long xo = side == 0 ? lo : ro, yo = side == 0 ? ro : lo;
			long long d = j - xo; // the position within a dot segment
			if (dot ? (d < 0 || d >= b.reduce) : d != 0) continue;
			for (long long p = s; p < end; p++) {
				long long e = ptr ? eid[p] : p;
				T g = dout[e * b.outLen + k];
				long long yr = yrow ? yrow[e] : e;
				T yv = (op == OP_COPY_L || op == OP_COPY_R) ? (T)0 : y[yr * ylen + yo + d];
				switch (op) {
				case OP_SUB: if (side) g = -g; break;
				case OP_MUL:
				case OP_DOT: g *= yv; break;
				case OP_DIV:
					if (side == 0) g /= yv;
					else { T xv = x[t]; g = -g * yv / (xv * xv); }
					break;
				}
				acc += (double)g;
			}
		}
		dx[t] = (T)acc;
	}
}

extern "C" __global__ void gnn_sddmm_grad_f32(float *dx, const int *ptr, const int *eid, long long rows, const float *x, const float *y, const int *yrow, const float *dout, int op, int side, Bcast b) {
	sddmm_grad(dx, ptr, eid, rows, x, y, yrow, dout, op, side, b);
}

extern "C" __global__ void gnn_sddmm_grad_f64(double *dx, const int *ptr, const int *eid, long long rows, const double *x, const double *y, const int *yrow, const double *dout, int op, int side, Bcast b) {
	sddmm_grad(dx, ptr, eid, rows, x, y, yrow, dout, op, side, b);
}
