package nn_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/appnp"
	"github.com/gnngo/gnn/nn/cheb"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/sgc"
	"github.com/gnngo/gnn/nn/tag"
)

// emptyLayer is a layer under test on graphs without edges.
type emptyLayer struct {
	name string
	in   int
	new  func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (forward func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), params gorgonia.Nodes, err error)
	// want returns the output over a graph without edges from the
	// features x (n x in) and the parameters by name suffix: every
	// aggregation over no neighbours is zero.
	want func(x []float64, n int, p map[string][]float64) []float64
}

// rowsPlus returns the n x len(b) matrix x w (x n x k, w k x len(b)) plus
// the row b.
func rowsPlus(x, w []float64, n, k int, b []float64) []float64 {
	m := len(b)
	out := make([]float64, n*m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			s := b[j]
			for l := 0; l < k; l++ {
				if w != nil {
					s += x[i*k+l] * w[l*m+j]
				}
			}
			out[i*m+j] = s
		}
	}
	return out
}

func emptyLayers() []emptyLayer {
	const in, out = 3, 4
	var ls []emptyLayer
	for _, norm := range []gcn.Norm{gcn.Both, gcn.Right, gcn.Left, gcn.None} {
		ls = append(ls, emptyLayer{name: fmt.Sprintf("gcn/%v", norm), in: in,
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := gcn.New(eg, in, out, gcn.WithNorm(norm), gcn.WithAllowZeroInDegree(true), gcn.WithDtype(dt), gcn.WithName("gcn"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 { return rowsPlus(x, nil, n, in, p["bias"]) },
		})
	}
	for _, mean := range []bool{false, true} {
		ls = append(ls, emptyLayer{name: fmt.Sprintf("gat/mean=%v", mean), in: in,
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := gat.New(eg, in, out, gat.WithHeads(2), gat.WithMeanHeads(mean), gat.WithAllowZeroInDegree(true), gat.WithDtype(dt), gat.WithName("gat"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				b := p["bias"]
				if mean {
					m := make([]float64, out)
					for j := range m {
						m[j] = (b[j] + b[out+j]) / 2
					}
					b = m
				}
				return rowsPlus(x, nil, n, in, b)
			},
		})
	}
	for _, mean := range []bool{false, true} {
		ls = append(ls, emptyLayer{name: fmt.Sprintf("gatv2/mean=%v", mean), in: in,
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := gatv2.New(eg, in, out, gatv2.WithHeads(2), gatv2.WithMeanHeads(mean), gatv2.WithResidual(true), gatv2.WithAllowZeroInDegree(true), gatv2.WithDtype(dt), gatv2.WithName("gatv2"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				r := rowsPlus(x, p["res_weight"], n, in, p["res_bias"]) // n x 2*out
				if !mean {
					return r
				}
				m := make([]float64, n*out)
				for i := 0; i < n; i++ {
					for j := 0; j < out; j++ {
						m[i*out+j] = (r[i*2*out+j] + r[i*2*out+out+j]) / 2
					}
				}
				return m
			},
		})
	}
	for _, agg := range []sage.Aggregator{sage.Mean, sage.GCN, sage.Pool} {
		ls = append(ls, emptyLayer{name: fmt.Sprintf("sage/%v", agg), in: in,
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := sage.New(eg, in, out, sage.WithAggregator(agg), sage.WithDtype(dt), sage.WithName("sage"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				w := p["fc_self.weight"] // the mean or max over no neighbours is 0
				if agg == sage.GCN {     // the mean over the node alone is the node
					w = p["fc_neigh.weight"]
				}
				return rowsPlus(x, w, n, in, p["bias"])
			},
		})
	}
	for _, agg := range []gin.Aggregator{gin.Sum, gin.Mean, gin.Max} {
		ls = append(ls, emptyLayer{name: fmt.Sprintf("gin/%v", agg), in: in,
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := gin.New(eg, in, in, gin.WithAggregator(agg), gin.WithLearnEps(true), gin.WithEps(0.25), gin.WithDtype(dt), gin.WithName("gin"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				out := make([]float64, len(x))
				for i, v := range x {
					out[i] = (1 + p["eps"][0]) * v
				}
				return out
			},
		})
	}
	// The diffusion layers: every propagation step over no edges is zero.
	ls = append(ls,
		emptyLayer{name: "sgc", in: in,
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := sgc.New(eg, in, out, sgc.WithK(2), sgc.WithAllowZeroInDegree(true), sgc.WithDtype(dt), sgc.WithName("sgc"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 { return rowsPlus(x, nil, n, in, p["bias"]) },
		},
		emptyLayer{name: "tag", in: in, // hop 0 (x itself) meets the first in rows of the weight
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := tag.New(eg, in, out, tag.WithK(2), tag.WithDtype(dt), tag.WithName("tag"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				return rowsPlus(x, p["weight"], n, in, p["bias"])
			},
		},
		emptyLayer{name: "cheb", in: in, // λ_max 2: the second term -Â x is zero; ReLU
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := cheb.New(eg, in, out, 2, cheb.WithDtype(dt), cheb.WithName("cheb"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, l.Learnables(), nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				r := rowsPlus(x, p["weight"], n, in, p["bias"])
				for i, v := range r {
					r[i] = max(v, 0)
				}
				return r
			},
		},
		emptyLayer{name: "appnp", in: in, // K steps of (1-α)·0 + α x
			new: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (func(nn.Graph, *gorgonia.Node) (*gorgonia.Node, error), gorgonia.Nodes, error) {
				l, err := appnp.New(3, 0.25, appnp.WithName("appnp"))
				if err != nil {
					return nil, nil, err
				}
				return l.Forward, nil, nil
			},
			want: func(x []float64, n int, p map[string][]float64) []float64 {
				r := make([]float64, len(x))
				for i, v := range x {
					r[i] = 0.25 * v
				}
				return r
			},
		},
	)
	return ls
}

// TestLayersOnEmptyGraphs runs every layer on a graph without nodes, which
// must be refused with an error, and on one with nodes but no edges (zero
// in-degrees allowed), whose output is the layer without its aggregation,
// forward and backward, in both dtypes.
func TestLayersOnEmptyGraphs(t *testing.T) {
	none := gradcheck.Graph(t, 0, 0, nil, nil)
	isolated := gradcheck.Graph(t, 3, 3, nil, nil)
	for _, c := range emptyLayers() {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				forward, params, err := c.new(eg, dt)
				if err != nil {
					t.Fatal(err)
				}
				x0 := gradcheck.Zeros(eg, dt, "x0", 0, c.in)
				if _, err := forward(none, x0); err == nil || !strings.Contains(err.Error(), "no destination nodes") {
					t.Errorf("graph without nodes: error %v, want one saying it has no destination nodes", err)
				}

				r := rand.New(rand.NewPCG(1, 2))
				vals := map[string][]float64{}
				for _, p := range params {
					v := gradcheck.Draw(r, p.Shape().TotalSize())
					gradcheck.Set(p, v)
					vals[p.Name()[strings.Index(p.Name(), ".")+1:]] = v
				}
				xv := gradcheck.Draw(r, 3*c.in)
				x := gradcheck.Input(eg, dt, "x", []int{3, c.in}, xv)
				out, err := forward(isolated, x)
				if err != nil {
					t.Fatalf("graph without edges: %v", err)
				}
				gradcheck.Expect(t, "output", gradcheck.Run(t, out)[0], c.want(xv, 3, vals), 1e-5)
				_, grads := costOf(t, out, append(gorgonia.Nodes{x}, params...), r)
				vm := gorgonia.NewTapeMachine(eg)
				defer vm.Close()
				if err := vm.RunAll(); err != nil {
					t.Fatalf("run: %v", err)
				}
				for i, d := range grads {
					for _, v := range gradcheck.Floats(d.Value()) {
						if v != v {
							t.Fatalf("gradient %d has NaN", i)
						}
					}
				}
			})
		}
	}
}

// costOf builds sum(out ⊙ R), R drawn from r, and its gradients.
func costOf(t *testing.T, out *gorgonia.Node, wrt gorgonia.Nodes, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes) {
	t.Helper()
	proj := gradcheck.Input(out.Graph(), out.Dtype(), "R", out.Shape(), gradcheck.Draw(r, out.Shape().TotalSize()))
	prod, err := gorgonia.HadamardProd(out, proj)
	if err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(cost, wrt...)
	if err != nil {
		t.Fatalf("Grad: %v", err)
	}
	return cost, grads
}

// TestGATWithoutEdges checks GATConv's other entry points on a graph without
// edges: there is no attention to return, and an edge weight must be empty.
func TestGATWithoutEdges(t *testing.T) {
	g := gradcheck.Graph(t, 3, 3, nil, nil)
	eg := gorgonia.NewGraph()
	l, err := gat.New(eg, 2, 2, gat.WithAllowZeroInDegree(true), gat.WithDtype(tensor.Float64), gat.WithName("gat"))
	if err != nil {
		t.Fatal(err)
	}
	x := gradcheck.Zeros(eg, tensor.Float64, "x", 3, 2)
	if _, _, err := l.ForwardWithAttention(g, x); err == nil || !strings.Contains(err.Error(), "no attention") {
		t.Errorf("ForwardWithAttention: error %v, want one saying there is no attention", err)
	}
	if _, err := l.ForwardWeighted(g, x, gradcheck.Zeros(eg, tensor.Float64, "ew", 0, 1)); err != nil {
		t.Errorf("ForwardWeighted with an empty weight: %v", err)
	}
	if _, err := l.ForwardWeighted(g, x, gradcheck.Zeros(eg, tensor.Float64, "ew3", 3, 1)); err == nil || !strings.Contains(err.Error(), "no edges") {
		t.Errorf("ForwardWeighted with 3 weights: error %v, want one saying the graph has no edges", err)
	}
}
