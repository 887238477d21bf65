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

// shapes reach every tile of the vector kernels (6, 3 and 1 rows of 16
// columns and 12, 4 and 1 of 8 in Mul; 12, 4 and 1 rows of 8 columns in
// MulTransA's outer kernel, 24 and 8 columns and the masked last vector in
// its transposed one, for products over 128 wide), widths padded to a
// multiple of 8 or 4, shared dimensions split into panels, several
// tasks and blocks of rows, one row, and empty products.
var shapes = [][3]int{{1, 1, 1}, {3, 5, 7}, {70, 13, 8}, {130, 64, 16}, {9, 500, 24}, {200, 3, 64}, {5, 16, 9},
	{29, 23, 40}, {17, 30, 72}, {0, 4, 8}, {4, 0, 8}, {1, 3703, 16}, {1, 24, 1}, {2, 25, 2}, {11, 47, 13},
	{37, 71, 33}, {25, 300, 256}, {61, 7, 47}, {100, 100, 3}, {13, 17, 1}, {7, 1, 31}, {20, 40, 132}, {3, 9, 130}}

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
// this package's kernels and, without AVX2, on the Go loops (16 wide) and
// gonum's (64 and 134 wide); with 13 columns the kernels pad them, and
// 134 columns take MulTransA's transposed kernel. MulTransA's 20000 rows
// make 20 chunks, summed 8 at a time.
func TestDeterministic(t *testing.T) {
	for _, accel := range []bool{true, false} {
		if accel && !useAVX2 {
			continue
		}
		old := useAVX2
		useAVX2 = accel
		for _, m := range []int{13, 16, 64, 134} {
			t.Run(fmt.Sprintf("accel=%v/m=%d", accel, m), func(t *testing.T) { testDeterministic(t, m) })
		}
		useAVX2 = old
	}
}

func testDeterministic(t *testing.T, m int) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, k = 20000, 33
	a, b, d := random[float32](rng, n*k), random[float32](rng, k*m), random[float32](rng, n*m)
	var first [3][]float32
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		c, w, x := make([]float32, n*m), make([]float32, k*m), make([]float32, n*k)
		Mul(c, a, b, n, k, m)
		MulTransA(w, a, d, n, k, m)
		MulTransB(x, d, b, n, k, m)
		runtime.GOMAXPROCS(old)
		if first[0] == nil {
			first = [3][]float32{c, w, x}
			continue
		}
		if !slices.Equal(c, first[0]) || !slices.Equal(w, first[1]) || !slices.Equal(x, first[2]) {
			t.Errorf("GOMAXPROCS=%d: results differ from GOMAXPROCS=1", procs)
		}
	}
}

// TestMulTiling checks that Mul's kernels compute each element as one
// chain over the shared dimension in order, whatever the tiling: a product
// has the bits of its rows multiplied one at a time and of its blocks of
// 16 columns multiplied apart, also when the whole is split into panels
// of the shared dimension (k = 300 of 256 columns is over panelBytes),
// when the width is padded, and both (2500 by 30, and 600 by 1015, whose
// last block of 8 columns crosses the width, as CiteSeer's input gradient's).
func TestMulTiling(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, s := range [][3]int{{50, 300, 256}, {31, 77, 40}, {26, 1000, 16}, {40, 9, 8}, {40, 2500, 30}, {6, 600, 1015}} {
		n, k, m := s[0], s[1], s[2]
		a, b := random[float32](rng, n*k), random[float32](rng, k*m)
		c := make([]float32, n*m)
		Mul(c, a, b, n, k, m)
		for i := range n {
			ci := make([]float32, m)
			Mul(ci, a[i*k:(i+1)*k], b, 1, k, m)
			if !slices.Equal(ci, c[i*m:(i+1)*m]) {
				t.Fatalf("%v: row %d alone differs", s, i)
			}
		}
		for j := 0; j < m; j += 16 {
			q := min(16, m-j)
			bj, cj := make([]float32, k*q), make([]float32, n*q)
			for l := range k {
				copy(bj[l*q:(l+1)*q], b[l*m+j:l*m+j+q])
			}
			Mul(cj, a, bj, n, k, q)
			for i := range n {
				if !slices.Equal(cj[i*q:(i+1)*q], c[i*m+j:i*m+j+q]) {
					t.Fatalf("%v: columns %d to %d alone differ in row %d", s, j, j+q-1, i)
				}
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

// BenchmarkMul times input projections of 100,000 x 500 features, a GCN's
// 500 x 16 weight and a GAT's 500 x 64 (8 heads of 8), and their weight
// gradients, in float32.
func BenchmarkMul(b *testing.B) {
	const n, k = 100000, 500
	rng := rand.New(rand.NewPCG(7, 8))
	a := random[float32](rng, n*k)
	for _, m := range []int{16, 64} {
		w, d := random[float32](rng, k*m), random[float32](rng, n*m)
		c, g := make([]float32, n*m), make([]float32, k*m)
		for _, op := range []string{"mul", "mul_trans_a"} {
			benchMul(b, op, a, w, d, c, g, n, k, m)
		}
	}
}

// benchMul times one product of BenchmarkMul: op mul sets c to a times w,
// op mul_trans_a sets g to the transpose of a times d.
func benchMul(b *testing.B, op string, a, w, d, c, g []float32, n, k, m int) {
	b.Run(fmt.Sprintf("op=%s/n=%d/k=%d/m=%d", op, n, k, m), func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuSeconds()
		for b.Loop() {
			switch op {
			case "mul":
				Mul(c, a, w, n, k, m)
			case "mul_trans_a":
				MulTransA(g, a, d, n, k, m)
			case "mul_trans_b":
				MulTransB(a, d, w, n, k, m)
			}
		}
		flops := 2 * float64(n*k*m) * float64(b.N)
		b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOPS")
		// Each product reads two of a, the weight and the output's
		// gradient, and writes the third, once at least.
		bytes := 4 * float64(n*k+k*m+n*m) * float64(b.N)
		b.ReportMetric(bytes/b.Elapsed().Seconds()/1e9, "GB/s")
		reportCPU(b, flops, c0)
	})
}

// BenchmarkFirstLayer times the products of GNN first layers on dense
// features, N x F times F x H, in float32: the forward product (mul), the
// weight gradient (mul_trans_a, F x N times N x H) and the input gradient
// (mul_trans_b, N x H times H x F), for CiteSeer (3327 x 3703, hidden 16),
// PubMed-like (19717 x 500), ogbn-products-like (100,000 x 100, hidden
// 256) and wide-feature graphs (4096 x 4000, hidden 64; 20,000 x 1000,
// output 8). Compare the GFLOPS with BenchmarkFMAPeak's, and the GB/s
// (the bytes each product must read and write once) with BenchmarkMemPeak's.
func BenchmarkFirstLayer(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{3327, 3703, 16}, {19717, 500, 16}, {100000, 100, 256}, {4096, 4000, 64}, {20000, 1000, 8}} {
		n, k, m := s[0], s[1], s[2]
		a := random[float32](rng, n*k)
		w, d := random[float32](rng, k*m), random[float32](rng, n*m)
		c, g := make([]float32, n*m), make([]float32, k*m)
		for _, op := range []string{"mul", "mul_trans_a", "mul_trans_b"} {
			benchMul(b, op, a, w, d, c, g, n, k, m)
		}
	}
}

// TestMulTransARows checks that MulTransARows, with a's rows copied out of
// the whole for each call, gives MulTransA's bits, float32 (AVX2 widths,
// padded and not, when available) and float64 (Go and gonum widths), with
// more rows than one chunk.
func TestMulTransARows(t *testing.T) {
	t.Run("float32", testMulTransARows[float32])
	t.Run("float64", testMulTransARows[float64])
}

func testMulTransARows[T num.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for _, s := range [][3]int{{3000, 16, 24}, {2500, 5, 13}, {70, 40, 40}} {
		n, k, m := s[0], s[1], s[2]
		a, b := make([]T, n*k), make([]T, n*m)
		for i := range a {
			a[i] = T(r.NormFloat64())
		}
		for i := range b {
			b[i] = T(r.NormFloat64())
		}
		want, got := make([]T, k*m), make([]T, k*m)
		MulTransA(want, a, b, n, k, m)
		MulTransARows(got, func(lo, hi int) []T { return slices.Clone(a[lo*k : hi*k]) }, b, n, k, m)
		for i := range want {
			if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
				t.Fatalf("%v: element %d is %v, MulTransA %v", s, i, got[i], want[i])
			}
		}
	}
}

// TestMulTransATiling checks that MulTransA computes each feature's row of
// the product apart from the others, whatever blocks of features its tasks
// take: rows of the product over a wide a (split into blocks of features
// for the L2 cache, and over 3 chunks of rows, split for the goroutines)
// have the bits of the same product over only a few of a's columns.
func TestMulTransATiling(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, s := range [][3]int{{2500, 2000, 16}, {2100, 3000, 8}, {2200, 700, 13}} {
		n, k, m := s[0], s[1], s[2]
		a, b := random[float32](rng, n*k), random[float32](rng, n*m)
		c := make([]float32, k*m)
		MulTransA(c, a, b, n, k, m)
		for _, f := range [][2]int{{0, 7}, {k/2 - 3, k/2 + 10}, {k - 10, k}} {
			q := f[1] - f[0]
			af := make([]float32, n*q)
			for i := range n {
				copy(af[i*q:(i+1)*q], a[i*k+f[0]:i*k+f[1]])
			}
			cf := make([]float32, q*m)
			MulTransA(cf, af, b, n, q, m)
			if !slices.Equal(cf, c[f[0]*m:f[1]*m]) {
				t.Fatalf("%v: features %d to %d alone differ", s, f[0], f[1]-1)
			}
		}
	}
}
