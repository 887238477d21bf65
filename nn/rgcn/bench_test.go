package rgcn_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/vm"
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

// runPasses times forward and backward passes of cost's graph; edges/s
// counts edges once per pass.
func runPasses(b *testing.B, cost *gorgonia.Node, wrt gorgonia.Nodes, edges int) {
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
	b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
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
			runPasses(b, cost, l.Learnables(), benchEdges)
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
// TestPerEdgeMatchesLayer checks that both compute the same layer.
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
		w, loop, bias := param("w", benchRels, f, f), param("loop", f, f), param("bias", f)
		h, err := rgcn.PerEdge(g, et, norm, x, w, loop, bias)
		if err != nil {
			b.Fatal(err)
		}
		params := gorgonia.Nodes{w, loop, bias}
		cost, err := gorgonia.Sum(h)
		if err != nil {
			b.Fatal(err)
		}
		runPasses(b, cost, params, benchEdges)
	})
}

// TestPerEdgeMatchesLayer checks PerEdge, the benchmarks' per-edge path, against
// RelGraphConv with the same parameters, so the two compute one model.
func TestPerEdgeMatchesLayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := testgraphs.Random(t, rng, numNodes, numNodes, numEdges)
	et := make([]int32, g.NumEdges())
	for e := range et {
		et[e] = int32(e * numRels / len(et))
	}
	norm, err := rgcn.RightNorm(g, et, numRels)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := rgcn.Group(g, et, numRels, norm)
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	l, err := rgcn.New(eg, in, out, numRels, rgcn.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Learnables()
	for _, p := range ps {
		gradcheck.Set(p, gradcheck.Draw(rng, p.Shape().TotalSize()))
	}
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{numNodes, in}, gradcheck.Draw(rng, numNodes*in))
	want, err := l.Forward(rel, x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rgcn.PerEdge(g, et, norm, x, ps[0], ps[1], ps[2])
	if err != nil {
		t.Fatal(err)
	}
	v := gradcheck.Run(t, want, got)
	gradcheck.Expect(t, "per-edge output", v[1], v[0], 1e-9)
}

// BenchmarkSegmentMatMulBlocks times one forward and backward pass of
// SegmentMatMul with 256 features in and out on a graph of 50k nodes,
// 200k edges and 4 relations, where the dense products dominate: with
// block-diagonal weights of 4 and 16 blocks (B block products of 256/B),
// and with the same weights written out as full (256, 256) matrices, zero
// off the blocks (impl=dense: the arithmetic of assembling W_r, B times
// the block products'). edges/s counts the edges once per pass.
func BenchmarkSegmentMatMulBlocks(b *testing.B) {
	const n, m, rels, f = 50_000, 200_000, 4, 256
	r := rand.New(rand.NewPCG(1, 2))
	src, dst, et := make([]int32, m), make([]int32, m), make([]int32, m)
	for e := range src {
		src[e], dst[e], et[e] = int32(r.IntN(n)), int32(r.IntN(n)), int32(r.IntN(rels))
	}
	g, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	rel, err := rgcn.Group(g, et, rels, nil)
	if err != nil {
		b.Fatal(err)
	}
	xv := make([]float32, n*f)
	for i := range xv {
		xv[i] = float32(r.NormFloat64())
	}
	for _, blocks := range []int{4, 16} {
		for _, dense := range []bool{false, true} {
			name := fmt.Sprintf("blocks=%d", blocks)
			if dense {
				name += "/impl=dense"
			}
			b.Run(name, func(b *testing.B) {
				eg := gorgonia.NewGraph()
				x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, f), gorgonia.WithName("x"),
					gorgonia.WithValue(tensor.New(tensor.WithShape(n, f), tensor.WithBacking(xv))))
				bi := f / blocks
				var wv []float32
				shape := []int{rels, blocks, bi, bi}
				if dense {
					shape = []int{rels, f, f}
					wv = make([]float32, rels*f*f)
					for q := range rels {
						for k := range blocks {
							for i := range bi {
								for j := range bi {
									wv[(q*f+k*bi+i)*f+k*bi+j] = float32(r.NormFloat64() * 0.05)
								}
							}
						}
					}
				} else {
					wv = make([]float32, rels*f*bi)
					for i := range wv {
						wv[i] = float32(r.NormFloat64() * 0.05)
					}
				}
				w := gorgonia.NewTensor(eg, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("w"),
					gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(wv))))
				y, err := rgcn.SegmentMatMul(rel, x, w, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				cost, err := gorgonia.Sum(y)
				if err != nil {
					b.Fatal(err)
				}
				runPasses(b, cost, gorgonia.Nodes{x, w}, m)
			})
		}
	}
}

// BenchmarkRelGraphConvVM is BenchmarkRelGraphConv/none run on an nn/vm
// machine, which hands SegmentMatMul's ops the buffers of the previous
// run: allocs/op and B/op show what a training step still allocates.
func BenchmarkRelGraphConvVM(b *testing.B) {
	g, et, norm, xv := benchGraph(b)
	rel, err := rgcn.Group(g, et, benchRels, norm)
	if err != nil {
		b.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	l, err := rgcn.New(eg, benchFeats, benchFeats, benchRels)
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
	grads, err := gorgonia.Grad(cost, l.Learnables()...)
	if err != nil {
		b.Fatal(err)
	}
	m, err := vm.New(append(gorgonia.Nodes{cost}, grads...))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	if err := m.RunAll(); err != nil { // fills the pool
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := m.RunAll(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchEdges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
