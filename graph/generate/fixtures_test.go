package generate

import (
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
)

func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		g                *graph.Graph
		numSrc, numDst   int
		wantSrc, wantDst []int32
	}{
		{"Empty(0)", Empty(0), 0, 0, nil, nil},
		{"Empty(3)", Empty(3), 3, 3, nil, nil},
		{"Path(0)", Path(0), 0, 0, nil, nil},
		{"Path(1)", Path(1), 1, 1, nil, nil},
		{"Path(4)", Path(4), 4, 4, []int32{0, 1, 2}, []int32{1, 2, 3}},
		{"Cycle(0)", Cycle(0), 0, 0, nil, nil},
		{"Cycle(1)", Cycle(1), 1, 1, []int32{0}, []int32{0}},
		{"Cycle(3)", Cycle(3), 3, 3, []int32{0, 1, 2}, []int32{1, 2, 0}},
		{"Star(0)", Star(0), 0, 0, nil, nil},
		{"Star(1)", Star(1), 1, 1, nil, nil},
		{"Star(4)", Star(4), 4, 4, []int32{0, 0, 0}, []int32{1, 2, 3}},
		{"Star(4).Reverse()", Star(4).Reverse(), 4, 4, []int32{1, 2, 3}, []int32{0, 0, 0}},
		{"Complete(1)", Complete(1), 1, 1, nil, nil},
		{"Complete(3)", Complete(3), 3, 3, []int32{0, 0, 1, 1, 2, 2}, []int32{1, 2, 0, 2, 0, 1}},
		{"CompleteBipartite(0,2)", CompleteBipartite(0, 2), 0, 2, nil, nil},
		{"CompleteBipartite(2,3)", CompleteBipartite(2, 3), 2, 3, []int32{0, 0, 0, 1, 1, 1}, []int32{0, 1, 2, 0, 1, 2}},
		{"Grid(0,5)", Grid(0, 5), 0, 0, nil, nil},
		{"Grid(1,3)", Grid(1, 3), 3, 3, []int32{0, 1, 1, 2}, []int32{1, 0, 2, 1}},
		// 0 1 2
		// 3 4 5
		{"Grid(2,3)", Grid(2, 3), 6, 6,
			[]int32{0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5},
			[]int32{1, 3, 0, 2, 4, 1, 5, 0, 4, 1, 3, 5, 2, 4}},
		{"SelfLoops(3)", SelfLoops(3), 3, 3, []int32{0, 1, 2}, []int32{0, 1, 2}},
		{"ParallelEdges(3,2)", ParallelEdges(3, 2), 3, 3, []int32{0, 0, 1, 1}, []int32{1, 1, 2, 2}},
		{"ParallelEdges(3,0)", ParallelEdges(3, 0), 3, 3, nil, nil},
	} {
		src, dst := tc.g.COO()
		if tc.g.NumSrc() != tc.numSrc || tc.g.NumDst() != tc.numDst {
			t.Errorf("%s: got %d x %d nodes, want %d x %d", tc.name, tc.g.NumSrc(), tc.g.NumDst(), tc.numSrc, tc.numDst)
		}
		if !slices.Equal(src, tc.wantSrc) || !slices.Equal(dst, tc.wantDst) {
			t.Errorf("%s: got edges %v -> %v, want %v -> %v", tc.name, src, dst, tc.wantSrc, tc.wantDst)
		}
	}
}

func TestFixtureSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		g     *graph.Graph
		edges int
	}{
		{"Complete(20)", Complete(20), 20 * 19},
		{"CompleteBipartite(7,9)", CompleteBipartite(7, 9), 63},
		{"Grid(5,8)", Grid(5, 8), 2 * (5*7 + 8*4)},
		{"ParallelEdges(10,3)", ParallelEdges(10, 3), 27},
	} {
		if got := tc.g.NumEdges(); got != tc.edges {
			t.Errorf("%s: %d edges, want %d", tc.name, got, tc.edges)
		}
	}
	// Interior grid nodes have degree 4, and the grid is symmetric.
	g := Grid(5, 8)
	in, out := g.InDegrees(), g.OutDegrees()
	if !slices.Equal(in, out) {
		t.Errorf("Grid(5, 8): in-degrees %v differ from out-degrees %v", in, out)
	}
	if d := out[2*8+3]; d != 4 {
		t.Errorf("Grid(5, 8): interior node has degree %d, want 4", d)
	}
	if d := out[0]; d != 2 {
		t.Errorf("Grid(5, 8): corner node has degree %d, want 2", d)
	}
}

func TestFixturePanics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Empty(-1)", func() { Empty(-1) }},
		{"Path(-1)", func() { Path(-1) }},
		{"Cycle(-1)", func() { Cycle(-1) }},
		{"Star(-1)", func() { Star(-1) }},
		{"Complete(-1)", func() { Complete(-1) }},
		{"CompleteBipartite(1,-1)", func() { CompleteBipartite(1, -1) }},
		{"Grid(-1,2)", func() { Grid(-1, 2) }},
		{"Grid(2^16,2^16)", func() { Grid(1<<16, 1<<16) }},
		{"SelfLoops(-1)", func() { SelfLoops(-1) }},
		{"ParallelEdges(3,-1)", func() { ParallelEdges(3, -1) }},
	} {
		func() {
			defer func() {
				r := recover()
				msg, ok := r.(string)
				if !ok || !strings.HasPrefix(msg, "generate: ") {
					t.Errorf("%s: recovered %v, want a panic with a \"generate: \" message", tc.name, r)
				}
			}()
			tc.f()
		}()
	}
}
