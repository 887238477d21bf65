package dataset_test

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// tinyOGB is a valid five-node dataset in OGB's raw layout, written as the
// files OGB's zips hold (no headers); the error tests replace one file at a
// time.
var tinyOGB = map[string]string{
	"raw/num-node-list.csv.gz":  "5\n",
	"raw/num-edge-list.csv.gz":  "4\n",
	"raw/edge.csv.gz":           "0,1\n1,2\n3,0\n4,4\n",
	"raw/node-feat.csv.gz":      "0.5,-1\n0,0\n1e-3,2.25\n-0.0,7\n3,4\n",
	"raw/node-label.csv.gz":     "0\n2\n1\n2.0\n0\n",
	"raw/node_year.csv.gz":      "2010\n2011\n2012\n2013\n2014\n", // an extra file, ignored
	"split/time/train.csv.gz":   "3\n0\n",
	"split/time/valid.csv.gz":   "1\n",
	"split/time/test.csv.gz":    "4\n2\n",
	"mapping/README.md":         "ignored",
	"processed/data_processed":  "ignored",
	"RELEASE_v1.txt":            "ignored",
	"split/time/split_dict.txt": "ignored",
}

// writeOGB writes files (gzipping the .gz ones) into a new directory named
// name and returns it.
func writeOGB(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for rel, text := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		data := []byte(text)
		if strings.HasSuffix(rel, ".gz") {
			data = gzipBytes(t, text)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// with returns files with the given entries replaced; a "" value removes
// the file.
func with(files map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func TestLoadOGBTiny(t *testing.T) {
	t.Parallel()
	dir := writeOGB(t, "tiny", tinyOGB)
	if !dataset.IsOGB(dir) || dataset.IsOGB(filepath.Join(dir, "raw")) {
		t.Errorf("IsOGB: want true for the dataset folder only")
	}
	d, err := dataset.LoadOGB(dir, dataset.OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "tiny" || d.NumClasses != 3 {
		t.Errorf("name %q, classes %d; want tiny, 3", d.Name, d.NumClasses)
	}
	src, dst := d.Graph.COO()
	if d.Graph.NumSrc() != 5 || d.Graph.NumDst() != 5 ||
		!slices.Equal(src, []int32{0, 1, 3, 4}) || !slices.Equal(dst, []int32{1, 2, 0, 4}) {
		t.Errorf("graph %v: src %v dst %v", d.Graph, src, dst)
	}
	f := d.Features
	want := []float32{0.5, -1, 0, 0, 1e-3, 2.25, float32(math.Copysign(0, -1)), 7, 3, 4}
	if f.IsSparse() || f.Rows != 5 || f.Cols != 2 || !slices.Equal(f.Dense, want) {
		t.Errorf("features %dx%d sparse %t %v, want dense 5x2 %v", f.Rows, f.Cols, f.IsSparse(), f.Dense, want)
	}
	if !slices.Equal(d.Labels, []int32{0, 2, 1, 2, 0}) {
		t.Errorf("labels %v", d.Labels)
	}
	if !slices.Equal(d.Train, []int32{0, 3}) || !slices.Equal(d.Val, []int32{1}) || !slices.Equal(d.Test, []int32{2, 4}) {
		t.Errorf("split %v %v %v, want sorted [0 3] [1] [2 4]", d.Train, d.Val, d.Test)
	}

	// Declared options: a class count above the largest label, a name, the
	// scheme, and inverse edges interleaved as OGB's loaders order them.
	d, err = dataset.LoadOGB(dir, dataset.OGBOptions{Name: "x", Split: "time", NumClasses: 7, AddInverseEdges: true})
	if err != nil {
		t.Fatal(err)
	}
	src, dst = d.Graph.COO()
	if d.Name != "x" || d.NumClasses != 7 ||
		!slices.Equal(src, []int32{0, 1, 1, 2, 3, 0, 4, 4}) || !slices.Equal(dst, []int32{1, 0, 2, 1, 0, 3, 4, 4}) {
		t.Errorf("name %q classes %d src %v dst %v", d.Name, d.NumClasses, src, dst)
	}
}

func TestLoadOGBEmpty(t *testing.T) {
	t.Parallel()
	dir := writeOGB(t, "empty", map[string]string{
		"raw/num-node-list.csv.gz": "0\n", "raw/num-edge-list.csv.gz": "0\n", "raw/edge.csv.gz": "",
		"raw/node-feat.csv.gz": "", "raw/node-label.csv.gz": "",
		"split/s/train.csv.gz": "", "split/s/valid.csv.gz": "", "split/s/test.csv.gz": "",
	})
	d, err := dataset.LoadOGB(dir, dataset.OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Graph.NumNodes() != 0 || d.Graph.NumEdges() != 0 || d.Features.Rows != 0 || d.NumClasses != 0 ||
		len(d.Labels) != 0 || d.Train == nil || len(d.Train)+len(d.Val)+len(d.Test) != 0 {
		t.Errorf("empty dataset loaded as %+v", d)
	}
}

func TestLoadOGBErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  dataset.OGBOptions
		files map[string]string
		file  string // the file the error must name ("" for none)
		want  string
	}{
		{"missing edges", dataset.OGBOptions{}, with(tinyOGB, "raw/edge.csv.gz", ""), "", "missing"},
		{"missing features", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", ""), "", "missing"},
		{"node count text", dataset.OGBOptions{}, with(tinyOGB, "raw/num-node-list.csv.gz", "five\n"), "raw/num-node-list.csv.gz", "line 1: \"five\": want one integer"},
		{"node count empty", dataset.OGBOptions{}, with(tinyOGB, "raw/num-node-list.csv.gz", "\n"), "raw/num-node-list.csv.gz", "line 1"},
		{"node count file empty", dataset.OGBOptions{}, with(tinyOGB, "raw/num-node-list.csv.gz", " "), "raw/num-node-list.csv.gz", "line 1"},
		{"several graphs", dataset.OGBOptions{}, with(tinyOGB, "raw/num-node-list.csv.gz", "3\n2\n"), "raw/num-node-list.csv.gz", "line 2: a second row"},
		{"edge count huge", dataset.OGBOptions{}, with(tinyOGB, "raw/num-edge-list.csv.gz", "99999999999\n"), "raw/num-edge-list.csv.gz", "want one integer"},
		{"edge count unheld", dataset.OGBOptions{}, with(tinyOGB, "raw/num-edge-list.csv.gz", "2000000000\n"), "raw/edge.csv.gz", "cannot be held"},
		{"inverse too many", dataset.OGBOptions{AddInverseEdges: true}, with(tinyOGB, "raw/num-edge-list.csv.gz", "2000000000\n"), "raw/num-edge-list.csv.gz", "inverse"},
		{"edge truncated", dataset.OGBOptions{}, with(tinyOGB, "raw/num-edge-list.csv.gz", "5\n"), "raw/edge.csv.gz", "truncated: 4 of the 5 rows num-edge-list.csv.gz declares"},
		{"edge extra", dataset.OGBOptions{}, with(tinyOGB, "raw/num-edge-list.csv.gz", "3\n"), "raw/edge.csv.gz", "line 4: more than the 3 rows"},
		{"edge space", dataset.OGBOptions{}, with(tinyOGB, "raw/edge.csv.gz", "0,1\n1 2\n3,0\n4,4\n"), "raw/edge.csv.gz", "line 2: \"1 2\": want two comma-separated"},
		{"edge three columns", dataset.OGBOptions{}, with(tinyOGB, "raw/edge.csv.gz", "0,1\n1,2,3\n3,0\n4,4\n"), "raw/edge.csv.gz", "line 2"},
		{"edge range", dataset.OGBOptions{}, with(tinyOGB, "raw/edge.csv.gz", "0,1\n1,2\n3,5\n4,4\n"), "raw/edge.csv.gz", "line 3: \"3,5\": destination 5 out of range [0, num_nodes=5)"},
		{"edge negative", dataset.OGBOptions{}, with(tinyOGB, "raw/edge.csv.gz", "-1,1\n1,2\n3,0\n4,4\n"), "raw/edge.csv.gz", "line 1: \"-1,1\": source \"-1\" is not"},
		{"feature columns", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", "0.5,-1\n0,0\n1e-3\n-0.0,7\n3,4\n"), "raw/node-feat.csv.gz", "line 3: 1 columns, want 2"},
		{"feature extra columns", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", "0.5,-1\n0,0\n1,2,3,4\n-0.0,7\n3,4\n"), "raw/node-feat.csv.gz", "line 3: 4 columns, want 2"},
		{"feature nan", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", "0.5,-1\n0,nan\n1,2\n-0.0,7\n3,4\n"), "raw/node-feat.csv.gz", "line 2: column 2: \"nan\" is not a finite float32"},
		{"feature overflow", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", "0.5,-1\n0,1e39\n1,2\n-0.0,7\n3,4\n"), "raw/node-feat.csv.gz", "not a finite float32"},
		{"feature text", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", "0.5,-1\n0,x\n1,2\n-0.0,7\n3,4\n"), "raw/node-feat.csv.gz", "line 2: column 2: \"x\" is not a number"},
		{"feature rows", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", "0.5,-1\n0,0\n"), "raw/node-feat.csv.gz", "truncated: 2 of the 5 rows num-node-list.csv.gz declares"},
		{"feature extra rows", dataset.OGBOptions{}, with(tinyOGB, "raw/node-feat.csv.gz", tinyOGB["raw/node-feat.csv.gz"]+"1,1\n"), "raw/node-feat.csv.gz", "line 6: more than the 5 rows"},
		{"label fraction", dataset.OGBOptions{}, with(tinyOGB, "raw/node-label.csv.gz", "0\n2\n1.5\n2\n0\n"), "raw/node-label.csv.gz", "line 3: label \"1.5\" is not an integer"},
		{"label nan", dataset.OGBOptions{}, with(tinyOGB, "raw/node-label.csv.gz", "0\n2\nnan\n2\n0\n"), "raw/node-label.csv.gz", "line 3"},
		{"label range", dataset.OGBOptions{NumClasses: 2}, tinyOGB, "raw/node-label.csv.gz", "line 2: label \"2\" is not an integer in [0, num_classes=2)"},
		{"label multitask", dataset.OGBOptions{}, with(tinyOGB, "raw/node-label.csv.gz", "0,1\n"), "raw/node-label.csv.gz", "line 1: \"0,1\": several label columns"},
		{"label rows", dataset.OGBOptions{}, with(tinyOGB, "raw/node-label.csv.gz", "0\n"), "raw/node-label.csv.gz", "truncated: 1 of the 5 rows"},
		{"split range", dataset.OGBOptions{}, with(tinyOGB, "split/time/valid.csv.gz", "5\n"), "split/time/valid.csv.gz", "line 1: node 5 out of range"},
		{"split overlap", dataset.OGBOptions{}, with(tinyOGB, "split/time/test.csv.gz", "2\n3\n"), "split/time/test.csv.gz", "line 2: node 3 is also in train"},
		{"split repeat", dataset.OGBOptions{}, with(tinyOGB, "split/time/train.csv.gz", "3\n0\n3\n"), "split/time/train.csv.gz", "line 3: node 3 is listed twice"},
		{"split text", dataset.OGBOptions{}, with(tinyOGB, "split/time/train.csv.gz", "3\nzero\n"), "split/time/train.csv.gz", "line 2: \"zero\" is not a node ID"},
		{"split missing", dataset.OGBOptions{}, with(tinyOGB, "split/time/test.csv.gz", ""), "", "missing"},
		{"split scheme absent", dataset.OGBOptions{Split: "random"}, tinyOGB, "", "missing"},
		{"split scheme path", dataset.OGBOptions{Split: "../time"}, tinyOGB, "", "not a folder name"},
		{"split schemes", dataset.OGBOptions{}, with(tinyOGB, "split/other/train.csv.gz", "1\n"), "split", "several split schemes (other, time)"},
		{"classes negative", dataset.OGBOptions{NumClasses: -1}, tinyOGB, "", "NumClasses -1"},
	} {
		dir := writeOGB(t, "tiny", tc.files)
		_, err := dataset.LoadOGB(dir, tc.opts)
		prefix := "dataset: "
		if tc.file != "" {
			prefix += filepath.Join(dir, tc.file) + ": "
		}
		if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want prefix %q and %q", tc.name, err, prefix, tc.want)
		}
	}
}

func TestLoadOGBCorruptGzip(t *testing.T) {
	t.Parallel()
	dir := writeOGB(t, "tiny", tinyOGB)
	path := filepath.Join(dir, "raw", "node-feat.csv.gz")
	full := gzipBytes(t, tinyOGB["raw/node-feat.csv.gz"])
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not gzip", []byte(tinyOGB["raw/node-feat.csv.gz"]), "gzip: invalid header"},
		{"empty", nil, "truncated: no complete gzip header"},
		{"cut header", full[:5], "truncated: no complete gzip header"},
		{"cut stream", full[:len(full)-12], "truncated after line"},
	} {
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := dataset.LoadOGB(dir, dataset.OGBOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), "dataset: "+path+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestLoadOGBDeclaredSizeNotAllocated checks that a count the files cannot
// hold is refused before its memory is taken.
func TestLoadOGBDeclaredSizeNotAllocated(t *testing.T) {
	dir := writeOGB(t, "tiny", with(tinyOGB, "raw/num-node-list.csv.gz", "2000000000\n", "raw/edge.csv.gz", "0,1\n1,2\n3,0\n4,4\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := dataset.LoadOGB(dir, dataset.OGBOptions{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "node-feat.csv.gz: 2000000000 rows (num-node-list.csv.gz) cannot be held") {
		t.Errorf("error %v, want the feature file unable to hold 2e9 rows", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d bytes before refusing", got)
	}
}

func TestOGBOptionsFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir  string
		want dataset.OGBOptions
		ok   bool
	}{
		{"/data/ogbn_arxiv", dataset.OGBOptions{Name: "ogbn-arxiv", Split: "time", NumClasses: 40}, true},
		{"dataset/arxiv/", dataset.OGBOptions{Name: "ogbn-arxiv", Split: "time", NumClasses: 40}, true},
		{"ogbn-products", dataset.OGBOptions{Name: "ogbn-products", Split: "sales_ranking", NumClasses: 47, AddInverseEdges: true}, true},
		{"/tmp/products", dataset.OGBOptions{Name: "ogbn-products", Split: "sales_ranking", NumClasses: 47, AddInverseEdges: true}, true},
		{"/tmp/planted_big", dataset.OGBOptions{Name: "planted_big"}, false},
	} {
		got, ok := dataset.OGBOptionsFor(tc.dir)
		if got != tc.want || ok != tc.ok {
			t.Errorf("OGBOptionsFor(%q) = %+v, %t; want %+v, %t", tc.dir, got, ok, tc.want, tc.ok)
		}
	}
}

func plantedForOGB(t *testing.T) *dataset.Dataset {
	t.Helper()
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features, cfg.MeanDegree = 500, 6, 6
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestWriteOGBRoundTrip(t *testing.T) {
	t.Parallel()
	ds := plantedForOGB(t)
	dir := filepath.Join(t.TempDir(), "planted")
	if err := dataset.WriteOGB(dir, ds, dataset.OGBWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !dataset.IsOGB(dir) {
		t.Fatal("IsOGB false on written files")
	}
	got, err := dataset.LoadOGB(dir, dataset.OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSameDataset(t, got, ds)

	// Sparse features are written as dense rows.
	sparse := *ds
	sparse.Features = &dataset.Features{Rows: 500, Cols: 3, Indptr: make([]int64, 501), Indices: []int32{2, 0}, Values: []float32{0.25, -3}}
	for r := 7; r <= 500; r++ {
		sparse.Features.Indptr[r] = 1
		if r > 9 {
			sparse.Features.Indptr[r] = 2
		}
	}
	if err := dataset.WriteOGB(dir, &sparse, dataset.OGBWriteOptions{Split: "random"}); err != nil {
		t.Fatal(err)
	}
	got, err = dataset.LoadOGB(dir, dataset.OGBOptions{Split: "random"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Features.Dense, sparse.Features.ToDense()) {
		t.Errorf("sparse features read back differently")
	}
}

func TestWriteOGBUndirected(t *testing.T) {
	t.Parallel()
	ds := plantedForOGB(t)
	dir := filepath.Join(t.TempDir(), "planted")
	if err := dataset.WriteOGB(dir, ds, dataset.OGBWriteOptions{Split: "sales_ranking", Undirected: true}); err != nil {
		t.Fatal(err)
	}
	got, err := dataset.LoadOGB(dir, dataset.OGBOptions{AddInverseEdges: true})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := got.Graph.COO()
	if len(src) != ds.Graph.NumEdges() {
		t.Fatalf("%d edges read back, want %d", len(src), ds.Graph.NumEdges())
	}
	wantSrc, wantDst := ds.Graph.COO()
	key := func(s, d []int32) []uint64 {
		k := make([]uint64, len(s))
		for e := range s {
			k[e] = uint64(s[e])<<32 | uint64(d[e])
		}
		slices.Sort(k)
		return k
	}
	if !slices.Equal(key(src, dst), key(wantSrc, wantDst)) {
		t.Errorf("the edge sets differ")
	}
	for e := 0; e < len(src); e += 2 {
		if src[e] >= dst[e] || src[e+1] != dst[e] || dst[e+1] != src[e] {
			t.Fatalf("edges %d, %d: %d->%d, %d->%d; want u<v then its inverse", e, e+1, src[e], dst[e], src[e+1], dst[e+1])
		}
	}

	// A graph that is not symmetric cannot be written undirected.
	oneWay := writeOGB(t, "x", with(tinyOGB, "raw/edge.csv.gz", "0,1\n1,2\n3,0\n4,3\n"))
	asym, err := dataset.LoadOGB(oneWay, dataset.OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteOGB(t.TempDir(), asym, dataset.OGBWriteOptions{Undirected: true}); err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Errorf("asymmetric graph: error %v", err)
	}
	loop, err := dataset.LoadOGB(writeOGB(t, "x", tinyOGB), dataset.OGBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteOGB(t.TempDir(), loop, dataset.OGBWriteOptions{Undirected: true}); err == nil || !strings.Contains(err.Error(), "self-loop") {
		t.Errorf("self-loop: error %v", err)
	}
}

func TestWriteOGBInvalid(t *testing.T) {
	t.Parallel()
	ds := plantedForOGB(t)
	bad := *ds
	bad.Labels = slices.Clone(ds.Labels)
	bad.Labels[3] = int32(ds.NumClasses)
	overlap := *ds
	overlap.Test = append([]int32{ds.Train[0]}, ds.Test...)
	for name, tc := range map[string]struct {
		ds   *dataset.Dataset
		opts dataset.OGBWriteOptions
		want string
	}{
		"label":  {&bad, dataset.OGBWriteOptions{}, "node 3 has label 7"},
		"split":  {&overlap, dataset.OGBWriteOptions{}, "in two sets"},
		"scheme": {ds, dataset.OGBWriteOptions{Split: "a/b"}, "not a folder name"},
		"nil":    {&dataset.Dataset{}, dataset.OGBWriteOptions{}, "needs a graph"},
	} {
		dir := t.TempDir()
		if err := dataset.WriteOGB(dir, tc.ds, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: wrote %d entries before failing", name, len(entries))
		}
	}
}

// checkSameDataset compares everything LoadOGB reads back.
func checkSameDataset(t *testing.T, got, want *dataset.Dataset) {
	t.Helper()
	gs, gd := got.Graph.COO()
	ws, wd := want.Graph.COO()
	if got.Graph.NumNodes() != want.Graph.NumNodes() || !slices.Equal(gs, ws) || !slices.Equal(gd, wd) {
		t.Errorf("graph %v, want %v (or different COO lists)", got.Graph, want.Graph)
	}
	if got.Features.Rows != want.Features.Rows || got.Features.Cols != want.Features.Cols ||
		!slices.Equal(got.Features.ToDense(), want.Features.ToDense()) {
		t.Errorf("features differ")
	}
	if got.NumClasses != want.NumClasses || !slices.Equal(got.Labels, want.Labels) {
		t.Errorf("labels differ (classes %d, want %d)", got.NumClasses, want.NumClasses)
	}
	if !slices.Equal(got.Train, want.Train) || !slices.Equal(got.Val, want.Val) || !slices.Equal(got.Test, want.Test) {
		t.Errorf("splits differ")
	}
}
