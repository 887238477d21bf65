package serve

import (
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/model"
)

// savedModel builds a model of spec with seeded weights, saves it and
// loads it back for serving.
func savedModel(t *testing.T, spec model.Spec) (*model.Model, *Model) {
	t.Helper()
	m, err := model.New(spec, tensor.Float32, 3)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.gnnmodel")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := FromModel(loaded)
	if err != nil {
		t.Fatal(err)
	}
	return loaded, sm
}

// TestModelFile serves model files (a GCN with self-loops and the
// symmetric norm, whole-graph; a GAT and a SAGE by neighbourhoods) and
// checks every node, and new nodes, against the model's own Predict on the
// graph (with the new nodes added).
func TestModelFile(t *testing.T) {
	d := tinyData(t, 45, 6, 14)
	newNodes := []NewNode{{Features: []float64{1, 0, 2, 0, 1, 1}, InEdges: []int64{0, 3}, OutEdges: []int64{0, 45}}, {Features: []float64{0, 1, 0, 1, 0, 0}, InEdges: []int64{44}}}
	ext := extend(t, d, newNodes)
	nodes := make([]int64, 45)
	for i := range nodes {
		nodes[i] = int64(i)
	}
	for _, tc := range []struct {
		name, mode string
		spec       model.Spec
	}{
		{"gcn", "whole", model.Spec{InFeatures: 6, Classes: 3, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GraphConv, In: 6, Out: 8, Activation: "relu", Dropout: 0.5},
			{Type: model.GraphConv, In: 8, Out: 3, Dropout: 0.5}}}},
		{"gat", "full", model.Spec{InFeatures: 6, Classes: 3, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GATConv, In: 6, Out: 4, Heads: 2, Activation: "elu", Dropout: 0.6, AttnDropout: 0.6},
			{Type: model.GATConv, In: 8, Out: 3, Heads: 1, Dropout: 0.6}}}},
		{"sage", "full", model.Spec{InFeatures: 6, Classes: 3, Layers: []model.LayerSpec{
			{Type: model.SAGEConv, In: 6, Out: 8, Activation: "relu"},
			{Type: model.SAGEConv, In: 8, Out: 3, Dropout: 0.5}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, sm := savedModel(t, tc.spec)
			s, ts := start(t, Config{}, d, sm)
			if s.mode() != tc.mode {
				t.Errorf("mode %s, want %s", s.mode(), tc.mode)
			}
			want, err := m.Predict(d.Graph, d.Features)
			if err != nil {
				t.Fatal(err)
			}
			withNew, err := m.Predict(ext.Graph, ext.Features)
			if err != nil {
				t.Fatal(err)
			}
			var got EmbedResponse
			if code, body := post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: PredictRequest{Nodes: nodes}}, &got); code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			for _, e := range got.Embeddings {
				if err := sameRow(e.Embedding, row(want, int(e.Node))); err != nil {
					t.Errorf("node %d: %v", e.Node, err)
				}
			}
			if code, body := post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: PredictRequest{NewNodes: newNodes}}, &got); code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			for _, e := range got.Embeddings {
				if err := sameRow(e.Embedding, row(withNew, int(e.Node))); err != nil {
					t.Errorf("new node %d: %v", e.Node, err)
				}
			}
		})
	}
}

// TestModelFileSampled serves a SAGE model file with its training fan-outs
// and checks the answers against the loaded model built on the same
// mini-batch.
func TestModelFileSampled(t *testing.T) {
	d := tinyData(t, 60, 6, 15)
	_, sm := savedModel(t, model.Spec{InFeatures: 6, Classes: 3, Fanouts: []int{3, 2}, Layers: []model.LayerSpec{
		{Type: model.SAGEConv, In: 6, Out: 8, Activation: "relu"},
		{Type: model.SAGEConv, In: 8, Out: 3, Dropout: 0.5}}})
	s, ts := start(t, Config{}, d, sm)
	if s.mode() != "sampled" {
		t.Fatalf("mode %s, want sampled", s.mode())
	}
	seed := uint64(5)
	want := sampledForward(t, sm, d, []int32{7, 3, 50}, 2, seed)
	var got EmbedResponse
	if code, body := post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: PredictRequest{Nodes: []int64{7, 3, 50}, Seed: &seed}}, &got); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for k, e := range got.Embeddings {
		if err := sameRow(e.Embedding, row(want, k)); err != nil {
			t.Errorf("node %d: %v", e.Node, err)
		}
	}
	// Layers by name.
	var first EmbedResponse
	if code, body := post(t, ts.URL+"/v1/embed", `{"nodes":[7],"layer":"sage1"}`, &first); code != 200 || first.Layer != 0 || first.LayerName != "sage1" {
		t.Errorf("layer sage1: %d %s", code, body)
	}
	if code, body := post(t, ts.URL+"/v1/embed", `{"nodes":[7],"layer":"gcn1"}`, nil); code != 400 || !strings.Contains(body, `layer \"gcn1\": the model's layers are sage1, sage2`) {
		t.Errorf("layer gcn1: %d %s", code, body)
	}
}

// TestModelFileRefused checks the models the server cannot serve.
func TestModelFileRefused(t *testing.T) {
	for _, tc := range []struct {
		spec model.Spec
		msg  string
	}{
		{model.Spec{InFeatures: 4, Task: "graph", Readout: &model.ReadoutSpec{Type: "mean"}, Layers: []model.LayerSpec{{Type: model.GINConv, In: 4, Out: 4}}}, "graph-level model (readout mean)"},
		{model.Spec{InFeatures: 4, Layers: []model.LayerSpec{{Type: model.GATConv, In: 4, Out: 2, EdgeFeatures: 3}}}, "layer 0 (GATConv gat1): its attention reads 3 edge features"},
	} {
		m, err := model.New(tc.spec, tensor.Float32, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromModel(m); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v, want %q", err, tc.msg)
		}
	}
}
