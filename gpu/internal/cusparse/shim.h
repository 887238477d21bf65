// shim.h declares the C shim of package cusparse (shim.c).
#pragma once

#include <stddef.h>
#include <stdint.h>

const char *gnn_sp_load(const char *name);
int gnn_sp_create(uintptr_t *h);
int gnn_sp_destroy(uintptr_t h);
const char *gnn_sp_error(int status);

// gnn_sp_spmm computes C = alpha * A * B + beta * C for the CSR matrix A
// (rows x cols, nnz entries, int32 indices) and row-major B (cols x f) and
// C (rows x f). It first asks for the workspace size into *need, and runs
// only when bufSize covers it.
int gnn_sp_spmm(uintptr_t h, int64_t rows, int64_t cols, int64_t nnz, uint64_t ptr, uint64_t idx, uint64_t vals,
		uint64_t b, uint64_t c, int64_t f, int dtype, int alg, const void *alpha, const void *beta,
		uint64_t buf, size_t bufSize, size_t *need);
