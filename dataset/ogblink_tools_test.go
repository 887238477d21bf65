package dataset_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// makeSplits writes OGB-style split/time/{train,valid,test}.pt files with
// PyTorch: collab's keys (a float weight, an integer year, an edge_neg)
// and citation2's (a 2-D target_node_neg), under dir.
const makeSplits = `
import sys, torch
d = sys.argv[1] + "/split/time/"
torch.save({"edge": torch.tensor([[0, 1], [1, 2], [3, 4]]), "weight": torch.tensor([1.0, 0.1, 3.0]),
            "year": torch.tensor([2010, 2011, 2012])}, d + "train.pt")
torch.save({"source_node": torch.tensor([2, 0]), "target_node": torch.tensor([3, 4]),
            "target_node_neg": torch.tensor([[0, 1, 4], [2, 2, 3]])}, d + "valid.pt")
torch.save({"edge": torch.tensor([[0, 2]]), "edge_neg": torch.tensor([[2, 4], [1, 3]]), "note": "not a tensor"}, d + "test.pt")
`

// TestOGBLinkSplitScript converts tiny .pt splits with
// tools/ogbl_split_to_csv.py and loads the result. It needs python3 with
// PyTorch and skips without them (CI does not).
func TestOGBLinkSplitScript(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		t.Skip("python3 has no torch module")
	}
	dir := writeOGB(t, "tiny", map[string]string{
		"raw/num-node-list.csv.gz": "5\n",
		"raw/num-edge-list.csv.gz": "3\n",
		"raw/edge.csv.gz":          "0,1\n1,2\n3,4\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "split", "time"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(python, "-c", makeSplits, dir).CombinedOutput(); err != nil {
		t.Fatalf("writing the .pt files: %v\n%s", err, out)
	}
	if out, err := exec.Command(python, filepath.Join("tools", "ogbl_split_to_csv.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("ogbl_split_to_csv.py: %v\n%s", err, out)
	}
	d, err := dataset.LoadOGBLink(dir, dataset.OGBLinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		got, want dataset.LinkSplit
	}{
		{d.Train, dataset.LinkSplit{Src: []int32{0, 1, 3}, Dst: []int32{1, 2, 4}, Weight: []float32{1, 0.1, 3}, Year: []int32{2010, 2011, 2012}}},
		{d.Valid, dataset.LinkSplit{Src: []int32{2, 0}, Dst: []int32{3, 4}, NegSrc: []int32{2, 2, 2, 0, 0, 0}, NegDst: []int32{0, 1, 4, 2, 2, 3}, NegPerPositive: 3}},
		{d.Test, dataset.LinkSplit{Src: []int32{0}, Dst: []int32{2}, NegSrc: []int32{2, 1}, NegDst: []int32{4, 3}}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("split %+v, want %+v", c.got, c.want)
		}
	}
}
