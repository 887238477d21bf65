//go:build gnncuda

// The C shim of package cusparse: the few cuSPARSE generic-API functions
// SpMM needs, loaded with dlopen. Handles and descriptors are opaque
// pointers, enums ints and cudaDataType an int, as in cusparse.h.

#include "shim.h"

#include <dlfcn.h>
#include <string.h>

static void *lib;
static int (*p_create)(void **);
static int (*p_destroy)(void *);
static int (*p_createCsr)(void **, int64_t, int64_t, int64_t, void *, void *, void *, int, int, int, int);
static int (*p_createDnMat)(void **, int64_t, int64_t, int64_t, void *, int, int);
static int (*p_destroySpMat)(void *);
static int (*p_destroyDnMat)(void *);
static int (*p_spmmBufferSize)(void *, int, int, const void *, void *, void *, const void *, void *, int, int, size_t *);
static int (*p_spmm)(void *, int, int, const void *, void *, void *, const void *, void *, int, int, void *);
static const char *(*p_errorString)(int);
static char loadErr[512];

#define SYM(var, name)                                                                  \
	do {                                                                            \
		*(void **)(&var) = dlsym(lib, name);                                    \
		if (!var) {                                                             \
			strcpy(loadErr, "the cuSPARSE library lacks " name);            \
			return loadErr;                                                 \
		}                                                                       \
	} while (0)

const char *gnn_sp_load(const char *name) {
	lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		strncpy(loadErr, e ? e : "dlopen failed", sizeof loadErr - 1);
		return loadErr;
	}
	SYM(p_create, "cusparseCreate");
	SYM(p_destroy, "cusparseDestroy");
	SYM(p_createCsr, "cusparseCreateCsr");
	SYM(p_createDnMat, "cusparseCreateDnMat");
	SYM(p_destroySpMat, "cusparseDestroySpMat");
	SYM(p_destroyDnMat, "cusparseDestroyDnMat");
	SYM(p_spmmBufferSize, "cusparseSpMM_bufferSize");
	SYM(p_spmm, "cusparseSpMM");
	SYM(p_errorString, "cusparseGetErrorString");
	return NULL;
}

int gnn_sp_create(uintptr_t *h) { return p_create((void **)h); }

int gnn_sp_destroy(uintptr_t h) { return p_destroy((void *)h); }

const char *gnn_sp_error(int s) { return p_errorString ? p_errorString(s) : "unknown cuSPARSE status"; }

// Enum values of cusparse.h and library_types.h.
enum {
	OP_NON_TRANSPOSE = 0,
	INDEX_32I = 2,
	INDEX_BASE_ZERO = 0,
	ORDER_ROW = 2,
};

int gnn_sp_spmm(uintptr_t h, int64_t rows, int64_t cols, int64_t nnz, uint64_t ptr, uint64_t idx, uint64_t vals,
		uint64_t b, uint64_t c, int64_t f, int dtype, int alg, const void *alpha, const void *beta,
		uint64_t buf, size_t bufSize, size_t *need) {
	void *a = NULL, *mb = NULL, *mc = NULL;
	int s = p_createCsr(&a, rows, cols, nnz, (void *)ptr, (void *)idx, (void *)vals, INDEX_32I, INDEX_32I,
			    INDEX_BASE_ZERO, dtype);
	if (s == 0) s = p_createDnMat(&mb, cols, f, f, (void *)b, dtype, ORDER_ROW);
	if (s == 0) s = p_createDnMat(&mc, rows, f, f, (void *)c, dtype, ORDER_ROW);
	if (s == 0)
		s = p_spmmBufferSize((void *)h, OP_NON_TRANSPOSE, OP_NON_TRANSPOSE, alpha, a, mb, beta, mc, dtype, alg,
				     need);
	if (s == 0 && *need <= bufSize)
		s = p_spmm((void *)h, OP_NON_TRANSPOSE, OP_NON_TRANSPOSE, alpha, a, mb, beta, mc, dtype, alg, (void *)buf);
	if (mc) p_destroyDnMat(mc);
	if (mb) p_destroyDnMat(mb);
	if (a) p_destroySpMat(a);
	return s;
}
