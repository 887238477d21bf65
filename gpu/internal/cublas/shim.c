//go:build gnncuda

// The C shim of package cublas: the few cuBLAS functions MatMul needs,
// loaded with dlopen. The handle is an opaque pointer, cublasStatus_t,
// cublasOperation_t and cublasMath_t are ints, as in cublas_api.h.

#include "shim.h"

#include <dlfcn.h>
#include <string.h>

static void *lib;
static int (*p_create)(void **);
static int (*p_destroy)(void *);
static int (*p_setMathMode)(void *, int);
static int (*p_sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
		      const float *, float *, int);
static int (*p_dgemm)(void *, int, int, int, int, int, const double *, const double *, int, const double *, int,
		      const double *, double *, int);
static const char *(*p_statusString)(int);
static char loadErr[512];

#define SYM(var, name)                                                                  \
	do {                                                                            \
		*(void **)(&var) = dlsym(lib, name);                                    \
		if (!var) {                                                             \
			strcpy(loadErr, "the cuBLAS library lacks " name);              \
			dlclose(lib);                                                   \
			lib = NULL;                                                     \
			return loadErr;                                                 \
		}                                                                       \
	} while (0)

const char *gnn_bl_load(const char *name) {
	lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		strncpy(loadErr, e ? e : "dlopen failed", sizeof loadErr - 1);
		return loadErr;
	}
	SYM(p_create, "cublasCreate_v2");
	SYM(p_destroy, "cublasDestroy_v2");
	SYM(p_setMathMode, "cublasSetMathMode");
	SYM(p_sgemm, "cublasSgemm_v2");
	SYM(p_dgemm, "cublasDgemm_v2");
	// cublasGetStatusString is in cuBLAS 11.4.2 and later; without it
	// errors give the numeric status.
	*(void **)(&p_statusString) = dlsym(lib, "cublasGetStatusString");
	return NULL;
}

int gnn_bl_create(uintptr_t *h) { return p_create((void **)h); }

int gnn_bl_destroy(uintptr_t h) { return p_destroy((void *)h); }

int gnn_bl_set_math_mode(uintptr_t h, int mode) { return p_setMathMode((void *)h, mode); }

const char *gnn_bl_status(int s) { return p_statusString ? p_statusString(s) : NULL; }

int gnn_bl_gemm(uintptr_t h, int single, int ta, int tb, int m, int n, int k, uint64_t a, int lda, uint64_t b, int ldb,
		uint64_t c, int ldc) {
	if (single) {
		const float one = 1, zero = 0;
		return p_sgemm((void *)h, ta, tb, m, n, k, &one, (const float *)a, lda, (const float *)b, ldb, &zero,
			       (float *)c, ldc);
	}
	const double one = 1, zero = 0;
	return p_dgemm((void *)h, ta, tb, m, n, k, &one, (const double *)a, lda, (const double *)b, ldb, &zero,
		       (double *)c, ldc);
}
