package dataset

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadTUHugeValues checks that tiny TU files naming huge node IDs,
// graph numbers or labels are refused, or read, without allocating in
// proportion to the values: the format declares no sizes, every count is a
// count of lines.
func TestLoadTUHugeValues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // "" for no error
	}{
		{"huge node ID", with(map[string]string{"A": "1, 2147483647\n"}), "toy_A.txt: line 1: node 2147483647 out of range [1, 6]"},
		{"huge node ID 64-bit", with(map[string]string{"A": "9223372036854775807, 1\n"}), "out of range [1, 6]"},
		{"huge first graph", with(map[string]string{"graph_indicator": "2147483647\n"}), "toy_graph_indicator.txt: line 1: graph 2147483647: the first node must be in graph 1"},
		{"huge graph jump", with(map[string]string{"graph_indicator": "1\n2147483647\n"}), "graphs must be numbered 1, 2, ..."},
		{"huge labels", with(map[string]string{"graph_labels": "9223372036854775807\n-9223372036854775808\n1\n"}), ""},
	} {
		var err error
		got := allocated(func() { _, err = LoadTU(tuDir(t, tc.files), "toy") })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if got > 1<<20 {
			t.Errorf("%s: allocated %d bytes for files of a few bytes", tc.name, got)
		}
	}
}

// TestLoadTUMemoryPerLine checks that memory grows with the files' lines, by
// a bounded factor, in the worst case of one graph per node.
func TestLoadTUMemoryPerLine(t *testing.T) {
	const graphs = 20000
	var ind, labels strings.Builder
	for g := 1; g <= graphs; g++ {
		fmt.Fprintf(&ind, "%d\n", g)
		labels.WriteString("1\n")
	}
	dir := tuDir(t, map[string]string{"graph_indicator": ind.String(), "A": "1, 1\n", "graph_labels": labels.String()})
	size := ind.Len() + labels.Len() + len("1, 1\n")
	var ds *GraphDataset
	var err error
	got := allocated(func() { ds, err = LoadTU(dir, "toy") })
	if err != nil || len(ds.Graphs) != graphs {
		t.Fatalf("LoadTU: %v", err)
	}
	t.Logf("%d bytes of files: %d bytes allocated (%.0f per byte)", size, got, float64(got)/float64(size))
	if got > 200*uint64(size) {
		t.Errorf("%d bytes of files took %d bytes", size, got)
	}
}
