package dataset_test

import (
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// tinyCollab is a five-node dataset in ogbl-collab's form (pairs stored
// once, weights and years, shared negatives), its splits as
// ogbl_split_to_csv.py writes them.
var tinyCollab = map[string]string{
	"raw/num-node-list.csv.gz":         "5\n",
	"raw/num-edge-list.csv.gz":         "3\n",
	"raw/edge.csv.gz":                  "0,1\n1,2\n3,4\n",
	"raw/node-feat.csv.gz":             "0.5,-1\n0,0\n1e-3,2.25\n-0.0,7\n3,4\n",
	"raw/edge_weight.csv.gz":           "1\n2.5\n1\n",
	"raw/edge_year.csv.gz":             "2010\n2011\n2012\n",
	"split/time/train/edge.csv.gz":     "0,1\n1,2\n3,4\n",
	"split/time/train/weight.csv.gz":   "1\n2.5\n1\n",
	"split/time/train/year.csv.gz":     "2010\n2011\n2012\n",
	"split/time/valid/edge.csv.gz":     "2,3\n",
	"split/time/valid/edge_neg.csv.gz": "0,4\n1,3\n",
	"split/time/test/edge.csv.gz":      "0,2\r\n4,1\r\n",
	"split/time/test/edge_neg.csv.gz":  "2,4\n",
	"split/time/train.pt":              "ignored",
	"raw/node_year.csv.gz":             "1\n2\n3\n4\n5\n",
}

// tinyCitation is a four-node dataset in ogbl-citation2's form
// (directed, source and target node files, per-positive negatives).
var tinyCitation = map[string]string{
	"raw/num-node-list.csv.gz":                 "4\n",
	"raw/num-edge-list.csv.gz":                 "3\n",
	"raw/edge.csv.gz":                          "0,1\n1,2\n2,0\n",
	"split/time/train/source_node.csv.gz":      "0\n1\n2\n",
	"split/time/train/target_node.csv.gz":      "1\n2\n0\n",
	"split/time/valid/source_node.csv.gz":      "3\n",
	"split/time/valid/target_node.csv.gz":      "0\n",
	"split/time/valid/target_node_neg.csv.gz":  "1,2,3\n",
	"split/time/test/source_node.csv.gz":       "3\n0\n",
	"split/time/test/target_node.csv.gz":       "1\n3.0\n",
	"split/time/test/target_node_neg.csv.gz":   "0,2,2\n1,1,2\n",
	"split/time/test/extra_key_ignored.csv.gz": "x\n",
}

func TestLoadOGBLinkCollab(t *testing.T) {
	t.Parallel()
	dir := writeOGB(t, "ogbl_collab", tinyCollab)
	opts, ok := dataset.OGBLinkOptionsFor(dir)
	if !ok || opts.Name != "ogbl-collab" || opts.Split != "time" || !opts.AddInverseEdges {
		t.Fatalf("options for %s: %+v, %t", dir, opts, ok)
	}
	d, err := dataset.LoadOGBLink(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := d.Graph.COO()
	if d.Name != "ogbl-collab" || d.Graph.NumNodes() != 5 ||
		!slices.Equal(src, []int32{0, 1, 1, 2, 3, 4}) || !slices.Equal(dst, []int32{1, 0, 2, 1, 4, 3}) {
		t.Errorf("graph %v %q: %v -> %v", d.Graph, d.Name, src, dst)
	}
	if d.Features == nil || d.Features.Rows != 5 || d.Features.Cols != 2 || d.Features.Dense[4] != 1e-3 {
		t.Errorf("features %+v", d.Features)
	}
	if !slices.Equal(d.EdgeWeight, []float32{1, 1, 2.5, 2.5, 1, 1}) || !slices.Equal(d.EdgeYear, []int32{2010, 2010, 2011, 2011, 2012, 2012}) {
		t.Errorf("edge weights %v years %v", d.EdgeWeight, d.EdgeYear)
	}
	want := dataset.LinkSplit{Src: []int32{0, 1, 3}, Dst: []int32{1, 2, 4}, Weight: []float32{1, 2.5, 1}, Year: []int32{2010, 2011, 2012}}
	if !reflect.DeepEqual(d.Train, want) {
		t.Errorf("train %+v, want %+v", d.Train, want)
	}
	want = dataset.LinkSplit{Src: []int32{2}, Dst: []int32{3}, NegSrc: []int32{0, 1}, NegDst: []int32{4, 3}}
	if !reflect.DeepEqual(d.Valid, want) {
		t.Errorf("valid %+v, want %+v", d.Valid, want)
	}
	want = dataset.LinkSplit{Src: []int32{0, 4}, Dst: []int32{2, 1}, NegSrc: []int32{2}, NegDst: []int32{4}}
	if !reflect.DeepEqual(d.Test, want) || d.Test.Len() != 2 {
		t.Errorf("test %+v, want %+v", d.Test, want)
	}
	checkLinkRoundTrip(t, d, dataset.OGBLinkWriteOptions{Split: "time", Undirected: true}, opts)
}

func TestLoadOGBLinkCitation(t *testing.T) {
	t.Parallel()
	dir := writeOGB(t, "citation2", tinyCitation)
	opts, ok := dataset.OGBLinkOptionsFor(dir)
	if !ok || opts.Name != "ogbl-citation2" || opts.AddInverseEdges {
		t.Fatalf("options %+v, %t", opts, ok)
	}
	d, err := dataset.LoadOGBLink(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d.Features != nil || d.EdgeWeight != nil || d.EdgeYear != nil || d.Graph.NumEdges() != 3 {
		t.Errorf("optional columns or graph wrong: %+v", d)
	}
	want := dataset.LinkSplit{Src: []int32{3, 0}, Dst: []int32{1, 3}, NegSrc: []int32{3, 3, 3, 0, 0, 0}, NegDst: []int32{0, 2, 2, 1, 1, 2}, NegPerPositive: 3}
	if !reflect.DeepEqual(d.Test, want) {
		t.Errorf("test %+v, want %+v", d.Test, want)
	}
	if d.Train.NegSrc != nil || d.Train.Len() != 3 || d.Valid.NegPerPositive != 3 {
		t.Errorf("train %+v valid %+v", d.Train, d.Valid)
	}
	checkLinkRoundTrip(t, d, dataset.OGBLinkWriteOptions{Split: "time"}, opts)
}

// checkLinkRoundTrip writes d and reads it back.
func checkLinkRoundTrip(t *testing.T, d *dataset.LinkDataset, w dataset.OGBLinkWriteOptions, r dataset.OGBLinkOptions) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "again")
	if err := dataset.WriteOGBLink(out, d, w); err != nil {
		t.Fatal(err)
	}
	again, err := dataset.LoadOGBLink(out, r)
	if err != nil {
		t.Fatal(err)
	}
	checkSameLinkDataset(t, again, d)
}

func checkSameLinkDataset(t *testing.T, got, want *dataset.LinkDataset) {
	t.Helper()
	gs, gd := got.Graph.COO()
	ws, wd := want.Graph.COO()
	if got.Graph.NumNodes() != want.Graph.NumNodes() || !slices.Equal(gs, ws) || !slices.Equal(gd, wd) {
		t.Errorf("graph %v, want %v (or different COO lists)", got.Graph, want.Graph)
	}
	if (got.Features == nil) != (want.Features == nil) ||
		got.Features != nil && (got.Features.Rows != want.Features.Rows || got.Features.Cols != want.Features.Cols ||
			!slices.Equal(got.Features.ToDense(), want.Features.ToDense())) {
		t.Errorf("features differ")
	}
	if !slices.Equal(got.EdgeWeight, want.EdgeWeight) || !slices.Equal(got.EdgeYear, want.EdgeYear) ||
		(got.EdgeWeight == nil) != (want.EdgeWeight == nil) || (got.EdgeYear == nil) != (want.EdgeYear == nil) {
		t.Errorf("edge columns differ")
	}
	for k, pair := range [][2]dataset.LinkSplit{{got.Train, want.Train}, {got.Valid, want.Valid}, {got.Test, want.Test}} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("set %d: %+v, want %+v", k, pair[0], pair[1])
		}
	}
}

func TestLoadOGBLinkErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		file  string // the file the error must name ("" for none)
		want  string
	}{
		{"edge range", with(tinyCollab, "raw/edge.csv.gz", "0,1\n1,5\n3,4\n"), "raw/edge.csv.gz", "line 2: \"1,5\": destination 5 out of range"},
		{"weight rows", with(tinyCollab, "raw/edge_weight.csv.gz", "1\n2\n"), "raw/edge_weight.csv.gz", "truncated: 2 of the 3 rows expected"},
		{"weight extra", with(tinyCollab, "raw/edge_weight.csv.gz", "1\n2\n3\n4\n"), "raw/edge_weight.csv.gz", "line 4: more than the 3 rows"},
		{"weight nan", with(tinyCollab, "raw/edge_weight.csv.gz", "1\nnan\n3\n"), "raw/edge_weight.csv.gz", "line 2: column 1: \"nan\" is not a finite float32"},
		{"year text", with(tinyCollab, "raw/edge_year.csv.gz", "1\n2\nlast\n"), "raw/edge_year.csv.gz", "line 3: year \"last\""},
		{"pair text", with(tinyCollab, "split/time/valid/edge.csv.gz", "2;3\n"), "split/time/valid/edge.csv.gz", "line 1: \"2;3\": want two comma-separated"},
		{"neg range", with(tinyCollab, "split/time/test/edge_neg.csv.gz", "2,4\n9,0\n"), "split/time/test/edge_neg.csv.gz", "line 2: \"9,0\": source 9 out of range"},
		{"pair weight rows", with(tinyCollab, "split/time/train/weight.csv.gz", "1\n"), "split/time/train/weight.csv.gz", "truncated: 1 of the 3 rows expected"},
		{"both forms", with(tinyCollab, "split/time/valid/source_node.csv.gz", "1\n"), "split/time/valid", "both edge.csv.gz and source_node"},
		{"no pairs", with(tinyCollab, "split/time/valid/edge.csv.gz", ""), "", "no positive pairs"},
		{"target rows", with(tinyCitation, "split/time/test/target_node.csv.gz", "1\n"), "split/time/test/target_node.csv.gz", "truncated: 1 of the 2 rows expected"},
		{"target missing", with(tinyCitation, "split/time/test/target_node.csv.gz", ""), "", "missing"},
		{"source text", with(tinyCitation, "split/time/test/source_node.csv.gz", "3\n0.5\n"), "split/time/test/source_node.csv.gz", "line 2: \"0.5\" is not a node ID"},
		{"neg columns", with(tinyCitation, "split/time/test/target_node_neg.csv.gz", "0,2,2\n1,1\n"), "split/time/test/target_node_neg.csv.gz", "line 2: 2 columns, want 3"},
		{"neg node", with(tinyCitation, "split/time/test/target_node_neg.csv.gz", "0,2,2\n1,4,2\n"), "split/time/test/target_node_neg.csv.gz", "line 2: column 2: node 4 out of range [0, num_nodes=4)"},
		{"neg rows", with(tinyCitation, "split/time/test/target_node_neg.csv.gz", "0,2,2\n"), "split/time/test/target_node_neg.csv.gz", "truncated: 1 of the 2 rows expected"},
		{"neg extra rows", with(tinyCitation, "split/time/valid/target_node_neg.csv.gz", "0\n1\n"), "split/time/valid/target_node_neg.csv.gz", "line 2: more than the 1 rows"},
		{"both negatives", with(tinyCitation, "split/time/test/edge_neg.csv.gz", "0,1\n"), "split/time/test", "both edge_neg.csv.gz and target_node_neg"},
		{"missing count", with(tinyCitation, "raw/num-node-list.csv.gz", ""), "", "missing"},
	} {
		dir := writeOGB(t, "tiny", tc.files)
		_, err := dataset.LoadOGBLink(dir, dataset.OGBLinkOptions{})
		prefix := "dataset: "
		if tc.file != "" {
			prefix += filepath.Join(dir, tc.file) + ": "
		}
		if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want prefix %q and %q", tc.name, err, prefix, tc.want)
		}
	}
}

func TestWriteOGBLinkErrors(t *testing.T) {
	t.Parallel()
	d, err := dataset.LoadOGBLink(writeOGB(t, "citation2", tinyCitation), dataset.OGBLinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(d *dataset.LinkDataset)
		want   string
	}{
		{"features", func(d *dataset.LinkDataset) {
			d.Features = &dataset.Features{Rows: 3, Cols: 1, Dense: make([]float32, 3)}
		}, "features of 3 rows"},
		{"edge weights", func(d *dataset.LinkDataset) { d.EdgeWeight = []float32{1} }, "3 graph edges but 1 weights"},
		{"weight inf", func(d *dataset.LinkDataset) { d.Train.Weight = []float32{1, float32(math.Inf(1)), 1} }, "train pair 1 has weight +Inf"},
		{"year", func(d *dataset.LinkDataset) { d.EdgeYear = []int32{1, -1, 1} }, "graph edge 1 has year -1"},
		{"lengths", func(d *dataset.LinkDataset) { d.Valid.Dst = nil }, "valid has 1 sources, 0 destinations"},
		{"range", func(d *dataset.LinkDataset) { d.Test.NegDst[4] = 4 }, "test pair 4 has node 4 out of range [0, 4)"},
		{"per positive count", func(d *dataset.LinkDataset) { d.Test.NegPerPositive = 2 }, "test has 6 negatives for 2 positives, 2 each"},
		{"per positive source", func(d *dataset.LinkDataset) { d.Test.NegSrc[1] = 2 }, "test negative 1 has source 2, not its positive 0's 3"},
		{"negative count", func(d *dataset.LinkDataset) { d.Valid.NegPerPositive = -1 }, "valid has -1 negatives per positive"},
	} {
		c := *d
		c.Train, c.Valid, c.Test = cloneSplit(d.Train), cloneSplit(d.Valid), cloneSplit(d.Test)
		tc.change(&c)
		err := dataset.WriteOGBLink(filepath.Join(t.TempDir(), "out"), &c, dataset.OGBLinkWriteOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := dataset.WriteOGBLink(t.TempDir(), d, dataset.OGBLinkWriteOptions{Undirected: true}); err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Errorf("undirected writing of a directed graph: %v", err)
	}
	if err := dataset.WriteOGBLink(t.TempDir(), d, dataset.OGBLinkWriteOptions{Split: "../x"}); err == nil {
		t.Errorf("split scheme ../x accepted")
	}
}

func cloneSplit(s dataset.LinkSplit) dataset.LinkSplit {
	return dataset.LinkSplit{Src: slices.Clone(s.Src), Dst: slices.Clone(s.Dst), Weight: slices.Clone(s.Weight), Year: slices.Clone(s.Year),
		NegSrc: slices.Clone(s.NegSrc), NegDst: slices.Clone(s.NegDst), NegPerPositive: s.NegPerPositive}
}

// TestLoadOGBLinkWideNegatives checks that a negatives file whose first row
// declares more columns than the file can hold is refused before the
// allocation, with the file named once.
func TestLoadOGBLinkWideNegatives(t *testing.T) {
	t.Parallel()
	const file = "split/time/test/target_node_neg.csv.gz"
	dir := writeOGB(t, "tiny", with(tinyCitation, file, strings.Repeat("0,", 300000)+"0\n"))
	_, err := dataset.LoadOGBLink(dir, dataset.OGBLinkOptions{})
	if err == nil || !strings.Contains(err.Error(), "cannot be held") {
		t.Fatalf("error %v, want one saying the rows cannot be held", err)
	}
	if n := strings.Count(err.Error(), filepath.Join(dir, file)); n != 1 {
		t.Errorf("error %v names the file %d times, want once", err, n)
	}
}
