package setup

import (
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
)

// tiny returns a one-layer GraphConv model 3 -> out with the given dropout,
// and its parameter nodes as Layer builds them.
func tiny(t *testing.T, out int, dropout float64, seed uint64) (*model.Model, gorgonia.Nodes) {
	t.Helper()
	spec := model.Spec{InFeatures: 3, Layers: []model.LayerSpec{{Type: model.GraphConv, In: 3, Out: out, Dropout: dropout}}}
	m, err := model.New(spec, tensor.Float32, seed)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.FromCOO(2, 2, []int32{0, 1}, []int32{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	_, params, err := m.Layer(eg, 0, g, x)
	if err != nil {
		t.Fatal(err)
	}
	return m, params
}

// TestLoadModel checks what LoadModel reads: a model file of the same
// architecture (training settings aside), a parameter file, and not a model
// file of another architecture.
func TestLoadModel(t *testing.T) {
	dir := t.TempDir()
	src, srcParams := tiny(t, 2, 0.5, 1)
	path := filepath.Join(dir, "m.gnnmodel")
	if err := SaveModel(path, src, srcParams); err != nil {
		t.Fatal(err)
	}
	want := src.Params()["gcn1.weight"].Data().([]float32)

	// Another seed and dropout: the same architecture.
	dst, params := tiny(t, 2, 0, 9)
	what, err := LoadModel(path, dst, params, nil)
	if err != nil || what != "a model file" {
		t.Fatalf("LoadModel: %q, %v", what, err)
	}
	for _, p := range params {
		if p.Name() == "gcn1.weight" {
			if got := p.Value().Data().([]float32); got[0] != want[0] || got[5] != want[5] {
				t.Errorf("the node holds %v, the file %v", got, want)
			}
		}
	}

	other, otherParams := tiny(t, 4, 0.5, 1)
	if _, err := LoadModel(path, other, otherParams, nil); err == nil || !strings.Contains(err.Error(), "layer 0 differs") {
		t.Errorf("another width: %v", err)
	}
	if _, err := LoadModel(path, nil, params, nil); err == nil || !strings.Contains(err.Error(), "is a model file") {
		t.Errorf("no model: %v", err)
	}

	old := filepath.Join(dir, "m.params")
	if err := nn.SaveParams(old, srcParams); err != nil {
		t.Fatal(err)
	}
	fresh, freshParams := tiny(t, 2, 0.5, 5)
	if what, err := LoadModel(old, fresh, freshParams, nil); err != nil || what != "a parameter file" {
		t.Fatalf("parameter file: %q, %v", what, err)
	}
	if got := fresh.Params()["gcn1.weight"].Data().([]float32); got[0] != want[0] {
		t.Errorf("the model holds %v after a parameter file, want %v", got, want)
	}
}
