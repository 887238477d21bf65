package sddmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
)

// pairShapes are dense dot products over heads of widths that neither AVX2
// kernel of blocks of eight floats takes, which dotPairsF32 computes: GAT's
// output layer (one head of 3, 6, 7, 10 classes), odd widths, several
// heads, and 16-float heads in rows that are not a multiple of 64 floats.
var pairShapes = [][2]int{{1, 10}, {1, 7}, {1, 3}, {1, 6}, {1, 1}, {2, 10}, {3, 5}, {8, 3}, {1, 16}, {4, 6}, {1, 41}}

// TestDotPairsAccel compares dotPairsF32 bit for bit with the pure-Go
// loops and both with the float64 reference, as TestDot24Accel does for
// heads of 2 and 4: gathered and edge operands, magnitudes far apart, NaN,
// infinities and signed zeros; on a graph whose node table outgrows
// cacheBytes too (prefetching, several blocks).
func TestDotPairsAccel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(19, 19))
	t.Run("small", func(t *testing.T) {
		testDotPairsAccel(t, rng, randomGraph(t, rng, 300, 200, 5000), [][2]Target{{U, V}, {V, U}, {E, V}, {U, E}}, pairShapes)
	})
	if testing.Short() {
		return
	}
	g := randomGraph(t, rng, cacheBytes/(10*4)+100, 300, 3*rows8Chunk+17)
	t.Run("large", func(t *testing.T) { testDotPairsAccel(t, rng, g, [][2]Target{{U, V}}, [][2]int{{1, 10}}) })
}

// testDotPairsAccel runs the comparisons of TestDotPairsAccel on g.
func testDotPairsAccel(t *testing.T, rng *rand.Rand, g *graph.Graph, targets [][2]Target, shapes [][2]int) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40}
	for _, s := range shapes {
		c := shapeCase{Dot, []int{s[0], s[1]}, []int{s[0], s[1]}}
		p := c.plan(t)
		if k := newKernel(make([]float32, 1), Dot, nil, nil, nil, nil, p); k.dot8 || k.dot24 || !k.dense {
			t.Fatalf("%dx%d: not a dense dot left to dotRows", s[0], s[1])
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
				name := fmt.Sprintf("%v_dot_%v/%dx%d/scale %g", lt, rt, s[0], s[1], scale)
				checkDotAccel(t, name, g, c, p, lhs, lt, rhs, rt)
			}
		}
	}
}

// TestDotPairsOrder checks the order dot and dotPairsF32 share: the even
// and odd positions summed apart from +0, products rounded before they are
// added, an odd last product in the even sum, and the two sums added.
func TestDotPairsOrder(t *testing.T) {
	g := mustGraph(t, 1, 1, []int32{0}, []int32{0})
	e := float32(math.Ldexp(1, -24))
	negZero := float32(math.Copysign(0, -1))
	for _, accel := range []bool{false, true} {
		if accel && !useAVX2 {
			continue
		}
		saved := useAVX2
		useAVX2 = accel
		for _, c := range []struct {
			x, y []float32
			want float32
		}{
			// Even sum ((0+1)+e)+e = 1 (each e lost), odd sum e+e = 2e: 1+2e.
			{[]float32{1, e, e, e, e}, []float32{1, 1, 1, 1, 1}, 1 + 2*e},
			// Even sum (1+e)+e = 1, odd sum -1+0 = -1: 0, where left to
			// right ((1-1)+e)+0)+e would give 2e.
			{[]float32{1, -1, e, 0, e}, []float32{1, 1, 1, 1, 1}, 0},
			// Every product -0: +0 (the sums start at +0).
			{[]float32{-1, 1, -1}, []float32{0, negZero, 0}, 0},
			// (1+2^-23)² rounds to 1+2^-22 before it is added.
			{[]float32{1 + 2*e, 0, 0}, []float32{1 + 2*e, 0, 0}, float32(1 + math.Ldexp(1, -22))},
		} {
			d := len(c.x)
			p := shapeCase{Dot, []int{1, d}, []int{1, d}}.plan(t)
			got := make([]float32, 1)
			Forward(got, g, Dot, c.x, U, c.y, V, p)
			if math.Float32bits(got[0]) != math.Float32bits(c.want) {
				t.Errorf("accel %v, %v . %v: %v, want %v", accel, c.x, c.y, got[0], c.want)
			}
		}
		useAVX2 = saved
	}
}

// TestDotPairsDeterministic checks that one and two goroutines give the
// same bits for GAT's output-layer shape, with the kernel and in Go.
func TestDotPairsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	g := randomGraph(t, rng, 1000, 1000, 60000)
	p := shapeCase{Dot, []int{1, 10}, []int{1, 10}}.plan(t)
	lhs := operand[float32](rng, g.NumSrc()*p.LhsLen)
	rhs := operand[float32](rng, g.NumDst()*p.RhsLen)
	for _, accel := range []bool{true, false} {
		saved := useAVX2
		useAVX2 = useAVX2 && accel
		run := func(procs int) []float32 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			out := make([]float32, g.NumEdges()*p.OutLen)
			Forward(out, g, Dot, lhs, U, rhs, V, p)
			return out
		}
		a, b := run(1), run(2)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("AVX2 %v: element %d is %v with 1 goroutine, %v with 2", useAVX2, i, a[i], b[i])
			}
		}
		useAVX2 = saved
	}
}

// BenchmarkDotPairs measures u_dot_v over one head of 10 floats (GAT's
// output layer on 10 classes: its attention-weight gradient) on
// BenchmarkSDDMM's graph, with dotPairsF32 (accel=true) and the Go loop.
func BenchmarkDotPairs(b *testing.B) {
	for _, accel := range []bool{true, false} {
		if accel && !useAVX2 {
			continue
		}
		b.Run(fmt.Sprintf("op=u_dot_v/n=%d/e=%d/dim=1x10/accel=%v", benchNodes, benchEdges, accel), func(b *testing.B) {
			saved := useAVX2
			useAVX2 = accel
			defer func() { useAVX2 = saved }()
			g := uniformGraph()
			p := shapeCase{Dot, []int{1, 10}, []int{1, 10}}.plan(b)
			rng := rand.New(rand.NewPCG(5, 5))
			lhs := operand[float32](rng, g.NumSrc()*p.LhsLen)
			rhs := operand[float32](rng, g.NumDst()*p.RhsLen)
			out := make([]float32, g.NumEdges()*p.OutLen)
			Forward(out, g, Dot, lhs, U, rhs, V, p)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				Forward(out, g, Dot, lhs, U, rhs, V, p)
			}
			reportCPU(b, cpu0)
			reportRate(b, g.NumEdges(), 4*(1+10+1+10+1))
			benchSink = out[len(out)-1]
		})
	}
}

// checkDotAccel runs Dot forward with the AVX2 kernels and with the
// pure-Go loops and checks them bit for bit against each other (NaN for
// NaN) and within 1e-6 of the magnitude against the float64 reference
// (infinities exact), failing with name and the element.
func checkDotAccel(t *testing.T, name string, g *graph.Graph, c shapeCase, p bcast.Plan, lhs []float32, lt Target, rhs []float32, rt Target) {
	t.Helper()
	want, _ := reference(g, Dot, lhs, c.l, lt, rhs, c.r, rt)
	mag, _ := reference(g, Dot, absAll(lhs), c.l, lt, absAll(rhs), c.r, rt)
	got := accelMatchesGo(t, name, g, Dot, p, lhs, lt, rhs, rt, want)
	for i, w := range want {
		a := got[i]
		if math.IsNaN(w) {
			continue
		}
		if math.IsInf(w, 0) || math.IsInf(mag[i], 0) {
			if float64(a) != w && !math.IsInf(mag[i], 0) {
				t.Fatalf("%s: element %d is %v, want %v", name, i, a, w)
			}
			continue
		}
		if !(math.Abs(float64(a)-w) <= 1e-6*mag[i]+1e-44) {
			t.Fatalf("%s: element %d is %v, want %v", name, i, a, w)
		}
	}
}

// accelMatchesGo runs op forward with the AVX2 kernels and with the
// pure-Go loops, checks them bit for bit against each other and NaN where
// the reference want is NaN, and returns the AVX2 result.
func accelMatchesGo(t *testing.T, name string, g *graph.Graph, op Op, p bcast.Plan, lhs []float32, lt Target, rhs []float32, rt Target, want []float64) []float32 {
	t.Helper()
	got := make([]float32, g.NumEdges()*p.OutLen)
	Forward(got, g, op, lhs, lt, rhs, rt, p)
	goPath := make([]float32, len(got))
	useAVX2 = false
	Forward(goPath, g, op, lhs, lt, rhs, rt, p)
	useAVX2 = true
	for i, w := range want {
		a, b := got[i], goPath[i]
		if math.IsNaN(w) {
			if a == a || b == b {
				t.Fatalf("%s: element %d is %v with AVX2, %v in Go, want NaN", name, i, a, b)
			}
			continue
		}
		if math.Float32bits(a) != math.Float32bits(b) {
			t.Fatalf("%s: element %d is %v with AVX2, %v in Go", name, i, a, b)
		}
	}
	return got
}
