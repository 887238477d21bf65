// smoke.cu: the smallest kernels, used by the driver layer's own tests and
// by device-to-device benchmarks.
#include "common.h"

// gnn_smoke_axpy sets y[i] = a*x[i] + y[i] for i < n.
extern "C" __global__ void gnn_smoke_axpy(float *y, const float *x, float a, long long n) {
	GNN_FOR(i, n) { y[i] = a * x[i] + y[i]; }
}

// gnn_smoke_iota sets y[i] = start + i for i < n, in float64.
extern "C" __global__ void gnn_smoke_iota(double *y, double start, int n) {
	GNN_FOR(i, n) { y[i] = start + (double)i; }
}

// gnn_copy_u32 copies n 32-bit words from x to y: the kernel-side copy of
// the bandwidth benchmark.
extern "C" __global__ void gnn_copy_u32(unsigned *y, const unsigned *x, long long n) {
	GNN_FOR(i, n) { y[i] = x[i]; }
}
