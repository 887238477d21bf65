package link_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn/link"
)

// pairGraph returns a pair graph over n nodes with the given pairs.
func pairGraph(t testing.TB, n int, src, dst []int32) *graph.Graph {
	t.Helper()
	return gradcheck.Graph(t, n, n, src, dst)
}

// Pair graphs: "dense" has more pairs than nodes (the MLP projects the nodes
// first), "sparse" fewer (it gathers the endpoints first); both have a
// repeated pair, a self-pair and a node in no pair.
func pairGraphs(t testing.TB) map[string]*graph.Graph {
	return map[string]*graph.Graph{
		"dense":  pairGraph(t, 5, []int32{0, 1, 2, 3, 0, 0, 4, 2, 1, 3, 2}, []int32{1, 2, 3, 0, 1, 0, 2, 4, 4, 1, 0}),
		"sparse": pairGraph(t, 9, []int32{0, 5, 5, 7}, []int32{5, 2, 2, 7}),
	}
}

// rowsOf returns row i of x (rows of f).
func rowsOf(x []float64, i, f int) []float64 { return x[i*f : (i+1)*f] }

func dotRef(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// mlpRef evaluates a stack by a plain loop: x the input row, the first
// layer's weight w0 (len(x) x h0, row-major), b0, then (w, b) per layer.
func mlpRef(x []float64, ws, bs [][]float64) []float64 {
	for l := range ws {
		out := len(bs[l])
		y := make([]float64, out)
		for j := range out {
			y[j] = bs[l][j]
			for i := range x {
				y[j] += x[i] * ws[l][i*out+j]
			}
		}
		if l < len(ws)-1 {
			for j := range y {
				y[j] = math.Max(y[j], 0)
			}
		}
		x = y
	}
	return x
}

// TestDecoders checks every decoder's scores against a per-pair loop on
// both pair graphs, and their gradients (embeddings and parameters) by
// finite differences in float32 and float64.
func TestDecoders(t *testing.T) {
	const f = 3
	type decoder struct {
		name      string
		make      func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (link.Decoder, error)
		reference func(d link.Decoder, h []float64, u, v int) float64
		nonSmooth bool
	}
	params := func(d link.Decoder) [][]float64 {
		var ps [][]float64
		for _, p := range d.Learnables() {
			ps = append(ps, gradcheck.Floats(p.Value()))
		}
		return ps
	}
	mlp := func(c link.Combine, hidden []int) func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (link.Decoder, error) {
		return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (link.Decoder, error) {
			m, err := link.NewMLP(eg, f, hidden, link.WithDtype(dt), link.WithSeed(7), link.WithCombine(c))
			if err != nil {
				return nil, err
			}
			// Non-zero biases, so that they matter in the reference.
			for i, p := range m.Learnables() {
				if p.Shape().Dims() == 1 {
					v := make([]float64, p.Shape().TotalSize())
					for j := range v {
						v[j] = 0.1 * float64(i+j+1)
					}
					gradcheck.Set(p, v)
				}
			}
			return m, nil
		}
	}
	concatRef := func(d link.Decoder, h []float64, u, v int) float64 {
		ps := params(d) // w0u, w0v, b0, w1, b1, ...
		w0 := append(append([]float64{}, ps[0]...), ps[1]...)
		ws, bs := [][]float64{w0}, [][]float64{ps[2]}
		for i := 3; i < len(ps); i += 2 {
			ws, bs = append(ws, ps[i]), append(bs, ps[i+1])
		}
		x := append(append([]float64{}, rowsOf(h, u, f)...), rowsOf(h, v, f)...)
		return mlpRef(x, ws, bs)[0]
	}
	hadamardRef := func(d link.Decoder, h []float64, u, v int) float64 {
		ps := params(d) // w0u, b0, w1, b1, ...
		ws, bs := [][]float64{ps[0]}, [][]float64{ps[1]}
		for i := 2; i < len(ps); i += 2 {
			ws, bs = append(ws, ps[i]), append(bs, ps[i+1])
		}
		x := make([]float64, f)
		for i := range x {
			x[i] = h[u*f+i] * h[v*f+i]
		}
		return mlpRef(x, ws, bs)[0]
	}
	decoders := []decoder{
		{name: "dot", make: func(*gorgonia.ExprGraph, tensor.Dtype) (link.Decoder, error) { return link.Dot{}, nil },
			reference: func(_ link.Decoder, h []float64, u, v int) float64 { return dotRef(rowsOf(h, u, f), rowsOf(h, v, f)) }},
		{name: "cosine", make: func(*gorgonia.ExprGraph, tensor.Dtype) (link.Decoder, error) { return link.Cosine{}, nil },
			reference: func(_ link.Decoder, h []float64, u, v int) float64 {
				a, b := rowsOf(h, u, f), rowsOf(h, v, f)
				return dotRef(a, b) / math.Sqrt(dotRef(a, a)*dotRef(b, b))
			}},
		{name: "distmult", make: func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (link.Decoder, error) {
			return link.NewDistMult(eg, 1, f, link.WithDtype(dt), link.WithSeed(3))
		},
			reference: func(d link.Decoder, h []float64, u, v int) float64 {
				w := params(d)[0]
				var s float64
				for i := range f {
					s += h[u*f+i] * w[i] * h[v*f+i]
				}
				return s
			}},
		{name: "mlp-linear", make: mlp(link.Concat, nil), reference: concatRef},
		{name: "mlp-concat", make: mlp(link.Concat, []int{4, 2}), reference: concatRef, nonSmooth: true},
		{name: "mlp-hadamard", make: mlp(link.Hadamard, []int{4}), reference: hadamardRef, nonSmooth: true},
	}
	seed := uint64(90)
	graphs := pairGraphs(t)
	for _, gname := range slices.Sorted(maps.Keys(graphs)) {
		g := graphs[gname]
		for _, d := range decoders {
			for _, dt := range gradcheck.Dtypes {
				seed++
				t.Run(fmt.Sprintf("%s/%s/%v", gname, d.name, dt), func(t *testing.T) {
					build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, link.Decoder, []float64, error) {
						hv := gradcheck.Draw(r, g.NumSrc()*f)
						h := gradcheck.Input(eg, dt, "h", []int{g.NumSrc(), f}, hv)
						dec, err := d.make(eg, dt)
						if err != nil {
							return nil, nil, nil, nil, err
						}
						s, err := dec.Score(g, h)
						return s, append(gorgonia.Nodes{h}, dec.Learnables()...), dec, hv, err
					}
					s, _, dec, hv, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(seed, 1)))
					if err != nil {
						t.Fatal(err)
					}
					if sh := s.Shape(); !sh.Eq(tensor.Shape{g.NumEdges(), 1}) {
						t.Fatalf("shape %v, want (%d, 1)", sh, g.NumEdges())
					}
					got := gradcheck.Run(t, s)[0]
					src, dst := g.COO()
					tol := 1e-12
					if dt == tensor.Float32 {
						tol = 1e-5
					}
					for e := range src {
						if want := d.reference(dec, hv, int(src[e]), int(dst[e])); !gradcheck.Within(got[e], want, tol) {
							t.Errorf("pair %d (%d, %d) scores %v, the loop gives %v", e, src[e], dst[e], got[e], want)
						}
					}
					f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
						s, wrt, _, _, err := build(eg, dt, r)
						return s, wrt, err
					}
					gradcheck.Check(t, dt, f, gradcheck.Options{Seed: seed, Stream: 5, Float32Tol: 1e-4, NonSmooth: d.nonSmooth})
				})
			}
		}
	}
}

// TestDistMultRelations checks ScoreRelations with three relations against
// a per-pair loop, and that Score refuses more than one relation.
func TestDistMultRelations(t *testing.T) {
	g := pairGraphs(t)["dense"]
	eg := gorgonia.NewGraph()
	hv := gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 5*4)
	h := gradcheck.Input(eg, tensor.Float64, "h", []int{5, 4}, hv)
	d, err := link.NewDistMult(eg, 3, 4, link.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Score(g, h); err == nil || !strings.Contains(err.Error(), "3 relations") {
		t.Errorf("Score with 3 relations: error %v", err)
	}
	rel := make([]int32, g.NumEdges())
	for e := range rel {
		rel[e] = int32(e % 3)
	}
	s, err := d.ScoreRelations(g, h, rel)
	if err != nil {
		t.Fatal(err)
	}
	got := gradcheck.Run(t, s)[0]
	w := gradcheck.Floats(d.Relations().Value())
	src, dst := g.COO()
	for e := range src {
		var want float64
		for i := range 4 {
			want += hv[int(src[e])*4+i] * w[int(rel[e])*4+i] * hv[int(dst[e])*4+i]
		}
		if !gradcheck.Within(got[e], want, 1e-12) {
			t.Errorf("pair %d scores %v, want %v", e, got[e], want)
		}
	}
}

// TestEdgeHead checks an edge head with edge features and two classes
// against a plain loop, its gradients by finite differences, and
// training it with nn.CrossEntropy and MSE.
func TestEdgeHead(t *testing.T) {
	const f, d, out = 3, 2, 2
	seed := uint64(500)
	graphs := pairGraphs(t)
	for _, gname := range slices.Sorted(maps.Keys(graphs)) {
		g := graphs[gname]
		for _, c := range []link.Combine{link.Concat, link.Hadamard} {
			for _, dt := range gradcheck.Dtypes {
				seed++
				t.Run(fmt.Sprintf("%s/%v/%v", gname, c, dt), func(t *testing.T) {
					e := g.NumEdges()
					build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, *link.EdgeHead, [2][]float64, error) {
						hv, ev := gradcheck.Draw(r, g.NumSrc()*f), gradcheck.Draw(r, e*d)
						h := gradcheck.Input(eg, dt, "h", []int{g.NumSrc(), f}, hv)
						ef := gradcheck.Input(eg, dt, "ef", []int{e, d}, ev)
						head, err := link.NewEdgeHead(eg, f, []int{4}, out, link.WithDtype(dt), link.WithSeed(9), link.WithEdgeFeatures(d), link.WithCombine(c))
						if err != nil {
							return nil, nil, nil, [2][]float64{}, err
						}
						y, err := head.Forward(g, h, ef)
						return y, append(gorgonia.Nodes{h, ef}, head.Learnables()...), head, [2][]float64{hv, ev}, err
					}
					y, _, head, vals, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(seed, 1)))
					if err != nil {
						t.Fatal(err)
					}
					if sh := y.Shape(); !sh.Eq(tensor.Shape{e, out}) {
						t.Fatalf("shape %v, want (%d, %d)", sh, e, out)
					}
					got := gradcheck.Run(t, y)[0]
					var ps [][]float64
					for _, p := range head.Learnables() {
						ps = append(ps, gradcheck.Floats(p.Value()))
					}
					// Concat: w0u, w0v, w0e, b0, w1, b1; Hadamard: w0u, w0e, b0, w1, b1.
					w0, nb := append(append([]float64{}, ps[0]...), ps[1]...), 2 // nb: the index of b0
					if c == link.Concat {
						w0, nb = append(w0, ps[2]...), 3
					}
					src, dst := g.COO()
					hv, ev := vals[0], vals[1]
					for k := range src {
						u, v := int(src[k]), int(dst[k])
						var x []float64
						if c == link.Concat {
							x = append(append(append(x, rowsOf(hv, u, f)...), rowsOf(hv, v, f)...), rowsOf(ev, k, d)...)
						} else {
							for i := range f {
								x = append(x, hv[u*f+i]*hv[v*f+i])
							}
							x = append(x, rowsOf(ev, k, d)...)
						}
						want := mlpRef(x, [][]float64{w0, ps[nb+1]}, [][]float64{ps[nb], ps[nb+2]})
						tol := 1e-12
						if dt == tensor.Float32 {
							tol = 1e-5
						}
						for j := range out {
							if !gradcheck.Within(got[k*out+j], want[j], tol) {
								t.Errorf("edge %d output %d is %v, the loop gives %v", k, j, got[k*out+j], want[j])
							}
						}
					}
					fn := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
						y, wrt, _, _, err := build(eg, dt, r)
						return y, wrt, err
					}
					gradcheck.Check(t, dt, fn, gradcheck.Options{Seed: seed, Stream: 5, Float32Tol: 1e-4, NonSmooth: true})
				})
			}
		}
	}
}

// TestStackErrors checks that bad sizes and inputs are reported.
func TestStackErrors(t *testing.T) {
	g := pairGraphs(t)["dense"]
	eg := gorgonia.NewGraph()
	h := gradcheck.Zeros(eg, tensor.Float32, "h", 5, 3)
	h4 := gradcheck.Zeros(eg, tensor.Float32, "h4", 4, 3)
	head, err := link.NewEdgeHead(eg, 3, nil, 2, link.WithEdgeFeatures(2))
	if err != nil {
		t.Fatal(err)
	}
	mlp, err := link.NewMLP(eg, 3, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	ef := gradcheck.Zeros(eg, tensor.Float32, "ef", 3, 2)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"hidden", second(link.NewMLP(eg, 3, []int{0})), "hidden layer 0 has width 0"},
		{"in", second(link.NewMLP(eg, 0, nil)), "positive sizes"},
		{"mlp edge features", second(link.NewMLP(eg, 3, nil, link.WithEdgeFeatures(2))), "no edge features"},
		{"distmult sizes", second(link.NewDistMult(eg, 0, 3)), "positive sizes"},
		{"distmult options", second(link.NewDistMult(eg, 1, 3, link.WithEdgeFeatures(2))), "no combination or edge features"},
		{"dtype", second(link.NewMLP(eg, 3, nil, link.WithDtype(tensor.Int32))), "dtype"},
		{"rows", second(mlp.Score(g, h4)), "5 source and 5 destination nodes"},
		{"missing features", second(head.Forward(g, h, nil)), "got none"},
		{"feature rows", second(head.Forward(g, h, ef)), "want (11, 2)"},
		{"width", second(mlp.Score(g, gradcheck.Zeros(eg, tensor.Float32, "h2", 5, 2))), "3-wide"},
		{"no pairs", second(link.Dot{}.Score(gradcheck.Graph(t, 5, 5, nil, nil), h)), "no pairs"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}
