package setup

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// TestSplit checks -split: an OGB folder holding two split schemes loads
// the one named, refuses to guess without it, and names the schemes it
// has; -split on other data is refused.
func TestSplit(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 200, 4
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ogbn_planted")
	if err := dataset.WriteOGB(dir, ds, dataset.OGBWriteOptions{Split: "random"}); err != nil {
		t.Fatal(err)
	}
	swapped := *ds
	swapped.Train, swapped.Test = ds.Test, ds.Train
	if err := dataset.WriteOGB(dir, &swapped, dataset.OGBWriteOptions{Split: "time"}); err != nil {
		t.Fatal(err)
	}

	var f Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f.RegisterSplit(fs)
	if err := f.Parse(fs, []string{"-split", "time"}); err != nil {
		t.Fatal(err)
	}
	f.Data = dir
	got, err := f.LoadData()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Train, ds.Test) || !slices.Equal(got.Test, ds.Train) {
		t.Errorf("-split time did not read split/time")
	}
	f.Split = "random"
	if got, err = f.LoadData(); err != nil || !slices.Equal(got.Train, ds.Train) {
		t.Errorf("-split random: %v", err)
	}

	for _, c := range []struct {
		data, split, want string
	}{
		{dir, "", "holds several split schemes (random, time): choose one with -split"},
		{dir, "species", "-split species: " + filepath.Join(dir, "split") + " has no such scheme folder (it has random, time)"},
		{"", "time", "-split time: only an OGB dataset (a folder with raw/edge.csv.gz) has split schemes, not a generated graph"},
		{t.TempDir(), "time", "-split time: only an OGB dataset"},
	} {
		f := Flags{Data: c.data, Split: c.split, Seed: 1}
		if _, err := f.LoadData(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-data %q -split %q: %v, want %q", c.data, c.split, err, c.want)
		}
	}
}
