package model_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// oldSpec is the model testdata/gcn2-v1.params was written from (before
// model files existed): GraphConv 3 -> 4 (relu, seed 1), GraphConv 4 -> 2
// (seed 2), the second bias set to (0.25, -0.5).
func oldSpec() model.Spec {
	one, two := uint64(1), uint64(2)
	return model.Spec{InFeatures: 3, Layers: []model.LayerSpec{
		{Type: model.GraphConv, In: 3, Out: 4, Activation: "relu", Seed: &one},
		{Type: model.GraphConv, In: 4, Out: 2, Seed: &two},
	}}
}

// layerParams returns every layer's parameter nodes, built on eg.
func layerParams(t *testing.T, m *model.Model, eg *gorgonia.ExprGraph) gorgonia.Nodes {
	t.Helper()
	g := testGraph(t, 4)
	x := gorgonia.NodeFromAny(eg, features(m.Dtype(), 4, m.Spec().InFeatures, 1), gorgonia.WithName("x"))
	var all gorgonia.Nodes
	for l := range m.NumLayers() {
		var ps gorgonia.Nodes
		var err error
		if x, ps, err = m.Layer(eg, l, g, x); err != nil {
			t.Fatal(err)
		}
		all = append(all, ps...)
	}
	return all
}

// TestOldParamFile loads a parameter file committed before model files
// existed (nn.SaveParams's format) into the model's layers with
// nn.LoadParams, and checks that nn.SaveParams still writes it byte for
// byte.
func TestOldParamFile(t *testing.T) {
	path := filepath.Join("testdata", "gcn2-v1.params")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := model.IsModelFile(path); ok || err != nil {
		t.Errorf("IsModelFile(parameter file) = %v, %v", ok, err)
	}
	m, err := model.New(oldSpec(), tensor.Float32, 0)
	if err != nil {
		t.Fatal(err)
	}
	params := layerParams(t, m, gorgonia.NewGraph())
	// The initialisation is the file's but for the bias it changed.
	if err := nn.LoadParams(path, params); err != nil {
		t.Fatal(err)
	}
	if b := m.Params()["gcn2.bias"].Data().([]float32); b[0] != 0.25 || b[1] != -0.5 {
		t.Errorf("gcn2.bias %v after loading, want [0.25 -0.5]", b)
	}
	out := filepath.Join(t.TempDir(), "again.params")
	if err := nn.SaveParams(out, params); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("nn.SaveParams no longer writes the committed file byte for byte")
	}
	mf := filepath.Join(t.TempDir(), "m.gnnmodel")
	if err := m.Save(mf); err != nil {
		t.Fatal(err)
	}
	if ok, err := model.IsModelFile(mf); !ok || err != nil {
		t.Errorf("IsModelFile(model file) = %v, %v", ok, err)
	}
}

// TestPredictEvaluates checks that Predict runs without dropout: a model
// with dropout everywhere predicts what the same model without it does,
// while Layer in training mode drops.
func TestPredictEvaluates(t *testing.T) {
	g := testGraph(t, 10)
	for name, spec := range nodeSpecs() {
		t.Run(name, func(t *testing.T) {
			m, err := model.New(spec, tensor.Float64, 3)
			if err != nil {
				t.Fatal(err)
			}
			randomize(t, m, 4)
			plain := m.Spec()
			for l := range plain.Layers {
				ls := &plain.Layers[l]
				ls.Dropout, ls.AttnDropout, ls.EdgeDropout, ls.DropoutSeed = 0, 0, 0, nil
			}
			p, err := model.New(plain, tensor.Float64, 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SetParams(m.Params()); err != nil {
				t.Fatal(err)
			}
			x := features(tensor.Float64, 10, spec.InFeatures, 5)
			a, err := m.Predict(g, x)
			if err != nil {
				t.Fatal(err)
			}
			b, err := p.Predict(g, x)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(bits(t, a), bits(t, b)) {
				t.Errorf("Predict with dropout in the spec differs from the model without")
			}
		})
	}
}

// TestStack trains nothing but runs a SAGE model as a train.Stack:
// train.Inference over the model's Shared (layer by layer, in chunks of
// blocks) gives what Predict gives on the whole graph, and Layer's
// parameters are the model's tensors.
func TestStack(t *testing.T) {
	g := testGraph(t, 30)
	spec := nodeSpecs()["SAGEConv"]
	m, err := model.New(spec, tensor.Float64, 1)
	if err != nil {
		t.Fatal(err)
	}
	randomize(t, m, 2)
	x := features(tensor.Float64, 30, spec.InFeatures, 3)
	want, err := m.Predict(g, x)
	if err != nil {
		t.Fatal(err)
	}
	var s train.Stack = m
	got, err := train.Inference(s, m.Shared(), g, x, 7, m.Mode())
	if err != nil {
		t.Fatal(err)
	}
	if !m.Mode().Training() {
		t.Errorf("Inference left the model's mode in evaluation")
	}
	a, b := want.Data().([]float64), got.Data().([]float64)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			t.Fatalf("element %d: Inference %v, Predict %v", i, b[i], a[i])
		}
	}
	eg := gorgonia.NewGraph()
	for _, p := range layerParams(t, m, eg) {
		if p.Value() != gorgonia.Value(m.Params()[p.Name()]) {
			t.Errorf("Layer's %q does not hold the model's tensor", p.Name())
		}
	}
	if names := m.ParamNames(); len(names) != len(m.Params()) || names[0] != "sage1.fc_self.weight" {
		t.Errorf("ParamNames %v", names)
	}
}
