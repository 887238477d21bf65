package partition

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

func TestMETIS(t *testing.T) {
	if !METISBuilt {
		_, err := METIS(generate.Cycle(4), 2, 1)
		if !errors.Is(err, ErrMETISNotBuilt) {
			t.Fatalf("got %v, want ErrMETISNotBuilt", err)
		}
		t.Skip("METIS is not built in (build with -tags metis)")
	}
	graphs := map[string]*graph.Graph{
		"grid":     generate.Grid(32, 32),
		"rmat":     rmat(t, 12, 16<<12),
		"isolated": generate.Empty(10),
		"tiny":     generate.Path(3),
	}
	if dir := findPlanetoid("cora"); dir != "" {
		ds, err := dataset.LoadPlanetoid(dir)
		if err != nil {
			t.Fatal(err)
		}
		graphs["cora"] = ds.Graph
	}
	for name, g := range graphs {
		for _, parts := range []int{1, 2, 4, 8} {
			t.Run(fmt.Sprintf("%s/parts=%d", name, parts), func(t *testing.T) {
				m, err := METIS(g, parts, 1)
				if err != nil {
					t.Fatal(err)
				}
				if err := CheckOwner(m, g.NumNodes(), parts); err != nil {
					t.Fatal(err)
				}
				ours, err := Partition(g, parts, 1)
				if err != nil {
					t.Fatal(err)
				}
				mc, _ := EdgeCut(g, m)
				oc, _ := EdgeCut(g, ours)
				mi, _ := Imbalance(m, parts)
				oi, _ := Imbalance(ours, parts)
				t.Logf("%s, %d parts: METIS cut %d (imbalance %.3f), Partition cut %d (imbalance %.3f)", name, parts, mc, mi, oc, oi)
				// The pure-Go partitioner stays within 1.5x of METIS.
				if float64(oc) > 1.5*float64(mc)+8 {
					t.Errorf("Partition cut %d is more than 1.5x METIS's %d", oc, mc)
				}
			})
		}
	}
}
