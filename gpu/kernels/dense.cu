// dense.cu: the kernels of gnn's dense ops (package nn and the layers' own
// ops), for device-resident training: products, bias, activations,
// dropout, cross-entropy, mean over heads, attention head scores. Each
// exists for float (_f32) and double (_f64), from one template. Every sum
// runs in one thread in a fixed order, or in two passes over fixed blocks
// of rows (long column sums), so results do not depend on the launch
// configuration (and carry no float atomics).
#include "common.h"

template <typename T> __device__ __forceinline__ T gnn_zero() { return (T)0; }

// gnn_dense_matmul: c = a b (mode 0, c n x m), a bᵀ (mode 1, a n x m, b
// k x m, c n x k) or aᵀ b (mode 2, a n x k, b n x m, c k x m); one output
// element per thread, its sum in index order.
template <typename T>
__device__ void gnn_matmul(T *c, const T *a, const T *b, long long n, long long k, long long m, int mode) {
	long long rows = mode == 2 ? k : n, cols = mode == 1 ? k : m;
	GNN_FOR(idx, rows * cols) {
		long long i = idx / cols, j = idx % cols;
		T s = gnn_zero<T>();
		if (mode == 0) {
			for (long long p = 0; p < k; p++) s += a[i * k + p] * b[p * m + j];
		} else if (mode == 1) {
			for (long long p = 0; p < m; p++) s += a[i * m + p] * b[j * m + p];
		} else {
			for (long long r = 0; r < n; r++) s += a[r * k + i] * b[r * m + j];
		}
		c[idx] = s;
	}
}

extern "C" __global__ void gnn_dense_matmul_f32(float *c, const float *a, const float *b, long long n, long long k, long long m, int mode) {
	gnn_matmul<float>(c, a, b, n, k, m, mode);
}
extern "C" __global__ void gnn_dense_matmul_f64(double *c, const double *a, const double *b, long long n, long long k, long long m, int mode) {
	gnn_matmul<double>(c, a, b, n, k, m, mode);
}

// gnn_dense_matmul_ta_part: the first pass of a parallel aᵀ b (a n x k,
// b n x m) over blocks of rows rows (the last one shorter):
// part[q][i][j] = the sum, in row order, of a[r,i] b[r,j] over the rows r
// of block q. gnn_dense_sum_parts then adds the blocks in order, so the
// result depends on the sizes and rows alone, not on the launch.
template <typename T>
__device__ void gnn_matmul_ta_part(T *part, const T *a, const T *b, long long n, long long k, long long m, long long rows) {
	long long km = k * m, blocks = (n + rows - 1) / rows;
	GNN_FOR(idx, blocks * km) {
		long long q = idx / km, rem = idx % km, i = rem / m, j = rem % m;
		long long r0 = q * rows, r1 = r0 + rows < n ? r0 + rows : n;
		T s = gnn_zero<T>();
		for (long long r = r0; r < r1; r++) s += a[r * k + i] * b[r * m + j];
		part[idx] = s;
	}
}
extern "C" __global__ void gnn_dense_matmul_ta_part_f32(float *part, const float *a, const float *b, long long n, long long k, long long m, long long rows) {
	gnn_matmul_ta_part<float>(part, a, b, n, k, m, rows);
}
extern "C" __global__ void gnn_dense_matmul_ta_part_f64(double *part, const double *a, const double *b, long long n, long long k, long long m, long long rows) {
	gnn_matmul_ta_part<double>(part, a, b, n, k, m, rows);
}

// gnn_dense_sum_rows_part: the first pass of a parallel column sum of x
// (n rows of w) over blocks of rows rows: part[q][j] = the sum, in row
// order, of x[r,j] over the rows r of block q.
template <typename T> __device__ void gnn_sum_rows_part(T *part, const T *x, long long n, long long w, long long rows) {
	long long blocks = (n + rows - 1) / rows;
	GNN_FOR(idx, blocks * w) {
		long long q = idx / w, j = idx % w;
		long long r0 = q * rows, r1 = r0 + rows < n ? r0 + rows : n;
		T s = gnn_zero<T>();
		for (long long r = r0; r < r1; r++) s += x[r * w + j];
		part[idx] = s;
	}
}
extern "C" __global__ void gnn_dense_sum_rows_part_f32(float *part, const float *x, long long n, long long w, long long rows) {
	gnn_sum_rows_part<float>(part, x, n, w, rows);
}
extern "C" __global__ void gnn_dense_sum_rows_part_f64(double *part, const double *x, long long n, long long w, long long rows) {
	gnn_sum_rows_part<double>(part, x, n, w, rows);
}

// gnn_dense_sum_parts: the second pass of both: out[i] = the sum over the
// blocks q, in order, of part[q][i], for len outputs.
template <typename T> __device__ void gnn_sum_parts(T *out, const T *part, long long blocks, long long len) {
	GNN_FOR(i, len) {
		T s = gnn_zero<T>();
		for (long long q = 0; q < blocks; q++) s += part[q * len + i];
		out[i] = s;
	}
}
extern "C" __global__ void gnn_dense_sum_parts_f32(float *out, const float *part, long long blocks, long long len) {
	gnn_sum_parts<float>(out, part, blocks, len);
}
extern "C" __global__ void gnn_dense_sum_parts_f64(double *out, const double *part, long long blocks, long long len) {
	gnn_sum_parts<double>(out, part, blocks, len);
}

// gnn_dense_add_rows: y[r,j] = x[r,j] + b[j] over n rows of w.
extern "C" __global__ void gnn_dense_add_rows_f32(float *y, const float *x, const float *b, long long n, long long w) {
	GNN_FOR(i, n * w) { y[i] = x[i] + b[i % w]; }
}
extern "C" __global__ void gnn_dense_add_rows_f64(double *y, const double *x, const double *b, long long n, long long w) {
	GNN_FOR(i, n * w) { y[i] = x[i] + b[i % w]; }
}

// gnn_dense_sum_rows: s[j] = sum over rows r of x[r,j], in row order.
template <typename T> __device__ void gnn_sum_rows(T *s, const T *x, long long n, long long w) {
	GNN_FOR(j, w) {
		T acc = gnn_zero<T>();
		for (long long r = 0; r < n; r++) acc += x[r * w + j];
		s[j] = acc;
	}
}
extern "C" __global__ void gnn_dense_sum_rows_f32(float *s, const float *x, long long n, long long w) {
	gnn_sum_rows<float>(s, x, n, w);
}
extern "C" __global__ void gnn_dense_sum_rows_f64(double *s, const double *x, long long n, long long w) {
	gnn_sum_rows<double>(s, x, n, w);
}

// gnn_dense_add: y = a + b over len elements (y may alias a or b).
extern "C" __global__ void gnn_dense_add_f32(float *y, const float *a, const float *b, long long len) {
	GNN_FOR(i, len) { y[i] = a[i] + b[i]; }
}
extern "C" __global__ void gnn_dense_add_f64(double *y, const double *a, const double *b, long long len) {
	GNN_FOR(i, len) { y[i] = a[i] + b[i]; }
}

// gnn_dense_scale_rows: y[r,j] = x[r,j] * f[r] over n rows of w (y may be x).
extern "C" __global__ void gnn_dense_scale_rows_f32(float *y, const float *x, const float *f, long long n, long long w) {
	GNN_FOR(i, n * w) { y[i] = x[i] * f[i / w]; }
}
extern "C" __global__ void gnn_dense_scale_rows_f64(double *y, const double *x, const double *f, long long n, long long w) {
	GNN_FOR(i, n * w) { y[i] = x[i] * f[i / w]; }
}

// gnn_dense_gather_cols: y[r,k] = x[r,idx[k]] over n rows, y's of m
// elements and x's of w (a broadcast: every wide element reads the narrow
// element it was broadcast from).
template <typename T> __device__ void gnn_gather_cols(T *y, const T *x, const int *idx, long long n, long long m, long long w) {
	GNN_FOR(i, n * m) { y[i] = x[(i / m) * w + idx[i % m]]; }
}
extern "C" __global__ void gnn_dense_gather_cols_f32(float *y, const float *x, const int *idx, long long n, long long m, long long w) {
	gnn_gather_cols<float>(y, x, idx, n, m, w);
}
extern "C" __global__ void gnn_dense_gather_cols_f64(double *y, const double *x, const int *idx, long long n, long long m, long long w) {
	gnn_gather_cols<double>(y, x, idx, n, m, w);
}

// gnn_dense_sum_cols: y[r,j] = the sum of x[r,idx[t]] for t = ptr[j], ...,
// ptr[j+1]-1, in that order from 0, over n rows, y's of m elements and x's
// of w (the sum of a broadcast's gradient back to the narrow shape).
template <typename T> __device__ void gnn_sum_cols(T *y, const T *x, const int *ptr, const int *idx, long long n, long long m, long long w) {
	GNN_FOR(i, n * m) {
		long long j = i % m;
		const T *row = x + (i / m) * w;
		T s = (T)0;
		for (int t = ptr[j]; t < ptr[j + 1]; t++) {
			s += row[idx[t]];
		}
		y[i] = s;
	}
}
extern "C" __global__ void gnn_dense_sum_cols_f32(float *y, const float *x, const int *ptr, const int *idx, long long n, long long m, long long w) {
	gnn_sum_cols<float>(y, x, ptr, idx, n, m, w);
}
extern "C" __global__ void gnn_dense_sum_cols_f64(double *y, const double *x, const int *ptr, const int *idx, long long n, long long m, long long w) {
	gnn_sum_cols<double>(y, x, ptr, idx, n, m, w);
}

// gnn_dense_activate: fn 0 is ReLU, max(x, 0); fn 1 is ELU, x for x > 0,
// else exp(x)-1 taken in double and rounded, as package nn does.
template <typename T> __device__ void gnn_activate(T *y, const T *x, long long len, int fn) {
	GNN_FOR(i, len) {
		T v = x[i];
		if (fn == 0) {
			y[i] = v > (T)0 ? v : (T)0;
		} else {
			y[i] = v > (T)0 ? v : (T)expm1((double)v);
		}
	}
}
extern "C" __global__ void gnn_dense_activate_f32(float *y, const float *x, long long len, int fn) {
	gnn_activate<float>(y, x, len, fn);
}
extern "C" __global__ void gnn_dense_activate_f64(double *y, const double *x, long long len, int fn) {
	gnn_activate<double>(y, x, len, fn);
}

// gnn_dense_activate_grad: dx = dy where at > 0; elsewhere 0 for ReLU (at
// is the output) and dy * exp(at) for ELU (at is the input).
template <typename T> __device__ void gnn_activate_grad(T *dx, const T *at, const T *dy, long long len, int fn) {
	GNN_FOR(i, len) {
		T v = at[i];
		if (v > (T)0) {
			dx[i] = dy[i];
		} else if (fn == 1) {
			dx[i] = dy[i] * (T)exp((double)v);
		} else {
			dx[i] = (T)0;
		}
	}
}
extern "C" __global__ void gnn_dense_activate_grad_f32(float *dx, const float *at, const float *dy, long long len, int fn) {
	gnn_activate_grad<float>(dx, at, dy, len, fn);
}
extern "C" __global__ void gnn_dense_activate_grad_f64(double *dx, const double *at, const double *dy, long long len, int fn) {
	gnn_activate_grad<double>(dx, at, dy, len, fn);
}

// gnn_mix is package nn's mix: SplitMix64's finaliser over the seed, the
// step and the index of a group of four elements.
__device__ __forceinline__ unsigned long long gnn_mix(unsigned long long seed, unsigned long long step, unsigned long long i) {
	unsigned long long z = seed * 0x9e3779b97f4a7c15ULL ^ step * 0xbf58476d1ce4e5b9ULL ^ (i + 1) * 0x94d049bb133111ebULL;
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ULL;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z;
}

// gnn_dense_dropout: package nn's dropout mask: group q of four elements
// draws one 64-bit value, whose 16-bit quarters keep (scaled by scale) or
// zero elements 4q..4q+3 against threshold; training 0 copies.
template <typename T>
__device__ void gnn_dropout(T *y, const T *x, long long len, unsigned long long threshold, double scale, unsigned long long seed, unsigned long long step, int training) {
	if (!training) {
		GNN_FOR(i, len) { y[i] = x[i]; }
		return;
	}
	T s = (T)scale;
	GNN_FOR(q, (len + 3) / 4) {
		unsigned long long h = gnn_mix(seed, step, (unsigned long long)q);
		for (long long i = 4 * q; i < 4 * q + 4 && i < len; i++) {
			y[i] = (h & 0xffff) >= threshold ? x[i] * s : (T)0;
			h >>= 16;
		}
	}
}
extern "C" __global__ void gnn_dense_dropout_f32(float *y, const float *x, long long len, unsigned long long threshold, double scale, unsigned long long seed, unsigned long long step, int training) {
	gnn_dropout<float>(y, x, len, threshold, scale, seed, step, training);
}
extern "C" __global__ void gnn_dense_dropout_f64(double *y, const double *x, long long len, unsigned long long threshold, double scale, unsigned long long seed, unsigned long long step, int training) {
	gnn_dropout<double>(y, x, len, threshold, scale, seed, step, training);
}

// gnn_row_softmax returns the maximum of row (c elements) and the sum of
// exp(row[k] - max), in double.
template <typename T> __device__ __forceinline__ double gnn_row_expsum(const T *row, long long c, T *mout) {
	T m = row[0];
	for (long long k = 1; k < c; k++) m = row[k] > m ? row[k] : m;
	double s = 0;
	for (long long k = 0; k < c; k++) s += exp((double)row[k] - (double)m);
	*mout = m;
	return s;
}

// gnn_dense_xent: terms[i] = (logits[v,label v] - max - log Σ exp) * inv for
// v = nodes[i], in double: package nn's cross-entropy terms.
template <typename T>
__device__ void gnn_xent(double *terms, const T *logits, const int *labels, const int *nodes, long long count, long long c, double inv) {
	GNN_FOR(i, count) {
		long long v = nodes[i];
		const T *row = logits + v * c;
		T m;
		double s = gnn_row_expsum<T>(row, c, &m);
		terms[i] = ((double)row[labels[v]] - (double)m - log(s)) * inv;
	}
}
extern "C" __global__ void gnn_dense_xent_f32(double *terms, const float *logits, const int *labels, const int *nodes, long long count, long long c, double inv) {
	gnn_xent<float>(terms, logits, labels, nodes, count, c, inv);
}
extern "C" __global__ void gnn_dense_xent_f64(double *terms, const double *logits, const int *labels, const int *nodes, long long count, long long c, double inv) {
	gnn_xent<double>(terms, logits, labels, nodes, count, c, inv);
}

// gnn_dense_xent_grad adds (softmax - onehot) * scale to row v of g for
// every listed node v. A node listed twice gets two additions: the
// launcher then runs one thread, which adds them in list order.
template <typename T>
__device__ void gnn_xent_grad(T *g, const T *logits, const int *labels, const int *nodes, long long count, long long c, double scale) {
	GNN_FOR(i, count) {
		long long v = nodes[i];
		const T *row = logits + v * c;
		T *gr = g + v * c;
		T m;
		double s = gnn_row_expsum<T>(row, c, &m);
		double r = scale / s;
		int label = labels[v];
		for (long long k = 0; k < c; k++) {
			double p = exp((double)row[k] - (double)m) * r;
			if (k == label) p -= scale;
			gr[k] += (T)p;
		}
	}
}
extern "C" __global__ void gnn_dense_xent_grad_f32(float *g, const float *logits, const int *labels, const int *nodes, long long count, long long c, double scale) {
	gnn_xent_grad<float>(g, logits, labels, nodes, count, c, scale);
}
extern "C" __global__ void gnn_dense_xent_grad_f64(double *g, const double *logits, const int *labels, const int *nodes, long long count, long long c, double scale) {
	gnn_xent_grad<double>(g, logits, labels, nodes, count, c, scale);
}

// gnn_dense_sum: partial[b] = the sum, in index order and in double, of
// x[b*chunk .. (b+1)*chunk); the host adds the partials in order.
extern "C" __global__ void gnn_dense_sum_f32(double *partial, const float *x, long long len, long long chunk) {
	GNN_FOR(b, (len + chunk - 1) / chunk) {
		double s = 0;
		for (long long i = b * chunk; i < (b + 1) * chunk && i < len; i++) s += (double)x[i];
		partial[b] = s;
	}
}
extern "C" __global__ void gnn_dense_sum_f64(double *partial, const double *x, long long len, long long chunk) {
	GNN_FOR(b, (len + chunk - 1) / chunk) {
		double s = 0;
		for (long long i = b * chunk; i < (b + 1) * chunk && i < len; i++) s += x[i];
		partial[b] = s;
	}
}

// gnn_dense_mean_heads: forward (grad 0) y[r,j] = Σk x[r,k*f+j] / h over
// the h heads; backward (grad 1) x[r,k*f+j] = y[r,j] / h.
template <typename T> __device__ void gnn_mean_heads(T *y, T *x, long long n, long long h, long long f, int grad) {
	if (grad) {
		GNN_FOR(i, n * h * f) { x[i] = y[(i / (h * f)) * f + i % f] / (T)h; }
		return;
	}
	GNN_FOR(i, n * f) {
		long long r = i / f, j = i % f;
		const T *row = x + r * h * f;
		T o = row[j];
		for (long long k = 1; k < h; k++) o += row[k * f + j];
		y[i] = o / (T)h;
	}
}
extern "C" __global__ void gnn_dense_mean_heads_f32(float *y, float *x, long long n, long long h, long long f, int grad) {
	gnn_mean_heads<float>(y, x, n, h, f, grad);
}
extern "C" __global__ void gnn_dense_mean_heads_f64(double *y, double *x, long long n, long long h, long long f, int grad) {
	gnn_mean_heads<double>(y, x, n, h, f, grad);
}

// gnn_dense_head_dot: attention head scores for z (n, h, f), a (h, f),
// s (n, h): mode 0 s = Σf z a from (p = z, q = a); mode 1 dz = ds a from
// (p = a, q = ds); mode 2 da = Σn ds z from (p = z, q = ds).
template <typename T>
__device__ void gnn_head_dot(T *out, const T *p, const T *q, long long n, long long h, long long f, int mode) {
	if (mode == 0) {
		GNN_FOR(i, n * h) {
			long long k = i % h;
			T s = p[i * f] * q[k * f];
			for (long long j = 1; j < f; j++) s += p[i * f + j] * q[k * f + j];
			out[i] = s;
		}
	} else if (mode == 1) {
		GNN_FOR(i, n * h * f) {
			long long nh = i / f, k = nh % h, j = i % f;
			out[i] = q[nh] * p[k * f + j];
		}
	} else {
		GNN_FOR(i, h * f) {
			long long k = i / f, j = i % f;
			T s = gnn_zero<T>();
			for (long long r = 0; r < n; r++) s += q[r * h + k] * p[(r * h + k) * f + j];
			out[i] = s;
		}
	}
}
// gnn_dense_head_dot_part: the first pass of mode 2 over blocks of rows
// rows (see gnn_dense_matmul_ta_part): part[b][k][j] = the sum, in row
// order, of q[r,k] p[r,k,j] over the rows r of block b; gnn_dense_sum_parts
// adds the blocks.
template <typename T>
__device__ void gnn_head_dot_part(T *part, const T *p, const T *q, long long n, long long h, long long f, long long rows) {
	long long hf = h * f, blocks = (n + rows - 1) / rows;
	GNN_FOR(idx, blocks * hf) {
		long long b = idx / hf, i = idx % hf, k = i / f, j = i % f;
		long long r0 = b * rows, r1 = r0 + rows < n ? r0 + rows : n;
		T s = gnn_zero<T>();
		for (long long r = r0; r < r1; r++) s += q[r * h + k] * p[(r * h + k) * f + j];
		part[idx] = s;
	}
}
extern "C" __global__ void gnn_dense_head_dot_part_f32(float *part, const float *p, const float *q, long long n, long long h, long long f, long long rows) {
	gnn_head_dot_part<float>(part, p, q, n, h, f, rows);
}
extern "C" __global__ void gnn_dense_head_dot_part_f64(double *part, const double *p, const double *q, long long n, long long h, long long f, long long rows) {
	gnn_head_dot_part<double>(part, p, q, n, h, f, rows);
}

// gnn_dense_transpose: y (c x r) = xᵀ for x (r x c).
template <typename T> __device__ void gnn_transpose(T *y, const T *x, long long r, long long c) {
	GNN_FOR(i, r * c) {
		long long row = i % r, col = i / r;
		y[i] = x[row * c + col];
	}
}
extern "C" __global__ void gnn_dense_transpose_f32(float *y, const float *x, long long r, long long c) {
	gnn_transpose<float>(y, x, r, c);
}
extern "C" __global__ void gnn_dense_transpose_f64(double *y, const double *x, long long r, long long c) {
	gnn_transpose<double>(y, x, r, c);
}

extern "C" __global__ void gnn_dense_head_dot_f32(float *out, const float *p, const float *q, long long n, long long h, long long f, int mode) {
	gnn_head_dot<float>(out, p, q, n, h, f, mode);
}
extern "C" __global__ void gnn_dense_head_dot_f64(double *out, const double *p, const double *q, long long n, long long h, long long f, int mode) {
	gnn_head_dot<double>(out, p, q, n, h, f, mode);
}

// gnn_dense_accuracy: correct[i] = 1 when the largest entry of row v =
// nodes[i] of logits (the first, on ties) is at labels[v], else 0: package
// nn's Accuracy, one node per thread.
template <typename T>
__device__ void gnn_accuracy(double *correct, const T *logits, const int *labels, const int *nodes, long long count, long long c) {
	GNN_FOR(i, count) {
		long long v = nodes[i];
		const T *row = logits + v * c;
		long long best = 0;
		for (long long k = 1; k < c; k++) {
			if (row[k] > row[best]) best = k;
		}
		correct[i] = best == labels[v] ? 1.0 : 0.0;
	}
}
extern "C" __global__ void gnn_dense_accuracy_f32(double *correct, const float *logits, const int *labels, const int *nodes, long long count, long long c) {
	gnn_accuracy<float>(correct, logits, labels, nodes, count, c);
}
extern "C" __global__ void gnn_dense_accuracy_f64(double *correct, const double *logits, const int *labels, const int *nodes, long long count, long long c) {
	gnn_accuracy<double>(correct, logits, labels, nodes, count, c);
}

// gnn_dense_adam: one step of Gorgonia's AdamSolver on n parameters w with
// gradient g and moments m, v, in its order of operations: g' = g + l2 w
// (when useL2), m = m b1 + g' (1-b1), v = v b2 + g'² (1-b2), w += (m c1
// (-eta)) / (sqrt(v c2) + eps). The hyper-parameters arrive as the values
// of T the solver uses, widened to double. g is left as it was.
template <typename T>
__device__ void gnn_adam(T *w, const T *g, T *m, T *v, long long n, int useL2, double l2, double omb1, double omb2, double b1, double b2, double c1, double c2, double negEta, double eps) {
	GNN_FOR(i, n) {
		T gi = g[i];
		if (useL2) gi += w[i] * (T)l2;
		T t1 = gi * (T)omb1;
		T g2 = gi * gi;
		g2 = g2 * (T)omb2;
		T mi = t1 + m[i] * (T)b1;
		T vi = g2 + v[i] * (T)b2;
		m[i] = mi;
		v[i] = vi;
		T mh = mi * (T)c1;
		T vh = vi * (T)c2;
		vh = (T)sqrt((double)vh);
		vh = vh + (T)eps;
		mh = mh * (T)negEta;
		mh = mh / vh;
		w[i] = w[i] + mh;
	}
}
extern "C" __global__ void gnn_dense_adam_f32(float *w, const float *g, float *m, float *v, long long n, int useL2, double l2, double omb1, double omb2, double b1, double b2, double c1, double c2, double negEta, double eps) {
	gnn_adam<float>(w, g, m, v, n, useL2, l2, omb1, omb2, b1, b2, c1, c2, negEta, eps);
}
extern "C" __global__ void gnn_dense_adam_f64(double *w, const double *g, double *m, double *v, long long n, int useL2, double l2, double omb1, double omb2, double b1, double b2, double c1, double c2, double negEta, double eps) {
	gnn_adam<double>(w, g, m, v, n, useL2, l2, omb1, omb2, b1, b2, c1, c2, negEta, eps);
}
