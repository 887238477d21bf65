package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/sampling"
)

// blockLayer is a layer under test: Forward and its parameters.
type blockLayer interface {
	Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error)
	Learnables() gorgonia.Nodes
}

// blockRun is what one forward and backward pass gave: the output rows, the
// parameters' gradients and the features' gradient, all flattened.
type blockRun struct {
	out, dx []float64
	dp      [][]float64
}

// runOn builds the layer afresh (the same name, so the same initial
// weights), applies it to x (one row per source of g) and differentiates
// <r, out>, r holding one row per destination.
func runOn(t *testing.T, build func(eg *gorgonia.ExprGraph) (blockLayer, error), g *graph.Graph, x, r []float64, in int) blockRun {
	t.Helper()
	eg := gorgonia.NewGraph()
	l, err := build(eg)
	if err != nil {
		t.Fatal(err)
	}
	xn := gorgonia.NodeFromAny(eg, tensor.New(tensor.WithShape(g.NumSrc(), in), tensor.WithBacking(x)), gorgonia.WithName("x"))
	out, err := l.Forward(g, xn)
	if err != nil {
		t.Fatal(err)
	}
	rn := gorgonia.NodeFromAny(eg, tensor.New(tensor.WithShape(out.Shape()...), tensor.WithBacking(r[:out.Shape().TotalSize()])), gorgonia.WithName("r"))
	prod, err := gorgonia.HadamardProd(out, rn)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	wrt := append(l.Learnables(), xn)
	grads, err := gorgonia.Grad(loss, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	flat := func(n *gorgonia.Node) []float64 {
		return append([]float64(nil), n.Value().(tensor.Tensor).Data().([]float64)...)
	}
	res := blockRun{out: flat(out), dx: flat(grads[len(grads)-1])}
	for _, gn := range grads[:len(grads)-1] {
		res.dp = append(res.dp, flat(gn))
	}
	return res
}

// TestLayersOnBlocks checks that every layer on a block (fan-out -1 around
// some destination nodes) computes what it computes on the whole graph for
// those nodes, with the same parameter gradients and the same feature
// gradients at the block's sources (and none elsewhere), in float64.
func TestLayersOnBlocks(t *testing.T) {
	t.Parallel()
	for _, dsts := range [][]int32{{17, 3, 28, 0, 9, 35, 11}, {21}} {
		t.Run(fmt.Sprintf("destinations=%d", len(dsts)), func(t *testing.T) { testLayersOnBlock(t, dsts) })
	}
}

func testLayersOnBlock(t *testing.T, dsts []int32) {
	const n, in = 40, 6
	rng := rand.New(rand.NewPCG(3, 4))
	g := testgraphs.Random(t, rng, n, n, 160)
	sampler, err := sampling.NewMultiLayer(g, []int{-1}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := sampler.Sample(dsts, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := mb.Blocks[0]
	if b.NumSrc() == n || b.NumSrc() == b.NumDst() {
		t.Fatalf("the block has %d sources for %d destinations in a graph of %d nodes; the test needs a proper subset", b.NumSrc(), b.NumDst(), n)
	}
	x := make([]float64, n*in)
	for i := range x {
		x[i] = rng.Float64()*2 - 1
	}
	xb := make([]float64, b.NumSrc()*in)
	for i, p := range b.SrcNodes {
		copy(xb[i*in:(i+1)*in], x[int(p)*in:])
	}
	f64 := tensor.Float64
	cases := []struct {
		name string
		out  int
		new  func(eg *gorgonia.ExprGraph) (blockLayer, error)
	}{
		{"gcn/right", 5, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gcn.New(eg, in, 5, gcn.WithNorm(gcn.Right), gcn.WithDtype(f64), gcn.WithName("l"), gcn.WithActivation(nn.ReLU))
		}},
		{"gcn/none/wide", 9, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gcn.New(eg, in, 9, gcn.WithNorm(gcn.None), gcn.WithDtype(f64), gcn.WithName("l"))
		}},
		{"gat/residual", 2 * 4, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gat.New(eg, in, 4, gat.WithHeads(2), gat.WithResidual(true), gat.WithDtype(f64), gat.WithName("l"), gat.WithActivation(nn.ELU))
		}},
		{"gat/identity-residual/mean-heads", in, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gat.New(eg, in, in, gat.WithHeads(3), gat.WithResidual(true), gat.WithMeanHeads(true), gat.WithDtype(f64), gat.WithName("l"))
		}},
		{"gatv2", 2 * 3, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gatv2.New(eg, in, 3, gatv2.WithHeads(2), gatv2.WithDtype(f64), gatv2.WithName("l"))
		}},
		{"sage/mean", 5, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return sage.New(eg, in, 5, sage.WithAggregator(sage.Mean), sage.WithDtype(f64), sage.WithName("l"), sage.WithActivation(nn.ReLU))
		}},
		{"sage/mean/wide", 12, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return sage.New(eg, in, 12, sage.WithAggregator(sage.Mean), sage.WithDtype(f64), sage.WithName("l"))
		}},
		{"sage/gcn", 5, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return sage.New(eg, in, 5, sage.WithAggregator(sage.GCN), sage.WithDtype(f64), sage.WithName("l"))
		}},
		{"sage/pool", 5, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return sage.New(eg, in, 5, sage.WithAggregator(sage.Pool), sage.WithDtype(f64), sage.WithName("l"))
		}},
		{"gin/sum/learned-eps", in, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gin.New(eg, in, in, gin.WithLearnEps(true), gin.WithEps(0.3), gin.WithDtype(f64), gin.WithName("l"))
		}},
		{"gin/mean", in, func(eg *gorgonia.ExprGraph) (blockLayer, error) {
			return gin.New(eg, in, in, gin.WithAggregator(gin.Mean), gin.WithDtype(f64), gin.WithName("l"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := make([]float64, n*c.out) // the weights of the destinations' outputs
			rb := make([]float64, len(dsts)*c.out)
			for i, v := range dsts {
				for j := range c.out {
					w := rng.Float64()*2 - 1
					r[int(v)*c.out+j], rb[i*c.out+j] = w, w
				}
			}
			full := runOn(t, c.new, g, x, r, in)
			blk := runOn(t, c.new, b.Graph, xb, rb, in)
			const tol = 1e-12
			near := func(what string, i int, got, want float64) {
				t.Helper()
				if math.Abs(got-want) > tol*(1+math.Abs(want)) {
					t.Fatalf("%s %d: block %v, full graph %v", what, i, got, want)
				}
			}
			for i, v := range dsts {
				for j := range c.out {
					near("output of destination", i, blk.out[i*c.out+j], full.out[int(v)*c.out+j])
				}
			}
			for p := range full.dp {
				for i := range full.dp[p] {
					near("gradient of parameter", p, blk.dp[p][i], full.dp[p][i])
				}
			}
			inBlock := make([]bool, n)
			for i, p := range b.SrcNodes {
				inBlock[p] = true
				for j := range in {
					near("feature gradient of source", i, blk.dx[i*in+j], full.dx[int(p)*in+j])
				}
			}
			for v := range n {
				for j := range in {
					if !inBlock[v] && full.dx[v*in+j] != 0 {
						t.Fatalf("node %d is not in the block but has feature gradient %v on the full graph", v, full.dx[v*in+j])
					}
				}
			}
		})
	}
}
