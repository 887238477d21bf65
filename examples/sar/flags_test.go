package main

import (
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

var rankPrefix = regexp.MustCompile(`rank \d+: `)

// TestFlagsCheckedFirst: bad flags are refused before any rank starts
// (here, before the missing partition directory is even looked at), with
// one "sar: " prefix and no rank's.
func TestFlagsCheckedFirst(t *testing.T) {
	for _, c := range []struct {
		set  func(o *options)
		want string
	}{
		{func(o *options) { o.save = "/nonexistent/x" }, "-save: cannot write /nonexistent/x"},
		{func(o *options) { o.memprofile = "/nonexistent/heap" }, "-memprofile: cannot write"},
		{func(o *options) { o.epochs = 0 }, "-epochs 0: want at least 1"},
		{func(o *options) { o.lr = nan() }, "-lr NaN"},
		{func(o *options) { o.model, o.heads = "gat", 0 }, "-heads 0"},
		{func(o *options) { o.dropout = 1 }, "-dropout 1: want a probability in [0, 1)"},
		{func(o *options) { o.attnDropout = -0.1 }, "-attn-dropout -0.1"},
		{func(o *options) { o.hidden = -3 }, "-hidden -3"},
		{func(o *options) { o.weightDecay = -1 }, "-weight-decay -1"},
		{func(o *options) { o.patience = -1 }, "-patience -1"},
		{func(o *options) { o.inproc = -1 }, "-inproc -1: want a number of in-process ranks"},
		{func(o *options) { o.features = -1 }, "-features -1"},
	} {
		o := options{parts: filepath.Join(t.TempDir(), "none"), model: "gcn", mode: "sequential", inproc: 2, epochs: 1, heads: 8,
			dropout: 0.5, attnDropout: 0.5, weightDecay: 5e-4, seed: 1, features: 64, classes: 8}
		c.set(&o)
		err := run(&bytes.Buffer{}, &o)
		if err == nil || !strings.Contains(err.Error(), c.want) || rankPrefix.MatchString(err.Error()) {
			t.Errorf("got %v, want an error containing %q before any rank starts", err, c.want)
		}
	}
}

// TestRankErrorPrefixedOnce: an error inside a rank carries its rank once
// ("rank 0: -hidden and -heads ...", not "rank 0: rank 0: ...").
func TestRankErrorPrefixedOnce(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 60, 8
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeParts(t, ds, 2)
	o := options{parts: dir, model: "gat", mode: "sequential", inproc: 2, epochs: 1, heads: 1000000, hidden: 8, lr: 0.01, seed: 1}
	err = run(&bytes.Buffer{}, &o)
	if err == nil || !strings.Contains(err.Error(), "-hidden and -heads") || len(rankPrefix.FindAllString(err.Error(), -1)) != 1 {
		t.Fatalf("got %v, want one rank prefix and the -hidden and -heads error", err)
	}
}

func nan() float64 { return math.NaN() }

// TestNormalize: -normalize auto row-normalises a Planetoid dataset's
// features (as examples/gcn and gat do) and leaves others raw; row and
// none force either; other values are refused.
func TestNormalize(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 200, 8
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	planted := writeParts(t, ds, 2)
	ds.Name = "cora"
	cora := writeParts(t, ds, 2)
	for _, c := range []struct{ dir, normalize, want string }{
		{planted, "auto", "raw features"},
		{cora, "auto", "row-normalised features"},
		{cora, "none", "raw features"},
		{planted, "row", "row-normalised features"},
	} {
		o := options{parts: c.dir, model: "gcn", mode: "sequential", inproc: 2, epochs: 1, seed: 1, normalize: c.normalize}
		var out bytes.Buffer
		if err := run(&out, &o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s -normalize %s: output lacks %q:\n%s", ds.Name, c.normalize, c.want, out.String())
		}
	}
	o := options{parts: cora, model: "gcn", mode: "sequential", inproc: 2, epochs: 1, seed: 1, normalize: "l2"}
	if err := run(&bytes.Buffer{}, &o); err == nil || !strings.Contains(err.Error(), `-normalize "l2"`) {
		t.Errorf("-normalize l2: got %v", err)
	}
	f := &dataset.Features{Rows: 2, Cols: 2, Dense: []float32{1, 3, 0, 0}}
	g := rowNormalized(f)
	if !slices.Equal(g.Dense, []float32{0.25, 0.75, 0, 0}) || f.Dense[0] != 1 {
		t.Errorf("rowNormalized: %v (original now %v)", g.Dense, f.Dense)
	}
}
