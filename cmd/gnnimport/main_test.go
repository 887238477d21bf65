package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/serve"
)

// coraSpec is the architecture of interop's Cora fixture: PyG's 2-layer
// GCN (GCNConv(1433, 16), ReLU, GCNConv(16, 7)), which adds self-loops and,
// on Cora's symmetric graph, normalises as gnn's "both" norm.
const coraSpec = `{"task": "node", "in_features": 1433, "classes": 7, "self_loops": true,
 "layers": [{"type": "GraphConv", "name": "gcn1", "in": 1433, "out": 16, "activation": "relu"},
            {"type": "GraphConv", "name": "gcn2", "in": 16, "out": 7}]}`

const coraWeights = "../../interop/testdata/cora_gcn.f32.safetensors"

// importCora writes the spec and runs gnnimport on the fixture with args
// applied, returning the model file's path.
func importCora(t *testing.T, edit func(*options)) (string, error) {
	t.Helper()
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(coraSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options{From: "pyg", Weights: coraWeights, Spec: spec, Modules: "gcn1=conv1,gcn2=conv2",
		Out: filepath.Join(dir, "cora.gnnmodel"), Dtype: "float32"}
	if edit != nil {
		edit(&o)
	}
	var out bytes.Buffer
	err := run(&o, &out)
	return o.Out, err
}

// TestPyGCoraServed imports a GCN trained in PyTorch on Cora with PyG's
// GCNConv semantics and names (interop/testdata/make_fixtures.py --cora),
// serves the model file as gnnserve does (package serve, whole-graph
// mode), and checks that every one of Cora's 2708 nodes gets the class
// PyTorch predicted.
func TestPyGCoraServed(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "data", "planetoid", "cora")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("Cora not found at %s: %v", dir, err)
	}
	path, err := importCora(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := serve.LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := serve.NewData(ds)
	if err != nil {
		t.Fatal(err)
	}
	m, err := serve.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(d, m); err != nil {
		t.Fatal(err)
	}
	want := predictions(t)
	n := ds.Graph.NumNodes()
	if len(want) != n {
		t.Fatalf("%d fixture predictions for %d nodes", len(want), n)
	}
	wrong := 0
	for lo := 0; lo < n; lo += 1000 {
		req := &serve.PredictRequest{}
		for v := lo; v < min(lo+1000, n); v++ {
			req.Nodes = append(req.Nodes, int64(v))
		}
		resp, err := s.Predict(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range resp.Predictions {
			if p.Class != int(want[p.Node]) {
				if wrong++; wrong <= 5 {
					t.Errorf("node %d: class %d, PyTorch %d", p.Node, p.Class, want[p.Node])
				}
			}
		}
	}
	if wrong > 0 {
		t.Fatalf("%d of %d nodes differ from PyTorch", wrong, n)
	}
	// The model file also runs with no server at all.
	mm, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := mm.Spec().Layers[0].Name; got != "gcn1" {
		t.Errorf("first layer %q", got)
	}
}

// predictions reads the class PyTorch predicted for every Cora node.
func predictions(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open("../../interop/testdata/cora_gcn.pred.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestErrors checks that every bad input is refused, naming it, and that
// no tensor of the file is silently dropped.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*options)
		want string
	}{
		{func(o *options) { o.Weights = "" }, "-weights"},
		{func(o *options) { o.Spec = "" }, "-spec"},
		{func(o *options) { o.Out = "" }, "-out"},
		{func(o *options) { o.From = "jax" }, `-from "jax"`},
		{func(o *options) { o.Dtype = "int8" }, `-dtype "int8"`},
		{func(o *options) { o.Modules = "gcn1" }, "-modules"},
		{func(o *options) { o.Modules = "gcn1=conv1,gcn3=conv2" }, `layer "gcn3"`},
		{func(o *options) { o.Modules = "gcn1=conv1,gcn2=conv9" }, `module "conv9"`},
		{func(o *options) { o.Modules = "gcn1=conv1,gcn2=conv1" }, "conv2.bias"},
		{func(o *options) { o.Weights = "/nonexistent.safetensors" }, "-weights"},
		{func(o *options) { o.From = "dgl" }, "gcn1"},
	} {
		_, err := importCora(t, c.edit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one naming %s", err, c.want)
		}
	}
	// A spec using only the first layer leaves conv2's tensors unused.
	dir := t.TempDir()
	spec := filepath.Join(dir, "one.json")
	one := `{"in_features": 1433, "layers": [{"type": "GraphConv", "name": "gcn1", "in": 1433, "out": 16}]}`
	if err := os.WriteFile(spec, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options{From: "pyg", Weights: coraWeights, Spec: spec, Modules: "gcn1=conv1", Out: filepath.Join(dir, "one.gnnmodel"), Dtype: "float32"}
	err := run(&o, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "conv2.") {
		t.Fatalf("unused tensors: error %v, want one listing conv2's", err)
	}
	o.AllowUnused = true
	var out bytes.Buffer
	if err := run(&o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not used: conv2.") {
		t.Errorf("output %q does not list the unused tensors", out.String())
	}
	// An unknown field in the spec is an error, not ignored.
	if err := os.WriteFile(spec, []byte(`{"in_features": 1433, "layerz": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(&o, io.Discard); err == nil || !strings.Contains(err.Error(), "layerz") {
		t.Errorf("unknown spec field: error %v", err)
	}
}
