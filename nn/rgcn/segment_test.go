package rgcn_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn/rgcn"
)

// segCase is a SegmentMatMul configuration.
type segCase struct {
	name       string
	blocks     int  // 1: full weights
	norm       bool // edge norms
	loop, bias bool
	lo, hi     int  // destination range; hi 0 for all
	narrow     bool // norms kept in float32 only (Relations.Float32)
}

var segCases = []segCase{
	{"full", 1, true, true, true, 0, 0, false},
	{"full-nonorm", 1, false, false, false, 0, 0, false},
	{"bdd2", 2, true, true, true, 0, 0, false},
	{"range", 1, true, true, true, 2, 6, false},
	{"bdd2-range-nobias", 2, true, true, false, 3, 9, false},
	// Relation 2 lies wholly in [0, 5): the range shares its edges (and,
	// with float32-only norms, those norms).
	{"range-whole-f32norms", 2, true, true, true, 0, 5, true},
	{"full-f32norms", 1, true, true, false, 0, 0, true},
}

const segNodes, segEdges, segRels = 9, 30, 3

// segFixture draws a graph with a relation per edge (relation 2 only on
// edges into nodes 0-4, so a range misses it) and norms.
func segFixture(t testing.TB) (src, dst, et []int32, norm []float64, full *rgcn.Relations) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := testgraphs.Random(t, rng, segNodes, segNodes, segEdges)
	src, dst = g.COO()
	et = make([]int32, len(src))
	norm = make([]float64, len(src))
	for e := range et {
		et[e] = int32(rng.IntN(segRels))
		if et[e] == 2 && dst[e] > 4 {
			et[e] = 1
		}
		norm[e] = 0.25 + rng.Float64()
	}
	return src, dst, et, norm, nil
}

func segRelations(t testing.TB, c segCase) (*rgcn.Relations, []int32, []int32, []int32, []float64) {
	src, dst, et, norm, _ := segFixture(t)
	g := testgraphs.Must(t, segNodes, segNodes, src, dst)
	nr := norm
	if !c.norm {
		nr = nil
	}
	rel, err := rgcn.Group(g, et, segRels, nr)
	if err != nil {
		t.Fatal(err)
	}
	if c.narrow {
		rel = rel.Float32()
		nr = make([]float64, len(norm)) // what the layers read: each norm rounded to float32
		for e, v := range norm {
			nr[e] = float64(float32(v))
		}
	}
	if c.hi > 0 {
		if rel, err = rel.DstRange(c.lo, c.hi); err != nil {
			t.Fatal(err)
		}
	}
	return rel, src, dst, et, nr
}

// segInputs adds x, w, the self-loop weight and bias of c to eg.
func segInputs(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand, c segCase, in, out int) (x, w, loop, bias *gorgonia.Node) {
	x = gradcheck.Input(eg, dt, "x", []int{segNodes, in}, gradcheck.Draw(r, segNodes*in))
	if c.blocks == 1 {
		w = gradcheck.Input(eg, dt, "w", []int{segRels, in, out}, gradcheck.Draw(r, segRels*in*out))
	} else {
		b := c.blocks
		w = gradcheck.Input(eg, dt, "w", []int{segRels, b, in / b, out / b}, gradcheck.Draw(r, segRels*in*out/b))
	}
	if c.loop {
		loop = gradcheck.Input(eg, dt, "loop", []int{in, out}, gradcheck.Draw(r, in*out))
	}
	if c.bias {
		bias = gradcheck.Input(eg, dt, "bias", []int{out}, gradcheck.Draw(r, out))
	}
	return x, w, loop, bias
}

// orders runs test with each relation multiplied first and summed first
// (with the sums and products made 16384 rows at a time, and 2), and by
// cost.
func orders(t *testing.T, test func(t *testing.T)) {
	for o, name := range []string{"cost", "product", "sum", "sum-chunks", "product-chunks"} {
		t.Run(name, func(t *testing.T) {
			switch name {
			case "sum-chunks":
				o = 2
				defer rgcn.SetChunkRows(2)()
			case "product-chunks":
				o = 1
				defer rgcn.SetChunkRows(2)()
			}
			defer rgcn.SetOrder(o)()
			test(t)
		})
	}
}

// TestSegmentMatMulDense compares SegmentMatMul with the sum over every
// edge of the graph of norm x[src] W_r, written out with dense weights.
func TestSegmentMatMulDense(t *testing.T) {
	orders(t, func(t *testing.T) {
		for _, c := range segCases {
			for _, io := range [][2]int{{4, 6}, {6, 2}} {
				in, out := io[0], io[1]
				for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
					rel, src, dst, et, norm := segRelations(t, c)
					eg := gorgonia.NewGraph()
					x, w, loop, bias := segInputs(eg, dt, rand.New(rand.NewPCG(1, 2)), c, in, out)
					y, err := rgcn.SegmentMatMul(rel, x, w, loop, bias)
					if err != nil {
						t.Fatal(err)
					}
					nodes := gorgonia.Nodes{y, x, w}
					if loop != nil {
						nodes = append(nodes, loop)
					}
					if bias != nil {
						nodes = append(nodes, bias)
					}
					v := gradcheck.Run(t, nodes...)
					xv, wv := v[1], v[2]
					lo, hi := 0, segNodes
					if c.hi > 0 {
						lo, hi = c.lo, c.hi
					}
					want := make([]float64, (hi-lo)*out)
					weight := func(r, k, j int) float64 { // W_r[k][j], dense
						if c.blocks == 1 {
							return wv[(r*in+k)*out+j]
						}
						bi, bo := in/c.blocks, out/c.blocks
						if k/bi != j/bo {
							return 0
						}
						b := k / bi
						return wv[(((r*c.blocks+b)*bi)+k%bi)*bo+j%bo]
					}
					for e := range src {
						d := int(dst[e])
						if d < lo || d >= hi {
							continue
						}
						cn := 1.0
						if norm != nil {
							cn = norm[e]
						}
						for j := range out {
							for k := range in {
								want[(d-lo)*out+j] += cn * xv[int(src[e])*in+k] * weight(int(et[e]), k, j)
							}
						}
					}
					next := 3
					if loop != nil {
						lv := v[next]
						next++
						for d := lo; d < hi; d++ {
							for j := range out {
								for k := range in {
									want[(d-lo)*out+j] += xv[d*in+k] * lv[k*out+j]
								}
							}
						}
					}
					if bias != nil {
						for i := range want {
							want[i] += v[next][i%out]
						}
					}
					tol := 1e-12
					if dt == tensor.Float32 {
						tol = 1e-5
					}
					gradcheck.Expect(t, fmt.Sprintf("%s %dx%d %v", c.name, in, out, dt), v[0], want, tol)
				}
			}
		}
	})
}

// TestSegmentMatMulGradients checks the gradients of x, w, the self-loop
// weight and the bias by finite differences, in float64 and float32.
func TestSegmentMatMulGradients(t *testing.T) {
	orders(t, func(t *testing.T) {
		for _, c := range segCases {
			for _, io := range [][2]int{{4, 6}, {6, 2}} {
				in, out := io[0], io[1]
				t.Run(fmt.Sprintf("%s/%dx%d", c.name, in, out), func(t *testing.T) {
					f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
						rel, _, _, _, _ := segRelations(t, c)
						x, w, loop, bias := segInputs(eg, dt, r, c, in, out)
						y, err := rgcn.SegmentMatMul(rel, x, w, loop, bias)
						wrt := gorgonia.Nodes{x, w}
						for _, p := range []*gorgonia.Node{loop, bias} {
							if p != nil {
								wrt = append(wrt, p)
							}
						}
						return y, wrt, err
					}
					for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
						gradcheck.Check(t, dt, f, gradcheck.Options{Seed: 3, Stream: 4, Float32Tol: 1e-4})
					}
				})
			}
		}
	})
}

// TestDstRange checks the compact form of a range: its sizes, the rows
// each relation touches, and that a relation with no edge into the range
// is empty.
func TestDstRange(t *testing.T) {
	rel, _, dst, et, _ := segRelations(t, segCase{norm: true})
	sub, err := rel.DstRange(5, 9)
	if err != nil {
		t.Fatal(err)
	}
	if sub.NumSrc() != segNodes || sub.NumDst() != 4 || sub.DstOffset() != 5 {
		t.Errorf("range sizes %d, %d, offset %d; want %d, 4, 5", sub.NumSrc(), sub.NumDst(), sub.DstOffset(), segNodes)
	}
	edges := 0
	for e := range dst {
		if dst[e] >= 5 {
			edges++
			if et[e] == 2 {
				t.Fatalf("fixture: relation 2 reaches node %d", dst[e])
			}
		}
	}
	if sub.NumEdges() != edges {
		t.Errorf("%d edges in range, want %d", sub.NumEdges(), edges)
	}
	if s, d := sub.Touched(2); s != 0 || d != 0 {
		t.Errorf("relation 2 touches %d sources and %d destinations in the range, want none", s, d)
	}
	for _, bad := range [][2]int{{-1, 3}, {4, 4}, {0, 10}} {
		if _, err := rel.DstRange(bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), "range") {
			t.Errorf("DstRange(%d, %d): %v", bad[0], bad[1], err)
		}
	}
}

func TestSegmentMatMulErrors(t *testing.T) {
	rel, _, _, _, _ := segRelations(t, segCase{norm: true})
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(1, 2))
	x, w, loop, bias := segInputs(eg, tensor.Float64, r, segCase{blocks: 1, loop: true, bias: true}, 4, 6)
	x32 := gradcheck.Input(eg, tensor.Float32, "x32", []int{segNodes, 4}, gradcheck.Draw(r, segNodes*4))
	short := gradcheck.Input(eg, tensor.Float64, "short", []int{segNodes - 1, 4}, gradcheck.Draw(r, (segNodes-1)*4))
	cases := []struct {
		name       string
		rel        *rgcn.Relations
		x, w, l, b *gorgonia.Node
		want       string
	}{
		{"nil relations", nil, x, w, loop, bias, "nil relations"},
		{"rows", rel, short, w, loop, bias, "want (9, in)"},
		{"weights", rel, x, loop, nil, nil, "want (3, 4, out)"},
		{"loop", rel, x, w, w, nil, "self-loop weight"},
		{"bias", rel, x, w, nil, loop, "bias"},
		{"dtype", rel, x32, w, nil, nil, "float32"},
	}
	for _, c := range cases {
		if _, err := rgcn.SegmentMatMul(c.rel, c.x, c.w, c.l, c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestSegmentMatMulDeterministic checks that the output and gradients have
// the same bits at GOMAXPROCS 1 and 2, on a graph large enough for the
// products and sums to run in parallel.
func TestSegmentMatMulDeterministic(t *testing.T) {
	const n, m, rels, in, out = 3000, 30000, 3, 16, 24
	r := rand.New(rand.NewPCG(7, 8))
	g := testgraphs.Random(t, r, n, n, m)
	et := make([]int32, g.NumEdges())
	norm := make([]float64, g.NumEdges())
	for e := range et {
		et[e], norm[e] = int32(r.IntN(rels)), r.Float64()
	}
	rel, err := rgcn.Group(g, et, rels, norm)
	if err != nil {
		t.Fatal(err)
	}
	run := func(procs int) [][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		eg := gorgonia.NewGraph()
		r := rand.New(rand.NewPCG(1, 2))
		x := gradcheck.Input(eg, tensor.Float32, "x", []int{n, in}, gradcheck.Draw(r, n*in))
		w := gradcheck.Input(eg, tensor.Float32, "w", []int{rels, 2, in / 2, out / 2}, gradcheck.Draw(r, rels*in*out/2))
		loop := gradcheck.Input(eg, tensor.Float32, "loop", []int{in, out}, gradcheck.Draw(r, in*out))
		y, err := rgcn.SegmentMatMul(rel, x, w, loop, nil)
		if err != nil {
			t.Fatal(err)
		}
		gs := gradcheck.Gradients(t, y, gorgonia.Nodes{x, w, loop}, rand.New(rand.NewPCG(3, 4)))
		return append(gradcheck.Run(t, y), gs...)
	}
	a, b := run(1), run(2)
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("value %d differs at %d: %v at GOMAXPROCS 1, %v at 2", i, j, a[i][j], b[i][j])
			}
		}
	}
}
