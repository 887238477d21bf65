package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/model"
)

// TestModelFile checks that -save writes a model file, with the fan-outs,
// that runs without this program: model.Load and Predict on the whole graph
// give the test accuracy layer-wise inference printed.
func TestModelFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sage.gnnmodel")
	out, err := runArgs(t, "-save", path, "-epochs", "3")
	if err != nil {
		t.Fatal(err)
	}
	m := testAcc.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no test accuracy in:\n%s", out)
	}
	trained, _ := strconv.ParseFloat(m[1], 64)
	o := options{Nodes: 1500, Fanouts: "10,5"}
	o.Seed = 1
	o.register(flag.NewFlagSet("sage", flag.ContinueOnError))
	ds, err := o.load()
	if err != nil {
		t.Fatal(err)
	}
	acc, err := setup.ModelAccuracy(path, ds, ds.Test)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%.4f", acc) != fmt.Sprintf("%.4f", trained) {
		t.Errorf("the model file predicts test accuracy %.4f, inference printed %.4f", acc, trained)
	}
	loaded, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f := loaded.Spec().Fanouts; len(f) != 2 || f[0] != 10 || f[1] != 5 {
		t.Errorf("fan-outs %v in the model file, want [10 5]", f)
	}
}
