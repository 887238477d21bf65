// softmax.cu: edge softmax over the edges of each destination (or source)
// node, its gradient, and GAT's fused attention (package ops/edgesoftmax on
// the device).
//
// One thread per (group row, column): it makes its passes over the group's
// edges (maximum, exponentials and their sum, normalisation) in the
// view's order, with the sum in float64, so results are deterministic.
// Exponentials are computed in float64 for both precisions.
#include "common.h"

template <typename T>
__device__ void softmax_fwd(T *__restrict__ out, const int *__restrict__ ptr, const int *__restrict__ eid,
			    const T *score, int rows, int w) {
	GNN_FOR(t, (long long)rows * w) {
		long long v = t / w, h = t - v * w;
		int s = ptr[v], end = ptr[v + 1];
		if (s == end) continue;
		T m = score[(long long)eid[s] * w + h];
		for (int j = s + 1; j < end; j++) {
			T x = score[(long long)eid[j] * w + h];
			if (x > m) m = x;
		}
		double sum = 0;
		for (int j = s; j < end; j++) {
			long long o = (long long)eid[j] * w + h;
			T ev = (T)exp((double)score[o] - (double)m);
			out[o] = ev;
			sum += (double)ev;
		}
		double inv = 1 / sum;
		for (int j = s; j < end; j++) {
			long long o = (long long)eid[j] * w + h;
			out[o] = (T)((double)out[o] * inv);
		}
	}
}

// out may be score itself: each element is read before it is written, by
// the one thread that owns its column of the group.
extern "C" __global__ void gnn_edge_softmax_f32(float *out, const int *ptr, const int *eid, const float *score, int rows, int w) {
	softmax_fwd(out, ptr, eid, score, rows, w);
}

extern "C" __global__ void gnn_edge_softmax_f64(double *out, const int *ptr, const int *eid, const double *score, int rows, int w) {
	softmax_fwd(out, ptr, eid, score, rows, w);
}

// group_dot returns the sum of y*dy over the edges s..end-1 of a group at
// column h, in the view's order and in float64.
template <typename T>
__device__ __forceinline__ double group_dot(const int *__restrict__ eid, int s, int end, const T *y, const T *dy,
					    long long h, int w) {
	double sum = 0;
	for (int j = s; j < end; j++) {
		long long o = (long long)eid[j] * w + h;
		sum += (double)y[o] * (double)dy[o];
	}
	return sum;
}

// softmax_bwd writes ds[e] = y[e] * (dy[e] - sum over the group of y*dy).
template <typename T>
__device__ void softmax_bwd(T *ds, const int *__restrict__ ptr, const int *__restrict__ eid, const T *y,
			    const T *dy, int rows, int w) {
	GNN_FOR(t, (long long)rows * w) {
		long long v = t / w, h = t - v * w;
		int s = ptr[v], end = ptr[v + 1];
		double sum = group_dot(eid, s, end, y, dy, h, w);
		for (int j = s; j < end; j++) {
			long long o = (long long)eid[j] * w + h;
			ds[o] = (T)((double)y[o] * ((double)dy[o] - sum));
		}
	}
}

extern "C" __global__ void gnn_edge_softmax_grad_f32(float *ds, const int *ptr, const int *eid, const float *y, const float *dy, int rows, int w) {
	softmax_bwd(ds, ptr, eid, y, dy, rows, w);
}

extern "C" __global__ void gnn_edge_softmax_grad_f64(double *ds, const int *ptr, const int *eid, const double *y, const double *dy, int rows, int w) {
	softmax_bwd(ds, ptr, eid, y, dy, rows, w);
}

// leaky is LeakyReLU as ops/edgesoftmax computes it: max(t, t*slope) for a
// slope of at most 1, min otherwise.
template <typename T>
__device__ __forceinline__ T leaky(T t, T slope) {
	T ts = t * slope;
	if (slope <= (T)1) return t > ts ? t : ts;
	return t < ts ? t : ts;
}

// gat_fwd is the softmax by destination of LeakyReLU(el[u] + er[v]),
// recomputing the scores in each pass instead of storing them. ptr, idx
// and eid are the by-destination view.
template <typename T>
__device__ void gat_fwd(T *__restrict__ out, const int *__restrict__ ptr, const int *__restrict__ idx,
			const int *__restrict__ eid, const T *__restrict__ el, const T *__restrict__ er, T slope,
			int rows, int w) {
	GNN_FOR(t, (long long)rows * w) {
		long long v = t / w, h = t - v * w;
		int s = ptr[v], end = ptr[v + 1];
		if (s == end) continue;
		T r = er[t];
		T m = leaky(el[(long long)idx[s] * w + h] + r, slope);
		for (int j = s + 1; j < end; j++) {
			T x = leaky(el[(long long)idx[j] * w + h] + r, slope);
			m = x > m ? x : m;
		}
		double sum = 0;
		for (int j = s; j < end; j++) {
			T x = leaky(el[(long long)idx[j] * w + h] + r, slope);
			sum += (double)(T)exp((double)x - (double)m);
		}
		double inv = 1 / sum;
		for (int j = s; j < end; j++) {
			T x = leaky(el[(long long)idx[j] * w + h] + r, slope);
			T ev = (T)exp((double)x - (double)m);
			out[(long long)eid[j] * w + h] = (T)((double)ev * inv);
		}
	}
}

extern "C" __global__ void gnn_gat_attention_f32(float *out, const int *ptr, const int *idx, const int *eid, const float *el, const float *er, float slope, int rows, int w) {
	gat_fwd(out, ptr, idx, eid, el, er, slope, rows, w);
}

extern "C" __global__ void gnn_gat_attention_f64(double *out, const int *ptr, const int *idx, const int *eid, const double *el, const double *er, double slope, int rows, int w) {
	gat_fwd(out, ptr, idx, eid, el, er, slope, rows, w);
}

// gat_bwd writes the gradient with respect to el[u] + er[v] (before the
// LeakyReLU): the softmax gradient times 1 where the sum is positive and
// slope elsewhere.
template <typename T>
__device__ void gat_bwd(T *ds, const int *__restrict__ ptr, const int *__restrict__ idx,
			const int *__restrict__ eid, const T *__restrict__ el, const T *__restrict__ er, T slope,
			const T *y, const T *dy, int rows, int w) {
	GNN_FOR(t, (long long)rows * w) {
		long long v = t / w, h = t - v * w;
		int s = ptr[v], end = ptr[v + 1];
		double sum = group_dot(eid, s, end, y, dy, h, w);
		T r = er[t];
		for (int j = s; j < end; j++) {
			long long o = (long long)eid[j] * w + h;
			T d = (T)((double)y[o] * ((double)dy[o] - sum));
			if (el[(long long)idx[j] * w + h] + r <= (T)0) d *= slope;
			ds[o] = d;
		}
	}
}

extern "C" __global__ void gnn_gat_attention_grad_f32(float *ds, const int *ptr, const int *idx, const int *eid, const float *el, const float *er, float slope, const float *y, const float *dy, int rows, int w) {
	gat_bwd(ds, ptr, idx, eid, el, er, slope, y, dy, rows, w);
}

extern "C" __global__ void gnn_gat_attention_grad_f64(double *ds, const int *ptr, const int *idx, const int *eid, const double *el, const double *er, double slope, const double *y, const double *dy, int rows, int w) {
	gat_bwd(ds, ptr, idx, eid, el, er, slope, y, dy, rows, w);
}
