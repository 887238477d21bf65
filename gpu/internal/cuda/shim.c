//go:build gnncuda

#define _GNU_SOURCE

// The C shim of package cuda: the CUDA driver API, loaded with dlopen, and
// the emulator's protected arena. See shim.h.

#include "shim.h"

#include <dlfcn.h>
#include <unistd.h>
#include <string.h>
#include <sys/mman.h>

typedef int CUresult;
typedef int CUdevice;
typedef uintptr_t CUcontext;
typedef uintptr_t CUmodule;
typedef uintptr_t CUfunction;
typedef uintptr_t CUstream;
typedef unsigned long long CUdeviceptr;

// Attribute and JIT option numbers of cuda.h (stable across releases).
enum {
	ATTR_MULTIPROCESSOR_COUNT = 16,
	ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
	ATTR_COMPUTE_CAPABILITY_MINOR = 76,
	JIT_ERROR_LOG_BUFFER = 5,
	JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

static void *libcuda;
static CUresult (*p_cuInit)(unsigned);
static CUresult (*p_cuDeviceGetCount)(int *);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*p_cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*p_cuDevicePrimaryCtxRelease)(CUdevice);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);
static CUresult (*p_cuCtxSynchronize)(void);
static CUresult (*p_cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
static CUresult (*p_cuModuleUnload)(CUmodule);
static CUresult (*p_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*p_cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*p_cuMemFree)(CUdeviceptr);
static CUresult (*p_cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*p_cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*p_cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
static CUresult (*p_cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
static CUresult (*p_cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				    unsigned, CUstream, void **, void **);
static CUresult (*p_cuMemGetInfo)(size_t *, size_t *);
static CUresult (*p_cuGetErrorName)(CUresult, const char **);
static CUresult (*p_cuGetErrorString)(CUresult, const char **);

static char loadErr[512];

#define SYM(var, name)                                                                   \
	do {                                                                             \
		*(void **)(&var) = dlsym(libcuda, name);                                 \
		if (!var) {                                                              \
			strcpy(loadErr, "libcuda.so.1 lacks the driver function " name); \
			return loadErr;                                                  \
		}                                                                        \
	} while (0)

const char *gnn_cu_load(void) {
	libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!libcuda) {
		const char *e = dlerror();
		strncpy(loadErr, e ? e : "dlopen(libcuda.so.1) failed", sizeof loadErr - 1);
		return loadErr;
	}
	SYM(p_cuInit, "cuInit");
	SYM(p_cuDeviceGetCount, "cuDeviceGetCount");
	SYM(p_cuDeviceGet, "cuDeviceGet");
	SYM(p_cuDeviceGetName, "cuDeviceGetName");
	SYM(p_cuDeviceGetAttribute, "cuDeviceGetAttribute");
	SYM(p_cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	SYM(p_cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	SYM(p_cuCtxSetCurrent, "cuCtxSetCurrent");
	SYM(p_cuCtxSynchronize, "cuCtxSynchronize");
	SYM(p_cuModuleLoadDataEx, "cuModuleLoadDataEx");
	SYM(p_cuModuleUnload, "cuModuleUnload");
	SYM(p_cuModuleGetFunction, "cuModuleGetFunction");
	SYM(p_cuMemAlloc, "cuMemAlloc_v2");
	SYM(p_cuMemFree, "cuMemFree_v2");
	SYM(p_cuMemcpyHtoD, "cuMemcpyHtoD_v2");
	SYM(p_cuMemcpyDtoH, "cuMemcpyDtoH_v2");
	SYM(p_cuMemcpyDtoD, "cuMemcpyDtoD_v2");
	SYM(p_cuMemsetD8, "cuMemsetD8_v2");
	SYM(p_cuLaunchKernel, "cuLaunchKernel");
	SYM(p_cuMemGetInfo, "cuMemGetInfo_v2");
	SYM(p_cuGetErrorName, "cuGetErrorName");
	SYM(p_cuGetErrorString, "cuGetErrorString");
	return NULL;
}

int gnn_cu_init(void) { return p_cuInit(0); }

int gnn_cu_device_count(int *n) { return p_cuDeviceGetCount(n); }

int gnn_cu_device(int ordinal, int *dev, char *name, int namelen, int *major, int *minor, int *sms) {
	CUresult r = p_cuDeviceGet(dev, ordinal);
	if (r == 0) r = p_cuDeviceGetName(name, namelen, *dev);
	if (r == 0) r = p_cuDeviceGetAttribute(major, ATTR_COMPUTE_CAPABILITY_MAJOR, *dev);
	if (r == 0) r = p_cuDeviceGetAttribute(minor, ATTR_COMPUTE_CAPABILITY_MINOR, *dev);
	if (r == 0) r = p_cuDeviceGetAttribute(sms, ATTR_MULTIPROCESSOR_COUNT, *dev);
	return r;
}

int gnn_cu_ctx_retain(int dev, uintptr_t *ctx) { return p_cuDevicePrimaryCtxRetain(ctx, dev); }

int gnn_cu_ctx_release(int dev) { return p_cuDevicePrimaryCtxRelease(dev); }

// Every call that works in a context makes it current on the calling
// thread first: Go moves goroutines between threads.
#define CURRENT(ctx)                              \
	do {                                      \
		CUresult r0 = p_cuCtxSetCurrent(ctx); \
		if (r0) return r0;                \
	} while (0)

int gnn_cu_module_load(uintptr_t ctx, const char *ptx, uintptr_t *mod, char *log, int loglen) {
	CURRENT(ctx);
	int opts[2] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *vals[2] = {log, (void *)(uintptr_t)loglen};
	log[0] = 0;
	return p_cuModuleLoadDataEx(mod, ptx, 2, opts, vals);
}

int gnn_cu_module_unload(uintptr_t ctx, uintptr_t mod) {
	CURRENT(ctx);
	return p_cuModuleUnload(mod);
}

int gnn_cu_function(uintptr_t ctx, uintptr_t mod, const char *name, uintptr_t *fn) {
	CURRENT(ctx);
	return p_cuModuleGetFunction(fn, mod, name);
}

int gnn_cu_alloc(uintptr_t ctx, size_t n, uint64_t *p) {
	CURRENT(ctx);
	CUdeviceptr d = 0;
	CUresult r = p_cuMemAlloc(&d, n);
	*p = d;
	return r;
}

int gnn_cu_free(uintptr_t ctx, uint64_t p) {
	CURRENT(ctx);
	return p_cuMemFree(p);
}

int gnn_cu_htod(uintptr_t ctx, uint64_t dst, const void *src, size_t n) {
	CURRENT(ctx);
	return p_cuMemcpyHtoD(dst, src, n);
}

int gnn_cu_dtoh(uintptr_t ctx, void *dst, uint64_t src, size_t n) {
	CURRENT(ctx);
	return p_cuMemcpyDtoH(dst, src, n);
}

int gnn_cu_dtod(uintptr_t ctx, uint64_t dst, uint64_t src, size_t n) {
	CURRENT(ctx);
	return p_cuMemcpyDtoD(dst, src, n);
}

int gnn_cu_memset(uintptr_t ctx, uint64_t dst, size_t n) {
	CURRENT(ctx);
	return p_cuMemsetD8(dst, 0, n);
}

int gnn_cu_launch(uintptr_t ctx, uintptr_t fn, const unsigned *g, const unsigned *b, char *buf, const int *offs, int n) {
	CURRENT(ctx);
	void *params[64];
	for (int i = 0; i < n && i < 64; i++) params[i] = buf + offs[i];
	return p_cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], 0, 0, params, NULL);
}

int gnn_cu_sync(uintptr_t ctx) {
	CURRENT(ctx);
	return p_cuCtxSynchronize();
}

int gnn_cu_mem_info(uintptr_t ctx, size_t *free, size_t *total) {
	CURRENT(ctx);
	return p_cuMemGetInfo(free, total);
}

void gnn_cu_error(int code, const char **name, const char **desc) {
	*name = NULL;
	*desc = NULL;
	if (p_cuGetErrorName) p_cuGetErrorName(code, name);
	if (p_cuGetErrorString) p_cuGetErrorString(code, desc);
}

void *gnn_dl_open(const char *lib, const char **err) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	*err = h ? NULL : dlerror();
	return h;
}

void *gnn_dl_sym(void *lib, const char *name) { return dlsym(lib, name); }

uintptr_t gnn_emu_reserve(size_t n, uintptr_t *alias) {
	int fd = memfd_create("gnn-emulator", MFD_CLOEXEC);
	if (fd < 0) return 0;
	if (ftruncate(fd, (off_t)n) != 0) {
		close(fd);
		return 0;
	}
	void *view = mmap(NULL, n, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	void *rw = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	close(fd);
	if (view == MAP_FAILED || rw == MAP_FAILED) {
		if (view != MAP_FAILED) munmap(view, n);
		if (rw != MAP_FAILED) munmap(rw, n);
		return 0;
	}
	*alias = (uintptr_t)rw;
	return (uintptr_t)view;
}

void gnn_emu_release(uintptr_t base, uintptr_t alias, size_t n) {
	munmap((void *)base, n);
	munmap((void *)alias, n);
}

// Copies take host addresses: the alias of device memory, or Go memory.

void gnn_emu_h2d(uintptr_t dst, const void *src, size_t n) { memcpy((void *)dst, src, n); }

void gnn_emu_d2h(void *dst, uintptr_t src, size_t n) { memcpy(dst, (const void *)src, n); }

void gnn_emu_copy(uintptr_t dst, uintptr_t src, size_t n) { memmove((void *)dst, (const void *)src, n); }

void gnn_emu_zero(uintptr_t dst, size_t n) { memset((void *)dst, 0, n); }

int gnn_cu_set_current(uintptr_t ctx) { return p_cuCtxSetCurrent(ctx); }
