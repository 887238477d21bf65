package mp_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/ops/fn"
)

const heteroF = 3

// heteroFixture: node types a (5), b (4), c (2, untouched); a receives
// from b and from itself, b from a (bipartite, with an isolated b node) and
// from itself.
func heteroFixture(t testing.TB) *hetero.Graph {
	rng := rand.New(rand.NewPCG(11, 12))
	h, err := hetero.New(map[string]int{"a": 5, "b": 4, "c": 2}, map[hetero.EdgeType]*graph.Graph{
		{Src: "a", Rel: "r", Dst: "b"}: testgraphs.Must(t, 5, 4, []int32{0, 1, 4, 2, 0}, []int32{0, 2, 2, 1, 1}),
		{Src: "b", Rel: "s", Dst: "a"}: testgraphs.Random(t, rng, 4, 5, 9),
		{Src: "a", Rel: "t", Dst: "a"}: testgraphs.Random(t, rng, 5, 5, 7),
		{Src: "b", Rel: "u", Dst: "b"}: testgraphs.Random(t, rng, 4, 4, 6),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// heteroInputs binds h (per node type) and w (per edge type) on a frame,
// drawing the values from a fixed seed.
func heteroInputs(t testing.TB, eg *gorgonia.ExprGraph, dt tensor.Dtype, h *hetero.Graph) (*mp.HeteroFrame, gorgonia.Nodes) {
	r := rand.New(rand.NewPCG(21, 22))
	f, err := mp.NewHeteroFrame(h)
	if err != nil {
		t.Fatal(err)
	}
	var in gorgonia.Nodes
	for i, nt := range h.NodeTypes() {
		x := gradcheck.Input(eg, dt, "h_"+nt, []int{h.NodeCount(i), heteroF}, gradcheck.Draw(r, h.NodeCount(i)*heteroF))
		d, _ := f.Nodes(nt)
		if err := d.Set("h", x); err != nil {
			t.Fatal(err)
		}
		in = append(in, x)
	}
	for j, et := range h.EdgeTypes() {
		m := h.RelationAt(j).NumEdges()
		w := gradcheck.Input(eg, dt, "w_"+et.Rel, []int{m, 1}, gradcheck.Draw(r, m))
		d, _ := f.Edges(et)
		if err := d.Set("w", w); err != nil {
			t.Fatal(err)
		}
		in = append(in, w)
	}
	return f, in
}

func weightedSum() mp.Pass {
	return mp.Pass{Message: fn.UMulE("h", "w", "m"), Reduce: fn.Sum("m", "out")}
}

func allPasses(h *hetero.Graph, p mp.Pass) map[hetero.EdgeType]mp.Pass {
	out := map[hetero.EdgeType]mp.Pass{}
	for _, et := range h.EdgeTypes() {
		out[et] = p
	}
	return out
}

var crossReducers = []mp.CrossReducer{mp.CrossSum, mp.CrossMean, mp.CrossMax, mp.CrossMin, mp.CrossStack}

// TestMultiUpdateAll checks each relation's part against UpdateAll on the
// relation's graph alone, and the cross reducers against the reduction of
// those results computed here.
func TestMultiUpdateAll(t *testing.T) {
	h := heteroFixture(t)
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, cross := range crossReducers {
			// Per relation, with plain frames over the relations' graphs,
			// on an expression graph of their own: Gorgonia merges equal
			// nodes, and the tape machine may add into a result in place.
			f, _ := heteroInputs(t, gorgonia.NewGraph(), dt, h)
			perRel := map[string][]*gorgonia.Node{}
			for j, et := range h.EdgeTypes() {
				g := h.RelationAt(j)
				var rf *mp.Frame
				var err error
				if et.Src == et.Dst {
					rf, err = mp.NewFrame(g)
				} else {
					rf, err = mp.NewBipartiteFrame(g)
				}
				if err != nil {
					t.Fatal(err)
				}
				src, _ := f.Nodes(et.Src)
				e, _ := f.Edges(et)
				hx, _ := src.Get("h")
				w, _ := e.Get("w")
				if err := rf.SrcData().Set("h", hx); err != nil {
					t.Fatal(err)
				}
				if err := rf.EdgeData().Set("w", w); err != nil {
					t.Fatal(err)
				}
				if err := rf.UpdateAll(fn.UMulE("h", "w", "m"), fn.Sum("m", "out"), nil); err != nil {
					t.Fatal(err)
				}
				out, _ := rf.DstData().Get("out")
				perRel[et.Dst] = append(perRel[et.Dst], out)
			}
			var refs []*gorgonia.Node
			for _, nt := range []string{"a", "b"} {
				refs = append(refs, perRel[nt]...)
			}
			refVals := gradcheck.Run(t, refs...)

			f, _ = heteroInputs(t, gorgonia.NewGraph(), dt, h)
			if err := f.MultiUpdateAll(allPasses(h, weightedSum()), cross); err != nil {
				t.Fatal(err)
			}
			var got []*gorgonia.Node
			for _, nt := range []string{"a", "b"} {
				d, _ := f.Nodes(nt)
				x, err := d.Get("out")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, x)
			}
			if c, _ := f.Nodes("c"); c.Has("out") {
				t.Errorf("%v %v: node type c, reached by no relation, got field out", dt, cross)
			}
			vals := gradcheck.Run(t, got...)
			// refs: a's two relations (s, t), then b's two (r, u), in
			// edge-type order.
			wantA := crossRef(cross, refVals[0], refVals[1])
			wantB := crossRef(cross, refVals[2], refVals[3])
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			gradcheck.Expect(t, dt.String()+" "+cross.String()+" a", vals[0], wantA, tol)
			gradcheck.Expect(t, dt.String()+" "+cross.String()+" b", vals[1], wantB, tol)
			if cross == mp.CrossStack {
				if s := got[0].Shape(); !s.Eq(tensor.Shape{5, 2, heteroF}) {
					t.Errorf("stack shape %v", s)
				}
			}
		}
	}
}

// crossRef reduces two (N, F) results row by row; stack interleaves them
// as (N, 2, F).
func crossRef(cross mp.CrossReducer, x, y []float64) []float64 {
	if cross == mp.CrossStack {
		var out []float64
		for i := 0; i < len(x); i += heteroF {
			out = append(out, x[i:i+heteroF]...)
			out = append(out, y[i:i+heteroF]...)
		}
		return out
	}
	out := make([]float64, len(x))
	for i := range x {
		switch cross {
		case mp.CrossSum:
			out[i] = x[i] + y[i]
		case mp.CrossMean:
			out[i] = (x[i] + y[i]) / 2
		case mp.CrossMax:
			out[i] = math.Max(x[i], y[i])
		case mp.CrossMin:
			out[i] = math.Min(x[i], y[i])
		}
	}
	return out
}

func TestMultiUpdateAllGradients(t *testing.T) {
	h := heteroFixture(t)
	for _, cross := range crossReducers {
		t.Run(cross.String(), func(t *testing.T) {
			fun := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, _ *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				f, in := heteroInputs(t, eg, dt, h)
				if err := f.MultiUpdateAll(allPasses(h, weightedSum()), cross); err != nil {
					return nil, nil, err
				}
				d, _ := f.Nodes("a")
				out, err := d.Get("out")
				// a depends on h_a, h_b, w_s and w_t.
				return out, gorgonia.Nodes{in[0], in[1], in[4], in[5]}, err
			}
			gradcheck.Check(t, tensor.Float64, fun, gradcheck.Options{Seed: 5, Stream: 6})
		})
	}
}

func TestMultiUpdateAllErrors(t *testing.T) {
	h := heteroFixture(t)
	eg := gorgonia.NewGraph()
	f, _ := heteroInputs(t, eg, tensor.Float64, h)
	before, _ := f.Nodes("b")
	names := before.Names()
	err := f.MultiUpdateAll(map[hetero.EdgeType]mp.Pass{{Src: "a", Rel: "x", Dst: "b"}: weightedSum()}, mp.CrossSum)
	if err == nil || !strings.Contains(err.Error(), "no edge type (a, x, b)") {
		t.Errorf("unknown edge type: %v", err)
	}
	passes := allPasses(h, weightedSum())
	passes[hetero.EdgeType{Src: "b", Rel: "u", Dst: "b"}] = mp.Pass{Message: fn.UMulE("h", "nope", "m"), Reduce: fn.Sum("m", "out")}
	err = f.MultiUpdateAll(passes, mp.CrossSum)
	if err == nil || !strings.Contains(err.Error(), "relation (b, u, b)") || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("missing edge field: %v", err)
	}
	if got := before.Names(); strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("failed call changed node fields %v -> %v", names, got)
	}
	if a, _ := f.Nodes("a"); a.Has("out") {
		t.Error("failed call wrote a field on node type a")
	}
	if err := f.MultiUpdateAll(allPasses(h, weightedSum()), mp.CrossReducer(9)); err == nil || !strings.Contains(err.Error(), "unknown cross reducer") {
		t.Errorf("bad cross reducer: %v", err)
	}
	if _, err := f.Nodes("zz"); err == nil {
		t.Error("Nodes(zz): no error")
	}
	if _, err := mp.NewHeteroFrame(nil); err == nil {
		t.Error("nil heterograph: no error")
	}
	if _, err := mp.CrossReduce(mp.CrossSum, nil); err == nil {
		t.Error("CrossReduce of nothing: no error")
	}
}

// TestHeteroRelationFrame: a routine on a relation's frame writes into the
// heterograph's stores.
func TestHeteroRelationFrame(t *testing.T) {
	h := heteroFixture(t)
	eg := gorgonia.NewGraph()
	f, _ := heteroInputs(t, eg, tensor.Float64, h)
	rf, err := f.Relation(hetero.EdgeType{Src: "a", Rel: "r", Dst: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !rf.Bipartite() {
		t.Error("relation between two types is not bipartite")
	}
	if err := rf.UpdateAll(fn.CopyU("h", "m"), fn.Max("m", "hm"), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := f.Nodes("b"); !b.Has("hm") {
		t.Error("the relation frame's write is not visible on node type b")
	}
}
