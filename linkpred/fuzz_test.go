package linkpred

import (
	"testing"

	"github.com/gnngo/gnn/graph"
)

// FuzzSplitEdges checks the split's invariants on arbitrary small graphs
// and ratios: each pair of bytes is an edge (and, for the undirected split,
// its reverse too).
func FuzzSplitEdges(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 2, 0, 3, 3}, uint8(10), uint8(20), uint8(30), uint64(1))
	f.Add([]byte{5, 5}, uint8(0), uint8(0), uint8(0), uint64(2))
	f.Add([]byte{1, 2, 1, 2, 2, 1, 0, 7, 7, 0, 4, 4}, uint8(49), uint8(50), uint8(99), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, val, test, disjoint uint8, seed uint64) {
		const n = 8
		var src, dst []int32
		for i := 0; i+1 < len(data) && len(src) < 200; i += 2 {
			src, dst = append(src, int32(data[i]%n)), append(dst, int32(data[i+1]%n))
		}
		cfg := SplitConfig{Val: float64(val%100) / 100, Test: float64(test%100) / 100,
			DisjointTrain: float64(disjoint%100) / 100, Seed: seed}
		g, err := graph.FromCOO(n, n, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		s, err := SplitEdges(g, cfg)
		if err != nil {
			if len(src) == 0 || cfg.Val+cfg.Test >= 1 {
				return
			}
			t.Fatal(err)
		}
		checkSplit(t, "directed", g, cfg, s)
		var us, ud []int32
		for e := range src {
			us, ud = append(us, src[e]), append(ud, dst[e])
			if src[e] != dst[e] {
				us, ud = append(us, dst[e]), append(ud, src[e])
			}
		}
		u, err := graph.FromCOO(n, n, us, ud)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Undirected = true
		if s, err = SplitEdges(u, cfg); err != nil {
			t.Fatal(err)
		}
		checkSplit(t, "undirected", u, cfg, s)
	})
}
