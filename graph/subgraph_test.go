package graph

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkSubgraph verifies a subgraph against its parent through the maps:
// every edge i is parent edge EdgeIDs[i] with both endpoints relabelled.
func checkSubgraph(t *testing.T, name string, parent *Graph, sub *Subgraph) {
	t.Helper()
	n := len(sub.NodeIDs)
	if sub.NumSrc() != n || sub.NumDst() != n || sub.NumEdges() != len(sub.EdgeIDs) {
		t.Errorf("%s: got %v for %d nodes and %d edges", name, sub, n, len(sub.EdgeIDs))
		return
	}
	if sub.ID() == parent.ID() || sub.NodeIDs == nil || sub.EdgeIDs == nil {
		t.Errorf("%s: got ID %d (parent %d), nil maps %v %v", name, sub.ID(), parent.ID(), sub.NodeIDs == nil, sub.EdgeIDs == nil)
	}
	ps, pd := parent.COO()
	src, dst := sub.COO()
	for i, e := range sub.EdgeIDs {
		if sub.NodeIDs[src[i]] != ps[e] || sub.NodeIDs[dst[i]] != pd[e] {
			t.Errorf("%s: edge %d = %d -> %d maps to parent edge %d = %d -> %d",
				name, i, sub.NodeIDs[src[i]], sub.NodeIDs[dst[i]], e, ps[e], pd[e])
			return
		}
	}
}

func TestNodeSubgraph(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for name, g := range transformInputs(t) {
		if !g.Homogeneous() {
			_, err := g.NodeSubgraph(nil)
			if err == nil || !strings.Contains(err.Error(), "NodeSubgraph needs a homogeneous graph") {
				t.Errorf("%s: got error %v, want homogeneous error", name, err)
			}
			continue
		}
		n := g.NumSrc()
		// Small subsets take the CSR path, large ones the COO scan.
		for _, k := range []int{0, min(1, n), n / 10, n / 2, n} {
			nodes := r.Perm(n)[:k]
			nodes32 := make([]int32, k)
			in := make(map[int32]bool)
			for i, v := range nodes {
				nodes32[i] = int32(v)
				in[int32(v)] = true
			}
			sub, err := g.NodeSubgraph(nodes32)
			if err != nil {
				t.Errorf("%s/k=%d: %v", name, k, err)
				continue
			}
			if !slices.Equal(sub.NodeIDs, nodes32) {
				t.Errorf("%s/k=%d: got NodeIDs %v, want %v", name, k, sub.NodeIDs, nodes32)
			}
			var want []int64
			src, dst := g.COO()
			for e := range src {
				if in[src[e]] && in[dst[e]] {
					want = append(want, int64(e))
				}
			}
			if !slices.Equal(sub.EdgeIDs, want) {
				t.Errorf("%s/k=%d: got EdgeIDs %v, want %v", name, k, sub.EdgeIDs, want)
			}
			checkSubgraph(t, name, g, sub)
		}
	}

	g := mustFromCOO(t, 4, 4, []int32{0, 1, 2, 3, 3}, []int32{1, 2, 3, 0, 1})
	sub, err := g.NodeSubgraph([]int32{3, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if src, dst := sub.COO(); !slices.Equal(sub.EdgeIDs, []int64{0, 3, 4}) ||
		!slices.Equal(src, []int32{2, 0, 0}) || !slices.Equal(dst, []int32{1, 2, 1}) {
		t.Errorf("got edges %v -> %v, EdgeIDs %v, want [2 0 0] -> [1 2 1], [0 3 4]", src, dst, sub.EdgeIDs)
	}
	if !strings.Contains(sub.String(), "nodes=3") {
		t.Errorf("got String %q", sub.String())
	}

	nodes := []int32{2, 0}
	sub, _ = g.NodeSubgraph(nodes)
	nodes[0] = 1
	if sub.NodeIDs[0] != 2 {
		t.Error("NodeSubgraph does not copy nodes")
	}
}

func TestNodeSubgraphErrors(t *testing.T) {
	g := mustFromCOO(t, 4, 4, []int32{0, 1}, []int32{1, 2})
	for _, c := range []struct {
		nodes []int32
		want  string
	}{
		{[]int32{0, 4}, "graph: nodes[1] = 4 but the graph has 4 nodes"},
		{[]int32{-1}, "graph: nodes[0] = -1 but the graph has 4 nodes"},
		{[]int32{3, 1, 2, 1}, "graph: nodes[3] = 1 repeats nodes[1]"},
	} {
		if _, err := g.NodeSubgraph(c.nodes); err == nil || err.Error() != c.want {
			t.Errorf("NodeSubgraph(%v): got error %v, want %q", c.nodes, err, c.want)
		}
	}
}

func TestEdgeSubgraph(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for name, g := range transformInputs(t) {
		if !g.Homogeneous() {
			_, err := g.EdgeSubgraph(nil)
			if err == nil || !strings.Contains(err.Error(), "EdgeSubgraph needs a homogeneous graph") {
				t.Errorf("%s: got error %v, want homogeneous error", name, err)
			}
			continue
		}
		m := g.NumEdges()
		for _, k := range []int{0, min(1, m), m / 3, m} {
			perm := r.Perm(m)[:k]
			eids := make([]int64, k)
			for i, e := range perm {
				eids[i] = int64(e)
			}
			sub, err := g.EdgeSubgraph(eids)
			if err != nil {
				t.Errorf("%s/k=%d: %v", name, k, err)
				continue
			}
			if !slices.Equal(sub.EdgeIDs, eids) {
				t.Errorf("%s/k=%d: got EdgeIDs %v, want %v", name, k, sub.EdgeIDs, eids)
			}
			src, dst := g.COO()
			seen := make(map[int32]bool)
			var want []int32
			for _, e := range eids {
				for _, v := range []int32{src[e], dst[e]} {
					if !seen[v] {
						seen[v] = true
						want = append(want, v)
					}
				}
			}
			slices.Sort(want)
			if !slices.Equal(sub.NodeIDs, want) {
				t.Errorf("%s/k=%d: got NodeIDs %v, want %v", name, k, sub.NodeIDs, want)
			}
			checkSubgraph(t, name, g, sub)
		}
	}

	g := mustFromCOO(t, 5, 5, []int32{0, 4, 2, 3}, []int32{4, 4, 3, 0})
	eids := []int64{3, 1}
	sub, err := g.EdgeSubgraph(eids)
	if err != nil {
		t.Fatal(err)
	}
	eids[0] = 0
	if src, dst := sub.COO(); !slices.Equal(sub.NodeIDs, []int32{0, 3, 4}) ||
		!slices.Equal(sub.EdgeIDs, []int64{3, 1}) ||
		!slices.Equal(src, []int32{1, 2}) || !slices.Equal(dst, []int32{0, 2}) {
		t.Errorf("got nodes %v edges %v -> %v, EdgeIDs %v, want [0 3 4], [1 2] -> [0 2], [3 1]",
			sub.NodeIDs, src, dst, sub.EdgeIDs)
	}
}

func TestEdgeSubgraphErrors(t *testing.T) {
	g := mustFromCOO(t, 3, 3, []int32{0, 1, 2}, []int32{1, 2, 0})
	for _, c := range []struct {
		eids []int64
		want string
	}{
		{[]int64{0, 3}, "graph: eids[1] = 3 but the graph has 3 edges"},
		{[]int64{-2}, "graph: eids[0] = -2 but the graph has 3 edges"},
		{[]int64{2, 0, 1, 0, 2}, "graph: eids[3] = 0 repeats eids[1]"},
	} {
		if _, err := g.EdgeSubgraph(c.eids); err == nil || err.Error() != c.want {
			t.Errorf("EdgeSubgraph(%v): got error %v, want %q", c.eids, err, c.want)
		}
	}
}
