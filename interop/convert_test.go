package interop

import (
	"math"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/gcn"
)

// tensors builds a Tensors from float64 arrays given as name, shape, data
// triples (data nil: zeros).
func tensors(t *testing.T, items ...any) *Tensors {
	t.Helper()
	m := map[string]*tensor.Dense{}
	for i := 0; i < len(items); i += 3 {
		shape := items[i+1].([]int)
		n := 1
		for _, d := range shape {
			n *= d
		}
		data, _ := items[i+2].([]float64)
		if data == nil {
			data = make([]float64, n)
			for k := range data {
				data[k] = float64(k + 1)
			}
		}
		m[items[i].(string)] = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(data))
	}
	b, err := MarshalSafetensors(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ParseSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestGCNLayouts checks the transposes and names on a hand-made PyG GCN
// under a prefix, and that DGL's layout is taken as it is.
func TestGCNLayouts(t *testing.T) {
	ts := tensors(t,
		"model.conv1.lin.weight", []int{2, 3}, []float64{1, 2, 3, 4, 5, 6},
		"model.conv1.bias", []int{2}, []float64{7, 8},
		"model.head.weight", []int{2, 2}, nil)
	p, err := PyG(ts, Layer{Kind: "GCNConv", Prefix: "model.conv1", Name: "gcn1", Dtype: tensor.Float64})
	if err != nil {
		t.Fatal(err)
	}
	w := p["gcn1.weight"]
	if !w.Shape().Eq(tensor.Shape{3, 2}) {
		t.Fatalf("weight shape %v", w.Shape())
	}
	if got := w.Data().([]float64); got[0] != 1 || got[1] != 4 || got[2] != 2 || got[5] != 6 {
		t.Errorf("weight %v, want the transpose of lin.weight", got)
	}
	if u := ts.Unused(); len(u) != 1 || u[0] != "model.head.weight" {
		t.Errorf("unused %v", u)
	}
	d, err := DGL(tensors(t, "weight", []int{3, 2}, nil, "bias", []int{2}, nil), Layer{Kind: "GraphConv", Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if d["g.weight"].Dtype() != tensor.Float32 || !d["g.weight"].Shape().Eq(tensor.Shape{3, 2}) {
		t.Errorf("DGL weight %v %v", d["g.weight"].Dtype(), d["g.weight"].Shape())
	}
}

// TestConversionErrors checks that missing, extra and misshapen tensors and
// unmappable options are errors naming the tensor or the option.
func TestConversionErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		fw   string
		ts   *Tensors
		l    Layer
		want string
	}{
		{"missing", "PyG", tensors(t, "bias", []int{2}, nil), Layer{Kind: "GCNConv", Name: "g"}, `missing tensor "lin.weight"`},
		{"extra", "PyG", tensors(t, "c.lin.weight", []int{2, 3}, nil, "c.lin.bias", []int{2}, nil), Layer{Kind: "GCNConv", Prefix: "c", Name: "g"}, `"c.lin.bias"`},
		{"misshapen bias", "PyG", tensors(t, "lin.weight", []int{2, 3}, nil, "bias", []int{3}, nil), Layer{Kind: "GCNConv", Name: "g"}, `"bias" has shape [3], want (2)`},
		{"rank", "PyG", tensors(t, "lin.weight", []int{6}, nil), Layer{Kind: "GCNConv", Name: "g"}, `"lin.weight" has shape [6], want 2 dimensions`},
		{"no prefix", "PyG", tensors(t, "lin.weight", []int{2, 3}, nil), Layer{Kind: "GCNConv", Prefix: "conv9", Name: "g"}, `no tensor starts with "conv9."`},
		{"unknown kind", "PyG", tensors(t, "w", []int{1}, nil), Layer{Kind: "ChebConv", Name: "g"}, `PyG kind "ChebConv" is not mapped`},
		{"unknown DGL kind", "DGL", tensors(t, "w", []int{1}, nil), Layer{Kind: "GCNConv", Name: "g"}, `DGL kind "GCNConv" is not mapped`},
		{"no name", "PyG", tensors(t, "w", []int{1}, nil), Layer{Kind: "GCNConv"}, "empty gnn layer name"},
		{"dtype", "PyG", tensors(t, "w", []int{1}, nil), Layer{Kind: "GCNConv", Name: "g", Dtype: tensor.Int}, "want float32 or float64"},
		{"att heads", "PyG", tensors(t, "lin.weight", []int{6, 4}, nil, "att_src", []int{1, 2, 3}, nil, "att_dst", []int{1, 3, 2}, nil), Layer{Kind: "GATConv", Name: "g"}, `"att_dst" has shape [1 3 2], want (1, 2, 3)`},
		{"gat lin rows", "PyG", tensors(t, "lin.weight", []int{5, 4}, nil, "att_src", []int{1, 2, 3}, nil, "att_dst", []int{1, 2, 3}, nil), Layer{Kind: "GATConv", Name: "g"}, `"lin.weight" has shape [5 4], want (6, any)`},
		{"gat half edge", "PyG", tensors(t, "lin.weight", []int{6, 4}, nil, "att_src", []int{1, 2, 3}, nil, "att_dst", []int{1, 2, 3}, nil, "lin_edge.weight", []int{6, 2}, nil), Layer{Kind: "GATConv", Name: "g"}, "only one of"},
		{"gat identity residual", "PyG", tensors(t, "lin.weight", []int{6, 6}, nil, "att_src", []int{1, 2, 3}, nil, "att_dst", []int{1, 2, 3}, nil, "res.weight", []int{6, 6}, nil), Layer{Kind: "GATConv", Name: "g"}, "unprojected"},
		{"sage max without project", "PyG", tensors(t, "lin_l.weight", []int{2, 3}, nil, "lin_r.weight", []int{2, 3}, nil), Layer{Kind: "SAGEConv", Name: "s", Aggregator: "max"}, "project=True"},
		{"sage project with mean", "PyG", tensors(t, "lin_l.weight", []int{2, 3}, nil, "lin.weight", []int{3, 3}, nil), Layer{Kind: "SAGEConv", Name: "s"}, `"lin.weight" (project=True)`},
		{"sage lstm", "DGL", tensors(t, "lstm.weight_ih_l0", []int{2, 3}, nil, "fc_neigh.weight", []int{2, 3}, nil), Layer{Kind: "SAGEConv", Name: "s"}, "lstm"},
		{"gin eps", "PyG", tensors(t, "eps", []int{2}, nil), Layer{Kind: "GINConv", Name: "g"}, `"eps" has shape [2]`},
		{"gin odd tensor", "PyG", tensors(t, "eps", []int{1}, nil, "nn.0.scale", []int{3}, nil), Layer{Kind: "GINConv", Name: "g"}, `"nn.0.scale"`},
		{"rgcn comp", "PyG", tensors(t, "weight", []int{2, 3, 4}, nil, "comp", []int{5, 3}, nil), Layer{Kind: "RGCNConv", Name: "r"}, `"comp" has shape [5 3] but "weight" has 2 bases`},
		{"rgcn root", "PyG", tensors(t, "weight", []int{2, 3, 4}, nil, "root", []int{4, 3}, nil), Layer{Kind: "RGCNConv", Name: "r"}, `"root" has shape [4 3], want [3 4]`},
		{"dgl bdd blocks", "DGL", tensors(t, "linear_r.W", []int{3, 12}, nil, "loop_weight", []int{6, 4}, nil), Layer{Kind: "RelGraphConv", Name: "r"}, "Layer.Bases"},
		{"dgl layer norm", "DGL", tensors(t, "linear_r.W", []int{3, 6, 4}, nil, "layer_norm_weight.weight", []int{4}, nil), Layer{Kind: "RelGraphConv", Name: "r"}, "layer_norm"},
		{"gatv2 half bias", "PyG", tensors(t, "att", []int{1, 1, 2}, nil, "lin_l.weight", []int{2, 3}, nil, "lin_l.bias", []int{2}, nil, "lin_r.weight", []int{2, 3}, nil), Layer{Kind: "GATv2Conv", Name: "v"}, "only one of lin_l and lin_r"},
		{"float tensor wanted", "PyG", func() *Tensors {
			ts, err := ParseSafetensors(file(`{"lin.weight":{"dtype":"I64","shape":[1,1],"data_offsets":[0,8]}}`, make([]byte, 8)))
			if err != nil {
				t.Fatal(err)
			}
			return ts
		}(), Layer{Kind: "GCNConv", Name: "g"}, `"lin.weight" has dtype I64`},
	} {
		convert := PyG
		if c.fw == "DGL" {
			convert = DGL
		}
		_, err := convert(c.ts, c.l)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if err != nil && len(c.ts.Unused()) != c.ts.Len() {
			t.Errorf("%s: a failed conversion marked tensors used: unused %v", c.name, c.ts.Unused())
		}
	}
}

// TestAssign checks Assign's refusals: a parameter without a value, a
// value without a parameter, a shape or dtype mismatch; none changes the
// model.
func TestAssign(t *testing.T) {
	eg := gorgonia.NewGraph()
	l, err := gcn.New(eg, 3, 2, gcn.WithName("g"))
	if err != nil {
		t.Fatal(err)
	}
	before := append([]float32{}, l.Weight().Value().Data().([]float32)...)
	p, err := PyG(tensors(t, "lin.weight", []int{2, 3}, nil, "bias", []int{2}, nil), Layer{Kind: "GCNConv", Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	bad := func(mod func(Params) Params, want string) {
		t.Helper()
		q := Params{}
		for k, v := range p {
			q[k] = v
		}
		if err := mod(q).Assign(l.Learnables()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
		if got := l.Weight().Value().Data().([]float32); got[0] != before[0] || got[5] != before[5] {
			t.Errorf("a failed Assign changed the weight")
		}
	}
	bad(func(q Params) Params { delete(q, "g.bias"); return q }, `no value for parameter "g.bias"`)
	bad(func(q Params) Params { q["g.extra"] = q["g.bias"]; return q }, `value "g.extra" matches no parameter`)
	bad(func(q Params) Params {
		q["g.bias"] = tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3}))
		return q
	}, `value "g.bias" has shape (3), the parameter (2)`)
	bad(func(q Params) Params {
		q["g.bias"] = tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{1, 2}))
		return q
	}, `value "g.bias" has dtype float64`)
	if err := p.Assign(l.Learnables()); err != nil {
		t.Fatal(err)
	}
	if got := l.Weight().Value().Data().([]float32); got[0] != 1 || got[1] != 4 {
		t.Errorf("weight after Assign %v", got)
	}
	if err := p.Merge(Params{"g.bias": p["g.bias"]}); err == nil {
		t.Error("Merge accepted a duplicate")
	}
	if v := p.Values()("g.weight"); v != p["g.weight"] {
		t.Error("Values does not look values up")
	}
}

// TestPyGGCNNorm checks PyGSelfLoops and PyGGCNNorm against PyG's
// formulas on a small directed weighted graph, where they differ from
// DGL's out-degree normalisation.
func TestPyGGCNNorm(t *testing.T) {
	// 0 -> 1 (w 2), 0 -> 2 (w 3), 1 -> 2 (w 4), and a loop on 1 (w 5).
	g, err := graph.FromCOO(3, 3, []int32{0, 0, 1, 1}, []int32{1, 2, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	gl, w, err := PyGSelfLoops(g, []float64{2, 3, 4, 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The loop on 1 is moved after the other edges with its weight; 0 and 2
	// get loops of weight fill.
	s, d := gl.COO()
	wantS, wantD, wantW := []int32{0, 0, 1, 0, 1, 2}, []int32{1, 2, 2, 0, 1, 2}, []float64{2, 3, 4, 1, 5, 1}
	for e := range wantS {
		if s[e] != wantS[e] || d[e] != wantD[e] || w[e] != wantW[e] {
			t.Fatalf("edge %d: %d -> %d weight %v, want %d -> %d weight %v", e, s[e], d[e], w[e], wantS[e], wantD[e], wantW[e])
		}
	}
	norm, err := PyGGCNNorm(gl, w)
	if err != nil {
		t.Fatal(err)
	}
	// Weighted in-degrees: 0: 1, 1: 2+5, 2: 3+4+1.
	deg := []float64{1, 7, 8}
	for e := range norm {
		want := w[e] / (sqrtf(deg[s[e]]) * sqrtf(deg[d[e]]))
		if diff := norm[e] - want; diff > 1e-15 || diff < -1e-15 {
			t.Errorf("edge %d (%d -> %d): %v, want %v", e, s[e], d[e], norm[e], want)
		}
	}
	if _, w, _ := PyGSelfLoops(g, nil, 1); w != nil {
		t.Errorf("weights %v without input weights", w)
	}
	if _, err := PyGGCNNorm(gl, []float64{1, math.NaN(), 1, 1, 1, 1}); err == nil || !strings.Contains(err.Error(), "edge 1 (0 -> 2)") {
		t.Errorf("NaN weight: %v", err)
	}
	if _, _, err := PyGSelfLoops(g, []float64{1}, 1); err == nil {
		t.Error("PyGSelfLoops accepted 1 weight for 4 edges")
	}
	b, _ := graph.FromCOO(2, 3, []int32{0}, []int32{2})
	if _, err := PyGGCNNorm(b, nil); err == nil {
		t.Error("PyGGCNNorm accepted a bipartite graph")
	}
	if _, _, err := PyGSelfLoops(b, nil, 1); err == nil {
		t.Error("PyGSelfLoops accepted a bipartite graph")
	}
}

func sqrtf(x float64) float64 { return math.Sqrt(x) }

// TestParamsOfRoundTrip writes a layer's parameters with ParamsOf and
// WriteSafetensors and loads them into a fresh layer through the file.
func TestParamsOfRoundTrip(t *testing.T) {
	eg := gorgonia.NewGraph()
	a, err := gcn.New(eg, 3, 2, gcn.WithName("g"), gcn.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParamsOf(a.Learnables())
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/g.safetensors"
	if err := WriteSafetensors(path, p, nil); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := gcn.New(gorgonia.NewGraph(), 3, 2, gcn.WithName("g"), gcn.WithSeed(2))
	if err != nil {
		t.Fatal(err)
	}
	// The file is in gnn's layout: DGL's GraphConv layout.
	q, err := DGL(ts, Layer{Kind: "GraphConv", Prefix: "g", Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Assign(b.Learnables()); err != nil {
		t.Fatal(err)
	}
	wa, wb := a.Weight().Value().Data().([]float32), b.Weight().Value().Data().([]float32)
	for i := range wa {
		if wa[i] != wb[i] {
			t.Fatalf("weight %d: %v after the round trip, %v before", i, wb[i], wa[i])
		}
	}
	if _, err := ParamsOf(gorgonia.Nodes{a.Weight(), a.Weight()}); err == nil {
		t.Error("ParamsOf accepted a name twice")
	}
}

func TestPyGAttentionLoopsErrors(t *testing.T) {
	g, _ := graph.FromCOO(2, 2, []int32{0, 1}, []int32{1, 1})
	if _, _, err := PyGAttentionLoops(g, []float64{1, 2, 3}, 2); err == nil || !strings.Contains(err.Error(), "3 edge feature values for 2 edges of 2") {
		t.Errorf("error %v", err)
	}
	out, ef, err := PyGAttentionLoops(g, []float64{1, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The loop 1 -> 1 is removed; loops on 0 (no in-edges: 0) and 1 (the
	// mean of 0 -> 1's feature: 1) are added.
	if out.NumEdges() != 3 || len(ef) != 3 || ef[0] != 1 || ef[1] != 0 || ef[2] != 1 {
		t.Errorf("%d edges, features %v", out.NumEdges(), ef)
	}
}
