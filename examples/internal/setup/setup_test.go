package setup

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// TestLoadOGB checks that a folder in OGB's layout is recognised and read
// as written, features unnormalised.
func TestLoadOGB(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 200, 4
	want, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ogbn_planted")
	if err := dataset.WriteOGB(dir, want, dataset.OGBWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	gs, _ := got.Graph.COO()
	ws, _ := want.Graph.COO()
	if got.Name != "ogbn_planted" || !slices.Equal(gs, ws) || !slices.Equal(got.Features.Dense, want.Features.Dense) ||
		!slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.Test, want.Test) {
		t.Errorf("loaded %s differs from the written dataset", got.Name)
	}
}
