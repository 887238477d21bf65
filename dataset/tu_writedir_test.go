package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteTUMakesDir: WriteTU creates its directory (and an error names
// the file asked for, never a temporary file: see atomicfile's tests).
func TestWriteTUMakesDir(t *testing.T) {
	cfg := DefaultMiniGCConfig()
	cfg.Graphs, cfg.Val, cfg.Test = 8, 1, 1
	ds, err := MiniGC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "new", "dir")
	if err := WriteTU(dir, "mini", ds); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTU(dir, "mini"); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyDatasetMessages: an empty dataset is reported as empty.
func TestEmptyDatasetMessages(t *testing.T) {
	if err := (&GraphDataset{}).SplitRandom(0, 0, 1); err == nil || !strings.Contains(err.Error(), "dataset: graph dataset: the dataset is empty (no graphs)") {
		t.Errorf("SplitRandom: got %v", err)
	}
	if err := WriteTU(t.TempDir(), "x", &GraphDataset{}); err == nil || !strings.Contains(err.Error(), "the dataset is empty") {
		t.Errorf("WriteTU: got %v", err)
	}
	dir := t.TempDir()
	for _, s := range []string{"A", "graph_indicator", "graph_labels"} {
		if err := os.WriteFile(filepath.Join(dir, "E_"+s+".txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadTU(dir, "E"); err == nil || !strings.Contains(err.Error(), "the dataset is empty") {
		t.Errorf("LoadTU: got %v", err)
	}
}

// TestPlantedHugeSizes: sizes no machine holds are refused before
// anything is allocated.
func TestPlantedHugeSizes(t *testing.T) {
	cfg := DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 1500, 100000000
	if _, err := PlantedPartition(cfg); err == nil || !strings.Contains(err.Error(), "1500 nodes x 100000000 features and 5850 edges needs about") {
		t.Errorf("features: got %v", err)
	}
	cfg = DefaultPlantedConfig()
	cfg.MeanDegree = 1e7
	if _, err := PlantedPartition(cfg); err == nil || !strings.Contains(err.Error(), "make 27080000000 edges, more than 2147483647") {
		t.Errorf("degree: got %v", err)
	}
}
