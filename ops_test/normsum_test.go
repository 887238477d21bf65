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

// normPowers are the (source, destination) degree powers of GraphConv's
// norms, and a general pair.
var normPowers = [][2]float64{{-0.5, -0.5}, {0, -1}, {-1, 0}, {0, 0}, {0.7, -1.3}}

// naiveNormSum is the per-edge reference of NormalizedSum: rows of w
// values, degrees clamped to 1.
func naiveNormSum(g *graph.Graph, x []float64, w int, src, dst float64) []float64 {
	out := make([]float64, g.NumDst()*w)
	ind, outd := g.InDegrees(), g.OutDegrees()
	su, sv := g.COO()
	for e := range su {
		u, v := int(su[e]), int(sv[e])
		s := math.Pow(float64(max(outd[u], 1)), src)
		for k := range w {
			out[v*w+k] += s * x[u*w+k]
		}
	}
	for v := range g.NumDst() {
		s := math.Pow(float64(max(ind[v], 1)), dst)
		for k := range w {
			out[v*w+k] *= s
		}
	}
	return out
}

// TestNormalizedSum checks NormalizedSum against the per-edge reference and
// against the chain it replaces (ScaleByDegree, CopyUSum, ScaleByDegree),
// which it matches bit for bit, and its gradient by finite differences, for
// every norm, on the fixtures (a node without in-edges, a bipartite graph),
// with (N, F) and (N, H, F) features, in float64 and float32.
func TestNormalizedSum(t *testing.T) {
	for name, g := range gradcheck.Fixtures(t) {
		for _, pw := range normPowers {
			for _, feat := range [][]int{{3}, {2, 9}} {
				for _, dt := range gradcheck.Dtypes {
					src, dst := pw[0], pw[1]
					t.Run(fmt.Sprintf("%s/src=%g/dst=%g/feat=%v/%v", name, src, dst, feat, dt), func(t *testing.T) {
						spec := []operand{{ops.U, feat}}
						vals := draw(rand.New(rand.NewPCG(1, 2)), g, spec)
						got, _ := forward(t, g, dt, spec, vals, func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
							return ops.NormalizedSum(g, in[0], src, dst)
						})
						gradcheck.Expect(t, "NormalizedSum", got, naiveNormSum(g, vals[0], size(feat), src, dst), tolerance(dt))
						chain, _ := forward(t, g, dt, spec, vals, func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
							h, err := ops.ScaleByDegree(g, in[0], ops.OutDegree, src)
							if err != nil {
								return nil, err
							}
							if h, err = ops.CopyUSum(g, h); err != nil {
								return nil, err
							}
							return ops.ScaleByDegree(g, h, ops.InDegree, dst)
						})
						gradcheck.Expect(t, "the ScaleByDegree chain", got, chain, 0)
						gradCheck(t, g, dt, spec, func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
							return ops.NormalizedSum(g, in[0], src, dst)
						}, 11)
					})
				}
			}
		}
	}
}

// TestNormalizedSumLarge checks NormalizedSum on a graph large enough for
// several tasks and for the AVX2 kernels (rows of 16 and of 10 float32),
// against the per-edge reference.
func TestNormalizedSumLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, e = 3000, 60000
	src, dst := make([]int32, e), make([]int32, e)
	for i := range src {
		src[i], dst[i] = int32(r.IntN(n)), int32(r.IntN(n-10)) // 10 nodes without in-edges
	}
	g := gradcheck.Graph(t, n, n, src, dst)
	for _, w := range []int{16, 10} {
		spec := []operand{{ops.U, []int{w}}}
		vals := draw(r, g, spec)
		got, _ := forward(t, g, tensor.Float32, spec, vals, func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
			return ops.NormalizedSum(g, in[0], -0.5, -0.5)
		})
		gradcheck.Expect(t, fmt.Sprintf("w=%d", w), got, naiveNormSum(g, vals[0], w, -0.5, -0.5), 1e-5)
	}
}

// TestNormalizedSumErrors checks the argument checks.
func TestNormalizedSumErrors(t *testing.T) {
	g := gradcheck.Fixtures(t)["bipartite"]
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(g.NumSrc(), 3), gorgonia.WithName("x"))
	wrong := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(g.NumDst(), 3), gorgonia.WithName("y"))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil graph", errOf(ops.NormalizedSum(nil, x, -0.5, -0.5)), "nil graph"},
		{"NaN power", errOf(ops.NormalizedSum(g, x, math.NaN(), -0.5)), "not finite"},
		{"infinite power", errOf(ops.NormalizedSum(g, x, -0.5, math.Inf(1))), "not finite"},
		{"rows", errOf(ops.NormalizedSum(g, wrong, -0.5, -0.5)), "rows"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

func errOf(_ *gorgonia.Node, err error) error { return err }
