package setup

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gnngo/gnn/dataset"
)

// RegisterSplit adds -split, the split scheme of an OGB dataset, to fs:
// for the examples that load -data with LoadData.
func (f *Flags) RegisterSplit(fs *flag.FlagSet) {
	fs.StringVar(&f.Split, "split", f.Split, "OGB split `scheme`: the folder under DIR/split/ that names the train, validation and test nodes (default: the dataset's own, such as time for ogbn-arxiv, or the only folder there)")
}

// LoadData returns -data's dataset as Load does, with -split choosing the
// split scheme of an OGB dataset. -split with anything but an OGB folder is
// an error, as is a scheme the folder does not hold (the error lists those
// it holds) or, without -split, a folder of several schemes none of which
// is the dataset's own. All of this is checked before any data is read.
func (f *Flags) LoadData() (*dataset.Dataset, error) {
	if f.Data == "" || !dataset.IsOGB(f.Data) {
		if f.Split != "" {
			what := "a generated graph"
			if f.Data != "" {
				what = "-data " + f.Data
			}
			return nil, fmt.Errorf("-split %s: only an OGB dataset (a folder with raw/edge.csv.gz) has split schemes, not %s", f.Split, what)
		}
		return Load(f.Data, f.Seed)
	}
	opts, _ := dataset.OGBOptionsFor(f.Data)
	dir := filepath.Join(f.Data, "split")
	schemes, err := splitSchemes(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case f.Split != "":
		if !slices.Contains(schemes, f.Split) {
			return nil, fmt.Errorf("-split %s: %s has no such scheme folder (it has %s)", f.Split, dir, strings.Join(schemes, ", "))
		}
		opts.Split = f.Split
	case opts.Split == "" && len(schemes) > 1:
		return nil, fmt.Errorf("-data %s: %s holds several split schemes (%s): choose one with -split", f.Data, dir, strings.Join(schemes, ", "))
	}
	return dataset.LoadOGB(f.Data, opts)
}

// splitSchemes returns the folder names under dir, sorted.
func splitSchemes(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("-data: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("-data: %s holds no split scheme folder", dir)
	}
	return names, nil
}
