package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// attnSumSpec is the inputs of GATAttentionSum: z, el and er.
func attnSumSpec(heads, feat int) []operand {
	return []operand{{ops.U, []int{heads, feat}}, {ops.U, []int{heads, 1}}, {ops.V, []int{heads, 1}}}
}

func attnSumFused(slope float64) builder {
	return func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		return ops.GATAttentionSum(g, in[0], in[1], in[2], slope)
	}
}

// attnSumKept is what GATAttentionSum replaces: the attention kept per
// edge, then the weighted sum.
func attnSumKept(slope float64) builder {
	return func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		a, err := ops.GATAttention(g, in[1], in[2], slope)
		if err != nil {
			return nil, err
		}
		return ops.UMulESum(g, in[0], a)
	}
}

// refAttnSum computes GATAttentionSum edge by edge in float64: scores,
// softmax by destination, weighted sum.
func refAttnSum(g *graph.Graph, z, el, er []float64, heads, feat int, slope float64) []float64 {
	src, dst := g.COO()
	score := make([]float64, g.NumEdges()*heads)
	mx := make([]float64, g.NumDst()*heads)
	for i := range mx {
		mx[i] = math.Inf(-1)
	}
	for e := range src {
		u, v := int(src[e]), int(dst[e])
		for h := range heads {
			s := el[u*heads+h] + er[v*heads+h]
			if s < 0 {
				s *= slope
			}
			score[e*heads+h] = s
			mx[v*heads+h] = max(mx[v*heads+h], s)
		}
	}
	sum := make([]float64, g.NumDst()*heads)
	for e := range src {
		v := int(dst[e])
		for h := range heads {
			sum[v*heads+h] += math.Exp(score[e*heads+h] - mx[v*heads+h])
		}
	}
	out := make([]float64, g.NumDst()*heads*feat)
	for e := range src {
		u, v := int(src[e]), int(dst[e])
		for h := range heads {
			a := math.Exp(score[e*heads+h]-mx[v*heads+h]) / sum[v*heads+h]
			for f := range feat {
				out[(v*heads+h)*feat+f] += a * z[(u*heads+h)*feat+f]
			}
		}
	}
	return out
}

// TestGATAttentionSum checks the recomputing op against a per-edge loop and
// its gradients with respect to z, el and er by finite differences, in
// float32 and float64, on graphs with destinations without in-edges and
// sources without out-edges, one head and several. The LeakyReLU has a
// kink that a float32 finite-difference step can cross, so float32
// gradients are compared with the float64 ones, which are checked by finite
// differences.
func TestGATAttentionSum(t *testing.T) {
	t.Parallel()
	const slope = 0.2
	seed := uint64(2600)
	for gname, g := range gradcheck.Fixtures(t) {
		for _, hf := range [][2]int{{1, 3}, {2, 3}, {4, 2}, {8, 2}} {
			for _, dt := range gradcheck.Dtypes {
				seed++
				t.Run(fmt.Sprintf("%s/h=%d/f=%d/%v", gname, hf[0], hf[1], dt), func(t *testing.T) {
					spec := attnSumSpec(hf[0], hf[1])
					vals := draw(rand.New(rand.NewPCG(seed, 1)), g, spec)
					got, shape := forward(t, g, dt, spec, vals, attnSumFused(slope))
					if want := []int{g.NumDst(), hf[0], hf[1]}; !tensor.Shape(shape).Eq(tensor.Shape(want)) {
						t.Fatalf("shape %v, want %v", shape, want)
					}
					want := refAttnSum(g, vals[0], vals[1], vals[2], hf[0], hf[1], slope)
					if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
						t.Errorf("element %d = %v, the per-edge loop gives %v", i, got[i], want[i])
					}
					gradCheckNonsmooth(t, g, dt, spec, attnSumFused(slope), seed)
				})
			}
		}
	}
}

// TestGATAttentionSumKept checks that recomputing the attention gives what
// keeping it gives (GATAttention then UMulESum), values and gradients: the
// same bits in float64, where both run the same Go arithmetic in the same
// order, and within 2e-6 relative in float32, where the kept path's AVX2
// kernels compute the exponential and the sums in another order (the
// recomputing kernels are Go: their exponential rounds differently in the
// last bits, and the sums run in CSC order one edge at a time).
func TestGATAttentionSumKept(t *testing.T) {
	t.Parallel()
	const slope = 0.2
	r := rand.New(rand.NewPCG(26, 1))
	const n, e = 300, 4000
	src, dst := make([]int32, e), make([]int32, e)
	for i := range src {
		src[i], dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
	}
	big := gradcheck.Graph(t, n, n, src, dst)
	graphs := gradcheck.Fixtures(t)
	graphs["random"] = big
	for gname, g := range graphs {
		for _, hf := range [][2]int{{1, 4}, {2, 3}, {4, 2}, {8, 8}} {
			for _, dt := range gradcheck.Dtypes {
				t.Run(fmt.Sprintf("%s/h=%d/f=%d/%v", gname, hf[0], hf[1], dt), func(t *testing.T) {
					spec := attnSumSpec(hf[0], hf[1])
					vals := draw(rand.New(rand.NewPCG(uint64(hf[0]), 2)), g, spec)
					run := func(b builder) [][]float64 {
						eg := gorgonia.NewGraph()
						in := inputs(eg, g, dt, spec, vals)
						out, err := b(g, in)
						if err != nil {
							t.Fatal(err)
						}
						return append(gradcheck.Gradients(t, out, in, rand.New(rand.NewPCG(3, 3))), gradcheck.Run(t, out)[0])
					}
					got, want := run(attnSumFused(slope)), run(attnSumKept(slope))
					tol := 0.0
					if dt == tensor.Float32 {
						tol = 2e-6
					}
					for i, what := range []string{"dz", "del", "der", "out"} {
						gradcheck.Expect(t, what, got[i], want[i], tol)
					}
				})
			}
		}
	}
}

// TestGATAttentionSumDeterministic checks that the values and gradients have
// the same bits whatever GOMAXPROCS is, on a graph large enough to be
// split over goroutines both ways (by destination and by source).
func TestGATAttentionSumDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const n, e = 3000, 60000
	src, dst := make([]int32, e), make([]int32, e)
	for i := range src {
		src[i], dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
	}
	g := gradcheck.Graph(t, n, n, src, dst)
	spec := attnSumSpec(4, 2)
	vals := draw(r, g, spec)
	for _, dt := range gradcheck.Dtypes {
		deterministic(t, func() [][]float64 {
			eg := gorgonia.NewGraph()
			in := inputs(eg, g, dt, spec, vals)
			out, err := ops.GATAttentionSum(g, in[0], in[1], in[2], 0.2)
			if err != nil {
				t.Fatal(err)
			}
			return append(gradcheck.Gradients(t, out, in, rand.New(rand.NewPCG(1, 1))), gradcheck.Run(t, out)[0])
		})
	}
}

// TestGATAttentionSumErrors checks the shape, dtype and graph checks.
func TestGATAttentionSumErrors(t *testing.T) {
	g := gradcheck.Fixtures(t)["bipartite"]
	eg := gorgonia.NewGraph()
	node := func(dt tensor.Dtype, shape ...int) *gorgonia.Node {
		return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...))
	}
	ns, nd := g.NumSrc(), g.NumDst()
	f32 := tensor.Float32
	for _, c := range []struct {
		name      string
		z, el, er *gorgonia.Node
		slope     float64
		want      string
	}{
		{"z rows", node(f32, ns+1, 2, 3), node(f32, ns, 2, 1), node(f32, nd, 2, 1), 0.2, "rows"},
		{"z rank", node(f32, ns, 6), node(f32, ns, 2, 1), node(f32, nd, 2, 1), 0.2, "heads, features"},
		{"el rows", node(f32, ns, 2, 3), node(f32, ns+1, 2, 1), node(f32, nd, 2, 1), 0.2, "rows"},
		{"er rows", node(f32, ns, 2, 3), node(f32, ns, 2, 1), node(f32, nd+1, 2, 1), 0.2, "rows"},
		{"heads", node(f32, ns, 2, 3), node(f32, ns, 3, 1), node(f32, nd, 2, 1), 0.2, "2 heads"},
		{"score width", node(f32, ns, 2, 3), node(f32, ns, 2, 1), node(f32, nd, 2, 2), 0.2, "2 heads"},
		{"dtype", node(f32, ns, 2, 3), node(f32, ns, 2, 1), node(tensor.Float64, nd, 2, 1), 0.2, "dtype"},
		{"slope", node(f32, ns, 2, 3), node(f32, ns, 2, 1), node(f32, nd, 2, 1), math.Inf(1), "slope"},
	} {
		if _, err := ops.GATAttentionSum(g, c.z, c.el, c.er, c.slope); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := ops.GATAttentionSum(nil, nil, nil, nil, 0.2); err == nil {
		t.Error("nil graph: no error")
	}
	empty := gradcheck.Graph(t, 3, 3, nil, nil)
	if _, err := ops.GATAttentionSum(empty, node(f32, 3, 2, 3), node(f32, 3, 2, 1), node(f32, 3, 2, 1), 0.2); err == nil || !strings.Contains(err.Error(), "no edges") {
		t.Errorf("graph without edges: error %v", err)
	}
}
