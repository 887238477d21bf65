package dataset_test

import (
	"path/filepath"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// FuzzLoadOGBLink checks that no content of the link-property files makes
// LoadOGBLink panic, and that an accepted dataset is consistent (IDs in
// range, per-pair and per-edge columns of the right length, per-positive
// negatives of the declared count) and survives WriteOGBLink and
// LoadOGBLink unchanged.
func FuzzLoadOGBLink(f *testing.F) {
	c, t := tinyCollab, tinyCitation
	f.Add(c["raw/num-node-list.csv.gz"], c["raw/num-edge-list.csv.gz"], c["raw/edge.csv.gz"], c["raw/edge_weight.csv.gz"],
		c["split/time/train/edge.csv.gz"], c["split/time/valid/edge_neg.csv.gz"], "", "", "", c["split/time/train/weight.csv.gz"], true)
	f.Add(t["raw/num-node-list.csv.gz"], t["raw/num-edge-list.csv.gz"], t["raw/edge.csv.gz"], "",
		"", "", t["split/time/test/source_node.csv.gz"], t["split/time/test/target_node.csv.gz"], t["split/time/test/target_node_neg.csv.gz"], "", false)
	f.Add("2", "1", "1,0", "1e-3", "0,1\n", "", "1\n", "0\n", "0\n", "", false)
	f.Add("3", "0", "", "", "", "2,2\n", "0\n1\n", "1.0\n2\n", "0,1\n2,2\n", "5\n", true)
	f.Fuzz(func(t *testing.T, nodes, edges, edgeText, edgeWeight, pairs, negPairs, sources, targets, perPositive, weight string, inverse bool) {
		files := map[string]string{
			"raw/num-node-list.csv.gz": nodes, "raw/num-edge-list.csv.gz": edges, "raw/edge.csv.gz": edgeText,
			"split/s/train/edge.csv.gz": "",
			"split/s/valid/edge.csv.gz": "",
			"split/s/test/edge.csv.gz":  "",
		}
		optional := map[string]string{
			"raw/edge_weight.csv.gz":          edgeWeight,
			"split/s/train/edge.csv.gz":       pairs,
			"split/s/train/weight.csv.gz":     weight,
			"split/s/valid/edge_neg.csv.gz":   negPairs,
			"split/s/test/source_node.csv.gz": sources,
			"split/s/test/target_node.csv.gz": targets,
		}
		for k, v := range optional {
			if v != "" {
				files[k] = v
			}
		}
		if sources != "" || targets != "" {
			delete(files, "split/s/test/edge.csv.gz")
			if perPositive != "" {
				files["split/s/test/target_node_neg.csv.gz"] = perPositive
			}
		}
		dir := writeOGB(t, "fuzz", files)
		ds, err := dataset.LoadOGBLink(dir, dataset.OGBLinkOptions{AddInverseEdges: inverse})
		if err != nil {
			return
		}
		n, e := ds.Graph.NumNodes(), ds.Graph.NumEdges()
		if ds.EdgeWeight != nil && len(ds.EdgeWeight) != e {
			t.Fatalf("%d edge weights for %d edges", len(ds.EdgeWeight), e)
		}
		for _, s := range []dataset.LinkSplit{ds.Train, ds.Valid, ds.Test} {
			if len(s.Dst) != len(s.Src) || len(s.NegDst) != len(s.NegSrc) || s.Weight != nil && len(s.Weight) != len(s.Src) ||
				s.NegPerPositive > 0 && len(s.NegDst) != s.NegPerPositive*len(s.Src) {
				t.Fatalf("inconsistent split %+v", s)
			}
			for _, ids := range [][]int32{s.Src, s.Dst, s.NegSrc, s.NegDst} {
				for _, v := range ids {
					if v < 0 || int(v) >= n {
						t.Fatalf("node %d out of range [0, %d)", v, n)
					}
				}
			}
		}
		out := filepath.Join(t.TempDir(), "again")
		if err := dataset.WriteOGBLink(out, ds, dataset.OGBLinkWriteOptions{}); err != nil {
			t.Fatalf("writing an accepted dataset: %v", err)
		}
		again, err := dataset.LoadOGBLink(out, dataset.OGBLinkOptions{})
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		checkSameLinkDataset(t, again, ds)
	})
}
