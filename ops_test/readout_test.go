package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// batches returns small batches for the readout tests: one with a graph
// without nodes, a single node, a graph without edges and a cycle, and a
// batch of one graph.
func batches(t *testing.T) map[string]*graph.Batched {
	mk := func(gs ...*graph.Graph) *graph.Batched {
		b, err := graph.Batch(gs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	path := gradcheck.Graph(t, 4, 4, []int32{0, 1, 2}, []int32{1, 2, 3})
	empty := gradcheck.Graph(t, 0, 0, nil, nil)
	single := gradcheck.Graph(t, 1, 1, nil, nil)
	isolated := gradcheck.Graph(t, 3, 3, nil, nil)
	cycle := gradcheck.Graph(t, 3, 3, []int32{0, 1, 2}, []int32{1, 2, 0})
	return map[string]*graph.Batched{
		"mixed": mk(path, empty, single, isolated, cycle, empty),
		"one":   mk(gradcheck.Graph(t, 5, 5, []int32{0, 0}, []int32{1, 2})),
	}
}

// randomBatch returns a batch of n graphs of 0 to maxNodes nodes each.
func randomBatch(t *testing.T, r *rand.Rand, n, maxNodes int) *graph.Batched {
	gs := make([]*graph.Graph, n)
	for i := range gs {
		nodes := r.IntN(maxNodes + 1)
		gs[i] = gradcheck.Graph(t, nodes, nodes, nil, nil)
	}
	b, err := graph.Batch(gs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// naiveReadout reduces the rows (of w values) of x over every graph of b
// with a loop per graph: 0 for a graph without nodes, ties to the first
// node for max and min.
func naiveReadout(b *graph.Batched, red ops.Reducer, x []float64, w int) []float64 {
	off := b.NodeOffsets()
	out := make([]float64, b.NumGraphs()*w)
	for i := range b.NumGraphs() {
		lo, hi := int(off[i]), int(off[i+1])
		if lo == hi {
			continue
		}
		for k := range w {
			acc := x[lo*w+k]
			for v := lo + 1; v < hi; v++ {
				switch y := x[v*w+k]; red {
				case ops.Sum, ops.Mean:
					acc += y
				case ops.Max:
					acc = math.Max(acc, y)
				case ops.Min:
					acc = math.Min(acc, y)
				}
			}
			if red == ops.Mean {
				acc /= float64(hi - lo)
			}
			out[i*w+k] = acc
		}
	}
	return out
}

// naiveSoftmaxNodes is the per-graph softmax of every column of x.
func naiveSoftmaxNodes(b *graph.Batched, x []float64, w int) []float64 {
	off := b.NodeOffsets()
	out := make([]float64, len(x))
	for i := range b.NumGraphs() {
		for k := range w {
			var s float64
			for v := off[i]; v < off[i+1]; v++ {
				s += math.Exp(x[int(v)*w+k])
			}
			for v := off[i]; v < off[i+1]; v++ {
				out[int(v)*w+k] = math.Exp(x[int(v)*w+k]) / s
			}
		}
	}
	return out
}

// naiveWeightedSum sums the rows of x (features h x d) times the rows of wt
// (h x 1, broadcast over d) over every graph.
func naiveWeightedSum(b *graph.Batched, x, wt []float64, h, d int) []float64 {
	off := b.NodeOffsets()
	out := make([]float64, b.NumGraphs()*h*d)
	for i := range b.NumGraphs() {
		for v := int(off[i]); v < int(off[i+1]); v++ {
			for j := range h {
				for k := range d {
					out[(i*h+j)*d+k] += x[(v*h+j)*d+k] * wt[v*h+j]
				}
			}
		}
	}
	return out
}

// TestReadoutNodes checks every reducer against the per-graph loop and its
// gradient by finite differences (max and min against float64 gradients in
// float32), with (N, F) and (N, H, F) features, in float64 and float32.
func TestReadoutNodes(t *testing.T) {
	for name, b := range batches(t) {
		for _, red := range []ops.Reducer{ops.Sum, ops.Mean, ops.Max, ops.Min} {
			for _, feat := range [][]int{{3}, {2, 4}} {
				for _, dt := range gradcheck.Dtypes {
					t.Run(fmt.Sprintf("%s/%v/feat=%v/%v", name, red, feat, dt), func(t *testing.T) {
						rg := b.Readout()
						spec := []operand{{ops.U, feat}}
						build := func(_ *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
							return ops.ReadoutNodes(b, red, in[0])
						}
						vals := draw(rand.New(rand.NewPCG(5, 6)), rg, spec)
						got, shape := forward(t, rg, dt, spec, vals, build)
						if want := shapeOf(b.NumGraphs(), feat); !tensor.Shape(shape).Eq(tensor.Shape(want)) {
							t.Fatalf("shape %v, want %v", shape, want)
						}
						gradcheck.Expect(t, "ReadoutNodes", got, naiveReadout(b, red, vals[0], size(feat)), tolerance(dt))
						if red == ops.Max || red == ops.Min {
							gradCheckNonsmooth(t, rg, dt, spec, build, 21)
						} else {
							gradCheck(t, rg, dt, spec, build, 21)
						}
					})
				}
			}
		}
	}
}

// TestReadoutSugar checks that SumNodes, MeanNodes and MaxNodes are
// ReadoutNodes with their reducer.
func TestReadoutSugar(t *testing.T) {
	b := batches(t)["mixed"]
	rg := b.Readout()
	spec := []operand{{ops.U, []int{3}}}
	vals := draw(rand.New(rand.NewPCG(1, 1)), rg, spec)
	for _, c := range []struct {
		red ops.Reducer
		f   func(*graph.Batched, *gorgonia.Node) (*gorgonia.Node, error)
	}{{ops.Sum, ops.SumNodes}, {ops.Mean, ops.MeanNodes}, {ops.Max, ops.MaxNodes}} {
		got, _ := forward(t, rg, tensor.Float64, spec, vals, func(_ *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) { return c.f(b, in[0]) })
		gradcheck.Expect(t, c.red.String(), got, naiveReadout(b, c.red, vals[0], 3), 0)
	}
}

// TestReadoutMaxTies checks the documented tie-break: among equal values the
// gradient goes to the node with the smallest ID, and a graph without nodes
// gets no gradient.
func TestReadoutMaxTies(t *testing.T) {
	b := batches(t)["mixed"] // graphs of 4, 0, 1, 3, 3 and 0 nodes
	for _, red := range []ops.Reducer{ops.Max, ops.Min} {
		for _, dt := range gradcheck.Dtypes {
			eg := gorgonia.NewGraph()
			// Every graph's nodes hold the same value, 2 columns.
			vals := []float64{1, 2, 1, 2, 1, 2, 1, 2, 5, 5, 3, 3, 3, 3, 3, 3, -1, 0, -1, 0, -1, 0}
			x := gradcheck.Input(eg, dt, "x", []int{b.NumSrc(), 2}, vals)
			out, err := ops.ReadoutNodes(b, red, x)
			if err != nil {
				t.Fatal(err)
			}
			cost, err := gorgonia.Sum(out)
			if err != nil {
				t.Fatal(err)
			}
			grads, err := gorgonia.Grad(cost, x)
			if err != nil {
				t.Fatal(err)
			}
			res := gradcheck.Run(t, out, grads[0])
			gradcheck.Expect(t, fmt.Sprintf("%v/%v value", red, dt), res[0], []float64{1, 2, 0, 0, 5, 5, 3, 3, -1, 0, 0, 0}, 0)
			want := []float64{1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0}
			gradcheck.Expect(t, fmt.Sprintf("%v/%v gradient", red, dt), res[1], want, 0)
		}
	}
}

// TestSoftmaxNodes checks the per-graph softmax against the loop, that it
// sums to 1 over every graph, and its gradient by finite differences.
func TestSoftmaxNodes(t *testing.T) {
	for name, b := range batches(t) {
		for _, feat := range [][]int{{1}, {2, 3}} {
			for _, dt := range gradcheck.Dtypes {
				t.Run(fmt.Sprintf("%s/feat=%v/%v", name, feat, dt), func(t *testing.T) {
					rg := b.Readout()
					spec := []operand{{ops.E, feat}}
					build := func(_ *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
						return ops.SoftmaxNodes(b, in[0])
					}
					vals := draw(rand.New(rand.NewPCG(7, 8)), rg, spec)
					got, _ := forward(t, rg, dt, spec, vals, build)
					gradcheck.Expect(t, "SoftmaxNodes", got, naiveSoftmaxNodes(b, vals[0], size(feat)), tolerance(dt))
					sums := naiveReadout(b, ops.Sum, got, size(feat))
					for i, n := range b.BatchNumNodes() {
						for k := range size(feat) {
							if s := sums[i*size(feat)+k]; n > 0 && math.Abs(s-1) > 1e-5 {
								t.Errorf("graph %d column %d sums to %v", i, k, s)
							}
						}
					}
					gradCheck(t, rg, dt, spec, build, 23)
				})
			}
		}
	}
}

// TestWeightedSumNodes checks the weighted sum against the loop, with one
// weight per node and one per node and head, and its gradient with respect
// to both operands by finite differences.
func TestWeightedSumNodes(t *testing.T) {
	for name, b := range batches(t) {
		for _, hd := range [][2]int{{1, 3}, {2, 4}} {
			for _, dt := range gradcheck.Dtypes {
				h, d := hd[0], hd[1]
				t.Run(fmt.Sprintf("%s/h=%d/d=%d/%v", name, h, d, dt), func(t *testing.T) {
					rg := b.Readout()
					spec := []operand{{ops.U, []int{h, d}}, {ops.E, []int{h, 1}}}
					build := func(_ *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
						return ops.WeightedSumNodes(b, in[0], in[1])
					}
					vals := draw(rand.New(rand.NewPCG(9, 10)), rg, spec)
					got, _ := forward(t, rg, dt, spec, vals, build)
					gradcheck.Expect(t, "WeightedSumNodes", got, naiveWeightedSum(b, vals[0], vals[1], h, d), tolerance(dt))
					gradCheck(t, rg, dt, spec, build, 25)
				})
			}
		}
	}
}

// TestReadoutLarge checks the readouts on a batch large enough to be split
// over several goroutines against the loops, and that the results have the
// same bits with one goroutine and with several.
func TestReadoutLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	b := randomBatch(t, r, 3000, 40)
	rg := b.Readout()
	const w = 16
	spec := []operand{{ops.U, []int{w}}}
	vals := draw(r, rg, spec)
	for _, red := range []ops.Reducer{ops.Sum, ops.Mean, ops.Max} {
		for _, dt := range gradcheck.Dtypes {
			build := func(_ *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.ReadoutNodes(b, red, in[0])
			}
			prev := runtime.GOMAXPROCS(1)
			one, _ := forward(t, rg, dt, spec, vals, build)
			runtime.GOMAXPROCS(max(prev, 4))
			many, _ := forward(t, rg, dt, spec, vals, build)
			runtime.GOMAXPROCS(prev)
			gradcheck.Expect(t, fmt.Sprintf("%v/%v", red, dt), many, naiveReadout(b, red, vals[0], w), tolerance(dt))
			gradcheck.Expect(t, fmt.Sprintf("%v/%v with 1 and 4 goroutines", red, dt), many, one, 0)
		}
	}
}

// TestReadoutErrors checks the argument checks.
func TestReadoutErrors(t *testing.T) {
	b := batches(t)["mixed"]
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(b.NumSrc(), 3), gorgonia.WithName("x"))
	wrong := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(b.NumGraphs(), 3), gorgonia.WithName("y"))
	w64 := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(b.NumSrc(), 1), gorgonia.WithName("w"))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil batch", errOf(ops.SumNodes(nil, x)), "ReadoutNodes on a nil batch"},
		{"nil features", errOf(ops.MaxNodes(b, nil)), "features are nil"},
		{"rows", errOf(ops.MeanNodes(b, wrong)), `features "y" have shape (6, 3) but the batch has 11 nodes`},
		{"reducer", errOf(ops.ReadoutNodes(b, ops.Reducer(9), x)), "unknown reducer"},
		{"softmax rows", errOf(ops.SoftmaxNodes(b, wrong)), `SoftmaxNodes: scores "y"`},
		{"weight rows", errOf(ops.WeightedSumNodes(b, x, wrong)), `WeightedSumNodes: weights "y"`},
		{"weight dtype", errOf(ops.WeightedSumNodes(b, x, w64)), "differ in dtype"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

// TestReadoutHash checks that readouts of two batches of equal sizes stay
// two nodes of an expression graph.
func TestReadoutHash(t *testing.T) {
	b1, b2 := batches(t)["one"], batches(t)["one"]
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(b1.NumSrc(), 2), gorgonia.WithName("x"))
	r1, err1 := ops.SumNodes(b1, x)
	r2, err2 := ops.SumNodes(b2, x)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if r1 == r2 {
		t.Errorf("readouts over two batches merged into one node")
	}
}
