package model_test

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn/rgcn"
)

// reload saves m and loads it back, checking that the spec survives.
func reload(t *testing.T, m *model.Model) *model.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gnnmodel")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Spec(), m.Spec()) {
		t.Errorf("spec after loading:\n%+v\nwant\n%+v", got.Spec(), m.Spec())
	}
	return got
}

// same fails unless a and b hold the same bits.
func same(t *testing.T, what string, a, b *tensor.Dense) {
	t.Helper()
	if !reflect.DeepEqual(bits(t, a), bits(t, b)) {
		t.Errorf("%s: outputs differ after loading", what)
	}
}

// TestRoundTripEdgeFeatures round-trips GATConv and GATv2Conv with edge
// features in the attention (PredictEdges), self-loops added.
func TestRoundTripEdgeFeatures(t *testing.T) {
	g := testGraph(t, 10)
	for _, typ := range []string{model.GATConv, model.GATv2Conv} {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			t.Run(typ+"/"+dt.String(), func(t *testing.T) {
				spec := model.Spec{InFeatures: 4, SelfLoops: true, Layers: []model.LayerSpec{
					{Type: typ, In: 4, Out: 3, Heads: 2, EdgeFeatures: 5, Activation: "elu"},
					{Type: model.GraphConv, In: 6, Out: 2},
				}}
				m, err := model.New(spec, dt, 3)
				if err != nil {
					t.Fatal(err)
				}
				randomize(t, m, 8)
				x := features(dt, g.NumSrc(), 4, 2)
				ef := features(dt, g.NumEdges()+g.NumDst(), 5, 3)
				if _, err := m.Predict(g, x); err == nil {
					t.Errorf("Predict without edge features gave no error")
				}
				want, err := m.PredictEdges(g, x, ef)
				if err != nil {
					t.Fatal(err)
				}
				got, err := reload(t, m).PredictEdges(g, x, ef)
				if err != nil {
					t.Fatal(err)
				}
				same(t, typ, got, want)
			})
		}
	}
}

// TestRoundTripGraphLevel round-trips graph-level models of every readout,
// with a head, on a batch of three graphs.
func TestRoundTripGraphLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var gs []*graph.Graph
	for _, n := range []int{4, 6, 5} {
		gs = append(gs, testgraphs.Random(t, r, n, n, 2*n))
	}
	b, err := graph.Batch(gs)
	if err != nil {
		t.Fatal(err)
	}
	gin := model.LayerSpec{Type: model.GINConv, In: 3, Out: 4, Activation: "relu", MLP: []model.LayerSpec{
		{Type: model.Linear, In: 3, Out: 4}, {Type: model.BatchNorm, In: 4, Activation: "relu"}, {Type: model.Linear, In: 4, Out: 4},
	}}
	head := []model.LayerSpec{{Type: model.Linear, In: 4, Out: 4, Activation: "relu", Dropout: 0.5}, {Type: model.Linear, In: 4, Out: 2}}
	readouts := map[string]*model.ReadoutSpec{
		"sum":  {Type: "sum"},
		"mean": {Type: "mean"},
		"max":  {Type: "max"},
		"attention": {Type: "attention", Gate: []model.LayerSpec{{Type: model.Linear, In: 4, Out: 1}},
			Feat: []model.LayerSpec{{Type: model.Linear, In: 4, Out: 4, Activation: "tanh"}}},
	}
	for name, ro := range readouts {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			t.Run(name+"/"+dt.String(), func(t *testing.T) {
				spec := model.Spec{InFeatures: 3, Classes: 2, Layers: []model.LayerSpec{gin}, Readout: ro, Head: head}
				m, err := model.New(spec, dt, 4)
				if err != nil {
					t.Fatal(err)
				}
				if m.Spec().Task != "graph" {
					t.Errorf("task %q, want graph", m.Spec().Task)
				}
				randomize(t, m, 9)
				x := features(dt, b.NumSrc(), 3, 4)
				want, err := m.PredictGraphs(b, x)
				if err != nil {
					t.Fatal(err)
				}
				if s := want.Shape(); s[0] != 3 || s[1] != 2 {
					t.Fatalf("output shape %v, want (3, 2)", s)
				}
				if _, err := m.Predict(b.Graph, x); err == nil {
					t.Errorf("Predict of a graph-level model gave no error")
				}
				got, err := reload(t, m).PredictGraphs(b, x)
				if err != nil {
					t.Fatal(err)
				}
				same(t, name, got, want)
			})
		}
	}
}

// TestRoundTripRelGraphConv round-trips R-GCN models with full, basis and
// block-diagonal weights (PredictRelations).
func TestRoundTripRelGraphConv(t *testing.T) {
	g := testGraph(t, 12)
	et := make([]int32, g.NumEdges())
	for e := range et {
		et[e] = int32(e % 3)
	}
	norm, err := rgcn.RightNorm(g, et, 3)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := rgcn.Group(g, et, 3, norm)
	if err != nil {
		t.Fatal(err)
	}
	for _, reg := range []struct{ name, reg string }{{"full", ""}, {"basis", "basis"}, {"bdd", "bdd"}} {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			t.Run(reg.name+"/"+dt.String(), func(t *testing.T) {
				bases := 0
				if reg.reg != "" {
					bases = 2
				}
				spec := model.Spec{InFeatures: 4, Layers: []model.LayerSpec{
					{Type: model.RelGraphConv, In: 4, Out: 6, NumRelations: 3, Regularizer: reg.reg, Bases: bases, Activation: "relu", OutDropout: 0.3},
					{Type: model.RelGraphConv, In: 6, Out: 2, NumRelations: 3, NoSelfLoop: true},
				}}
				m, err := model.New(spec, dt, 6)
				if err != nil {
					t.Fatal(err)
				}
				randomize(t, m, 10)
				x := features(dt, g.NumSrc(), 4, 5)
				want, err := m.PredictRelations(rel, x)
				if err != nil {
					t.Fatal(err)
				}
				got, err := reload(t, m).PredictRelations(rel, x)
				if err != nil {
					t.Fatal(err)
				}
				same(t, reg.name, got, want)
			})
		}
	}
}

// TestRoundTripHeteroGraphConv round-trips a two-layer HeteroGraphConv model
// over users and items (GraphConv, SAGEConv and GATConv relations).
func TestRoundTripHeteroGraphConv(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	h, err := hetero.New(map[string]int{"user": 7, "item": 5}, map[hetero.EdgeType]*graph.Graph{
		{Src: "user", Rel: "follows", Dst: "user"}: testgraphs.Random(t, r, 7, 7, 20),
		{Src: "user", Rel: "buys", Dst: "item"}:    testgraphs.Random(t, r, 7, 5, 15),
		{Src: "item", Rel: "bought", Dst: "user"}:  testgraphs.Random(t, r, 5, 7, 15),
	})
	if err != nil {
		t.Fatal(err)
	}
	layer := func(in map[string]int, out int, act string) model.LayerSpec {
		return model.LayerSpec{Type: model.HeteroGraphConv, Aggregator: "sum", Activation: act, Relations: []model.RelationSpec{
			{Src: "user", Rel: "follows", Dst: "user", Layer: model.LayerSpec{Type: model.GraphConv, In: in["user"], Out: out, AllowZeroInDegree: true}},
			{Src: "user", Rel: "buys", Dst: "item", Layer: model.LayerSpec{Type: model.SAGEConv, In: in["user"], Out: out}},
			{Src: "item", Rel: "bought", Dst: "user", Layer: model.LayerSpec{Type: model.GATConv, In: in["item"], Out: out, Heads: 2, MeanHeads: true, AllowZeroInDegree: true}},
		}}
	}
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			spec := model.Spec{NodeFeatures: map[string]int{"user": 3, "item": 4}, Layers: []model.LayerSpec{
				layer(map[string]int{"user": 3, "item": 4}, 5, "relu"),
				layer(map[string]int{"user": 5, "item": 5}, 2, ""),
			}}
			m, err := model.New(spec, dt, 2)
			if err != nil {
				t.Fatal(err)
			}
			randomize(t, m, 11)
			x := map[string]*tensor.Dense{"user": features(dt, 7, 3, 6), "item": features(dt, 5, 4, 7)}
			want, err := m.PredictHetero(h, x)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != 2 || want["user"].Shape()[0] != 7 || want["item"].Shape()[1] != 2 {
				t.Fatalf("outputs %v", want)
			}
			got, err := reload(t, m).PredictHetero(h, x)
			if err != nil {
				t.Fatal(err)
			}
			for _, typ := range []string{"user", "item"} {
				same(t, typ, got[typ], want[typ])
			}
		})
	}
}
