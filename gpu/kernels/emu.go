//go:build gnncuda

package kernels

/*
#cgo CXXFLAGS: -O2 -std=c++17
#include <stdint.h>
#include "emu_table.h"

static const char *gnn_emu_name(int i) { return gnn_emu_table[i].name; }
static uintptr_t gnn_emu_func(int i) { return (uintptr_t)gnn_emu_table[i].fn; }
static int gnn_emu_size(int i, int j) { return gnn_emu_table[i].sizes[j]; }

// gnn_emu_launch points params[i] at buf+offs[i], as cuLaunchKernel's
// kernelParams, and runs the kernel's grid.
static void gnn_emu_launch(uintptr_t fn, const unsigned *grid, const unsigned *block, char *buf, const int *offs, int n) {
	void *params[64];
	for (int i = 0; i < n && i < 64; i++) {
		params[i] = buf + offs[i];
	}
	((gnn_emu_fn)fn)(params, grid, block);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// MaxParams is the largest number of parameters a kernel may take.
const MaxParams = 64

// Kernel is a kernel of the .cu files as the emulator compiled it.
type Kernel struct {
	Fn     uintptr // opaque function for EmuLaunch
	Params []int   // sizeof each parameter, in bytes, as g++ laid it out
}

// EmuKernels returns every kernel of every .cu file, compiled for the host,
// by name. The parameter sizes are those of the C types, which nvcc lays
// out alike for the GPU: the driver layer checks launches against them on
// both backends.
func EmuKernels() map[string]Kernel {
	ks := map[string]Kernel{}
	for i := 0; ; i++ {
		name := C.gnn_emu_name(C.int(i))
		if name == nil {
			return ks
		}
		k := Kernel{Fn: uintptr(C.gnn_emu_func(C.int(i)))}
		for j := 0; ; j++ {
			s := int(C.gnn_emu_size(C.int(i), C.int(j)))
			if s < 0 {
				break
			}
			k.Params = append(k.Params, s)
		}
		ks[C.GoString(name)] = k
	}
}

// EmuLaunch runs an emulated kernel over a grid of grid blocks of block
// threads, serially, on the calling thread. buf holds the parameter values
// and offs[i] is where parameter i starts in buf; neither may hold Go
// pointers. The kernel runs in C: the memory it touches must be readable
// and writable when EmuLaunch is called.
func EmuLaunch(fn uintptr, grid, block [3]uint32, buf []byte, offs []int32) error {
	if len(offs) > MaxParams {
		return fmt.Errorf("kernels: %d parameters, at most %d", len(offs), MaxParams)
	}
	g := [3]C.uint{C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2])}
	b := [3]C.uint{C.uint(block[0]), C.uint(block[1]), C.uint(block[2])}
	var bp *C.char
	if len(buf) > 0 {
		bp = (*C.char)(unsafe.Pointer(&buf[0]))
	}
	var op *C.int
	if len(offs) > 0 {
		op = (*C.int)(unsafe.Pointer(&offs[0]))
	}
	C.gnn_emu_launch(C.uintptr_t(fn), &g[0], &b[0], bp, op, C.int(len(offs)))
	return nil
}
