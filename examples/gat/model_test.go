package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
)

// TestModelFile checks that -save writes a model file that runs without
// this program: model.Load and Predict on the whole graph give the test
// accuracy training printed.
func TestModelFile(t *testing.T) {
	f, h := defaults()
	f.Epochs, f.Dropout, h.hidden, f.Save = 20, 0, 2, filepath.Join(t.TempDir(), "gat.gnnmodel")
	var out bytes.Buffer
	if err := run(&out, &f, h); err != nil {
		t.Fatal(err)
	}
	trained := testAccuracy(t, out.String())
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
}
