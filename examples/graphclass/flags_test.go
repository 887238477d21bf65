package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// TestFlagsCheckedFirst: flags graphclass cannot honour or use are
// refused, naming the flag, before any graph is generated or loaded (so
// before the dataset line is printed).
func TestFlagsCheckedFirst(t *testing.T) {
	for _, c := range []struct {
		set  func(o *options)
		want string
	}{
		{func(o *options) { o.Readout = "bogus" }, `-readout "bogus": want sum, mean, max or attention`},
		{func(o *options) { o.Device = "emu" }, "-device does not apply: graphclass trains on the CPU"},
		{func(o *options) { o.Dense = true }, "-dense does not apply"},
		{func(o *options) { o.Graphs = 0 }, "-graphs 0: want at least 1"},
		{func(o *options) { o.Layers = 3000000000 }, "-layers 3000000000: more than the 2147483647"},
		{func(o *options) { o.Graphs = 200000000 }, "-graphs 200000000: up to 4000000000 nodes in all"},
		{func(o *options) { o.Graphs, o.Layers = 100000000, 1000 }, "-graphs, -layers and -hidden (1000 layers of 16 features on 2000000000 nodes, 16 inputs) needs about"},
		{func(o *options) { o.Hidden = 100000000 }, "-graphs, -layers and -hidden (5 layers of 100000000 features"},
	} {
		o := quick(48, 1)
		c.set(&o)
		var out bytes.Buffer
		err := run(&out, &o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%q: printed %q before refusing", c.want, out.String())
		}
	}
}

// TestTUHint: -data at a PyG-style folder, whose TU files are in raw/,
// says so.
func TestTUHint(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "MUTAG", "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "MUTAG_A.txt"), []byte("1, 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "MUTAG")} {
		o := quick(48, 1)
		o.Data, o.Name = d, "MUTAG"
		err := run(&bytes.Buffer{}, &o)
		if err == nil || !strings.Contains(err.Error(), "give -data "+raw) {
			t.Errorf("-data %s: got %v, want a hint at %s", d, err, raw)
		}
	}
}

// TestInputChoice: -input feeds the node labels, the standardised
// attributes or both, and a line says which and how wide.
func TestInputChoice(t *testing.T) {
	cfg := dataset.DefaultMiniGCConfig()
	cfg.Graphs, cfg.Val, cfg.Test = 40, 4, 4
	ds, err := dataset.MiniGC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := ds.NumNodes()
	ds.NodeLabels, ds.NumNodeLabels, ds.NodeLabelNames = make([]int32, n), 3, []string{"a", "b", "c"}
	ds.Features = &dataset.Features{Rows: n, Cols: 2, Dense: make([]float32, 2*n)}
	for i := range n {
		ds.NodeLabels[i] = int32(i % 3)
		ds.Features.Dense[2*i], ds.Features.Dense[2*i+1] = float32(1000+i), 7
	}
	dir := t.TempDir()
	if err := dataset.WriteTU(dir, "X", ds); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ input, want string }{
		{"", "input: 3 features a node: 3 one-hot node labels\n"},
		{"labels", "input: 3 features a node: 3 one-hot node labels\n"},
		{"attributes", "input: 2 features a node: 2 standardised node attributes\n"},
		{"both", "input: 5 features a node: 3 one-hot node labels + 2 standardised node attributes\n"},
	} {
		o := quick(0, 1)
		o.Data, o.Name, o.Input = dir, "X", c.input
		var out bytes.Buffer
		if err := run(&out, &o); err != nil {
			t.Fatalf("-input %q: %v", c.input, err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("-input %q: output lacks %q:\n%s", c.input, c.want, out.String())
		}
	}
	o := quick(16, 1)
	o.Input = "labels"
	if err := run(&bytes.Buffer{}, &o); err == nil || !strings.Contains(err.Error(), "-input labels: dataset minigc has neither") {
		t.Errorf("MiniGC -input labels: got %v", err)
	}
	o.Input = "bogus"
	if err := run(&bytes.Buffer{}, &o); err == nil || !strings.Contains(err.Error(), `-input "bogus"`) {
		t.Errorf("-input bogus: got %v", err)
	}
}

func TestStandardise(t *testing.T) {
	got := standardise([]float32{1, 5, 3, 5}, 2, 2)
	if want := []float32{-1, 0, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestLoadChecksReadout: -save records the readout in the model file, and
// -load of it under another readout (which has the same parameters) is
// refused before any graph is generated.
func TestLoadChecksReadout(t *testing.T) {
	params := filepath.Join(t.TempDir(), "gin.params")
	o := quick(16, 1)
	o.Save = params
	if err := run(&bytes.Buffer{}, &o); err != nil {
		t.Fatal(err)
	}
	o = quick(16, 0)
	o.Load, o.Readout = params, "mean"
	var out bytes.Buffer
	err := run(&out, &o)
	if err == nil || !strings.Contains(err.Error(), "trained with -readout sum") || out.Len() > 0 {
		t.Fatalf("got %v after printing %q", err, out.String())
	}
	o.Readout = "sum"
	if err := run(&bytes.Buffer{}, &o); err != nil {
		t.Fatal(err)
	}
}
