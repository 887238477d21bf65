package dataset_test

import (
	"path/filepath"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// FuzzLoadOGB checks that no content of the OGB files makes LoadOGB panic,
// and that an accepted dataset is consistent (IDs and labels in range,
// splits sorted and disjoint) and survives WriteOGB and LoadOGB unchanged.
func FuzzLoadOGB(f *testing.F) {
	f.Add(tinyOGB["raw/num-node-list.csv.gz"], tinyOGB["raw/num-edge-list.csv.gz"], tinyOGB["raw/edge.csv.gz"],
		tinyOGB["raw/node-feat.csv.gz"], tinyOGB["raw/node-label.csv.gz"],
		tinyOGB["split/time/train.csv.gz"], tinyOGB["split/time/valid.csv.gz"], tinyOGB["split/time/test.csv.gz"], false)
	f.Add("2\r\n", "1", "1,0\r\n", "1e-3,2\n-0,3\r\n", "1.0\n0e0\n", "", "1", "0", true)
	f.Add("3", "2", "0,1\n2,2", "1\n2\n3\n", "0\n4\n1\n", "2\n2", "", "", false)
	f.Add("1", "0", "", "0x1p-3\n", "3\n", "0\n", "", "", false)
	f.Fuzz(func(t *testing.T, nodes, edges, edgeText, feat, labels, train, valid, test string, inverse bool) {
		dir := writeOGB(t, "fuzz", map[string]string{
			"raw/num-node-list.csv.gz": nodes, "raw/num-edge-list.csv.gz": edges, "raw/edge.csv.gz": edgeText,
			"raw/node-feat.csv.gz": feat, "raw/node-label.csv.gz": labels,
			"split/s/train.csv.gz": train, "split/s/valid.csv.gz": valid, "split/s/test.csv.gz": test,
		})
		ds, err := dataset.LoadOGB(dir, dataset.OGBOptions{AddInverseEdges: inverse})
		if err != nil {
			return
		}
		n := ds.Graph.NumNodes()
		if ds.Features.Rows != n || len(ds.Features.Dense) != n*ds.Features.Cols || len(ds.Labels) != n {
			t.Fatalf("%d nodes, features %dx%d (%d values), %d labels", n, ds.Features.Rows, ds.Features.Cols, len(ds.Features.Dense), len(ds.Labels))
		}
		for v, y := range ds.Labels {
			if y < 0 || int(y) >= ds.NumClasses {
				t.Fatalf("node %d label %d outside [0, %d)", v, y, ds.NumClasses)
			}
		}
		seen := map[int32]bool{}
		for _, ids := range [][]int32{ds.Train, ds.Val, ds.Test} {
			for i, v := range ids {
				if v < 0 || int(v) >= n || seen[v] || i > 0 && v <= ids[i-1] {
					t.Fatalf("split %v %v %v not sorted, disjoint and in range", ds.Train, ds.Val, ds.Test)
				}
				seen[v] = true
			}
		}
		if ds.Features.Cols == 0 {
			return // no rows: nothing WriteOGB can hold
		}
		out := filepath.Join(t.TempDir(), "again")
		if err := dataset.WriteOGB(out, ds, dataset.OGBWriteOptions{}); err != nil {
			t.Fatalf("writing an accepted dataset: %v", err)
		}
		again, err := dataset.LoadOGB(out, dataset.OGBOptions{NumClasses: ds.NumClasses})
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		checkSameDataset(t, again, ds)
	})
}
