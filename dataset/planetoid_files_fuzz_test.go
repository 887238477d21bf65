package dataset

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzFile writes data to a new file named name and returns its path.
func fuzzFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FuzzPlanetoidMeta checks that no meta.txt makes readPlanetoidMeta panic,
// and that accepted counts are consistent and bounded as documented.
func FuzzPlanetoidMeta(f *testing.F) {
	f.Add("name=tiny\nnum_nodes=4\nnum_edges=4\nnum_features=3\nnum_classes=2\n" +
		"feature_nnz=4\nnum_train=1\nnum_val=1\nnum_test=2\nfeatures_complete=1\n")
	f.Add("name=x\nnum_nodes=0\nnum_edges=0\nnum_features=0\nnum_classes=0\n" +
		"feature_nnz=0\nnum_train=0\nnum_val=0\nnum_test=0\nfeatures_complete=0\n")
	f.Add("name = big \n num_nodes=2147483647\nnum_edges=9\nnum_features=2147483647\nnum_classes=2\n" +
		"feature_nnz=4\nnum_train=1\nnum_val=1\nnum_test=2\nfeatures_complete=1\n")
	f.Add("num_nodes=4\nnum_nodes=4\n")
	f.Add("=\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := readPlanetoidMeta(fuzzFile(t, "meta.txt", []byte(text)))
		if err != nil {
			return
		}
		for _, v := range []int{m.nodes, m.edges, m.features, m.classes, m.nnz, m.train, m.val, m.test} {
			if v < 0 {
				t.Fatalf("negative count in %+v", m)
			}
		}
		switch {
		case m.name == "" || strings.TrimSpace(m.name) != m.name:
			t.Fatalf("name %q", m.name)
		case m.train+m.val+m.test > m.nodes:
			t.Fatalf("splits of %d+%d+%d nodes out of %d", m.train, m.val, m.test, m.nodes)
		case uint64(m.nnz) > uint64(m.nodes)*uint64(m.features):
			t.Fatalf("%d non-zeros in %dx%d", m.nnz, m.nodes, m.features)
		case m.features > max(m.nnz, minPlanetoidLimit) || m.classes > max(m.nodes, minPlanetoidLimit):
			t.Fatalf("%d features for %d non-zeros, %d classes for %d nodes", m.features, m.nnz, m.classes, m.nodes)
		case m.featuresComplete > 1:
			t.Fatalf("features_complete=%d", m.featuresComplete)
		}
	})
}

// FuzzPlanetoidFeatures checks that no features.txt.gz makes
// readPlanetoidFeatures panic: the text is gzip'd, and also cut to cut
// bytes when that is shorter. An accepted file gives a valid CSR matrix of
// the declared size; a cut file is refused, as truncated when the whole one
// is accepted.
func FuzzPlanetoidFeatures(f *testing.F) {
	f.Add("0:1 2:0.5\n\n1:1\n0:2\n", uint8(4), uint8(3), uint16(4), uint16(1000))
	f.Add("0:1 2:0.5\n\n1:1\n0:2\n", uint8(4), uint8(3), uint16(4), uint16(30))
	f.Add("0:1 1:1 2:1\n", uint8(1), uint8(3), uint16(3), uint16(1000))
	f.Add("1:1 0:1\n", uint8(1), uint8(3), uint16(2), uint16(1000))
	f.Add("", uint8(0), uint8(0), uint16(0), uint16(1000))
	f.Fuzz(func(t *testing.T, text string, nodes, cols uint8, nnz uint16, cut uint16) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(text))
		zw.Close()
		data := buf.Bytes()
		m := planetoidMeta{nodes: int(nodes), features: int(cols), nnz: int(nnz)}
		feat, err := readPlanetoidFeatures(fuzzFile(t, "features.txt.gz", data), m)
		if int(cut) < len(data) {
			_, cutErr := readPlanetoidFeatures(fuzzFile(t, "cut.txt.gz", data[:cut]), m)
			if cutErr == nil || err == nil && !strings.Contains(cutErr.Error(), "truncated") {
				t.Fatalf("a valid file cut to %d bytes: error %v, want one saying it is truncated", cut, cutErr)
			}
		}
		if err != nil {
			return
		}
		if feat.Rows != m.nodes || feat.Cols != m.features || len(feat.Indptr) != m.nodes+1 || feat.Indptr[0] != 0 ||
			feat.Indptr[m.nodes] != int64(m.nnz) || len(feat.Indices) != m.nnz || len(feat.Values) != m.nnz {
			t.Fatalf("%dx%d matrix with indptr %v, %d indices, %d values; meta %+v", feat.Rows, feat.Cols, feat.Indptr, len(feat.Indices), len(feat.Values), m)
		}
		for r := range m.nodes {
			lo, hi := feat.Indptr[r], feat.Indptr[r+1]
			if hi < lo {
				t.Fatalf("indptr %v decreases", feat.Indptr)
			}
			for k := lo; k < hi; k++ {
				c, v := feat.Indices[k], feat.Values[k]
				if c < 0 || int(c) >= m.features || k > lo && c <= feat.Indices[k-1] {
					t.Fatalf("row %d: columns %v", r, feat.Indices[lo:hi])
				}
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("row %d: value %v", r, v)
				}
			}
		}
	})
}

// FuzzPlanetoidLabels checks that no labels.txt makes readPlanetoidLabels
// panic, and that accepted labels are one per node, in range.
func FuzzPlanetoidLabels(f *testing.F) {
	f.Add("0\n1\n1\n0\n", uint8(4), uint8(2))
	f.Add("0\n2\n", uint8(2), uint8(2))
	f.Add(" 1 \n\n", uint8(2), uint8(2))
	f.Add("-1\n", uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, text string, nodes, classes uint8) {
		m := planetoidMeta{nodes: int(nodes), classes: int(classes)}
		labels, err := readPlanetoidLabels(fuzzFile(t, "labels.txt", []byte(text)), m)
		if err != nil {
			return
		}
		if len(labels) != m.nodes {
			t.Fatalf("%d labels for %d nodes", len(labels), m.nodes)
		}
		for v, c := range labels {
			if c < 0 || int(c) >= m.classes {
				t.Fatalf("node %d: label %d of %d classes", v, c, m.classes)
			}
		}
	})
}

// FuzzPlanetoidSplit checks that no split.txt makes readPlanetoidSplit
// panic, and that accepted splits have the declared sizes and are
// ascending, disjoint and in range.
func FuzzPlanetoidSplit(f *testing.F) {
	f.Add("train 0\nval 1\ntest 2 3\n", uint8(4), uint8(1), uint8(1), uint8(2))
	f.Add("train\nval\ntest\n", uint8(0), uint8(0), uint8(0), uint8(0))
	f.Add("train 0\nval 0\ntest 1\n", uint8(2), uint8(1), uint8(1), uint8(1))
	f.Add("train 1 0\nval\ntest\nmore\n", uint8(2), uint8(2), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, text string, nodes, train, val, test uint8) {
		m := planetoidMeta{nodes: int(nodes), train: int(train), val: int(val), test: int(test)}
		split, err := readPlanetoidSplit(fuzzFile(t, "split.txt", []byte(text)), m)
		if err != nil {
			return
		}
		seen := map[int32]bool{}
		for k, want := range []int{m.train, m.val, m.test} {
			ids := split[k]
			if len(ids) != want {
				t.Fatalf("split %d has %d IDs, want %d", k, len(ids), want)
			}
			for i, v := range ids {
				if v < 0 || int(v) >= m.nodes || seen[v] || i > 0 && v <= ids[i-1] {
					t.Fatalf("splits %v not ascending, disjoint and in [0, %d)", split, m.nodes)
				}
				seen[v] = true
			}
		}
	})
}

// FuzzPlanetoidEdges checks that no edges.txt makes readPlanetoidEdges
// panic, and that an accepted graph has the declared node and edge counts.
func FuzzPlanetoidEdges(f *testing.F) {
	f.Add("0 1\n1 0\n2 3\n3 2\n", uint8(4), uint8(4))
	f.Add("0 4\n", uint8(4), uint8(1))
	f.Add("# c\n0,1\n", uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, text string, nodes, edges uint8) {
		m := planetoidMeta{nodes: int(nodes), edges: int(edges)}
		g, err := readPlanetoidEdges(fuzzFile(t, "edges.txt", []byte(text)), m)
		if err != nil {
			return
		}
		if g.NumSrc() != m.nodes || g.NumDst() != m.nodes || g.NumEdges() != m.edges {
			t.Fatalf("graph %v, want %d nodes and %d edges", g, m.nodes, m.edges)
		}
	})
}
