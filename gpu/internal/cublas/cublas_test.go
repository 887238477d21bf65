//go:build gnncuda

package cublas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/dense"
)

// TestLoad loads a cuBLAS library where one is installed; Debian's
// nvidia-cuda-toolkit ships libcublas.so.11, so this runs without a GPU.
func TestLoad(t *testing.T) {
	name, err := Load()
	if err != nil {
		t.Skipf("no cuBLAS library: %v", err)
	}
	t.Logf("loaded %s", name)
	// CUBLAS_STATUS_NOT_INITIALIZED is 1 in every cuBLAS.
	if msg := status(1); !strings.Contains(msg, "1") {
		t.Errorf("status(1) = %q: no status number", msg)
	} else {
		t.Logf("status 1 reads %q", msg)
	}
}

func TestEmulatorHasNoCuBLAS(t *testing.T) {
	c, err := cuda.OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := New(c); err == nil {
		t.Error("New on the emulator succeeded")
	}
}

func TestModesAreDense(t *testing.T) {
	if product != dense.Product || transB != dense.TransB || transA != dense.TransA {
		t.Errorf("modes %d, %d, %d; package dense's are %d, %d, %d", product, transB, transA, dense.Product, dense.TransB, dense.TransA)
	}
}

// colMajorGemm is the reference BLAS gemm with alpha 1 and beta 0: C (m×n,
// column-major, ld ldc) = op(X) (m×k) · op(Y) (k×n), X and Y column-major
// with leading dimensions lda and ldb, op transposing for opT. It checks
// the leading dimensions as cuBLAS does (CUBLAS_STATUS_INVALID_VALUE).
func colMajorGemm(g gemm, x, y, c []float64) error {
	rowsX, rowsY := g.m, g.k // rows of X and Y as stored
	if g.transa == opT {
		rowsX = g.k
	}
	if g.transb == opT {
		rowsY = g.n
	}
	if g.lda < max(1, rowsX) || g.ldb < max(1, rowsY) || g.ldc < max(1, g.m) {
		return fmt.Errorf("leading dimensions %d, %d, %d for %d, %d, %d rows", g.lda, g.ldb, g.ldc, rowsX, rowsY, g.m)
	}
	at := func(p []float64, ld, op, i, j int) float64 { // op(P)[i, j]
		if op == opT {
			i, j = j, i
		}
		return p[i+j*ld]
	}
	for j := range g.n {
		for i := range g.m {
			var s float64
			for p := range g.k {
				s += at(x, g.lda, g.transa, i, p) * at(y, g.ldb, g.transb, p, j)
			}
			c[i+j*g.ldc] = s
		}
	}
	return nil
}

// rowMajor returns the product of mode by loops over row-major operands.
func rowMajor(a, b []float64, n, k, m, mode int) []float64 {
	switch mode {
	case product:
		c := make([]float64, n*m)
		for i := range n {
			for j := range m {
				for p := range k {
					c[i*m+j] += a[i*k+p] * b[p*m+j]
				}
			}
		}
		return c
	case transB:
		c := make([]float64, n*k)
		for i := range n {
			for j := range k {
				for p := range m {
					c[i*k+j] += a[i*m+p] * b[j*m+p]
				}
			}
		}
		return c
	}
	c := make([]float64, k*m)
	for i := range k {
		for j := range m {
			for r := range n {
				c[i*m+j] += a[r*k+i] * b[r*m+j]
			}
		}
	}
	return c
}

// operands returns the element counts of a, b and the output of mode.
func operands(n, k, m, mode int) (a, b, c int) {
	switch mode {
	case product:
		return n * k, k * m, n * m
	case transB:
		return n * m, k * m, n * k
	}
	return n * k, n * m, k * m
}

// TestGemmArgs checks the row-major to column-major translation that
// MatMul passes to cuBLAS, on the host: the gemm of gemmArgs, run by a
// reference column-major gemm on the memory of b and a, must give the
// row-major product of loops, for every mode and sizes 1 and odd.
func TestGemmArgs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for mode := product; mode <= transA; mode++ {
		for _, s := range [][3]int{{1, 1, 1}, {1, 3, 2}, {3, 1, 2}, {2, 3, 1}, {7, 5, 3}, {19, 37, 11}} {
			n, k, m := s[0], s[1], s[2]
			na, nb, nc := operands(n, k, m, mode)
			a, b := make([]float64, na), make([]float64, nb)
			for i := range a {
				a[i] = r.Float64()*2 - 1
			}
			for i := range b {
				b[i] = r.Float64()*2 - 1
			}
			g, err := gemmArgs(n, k, m, mode)
			if err != nil {
				t.Fatal(err)
			}
			if g.m*g.n != nc {
				t.Fatalf("%s n=%d k=%d m=%d: gemm of %d × %d for an output of %d", modeNames[mode], n, k, m, g.m, g.n, nc)
			}
			got := make([]float64, nc)
			for i := range got {
				got[i] = math.NaN()
			}
			if err := colMajorGemm(g, b, a, got); err != nil {
				t.Fatalf("%s n=%d k=%d m=%d: %v", modeNames[mode], n, k, m, err)
			}
			want := rowMajor(a, b, n, k, m, mode)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12 {
					t.Fatalf("%s n=%d k=%d m=%d: element %d is %v, want %v", modeNames[mode], n, k, m, i, got[i], want[i])
				}
			}
		}
	}
}

func TestGemmArgsRejects(t *testing.T) {
	for _, c := range []struct{ n, k, m, mode int }{{-1, 1, 1, 0}, {1, -1, 1, 1}, {1, 1, -1, 2}, {1, 1, 1, 3}, {1, 1, 1, -1}, {math.MaxInt32 + 1, 2, 2, 0}, {2, math.MaxInt32 + 1, 2, 2}, {2, 2, math.MaxInt32 + 1, 1}} {
		if _, err := gemmArgs(c.n, c.k, c.m, c.mode); err == nil {
			t.Errorf("gemmArgs(%d, %d, %d, %d) succeeded", c.n, c.k, c.m, c.mode)
		} else {
			t.Log(err)
		}
	}
}

// gpu returns the first GPU and a cuBLAS handle on it, or skips.
func gpu(t testing.TB) (*cuda.Context, *Handle) {
	c, err := cuda.Open(0)
	if err != nil {
		t.Skipf("needs a GPU: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	h, err := New(c)
	if err != nil {
		t.Skipf("needs cuBLAS: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return c, h
}

// TestMatMulMatchesKernel compares cuBLAS's products with dense's kernels
// on the same GPU, every mode in float32 and float64, for odd sizes,
// sizes 1, a tall one (the two-pass TransA) and sums over none. Outputs
// are NaN before each call, so elements left unwritten show.
func TestMatMulMatchesKernel(t *testing.T) {
	c, h := gpu(t)
	for _, single := range []bool{true, false} {
		for _, s := range [][3]int{{1000, 37, 19}, {1, 1, 1}, {70000, 100, 64}, {5, 0, 3}, {0, 4, 3}, {4, 3, 0}} {
			for mode := product; mode <= transA; mode++ {
				name := fmt.Sprintf("%s/n=%d/k=%d/m=%d/single=%v", modeNames[mode], s[0], s[1], s[2], single)
				t.Run(name, func(t *testing.T) { matchesKernel(t, c, h, single, s[0], s[1], s[2], mode) })
			}
		}
	}
}

func matchesKernel(t *testing.T, c *cuda.Context, h *Handle, single bool, n, k, m, mode int) {
	size, dt, tol := 8, dense.F64, 1e-12
	if single {
		size, dt, tol = 4, dense.F32, 1e-5
	}
	tol *= math.Sqrt(float64(max(1, [...]int{k, m, n}[mode]))) // the length of each sum
	na, nb, nc := operands(n, k, m, mode)
	r := rand.New(rand.NewPCG(uint64(n*31+k), uint64(m*3+mode)))
	var held []cuda.Ptr
	t.Cleanup(func() {
		for _, p := range held {
			c.Free(p)
		}
	})
	alloc := func(bytes int) (cuda.Ptr, error) {
		p, err := c.Alloc(max(bytes, size))
		if err == nil {
			held = append(held, p)
		}
		return p, err
	}
	// upload copies float64 values, as float32 where single, to the device.
	upload := func(x []float64) cuda.Ptr {
		p, err := alloc(len(x) * size)
		if err != nil {
			t.Fatal(err)
		}
		if len(x) == 0 {
			return p
		}
		var src unsafe.Pointer
		if single {
			y := make([]float32, len(x))
			for i, v := range x {
				y[i] = float32(v)
			}
			src = unsafe.Pointer(&y[0])
		} else {
			src = unsafe.Pointer(&x[0])
		}
		if err := c.CopyToDevice(p, src, len(x)*size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	download := func(p cuda.Ptr, n int) []float64 {
		out := make([]float64, n)
		if n == 0 {
			return out
		}
		if single {
			y := make([]float32, n)
			if err := c.CopyToHost(unsafe.Pointer(&y[0]), p, n*size); err != nil {
				t.Fatal(err)
			}
			for i, v := range y {
				out[i] = float64(v)
			}
		} else if err := c.CopyToHost(unsafe.Pointer(&out[0]), p, n*size); err != nil {
			t.Fatal(err)
		}
		return out
	}
	random := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.Float64()*2 - 1
		}
		return x
	}
	nan := make([]float64, nc)
	for i := range nan {
		nan[i] = math.NaN()
	}
	a, b := upload(random(na)), upload(random(nb))
	kernelOut, blasOut := upload(nan), upload(nan)
	if err := dense.MatMul(c, dt, kernelOut, a, b, n, k, m, mode, alloc); err != nil {
		t.Fatal(err)
	}
	if err := h.MatMul(single, blasOut, a, b, n, k, m, mode); err != nil {
		t.Fatal(err)
	}
	want, got := download(kernelOut, nc), download(blasOut, nc)
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*max(1, math.Abs(want[i]))) {
			t.Fatalf("element %d of %d: cuBLAS %v, kernel %v (tolerance %.3g)", i, nc, got[i], want[i], tol)
		}
	}
}
