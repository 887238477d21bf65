//go:build gnncuda

package cublas

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// Libraries are the cuBLAS sonames Load tries, in order.
var Libraries = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}

// library is the cuBLAS library of the process, opened by Load.
var library = cuda.NewLibrary("cuBLAS", Libraries, func(name string) string {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if msg := C.gnn_bl_load(cname); msg != nil {
		return C.GoString(msg)
	}
	return ""
})

// Load opens the first cuBLAS library of Libraries that has the functions
// MatMul needs, once per process, and returns its name; its error names
// why each one failed.
func Load() (string, error) {
	name, err := library.Load()
	if err != nil {
		return "", fmt.Errorf("cublas: %w", err)
	}
	return name, nil
}

// The values of cublas_api.h's enums that the package passes.
const (
	opN          = 0 // CUBLAS_OP_N
	opT          = 1 // CUBLAS_OP_T
	defaultMath  = 0 // CUBLAS_DEFAULT_MATH
	pedanticMath = 2 // CUBLAS_PEDANTIC_MATH: no TF32, no reduced precision
)

// status describes a cublasStatus_t, by name where the library has
// cublasGetStatusString.
func status(s C.int) string {
	if msg := C.gnn_bl_status(s); msg != nil {
		return fmt.Sprintf("%s (%d)", C.GoString(msg), int(s))
	}
	return fmt.Sprintf("cuBLAS status %d", int(s))
}

// Handle is a cuBLAS handle on one device context, in pedantic math mode
// (products in the precision of their operands: no TF32) and on the
// default stream, the one gnn's kernels run on, so that products are
// ordered with them. Its methods are safe for concurrent use.
type Handle struct {
	c      *cuda.Context
	lib    string
	mu     sync.Mutex
	h      C.uintptr_t
	closed bool
}

// New returns a handle on the GPU of c; it returns an error for the
// emulator (cuBLAS needs a GPU), when no cuBLAS library loads, or when
// cuBLAS cannot create the handle.
func New(c *cuda.Context) (*Handle, error) {
	if c.Emulated() {
		return nil, fmt.Errorf("cublas: the emulator has no cuBLAS")
	}
	lib, err := Load()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.SetCurrent(); err != nil {
		return nil, err
	}
	var hh C.uintptr_t
	if s := C.gnn_bl_create(&hh); s != 0 {
		return nil, fmt.Errorf("cublas: cublasCreate_v2 (%s): %s", lib, status(s))
	}
	h := &Handle{c: c, lib: lib, h: hh}
	if err := h.setMathMode(pedanticMath); err != nil {
		C.gnn_bl_destroy(hh)
		return nil, err
	}
	return h, nil
}

// setMathMode sets the handle's cublasMath_t; the caller has the context
// current on its locked thread.
func (h *Handle) setMathMode(mode int) error {
	if s := C.gnn_bl_set_math_mode(h.h, C.int(mode)); s != 0 {
		return fmt.Errorf("cublas: cublasSetMathMode(%d) (%s): %s", mode, h.lib, status(s))
	}
	return nil
}

// Library returns the soname of the cuBLAS library the handle uses.
func (h *Handle) Library() string { return h.lib }

// Close destroys the handle; later calls return an error. Close it
// before its context.
func (h *Handle) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := h.c.SetCurrent(); err != nil {
		return err
	}
	if s := C.gnn_bl_destroy(h.h); s != 0 {
		return fmt.Errorf("cublas: cublasDestroy_v2: %s", status(s))
	}
	return nil
}

// The MatMul modes, with the numbers of package dense's.
const (
	product = 0 // c (n x m) = a (n x k) b (k x m)
	transB  = 1 // c (n x k) = a (n x m) b (k x m)ᵀ
	transA  = 2 // c (k x m) = a (n x k)ᵀ b (n x m)
)

var modeNames = [...]string{"product", "trans_b", "trans_a"}

// gemm is the column-major cuBLAS call that computes one row-major
// product: C = op(X)·op(Y) with X the product's b and Y its a (in that
// order: see gemmArgs), op(X) m × k, op(Y) k × n, C m × n.
type gemm struct {
	transa, transb int // opN or opT, of X and of Y
	m, n, k        int
	lda, ldb, ldc  int // the leading dimensions of X, Y and C
}

// gemmArgs returns the gemm of a MatMul of mode over n, k, m.
//
// A row-major r × c matrix with rows of c elements is, in the same memory,
// the column-major c × r matrix of its transpose with leading dimension c.
// cuBLAS is column-major, so each row-major C = P·Q is computed as its
// transpose Cᵀ = Qᵀ·Pᵀ: the first gemm operand is always b, the second a,
// and the output's leading dimension is the row-major output's width.
//
//   - product: C (n×m) = A (n×k) · B (k×m). Cᵀ (m×n, ld m) = Bᵀ (m×k: B's
//     memory, ld m, N) · Aᵀ (k×n: A's memory, ld k, N), so
//     gemm(N, N, m, n, k, b, lda=m, a, ldb=k, c, ldc=m).
//   - trans_b: C (n×k) = A (n×m) · B (k×m)ᵀ. Cᵀ (k×n, ld k) = B (k×m) ·
//     Aᵀ (m×n). B's memory is Bᵀ (m×k, ld m), so B is it transposed (T);
//     A's memory is Aᵀ (m×n, ld m) as it is (N), so
//     gemm(T, N, k, n, m, b, lda=m, a, ldb=m, c, ldc=k).
//   - trans_a: C (k×m) = A (n×k)ᵀ · B (n×m). Cᵀ (m×k, ld m) = Bᵀ (m×n) · A
//     (n×k). B's memory is Bᵀ (m×n, ld m) as it is (N); A's memory is Aᵀ
//     (k×n, ld k), so A is it transposed (T), so
//     gemm(N, T, m, k, n, b, lda=m, a, ldb=k, c, ldc=m).
//
// Each leading dimension is at least what cuBLAS asks (rows of the
// operand as stored, before op) when no size is 0. Sizes are checked to
// fit cuBLAS's int.
func gemmArgs(n, k, m, mode int) (gemm, error) {
	if n < 0 || k < 0 || m < 0 || mode < product || mode > transA {
		return gemm{}, fmt.Errorf("cublas: MatMul of sizes n=%d, k=%d, m=%d, mode %d", n, k, m, mode)
	}
	var g gemm
	switch mode {
	case product:
		g = gemm{transa: opN, transb: opN, m: m, n: n, k: k, lda: m, ldb: k, ldc: m}
	case transB:
		g = gemm{transa: opT, transb: opN, m: k, n: n, k: m, lda: m, ldb: m, ldc: k}
	case transA:
		g = gemm{transa: opN, transb: opT, m: m, n: k, k: n, lda: m, ldb: k, ldc: m}
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"n", n}, {"k", k}, {"m", m}} {
		if s.v > math.MaxInt32 {
			return gemm{}, fmt.Errorf("cublas: MatMul %s of n=%d, k=%d, m=%d: %s=%d is more than cuBLAS's int sizes allow (%d)", modeNames[mode], n, k, m, s.name, s.v, math.MaxInt32)
		}
	}
	return g, nil
}

// MatMul computes the product of mode into out with cublasSgemm_v2
// (single) or cublasDgemm_v2: the modes and row-major layouts of package
// dense's MatMul (0: out (n×m) = a (n×k)·b (k×m); 1: out (n×k) = a
// (n×m)·b (k×m)ᵀ; 2: out (k×m) = a (n×k)ᵀ·b (n×m)). An output of no
// elements is left alone, and a sum over none (k = 0 in mode 0, m in 1,
// n in 2) zeroes the output, as dense's kernel does. The product is queued
// on the default stream, after the kernels launched before it.
func (h *Handle) MatMul(single bool, out, a, b cuda.Ptr, n, k, m int, mode int) error {
	g, err := gemmArgs(n, k, m, mode)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("cublas: MatMul on a closed handle")
	}
	if g.m == 0 || g.n == 0 {
		return nil
	}
	size, name := 8, "cublasDgemm"
	if single {
		size, name = 4, "cublasSgemm"
	}
	if g.k == 0 {
		return h.c.Zero(out, g.m*g.n*size)
	}
	return h.c.Timed(name, func() error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := h.c.SetCurrent(); err != nil {
			return err
		}
		sp := C.int(0)
		if single {
			sp = 1
		}
		s := C.gnn_bl_gemm(h.h, sp, C.int(g.transa), C.int(g.transb), C.int(g.m), C.int(g.n), C.int(g.k),
			C.uint64_t(b), C.int(g.lda), C.uint64_t(a), C.int(g.ldb), C.uint64_t(out), C.int(g.ldc))
		if s != 0 {
			return fmt.Errorf("cublas: %s_v2 for MatMul %s of n=%d, k=%d, m=%d: %s", name, modeNames[mode], n, k, m, status(s))
		}
		return nil
	})
}
