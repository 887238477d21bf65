package nn_test

import (
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// TestUniqueName checks that default names count the layers of one model
// only: a model built after others, or a second time, gets the same names.
func TestUniqueName(t *testing.T) {
	t.Parallel()
	build := func() []string {
		eg := gorgonia.NewGraph()
		var names []string
		for range 3 {
			name := nn.UniqueName(eg, "gcn")
			nn.Param(eg, name+".weight", nn.Zeros(tensor.Float32, 2, 2))
			names = append(names, name)
		}
		return names
	}
	first := build()
	if want := []string{"gcn1", "gcn2", "gcn3"}; !slices.Equal(first, want) {
		t.Fatalf("names %v, want %v", first, want)
	}
	if again := build(); !slices.Equal(again, first) {
		t.Errorf("a second model got names %v, the first %v", again, first)
	}

	// Names taken by hand are skipped; other prefixes and suffixes that are
	// not a layer number do not count.
	eg := gorgonia.NewGraph()
	for _, n := range []string{"gcn1.weight", "gcn3", "gcn02.bias", "gcnx.bias", "gat2.bias", "gcn"} {
		nn.Param(eg, n, nn.Zeros(tensor.Float32, 1))
	}
	if got := nn.UniqueName(eg, "gcn"); got != "gcn2" {
		t.Errorf("UniqueName = %q, want gcn2", got)
	}
}
