package spmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
)

var reducers = []Reduce{Sum, Mean, Max, Min}

func TestForward(t *testing.T) {
	t.Parallel()
	t.Run("float32", testForward[float32])
	t.Run("float64", testForward[float64])
}

// testForward checks every op, reducer and plan on every fixture graph
// against the COO-loop oracle, output and arg.
func testForward[T num.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	tol := kerneltest.Tolerance[T]()
	for _, tg := range testGraphs(t) {
		for _, c := range opCases(t) {
			u, e := operands[T](r, tg.g, c.op, c.p)
			for _, red := range reducers {
				name := fmt.Sprintf("%s/%s/%s/%s", tg.name, c.op, red, c.shape)
				want, wantArg := refForward(tg.g, c.op, red, u, e, c.p)
				got := make([]T, len(want))
				for i := range got {
					got[i] = T(math.NaN()) // Forward must overwrite
				}
				arg := make([]int64, len(want))
				for i := range arg {
					arg[i] = 12345
				}
				Forward(got, tg.g, c.op, red, u, e, c.p, arg)
				if i := mismatch(got, want, tol); i >= 0 {
					t.Errorf("%s: out[%d] = %v, want %v", name, i, got[i], want[i])
					continue
				}
				for i := range arg {
					w := wantArg[i]
					if red == Sum || red == Mean {
						w = 12345 // untouched
					}
					if arg[i] != w {
						t.Errorf("%s: arg[%d] = %d, want %d", name, i, arg[i], w)
						break
					}
				}
				if red == Max || red == Min { // nil arg is allowed
					Forward(got, tg.g, c.op, red, u, e, c.p, nil)
					if i := mismatch(got, want, tol); i >= 0 {
						t.Errorf("%s, nil arg: out[%d] = %v, want %v", name, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestForwardDense(t *testing.T) {
	t.Parallel()
	t.Run("float32", testForwardDense[float32])
	t.Run("float64", testForwardDense[float64])
}

// testForwardDense checks copy_u+sum against Aᵀ X and u_mul_e+sum with a
// scalar edge weight against Aᵀ X with a weighted adjacency, both by gonum.
func testForwardDense[T num.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	// float32 sums of up to ~60 terms of size 1 against float64: a few
	// hundred float32 ulps at worst.
	tol := 1e-4
	if kerneltest.Tolerance[T]() < 1e-6 {
		tol = 1e-12
	}
	for _, tg := range testGraphs(t) {
		for _, f := range []int{1, 3, 8, 33} {
			x := kerneltest.Uniform[T](r, tg.g.NumSrc()*f, -1, 1)
			got := make([]T, tg.g.NumDst()*f)
			Forward(got, tg.g, CopyU, Sum, x, nil, bcast.Same([]int{f}), nil)
			if i := mismatch(got, denseAggregate(tg.g, x, f, nil), tol); i >= 0 {
				t.Errorf("%s copy_u sum f=%d: mismatch at %d", tg.name, f, i)
			}
			w := kerneltest.Uniform[T](r, tg.g.NumEdges(), -1, 1)
			p, err := bcast.New([]int{f}, []int{1}, false)
			if err != nil {
				t.Fatal(err)
			}
			Forward(got, tg.g, Mul, Sum, x, w, p, nil)
			if i := mismatch(got, denseAggregate(tg.g, x, f, w), tol); i >= 0 {
				t.Errorf("%s u_mul_e sum f=%d: mismatch at %d", tg.name, f, i)
			}
		}
	}
}

// TestForwardZeroInDegree checks DGL's rule on a node with no in-edges: 0
// for every reducer and arg -1, even when every message is negative.
func TestForwardZeroInDegree(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, 3, 3, []int32{0, 1}, []int32{1, 1}) // nodes 0 and 2: no in-edges
	u := []float64{-3, -5, -7}
	for _, red := range reducers {
		out := []float64{9, 9, 9}
		arg := []int64{9, 9, 9}
		Forward(out, g, CopyU, red, u, nil, bcast.Same([]int{1}), arg)
		want := map[Reduce]float64{Sum: -8, Mean: -4, Max: -3, Min: -5}[red]
		if out[0] != 0 || out[2] != 0 || out[1] != want {
			t.Errorf("%s: out = %v, want [0 %v 0]", red, out, want)
		}
		if (red == Max || red == Min) && (arg[0] != -1 || arg[2] != -1) {
			t.Errorf("%s: arg = %v, want -1 at nodes 0 and 2", red, arg)
		}
	}
}

// TestForwardArgTies checks that ties go to the smallest edge ID, whatever
// the order of the COO list, per output element.
func TestForwardArgTies(t *testing.T) {
	t.Parallel()
	// Into node 0: edge 0 from 3, edge 1 from 1, edge 2 from 2, edge 3
	// from 1 (parallel to edge 1); edge 4 from 0 into node 1.
	g := mustGraph(t, 4, 2, []int32{3, 1, 2, 1, 0}, []int32{0, 0, 0, 0, 1})
	// Two features per node: feature 0 ties between sources 1 and 2 for
	// the max and is unique for the min; feature 1 is equal everywhere.
	u := []float64{
		0, 4, // node 0
		5, 4, // node 1
		5, 4, // node 2
		1, 4, // node 3
	}
	p := bcast.Same([]int{2})
	cases := []struct {
		red  Reduce
		out  []float64
		arg  []int64
		desc string
	}{
		{Max, []float64{5, 4, 0, 4}, []int64{1, 0, 4, 4}, "max"},
		{Min, []float64{1, 4, 0, 4}, []int64{0, 0, 4, 4}, "min"},
	}
	for _, c := range cases {
		out := make([]float64, 4)
		arg := make([]int64, 4)
		Forward(out, g, CopyU, c.red, u, nil, p, arg)
		for i := range out {
			if out[i] != c.out[i] || arg[i] != c.arg[i] {
				t.Errorf("copy_u %s: out %v arg %v, want %v %v", c.desc, out, arg, c.out, c.arg)
				break
			}
		}
	}
	// Edge values with ties through the general path: u*e with u = 1 on
	// every source, e = 2 on edges 1 and 2, and edge 3 equal to edge 1's
	// message through another source.
	e := []float64{1, 2, 2, 2, 7}
	ones := []float64{1, 1, 1, 1}
	ps, err := bcast.New([]int{1}, []int{1}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 2)
	arg := make([]int64, 2)
	Forward(out, g, Mul, Max, ones, e, ps, arg)
	if out[0] != 2 || arg[0] != 1 || out[1] != 7 || arg[1] != 4 {
		t.Errorf("u_mul_e max: out %v arg %v, want [2 7] [1 4]", out, arg)
	}
	Forward(out, g, CopyE, Max, nil, e, bcast.Same([]int{1}), arg)
	if out[0] != 2 || arg[0] != 1 {
		t.Errorf("copy_e max: out %v arg %v, want 2 at edge 1", out, arg)
	}
}

func TestForwardPanics(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, 3, 2, []int32{0, 1, 2}, []int32{0, 1, 1})
	same := bcast.Same([]int{2})
	heads, err := bcast.New([]int{2, 2}, []int{2, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	dot, err := bcast.New([]int{2}, []int{2}, true)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		fn   func()
		want string
	}{
		{"out", func() { Forward(make([]float32, 3), g, CopyU, Sum, make([]float32, 6), nil, same, nil) }, "len(out)"},
		{"u", func() { Forward(make([]float32, 4), g, CopyU, Sum, make([]float32, 5), nil, same, nil) }, "len(u)"},
		{"e", func() { Forward(make([]float32, 4), g, CopyE, Sum, nil, make([]float32, 5), same, nil) }, "len(e)"},
		{"e-heads", func() { Forward(make([]float32, 8), g, Mul, Sum, make([]float32, 12), make([]float32, 3), heads, nil) }, "len(e)"},
		{"arg", func() { Forward(make([]float32, 4), g, CopyU, Max, make([]float32, 6), nil, same, make([]int64, 3)) }, "len(arg)"},
		{"nil-e", func() { Forward(make([]float32, 4), g, Add, Sum, make([]float32, 6), nil, same, nil) }, "len(e)"},
		{"dot", func() { Forward(make([]float32, 2), g, Mul, Sum, make([]float32, 6), make([]float32, 6), dot, nil) }, "dot"},
		{"op", func() { Forward(make([]float32, 4), g, Op(9), Sum, make([]float32, 6), nil, same, nil) }, "unknown op"},
		{"reduce", func() { Forward(make([]float32, 4), g, CopyU, Reduce(9), make([]float32, 6), nil, same, nil) }, "unknown reducer"},
		{"backward-dout", func() {
			BackwardArg(make([]float32, 6), nil, g, CopyU, nil, nil, same, make([]int64, 4), make([]float32, 3))
		}, "len(dOut)"},
		{"backward-du", func() {
			BackwardArg(make([]float32, 5), nil, g, CopyU, nil, nil, same, make([]int64, 4), make([]float32, 4))
		}, "len(du)"},
		{"backward-e", func() {
			BackwardArg(make([]float32, 6), nil, g, Mul, make([]float32, 6), nil, same, make([]int64, 4), make([]float32, 4))
		}, "len(e)"},
	}
	for _, c := range cases {
		func() {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "spmm: ") || !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %v, want a message with %q", c.name, r, c.want)
				}
			}()
			c.fn()
		}()
	}
}

func TestStrings(t *testing.T) {
	t.Parallel()
	var got []string
	for op := range Div + 3 {
		got = append(got, op.String())
	}
	for r := range Min + 2 {
		got = append(got, r.String())
	}
	want := "copy_lhs copy_rhs add sub mul div dot Op(7) sum mean max min Reduce(4)"
	if strings.Join(got, " ") != want {
		t.Errorf("names %q, want %q", strings.Join(got, " "), want)
	}
}

// TestForwardLayouts checks that the plans reach the kernels meant for
// them, so the fast paths are the ones the oracle tests exercise.
func TestForwardLayouts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		op       Op
		lhs, rhs []int
		want     sumPath
	}{
		{CopyU, []int{8}, nil, sumCopyU},
		{CopyE, nil, []int{8}, sumCopyE},
		{Mul, []int{8}, []int{1}, sumScaled},
		{Mul, []int{8}, []int{}, sumScaled},
		{Mul, []int{8, 8}, []int{8, 1}, sumScaled},
		{Mul, []int{4}, []int{4}, sumSame},
		{Add, []int{8}, []int{1}, sumGeneral},
		{Mul, []int{1, 8}, []int{8, 1}, sumGeneral},
		{Mul, []int{8, 1}, []int{8, 8}, sumGeneral},
		{Mul, []int{70, 2}, []int{70, 1}, sumGeneral},
	} {
		l := newLayout(c.op, planFor(t, c.op, c.lhs, c.rhs))
		if got := chooseSumPath(&l); got != c.want {
			t.Errorf("%s %v %v: path %d, want %d", c.op, c.lhs, c.rhs, got, c.want)
		}
	}
}
