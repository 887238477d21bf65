package rgcn_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/ops"
)

const benchNodes, benchEdges, benchRels, benchFeats = 50_000, 500_000, 8, 64

// benchGraph draws the benchmarks' graph: random edges whose relations are
// in increasing edge-ID order, as ToHomogeneous numbers them, with
// RightNorm, and features x.
func benchGraph(b *testing.B) (g *graph.Graph, et []int32, norm []float64, x []float32) {
	const n, m, rels, f = benchNodes, benchEdges, benchRels, benchFeats
	r := rand.New(rand.NewPCG(1, 2))
	src, dst := make([]int32, m), make([]int32, m)
	et = make([]int32, m)
	for e := range src {
		src[e], dst[e], et[e] = int32(r.IntN(n)), int32(r.IntN(n)), int32(r.IntN(rels))
	}
	slices.Sort(et)
	g, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	if norm, err = rgcn.RightNorm(g, et, rels); err != nil {
		b.Fatal(err)
	}
	x = make([]float32, n*f)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return g, et, norm, x
}

// runPasses times forward and backward passes of cost's graph.
func runPasses(b *testing.B, cost *gorgonia.Node, wrt gorgonia.Nodes) {
	if _, err := gorgonia.Grad(cost, wrt...); err != nil {
		b.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(cost.Graph())
	defer vm.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := vm.RunAll(); err != nil {
			b.Fatal(err)
		}
		vm.Reset()
	}
	b.ReportMetric(float64(benchEdges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

func benchInput(eg *gorgonia.ExprGraph, xv []float32) *gorgonia.Node {
	return gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(benchNodes, benchFeats), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(benchNodes, benchFeats), tensor.WithBacking(xv))))
}

// BenchmarkRelGraphConv times one forward and backward pass of a layer on
// a random graph with 8 relations (RightNorm), 64 features in and out:
// one dense product and one fused weighted sum per relation, no per-edge
// tensor. edges/s counts the graph's edges once per pass.
func BenchmarkRelGraphConv(b *testing.B) {
	g, et, norm, xv := benchGraph(b)
	rel, err := rgcn.Group(g, et, benchRels, norm)
	if err != nil {
		b.Fatal(err)
	}
	for _, reg := range []struct {
		name string
		opts []rgcn.Option
	}{{"none", nil}, {"basis4", []rgcn.Option{rgcn.WithBasis(4)}}, {"bdd4", []rgcn.Option{rgcn.WithBlockDiagonal(4)}}} {
		b.Run(reg.name, func(b *testing.B) {
			eg := gorgonia.NewGraph()
			l, err := rgcn.New(eg, benchFeats, benchFeats, benchRels, reg.opts...)
			if err != nil {
				b.Fatal(err)
			}
			y, err := l.Forward(rel, benchInput(eg, xv))
			if err != nil {
				b.Fatal(err)
			}
			cost, err := gorgonia.Sum(y)
			if err != nil {
				b.Fatal(err)
			}
			runPasses(b, cost, l.Learnables())
		})
	}
}

// BenchmarkRelGraphConvPerEdge times the same layer as
// BenchmarkRelGraphConv/none computed the per-edge way, over the one
// homogeneous graph: gather every edge's source row (E x in), multiply
// each relation's run of edges by its weight (E x out messages), scale by
// the norm and sum at the destinations, plus the self-loop and bias. This
// is DGL's RelGraphConv with sorted edge types (gather_mm / segment_mm);
// it is here to show what the per-relation path saves in memory.
func BenchmarkRelGraphConvPerEdge(b *testing.B) {
	g, et, norm, xv := benchGraph(b)
	const f = benchFeats
	b.Run("none", func(b *testing.B) {
		eg := gorgonia.NewGraph()
		r := rand.New(rand.NewPCG(5, 6))
		param := func(name string, shape ...int) *gorgonia.Node {
			v := make([]float32, tensor.Shape(shape).TotalSize())
			for i := range v {
				v[i] = float32(r.NormFloat64() * 0.1)
			}
			return gorgonia.NewTensor(eg, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name),
				gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))))
		}
		x := benchInput(eg, xv)
		edges, err := ops.CopyU(g, x) // E x in
		if err != nil {
			b.Fatal(err)
		}
		var params, msgs gorgonia.Nodes
		start := 0
		for rel := range int32(benchRels) {
			end, _ := slices.BinarySearch(et, rel+1)
			w := param("w"+string(rune('0'+rel)), f, f)
			params = append(params, w)
			er, err := gorgonia.Slice(edges, gorgonia.S(start, end))
			if err != nil {
				b.Fatal(err)
			}
			mr, err := nn.MatMul(er, w)
			if err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, mr)
			start = end
		}
		m, err := gorgonia.Concat(0, msgs...) // E x out
		if err != nil {
			b.Fatal(err)
		}
		nv := make([]float32, len(norm))
		for i, v := range norm {
			nv[i] = float32(v)
		}
		c := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(len(nv), 1), gorgonia.WithName("norm"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(len(nv), 1), tensor.WithBacking(nv))))
		if m, err = gorgonia.BroadcastHadamardProd(m, c, nil, []byte{1}); err != nil {
			b.Fatal(err)
		}
		h, err := ops.CopyESum(g, m)
		if err != nil {
			b.Fatal(err)
		}
		loop, bias := param("loop", f, f), param("bias", f)
		params = append(params, loop, bias)
		y, err := nn.MatMul(x, loop)
		if err != nil {
			b.Fatal(err)
		}
		if h, err = gorgonia.Add(h, y); err != nil {
			b.Fatal(err)
		}
		if h, err = nn.AddBias(h, bias); err != nil {
			b.Fatal(err)
		}
		cost, err := gorgonia.Sum(h)
		if err != nil {
			b.Fatal(err)
		}
		runPasses(b, cost, params)
	})
}
