package sddmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
)

// shapeCase is an operation on two feature shapes.
type shapeCase struct {
	op   Op
	l, r []int
}

// shapeCases covers every op with shapes that exercise each kernel path:
// equal shapes (rows and scalars), broadcasting of heads ((H,D) with (1,D)
// and (H,1)), scalars against vectors, outer products, and dot products with
// and without heads, broadcasting, and segment lengths that are and are not
// multiples of the unrolling.
func shapeCases() []shapeCase {
	var cs []shapeCase
	for _, op := range []Op{Add, Sub, Mul, Div} {
		for _, s := range [][2][]int{
			{{3, 4}, {3, 4}},
			{{1}, {1}},
			{{}, {}},
			{{4, 3}, {1, 3}},
			{{4, 3}, {4, 1}},
			{{4, 1}, {4, 3}},
			{{5}, {1}},
			{{1}, {5}},
			{{2, 1}, {1, 3}},
		} {
			cs = append(cs, shapeCase{op, s[0], s[1]})
		}
	}
	for _, s := range [][2][]int{
		{{4, 8}, {4, 8}},
		{{4, 3}, {4, 3}},
		{{2, 12}, {2, 12}},
		{{4, 8}, {1, 8}},
		{{1, 5}, {3, 5}},
		{{8}, {8}},
		{{1}, {1}},
		{{2, 2, 4}, {2, 1, 4}},
		{{8, 2}, {8, 2}},
		{{2, 4}, {2, 4}},
		{{3, 2}, {3, 2}},
	} {
		cs = append(cs, shapeCase{Dot, s[0], s[1]})
	}
	for _, s := range [][]int{{3, 4}, {1}, {5}} {
		cs = append(cs, shapeCase{CopyLHS, s, nil}, shapeCase{CopyRHS, nil, s})
	}
	// Copies through a broadcasting plan.
	cs = append(cs, shapeCase{CopyLHS, []int{1, 3}, []int{4, 3}}, shapeCase{CopyRHS, []int{2, 1}, []int{1}})
	return cs
}

// plan builds the broadcast plan of a case as the op layer would; a copy
// with both shapes broadcasts its operand to their joint shape.
func (c shapeCase) plan(t testing.TB) bcast.Plan {
	switch {
	case c.op == CopyLHS && c.r == nil:
		return bcast.Same(c.l)
	case c.op == CopyRHS && c.l == nil:
		return bcast.Same(c.r)
	}
	p, err := bcast.New(c.l, c.r, c.op == Dot)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestForward(t *testing.T) {
	t.Parallel()
	t.Run("float64", testForward[float64])
	t.Run("float32", testForward[float32])
}

// testForward checks every op, every pair of targets and every shape case on
// every fixture against the reference loop.
func testForward[T num.Float](t *testing.T) {
	// Tolerances: float64 results are exact up to a few roundings of values
	// near 1; float32 dot products of up to 8 terms round each of about 16
	// operations at 6e-8 relative.
	tol := 1e-13
	if isFloat32[T]() {
		tol = 2e-6
	}
	rng := rand.New(rand.NewPCG(2, 2))
	targets := []Target{U, E, V}
	for _, f := range fixtures(t) {
		for _, c := range shapeCases() {
			p := c.plan(t)
			for _, lt := range targets {
				for _, rt := range targets {
					name := fmt.Sprintf("%s/%v_%v_%v/%v,%v", f.Name, lt, c.op, rt, c.l, c.r)
					lhs := operand[T](rng, lt.Rows(f.G)*size(c.l))
					rhs := operand[T](rng, rt.Rows(f.G)*size(c.r))
					if c.op == CopyLHS {
						rhs = nil
					}
					if c.op == CopyRHS {
						lhs = nil
					}
					want, oshape := reference(f.G, c.op, lhs, c.l, lt, rhs, c.r, rt)
					if size(oshape) != p.OutLen {
						t.Fatalf("%s: plan output length %d, reference shape %v", name, p.OutLen, oshape)
					}
					got := make([]T, f.G.NumEdges()*p.OutLen)
					for i := range got {
						got[i] = T(math.NaN()) // every element must be overwritten
					}
					Forward(got, f.G, c.op, lhs, lt, rhs, rt, p)
					if i, ok := within(got, want, tol); !ok {
						t.Errorf("%s: element %d is %v, want %v", name, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestFastPaths checks the shapes the benchmarks and GAT use, on a graph
// large enough to be split over goroutines.
func TestFastPaths(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	g := randomGraph(t, rng, 300, 200, 5000)
	for _, c := range []shapeCase{
		{Dot, []int{8, 8}, []int{8, 8}},
		{Add, []int{8, 1}, []int{8, 1}},
		{Add, []int{8}, []int{8}},
		{Mul, []int{64}, []int{64}},
		{Mul, []int{8, 16}, []int{8, 1}},
		{CopyLHS, []int{16}, nil},
	} {
		for _, tg := range [][2]Target{{U, V}, {V, U}, {E, V}, {U, E}} {
			lt, rt := tg[0], tg[1]
			p := c.plan(t)
			lhs := operand[float32](rng, lt.Rows(g)*size(c.l))
			rhs := operand[float32](rng, rt.Rows(g)*size(c.r))
			want, _ := reference(g, c.op, lhs, c.l, lt, rhs, c.r, rt)
			got := make([]float32, g.NumEdges()*p.OutLen)
			Forward(got, g, c.op, lhs, lt, rhs, rt, p)
			if i, ok := within(got, want, 2e-6); !ok {
				t.Errorf("%v_%v_%v %v,%v: element %d is %v, want %v", lt, c.op, rt, c.l, c.r, i, got[i], want[i])
			}
		}
	}
}

// TestLargeTables checks the path that touches gathered rows ahead: node
// tables larger than cacheBytes.
func TestLargeTables(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	var src, dst []int32
	for range 12 {
		src, dst = append(src, int32(rng.IntN(40))), append(dst, int32(rng.IntN(30)))
	}
	g := mustGraph(t, 40, 30, src, dst)
	const f = cacheBytes/8/30 + 8 // float64 rows: each table just over cacheBytes
	for _, c := range []shapeCase{
		{Dot, []int{f / 8, 8}, []int{f / 8, 8}},
		{CopyLHS, []int{f}, nil},
	} {
		p := c.plan(t)
		lhs := operand[float64](rng, g.NumSrc()*p.LhsLen)
		rhs := operand[float64](rng, g.NumDst()*p.RhsLen)
		want, _ := reference(g, c.op, lhs, c.l, U, rhs, c.r, V)
		got := make([]float64, g.NumEdges()*p.OutLen)
		Forward(got, g, c.op, lhs, U, rhs, V, p)
		if i, ok := within(got, want, 1e-13); !ok {
			t.Errorf("u_%v_v: element %d is %v, want %v", c.op, i, got[i], want[i])
		}
	}
}

// TestDeterministic checks that one and two goroutines give the same bits.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	g := randomGraph(t, rng, 1000, 1000, 60000)
	for _, c := range []shapeCase{
		{Dot, []int{8, 8}, []int{8, 8}},
		{Add, []int{8, 1}, []int{8, 1}},
		{Div, []int{4, 3}, []int{4, 1}},
	} {
		p := c.plan(t)
		lhs := operand[float32](rng, g.NumSrc()*size(c.l))
		rhs := operand[float32](rng, g.NumDst()*size(c.r))
		run := func(procs int) []float32 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			out := make([]float32, g.NumEdges()*p.OutLen)
			Forward(out, g, c.op, lhs, U, rhs, V, p)
			return out
		}
		one, two := run(1), run(2)
		for i := range one {
			if math.Float32bits(one[i]) != math.Float32bits(two[i]) {
				t.Errorf("%v %v,%v: element %d is %v with 1 goroutine, %v with 2", c.op, c.l, c.r, i, one[i], two[i])
				break
			}
		}
	}
}

func TestForwardPanics(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, 3, 2, []int32{0, 1, 2}, []int32{0, 1, 1})
	dot, _ := bcast.New([]int{2, 4}, []int{2, 4}, true)
	add, _ := bcast.New([]int{2, 4}, []int{2, 1}, false)
	same := bcast.Same([]int{4})
	x3, x2 := make([]float64, 12), make([]float64, 8)
	for _, c := range []struct {
		name string
		call func()
		msg  string
	}{
		{"out", func() { Forward(make([]float64, 5), g, Mul, x3, U, x3, U, same) }, "out has length 5"},
		{"lhs", func() { Forward(make([]float64, 12), g, Mul, x2, U, x3, U, same) }, "lhs on u has length 8"},
		{"rhs", func() { Forward(make([]float64, 12), g, Mul, x3, U, x3, V, same) }, "rhs on v has length 12"},
		{"rhs-copy", func() { Forward(make([]float64, 12), g, CopyRHS, nil, U, x2, U, same) }, "rhs on u has length 8"},
		{"lhs-copy", func() { Forward(make([]float64, 12), g, CopyLHS, x3, V, nil, U, same) }, "lhs on v has length 12, want 8"},
		{"dot-plan", func() { Forward(make([]float64, 6), g, Add, x3, U, x3, E, dot) }, "plan whose Dot is true"},
		{"not-dot-plan", func() { Forward(make([]float64, 24), g, Dot, x3, U, make([]float64, 6), U, add) }, "plan whose Dot is false"},
		{"op", func() { Forward(make([]float64, 12), g, Op(99), x3, U, x3, U, same) }, "unknown Op(99)"},
		{"target", func() { Forward(make([]float64, 12), g, Add, x3, Target(7), x3, U, same) }, "unknown Target(7)"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.msg) {
					t.Errorf("%s: panic %v, want one containing %q", c.name, r, c.msg)
				}
			}()
			c.call()
		}()
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	var got []string
	for _, tg := range []Target{U, E, V, 9} {
		got = append(got, tg.String())
	}
	for _, op := range []Op{Add, Sub, Mul, Div, Dot, CopyLHS, CopyRHS, 42} {
		got = append(got, op.String())
	}
	want := "u e v Target(9) add sub mul div dot copy_lhs copy_rhs Op(42)"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %q, want %q", s, want)
	}
}

// operand returns n values in ±[0.5, 1.5), away from 0 so Div is tame.
func operand[T num.Float](rng *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		v := 0.5 + rng.Float64()
		if rng.IntN(2) == 0 {
			v = -v
		}
		x[i] = T(v)
	}
	return x
}

// close reports the first element where got and want differ by more than
// tol relative to max(1, |want|).
func within[T num.Float](got []T, want []float64, tol float64) (int, bool) {
	if len(got) != len(want) {
		return 0, false
	}
	for i, w := range want {
		g := float64(got[i])
		if !(math.Abs(g-w) <= tol*max(1, math.Abs(w))) {
			return i, false
		}
	}
	return 0, true
}

func isFloat32[T num.Float]() bool {
	var x T = 1 << 30
	return T(float64(x)+1) == x
}
