package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
)

// TestModelFile checks that -save writes a model file that runs without
// this program: model.Load and Predict on the whole graph give the test
// accuracy training printed; and that a parameter file of nn.SaveParams
// (what -save wrote before model files) still loads with -load.
func TestModelFile(t *testing.T) {
	dir := t.TempDir()
	f := defaults()
	f.Epochs, f.Save = 30, filepath.Join(dir, "gcn.gnnmodel")
	var out bytes.Buffer
	if err := run(&out, &f); err != nil {
		t.Fatal(err)
	}
	trained := testAccuracy(t, out.String())
	if ok, err := model.IsModelFile(f.Save); !ok || err != nil {
		t.Fatalf("-save wrote no model file (%v)", err)
	}
	ds, err := setup.Load(f.Data, f.Seed)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := setup.ModelAccuracy(f.Save, ds, ds.Test)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%.4f", acc) != fmt.Sprintf("%.4f", trained) {
		t.Errorf("the model file predicts test accuracy %.4f, training printed %.4f", acc, trained)
	}
	m, err := model.Load(f.Save)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Spec().Layers[0].Name; got != "gcn1" {
		t.Errorf("first layer %q, want gcn1", got)
	}

	// The same parameters as a parameter file.
	eg := gorgonia.NewGraph()
	var params gorgonia.Nodes
	for _, name := range m.ParamNames() {
		params = append(params, gorgonia.NodeFromAny(eg, m.Params()[name], gorgonia.WithName(name)))
	}
	old := filepath.Join(dir, "gcn.params")
	if err := nn.SaveParams(old, params); err != nil {
		t.Fatal(err)
	}
	ev := defaults()
	ev.Epochs, ev.Load = 0, old
	out.Reset()
	if err := run(&out, &ev); err != nil {
		t.Fatal(err)
	}
	if got := testAccuracy(t, out.String()); got != trained {
		t.Errorf("the parameter file's test accuracy is %.4f, training printed %.4f", got, trained)
	}
	if !strings.Contains(out.String(), "(a parameter file)") {
		t.Errorf("-load did not say it read a parameter file:\n%s", out.String())
	}

	// Another architecture refuses the model file, naming the layer.
	ev = defaults()
	ev.Epochs, ev.Load, ev.Hidden = 0, f.Save, 8
	if err := run(&out, &ev); err == nil || !strings.Contains(err.Error(), "-load: ") || !strings.Contains(err.Error(), "layer 0 differs") {
		t.Errorf("loading into a model of another width: %v", err)
	}
}
