package sddmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// The AVX2 kernel runs in the other tests when the machine has it; these
// tests check the pure-Go path on the same machine and compare the two.
// They toggle a package variable, so they do not run in parallel with the
// other tests (which wait for them).

// withoutAccel turns the AVX2 kernel off for the rest of the test.
func withoutAccel(t *testing.T) {
	saved := useAVX2
	useAVX2 = false
	t.Cleanup(func() { useAVX2 = saved })
}

func TestForwardPureGo(t *testing.T) {
	withoutAccel(t)
	t.Run("float32", testForward[float32])
}

// TestDot8Accel compares the AVX2 dot products of eight-element heads with
// the pure-Go loop and with the float64 reference, for 8, 16 and 24 heads
// of 8 elements and 8 heads of 16 and 24 (computed in parts of 8), gathered
// and edge operands, and operands of very different magnitudes.
func TestDot8Accel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	t.Run("small", func(t *testing.T) {
		testDot8Accel(t, rng, randomGraph(t, rng, 300, 200, 5000), [][2]int{{8, 8}, {16, 8}, {24, 8}, {8, 16}, {8, 24}})
	})
	if testing.Short() {
		return
	}
	// Source rows beyond cacheBytes turn prefetching on, and edge ranges
	// of more than rows8Chunk edges take several kernel calls.
	ns := cacheBytes/(8*8*4) + 100
	g := randomGraph(t, rng, ns, 300, 80000)
	t.Run("large", func(t *testing.T) { testDot8Accel(t, rng, g, [][2]int{{8, 8}}) })
}

// testDot8Accel runs the comparisons of TestDot8Accel on g.
func testDot8Accel(t *testing.T, rng *rand.Rand, g *graph.Graph, shapes [][2]int) {
	for _, hd := range shapes {
		heads, d := hd[0], hd[1]
		c := shapeCase{Dot, []int{heads, d}, []int{heads, d}}
		p := c.plan(t)
		for _, tg := range [][2]Target{{U, V}, {V, U}, {E, V}, {U, E}} {
			for _, scale := range []float64{1, 1e-20, 1e15} {
				lt, rt := tg[0], tg[1]
				lhs := operand[float32](rng, lt.Rows(g)*p.LhsLen)
				rhs := operand[float32](rng, rt.Rows(g)*p.RhsLen)
				for i := range lhs {
					// Mixed magnitudes within a head: cancellation and
					// rounding depend on the summation order.
					lhs[i] *= float32(scale * math.Pow(2, float64(rng.IntN(20)-10)))
				}
				name := fmt.Sprintf("%v_dot_%v/%dx%d/scale %g", lt, rt, heads, d, scale)
				want, _ := reference(g, Dot, lhs, c.l, lt, rhs, c.r, rt)
				mag, _ := reference(g, Dot, absAll(lhs), c.l, lt, absAll(rhs), c.r, rt)
				got := make([]float32, g.NumEdges()*p.OutLen)
				Forward(got, g, Dot, lhs, lt, rhs, rt, p)
				goPath := make([]float32, len(got))
				useAVX2 = false
				Forward(goPath, g, Dot, lhs, lt, rhs, rt, p)
				useAVX2 = true
				diff := 0
				for i, w := range want {
					tol := 1e-5 * mag[i] // relative to the sum of |terms|
					if !(math.Abs(float64(got[i])-w) <= tol) {
						t.Fatalf("%s: AVX2 element %d is %v, want %v", name, i, got[i], w)
					}
					if !(math.Abs(float64(goPath[i])-w) <= tol) {
						t.Fatalf("%s: Go element %d is %v, want %v", name, i, goPath[i], w)
					}
					if !(math.Abs(float64(got[i])-float64(goPath[i])) <= tol) {
						t.Fatalf("%s: element %d is %v with AVX2, %v in Go", name, i, got[i], goPath[i])
					}
					if got[i] != goPath[i] {
						diff++
					}
				}
				if diff > 0 {
					t.Logf("%s: %d of %d elements differ in the last bits", name, diff, len(got))
				}
			}
		}
	}
}

// TestDot8AccelSpecial checks that infinities and NaNs propagate through
// the AVX2 kernel as through the Go loop.
func TestDot8AccelSpecial(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this machine or build")
	}
	g := mustGraph(t, 3, 2, []int32{0, 1, 2}, []int32{0, 1, 1})
	c := shapeCase{Dot, []int{8, 8}, []int{8, 8}}
	p := c.plan(t)
	lhs := make([]float32, 3*64)
	rhs := make([]float32, 2*64)
	for i := range lhs {
		lhs[i] = float32(i%5) - 2
	}
	for i := range rhs {
		rhs[i] = 1
	}
	inf := float32(math.Inf(1))
	lhs[3] = inf                     // edge 0, head 0: +Inf
	lhs[64+8], lhs[64+9] = inf, -inf // edge 1, head 1: Inf - Inf = NaN
	lhs[128+63] = float32(math.NaN())
	got := make([]float32, 3*8)
	Forward(got, g, Dot, lhs, U, rhs, V, p)
	want := make([]float32, len(got))
	useAVX2 = false
	Forward(want, g, Dot, lhs, U, rhs, V, p)
	useAVX2 = true
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) &&
			!(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
			t.Errorf("element %d is %v with AVX2, %v in Go", i, got[i], want[i])
		}
	}
	if !math.IsInf(float64(got[0]), 1) || !math.IsNaN(float64(got[9])) || !math.IsNaN(float64(got[23])) {
		t.Errorf("special values lost: %v", got)
	}
}

// TestBin8Accel compares the AVX2 elementwise operations with the pure-Go
// loops, which compute the same single IEEE operation per element and so
// must give the same bits, and with the float64 reference: add, sub, mul,
// div and copy on rows of 8, 16, 24 and 8x8 elements, gathered and edge
// operands, NaN, infinities, zeros and subnormals among them; on a graph
// whose node table outgrows cacheBytes too (prefetching, several calls).
func TestBin8Accel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(8, 8))
	graphs := []*graph.Graph{randomGraph(t, rng, 300, 200, 5000)}
	if !testing.Short() {
		graphs = append(graphs, randomGraph(t, rng, cacheBytes/(8*4)+100, 300, 20000*8))
	}
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40}
	for gi, g := range graphs {
		for _, op := range []Op{Add, Sub, Mul, Div, CopyLHS} {
			for _, shape := range [][]int{{8}, {16}, {24}, {8, 8}} {
				targets := [][2]Target{{U, V}, {V, U}, {E, V}, {U, E}}
				if gi > 0 {
					if len(shape) > 1 || shape[0] > 8 {
						continue
					}
					targets = targets[:1] // both operands gathered and prefetched
				}
				c := shapeCase{op, shape, shape}
				p := c.plan(t)
				for _, tg := range targets {
					lt, rt := tg[0], tg[1]
					lhs := operand[float32](rng, lt.Rows(g)*p.LhsLen)
					rhs := operand[float32](rng, rt.Rows(g)*p.RhsLen)
					for range len(lhs) / 50 {
						lhs[rng.IntN(len(lhs))] = specials[rng.IntN(len(specials))]
						rhs[rng.IntN(len(rhs))] = specials[rng.IntN(len(specials))]
					}
					if op == CopyLHS {
						rhs = nil // a copy reads no rhs
					}
					name := fmt.Sprintf("graph %d/%v_%v_%v/%v", gi, lt, op, rt, shape)
					k := newKernel(make([]float32, 1), op, lhs, nil, rhs, nil, p)
					if !k.bin8 {
						t.Fatalf("%s: the AVX2 kernel does not apply", name)
					}
					want, _ := reference(g, op, lhs, c.l, lt, rhs, c.r, rt)
					got := accelMatchesGo(t, name, g, op, p, lhs, lt, rhs, rt, want)
					for i, w := range want {
						a := got[i]
						if math.IsNaN(w) {
							continue
						}
						if float64(a) != float64(float32(w)) {
							t.Fatalf("%s: element %d is %v, want %v", name, i, a, float32(w))
						}
					}
				}
			}
		}
	}
}

// absAll returns the magnitudes of the elements of x.
func absAll(x []float32) []float32 {
	a := make([]float32, len(x))
	for i, v := range x {
		a[i] = float32(math.Abs(float64(v)))
	}
	return a
}
