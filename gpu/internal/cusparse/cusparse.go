//go:build gnncuda

package cusparse

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// Libraries are the cuSPARSE sonames Load tries, in order.
var Libraries = []string{"libcusparse.so.12", "libcusparse.so.13", "libcusparse.so.11"}

// library is the cuSPARSE library of the process, opened by Load.
var library = cuda.NewLibrary("cuSPARSE", Libraries, func(name string) string {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if msg := C.gnn_sp_load(cname); msg != nil {
		return C.GoString(msg)
	}
	return ""
})

// Load opens the first cuSPARSE library of Libraries that has the
// functions SpMM needs, once per process, and returns its name.
func Load() (string, error) {
	name, err := library.Load()
	if err != nil {
		return "", fmt.Errorf("cusparse: %w", err)
	}
	return name, nil
}

// Handle is a cuSPARSE handle on one device context, with a workspace that
// grows on demand. It is not safe for concurrent use.
type Handle struct {
	c       *cuda.Context
	h       C.uintptr_t
	buf     cuda.Ptr
	bufSize int
}

// New returns a handle on the GPU of c; it returns an error for the
// emulator (cuSPARSE needs a GPU) or when no cuSPARSE library loads.
func New(c *cuda.Context) (*Handle, error) {
	if c.Emulated() {
		return nil, fmt.Errorf("cusparse: the emulator has no cuSPARSE")
	}
	if _, err := Load(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.SetCurrent(); err != nil {
		return nil, err
	}
	h := &Handle{c: c}
	if s := C.gnn_sp_create(&h.h); s != 0 {
		return nil, fmt.Errorf("cusparse: cusparseCreate: %s", C.GoString(C.gnn_sp_error(s)))
	}
	return h, nil
}

// Close releases the handle and its workspace.
func (h *Handle) Close() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := h.c.SetCurrent(); err != nil {
		return err
	}
	C.gnn_sp_destroy(h.h)
	return h.c.Free(h.buf)
}

// Alg is a cuSPARSE SpMM algorithm (cusparseSpMMAlg_t).
type Alg int

// The CSR algorithms of cusparse.h.
const (
	AlgDefault Alg = 0
	CSRAlg1    Alg = 4
	CSRAlg2    Alg = 6
	CSRAlg3    Alg = 12
)

// SpMM computes out = A·x with cusparseSpMM, where A is the rows × cols
// CSR matrix of nnz entries given by int32 row pointers ptr, column
// indices idx and values vals, x is cols × f and out rows × f, both
// row-major, all of float32 (single) or float64. For copy_u + sum over a
// graph, A is the in-edge view (rows destinations, columns sources) with
// values 1.
func (h *Handle) SpMM(single bool, rows, cols, nnz int, ptr, idx, vals, x, out cuda.Ptr, f int, alg Alg) error {
	dtype := C.int(1) // CUDA_R_64F
	var a32, b32 [1]float32
	var a64, b64 [1]float64
	a32[0], a64[0] = 1, 1
	alpha, beta := unsafe.Pointer(&a64[0]), unsafe.Pointer(&b64[0])
	if single {
		dtype = 0 // CUDA_R_32F
		alpha, beta = unsafe.Pointer(&a32[0]), unsafe.Pointer(&b32[0])
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := h.c.SetCurrent(); err != nil {
		return err
	}
	for range 2 {
		var need C.size_t
		s := C.gnn_sp_spmm(h.h, C.int64_t(rows), C.int64_t(cols), C.int64_t(nnz), C.uint64_t(ptr), C.uint64_t(idx), C.uint64_t(vals),
			C.uint64_t(x), C.uint64_t(out), C.int64_t(f), dtype, C.int(alg), alpha, beta, C.uint64_t(h.buf), C.size_t(h.bufSize), &need)
		if s != 0 {
			return fmt.Errorf("cusparse: SpMM of %d x %d (%d entries) by %d columns: %s", rows, cols, nnz, f, C.GoString(C.gnn_sp_error(s)))
		}
		if int(need) <= h.bufSize {
			return nil
		}
		if err := h.c.Free(h.buf); err != nil {
			return err
		}
		h.buf, h.bufSize = 0, 0
		p, err := h.c.Alloc(int(need))
		if err != nil {
			return err
		}
		h.buf, h.bufSize = p, int(need)
		if err := h.c.SetCurrent(); err != nil {
			return err
		}
	}
	return fmt.Errorf("cusparse: SpMM workspace kept growing")
}
