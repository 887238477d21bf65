//go:build gnncuda

package cublas

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// BenchmarkMathMode times the three products in float32 on the first
// layer of the products-sized GAT (2.4M rows, 100 inputs, 64 outputs)
// with the handle in CUBLAS_PEDANTIC_MATH, as New leaves it, and in
// CUBLAS_DEFAULT_MATH (which also keeps float32 products off TF32 unless
// the environment asks for it), to show what pedantic costs; it skips
// without a GPU and cuBLAS. dense's BenchmarkMatMul compares with the
// kernels. GFLOP/s counts 2·n·k·m per product.
func BenchmarkMathMode(b *testing.B) {
	c, h := gpu(b)
	const n, k, m = 2_400_000, 100, 64
	buf := func(elems int) cuda.Ptr {
		p, err := c.Alloc(4 * elems)
		if err == nil {
			err = c.Zero(p, 4*elems)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Free(p) })
		return p
	}
	x, w, y, dy, dx, dw := buf(n*k), buf(k*m), buf(n*m), buf(n*m), buf(n*k), buf(k*m)
	operands := [][3]cuda.Ptr{product: {y, x, w}, transB: {dx, dy, w}, transA: {dw, x, dy}}
	for _, mm := range []struct {
		name string
		mode int
	}{{"pedantic", pedanticMath}, {"default", defaultMath}} {
		runtime.LockOSThread()
		err := c.SetCurrent()
		if err == nil {
			err = h.setMathMode(mm.mode)
		}
		runtime.UnlockOSThread()
		if err != nil {
			b.Fatal(err)
		}
		for mode, ops := range operands {
			b.Run(fmt.Sprintf("op=%s/math=%s/n=%d/k=%d/m=%d/dtype=float32", modeNames[mode], mm.name, n, k, m), func(b *testing.B) {
				// Sync inside the timed region: gemm returns before the
				// device finishes (a b.Loop would stop the clock first).
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := h.MatMul(true, ops[0], ops[1], ops[2], n, k, m, mode); err != nil {
						b.Fatal(err)
					}
				}
				if err := c.Sync(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(2*float64(n)*float64(k)*float64(m)/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GFLOP/s")
			})
		}
	}
}
