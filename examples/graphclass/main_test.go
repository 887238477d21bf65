package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/examples/internal/setup"
)

// quick returns options for a short run on n generated graphs.
func quick(n, epochs int) options {
	return options{
		Flags:   setup.Flags{Epochs: epochs, LR: 0.01, Hidden: 16, Dropout: 0.5, Seed: 1},
		Layers:  5,
		Readout: "sum",
		Graphs:  n,
	}
}

var (
	epochLine = regexp.MustCompile(`(?m)^epoch +\d+ +loss `)
	testLine  = regexp.MustCompile(`(?m)^test accuracy: ([01]\.\d{4})$`)
)

// TestRun trains for a few epochs with every readout and checks the output
// format, and the saved parameters and the plot once.
func TestRun(t *testing.T) {
	for _, r := range []string{"sum", "mean", "max", "attention"} {
		dir := t.TempDir()
		o := quick(48, 3)
		o.Readout = r
		if r == "sum" {
			o.Save, o.Plot = filepath.Join(dir, "model.params"), filepath.Join(dir, "curves.png")
		}
		var out bytes.Buffer
		if err := run(&out, &o); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		if !strings.HasPrefix(out.String(), "dataset minigc: 48 graphs, ") {
			t.Errorf("%s: output does not start with the dataset line:\n%s", r, out.String())
		}
		if got := epochLine.FindAllString(out.String(), -1); len(got) != 3 {
			t.Errorf("%s: %d epoch lines, want 3:\n%s", r, len(got), out.String())
		}
		if !testLine.MatchString(out.String()) {
			t.Errorf("%s: output lacks the test accuracy line:\n%s", r, out.String())
		}
		for _, p := range []string{o.Save, o.Plot} {
			if st, err := os.Stat(p); p != "" && (err != nil || st.Size() == 0) {
				t.Errorf("%s was not written (%v)", p, err)
			}
		}
	}
}

// TestAccuracy checks that GIN with sum readout reaches the 0.95 floor of
// test accuracy on generated graphs within 80 epochs (about 4 s).
func TestAccuracy(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("training to the accuracy floor takes too long under the race detector or -short")
	}
	o := quick(400, 80)
	o.Hidden, o.LR = 32, 0.02
	var out bytes.Buffer
	if err := run(&out, &o); err != nil {
		t.Fatal(err)
	}
	m := testLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no test accuracy line:\n%s", out.String())
	}
	if acc, _ := strconv.ParseFloat(m[1], 64); acc < 0.95 {
		t.Errorf("test accuracy %v, want at least 0.95:\n%s", acc, out.String())
	}
}

// TestTU trains for a few epochs on a TU dataset the test writes: MiniGC
// graphs with the node degree (capped at 4) as node label and as attribute.
func TestTU(t *testing.T) {
	ds, err := dataset.MiniGC(dataset.MiniGCConfig{Graphs: 40, MinNodes: 10, MaxNodes: 14, Val: 1, Test: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ds.NumNodeLabels = 5
	ds.NodeLabelNames = []string{"0", "1", "2", "3", "4"}
	ds.Features = &dataset.Features{Cols: 1}
	for _, g := range ds.Graphs {
		for _, d := range g.InDegrees() {
			ds.NodeLabels = append(ds.NodeLabels, int32(min(d, 4)))
			ds.Features.Dense = append(ds.Features.Dense, float32(d))
			ds.Features.Rows++
		}
	}
	dir := t.TempDir()
	if err := dataset.WriteTU(dir, "TOY", ds); err != nil {
		t.Fatal(err)
	}
	o := quick(0, 3)
	o.Data, o.Name = dir, "TOY"
	var out bytes.Buffer
	if err := run(&out, &o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "dataset TOY: 40 graphs, ") || !strings.Contains(out.String(), "8 classes, train/val/test 32/4/4\n") {
		t.Errorf("unexpected dataset line:\n%s", out.String())
	}
	if !testLine.MatchString(out.String()) {
		t.Errorf("output lacks the test accuracy line:\n%s", out.String())
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		set  func(*options)
		want string
	}{
		{"name without data", func(o *options) { o.Name = "MUTAG" }, "-name MUTAG needs -data"},
		{"data without name", func(o *options) { o.Data = dir }, "-data needs -name"},
		{"missing files", func(o *options) { o.Data, o.Name = dir, "MUTAG" }, "MUTAG_graph_indicator.txt: no such file"},
		{"readout", func(o *options) { o.Readout = "median" }, `-readout "median": want sum, mean, max or attention`},
		{"layers", func(o *options) { o.Layers = 1 }, "-layers 1: want at least 2"},
		{"hidden", func(o *options) { o.Hidden = 0 }, "-hidden 0: want a positive number"},
		{"graphs", func(o *options) { o.Graphs = 0 }, "-graphs 0: want at least 1 graph"},
	} {
		o := quick(16, 1)
		c.set(&o)
		var out bytes.Buffer
		if err := run(&out, &o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestDeterministic checks that training prints the same losses and
// accuracies with one goroutine and with several.
func TestDeterministic(t *testing.T) {
	times := regexp.MustCompile(`(?m) +[0-9.]+ ms$`)
	train := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o := quick(64, 4)
		var out bytes.Buffer
		if err := run(&out, &o); err != nil {
			t.Fatal(err)
		}
		return times.ReplaceAllString(out.String(), "")
	}
	if one, many := train(1), train(4); one != many {
		t.Errorf("one goroutine:\n%s\nfour:\n%s", one, many)
	}
}
