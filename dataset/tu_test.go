package dataset

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tuValid is a dataset of three graphs: a triangle (nodes 1-3, both
// directions), one edge (4-5) and a lone node (6), with MUTAG-style labels.
var tuValid = map[string]string{
	"graph_indicator": "1\n1\n1\n2\n2\n3\n",
	"A":               "1, 2\n2, 1\n2, 3\n3, 2\n3,1\n1 ,3\n5, 4\n4, 5\n",
	"graph_labels":    "1\n-1\n1\n",
	"node_labels":     "0\n2\n0\n7\n7\n2\n",
	"node_attributes": "0.5, 1\n-2, 0\n1e-3,3\n4, 4\n5, 5\n6, 6\n",
}

// tuDir writes the files of a dataset named "toy" into a new directory.
func tuDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for suffix, text := range files {
		if err := os.WriteFile(filepath.Join(dir, "toy_"+suffix+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// with returns tuValid with some files replaced, and deleted where the
// replacement is "-".
func with(changes map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tuValid {
		out[k] = v
	}
	for k, v := range changes {
		if v == "-" {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

func TestLoadTU(t *testing.T) {
	for _, crlf := range []bool{false, true} {
		files := tuValid
		if crlf {
			files = map[string]string{}
			for k, v := range tuValid {
				files[k] = strings.ReplaceAll(v, "\n", " \r\n")
			}
		}
		ds, err := LoadTU(tuDir(t, files), "toy")
		if err != nil {
			t.Fatal(err)
		}
		if ds.Name != "toy" || len(ds.Graphs) != 3 || ds.NumNodes() != 6 {
			t.Fatalf("%s: %d graphs, %d nodes", ds.Name, len(ds.Graphs), ds.NumNodes())
		}
		wantEdges := [][2][]int32{
			{{0, 1, 1, 2, 2, 0}, {1, 0, 2, 1, 0, 2}},
			{{1, 0}, {0, 1}},
			{{}, {}},
		}
		for g, w := range wantEdges {
			src, dst := ds.Graphs[g].COO()
			if !slices.Equal(src, w[0]) || !slices.Equal(dst, w[1]) || !ds.Graphs[g].Homogeneous() {
				t.Errorf("graph %d: %v, edges %v -> %v, want %v -> %v", g, ds.Graphs[g], src, dst, w[0], w[1])
			}
		}
		if !slices.Equal(ds.Labels, []int32{1, 0, 1}) || ds.NumClasses != 2 || !slices.Equal(ds.ClassNames, []string{"-1", "1"}) {
			t.Errorf("labels %v, %d classes %v", ds.Labels, ds.NumClasses, ds.ClassNames)
		}
		if !slices.Equal(ds.NodeLabels, []int32{0, 1, 0, 2, 2, 1}) || ds.NumNodeLabels != 3 || !slices.Equal(ds.NodeLabelNames, []string{"0", "2", "7"}) {
			t.Errorf("node labels %v, %d %v", ds.NodeLabels, ds.NumNodeLabels, ds.NodeLabelNames)
		}
		f := ds.Features
		if f == nil || f.Rows != 6 || f.Cols != 2 || f.IsSparse() || !slices.Equal(f.Dense, []float32{0.5, 1, -2, 0, 1e-3, 3, 4, 4, 5, 5, 6, 6}) {
			t.Errorf("features %+v", f)
		}
		if len(ds.Train)+len(ds.Val)+len(ds.Test) != 0 {
			t.Errorf("a split was chosen: %v %v %v", ds.Train, ds.Val, ds.Test)
		}
	}
}

// TestLoadTUOptional checks that node labels and attributes are optional.
func TestLoadTUOptional(t *testing.T) {
	ds, err := LoadTU(tuDir(t, with(map[string]string{"node_labels": "-", "node_attributes": "-"})), "toy")
	if err != nil {
		t.Fatal(err)
	}
	if ds.NodeLabels != nil || ds.NumNodeLabels != 0 || ds.Features != nil || len(ds.Graphs) != 3 {
		t.Errorf("got node labels %v (%d), features %v, %d graphs", ds.NodeLabels, ds.NumNodeLabels, ds.Features, len(ds.Graphs))
	}
}

// TestLoadTUErrors checks that every defect is reported with its file and,
// where there is one, its line.
func TestLoadTUErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		changes map[string]string
		want    string
	}{
		{"no A", map[string]string{"A": "-"}, "toy_A.txt: no such file"},
		{"no indicator", map[string]string{"graph_indicator": "-"}, "toy_graph_indicator.txt: no such file"},
		{"no labels", map[string]string{"graph_labels": "-"}, "toy_graph_labels.txt: no such file"},
		{"empty indicator", map[string]string{"graph_indicator": ""}, "toy_graph_indicator.txt: no nodes"},
		{"first graph", map[string]string{"graph_indicator": "0\n1\n"}, "toy_graph_indicator.txt: line 1: graph 0: the first node must be in graph 1"},
		{"graph skipped", map[string]string{"graph_indicator": "1\n1\n1\n3\n3\n3\n"}, "toy_graph_indicator.txt: line 4: graph 3 after graph 1"},
		{"graph back", map[string]string{"graph_indicator": "1\n1\n2\n1\n2\n3\n"}, "toy_graph_indicator.txt: line 4: graph 1 after graph 2"},
		{"graph text", map[string]string{"graph_indicator": "1\nx\n"}, `toy_graph_indicator.txt: line 2: graph "x" is not an integer`},
		{"blank indicator", map[string]string{"graph_indicator": "1\n\n1\n"}, "toy_graph_indicator.txt: line 2: blank line"},
		{"edge format", map[string]string{"A": "1, 2\n1 2\n"}, `toy_A.txt: line 2: "1 2": want "i, j"`},
		{"edge zero", map[string]string{"A": "0, 1\n"}, "toy_A.txt: line 1: node 0 out of range [1, 6]"},
		{"edge high", map[string]string{"A": "1, 2\n2, 7\n"}, "toy_A.txt: line 2: node 7 out of range [1, 6]"},
		{"edge text", map[string]string{"A": "1, b\n"}, `toy_A.txt: line 1: node "b" is not an integer`},
		{"edge across", map[string]string{"A": "1, 2\n3, 4\n"}, "toy_A.txt: line 2: edge 3, 4 joins graph 1 and graph 2"},
		{"blank edge", map[string]string{"A": "1, 2\n\n"}, "toy_A.txt: line 2: blank line"},
		{"few labels", map[string]string{"graph_labels": "1\n2\n"}, "toy_graph_labels.txt: 2 lines, want one for each of the 3 graphs"},
		{"many labels", map[string]string{"graph_labels": "1\n2\n1\n2\n"}, "toy_graph_labels.txt: line 4: more lines than the 3 graphs"},
		{"label text", map[string]string{"graph_labels": "1\n1.5\n1\n"}, `toy_graph_labels.txt: line 2: label "1.5" is not an integer`},
		{"few node labels", map[string]string{"node_labels": "1\n1\n1\n1\n1\n"}, "toy_node_labels.txt: 5 lines, want one for each of the 6 nodes"},
		{"many node labels", map[string]string{"node_labels": "1\n1\n1\n1\n1\n1\n1\n"}, "toy_node_labels.txt: line 7: more lines than the 6 nodes"},
		{"attribute count", map[string]string{"node_attributes": "1, 2\n3\n"}, "toy_node_attributes.txt: line 2: 1 attributes, but line 1 has 2"},
		{"attribute NaN", map[string]string{"node_attributes": "1, nan\n"}, `toy_node_attributes.txt: line 1: attribute 2 "nan" is not a finite float32`},
		{"attribute range", map[string]string{"node_attributes": "1e39, 1\n"}, `toy_node_attributes.txt: line 1: attribute 1 "1e39" is not a finite float32`},
		{"attribute text", map[string]string{"node_attributes": "1, x\n"}, `toy_node_attributes.txt: line 1: attribute 2 "x" is not a number`},
		{"attribute empty", map[string]string{"node_attributes": "1,\n"}, `toy_node_attributes.txt: line 1: attribute 2 "" is not a number`},
		{"few attributes", map[string]string{"node_attributes": "1\n2\n"}, "toy_node_attributes.txt: 2 lines, want one for each of the 6 nodes"},
		{"many attributes", map[string]string{"node_attributes": "1\n2\n3\n4\n5\n6\n7\n"}, "toy_node_attributes.txt: line 7: more lines than the 6 nodes"},
	} {
		_, err := LoadTU(tuDir(t, with(c.changes)), "toy")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dataset: ") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := LoadTU(t.TempDir(), "../toy"); err == nil || !strings.Contains(err.Error(), `name "../toy" is not a file name prefix`) {
		t.Errorf("path as name: error %v", err)
	}
}

// memFiles are TU files held in memory, for the fuzz target.
type memFiles map[string]string

func (m memFiles) path(suffix string) string { return "mem_" + suffix + ".txt" }

func (m memFiles) open(path string) (io.ReadCloser, error) {
	suffix := strings.TrimSuffix(strings.TrimPrefix(path, "mem_"), ".txt")
	text, ok := m[suffix]
	if !ok {
		return nil, fmt.Errorf("dataset: open %s: %w", path, fs.ErrNotExist)
	}
	return io.NopCloser(strings.NewReader(text)), nil
}

// formatTU writes a dataset back in the TU format, in memory.
func formatTU(t *testing.T, ds *GraphDataset) memFiles {
	out := memFiles{}
	err := writeTU(ds, func(suffix string, write func(io.Writer) error) error {
		var b bytes.Buffer
		err := write(&b)
		out[suffix] = b.String()
		return err
	})
	if err != nil {
		t.Fatalf("writing back: %v", err)
	}
	return out
}

// FuzzReadTU checks that no files make the reader panic, and that an
// accepted dataset is consistent (sizes agree, labels in range, class
// names distinct and increasing) and reads back the same once written
// out again.
func FuzzReadTU(f *testing.F) {
	f.Add(tuValid["graph_indicator"], tuValid["A"], tuValid["graph_labels"], tuValid["node_labels"], tuValid["node_attributes"])
	f.Add("1\n2\n2\n", "2, 3\n3, 2\n1, 1\n", "0\n5\n", "", "")
	f.Add("1\n", "", "-3\n", "4\n", "1e-3, -7\n")
	f.Add("1\n1\n2\n", "1, 3\n", "1\n1\n", "x\n", "1,\n")
	f.Add("1\n2\n1\n", "1,2\n", "1\n2\n", "1\n1\n1\n", "nan\n1\n2\n")
	f.Fuzz(func(t *testing.T, ind, a, gl, nl, at string) {
		files := memFiles{"graph_indicator": ind, "A": a, "graph_labels": gl}
		if nl != "" {
			files["node_labels"] = nl
		}
		if at != "" {
			files["node_attributes"] = at
		}
		ds, err := readTU(files, "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "dataset: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		n := ds.NumNodes()
		if len(ds.Labels) != len(ds.Graphs) || len(ds.Graphs) == 0 || ds.NumClasses != len(ds.ClassNames) {
			t.Fatalf("%d graphs, %d labels, %d classes %v", len(ds.Graphs), len(ds.Labels), ds.NumClasses, ds.ClassNames)
		}
		for _, g := range ds.Graphs {
			if g.NumSrc() == 0 || !g.Homogeneous() {
				t.Fatalf("graph %v", g)
			}
		}
		for _, l := range ds.Labels {
			if l < 0 || int(l) >= ds.NumClasses {
				t.Fatalf("label %d of %d classes", l, ds.NumClasses)
			}
		}
		for _, names := range [][]string{ds.ClassNames, ds.NodeLabelNames} {
			for i := 1; i < len(names); i++ {
				a, _ := strconv.ParseInt(names[i-1], 10, 64)
				b, _ := strconv.ParseInt(names[i], 10, 64)
				if a >= b {
					t.Fatalf("names %v not increasing", names)
				}
			}
		}
		if ds.NodeLabels != nil && len(ds.NodeLabels) != n || ds.Features != nil && ds.Features.Rows*ds.Features.Cols != len(ds.Features.Dense) {
			t.Fatalf("%d nodes, %d node labels, features %+v", n, len(ds.NodeLabels), ds.Features)
		}
		back, err := readTU(formatTU(t, ds), "fuzz")
		if err != nil {
			t.Fatalf("reading the dataset written back: %v", err)
		}
		if !sameTU(ds, back) {
			t.Fatalf("the dataset written back reads differently")
		}
	})
}

// sameTU compares two loaded datasets.
func sameTU(a, b *GraphDataset) bool {
	if len(a.Graphs) != len(b.Graphs) || !slices.Equal(a.Labels, b.Labels) || !slices.Equal(a.ClassNames, b.ClassNames) ||
		!slices.Equal(a.NodeLabels, b.NodeLabels) || !slices.Equal(a.NodeLabelNames, b.NodeLabelNames) || (a.Features == nil) != (b.Features == nil) {
		return false
	}
	if a.Features != nil && (a.Features.Cols != b.Features.Cols || !slices.Equal(a.Features.Dense, b.Features.Dense)) {
		return false
	}
	for g := range a.Graphs {
		as, ad := a.Graphs[g].COO()
		bs, bd := b.Graphs[g].COO()
		if a.Graphs[g].NumSrc() != b.Graphs[g].NumSrc() || !slices.Equal(as, bs) || !slices.Equal(ad, bd) {
			return false
		}
	}
	return true
}

// TestWriteTU checks that a written dataset loads back the same, MiniGC's
// class names becoming numbers, and the writer's argument checks.
func TestWriteTU(t *testing.T) {
	ds, err := LoadTU(tuDir(t, tuValid), "toy")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteTU(dir, "again", ds); err != nil {
		t.Fatal(err)
	}
	back, err := LoadTU(dir, "again")
	if err != nil || !sameTU(ds, back) {
		t.Errorf("written dataset loads back differently (%v)", err)
	}
	gc, err := MiniGC(MiniGCConfig{Graphs: 16, MinNodes: 10, MaxNodes: 12, Val: 1, Test: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTU(dir, "minigc", gc); err != nil {
		t.Fatal(err)
	}
	back, err = LoadTU(dir, "minigc")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.ClassNames, []string{"0", "1", "2", "3", "4", "5", "6", "7"}) || !slices.Equal(back.Labels, gc.Labels) || back.NodeLabels != nil || back.Features != nil {
		t.Errorf("MiniGC loads back with classes %v, labels %v", back.ClassNames, back.Labels)
	}
	bad := *ds
	bad.Labels = []int32{0, 5, 1}
	for _, c := range []struct {
		name string
		ds   *GraphDataset
		want string
	}{
		{"nil", nil, "no graphs"},
		{"label", &bad, "class 5 of element 1 has no name"},
	} {
		if err := WriteTU(dir, "bad", c.ds); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if err := WriteTU(dir, "a/b", ds); err == nil {
		t.Errorf("a path as name was accepted")
	}
}
