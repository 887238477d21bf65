package testsets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// PlanetoidDir returns the directory of the named converted Planetoid
// dataset ("cora", "citeseer", "pubmed"): $GNN_PLANETOID_DIR/name, or
// shared/data/planetoid/name beside or inside the repository. It skips the
// test when the data is absent.
func PlanetoidDir(t testing.TB, name string) string {
	t.Helper()
	var roots []string
	if env := os.Getenv("GNN_PLANETOID_DIR"); env != "" {
		roots = []string{env}
	} else if repo := repoRoot(); repo != "" {
		roots = []string{filepath.Join(repo, "..", "shared", "data", "planetoid"), filepath.Join(repo, "shared", "data", "planetoid")}
	}
	for _, root := range roots {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, "meta.txt")); err == nil {
			return dir
		}
	}
	t.Skipf("Planetoid %s not found under %v; set GNN_PLANETOID_DIR to the planetoid data folder", name, roots)
	return ""
}

// Planetoid loads the named Planetoid dataset, or skips the test.
func Planetoid(t testing.TB, name string) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.LoadPlanetoid(PlanetoidDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// repoRoot returns the nearest directory at or above the working
// directory that holds go.mod, or "".
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
