package heads

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gnngo/gnn/internal/num"
)

// draw returns n values in [-1, 1) of T from a seeded stream.
func draw[T num.Float](n int, seed uint64) []T {
	rng := rand.New(rand.NewPCG(seed, 5))
	v := make([]T, n)
	for i := range v {
		v[i] = T(2*rng.Float64() - 1)
	}
	return v
}

// naive computes the three kernels by their definitions, in float64.
func naive[T num.Float](z, a, ds []T, n, h, f int) (dot, scale, sum []float64) {
	dot, scale, sum = make([]float64, n*h), make([]float64, n*h*f), make([]float64, h*f)
	for u := range n {
		for k := range h {
			for j := range f {
				zv, av := float64(z[(u*h+k)*f+j]), float64(a[k*f+j])
				dot[u*h+k] += zv * av
				scale[(u*h+k)*f+j] = float64(ds[u*h+k]) * av
				sum[k*f+j] += float64(ds[u*h+k]) * zv
			}
		}
	}
	return dot, scale, sum
}

func within[T num.Float](t *testing.T, what string, got []T, want []float64, tol float64) {
	t.Helper()
	for i, g := range got {
		if d := float64(g) - want[i]; d > tol || d < -tol {
			t.Fatalf("%s[%d] = %v, want %v", what, i, g, want[i])
		}
	}
}

func run[T num.Float](n, h, f int) (dot, scale, sum []T) {
	z, a, ds := draw[T](n*h*f, 1), draw[T](h*f, 2), draw[T](n*h, 3)
	dot, scale, sum = make([]T, n*h), make([]T, n*h*f), make([]T, h*f)
	Dot(dot, z, a, n, h, f)
	Scale(scale, a, ds, n, h, f)
	Sum(sum, z, ds, n, h, f)
	return dot, scale, sum
}

func checkKernels[T num.Float](t *testing.T, tol float64) {
	for _, c := range [][3]int{{1, 1, 1}, {5, 2, 3}, {300, 8, 8}, {2100, 3, 8}, {700, 1, 5}, {0, 2, 4}} {
		n, h, f := c[0], c[1], c[2]
		t.Run(fmt.Sprintf("%dx%dx%d", n, h, f), func(t *testing.T) {
			z, a, ds := draw[T](n*h*f, 1), draw[T](h*f, 2), draw[T](n*h, 3)
			wd, ws, wa := naive(z, a, ds, n, h, f)
			dot, scale, sum := run[T](n, h, f)
			within(t, "Dot", dot, wd, tol)
			within(t, "Scale", scale, ws, tol)
			within(t, "Sum", sum, wa, tol*float64(n+1))
		})
	}
}

// TestKernels checks the kernels against their definitions in float32
// and float64, including the unrolled heads of 8 and no nodes.
func TestKernels(t *testing.T) {
	t.Run("float64", func(t *testing.T) { checkKernels[float64](t, 1e-12) })
	t.Run("float32", func(t *testing.T) { checkKernels[float32](t, 1e-5) })
}

// TestDeterministic checks that GOMAXPROCS 1 and 2 give the same bits.
func TestDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d1, s1, a1 := run[float32](5000, 4, 8)
	runtime.GOMAXPROCS(2)
	d2, s2, a2 := run[float32](5000, 4, 8)
	if !slices.Equal(d1, d2) || !slices.Equal(s1, s2) || !slices.Equal(a1, a2) {
		t.Fatal("the kernels depend on GOMAXPROCS")
	}
}

// TestLengths checks that mismatched lengths panic, naming the kernel.
func TestLengths(t *testing.T) {
	defer func() {
		if r := recover(); fmt.Sprint(r) != "heads: Dot: lengths 3, 12, 6 for 2 nodes, 2 heads of 3 features" {
			t.Fatalf("recovered %v", r)
		}
	}()
	Dot(make([]float64, 3), make([]float64, 12), make([]float64, 6), 2, 2, 3)
}

// BenchmarkDot times the scores of Cora-sized GAT heads (2708 nodes, 8
// heads of 8 features).
func BenchmarkDot(b *testing.B) {
	const n, h, f = 2708, 8, 8
	z, a, out := draw[float32](n*h*f, 1), draw[float32](h*f, 2), make([]float32, n*h)
	b.ReportAllocs()
	for b.Loop() {
		Dot(out, z, a, n, h, f)
	}
	b.ReportMetric(float64(n*h*f)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmul/s")
}

// BenchmarkSum times the attention-vector gradient on the same sizes.
func BenchmarkSum(b *testing.B) {
	const n, h, f = 2708, 8, 8
	z, ds, out := draw[float32](n*h*f, 1), draw[float32](n*h, 3), make([]float32, h*f)
	b.ReportAllocs()
	for b.Loop() {
		Sum(out, z, ds, n, h, f)
	}
	b.ReportMetric(float64(n*h*f)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmul/s")
}
