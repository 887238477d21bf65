// emu_table.h declares the emulator's kernel table, generated into
// emu_table_gen.cc: every kernel of every .cu file, by name, with the
// trampoline that runs its grid on the host, and its parameters' sizes.
#pragma once

typedef void (*gnn_emu_fn)(void **params, const unsigned *grid, const unsigned *block);

typedef struct gnn_emu_entry {
	const char *name;
	gnn_emu_fn fn;
	const int *sizes; // sizeof each parameter, then -1
} gnn_emu_entry;

#ifdef __cplusplus
extern "C" const gnn_emu_entry gnn_emu_table[];
#else
extern const gnn_emu_entry gnn_emu_table[];
#endif
