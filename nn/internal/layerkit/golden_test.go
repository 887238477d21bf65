package layerkit_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/appnp"
	"github.com/gnngo/gnn/nn/cheb"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/link"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/sgc"
	"github.com/gnngo/gnn/nn/tag"
)

// writeGolden rewrites testdata/v1-*. The files were written by the
// layers as they were before package layerkit existed (commit "layerkit:
// golden checkpoints"); rewriting them would defeat their purpose, so the
// flag is for adding a new case only.
var writeGolden = flag.Bool("write-golden", false, "write testdata/v1-* instead of checking them")

// goldenGraph is a 6-node graph with a self-loop on every node, a ring and
// a few chords.
func goldenGraph(t testing.TB) *graph.Graph {
	src := []int32{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 3, 1}
	dst := []int32{0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 0, 3, 0, 4}
	return gradcheck.Graph(t, 6, 6, src, dst)
}

// goldenInput is a fixed (n, f) feature matrix.
func goldenInput(eg *gorgonia.ExprGraph, dt tensor.Dtype, n, f int) *gorgonia.Node {
	v := nn.Zeros(dt, n, f)
	for i := range n * f {
		x := math.Sin(float64(i)*0.37+0.1) * 1.3
		switch d := v.Data().(type) {
		case []float32:
			d[i] = float32(x)
		case []float64:
			d[i] = x
		}
	}
	return gorgonia.NodeFromAny(eg, v, gorgonia.WithName("x"))
}

// built is a layer of a golden case on one expression graph: its
// parameters and its output on the golden graph and input.
type built struct {
	params gorgonia.Nodes
	out    *gorgonia.Node
}

// goldenCase builds one layer (or two) with fixed options, dropout
// following mode.
type goldenCase struct {
	name  string
	build func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built
}

// must returns v, or panics with err: the golden cases' options are
// fixed, so an error is a bug of the layer (the test fails with it).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var goldenCases = []goldenCase{
	{"gcn", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		g := goldenGraph(t)
		// Two unnamed layers: default names gcn1, gcn2 and their seeds.
		l1 := must(gcn.New(eg, 5, 4, gcn.WithActivation(nn.ReLU)))
		l2 := must(gcn.New(eg, 4, 3))
		h := must(l1.Forward(g, goldenInput(eg, tensor.Float32, 6, 5)))
		return built{append(l1.Learnables(), l2.Learnables()...), must(l2.Forward(g, h))}
	}},
	{"gcn64", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		l := must(gcn.New(eg, 5, 4, gcn.WithName("enc"), gcn.WithSeed(7), gcn.WithDtype(tensor.Float64), gcn.WithNorm(gcn.Right)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float64, 6, 5)))}
	}},
	{"gat", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		l := must(gat.New(eg, 5, 3, gat.WithHeads(2), gat.WithResidual(true), gat.WithFeatDropout(0.3), gat.WithAttnDropout(0.2), gat.WithMode(mode), gat.WithEdgeFeatures(2)))
		g := goldenGraph(t)
		ef := goldenInput(eg, tensor.Float32, g.NumEdges(), 2)
		out, _, err := l.ForwardEdges(g, goldenInput(eg, tensor.Float32, 6, 5), ef)
		return built{l.Learnables(), must(out, err)}
	}},
	{"gat_dst", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		l := must(gat.New(eg, 5, 3, gat.WithHeads(2), gat.WithResidual(true), gat.WithDstIn(4), gat.WithName("cross")))
		src, dst := goldenInput(eg, tensor.Float32, 6, 5), goldenInput(eg, tensor.Float32, 6, 4)
		return built{l.Learnables(), must(l.ForwardBipartite(goldenGraph(t), src, dst))}
	}},
	{"gat64", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		l := must(gat.New(eg, 5, 3, gat.WithHeads(3), gat.WithMeanHeads(true), gat.WithSeed(11), gat.WithDtype(tensor.Float64), gat.WithFeatDropout(0.25), gat.WithMode(mode)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float64, 6, 5)))}
	}},
	{"gatv2", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		l := must(gatv2.New(eg, 5, 3, gatv2.WithHeads(2), gatv2.WithResidual(true), gatv2.WithFeatDropout(0.3), gatv2.WithAttnDropout(0.2), gatv2.WithMode(mode)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"sage", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		l := must(sage.New(eg, 5, 4, sage.WithAggregator(sage.Pool), sage.WithFeatDropout(0.3), sage.WithMode(mode), sage.WithSeed(3)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"sage_mean", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		l := must(sage.New(eg, 5, 4, sage.WithDtype(tensor.Float64)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float64, 6, 5)))}
	}},
	{"gin", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		l := must(gin.New(eg, 5, 5, gin.WithLearnEps(true), gin.WithEps(0.25)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"appnp", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		l := must(appnp.New(3, 0.1, appnp.WithEdgeDropout(0.2), appnp.WithMode(mode)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"sgc", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		l := must(sgc.New(eg, 5, 3, sgc.WithK(2)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"tag", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		l := must(tag.New(eg, 5, 3, tag.WithK(2), tag.WithSeed(5)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"cheb", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		l := must(cheb.New(eg, 5, 3, 3, cheb.WithDtype(tensor.Float64)))
		return built{l.Learnables(), must(l.Forward(goldenGraph(t), goldenInput(eg, tensor.Float64, 6, 5)))}
	}},
	{"rgcn", func(t testing.TB, eg *gorgonia.ExprGraph, mode *nn.Mode) built {
		g := goldenGraph(t)
		et := make([]int32, g.NumEdges())
		for e := range et {
			et[e] = int32(e % 3)
		}
		rel := must(rgcn.Group(g, et, 3, nil))
		l := must(rgcn.New(eg, 5, 4, 3, rgcn.WithBasis(2), rgcn.WithDropout(0.2, mode), rgcn.WithActivation(nn.ReLU)))
		return built{l.Learnables(), must(l.Forward(rel, goldenInput(eg, tensor.Float32, 6, 5)))}
	}},
	{"rgcn_blocks", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		g := goldenGraph(t)
		rel := must(rgcn.Group(g, make([]int32, g.NumEdges()), 2, nil))
		l := must(rgcn.New(eg, 4, 6, 2, rgcn.WithBlockDiagonal(2), rgcn.WithName("r"), rgcn.WithSeed(9)))
		return built{l.Learnables(), must(l.Forward(rel, goldenInput(eg, tensor.Float32, 6, 4)))}
	}},
	{"link", func(t testing.TB, eg *gorgonia.ExprGraph, _ *nn.Mode) built {
		pairs := gradcheck.Graph(t, 6, 6, []int32{0, 1, 2, 5}, []int32{3, 4, 5, 0})
		h := goldenInput(eg, tensor.Float32, 6, 5)
		m := must(link.NewMLP(eg, 5, []int{4}, link.WithCombine(link.Concat)))
		d := must(link.NewDistMult(eg, 1, 5))
		sm := must(m.Score(pairs, h))
		sd := must(d.Score(pairs, h))
		return built{append(m.Learnables(), d.Learnables()...), must(gorgonia.Concat(0, sm, sd))}
	}},
}

// run builds c in mode (evaluation, or training at a fixed step) and runs
// it, returning its parameters and output.
func run(t *testing.T, c goldenCase, train bool, before func(gorgonia.Nodes)) built {
	t.Helper()
	mode := nn.NewMode()
	mode.Eval()
	if train {
		mode.Train()
		for range 3 {
			mode.Next()
		}
	}
	eg := gorgonia.NewGraph()
	b := c.build(t, eg, mode)
	if before != nil {
		before(b.params)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenCheckpoints loads checkpoints written by the layers before
// package layerkit and checks that today's layers name their parameters
// the same, draw the same initial values bit for bit from the same seeds
// (dropout masks included), and give the outputs recorded then.
func TestGoldenCheckpoints(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			params := filepath.Join("testdata", "v1-"+c.name+".params")
			outs := filepath.Join("testdata", "v1-"+c.name+".outputs.params")
			var drawn []*tensor.Dense
			eval := run(t, c, false, func(ps gorgonia.Nodes) {
				for _, p := range ps {
					drawn = append(drawn, p.Value().(*tensor.Dense).Clone().(*tensor.Dense))
				}
				if *writeGolden {
					if err := nn.SaveParams(params, ps); err != nil {
						t.Fatal(err)
					}
					return
				}
				if err := nn.LoadParams(params, ps); err != nil {
					t.Fatal(err)
				}
				for i, p := range ps {
					if !sameBits(drawn[i], p.Value().(*tensor.Dense)) {
						t.Errorf("parameter %q: the initial value drawn today differs from the checkpoint's", p.Name())
					}
				}
			})
			train := run(t, c, true, nil)
			got := gorgonia.Nodes{
				named(t, "eval", eval.out.Value()),
				named(t, "train", train.out.Value()),
			}
			if *writeGolden {
				if err := nn.SaveParams(outs, got); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := gorgonia.Nodes{
				named(t, "eval", nn.Zeros(eval.out.Dtype(), eval.out.Shape().Clone()...)),
				named(t, "train", nn.Zeros(train.out.Dtype(), train.out.Shape().Clone()...)),
			}
			if err := nn.LoadParams(outs, want); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				g, w := got[i].Value().(*tensor.Dense), want[i].Value().(*tensor.Dense)
				if d := maxDiff(g, w); d > 1e-6 {
					t.Errorf("%s output differs from the recorded one by %g", got[i].Name(), d)
				}
			}
		})
	}
}

// named is v as a node of a graph of its own, for SaveParams/LoadParams.
func named(t *testing.T, name string, v gorgonia.Value) *gorgonia.Node {
	d, ok := v.(*tensor.Dense)
	if !ok {
		t.Fatalf("%s: output is %T", name, v)
	}
	return gorgonia.NodeFromAny(gorgonia.NewGraph(), d.Clone().(*tensor.Dense), gorgonia.WithName(name))
}

func floats(v *tensor.Dense) []float64 {
	switch d := v.Data().(type) {
	case []float32:
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	case []float64:
		return d
	}
	panic(fmt.Sprintf("dtype %v", v.Dtype()))
}

func sameBits(a, b *tensor.Dense) bool {
	if a.Dtype() != b.Dtype() || !a.Shape().Eq(b.Shape()) {
		return false
	}
	x, y := floats(a), floats(b)
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// maxDiff is the largest difference between a and b relative to 1 or
// their magnitude; +Inf for a shape mismatch.
func maxDiff(a, b *tensor.Dense) float64 {
	if !a.Shape().Eq(b.Shape()) {
		return math.Inf(1)
	}
	x, y := floats(a), floats(b)
	var m float64
	for i := range x {
		d := math.Abs(x[i]-y[i]) / math.Max(1, math.Abs(y[i]))
		if !(d <= m) {
			m = d
		}
	}
	return m
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}
