package ops_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// cosReference computes UCosV edge by edge.
func cosReference(g *graph.Graph, a, b []float64, f int, eps float64) []float64 {
	src, dst := g.COO()
	out := make([]float64, len(src))
	for e := range src {
		u, v := int(src[e]), int(dst[e])
		var d, na, nb float64
		for i := range f {
			x, y := a[u*f+i], b[v*f+i]
			d += x * y
			na += x * x
			nb += y * y
		}
		out[e] = d / (math.Max(math.Sqrt(na), eps) * math.Max(math.Sqrt(nb), eps))
	}
	return out
}

// distMultReference computes DistMult edge by edge.
func distMultReference(g *graph.Graph, a, w, b []float64, rel []int32, f int) []float64 {
	src, dst := g.COO()
	out := make([]float64, len(src))
	for e := range src {
		u, v, r := int(src[e]), int(dst[e]), int(rel[e])
		for i := range f {
			out[e] += a[u*f+i] * w[r*f+i] * b[v*f+i]
		}
	}
	return out
}

// relations draws a relation index in [0, r) for every edge of g.
func relations(g *graph.Graph, r int, rng *rand.Rand) []int32 {
	rel := make([]int32, g.NumEdges())
	for e := range rel {
		rel[e] = int32(rng.IntN(r))
	}
	return rel
}

// TestUCosV checks the fused cosine against a per-pair loop and its
// gradients by finite differences, on a homogeneous and a bipartite graph,
// with separate operands and, on the homogeneous graph, one node as both
// (the pair-graph use: both gradients add up); with eps = 1.5 some rows of
// norm below eps are clamped (a kink, so float32 is compared with float64
// gradients only there).
func TestUCosV(t *testing.T) {
	t.Parallel()
	seed := uint64(3100)
	fixtures := gradcheck.Fixtures(t)
	for _, gname := range slices.Sorted(maps.Keys(fixtures)) {
		g := fixtures[gname]
		// One feature is left out: the cosine of two scalars is their
		// signs' product, with gradient 0.
		for _, f := range []int{2, 3, 6} {
			for _, eps := range []float64{1e-8, 1.5} {
				for _, shared := range []bool{false, true} {
					if shared && g.NumSrc() != g.NumDst() {
						continue
					}
					for _, dt := range gradcheck.Dtypes {
						seed++
						name := fmt.Sprintf("%s/f=%d/eps=%g/shared=%v/%v", gname, f, eps, shared, dt)
						t.Run(name, func(t *testing.T) {
							build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, []float64, error) {
								av := gradcheck.Draw(r, g.NumSrc()*f)
								a := gradcheck.Input(eg, dt, "a", []int{g.NumSrc(), f}, av)
								if shared {
									out, err := ops.UCosV(g, a, a, eps)
									return out, gorgonia.Nodes{a}, cosReference(g, av, av, f, eps), err
								}
								bv := gradcheck.Draw(r, g.NumDst()*f)
								b := gradcheck.Input(eg, dt, "b", []int{g.NumDst(), f}, bv)
								out, err := ops.UCosV(g, a, b, eps)
								return out, gorgonia.Nodes{a, b}, cosReference(g, av, bv, f, eps), err
							}
							out, _, want, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(seed, 1)))
							if err != nil {
								t.Fatal(err)
							}
							if s := out.Shape(); !s.Eq(tensor.Shape{g.NumEdges(), 1}) {
								t.Fatalf("shape %v, want (%d, 1)", s, g.NumEdges())
							}
							got := gradcheck.Run(t, out)[0]
							if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
								t.Errorf("score %d = %v, the per-pair loop gives %v", i, got[i], want[i])
							}
							fn := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
								out, wrt, _, err := build(eg, dt, r)
								return out, wrt, err
							}
							gradcheck.Check(t, dt, fn, gradcheck.Options{Seed: seed, Stream: 7, Float32Tol: 1e-4, NonSmooth: eps > 1})
						})
					}
				}
			}
		}
	}
}

// TestUCosVZeroRow checks that a zero row scores 0 with finite gradients
// (its norm is clamped by eps).
func TestUCosVZeroRow(t *testing.T) {
	g := gradcheck.Graph(t, 2, 2, []int32{0, 1}, []int32{1, 0})
	for _, dt := range gradcheck.Dtypes {
		eg := gorgonia.NewGraph()
		a := gradcheck.Input(eg, dt, "a", []int{2, 2}, []float64{0, 0, 3, 4})
		s, err := ops.UCosV(g, a, a, 1e-8)
		if err != nil {
			t.Fatal(err)
		}
		cost, err := gorgonia.Sum(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(cost, a); err != nil {
			t.Fatal(err)
		}
		vals := gradcheck.Run(t, s)
		for e, v := range vals[0] {
			if v != 0 {
				t.Errorf("%v: edge %d scores %v, want 0", dt, e, v)
			}
		}
		d, _ := a.Grad()
		for i, v := range gradcheck.Floats(d) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%v: gradient element %d is %v", dt, i, v)
			}
		}
	}
}

// TestDistMult checks the fused DistMult against a per-pair loop and its
// gradients with respect to both node operands and the relation table by
// finite differences, with one and three relations, separate and shared
// node operands.
func TestDistMult(t *testing.T) {
	t.Parallel()
	seed := uint64(3300)
	fixtures := gradcheck.Fixtures(t)
	for _, gname := range slices.Sorted(maps.Keys(fixtures)) {
		g := fixtures[gname]
		for _, f := range []int{1, 5} {
			for _, nr := range []int{1, 3} {
				for _, shared := range []bool{false, true} {
					if shared && g.NumSrc() != g.NumDst() {
						continue
					}
					for _, dt := range gradcheck.Dtypes {
						seed++
						rel := relations(g, nr, rand.New(rand.NewPCG(seed, 2)))
						name := fmt.Sprintf("%s/f=%d/r=%d/shared=%v/%v", gname, f, nr, shared, dt)
						t.Run(name, func(t *testing.T) {
							build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, []float64, error) {
								av, wv := gradcheck.Draw(r, g.NumSrc()*f), gradcheck.Draw(r, nr*f)
								a := gradcheck.Input(eg, dt, "a", []int{g.NumSrc(), f}, av)
								w := gradcheck.Input(eg, dt, "w", []int{nr, f}, wv)
								if shared {
									out, err := ops.DistMult(g, a, w, a, rel)
									return out, gorgonia.Nodes{a, w}, distMultReference(g, av, wv, av, rel, f), err
								}
								bv := gradcheck.Draw(r, g.NumDst()*f)
								b := gradcheck.Input(eg, dt, "b", []int{g.NumDst(), f}, bv)
								out, err := ops.DistMult(g, a, w, b, rel)
								return out, gorgonia.Nodes{a, w, b}, distMultReference(g, av, wv, bv, rel, f), err
							}
							out, _, want, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(seed, 1)))
							if err != nil {
								t.Fatal(err)
							}
							if s := out.Shape(); !s.Eq(tensor.Shape{g.NumEdges(), 1}) {
								t.Fatalf("shape %v, want (%d, 1)", s, g.NumEdges())
							}
							got := gradcheck.Run(t, out)[0]
							if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
								t.Errorf("score %d = %v, the per-pair loop gives %v", i, got[i], want[i])
							}
							fn := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
								out, wrt, _, err := build(eg, dt, r)
								return out, wrt, err
							}
							gradcheck.Check(t, dt, fn, gradcheck.Options{Seed: seed, Stream: 7, Float32Tol: 1e-4})
						})
					}
				}
			}
		}
	}
}

// TestPairScoreErrors checks that bad operands are reported, naming what
// was wrong.
func TestPairScoreErrors(t *testing.T) {
	g := gradcheck.Graph(t, 3, 3, []int32{0, 1}, []int32{1, 2})
	empty := gradcheck.Graph(t, 3, 3, nil, nil)
	eg := gorgonia.NewGraph()
	a := gradcheck.Zeros(eg, tensor.Float64, "a", 3, 4)
	a5 := gradcheck.Zeros(eg, tensor.Float64, "a5", 3, 5)
	a32 := gradcheck.Zeros(eg, tensor.Float32, "a32", 3, 4)
	short := gradcheck.Zeros(eg, tensor.Float64, "short", 2, 4)
	w := gradcheck.Zeros(eg, tensor.Float64, "w", 2, 4)
	w3 := gradcheck.Zeros(eg, tensor.Float64, "w3", 2, 3)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil graph", second(ops.UCosV(nil, a, a, 1e-8)), "nil graph"},
		{"no edges", second(ops.UCosV(empty, a, a, 1e-8)), "no edges"},
		{"eps", second(ops.UCosV(g, a, a, 0)), "eps"},
		{"rows", second(ops.UCosV(g, short, a, 1e-8)), "has 2 rows"},
		{"widths", second(ops.UCosV(g, a, a5, 1e-8)), "one width"},
		{"dtype", second(ops.UCosV(g, a, a32, 1e-8)), "dtype"},
		{"nil table", second(ops.DistMult(g, a, nil, a, []int32{0, 0})), "nil"},
		{"table width", second(ops.DistMult(g, a, w3, a, []int32{0, 0})), "want (relations, 4)"},
		{"relation count", second(ops.DistMult(g, a, w, a, []int32{0})), "1 relation indices for 2 edges"},
		{"relation range", second(ops.DistMult(g, a, w, a, []int32{0, 2})), "edge 1 has relation 2"},
		{"negative relation", second(ops.DistMult(g, a, w, a, []int32{-1, 0})), "edge 0 has relation -1"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestDistMultHash checks that two DistMult ops over one graph with
// different relation lists stay two nodes.
func TestDistMultHash(t *testing.T) {
	g := gradcheck.Graph(t, 3, 3, []int32{0, 1}, []int32{1, 2})
	eg := gorgonia.NewGraph()
	a := gradcheck.Input(eg, tensor.Float64, "a", []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	w := gradcheck.Input(eg, tensor.Float64, "w", []int{2, 2}, []float64{1, 1, -1, -1})
	s0, err := ops.DistMult(g, a, w, a, []int32{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	s1, err := ops.DistMult(g, a, w, a, []int32{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if s0 == s1 {
		t.Fatal("DistMult over different relations merged into one node")
	}
	v := gradcheck.Run(t, s0, s1)
	if v[0][1] == v[1][1] {
		t.Errorf("edge 1 scores %v under both relation lists", v[0][1])
	}
}
