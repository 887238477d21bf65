package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gnngo/gnn/internal/num"
)

// naive returns a (n x k) times b (k x m) in float64, and the sums of the
// magnitudes of the terms, for tolerances.
func naive[T num.Float](a, b []T, n, k, m int) (c, mag []float64) {
	c, mag = make([]float64, n*m), make([]float64, n*m)
	for i := range n {
		for l := range m {
			for j := range k {
				t := float64(a[i*k+j]) * float64(b[j*m+l])
				c[i*m+l] += t
				mag[i*m+l] += math.Abs(t)
			}
		}
	}
	return c, mag
}

func transpose[T num.Float](x []T, r, c int) []T {
	t := make([]T, len(x))
	for i := range r {
		for j := range c {
			t[j*r+i] = x[i*c+j]
		}
	}
	return t
}

func random[T num.Float](rng *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(2*rng.Float64() - 1)
	}
	return x
}

// shapes reach the vector kernels (m a multiple of 8 or padded to one, k
// with and without a multiple of 4), gonum (m over 32), several tasks and
// empty products.
var shapes = [][3]int{{1, 1, 1}, {3, 5, 7}, {70, 13, 8}, {130, 64, 16}, {9, 500, 24}, {200, 3, 64}, {5, 16, 9}, {0, 4, 8}, {4, 0, 8}}

func TestProducts(t *testing.T) {
	for _, accel := range []bool{true, false} {
		if accel && !useAVX2 {
			continue
		}
		old := useAVX2
		useAVX2 = accel
		t.Run(fmt.Sprintf("accel=%v/float32", accel), testProducts[float32])
		t.Run(fmt.Sprintf("accel=%v/float64", accel), testProducts[float64])
		useAVX2 = old
	}
}

// testProducts checks Mul, MulTransB and MulTransA against the naive
// product, within rounding relative to the sum of the terms' magnitudes.
func testProducts[T num.Float](t *testing.T) {
	tol := 1e-14
	var z T
	if any(z) == any(float32(0)) {
		tol = 1e-6
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		n, k, m := s[0], s[1], s[2]
		a, b := random[T](rng, n*k), random[T](rng, k*m)
		want, mag := naive(a, b, n, k, m)
		c := make([]T, n*m)
		Mul(c, a, b, n, k, m)
		compare(t, fmt.Sprintf("Mul %v", s), c, want, mag, tol)
		// a times b = a times the transpose of (b transposed).
		Mul(c, a, b, n, k, m)
		MulTransB(c, a, transpose(b, k, m), n, m, k)
		compare(t, fmt.Sprintf("MulTransB %v", s), c, want, mag, tol)
		// a times b = the transpose of (a transposed) times b.
		MulTransA(c, transpose(a, n, k), b, k, n, m)
		compare(t, fmt.Sprintf("MulTransA %v", s), c, want, mag, tol)
	}
}

func compare[T num.Float](t *testing.T, name string, got []T, want, mag []float64, tol float64) {
	t.Helper()
	for i, w := range want {
		if !(math.Abs(float64(got[i])-w) <= tol*(mag[i]+1e-300)) {
			t.Fatalf("%s: element %d is %v, want %v", name, i, got[i], w)
		}
	}
}

// TestMulTransAChunks checks MulTransA over enough rows for several chunks.
func TestMulTransAChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, k, m = 9000, 5, 16
	a, b := random[float32](rng, n*k), random[float32](rng, n*m)
	want, mag := naive(transpose(a, n, k), b, k, n, m)
	c := make([]float32, k*m)
	MulTransA(c, a, b, n, k, m)
	compare(t, "MulTransA", c, want, mag, 1e-6)
}

// TestDeterministic checks identical bits for GOMAXPROCS 1, 2 and 3, on
// this package's kernels (16 wide) and on gonum's (64 wide).
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{16, 64} {
		const n, k = 20000, 33
		a, b, d := random[float32](rng, n*k), random[float32](rng, k*m), random[float32](rng, n*m)
		var first [2][]float32
		for _, procs := range []int{1, 2, 3} {
			old := runtime.GOMAXPROCS(procs)
			c, w := make([]float32, n*m), make([]float32, k*m)
			Mul(c, a, b, n, k, m)
			MulTransA(w, a, d, n, k, m)
			runtime.GOMAXPROCS(old)
			if first[0] == nil {
				first = [2][]float32{c, w}
				continue
			}
			if !slices.Equal(c, first[0]) || !slices.Equal(w, first[1]) {
				t.Errorf("m=%d, GOMAXPROCS=%d: results differ from GOMAXPROCS=1", m, procs)
			}
		}
	}
}

func TestLengthsPanic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Mul(make([]float32, 3), make([]float32, 4), make([]float32, 4), 2, 2, 2)
}

// BenchmarkMul times a GCN input projection, 100,000 x 500 features times a
// 500 x 16 weight, and its weight gradient, in float32.
func BenchmarkMul(b *testing.B) {
	const n, k, m = 100000, 500, 16
	rng := rand.New(rand.NewPCG(7, 8))
	a, w, d := random[float32](rng, n*k), random[float32](rng, k*m), random[float32](rng, n*m)
	c, g := make([]float32, n*m), make([]float32, k*m)
	for _, op := range []string{"mul", "mul_trans_a"} {
		b.Run(fmt.Sprintf("op=%s/n=%d/k=%d/m=%d", op, n, k, m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if op == "mul" {
					Mul(c, a, w, n, k, m)
				} else {
					MulTransA(g, a, d, n, k, m)
				}
			}
			b.ReportMetric(2*float64(n)*k*m*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
