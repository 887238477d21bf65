package sddmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// narrowShapes are dot products over heads of 2 and 4 elements whose rows
// are a multiple of 8 floats (the AVX2 kernel's) and some that are not (the
// Go loops').
var narrowShapes = []struct {
	heads, d int
	accel    bool
}{
	{8, 2, true}, {4, 2, true}, {12, 2, true}, {16, 2, true},
	{8, 4, true}, {2, 4, true}, {6, 4, true}, {16, 4, true},
	{3, 2, false}, {1, 4, false}, {5, 4, false},
}

// TestDot24Accel compares the AVX2 dot products of two- and four-element
// heads bit for bit with the pure-Go loops, which sum in the same order, and
// both with the float64 reference: gathered and edge operands, operands of
// very different magnitudes, NaN, infinities and signed zeros among them;
// on a graph whose node table outgrows cacheBytes too (prefetching, several
// kernel calls).
func TestDot24Accel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	t.Run("small", func(t *testing.T) {
		testDot24Accel(t, rng, randomGraph(t, rng, 300, 200, 5000), [][2]Target{{U, V}, {V, U}, {E, V}, {U, E}})
	})
	if testing.Short() {
		return
	}
	g := randomGraph(t, rng, cacheBytes/(16*4)+100, 300, 3*rows8Chunk+17)
	t.Run("large", func(t *testing.T) { testDot24Accel(t, rng, g, [][2]Target{{U, V}}) })
}

// testDot24Accel runs the comparisons of TestDot24Accel on g.
func testDot24Accel(t *testing.T, rng *rand.Rand, g *graph.Graph, targets [][2]Target) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40}
	for _, s := range narrowShapes {
		c := shapeCase{Dot, []int{s.heads, s.d}, []int{s.heads, s.d}}
		p := c.plan(t)
		if k := newKernel(make([]float32, 1), Dot, nil, nil, nil, nil, p); k.dot24 != s.accel {
			t.Fatalf("%dx%d: the AVX2 kernel applies: %v, want %v", s.heads, s.d, k.dot24, s.accel)
		}
		for _, tg := range targets {
			for _, scale := range []float64{1, 1e-20, 1e15} {
				lt, rt := tg[0], tg[1]
				lhs := operand[float32](rng, lt.Rows(g)*p.LhsLen)
				rhs := operand[float32](rng, rt.Rows(g)*p.RhsLen)
				for i := range lhs {
					lhs[i] *= float32(scale * math.Pow(2, float64(rng.IntN(20)-10)))
				}
				for range len(lhs) / 200 {
					lhs[rng.IntN(len(lhs))] = specials[rng.IntN(len(specials))]
					rhs[rng.IntN(len(rhs))] = specials[rng.IntN(len(specials))]
				}
				name := fmt.Sprintf("%v_dot_%v/%dx%d/scale %g", lt, rt, s.heads, s.d, scale)
				checkDotAccel(t, name, g, c, p, lhs, lt, rhs, rt)
			}
		}
	}
}

// TestDot24Order checks the summation order the Go loops and the kernel
// share: p0+p1 for two-element heads, (p0+p1)+(p2+p3) for four, each
// product rounded before it is added, and -0 kept when every product is -0.
func TestDot24Order(t *testing.T) {
	g := mustGraph(t, 1, 1, []int32{0}, []int32{0})
	for _, accel := range []bool{false, true} {
		if accel && !useAVX2 {
			continue
		}
		saved := useAVX2
		useAVX2 = accel
		// 1 + 2^-24 rounds to 1 in float32, so the order shows: the
		// balanced sum of a head of 4 gives (1+2^-24)+(2^-24-1) = 2^-24,
		// a sum from left to right 0.
		e := float32(math.Ldexp(1, -24))
		x := []float32{1, e, e, -1, 1, 1, 1, 1}
		y := []float32{1, 1, 1, 1, 1, 1, 1, 1}
		// Products rounded before the sum: (1+2^-23)² rounds to 1+2^-22,
		// (1-2^-23)(1+2^-23) to 1; (1+2^-22+1)+(-1+0) = 1+2^-22.
		x4, y4 := []float32{1 + 2*e, 1 - 2*e, -1, 0, 0, 0, 0, 0}, []float32{1 + 2*e, 1 + 2*e, 1, 0, 0, 0, 0, 0}
		negZero := float32(math.Copysign(0, -1))
		for _, c := range []struct {
			x, y []float32
			d    int
			want []float32
		}{
			{x, y, 4, []float32{e, 4}},
			{x4, y4, 4, []float32{float32(1 + math.Ldexp(1, -22)), 0}},
			{[]float32{-1, 1, 2, 3, 0, 0, 0, 0}, []float32{0, negZero, 1, 1, 0, 0, 0, 0}, 2, []float32{negZero, 5, 0, 0}},
		} {
			p := shapeCase{Dot, []int{8 / c.d, c.d}, []int{8 / c.d, c.d}}.plan(t)
			got := make([]float32, len(c.want))
			Forward(got, g, Dot, c.x, U, c.y, V, p)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(c.want[i]) {
					t.Errorf("accel %v, heads of %d: element %d is %v, want %v", accel, c.d, i, got[i], c.want[i])
				}
			}
		}
		useAVX2 = saved
	}
}

// TestDot24Deterministic checks that one and two goroutines give the same
// bits for narrow heads, with the kernel and in Go, float32 and float64.
func TestDot24Deterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	g := randomGraph(t, rng, 1000, 1000, 60000)
	for _, hd := range [][2]int{{8, 2}, {8, 4}} {
		p := shapeCase{Dot, []int{hd[0], hd[1]}, []int{hd[0], hd[1]}}.plan(t)
		lhs := operand[float64](rng, g.NumSrc()*p.LhsLen)
		rhs := operand[float64](rng, g.NumDst()*p.RhsLen)
		l32, r32 := make([]float32, len(lhs)), make([]float32, len(rhs))
		for i, v := range lhs {
			l32[i] = float32(v)
		}
		for i, v := range rhs {
			r32[i] = float32(v)
		}
		for _, accel := range []bool{true, false} {
			saved := useAVX2
			useAVX2 = useAVX2 && accel
			run32 := func(procs int) []float32 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				out := make([]float32, g.NumEdges()*p.OutLen)
				Forward(out, g, Dot, l32, U, r32, V, p)
				return out
			}
			run64 := func(procs int) []float64 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				out := make([]float64, g.NumEdges()*p.OutLen)
				Forward(out, g, Dot, lhs, U, rhs, V, p)
				return out
			}
			a, b := run32(1), run32(2)
			for i := range a {
				if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
					t.Fatalf("%dx%d float32 (AVX2 %v): element %d is %v with 1 goroutine, %v with 2", hd[0], hd[1], useAVX2, i, a[i], b[i])
				}
			}
			c, d := run64(1), run64(2)
			for i := range c {
				if math.Float64bits(c[i]) != math.Float64bits(d[i]) {
					t.Fatalf("%dx%d float64: element %d is %v with 1 goroutine, %v with 2", hd[0], hd[1], i, c[i], d[i])
				}
			}
			useAVX2 = saved
		}
	}
}
