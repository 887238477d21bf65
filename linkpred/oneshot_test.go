package linkpred

import (
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

// checkNegativeEdges checks that the pairs are distinct non-edges of g.
func checkNegativeEdges(t *testing.T, name string, g *graph.Graph, src, dst []int32, num int, noLoops bool) {
	t.Helper()
	if len(src) != num || len(dst) != num {
		t.Fatalf("%s: %d/%d pairs, want %d", name, len(src), len(dst), num)
	}
	edges := edgeSet(g)
	seen := map[uint64]bool{}
	for i := range src {
		p := pack(src[i], dst[i])
		if edges[p] || seen[p] || (noLoops && src[i] == dst[i]) {
			t.Fatalf("%s: pair %d (%d -> %d) is an edge, a repeat or a self-loop", name, i, src[i], dst[i])
		}
		if int(src[i]) >= g.NumSrc() || int(dst[i]) >= g.NumDst() || src[i] < 0 || dst[i] < 0 {
			t.Fatalf("%s: pair %d (%d -> %d) out of range", name, i, src[i], dst[i])
		}
		seen[p] = true
	}
}

func TestNegativeEdges(t *testing.T) {
	t.Parallel()
	sparse, err := generate.Uniform(500, 5000, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Complete(12) less 10 edges: 10 non-edges plus 12 self-loops.
	full := generate.Complete(12)
	fs, fd := full.COO()
	dense := mustCOO(t, 12, 12, fs[10:], fd[10:])
	bi := generate.CompleteBipartite(7, 9)
	bs, bd := bi.COO()
	bip := mustCOO(t, 7, 9, bs[:50], bd[:50]) // 13 non-edges
	for _, c := range []struct {
		name    string
		g       *graph.Graph
		num     int
		noLoops bool
	}{
		{"sparse rejection", sparse, 20000, true},
		{"none", sparse, 0, false},
		{"dense selection", dense, 15, false},
		{"dense all", dense, 22, false},
		{"dense no loops", dense, 10, true},
		{"bipartite", bip, 13, false},
	} {
		src, dst, err := NegativeEdges(c.g, c.num, 8, optsFor(c.noLoops)...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkNegativeEdges(t, c.name, c.g, src, dst, c.num, c.noLoops)
		s2, d2, _ := NegativeEdges(c.g, c.num, 8, optsFor(c.noLoops)...)
		if !slices.Equal(src, s2) || !slices.Equal(dst, d2) {
			t.Errorf("%s: not deterministic", c.name)
		}
	}
	// Uniform over the non-edges: count single draws over many seeds.
	counts := map[uint64]int{}
	for seed := range uint64(3000) {
		s, d, err := NegativeEdges(dense, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		counts[pack(s[0], d[0])]++
	}
	got := make([]int, 0, len(counts))
	for _, c := range counts {
		got = append(got, c)
	}
	prob := make([]float64, 22)
	for i := range prob {
		prob[i] = 1.0 / 22
	}
	if len(got) != 22 {
		t.Fatalf("%d distinct single draws, want all 22 non-edges", len(got))
	}
	if stat, df := chiSquare(got, prob); stat > generous(df) {
		t.Errorf("single draws: chi-square %.1f on %d df: %v", stat, df, got)
	}
}

func optsFor(noLoops bool) []Option {
	if noLoops {
		return []Option{ExcludeSelfLoops()}
	}
	return nil
}

func TestNegativeEdgesErrors(t *testing.T) {
	t.Parallel()
	g := generate.Complete(4)
	for _, c := range []struct {
		g    *graph.Graph
		num  int
		opts []Option
		want string
	}{
		{g, 5, nil, "5 negative edges requested but Graph(id="},
		{g, 1, []Option{ExcludeSelfLoops()}, "has only 0 non-edges that are not self-loops"},
		{g, -1, nil, "-1 negative edges requested"},
		{nil, 1, nil, "nil graph"},
		{g, 1, []Option{Distinct()}, "takes only the ExcludeSelfLoops option"},
		{g, 1, []Option{Exclude(g)}, "takes only the ExcludeSelfLoops option"},
		{g, 1, []Option{MaxTries(0)}, "MaxTries(0)"},
	} {
		if _, _, err := NegativeEdges(c.g, c.num, 1, c.opts...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("num %d: err = %v, want it to contain %q", c.num, err, c.want)
		}
	}
	if s, d, err := NegativeEdges(g, 4, 1); err != nil || len(s) != 4 || len(d) != 4 {
		t.Errorf("exactly the 4 self-loops: %v %v %v", s, d, err)
	}
}
