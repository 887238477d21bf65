// shim.h declares the C shim of package cublas (shim.c).
#pragma once

#include <stdint.h>

const char *gnn_bl_load(const char *name);
int gnn_bl_create(uintptr_t *h);
int gnn_bl_destroy(uintptr_t h);
int gnn_bl_set_math_mode(uintptr_t h, int mode);
const char *gnn_bl_status(int status);

// gnn_bl_gemm computes C = A·B with cublasSgemm_v2 (single != 0) or
// cublasDgemm_v2: column-major, op flags ta and tb (0 N, 1 T), alpha 1 and
// beta 0 passed as host pointers.
int gnn_bl_gemm(uintptr_t h, int single, int ta, int tb, int m, int n, int k, uint64_t a, int lda, uint64_t b, int ldb,
		uint64_t c, int ldc);
