package dataset_test

import (
	"slices"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// TestLoadFolder checks that LoadFolder reads an OGB folder as LoadOGB does
// with the folder's options, and a Planetoid one as LoadPlanetoid does with
// its features row-normalised.
func TestLoadFolder(t *testing.T) {
	t.Parallel()
	dir := writeOGB(t, "tiny", tinyOGB)
	got, err := dataset.LoadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dataset.LoadOGB(dir, dataset.OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Features.Dense, want.Features.Dense) || !slices.Equal(got.Labels, want.Labels) {
		t.Errorf("OGB: features %v labels %v, want %v %v as LoadOGB", got.Features.Dense, got.Labels, want.Features.Dense, want.Labels)
	}

	dir = writePlanetoid(t, tinyPlanetoid)
	if got, err = dataset.LoadFolder(dir); err != nil {
		t.Fatal(err)
	}
	if want, err = dataset.LoadPlanetoid(dir); err != nil {
		t.Fatal(err)
	}
	want.Features.RowNormalize()
	if !slices.Equal(got.Features.Values, want.Features.Values) || !slices.Equal(got.Features.Indices, want.Features.Indices) {
		t.Errorf("Planetoid: features %v, want %v row-normalised", got.Features.Values, want.Features.Values)
	}
	if got.Features.Values[0] == 1 {
		t.Errorf("Planetoid: features %v not row-normalised", got.Features.Values)
	}
	if _, err := dataset.LoadFolder(t.TempDir()); err == nil {
		t.Error("an empty folder: no error")
	}
}
