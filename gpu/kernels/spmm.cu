// spmm.cu: generalized sparse-dense matrix products (package ops/spmm on
// the device) and their gradients.
//
// One thread per (row, output element): a warp reads 32 consecutive
// elements of each gathered row, so loads coalesce for rows of 32 or more
// elements, and each thread reduces its element over the row's edges in
// the view's order (increasing edge ID), in registers: no atomics, the
// same bits on every run. Views are int32 CSR arrays (ptr, idx, eid): the
// rows of ptr, the other endpoint in idx, the edge ID in eid.
#include "common.h"

// Reducers, numbered as spmm.Reduce.
#define RED_SUM 0
#define RED_MEAN 1
#define RED_MAX 2
#define RED_MIN 3

template <typename T>
__device__ __forceinline__ T gnn_binary(int op, T l, T r) {
	switch (op) {
	case OP_COPY_L: return l;
	case OP_COPY_R: return r;
	case OP_ADD: return l + r;
	case OP_SUB: return l - r;
	case OP_MUL: return l * r;
	default: return l / r;
	}
}

template <typename T>
__device__ void spmm_sum(T *__restrict__ out, const int *__restrict__ ptr, const int *__restrict__ idx,
			 const int *__restrict__ eid, const T *__restrict__ u, const T *__restrict__ e, int op,
			 int mean, const T *__restrict__ scale, int rows, Bcast b) {
	GNN_FOR(t, (long long)rows * b.outLen) {
		long long v = t / b.outLen, k = t - v * b.outLen, lo, ro;
		gnn_offsets(b, k, &lo, &ro);
		int s = ptr[v], end = ptr[v + 1];
		T acc = 0;
		if (op == OP_COPY_L) {
			// Four rows' loads are issued before their adds (in order), so
			// that a thread keeps several gathers in flight.
			int j = s;
			for (; j + 4 <= end; j += 4) {
				T a0 = u[(long long)idx[j] * b.lhsLen + lo];
				T a1 = u[(long long)idx[j + 1] * b.lhsLen + lo];
				T a2 = u[(long long)idx[j + 2] * b.lhsLen + lo];
				T a3 = u[(long long)idx[j + 3] * b.lhsLen + lo];
				acc += a0;
				acc += a1;
				acc += a2;
				acc += a3;
			}
			for (; j < end; j++) acc += u[(long long)idx[j] * b.lhsLen + lo];
		} else if (op == OP_COPY_R) {
			for (int j = s; j < end; j++) acc += e[(long long)eid[j] * b.rhsLen + ro];
		} else if (op == OP_MUL) {
			int j = s;
			for (; j + 4 <= end; j += 4) {
				T a0 = u[(long long)idx[j] * b.lhsLen + lo] * e[(long long)eid[j] * b.rhsLen + ro];
				T a1 = u[(long long)idx[j + 1] * b.lhsLen + lo] * e[(long long)eid[j + 1] * b.rhsLen + ro];
				T a2 = u[(long long)idx[j + 2] * b.lhsLen + lo] * e[(long long)eid[j + 2] * b.rhsLen + ro];
				T a3 = u[(long long)idx[j + 3] * b.lhsLen + lo] * e[(long long)eid[j + 3] * b.rhsLen + ro];
				acc += a0;
				acc += a1;
				acc += a2;
				acc += a3;
			}
			for (; j < end; j++)
				acc += u[(long long)idx[j] * b.lhsLen + lo] * e[(long long)eid[j] * b.rhsLen + ro];
		} else {
			for (int j = s; j < end; j++)
				acc += gnn_binary(op, u[(long long)idx[j] * b.lhsLen + lo], e[(long long)eid[j] * b.rhsLen + ro]);
		}
		if (mean && end - s > 1) acc /= (T)(end - s);
		if (scale) acc *= scale[v];
		out[t] = acc;
	}
}

extern "C" __global__ void gnn_spmm_sum_f32(float *out, const int *ptr, const int *idx, const int *eid, const float *u, const float *e, int op, int mean, const float *scale, int rows, Bcast b) {
	spmm_sum(out, ptr, idx, eid, u, e, op, mean, scale, rows, b);
}

extern "C" __global__ void gnn_spmm_sum_f64(double *out, const int *ptr, const int *idx, const int *eid, const double *u, const double *e, int op, int mean, const double *scale, int rows, Bcast b) {
	spmm_sum(out, ptr, idx, eid, u, e, op, mean, scale, rows, b);
}

// gnn_spmm_copy_u_sum4_f32 is copy_u + sum (or mean, or scaled) for float32
// rows of f4*4 elements at 16-byte aligned addresses: each thread owns four
// consecutive elements of a destination row and loads them with one
// 16-byte load per edge, four edges ahead, adding in the same order as
// gnn_spmm_sum (so the same bits), with a quarter of the index loads and
// instructions per element.
extern "C" __global__ void gnn_spmm_copy_u_sum4_f32(float4 *__restrict__ out, const int *__restrict__ ptr, const int *__restrict__ idx, const float4 *__restrict__ u, int mean, const float *__restrict__ scale, int rows, int f4) {
	GNN_FOR(t, (long long)rows * f4) {
		long long v = t / f4, q = t - v * f4;
		int s = ptr[v], end = ptr[v + 1];
		float4 acc = make_float4(0, 0, 0, 0);
		int j = s;
		for (; j + 4 <= end; j += 4) {
			float4 a0 = u[(long long)idx[j] * f4 + q];
			float4 a1 = u[(long long)idx[j + 1] * f4 + q];
			float4 a2 = u[(long long)idx[j + 2] * f4 + q];
			float4 a3 = u[(long long)idx[j + 3] * f4 + q];
			acc.x += a0.x; acc.y += a0.y; acc.z += a0.z; acc.w += a0.w;
			acc.x += a1.x; acc.y += a1.y; acc.z += a1.z; acc.w += a1.w;
			acc.x += a2.x; acc.y += a2.y; acc.z += a2.z; acc.w += a2.w;
			acc.x += a3.x; acc.y += a3.y; acc.z += a3.z; acc.w += a3.w;
		}
		for (; j < end; j++) {
			float4 a = u[(long long)idx[j] * f4 + q];
			acc.x += a.x; acc.y += a.y; acc.z += a.z; acc.w += a.w;
		}
		if (mean && end - s > 1) {
			float d = (float)(end - s);
			acc.x /= d; acc.y /= d; acc.z /= d; acc.w /= d;
		}
		if (scale) {
			float c = scale[v];
			acc.x *= c; acc.y *= c; acc.z *= c; acc.w *= c;
		}
		out[t] = acc;
	}
}

// spmm_extreme is the Max (isMax) or Min reduction: a row starts from its
// first edge's message and a later one replaces it only when strictly
// greater (smaller), so ties go to the smallest edge ID and a NaN wins only
// when it comes first. Rows without edges get 0 and arg -1.
template <typename T>
__device__ void spmm_extreme(T *__restrict__ out, long long *__restrict__ arg, const int *__restrict__ ptr,
			     const int *__restrict__ idx, const int *__restrict__ eid, const T *__restrict__ u,
			     const T *__restrict__ e, int op, int isMax, int rows, Bcast b) {
	GNN_FOR(t, (long long)rows * b.outLen) {
		long long v = t / b.outLen, k = t - v * b.outLen, lo, ro;
		gnn_offsets(b, k, &lo, &ro);
		int s = ptr[v], end = ptr[v + 1];
		if (s == end) {
			out[t] = 0;
			if (arg) arg[t] = -1;
			continue;
		}
		T l = op == OP_COPY_R ? (T)0 : u[(long long)idx[s] * b.lhsLen + lo];
		T r = op == OP_COPY_L ? (T)0 : e[(long long)eid[s] * b.rhsLen + ro];
		T best = gnn_binary(op, l, r);
		long long at = eid[s];
		for (int j = s + 1; j < end; j++) {
			l = op == OP_COPY_R ? (T)0 : u[(long long)idx[j] * b.lhsLen + lo];
			r = op == OP_COPY_L ? (T)0 : e[(long long)eid[j] * b.rhsLen + ro];
			T m = gnn_binary(op, l, r);
			if (isMax ? m > best : m < best) {
				best = m;
				at = eid[j];
			}
		}
		out[t] = best;
		if (arg) arg[t] = at;
	}
}

extern "C" __global__ void gnn_spmm_extreme_f32(float *out, long long *arg, const int *ptr, const int *idx, const int *eid, const float *u, const float *e, int op, int isMax, int rows, Bcast b) {
	spmm_extreme(out, arg, ptr, idx, eid, u, e, op, isMax, rows, b);
}

extern "C" __global__ void gnn_spmm_extreme_f64(double *out, long long *arg, const int *ptr, const int *idx, const int *eid, const double *u, const double *e, int op, int isMax, int rows, Bcast b) {
	spmm_extreme(out, arg, ptr, idx, eid, u, e, op, isMax, rows, b);
}

// grad_weight returns the share of dOut[v, k] that edge id receives: 1 for
// Sum, 1/deg(v) for Mean, and for Max and Min 1 when id won the element
// and 0 otherwise.
template <typename T>
__device__ __forceinline__ T grad_share(int red, const int *dptr, const long long *arg, long long v, long long k,
					int outLen, long long id, T g) {
	if (red == RED_MEAN) {
		int deg = dptr[v + 1] - dptr[v];
		if (deg > 1) g /= (T)deg;
	} else if (red == RED_MAX || red == RED_MIN) {
		if (arg[v * outLen + k] != id) return 0;
	}
	return g;
}

// spmm_grad_u overwrites du, one (source row, lhs element j) per thread:
// the sum over the output elements k that read element j, and over the
// source's out-edges (the by-source view: sptr, sidx = destinations,
// seid), of the message's derivative times dOut. dptr is the
// by-destination row pointer, for the in-degrees of Mean.
template <typename T>
__device__ void spmm_grad_u(T *__restrict__ du, const int *__restrict__ sptr, const int *__restrict__ sidx,
			    const int *__restrict__ seid, const int *__restrict__ dptr, const T *__restrict__ e,
			    const T *__restrict__ dout, const long long *__restrict__ arg, int op, int red,
			    int rows, Bcast b) {
	GNN_FOR(t, (long long)rows * b.lhsLen) {
		long long u = t / b.lhsLen, j = t - u * b.lhsLen;
		int s = sptr[u], end = sptr[u + 1];
		double acc = 0; // float64 sums: the reduction runs over edges and broadcast elements
		long long k0 = b.trivial ? j : 0, k1 = b.trivial ? j + 1 : b.outLen;
		for (long long k = k0; k < k1; k++) {
			long long lo, ro;
			gnn_offsets(b, k, &lo, &ro);
			if (lo != j) continue;
			for (int p = s; p < end; p++) {
				long long v = sidx[p], id = seid[p];
				T g = grad_share(red, dptr, arg, v, k, b.outLen, id, dout[v * b.outLen + k]);
				if (op == OP_MUL) g *= e[id * b.rhsLen + ro];
				else if (op == OP_DIV) g /= e[id * b.rhsLen + ro];
				acc += (double)g;
			}
		}
		du[t] = (T)acc;
	}
}

extern "C" __global__ void gnn_spmm_grad_u_f32(float *du, const int *sptr, const int *sidx, const int *seid, const int *dptr, const float *e, const float *dout, const long long *arg, int op, int red, int rows, Bcast b) {
	spmm_grad_u(du, sptr, sidx, seid, dptr, e, dout, arg, op, red, rows, b);
}

extern "C" __global__ void gnn_spmm_grad_u_f64(double *du, const int *sptr, const int *sidx, const int *seid, const int *dptr, const double *e, const double *dout, const long long *arg, int op, int red, int rows, Bcast b) {
	spmm_grad_u(du, sptr, sidx, seid, dptr, e, dout, arg, op, red, rows, b);
}

// spmm_grad_e overwrites de, one (edge, rhs element j) per thread: the sum
// over the output elements k of the edge's destination that read element
// j of the message's derivative times dOut. src and dst are the edges'
// endpoints by edge ID.
template <typename T>
__device__ void spmm_grad_e(T *__restrict__ de, const int *__restrict__ src, const int *__restrict__ dst,
			    const int *__restrict__ dptr, const T *__restrict__ u, const T *__restrict__ e,
			    const T *__restrict__ dout, const long long *__restrict__ arg, int op, int red,
			    long long edges, Bcast b) {
	GNN_FOR(t, edges * b.rhsLen) {
		long long id = t / b.rhsLen, j = t - id * b.rhsLen;
		long long v = dst[id], su = src[id];
		double acc = 0; // float64 sums: the reduction runs over edges and broadcast elements
		long long k0 = b.trivial ? j : 0, k1 = b.trivial ? j + 1 : b.outLen;
		for (long long k = k0; k < k1; k++) {
			long long lo, ro;
			gnn_offsets(b, k, &lo, &ro);
			if (ro != j) continue;
			T g = grad_share(red, dptr, arg, v, k, b.outLen, id, dout[v * b.outLen + k]);
			switch (op) {
			case OP_SUB: g = -g; break;
			case OP_MUL: g *= u[su * b.lhsLen + lo]; break;
			case OP_DIV: {
				T x = e[t];
				g = -g * u[su * b.lhsLen + lo] / (x * x);
				break;
			}
			}
			acc += (double)g;
		}
		de[t] = (T)acc;
	}
}

extern "C" __global__ void gnn_spmm_grad_e_f32(float *de, const int *src, const int *dst, const int *dptr, const float *u, const float *e, const float *dout, const long long *arg, int op, int red, long long edges, Bcast b) {
	spmm_grad_e(de, src, dst, dptr, u, e, dout, arg, op, red, edges, b);
}

extern "C" __global__ void gnn_spmm_grad_e_f64(double *de, const int *src, const int *dst, const int *dptr, const double *u, const double *e, const double *dout, const long long *arg, int op, int red, long long edges, Bcast b) {
	spmm_grad_e(de, src, dst, dptr, u, e, dout, arg, op, red, edges, b);
}
