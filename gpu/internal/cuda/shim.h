// shim.h declares the C shim between package cuda and the CUDA driver,
// which the shim loads at run time with dlopen: no CUDA header or library
// is needed to build it. Driver handles cross into Go as uintptr_t.
#pragma once

#include <stddef.h>
#include <stdint.h>

// gnn_cu_load dlopens libcuda.so.1 and resolves the driver entry points;
// it returns NULL on success and a message otherwise.
const char *gnn_cu_load(void);

int gnn_cu_init(void);
int gnn_cu_device_count(int *n);
int gnn_cu_device(int ordinal, int *dev, char *name, int namelen, int *major, int *minor, int *sms);
int gnn_cu_ctx_retain(int dev, uintptr_t *ctx);
int gnn_cu_ctx_release(int dev);
int gnn_cu_module_load(uintptr_t ctx, const char *ptx, uintptr_t *mod, char *log, int loglen);
int gnn_cu_module_unload(uintptr_t ctx, uintptr_t mod);
int gnn_cu_function(uintptr_t ctx, uintptr_t mod, const char *name, uintptr_t *fn);
int gnn_cu_alloc(uintptr_t ctx, size_t n, uint64_t *p);
int gnn_cu_free(uintptr_t ctx, uint64_t p);
int gnn_cu_htod(uintptr_t ctx, uint64_t dst, const void *src, size_t n);
int gnn_cu_dtoh(uintptr_t ctx, void *dst, uint64_t src, size_t n);
int gnn_cu_dtod(uintptr_t ctx, uint64_t dst, uint64_t src, size_t n);
int gnn_cu_memset(uintptr_t ctx, uint64_t dst, size_t n);
int gnn_cu_launch(uintptr_t ctx, uintptr_t fn, const unsigned *grid, const unsigned *block, char *buf, const int *offs, int n);
int gnn_cu_sync(uintptr_t ctx);
int gnn_cu_set_current(uintptr_t ctx);
int gnn_cu_mem_info(uintptr_t ctx, size_t *free, size_t *total);
void gnn_cu_error(int code, const char **name, const char **desc);

// Symbols of other libraries (cuSPARSE), resolved by the same mechanism.
void *gnn_dl_open(const char *lib, const char **err);
void *gnn_dl_sym(void *lib, const char *name);

// The emulator's memory: one shared memory object mapped twice, PROT_NONE
// at the addresses handed out as device pointers and read-write at an
// alias that only copies and kernels use.
uintptr_t gnn_emu_reserve(size_t n, uintptr_t *alias);
void gnn_emu_release(uintptr_t base, uintptr_t alias, size_t n);
void gnn_emu_h2d(uintptr_t dst, const void *src, size_t n);
void gnn_emu_d2h(void *dst, uintptr_t src, size_t n);
void gnn_emu_copy(uintptr_t dst, uintptr_t src, size_t n);
void gnn_emu_zero(uintptr_t dst, size_t n);
