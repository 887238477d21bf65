package dataset_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/internal/testkit/testsets"
)

// tinyPlanetoid is a valid four-node dataset in the Planetoid text format;
// the error tests replace one file at a time.
var tinyPlanetoid = map[string]string{
	"meta.txt": "name=tiny\nnum_nodes=4\nnum_edges=4\nnum_features=3\nnum_classes=2\n" +
		"feature_nnz=4\nnum_train=1\nnum_val=1\nnum_test=2\nfeatures_complete=1\n",
	"edges.txt":       "0 1\n1 0\n2 3\n3 2\n",
	"features.txt.gz": "0:1 2:0.5\n\n1:1\n0:2\n",
	"labels.txt":      "0\n1\n1\n0\n",
	"split.txt":       "train 0\nval 1\ntest 2 3\n",
}

// writePlanetoid writes files (gzipping features.txt.gz) into a new
// directory and returns it.
func writePlanetoid(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		data := []byte(text)
		if strings.HasSuffix(name, ".gz") {
			data = gzipBytes(t, text)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func gzipBytes(t *testing.T, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLoadPlanetoidTiny(t *testing.T) {
	t.Parallel()
	d, err := dataset.LoadPlanetoid(writePlanetoid(t, tinyPlanetoid))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "tiny" || d.NumClasses != 2 {
		t.Errorf("name %q, classes %d; want tiny, 2", d.Name, d.NumClasses)
	}
	src, dst := d.Graph.COO()
	if d.Graph.NumNodes() != 4 || !slices.Equal(src, []int32{0, 1, 2, 3}) || !slices.Equal(dst, []int32{1, 0, 3, 2}) {
		t.Errorf("graph %v: src %v dst %v", d.Graph, src, dst)
	}
	f := d.Features
	if !f.IsSparse() || f.Rows != 4 || f.Cols != 3 {
		t.Fatalf("features %dx%d, sparse %t; want sparse 4x3", f.Rows, f.Cols, f.IsSparse())
	}
	if want := []float32{1, 0, 0.5, 0, 0, 0, 0, 1, 0, 2, 0, 0}; !slices.Equal(f.ToDense(), want) {
		t.Errorf("features %v, want %v", f.ToDense(), want)
	}
	if !slices.Equal(f.Indptr, []int64{0, 2, 2, 3, 4}) {
		t.Errorf("indptr %v", f.Indptr)
	}
	if !slices.Equal(d.Labels, []int32{0, 1, 1, 0}) {
		t.Errorf("labels %v", d.Labels)
	}
	if !slices.Equal(d.Train, []int32{0}) || !slices.Equal(d.Val, []int32{1}) || !slices.Equal(d.Test, []int32{2, 3}) {
		t.Errorf("split %v / %v / %v", d.Train, d.Val, d.Test)
	}
}

func TestLoadPlanetoidEmptySplitsAndRows(t *testing.T) {
	t.Parallel()
	files := withFiles(tinyPlanetoid, map[string]string{
		"meta.txt": strings.NewReplacer("feature_nnz=4", "feature_nnz=0", "num_train=1", "num_train=0",
			"num_test=2", "num_test=0").Replace(tinyPlanetoid["meta.txt"]),
		"features.txt.gz": "\n\n\n\n",
		"split.txt":       "\ntrain\nval 1\n\ntest\n\n",
	})
	d, err := dataset.LoadPlanetoid(writePlanetoid(t, files))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Features.IsSparse() || d.Features.NNZ() != 0 || len(d.Features.Indptr) != 5 {
		t.Errorf("all-zero features: sparse %t, nnz %d, indptr %v", d.Features.IsSparse(), d.Features.NNZ(), d.Features.Indptr)
	}
	if len(d.Train) != 0 || !slices.Equal(d.Val, []int32{1}) || len(d.Test) != 0 {
		t.Errorf("split %v / %v / %v", d.Train, d.Val, d.Test)
	}
}

// withFiles returns base with the entries of over replaced; an empty value
// removes the file.
func withFiles(base, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

func TestLoadPlanetoidErrors(t *testing.T) {
	t.Parallel()
	meta := func(old, new string) string { return strings.Replace(tinyPlanetoid["meta.txt"], old, new, 1) }
	for _, tc := range []struct {
		name, file, text string // text "" deletes the file
		want             string // follows "dataset: <dir>/<file>"
	}{
		{"meta missing", "meta.txt", "", "open "},
		{"meta no equals", "meta.txt", meta("num_nodes=4", "num_nodes"), `: line 2: "num_nodes": want key=value`},
		{"meta duplicate", "meta.txt", tinyPlanetoid["meta.txt"] + "num_val=1\n", `: line 11: duplicate key "num_val"`},
		{"meta unknown", "meta.txt", "\n" + tinyPlanetoid["meta.txt"] + "  homophily = 0.8\n", `: line 12: unknown key "homophily"`},
		{"meta not int", "meta.txt", meta("num_edges=4", "num_edges=four"), `: line 3: num_edges="four": want an integer in [0, `},
		{"meta negative", "meta.txt", meta("num_classes=2", "num_classes=-2"), `: line 5: num_classes="-2": want an integer`},
		{"meta too many nodes", "meta.txt", meta("num_nodes=4", "num_nodes=2147483648"), `num_nodes="2147483648": want an integer in [0, 2147483647]`},
		{"meta flag", "meta.txt", meta("features_complete=1", "features_complete=2"), `: line 10: features_complete="2": want an integer in [0, 1]`},
		{"meta empty name", "meta.txt", meta("name=tiny", "name= "), `: line 1: empty name`},
		{"meta missing keys", "meta.txt", meta("num_val=1\nnum_test=2\n", ""), `: missing num_val, num_test`},
		{"meta split sum", "meta.txt", meta("num_test=2", "num_test=3"), `: num_train+num_val+num_test = 5 exceeds num_nodes=4`},
		{"meta nnz", "meta.txt", meta("feature_nnz=4", "feature_nnz=13"), `: feature_nnz=13 exceeds num_nodes*num_features = 4*3`},
		{"meta huge features", "meta.txt", meta("num_features=3", "num_features=2147483647"), `: num_features=2147483647 exceeds max(feature_nnz, 65536) = 65536`},
		{"meta huge classes", "meta.txt", meta("num_classes=2", "num_classes=2147483647"), `: num_classes=2147483647 exceeds max(num_nodes, 65536) = 65536`},

		{"edges missing", "edges.txt", "", "open "},
		{"edges syntax", "edges.txt", "0 1\n1 x\n", `: graph: line 2: "1 x": destination "x" is not an integer`},
		{"edges range", "edges.txt", "0 1\n1 0\n2 3\n4 2\n", `: graph: line 4: "4 2": source 4 is out of range: the graph has 4 nodes`},
		{"edges count", "edges.txt", "0 1\n1 0\n2 3\n", `: 3 edges, want num_edges=4`},

		{"features missing", "features.txt.gz", "", "open "},
		{"features column range", "features.txt.gz", "0:1 3:0.5\n\n1:1\n0:2\n", `: line 1: pair 2 "3:0.5": column 3 out of range [0, 3)`},
		{"features order", "features.txt.gz", "2:1 0:0.5\n\n1:1\n0:2\n", `: line 1: pair 2 "0:0.5": column 0 after column 2: columns must ascend`},
		{"features duplicate column", "features.txt.gz", "0:1 0:0.5\n\n1:1\n0:2\n", `column 0 after column 0`},
		{"features pair", "features.txt.gz", "0:1 2:0.5\n\n1\n0:2\n", `: line 3: pair 1 "1": want col:value`},
		{"features column", "features.txt.gz", "0:1 -2:0.5\n\n1:1\n0:2\n", `: line 1: pair 2 "-2:0.5": column "-2" is not a non-negative integer`},
		{"features value", "features.txt.gz", "0:1 2:x\n\n1:1\n0:2\n", `: line 1: pair 2 "2:x": value "x" is not a number`},
		{"features nan", "features.txt.gz", "0:1 2:NaN\n\n1:1\n0:2\n", `value "NaN" is not a finite float32`},
		{"features overflow", "features.txt.gz", "0:1 2:1e39\n\n1:1\n0:2\n", `value "1e39" is not a finite float32`},
		{"features extra line", "features.txt.gz", "0:1 2:0.5\n\n1:1\n0:2\n\n", `: line 5: more than num_nodes=4 lines`},
		{"features short", "features.txt.gz", "0:1 2:0.5\n\n1:1 2:1\n", `: 3 lines, want num_nodes=4`},
		{"features few nnz", "features.txt.gz", "0:1\n\n1:1\n0:2\n", `: 3 non-zeros, want feature_nnz=4`},
		{"features many nnz", "features.txt.gz", "0:1 2:0.5\n\n1:1 2:1\n0:2\n", `: line 4: more than feature_nnz=4 non-zeros`},

		{"labels missing", "labels.txt", "", "open "},
		{"labels range", "labels.txt", "0\n1\n2\n0\n", `: line 3: label 2 out of range [0, num_classes=2)`},
		{"labels negative", "labels.txt", "0\n-1\n1\n0\n", `: line 2: label "-1" is not a non-negative integer`},
		{"labels blank", "labels.txt", "0\n\n1\n0\n", `: line 2: label "" is not a non-negative integer`},
		{"labels short", "labels.txt", "0\n1\n1\n", `: 3 lines, want num_nodes=4`},
		{"labels long", "labels.txt", "0\n1\n1\n0\n1\n", `: line 5: more than num_nodes=4 lines`},

		{"split missing", "split.txt", "", "open "},
		{"split order", "split.txt", "val 1\ntrain 0\ntest 2 3\n", `: line 1: line starts with "val", want "train"`},
		{"split count", "split.txt", "train 0\nval 1\ntest 2\n", `: line 3: 1 test IDs, want num_test=2`},
		{"split range", "split.txt", "train 0\nval 1\ntest 2 4\n", `: line 3: test ID 4 out of range [0, num_nodes=4)`},
		{"split id", "split.txt", "train 0\nval 1\ntest 2 three\n", `: line 3: test ID "three" is not a non-negative integer`},
		{"split ascending", "split.txt", "train 0\nval 1\ntest 3 2\n", `: line 3: test ID 2 after 3: IDs must ascend`},
		{"split repeated", "split.txt", "train 0\nval 1\ntest 3 3\n", `test ID 3 after 3: IDs must ascend`},
		{"split overlap", "split.txt", "train 0\nval 1\ntest 0 3\n", `: line 3: node 0 is in both train and test`},
		{"split no test", "split.txt", "train 0\nval 1\n", `: missing the test line`},
		{"split extra", "split.txt", "train 0\nval 1\ntest 2 3\nextra 1\n", `: line 4: unexpected line after the test split`},
	} {
		dir := writePlanetoid(t, withFiles(tinyPlanetoid, map[string]string{tc.file: tc.text}))
		if tc.text == "" {
			os.Remove(filepath.Join(dir, tc.file))
		}
		d, err := dataset.LoadPlanetoid(dir)
		if err == nil {
			t.Errorf("%s: got %v, want an error", tc.name, d)
			continue
		}
		prefix := "dataset: " + filepath.Join(dir, tc.file)
		if tc.want == "open " {
			prefix = "dataset: open " + filepath.Join(dir, tc.file)
			if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: error %v does not wrap os.ErrNotExist", tc.name, err)
			}
		}
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q then %q", tc.name, err, prefix, tc.want)
		}
	}
}

func TestLoadPlanetoidCorruptGzip(t *testing.T) {
	t.Parallel()
	dir := writePlanetoid(t, tinyPlanetoid)
	path := filepath.Join(dir, "features.txt.gz")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not gzip", []byte("0:1 2:0.5\n\n1:1\n0:2\n"), "gzip: invalid header"},
		{"truncated", gzipBytes(t, tinyPlanetoid["features.txt.gz"])[:30], "unexpected EOF"},
	} {
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := dataset.LoadPlanetoid(dir)
		if err == nil || !strings.HasPrefix(err.Error(), "dataset: "+path+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadPlanetoidCora(t *testing.T) {
	t.Parallel()
	d, err := dataset.LoadPlanetoid(testsets.PlanetoidDir(t, "cora"))
	if err != nil {
		t.Fatal(err)
	}
	g := d.Graph
	if d.Name != "cora" || g.NumSrc() != 2708 || g.NumDst() != 2708 || g.NumEdges() != 10556 {
		t.Errorf("%s: %v, want cora with 2708 nodes and 10556 edges", d.Name, g)
	}
	if f := d.Features; f.Rows != 2708 || f.Cols != 1433 || !f.IsSparse() || f.NNZ() != 49216 {
		t.Errorf("features %dx%d, sparse %t, nnz %d; want sparse 2708x1433 with 49216 non-zeros", f.Rows, f.Cols, f.IsSparse(), f.NNZ())
	}
	if d.NumClasses != 7 || len(d.Labels) != 2708 {
		t.Errorf("%d classes, %d labels; want 7, 2708", d.NumClasses, len(d.Labels))
	}
	if len(d.Train) != 140 || len(d.Val) != 500 || len(d.Test) != 1000 {
		t.Errorf("split %d/%d/%d, want 140/500/1000", len(d.Train), len(d.Val), len(d.Test))
	}

	// Spot checks against the files and PyG: the first feature row, the
	// class sizes, the train and validation ranges.
	row0 := d.Features.Indices[d.Features.Indptr[0]:d.Features.Indptr[1]]
	if want := []int32{19, 81, 146, 315, 774, 877, 1194, 1247, 1274}; !slices.Equal(row0, want) {
		t.Errorf("row 0 columns %v, want %v", row0, want)
	}
	for _, v := range d.Features.Values {
		if v != 1 {
			t.Fatalf("feature value %v, want only 1s (bag of words)", v)
		}
	}
	counts := make([]int, d.NumClasses)
	for _, c := range d.Labels {
		counts[c]++
	}
	if want := []int{351, 217, 418, 818, 426, 298, 180}; !slices.Equal(counts, want) {
		t.Errorf("class sizes %v, want %v", counts, want)
	}
	if d.Train[0] != 0 || d.Train[139] != 139 || d.Val[0] != 140 || d.Val[499] != 639 {
		t.Errorf("train %d..%d, val %d..%d; want 0..139, 140..639", d.Train[0], d.Train[139], d.Val[0], d.Val[499])
	}
	// The README promises a symmetric graph without self loops.
	src, dst := g.COO()
	type edge struct{ u, v int32 }
	set := make(map[edge]bool, len(src))
	for e := range src {
		set[edge{src[e], dst[e]}] = true
	}
	for e := range src {
		if src[e] == dst[e] || !set[edge{dst[e], src[e]}] {
			t.Fatalf("edge %d (%d -> %d) is a self loop or has no reverse", e, src[e], dst[e])
		}
	}
}

func TestLoadPlanetoidCiteSeerPubMed(t *testing.T) {
	t.Parallel()
	for _, want := range []struct {
		name                                 string
		nodes, edges, features, classes, nnz int
		train, val, test                     int
	}{
		{"citeseer", 3327, 9104, 3703, 6, 105165, 120, 500, 1000},
		{"pubmed", 19717, 88648, 500, 3, 988031, 60, 500, 1000},
	} {
		t.Run(want.name, func(t *testing.T) {
			t.Parallel()
			d, err := dataset.LoadPlanetoid(testsets.PlanetoidDir(t, want.name))
			if err != nil {
				t.Fatal(err)
			}
			f := d.Features
			if d.Name != want.name || d.Graph.NumNodes() != want.nodes || d.Graph.NumEdges() != want.edges ||
				f.Rows != want.nodes || f.Cols != want.features || f.NNZ() != want.nnz || d.NumClasses != want.classes ||
				len(d.Train) != want.train || len(d.Val) != want.val || len(d.Test) != want.test {
				t.Errorf("got %s: %v, features %dx%d nnz %d, %d classes, split %d/%d/%d; want %+v",
					d.Name, d.Graph, f.Rows, f.Cols, f.NNZ(), d.NumClasses, len(d.Train), len(d.Val), len(d.Test), want)
			}
		})
	}
}

// TestLoadPlanetoidTruncatedFeatures cuts a gzip'd features file at every
// byte: each cut must be reported as truncation, never as a malformed line
// (the partial last line that the cut leaves usually is one).
func TestLoadPlanetoidTruncatedFeatures(t *testing.T) {
	t.Parallel()
	const nodes = 64
	var feat, labels, edges strings.Builder
	nnz := 0
	for v := range nodes {
		for c := v % 5; c < 40; c += 3 + v%4 {
			fmt.Fprintf(&feat, "%d:%g ", c, 0.125*float64(c+v))
			nnz++
		}
		feat.WriteString("\n")
		labels.WriteString("1\n")
		fmt.Fprintf(&edges, "%d %d\n", v, (v+1)%nodes)
	}
	files := map[string]string{
		"meta.txt": fmt.Sprintf("name=cut\nnum_nodes=%d\nnum_edges=%d\nnum_features=40\nnum_classes=2\n"+
			"feature_nnz=%d\nnum_train=1\nnum_val=1\nnum_test=1\nfeatures_complete=1\n", nodes, nodes, nnz),
		"edges.txt":       edges.String(),
		"features.txt.gz": feat.String(),
		"labels.txt":      labels.String(),
		"split.txt":       "train 0\nval 1\ntest 2\n",
	}
	dir := writePlanetoid(t, files)
	if _, err := dataset.LoadPlanetoid(dir); err != nil {
		t.Fatalf("the whole file: %v", err)
	}
	full := gzipBytes(t, feat.String())
	path := filepath.Join(dir, "features.txt.gz")
	for cut := 10; cut < len(full); cut++ {
		if err := os.WriteFile(path, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := dataset.LoadPlanetoid(dir)
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("cut after %d of %d bytes: error %v, want one saying the file is truncated", cut, len(full), err)
		}
	}
}
