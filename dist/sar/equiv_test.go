package sar_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testsets"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/vm"
)

// model builds the computation under test on g from features x and returns
// its output and parameters. It must name its layers explicitly, so that
// every rank builds the same parameters.
type model func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error)

// twoLayers applies l1, then l2, to x on g and returns the output and both
// layers' parameters: the models' common body.
func twoLayers(g nn.Graph, x *gorgonia.Node, l1, l2 nn.Layer) (*gorgonia.Node, gorgonia.Nodes, error) {
	h, err := l1.Forward(g, x)
	if err != nil {
		return nil, nil, err
	}
	y, err := l2.Forward(g, h)
	if err != nil {
		return nil, nil, err
	}
	return y, append(l1.Learnables(), l2.Learnables()...), nil
}

// weightedLayer is a layer with edge weights.
type weightedLayer interface {
	ForwardWeighted(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error)
	Learnables() gorgonia.Nodes
}

// twoWeighted is twoLayers with the edge weights ew in both layers.
func twoWeighted(g nn.Graph, x, ew *gorgonia.Node, l1, l2 weightedLayer) (*gorgonia.Node, gorgonia.Nodes, error) {
	h, err := l1.ForwardWeighted(g, x, ew)
	if err != nil {
		return nil, nil, err
	}
	y, err := l2.ForwardWeighted(g, h, ew)
	if err != nil {
		return nil, nil, err
	}
	return y, append(l1.Learnables(), l2.Learnables()...), nil
}

// twoMaybeWeighted is twoLayers, or with edge weights ew (one per edge of
// the whole graph; rows by EdgeIDs on a sharded graph) twoWeighted.
func twoMaybeWeighted(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node, ew []float64, l1, l2 nn.WeightedLayer) (*gorgonia.Node, gorgonia.Nodes, error) {
	if ew == nil {
		return twoLayers(g, x, l1, l2)
	}
	w, err := edgeWeights(eg, g, x.Dtype(), ew)
	if err != nil {
		return nil, nil, err
	}
	return twoWeighted(g, x, w, l1, l2)
}

// expectUnsupported checks that m on a sharded graph (2 workers) fails
// with an error saying that what it does is not supported there.
func expectUnsupported(t *testing.T, p *problem, what string, m model) {
	t.Helper()
	parts, err := partition.Split(p.g, owners(p.g, 2, 11, false), 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.sharded(parts, m, tensor.Float64, sar.Sequential)
	if err == nil || !strings.Contains(err.Error(), "not supported on a sharded graph") {
		t.Errorf("%s on a sharded graph: got error %v, want one saying it is not supported", what, err)
	}
}

// randomWeights returns n edge weights in [0.25, 1.25), drawn from seed.
func randomWeights(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ew := make([]float64, n)
	for i := range ew {
		ew[i] = 0.25 + rng.Float64()
	}
	return ew
}

// result is what a model computed: its output rows and the gradients of
// sum(out ⊙ R) with respect to the input rows and each parameter.
type result struct {
	out, dx []float64
	dparams [][]float64
}

// problem is a graph, features and a projection R, all global.
type problem struct {
	g       *graph.Graph
	single  *graph.Graph // the graph of the one-process run, when not g
	opts    []sar.Option // of every rank's sar.Graph
	in, out int          // feature widths of x and of the model's output
	x, r    []float64
}

func newProblem(g *graph.Graph, in, out int, seed uint64) *problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := g.NumSrc()
	return &problem{g: g, in: in, out: out, x: gradcheck.Draw(rng, n*in), r: gradcheck.Draw(rng, n*out)}
}

// evaluate runs the model build makes on g (a *graph.Graph or one rank's
// sar.Graph) with the rows of x and r listed in nodes (all nodes when
// nil), on Gorgonia's tape and twice on an nn/vm machine, which must give
// the tape's bits.
func (p *problem) evaluate(g nn.Graph, nodes []int64, build model, dt tensor.Dtype) (*result, error) {
	eg := gorgonia.NewGraph()
	x := gradcheck.Input(eg, dt, "x", []int{g.NumSrc(), p.in}, rowsOf(p.x, nodes, p.in))
	out, params, err := build(eg, g, x)
	if err != nil {
		return nil, err
	}
	if s := out.Shape(); len(s) != 2 || s[0] != g.NumDst() || s[1] != p.out {
		return nil, fmt.Errorf("output shape %v, want (%d, %d)", s, g.NumDst(), p.out)
	}
	proj := gradcheck.Input(eg, dt, "R", []int{g.NumDst(), p.out}, rowsOf(p.r, nodes, p.out))
	prod, err := gorgonia.HadamardProd(out, proj)
	if err != nil {
		return nil, err
	}
	cost, err := gorgonia.Sum(prod)
	if err != nil {
		return nil, err
	}
	grads, err := gorgonia.Grad(cost, append(gorgonia.Nodes{x}, params...)...)
	if err != nil {
		return nil, err
	}
	tape := gorgonia.NewTapeMachine(eg)
	defer tape.Close()
	if err := tape.RunAll(); err != nil {
		return nil, err
	}
	roots := append(gorgonia.Nodes{out}, grads...)
	var want [][]float64
	for _, r := range roots {
		want = append(want, slices.Clone(gradcheck.Floats(r.Value())))
	}
	// nn/vm gives the ops buffers of its own (opkit.Into), the same ones
	// from the second run on: every run must give the tape's bits.
	m, err := vm.New(roots)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	for run := range 2 {
		if err := m.RunAll(); err != nil {
			return nil, err
		}
		for i, r := range roots {
			if got := gradcheck.Floats(r.Value()); !slices.Equal(got, want[i]) {
				return nil, fmt.Errorf("run %d on nn/vm: %v differs from the tape's", run, r)
			}
		}
	}
	res := &result{out: want[0], dx: want[1]}
	res.dparams = append(res.dparams, want[2:]...)
	return res, nil
}

func rowsOf(v []float64, nodes []int64, w int) []float64 {
	if nodes == nil {
		return v
	}
	out := make([]float64, 0, len(nodes)*w)
	for _, u := range nodes {
		out = append(out, v[int(u)*w:int(u+1)*w]...)
	}
	return out
}

// sharded runs m on parts, one in-process rank each, and assembles the
// global output and input gradient and the parameter gradients summed over
// ranks (in rank order).
func (p *problem) sharded(parts []*partition.Part, m model, dt tensor.Dtype, mode sar.Mode) (*result, error) {
	res := make([]*result, len(parts))
	var mu sync.Mutex
	err := comm.RunInProcess(len(parts), func(c comm.Comm) error {
		part := parts[c.Rank()]
		g, err := sar.New(part, c, append(p.opts, sar.WithMode(mode))...)
		if err != nil {
			return err
		}
		r, err := p.evaluate(g, part.Nodes, m, dt)
		if err != nil {
			return fmt.Errorf("rank %d: %w", c.Rank(), err)
		}
		mu.Lock()
		res[c.Rank()] = r
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := p.g.NumSrc()
	all := &result{out: make([]float64, n*p.out), dx: make([]float64, n*p.in)}
	for r, part := range parts {
		for i, u := range part.Nodes {
			copy(all.out[int(u)*p.out:], res[r].out[i*p.out:(i+1)*p.out])
			copy(all.dx[int(u)*p.in:], res[r].dx[i*p.in:(i+1)*p.in])
		}
		for k, d := range res[r].dparams {
			if r == 0 {
				all.dparams = append(all.dparams, make([]float64, len(d)))
			}
			for i, v := range d {
				all.dparams[k][i] += v
			}
		}
	}
	return all, nil
}

// owners assigns the nodes of g to parts ranks at random (seeded). With
// isolated set and more than two parts, the last rank owns exactly the
// nodes of g without edges, so it owns no edges at all.
func owners(g *graph.Graph, parts int, seed uint64, isolated bool) []int32 {
	rng := rand.New(rand.NewPCG(seed, uint64(parts)))
	in, out := g.InDegrees(), g.OutDegrees()
	own := make([]int32, g.NumSrc())
	for v := range own {
		switch {
		case isolated && parts > 2 && in[v] == 0 && out[v] == 0:
			own[v] = int32(parts - 1)
		case isolated && parts > 2:
			own[v] = int32(rng.IntN(parts - 1))
		default:
			own[v] = int32(rng.IntN(parts))
		}
	}
	return own
}

// rmatGraph is an R-MAT graph of 128 nodes with zero in-degree nodes, plus
// 6 isolated nodes.
func rmatGraph(t testing.TB) *graph.Graph {
	t.Helper()
	r, err := generate.RMAT(7, 400, 0.57, 0.19, 0.19, 3)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := r.COO()
	g, err := graph.FromCOO(r.NumSrc()+6, r.NumSrc()+6, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.ZeroInDegree()) < 8 {
		t.Fatalf("the R-MAT graph has only %d nodes without in-edges", len(g.ZeroInDegree()))
	}
	return g
}

// coraGraph is Cora's graph with self-loops, or a skip.
func coraGraph(t testing.TB) *graph.Graph {
	t.Helper()
	g, err := testsets.Planetoid(t, "cora").Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var workerCounts = []int{1, 2, 3, 4, 8}

// checkEquivalent runs m in one process and on 1, 2, 3, 4 and 8 workers in
// both modes, and compares the output and every gradient to 1e-6 relative
// (float64) or 1e-3 (float32).
func checkEquivalent(t *testing.T, p *problem, isolated bool, m model, dts ...tensor.Dtype) {
	t.Helper()
	checkEquivalentIn(t, []sar.Mode{sar.Sequential, sar.OneShot}, p, isolated, m, dts...)
}

// checkEquivalentIn is checkEquivalent in the given modes only.
func checkEquivalentIn(t *testing.T, modes []sar.Mode, p *problem, isolated bool, m model, dts ...tensor.Dtype) {
	t.Helper()
	for _, dt := range dts {
		tol := 1e-6
		if dt == tensor.Float32 {
			tol = 1e-3
		}
		single := p.g
		if p.single != nil {
			single = p.single
		}
		want, err := p.evaluate(single, nil, m, dt)
		if err != nil {
			t.Fatalf("%v: single process: %v", dt, err)
		}
		for _, n := range workerCounts {
			parts, err := partition.Split(p.g, owners(p.g, n, 11, isolated), n)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range modes {
				got, err := p.sharded(parts, m, dt, mode)
				if err != nil {
					t.Fatalf("%v, %d workers, %v: %v", dt, n, mode, err)
				}
				what := fmt.Sprintf("%v, %d workers, %v: ", dt, n, mode)
				expect(t, what+"output", got.out, want.out, tol)
				expect(t, what+"d/dx", got.dx, want.dx, tol)
				for k := range want.dparams {
					expect(t, fmt.Sprintf("%sd/dparam%d", what, k), got.dparams[k], want.dparams[k], tol)
				}
			}
		}
	}
}

// expect fails the test when got and want differ by more than tol relative
// (gradcheck.Within), naming the first element that does and how many do.
func expect(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	bad, first := 0, -1
	for i := range got {
		if !gradcheck.Within(got[i], want[i], tol) {
			if bad++; first < 0 {
				first = i
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ by more than %g; [%d] = %.10g, want %.10g", what, bad, len(got), tol, first, got[first], want[first])
	}
}
