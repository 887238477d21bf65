package graph_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gnngo/gnn/graph"
)

// ioCheckGraph fails t unless g has the given node counts and COO lists.
func ioCheckGraph(t *testing.T, name string, g *graph.Graph, numSrc, numDst int, src, dst []int32) {
	t.Helper()
	if g.NumSrc() != numSrc || g.NumDst() != numDst {
		t.Errorf("%s: nodes (src %d, dst %d), want (%d, %d)", name, g.NumSrc(), g.NumDst(), numSrc, numDst)
	}
	gs, gd := g.COO()
	if !slices.Equal(gs, src) || !slices.Equal(gd, dst) {
		t.Errorf("%s: COO\nsrc %v\ndst %v\nwant\nsrc %v\ndst %v", name, gs, gd, src, dst)
	}
}

func TestReadEdgeList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		in       string
		opts     graph.EdgeListOptions
		ns, nd   int
		src, dst []int32
	}{
		{name: "empty", in: "", src: []int32{}, dst: []int32{}},
		{name: "only comments", in: "# nothing\n\n  \n", src: []int32{}, dst: []int32{}},
		{name: "spaces", in: "0 1\n1 2\n", ns: 3, nd: 3, src: []int32{0, 1}, dst: []int32{1, 2}},
		{name: "no final newline", in: "0 1\n2 0", ns: 3, nd: 3, src: []int32{0, 2}, dst: []int32{1, 0}},
		{name: "tabs and runs", in: "\t0 \t 4  \n", ns: 5, nd: 5, src: []int32{0}, dst: []int32{4}},
		{name: "crlf", in: "0 1\r\n1 0\r\n", ns: 2, nd: 2, src: []int32{0, 1}, dst: []int32{1, 0}},
		{name: "csv", in: "0,1\n1 , 2\n2,\t0\n", ns: 3, nd: 3, src: []int32{0, 1, 2}, dst: []int32{1, 2, 0}},
		{name: "plus sign", in: "+1 2\n", ns: 3, nd: 3, src: []int32{1}, dst: []int32{2}},
		{name: "self loop and multi-edge", in: "1 1\n0 1\n0 1\n", ns: 2, nd: 2, src: []int32{1, 0, 0}, dst: []int32{1, 1, 1}},
		{
			name: "comments", in: "# SNAP style\n0 1 # trailing\n\n#1 2\n3 0\n",
			ns: 4, nd: 4, src: []int32{0, 3}, dst: []int32{1, 0},
		},
		{
			name: "header", in: "# exported\nsrc,dst\n0,1\n", opts: graph.EdgeListOptions{Header: true},
			ns: 2, nd: 2, src: []int32{0}, dst: []int32{1},
		},
		{
			name: "header only", in: "from to\n", opts: graph.EdgeListOptions{Header: true},
			src: []int32{}, dst: []int32{},
		},
		{
			name: "declared nodes", in: "0 1\n", opts: graph.EdgeListOptions{NumNodes: 10},
			ns: 10, nd: 10, src: []int32{0}, dst: []int32{1},
		},
		{
			name: "bipartite inferred", in: "0 5\n2 0\n", opts: graph.EdgeListOptions{Bipartite: true},
			ns: 3, nd: 6, src: []int32{0, 2}, dst: []int32{5, 0},
		},
		{
			name: "bipartite declared", in: "0 5\n2 0\n", opts: graph.EdgeListOptions{Bipartite: true, NumSrc: 4, NumDst: 7},
			ns: 4, nd: 7, src: []int32{0, 2}, dst: []int32{5, 0},
		},
		{
			name: "bipartite half declared", in: "0 5\n", opts: graph.EdgeListOptions{Bipartite: true, NumSrc: 4},
			ns: 4, nd: 6, src: []int32{0}, dst: []int32{5},
		},
		{
			name: "bipartite no edges", in: "", opts: graph.EdgeListOptions{Bipartite: true, NumDst: 2},
			ns: 0, nd: 2, src: []int32{}, dst: []int32{},
		},
	} {
		g, err := graph.ReadEdgeList(strings.NewReader(tc.in), tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		ioCheckGraph(t, tc.name, g, tc.ns, tc.nd, tc.src, tc.dst)
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	t.Parallel()
	twelve := strings.Repeat("# comment\n", 5) + strings.Repeat("0 1\n\n", 3) + "3 x\n"
	for _, tc := range []struct {
		name string
		in   string
		opts graph.EdgeListOptions
		want string // the whole message when it starts with "graph: ", else a substring
	}{
		{name: "line number", in: twelve, want: `graph: line 12: "3 x": destination "x" is not an integer`},
		{name: "bad source", in: "x 3\n", want: `graph: line 1: "x 3": source "x" is not an integer`},
		{name: "float id", in: "1.0 3\n", want: `source "1.0" is not an integer`},
		{name: "sign only", in: "- 3\n", want: `source "-" is not an integer`},
		{name: "negative source", in: "0 1\n-1 3\n", want: `graph: line 2: "-1 3": source -1 is negative`},
		{name: "negative destination", in: "1 -7\n", want: `destination -7 is negative`},
		{name: "huge id", in: "3000000000 1\n", want: `source 3000000000 exceeds the largest node ID 2147483646`},
		{name: "max int32", in: "1 2147483647\n", want: `destination 2147483647 exceeds the largest node ID`},
		{name: "huge negative", in: "-99999999999999999999 1\n", want: `is negative`},
		{
			name: "beyond declared", in: "0 1\n0 5\n", opts: graph.EdgeListOptions{NumNodes: 5},
			want: `graph: line 2: "0 5": destination 5 is out of range: the graph has 5 nodes`,
		},
		{
			name: "beyond declared src", in: "2 0\n", opts: graph.EdgeListOptions{Bipartite: true, NumSrc: 2},
			want: `source 2 is out of range: the graph has 2 source nodes`,
		},
		{
			name: "beyond declared dst", in: "0 3\n", opts: graph.EdgeListOptions{Bipartite: true, NumDst: 3},
			want: `destination 3 is out of range: the graph has 3 destination nodes`,
		},
		{name: "weight column", in: "0 1 0.5\n", want: `graph: line 1: "0 1 0.5": 3 columns, want 2 (src dst); read weighted lists with ReadWeightedEdgeList`},
		{name: "four columns", in: "0 1 2 3\n", want: `4 columns, want 2 (src dst)`},
		{name: "one column", in: "0\n", want: `graph: line 1: "0": 1 columns, want 2 (src dst)`},
		{name: "double comma", in: "0,,1\n", want: `"0,,1": empty column (stray comma)`},
		{name: "trailing comma", in: "0,1,\n", want: `empty column (stray comma)`},
		{name: "leading comma", in: ",0,1\n", want: `empty column (stray comma)`},
		{name: "header not skipped", in: "src dst\n0 1\n", want: `graph: line 1: "src dst": source "src" is not an integer`},
		{name: "long line", in: "0 1\n" + strings.Repeat("9", 1<<20+10) + "\n", want: `graph: line 2: "999`},
		{name: "long line message", in: strings.Repeat(" ", 1<<20+10), want: `line is longer than 1048576 bytes`},
		{name: "negative nodes", opts: graph.EdgeListOptions{NumNodes: -1}, want: `graph: negative node count in EdgeListOptions`},
		{name: "too many nodes", opts: graph.EdgeListOptions{NumNodes: graph.MaxNodes + 1}, want: `exceeds 2147483647`},
		{name: "bipartite NumNodes", opts: graph.EdgeListOptions{Bipartite: true, NumNodes: 3}, want: `NumNodes is set for a bipartite graph`},
		{name: "NumSrc without bipartite", opts: graph.EdgeListOptions{NumSrc: 3}, want: `NumSrc and NumDst need Bipartite`},
	} {
		g, err := graph.ReadEdgeList(strings.NewReader(tc.in), tc.opts)
		if err == nil {
			t.Errorf("%s: got %v, want error %q", tc.name, g, tc.want)
			continue
		}
		if strings.HasPrefix(tc.want, "graph: ") && !strings.HasPrefix(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
		if len(err.Error()) > 300 {
			t.Errorf("%s: error message is %d bytes long", tc.name, len(err.Error()))
		}
	}
}

func TestReadEdgeListReaderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := iotest.TimeoutReader(strings.NewReader(strings.Repeat("0 1\n", 1<<16)))
	_, err := graph.ReadEdgeList(r, graph.EdgeListOptions{})
	if !errors.Is(err, iotest.ErrTimeout) {
		t.Errorf("error %v, want it to wrap %v", err, iotest.ErrTimeout)
	}
	_, err = graph.ReadEdgeList(iotest.ErrReader(boom), graph.EdgeListOptions{})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "graph: ") {
		t.Errorf("error %v, want a graph error wrapping %v", err, boom)
	}
}

func TestReadWeightedEdgeList(t *testing.T) {
	t.Parallel()
	g, w, err := graph.ReadWeightedEdgeList(strings.NewReader("src,dst,w\n0,1,0.5\n2 0 -3\n1\t1\t1e-3 # c\n"),
		graph.EdgeListOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	ioCheckGraph(t, "weighted", g, 3, 3, []int32{0, 2, 1}, []int32{1, 0, 1})
	if want := []float32{0.5, -3, 1e-3}; !slices.Equal(w, want) {
		t.Errorf("weights %v, want %v", w, want)
	}

	for _, tc := range []struct{ name, in, want string }{
		{"two columns", "0 1\n", `graph: line 1: "0 1": 2 columns, want 3 (src dst weight)`},
		{"four columns", "0 1 2 3\n", `4 columns, want 3 (src dst weight)`},
		{"not a number", "0 1 one\n", `weight "one" is not a number`},
		{"nan", "0 1 NaN\n", `weight "NaN" is not finite`},
		{"inf", "0 1 -inf\n", `weight "-inf" is not finite`},
		{"overflow", "0 1 1e39\n", `weight "1e39" is out of the float32 range`},
		{"bad id", "0 x 1\n", `destination "x" is not an integer`},
	} {
		_, _, err := graph.ReadWeightedEdgeList(strings.NewReader(tc.in), graph.EdgeListOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadEdgeList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad.csv")
	weighted := filepath.Join(dir, "w.txt")
	for path, text := range map[string]string{good: "0 1\n1 2\n", bad: "0,1\n1,2,3\n", weighted: "0 1 2.5\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := graph.LoadEdgeList(good, graph.EdgeListOptions{NumNodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	ioCheckGraph(t, "good", g, 4, 4, []int32{0, 1}, []int32{1, 2})

	_, err = graph.LoadEdgeList(bad, graph.EdgeListOptions{})
	if want := "graph: " + bad + `: line 2: "1,2,3": 3 columns`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("bad file: error %v, want prefix %q", err, want)
	}
	_, err = graph.LoadEdgeList(filepath.Join(dir, "missing.txt"), graph.EdgeListOptions{})
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "graph: ") {
		t.Errorf("missing file: error %v, want a graph error wrapping os.ErrNotExist", err)
	}
	_, err = graph.LoadEdgeList(good, graph.EdgeListOptions{NumNodes: -2})
	if err == nil || !strings.HasPrefix(err.Error(), "graph: negative node count") {
		t.Errorf("bad options: error %v", err)
	}

	g, w, err := graph.LoadWeightedEdgeList(weighted, graph.EdgeListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ioCheckGraph(t, "weighted", g, 2, 2, []int32{0}, []int32{1})
	if !slices.Equal(w, []float32{2.5}) {
		t.Errorf("weights %v, want [2.5]", w)
	}
}

func TestWriteEdgeListRoundTrip(t *testing.T) {
	t.Parallel()
	src := []int32{0, 4, 2, 2, 1, 0}
	dst := []int32{1, 0, 2, 3, 6, 0}
	g, err := graph.FromCOO(5, 7, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteEdgeList(&buf); err != nil {
		t.Fatal(err)
	}
	if want := "0 1\n4 0\n2 2\n2 3\n1 6\n0 0\n"; buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
	back, err := graph.ReadEdgeList(&buf, graph.EdgeListOptions{Bipartite: true, NumSrc: 5, NumDst: 7})
	if err != nil {
		t.Fatal(err)
	}
	ioCheckGraph(t, "round trip", back, 5, 7, src, dst)

	buf.Reset()
	if err := g.Reverse().WriteEdgeList(&buf); err != nil {
		t.Fatal(err)
	}
	back, err = graph.ReadEdgeList(&buf, graph.EdgeListOptions{Bipartite: true, NumSrc: 7, NumDst: 5})
	if err != nil {
		t.Fatal(err)
	}
	ioCheckGraph(t, "reverse round trip", back, 7, 5, dst, src)

	if err := g.WriteEdgeList(failWriter{}); err == nil {
		t.Error("WriteEdgeList to a failing writer: no error")
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
